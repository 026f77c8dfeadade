// `ntpbench inspect`: the analytic view of a topology, nothing run.
#include <cstdio>

#include "ntpbench/analysis.h"
#include "ntpbench/backend.h"
#include "ntpbench/counters.h"
#include "ntpbench/json_format.h"
#include "ntpbench/report.h"
#include "ntpbench/topology_file.h"
#include "src/cli/commands.h"
#include "src/cli/topology_options.h"
#include "src/common/json_text.h"

namespace ntpb::cli {
namespace {

nlohmann::ordered_json CostJson(const Cost& c) {
  return {{"flops", c.flops},
          {"params", c.params},
          {"weight_bytes", c.weight_bytes},
          {"weight_traffic_bytes", c.weight_traffic_bytes},
          {"input_bytes", c.input_bytes},
          {"output_bytes", c.output_bytes},
          {"intensity", c.Intensity()}};
}

// What --backend and --counters ask of this machine: how each backend runs the precision, and
// which counters a run would get (an inspect before a long run).
nlohmann::ordered_json MachineView(const TopologyOptions& o, const ResolvedTopology& r,
                                   Precision precision) {
  nlohmann::ordered_json view = nlohmann::ordered_json::object();
  for (const std::string& b : o.backends) {
    const Backend* backend = FindBackend(b);
    if (!backend) {
      view["backends"][b] = BackendUnavailableReason(b);
      continue;
    }
    // What `run` would do: a precision the backend refuses here is said so, with its reason.
    RunConfig config;
    config.precision = precision;
    const Support support = backend->Supports(r, config);
    view["backends"][b] =
        support.ok ? backend->PrecisionPath(precision) : "not run: " + support.reason;
  }
  if (!o.counters.empty()) {
    const std::unique_ptr<CounterSet> probe = CounterSet::Create(o.counters);
    view["counters"] = probe->metrics();
    for (const CounterNote& n : probe->notes()) view["counters_missing"][n.what] = n.reason;
  }
  return view;
}

// The params the sizes were bound with, each with where it comes from (an ONNX dim) and the
// other name `--set` takes for it: what a user must know to run the model at other sizes.
std::string ParamsLine(const Topology& topology, const ResolvedTopology& r) {
  std::vector<std::string> entries;
  for (const auto& [name, value] : r.params) {
    if (name == "N" && !topology.param_sources.count("N")) continue;  // the batch, said above
    std::string how = name == "N" ? "--batch" : "";
    for (const auto& [alias, param] : topology.param_aliases) {
      if (param == name && name != "N") how += (how.empty() ? "--set " : ", --set ") + alias;
    }
    auto source = topology.param_sources.find(name);
    std::string note = source == topology.param_sources.end() ? "" : source->second;
    if (!how.empty()) note += (note.empty() ? "" : "; ") + how;
    entries.push_back(name + "=" + std::to_string(value) + (note.empty() ? "" : " (" + note + ")"));
  }
  if (entries.empty()) return "";
  std::string line = "params:";
  for (size_t i = 0; i < entries.size(); ++i) line += (i ? ", " : " ") + entries[i];
  if (line.size() <= 120) return line + "\n";
  line = "params:\n";  // one per line: a model with several symbolic dims
  for (const std::string& e : entries) line += "  " + e + "\n";
  return line;
}

int Inspect(const TopologyOptions& given, bool backend_given) {
  const Topology topology = ReadTopologyShapes(given.file);  // no run: no weights needed
  TopologyOptions canonical = given;
  CanonicalizeParams(topology, &canonical);
  const TopologyOptions& o = canonical;
  ParamEnv env = o.sets;
  env["N"] = o.batches.front();
  const ResolvedTopology r = Resolve(topology, env);
  const std::vector<ResolvedMarker> extra = ResolveMarkers(r, o.markers);
  const TopologyAnalysis a = Analyze(r, o.precisions.front(), extra);
  if (!o.json) {
    std::printf("%s (%s), batch %lld, %zu layers\n", r.name.c_str(), o.file.c_str(),
                static_cast<long long>(r.params.at("N")), r.layers.size());
    std::fputs(ParamsLine(topology, r).c_str(), stdout);
    std::fputs(FormatInspectTable(r, a).c_str(), stdout);
    const nlohmann::ordered_json view = MachineView(o, r, a.precision);
    if (backend_given) {
      for (const auto& [backend, path] : view["backends"].items()) {
        const std::string how = path.get<std::string>();
        std::printf("%s %s here: %s\n", backend.c_str(), PrecisionName(a.precision),
                    how.empty() ? "as f32 is" : how.c_str());
      }
    }
    if (view.contains("counters")) {
      std::string metrics;
      for (const auto& m : view["counters"])
        metrics += (metrics.empty() ? "" : ", ") + m.get<std::string>();
      std::printf("counters a run would measure: %s\n", metrics.empty() ? "none" : metrics.c_str());
      if (view.contains("counters_missing")) {
        for (const auto& [what, why] : view["counters_missing"].items()) {
          std::printf("  not here: %s: %s\n", what.c_str(), why.get<std::string>().c_str());
        }
      }
    }
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
  doc["kv_cache_bytes_per_token"] = a.kv_cache_bytes_per_token;
  const nlohmann::ordered_json view = MachineView(o, r, a.precision);
  for (const auto& [key, value] : view.items()) {
    if (key != "backends" || backend_given) doc[key] = value;
  }
  std::printf("%s\n", JsonText(doc, 2).c_str());
  return 0;
}

}  // namespace

Command AddInspectCommand(CLI::App* app) {
  auto o = std::make_shared<TopologyOptions>();
  CLI::App* c = app->add_subcommand(
      "inspect",
      "the analytic view of a topology without running it: layers, shapes, params, "
      "FLOPs and bytes");
  AddTopologyOptions(c, o.get(), TopologyCommand::kInspect);
  return {c, {}, [c, o](const std::vector<std::string>&) {
            return Inspect(*o, c->count("--backend") > 0);
          }};
}

}  // namespace ntpb::cli
