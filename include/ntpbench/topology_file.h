// Any topology file by its extension: .json, .xml (NTP-style) or .onnx.
#pragma once

#include <string>

#include "ntpbench/topology.h"

namespace ntpb {

// Throws ntpb::Error naming the file (and the layer and field) on any problem. "-" reads
// standard input, its format told by its first byte ('{' JSON, '<' XML, else ONNX).
Topology ReadTopologyFile(const std::string& path);
// .json or .xml, written atomically. Weights taken from a model (ONNX initializers) are not
// written: the written topology runs with random weights.
void WriteTopologyFile(const Topology& topology, const std::string& path);

}  // namespace ntpb
