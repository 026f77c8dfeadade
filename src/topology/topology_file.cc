#include "ntpbench/topology_file.h"

#include "ntpbench/error.h"
#include "ntpbench/json_format.h"
#include "ntpbench/onnx_format.h"
#include "ntpbench/xml_format.h"
#include "src/common/file_io.h"

namespace ntpb {
namespace {

std::string Extension(const std::string& path) {
  const size_t dot = path.rfind('.');
  const size_t slash = path.rfind('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  return path.substr(dot + 1);
}

// A topology on standard input ("-"): its format by its first byte ('{' JSON, '<' XML, else an
// ONNX protobuf; a UTF-8 byte-order mark before the text is skipped, as editors on Windows
// write one), read with the ONNX reader's size bound.
Topology ReadStandardInput() {
  const std::string text = ReadStandardInputText(OnnxLimits().max_file_bytes);
  const size_t bom = text.rfind("\xef\xbb\xbf", 0) == 0 ? 3 : 0;
  const size_t first = text.find_first_not_of(" \t\r\n", bom);
  const char lead = first == std::string::npos ? '\0' : text[first];
  if (lead == '{') return ParseTopologyJson(text, "<stdin>");
  if (lead == '<') return ParseTopologyXml(text, "<stdin>");
  return ParseOnnx(text, "<stdin>");
}

}  // namespace

Topology ReadTopologyFile(const std::string& path) {
  if (path == "-") return ReadStandardInput();
  const std::string ext = Extension(path);
  if (ext == "json") return ReadTopologyJsonFile(path);
  if (ext == "xml") return ReadTopologyXmlFile(path);
  if (ext == "onnx") return ReadOnnxFile(path);
  throw Error(path, "", "",
              "unknown topology format '." + ext + "' (expected .json, .xml or .onnx)");
}

Topology ReadTopologyShapes(const std::string& path) {
  if (path == "-" || Extension(path) != "onnx") return ReadTopologyFile(path);
  OnnxLimits shapes_only;
  shapes_only.read_weights = false;
  return ReadOnnxFile(path, shapes_only);
}

void WriteTopologyFile(const Topology& topology, const std::string& path) {
  if (topology.rebind && topology.layers.empty()) {  // an ONNX model its default sizes break
    throw Error(topology.file, "", "", topology.description);
  }
  const std::string ext = Extension(path);
  if (ext == "json") return WriteTopologyJsonFile(topology, path);
  if (ext == "xml") return WriteTopologyXmlFile(topology, path);
  throw Error(path, "", "", "can write .json or .xml topologies, not '." + ext + "'");
}

}  // namespace ntpb
