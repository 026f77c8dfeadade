// `ntpbench diff A B`: the structural diff of two topologies or models (topology_diff.h).
#include <cstdio>

#include "ntpbench/analysis.h"
#include "ntpbench/error.h"
#include "ntpbench/resolve.h"
#include "ntpbench/topology_diff.h"
#include "ntpbench/topology_file.h"
#include "src/bench/run_settings.h"
#include "src/cli/commands.h"
#include "src/cli/option_checks.h"

namespace ntpb::cli {

namespace {

struct DiffOptions {
  std::string a, b;
  ParamEnv sets;
  int64_t batch = 1;
  TopologyDiffOptions view;
  bool fail_on_difference = false;
};

// Resolved with the params it has of those given (a model has none of a topology's).
ResolvedTopology ResolveWith(const Topology& t, const DiffOptions& o) {
  ParamEnv env;
  for (const auto& [name, value] : o.sets) {
    if (t.params.count(name)) env[name] = value;
  }
  env["N"] = o.batch;
  return Resolve(t, env);
}

}  // namespace

Command AddDiffCommand(CLI::App* app) {
  auto o = std::make_shared<DiffOptions>();
  CLI::App* c = app->add_subcommand(
      "diff",
      "the structural diff of two topologies or models (.json, .xml, .onnx): layers aligned by "
      "name, else by op and output shape; added, removed, resized, re-parameterised; params, "
      "FLOPs and bytes per side");
  c->add_option("A", o->a, "a topology or model")->required()->type_name("A");
  c->add_option("B", o->b, "another")->required()->type_name("B");
  c->add_option_function<std::vector<std::string>>(
       "--set",
       [o](const std::vector<std::string>& items) {
         for (const std::string& item : items) bench::ParseAssignments(item, "--set", &o->sets);
       },
       "params, applied to whichever side has them (repeatable)")
      ->type_name("NAME=VALUE[,..]");
  c->add_option("--batch", o->batch, "the batch both are resolved at (default 1)")
      ->check(IntegerAtLeast(1))
      ->type_name("N");
  c->add_flag("--all", o->view.all, "every layer, not only those that differ");
  c->add_flag("--markdown", o->view.markdown, "a Markdown table");
  c->add_flag("--fail-on-difference", o->fail_on_difference,
              "exit 1 when any layer differs (for CI: a model drifted from its topology)");
  return {c, {}, [o](const std::vector<std::string>&) {
            const Topology ta = ReadTopologyFile(o->a), tb = ReadTopologyFile(o->b);
            const ResolvedTopology ra = ResolveWith(ta, *o), rb = ResolveWith(tb, *o);
            const TopologyAnalysis aa = Analyze(ra, Precision::kF32, {});
            const TopologyAnalysis ab = Analyze(rb, Precision::kF32, {});
            int differences = 0;
            std::fputs(
                FormatTopologyDiff({ra, aa, o->a}, {rb, ab, o->b}, o->view, &differences).c_str(),
                stdout);
            return o->fail_on_difference && differences > 0 ? 1 : 0;
          }};
}

}  // namespace ntpb::cli
