#include "src/cli/topology_options.h"

#include <algorithm>
#include <cctype>
#include <functional>

#include "ntpbench/error.h"
#include "ntpbench/report.h"
#include "ntpbench/scenario.h"
#include "src/backends/hetero/hetero_backend.h"
#include "src/bench/run_settings.h"
#include "src/cli/option_checks.h"

namespace ntpb::cli {

namespace {

// NAME=FILE items of a repeatable option into `into` (--input, --check-output).
std::function<void(const std::vector<std::string>&)> NameFileItems(
    const std::string& option, std::map<std::string, std::string>* into) {
  return [option, into](const std::vector<std::string>& items) {
    for (const std::string& item : items) {
      const size_t eq = item.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == item.size()) {
        throw Error("", "", option, "expected NAME=FILE, got '" + item + "'");
      }
      (*into)[item.substr(0, eq)] = item.substr(eq + 1);
    }
  };
}

}  // namespace

void CanonicalizeParams(const Topology& topology, TopologyOptions* o) {
  auto canonical = [&](const std::string& name) {
    auto alias = topology.param_aliases.find(name);
    if (alias == topology.param_aliases.end()) return name;
    if (alias->second == "N") {
      throw Error("", "", "--set",
                  "'" + name + "' is the batch (" +
                      (topology.param_sources.count("N") ? topology.param_sources.at("N") : "N") +
                      "): give it with --batch");
    }
    return alias->second;
  };
  auto rename = [&](auto* map) {
    std::remove_reference_t<decltype(*map)> out;
    for (auto& [name, value] : *map) {
      const std::string param = canonical(name);
      if (out.count(param) && out.at(param) != value) {
        throw Error("", "", "--set",
                    "'" + param + "' is set twice with different values ('" + name +
                        "' is another name of it)");
      }
      out[param] = value;
    }
    *map = std::move(out);
  };
  rename(&o->sets);
  rename(&o->set_lists);
}

