// The NTP-style XML topology format (docs/topology-format.md, "XML"): the same topology as the
// JSON format, written as <topology>, <param>, <input>, <layer type=...>, <output>, <marker>.
// It is read into the JSON form and checked by the same reader, so errors read the same.
#pragma once

#include <string>

#include "ntpbench/topology.h"

namespace ntpb {

// Throws ntpb::Error naming the file, layer and field (and line for malformed XML).
Topology ReadTopologyXmlFile(const std::string& path);
Topology ParseTopologyXml(const std::string& text, const std::string& file);

std::string WriteTopologyXml(const Topology& topology);
void WriteTopologyXmlFile(const Topology& topology, const std::string& path);

}  // namespace ntpb
