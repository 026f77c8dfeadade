// Any topology file by its extension: .json, .xml (NTP-style) or .onnx.
#pragma once

#include <string>

#include "ntpbench/topology.h"

namespace ntpb {

// Throws ntpb::Error naming the file (and the layer and field) on any problem. "-" reads
// standard input, its format told by its first byte ('{' JSON, '<' XML, else ONNX).
Topology ReadTopologyFile(const std::string& path);
// The topology's layers, shapes and small constants without its large weights' values: an ONNX
// model's weights of 64 Ki elements and more are neither converted nor, when external, read
// (`inspect` of a large model). Its large weights are random if it is run.
Topology ReadTopologyShapes(const std::string& path);
// Standard input holding a topology, and its format's extension ("json", "xml", "onnx") told by
// its first bytes; each format has its own size bound, and what is none of them (`yes`,
// /dev/zero) is refused before more than 64 KiB is read.
std::string ReadStandardInputTopology(std::string* extension);
// .json or .xml, written atomically. Weights taken from a model (ONNX initializers) are not
// written: the written topology runs with random weights.
void WriteTopologyFile(const Topology& topology, const std::string& path);

}  // namespace ntpb
