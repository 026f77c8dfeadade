// `ntpbench inspect`: the analytic view of a topology, nothing run.
#include <cstdio>

#include "ntpbench/analysis.h"
#include "ntpbench/json_format.h"
#include "ntpbench/report.h"
#include "ntpbench/topology_file.h"
#include "src/cli/cli_options.h"
#include "src/cli/commands.h"

namespace ntpb::cli {
namespace {

nlohmann::ordered_json CostJson(const Cost& c) {
  return {{"flops", c.flops},
          {"params", c.params},
          {"weight_bytes", c.weight_bytes},
          {"input_bytes", c.input_bytes},
          {"output_bytes", c.output_bytes},
          {"intensity", c.Intensity()}};
}

}  // namespace

int InspectCommand(const std::vector<std::string>& args) {
  const CliOptions o = ParseCliOptions(args, false);
  const Topology topology = ReadTopologyFile(o.file);
  ParamEnv env = o.sets;
  env["N"] = o.batches.front();
  const ResolvedTopology r = Resolve(topology, env);
  const std::vector<ResolvedMarker> extra = ResolveMarkers(r, o.markers);
  const TopologyAnalysis a = Analyze(r, o.precisions.front(), extra);
  if (!o.json) {
    std::printf("%s (%s), batch %lld, %zu layers\n", r.name.c_str(), o.file.c_str(),
                static_cast<long long>(r.params.at("N")), r.layers.size());
    std::fputs(FormatInspectTable(r, a).c_str(), stdout);
    return 0;
  }
  nlohmann::ordered_json doc;
  doc["name"] = r.name;
  doc["file"] = o.file;
  doc["precision"] = PrecisionName(a.precision);
  doc["params"] = r.params;
  doc["layers"] = nlohmann::ordered_json::array();
  for (size_t i = 0; i < r.layers.size(); ++i) {
    const ResolvedLayer& l = r.layers[i];
    doc["layers"].push_back({{"name", l.name},
                             {"op", l.op},
                             {"inlay", a.layers[i].inlay},
                             {"inputs", l.inputs},
                             {"input_shapes", l.input_shapes},
                             {"output_shape", l.output_shapes[0]},
                             {"attrs", l.attrs.json()},
                             {"cost", CostJson(a.layers[i].cost)}});
  }
  doc["markers"] = nlohmann::ordered_json::array();
  for (const MarkerAnalysis& m : a.markers) {
    doc["markers"].push_back({{"name", m.name},
                              {"start", r.layers[m.first].name},
                              {"end", r.layers[m.last].name},
                              {"cost", CostJson(m.cost)}});
  }
  doc["total"] = CostJson(a.total);
  doc["peak_activation_bytes"] = a.peak_activation_bytes;
  std::printf("%s\n", doc.dump(2).c_str());
  return 0;
}

}  // namespace ntpb::cli