void AddTopologyOptions(CLI::App* c, TopologyOptions* o, TopologyCommand which) {
  const bool run = which == TopologyCommand::kRun;
  c->add_option("FILE", o->file, "the topology: .json, NTP-style .xml or an .onnx model")
      ->required();
  c->add_option("--backend", o->backends,
                run ? "backends to run on, comma-separated (default eigen)"
                    : "also say how each backend runs the precision here")
      ->delimiter(',')
      ->check(BackendName())
      ->type_name("LIST");
  // inspect shows one batch and one precision: a list there is refused, not cut to its first.
  CLI::Option* batch =
      c->add_option("--batch", o->batches,
                    run ? "batch sizes, comma-separated (default 1)" : "batch size (default 1)")
          ->check(IntegerAtLeast(1))
          ->type_name(run ? "N[,N..]" : "N");
  if (run) batch->delimiter(',');
  if (!run) batch->expected(1);
  CLI::Option* precision = c->add_option_function<std::vector<std::string>>(
                                "--precision",
                                [o](const std::vector<std::string>& names) {
                                  o->precisions.clear();
                                  for (const std::string& p : names)
                                    o->precisions.push_back(ParsePrecision(p, "--precision"));
                                },
                                run ? "f32, bf16, f16, i8, w8 or w4, comma-separated (default f32)"
                                    : "f32, bf16, f16, i8, w8 or w4")
                               ->type_name(run ? "LIST" : "P");
  if (run) precision->delimiter(',');
  if (!run) precision->expected(1);
  c->add_option_function<std::vector<std::string>>(
       "--set",
       [o, run](const std::vector<std::string>& items) {
         for (const std::string& item : items) {
           bench::ParseAssignments(item, "--set", &o->sets, run ? &o->set_lists : nullptr);
         }
       },
       run ? "topology params, e.g. n_hidden=512,T=50; a list runs each value "
             "(n_hidden=512,1024,2048: one benchmark each, named /n_hidden:512) (repeatable)"
           : "topology params, e.g. n_hidden=512,T=50 (repeatable)")
      ->type_name(run ? "NAME=V[,V..][,NAME=V..]" : "NAME=VALUE[,..]");
  c->add_option_function<std::vector<std::string>>(
       "--marker",
       [o](const std::vector<std::string>& items) {
         for (const std::string& m : items) {
           const size_t eq = m.find('='), colon = m.find(':');
           if (eq == std::string::npos || colon == std::string::npos || colon < eq) {
             throw Error("", "", "--marker",
                         "expected name=start_layer:end_layer, got '" + m + "'");
           }
           o->markers.push_back(
               {m.substr(0, eq), m.substr(eq + 1, colon - eq - 1), m.substr(colon + 1)});
         }
       },
       "a region from one layer to another, measured on its own (repeatable)")
      ->type_name("NAME=START:END");
  c->add_option("--counters", o->counters,
                run ? "per marker and net: sde, perf, rusage, memory, PAPI event names (default "
                      "$NTPB_COUNTERS)"
                    : "say which of these counters this machine can give")
      ->delimiter(',')
      ->check(CounterName())
      ->type_name("LIST");
  if (!run) {
    c->add_flag("--json", o->json, "print JSON instead of the table");
    return;
  }
  // The settings a suite's --ntpb_* flags set too, declared once (bench/run_settings.h).
  for (const bench::RunSettingFlag& f : bench::RunSettingFlags()) {
    if (!f.run_option) continue;
    std::string option = std::string("--") + f.name;
    std::replace(option.begin(), option.end(), '_', '-');
    if (!f.value) {
      c->add_flag_function(
          option, [o, &f, option](int64_t) { f.apply("", option, &o->settings); }, f.help);
      continue;
    }
    if (!f.repeatable) {  // given twice, the last value counts (main.cc's policy)
      c->add_option_function<std::string>(
           option, [o, &f, option](const std::string& v) { f.apply(v, option, &o->settings); },
           f.help)
          ->type_name(f.value);
      continue;
    }
    c->add_option_function<std::vector<std::string>>(
         option,
         [o, &f, option](const std::vector<std::string>& values) {
           for (const std::string& v : values) f.apply(v, option, &o->settings);
         },
         f.help)
        ->type_name(f.value)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  }
  c->add_option_function<std::string>(
       "--name",
       [o](const std::string& name) {
         const bool ok = !name.empty() && name.size() <= 128 &&
                         std::all_of(name.begin(), name.end(), [](char ch) {
                           return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' ||
                                  ch == '-' || ch == '.';
                         });
         if (!ok) {
           throw Error(
               "", "", "--name",
               "expected letters, digits, '_', '-' or '.' (at most 128), got '" + name + "'");
         }
         o->name = name;
       },
       "the benchmark's name, first part of every benchmark name (default: the topology's "
       "name, or the file's stem where an exporter gave its default, such as torch_jit)")
      ->type_name("NAME");
  c->add_option("--json", o->json_out, "also write Google Benchmark's JSON here (atomically)")
      ->type_name("FILE");
  c->add_option_function<std::vector<std::string>>(
       "--input", NameFileItems("--input", &o->input_files),
       "a graph input from a file instead of random values: a tensor (ONNX TensorProto .pb as "
       "in a model's test_data_set_0/input_0.pb, or NumPy .npy) of the input's shape or of one "
       "batch item, or an audio file (WAV, FLAC, ...: mono or mixed down) for an audio input; "
       "one batch item is repeated for every item (repeatable)")
      ->type_name("NAME=FILE");
  c->add_option_function<std::vector<std::string>>(
       "--check-output", NameFileItems("--check-output", &o->check_outputs),
       "before benchmarking, compare output NAME on each backend and precision with a stored "
       "tensor (.pb or .npy, e.g. test_data_set_0/output_0.pb, with --input for the inputs): "
       "prints the relative error (max |diff| / max |expected|) and cosine; exit 1 beyond "
       "--check-tolerance (repeatable)")
      ->type_name("NAME=FILE");
  c->add_option("--check-tolerance", o->check_tolerance,
                "the largest relative error --check-output accepts (default 1e-4: f32 against a "
                "framework's f32; bf16 and i8 need more)")
      ->check(CLI::Range(0.0, 1e30))
      ->type_name("X");
  c->add_option("--trace", o->trace_out,
                "a Chrome trace-event file of the first measured iterations (chrome://tracing, "
                "ui.perfetto.dev): steps, markers, inlays, per-iteration counters")
      ->type_name("FILE");
  std::vector<std::string> formats;
  std::string summaries;
  for (const RunReportFormat& f : RunReportFormats()) {
    formats.push_back(f.name);
    summaries += std::string(summaries.empty() ? "" : "; ") + f.name + ": " + f.summary;
  }
  c->add_option("--table", o->table, "the per-layer table (" + summaries + ")")
      ->check(OneOf(formats, "format"))
      ->type_name("FORMAT");
  c->add_flag("--wide", o->view.wide,
              "every column of the text table (default: those that fit 120 columns, long layer "
              "names shortened in the middle)");
  c->add_option("--top", o->view.top, "only the N slowest steps of the text table, slowest first")
      ->check(IntegerAtLeast(1))
      ->type_name("N");
  c->add_option("--sort", o->sort, "text table rows: order (execution order, default) or time")
      ->check(OneOf({"order", "time"}, "sort"))
      ->type_name("KEY");
  c->add_option_function<std::vector<std::string>>(
       "--scenario",
       [o](const std::vector<std::string>& names) {
         for (const std::string& n : names) ParseScenarioKind(n, "--scenario");
         o->scenarios = names;
       },
       [] {
         std::string help = "how queries arrive, comma-separated (default single-stream)";
         for (const ScenarioInfo& s : Scenarios())
           help += "; " + std::string(s.name) + ": " + s.summary;
         return help +
                ". Then a table of throughput vs p99 per streams x batch with the Pareto "
                "front";
       }())
      ->delimiter(',')
      ->type_name("LIST");
  c->add_option("--streams", o->streams,
                "concurrent streams, comma-separated (" + ScenarioNamesWith(kScenarioStreams) +
                    "): each its own executable with threads / streams threads")
      ->delimiter(',')
      ->check(IntegerAtLeast(1, 256))
      ->type_name("N[,N..]");
  c->add_option("--target-qps", o->target_qps,
                "server: the Poisson arrival rate, queries/s; generate: requests/s")
      ->check(NumberBetween(0, 1e9, "a rate > 0 in queries per second"))
      ->type_name("QPS");
  c->add_flag("--find-max-qps", o->find_max_qps,
              "server: search the highest rate whose p99 meets --p99 (bisection)");
  c->add_option_function<std::string>(
       "--p99",
       [o](const std::string& text) { o->p99_bound_ms = ParseMilliseconds(text, "--p99"); },
       "server with --find-max-qps: the p99 latency bound, e.g. 50ms, 0.2s")
      ->type_name("TIME");
  c->add_option("--samples-per-query", o->samples_per_query,
                "multi-stream: samples per query, split over the streams (default streams x "
                "batch)")
      ->check(IntegerAtLeast(1))
      ->type_name("N");
  c->add_option("--queries", o->queries,
                "queries per measurement (default 1000: what a p99 needs, 10 above it); "
                "generate: requests")
      ->check(IntegerAtLeast(1, kMaxQueries))
      ->type_name("N");
  c->add_option("--scenario-seconds", o->scenario_seconds,
                "a scenario measurement starts no query after this (default 10)")
      ->check(NumberBetween(0, 86400, "seconds, more than 0 and less than a day"))
      ->type_name("S");
  c->add_flag("--quiet", o->quiet,
              "leave out Google Benchmark's context block (machine, caches, configuration; the "
              "JSON keeps it)");
}

}  // namespace ntpb::cli
