// `ntpbench convert IN OUT`: ONNX, XML or JSON in; JSON or XML out (NTP's topology comparison
// workflow: turn a model into an editable topology, change it, benchmark the variant).
#include <cstdio>

#include "ntpbench/error.h"
#include "ntpbench/topology_file.h"
#include "src/cli/commands.h"
#include "src/common/file_io.h"

namespace ntpb::cli {

namespace {

int Convert(const std::string& in, const std::string& out) {
  RefuseOutputOverInput(out, {in}, "OUT");
  const Topology t = ReadTopologyFile(in);
  size_t given = 0;
  for (const Layer& l : t.layers) given += l.weights.size();
  WriteTopologyFile(t, out);
  std::printf("%s: %zu layers, %zu inputs, %zu outputs -> %s\n", in.c_str(), t.layers.size(),
              t.inputs.size(), t.outputs.size(), out.c_str());
  if (given > 0) {
    std::fprintf(stderr,
                 "ntpbench convert: %zu weights of the model are not written; the converted "
                 "topology runs with random weights of the same shapes\n",
                 given);
  }
  return 0;
}

}  // namespace

Command AddConvertCommand(CLI::App* app) {
  auto files = std::make_shared<std::pair<std::string, std::string>>();
  CLI::App* c = app->add_subcommand(
      "convert", "a topology from one format to another, to edit a model's topology and run it");
  c->add_option("IN", files->first, "the topology or model: .onnx, .xml or .json")->required();
  c->add_option("OUT", files->second, "the topology written: .json or .xml")->required();
  return {c, {}, [files](const std::vector<std::string>&) {
            return Convert(files->first, files->second);
          }};
}

}  // namespace ntpb::cli
