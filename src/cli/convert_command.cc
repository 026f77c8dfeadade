// `ntpbench convert IN OUT`: ONNX, XML or JSON in; JSON or XML out (NTP's topology comparison
// workflow: turn a model into an editable topology, change it, benchmark the variant).
#include <cstdio>

#include "ntpbench/error.h"
#include "ntpbench/topology_file.h"
#include "src/cli/commands.h"

namespace ntpb::cli {

int ConvertCommand(const std::vector<std::string>& args) {
  if (args.size() != 2) throw Error("", "", "convert", "usage: ntpbench convert IN OUT");
  const Topology t = ReadTopologyFile(args[0]);
  size_t given = 0;
  for (const Layer& l : t.layers) given += l.weights.size();
  WriteTopologyFile(t, args[1]);
  std::printf("%s: %zu layers, %zu inputs, %zu outputs -> %s\n", args[0].c_str(), t.layers.size(),
              t.inputs.size(), t.outputs.size(), args[1].c_str());
  if (given > 0) {
    std::fprintf(stderr,
                 "ntpbench convert: %zu weights of the model are not written; the converted "
                 "topology runs with random weights of the same shapes\n",
                 given);
  }
  return 0;
}

}  // namespace ntpb::cli
