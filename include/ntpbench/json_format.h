// The JSON topology format (docs/topology-format.md). Reading validates the structure, the op
// names and the attribute types; writing then reading gives back an equal Topology.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "ntpbench/topology.h"

namespace ntpb {

// Largest topology file the readers accept, to refuse absurd input before parsing it.
inline constexpr std::size_t kMaxTopologyFileBytes = 64u << 20;

// Throws ntpb::Error naming the file, layer and field on any problem.
Topology ReadTopologyJsonFile(const std::string& path);
// `file` is only used in error messages.
Topology ParseTopologyJson(const std::string& text, const std::string& file);
// The same checks on a document already parsed (the XML reader builds one).
Topology TopologyFromJson(const nlohmann::json& doc, const std::string& file);

// Canonical JSON text (2-space indented). Defaults that the reader fills in (a layer's output
// named after it, inputs from the previous layer) are left out again.
std::string WriteTopologyJson(const Topology& topology);
// Writes atomically (temporary file + rename).
void WriteTopologyJsonFile(const Topology& topology, const std::string& path);

}  // namespace ntpb
