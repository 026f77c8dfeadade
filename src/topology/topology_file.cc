#include "ntpbench/topology_file.h"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

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

// An ONNX model is a protobuf ModelProto: it starts with a field tag (a varint) of one of its
// fields (1 to 25) holding a varint or bytes.
bool StartsLikeAModelProto(const std::string& head) {
  uint64_t tag = 0;
  for (size_t i = 0; i < head.size() && i < 5; ++i) {
    tag |= static_cast<uint64_t>(head[i] & 0x7f) << (7 * i);
    if ((head[i] & 0x80) == 0) {
      const uint64_t field = tag >> 3, wire = tag & 7;
      return field >= 1 && field <= 25 && (wire == 0 || wire == 2);
    }
  }
  return false;
}

// A topology on standard input ("-"), in the format ReadStandardInputTopology tells.
Topology ReadStandardInput() {
  std::string extension;
  const std::string text = ReadStandardInputTopology(&extension);
  if (extension == "json") return ParseTopologyJson(text, "<stdin>");
  if (extension == "xml") return ParseTopologyXml(text, "<stdin>");
  return ParseOnnx(text, "<stdin>");
}

}  // namespace

// The format by the first bytes: '{' JSON, '<' XML (after a UTF-8 byte-order mark, as editors on
// Windows write one, and white space), else an ONNX protobuf.
std::string ReadStandardInputTopology(std::string* extension) {
  const HeadLimit limit = [extension](const std::string& head) -> std::size_t {
    if (head.empty()) throw Error("<stdin>", "", "", "is empty: no topology");
    const size_t bom = head.rfind("\xef\xbb\xbf", 0) == 0 ? 3 : 0;
    const size_t first = head.find_first_not_of(" \t\r\n", bom);
    const char lead = first == std::string::npos ? '\0' : head[first];
    if (lead == '{' || lead == '<') {
      *extension = lead == '{' ? "json" : "xml";
      return kMaxTopologyFileBytes;
    }
    if (bom == 0 && StartsLikeAModelProto(head)) {
      *extension = "onnx";
      return OnnxLimits().max_file_bytes;
    }
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02x", static_cast<unsigned char>(head[0]));
    throw Error("<stdin>", "", "",
                std::string("not a topology: it starts with byte ") + byte +
                    " (JSON starts with '{', XML with '<', an ONNX model with a protobuf field)");
  };
  return ReadStandardInputText(OnnxLimits().max_file_bytes, 64 << 10, limit);
}

namespace {

// A path with no extension is most often a shipped topology's name (`run mobilenet_v2`): said
// as the file it names, where there is one.
std::string WithoutAnExtension(const std::string& path) {
  std::error_code error;
  if (std::filesystem::exists(path, error)) {
    return "has no extension: a topology is a .json, .xml or .onnx file ('-' reads one from "
           "standard input)";
  }
  for (const std::string& candidate :
       {"topologies/" + path + ".json", path + ".json", path + ".xml", path + ".onnx"}) {
    if (std::filesystem::is_regular_file(candidate, error)) {
      return "no such file (did you mean " + candidate + "?)";
    }
  }
  return "no such file (a topology is a .json, .xml or .onnx file; the shipped ones are in "
         "topologies/)";
}

}  // namespace

Topology ReadTopologyFile(const std::string& path) {
  if (path == "-") return ReadStandardInput();
  // Said as what it is, before its (missing) extension is: `run topologies`, `run /dev/zero`.
  if (const std::string kind = NotAFileToRead(path); !kind.empty()) {
    throw Error(path, "", "", "cannot read a topology: " + kind);
  }
  const std::string ext = Extension(path);
  if (ext == "json") return ReadTopologyJsonFile(path);
  if (ext == "xml") return ReadTopologyXmlFile(path);
  if (ext == "onnx") return ReadOnnxFile(path);
  if (ext.empty()) throw Error(path, "", "", WithoutAnExtension(path));
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
