// ntpbench: benchmark and inspect topologies from the command line.
#include <cstdio>
#include <string>
#include <vector>

#include "ntpbench/backend.h"
#include "ntpbench/error.h"
#include "ntpbench/op_catalog.h"
#include "src/cli/commands.h"

namespace {

const char kUsage[] =
    "usage: ntpbench <command> [options]\n"
    "\n"
    "commands:\n"
    "  run FILE      benchmark a topology; prints a per-layer table (time, share, GFLOP/s, bytes)\n"
    "      --backend eigen[,..]   --batch 1,4   --precision f32[,bf16,..]   --threads N\n"
    "      --set name=value[,..]  --marker name=start_layer:end_layer   --seed S\n"
    "      --backend-option backend.option=value[,..]   (below; e.g. onednn.fusion=off)\n"
    "                             params set, seed, threads and options other than the\n"
    "                             defaults are part of each benchmark's name (/n_hidden:512)\n"
    "      --json FILE            also write Google Benchmark JSON (atomically)\n"
    "      --table text|csv       the per-layer table as text (default) or CSV on stdout\n"
    "      --counters LIST        per marker and net: sde, perf, rusage, memory, PAPI event names\n"
    "                             (default $NTPB_COUNTERS); --layer-counters: per layer too\n"
    "      --benchmark_*          any Google Benchmark flag (--benchmark_min_time=S, default 2;\n"
    "                             --benchmark_repetitions=5, --benchmark_format=json, ...)\n"
    "  inspect FILE  layers, shapes, params, FLOPs and bytes, without running\n"
    "                (FILE: .json, NTP-style .xml or an .onnx model, as for run)\n"
    "      --batch N  --precision P  --set name=value  --json\n"
    "  ops           the ops a topology can use\n"
    "  convert IN OUT  .onnx/.xml/.json -> .json/.xml (edit a model's topology, then run it)\n"
    "  machine       this machine's roofline: peak GFLOP/s per precision (oneDNN matmul) and\n"
    "                read bandwidth, measured once and cached; `run` then shows each layer's\n"
    "                share of its roofline bound      [--threads N] [--refresh] [--json]\n"
    "  gate          run a suite and compare it with its baseline (what ctest -L perf runs)\n"
    "      --suite-binary PATH --suite NAME --baseline-dir DIR [--repetitions 6] [--min-time 0.2]\n"
    "      [--alpha 0.05] [--threshold 0.05] [--threshold-for NAME=F] [--filter REGEX]\n"
    "      [--confirm] [--raw] [--report FILE] [--update [--sessions N] [--force]]\n"
    "      [--judge all|signature|latency]   signature: <dir>/any-machine/<suite>.json, exact on\n"
    "      every machine; latency: <dir>/<machine class>/<suite>.json (--update writes both)\n"
    "      [--ntpb_*|--benchmark_*]\n"
    "      latency is judged against the rest of the run (--raw: on its own); --confirm runs\n"
    "      the suite again to confirm regressions; --sessions N: N runs set noise thresholds\n"
    "      --control-binary OLD_SUITE: A/B, the two builds alternate round by round and the\n"
    "      candidate is judged against the control (no stored baseline needed);\n"
    "      --control-dir DIR: A/B against DIR/<suite binary name> when it exists\n"
    "      exit 0 pass, 1 regression or changed signature, 77 part of it not judged (no\n"
    "      baseline for this machine class) or inconclusive; the output says which\n"
    "  compare BASELINE.json RUN.json [--alpha A] [--threshold T] [--raw] [--report FILE]\n"
    "  baseline update --run RUN.json [--run MORE.json ...] --suite S --baseline-dir DIR\n"
    "      [--filter REGEX] [--force]   (several runs: thresholds from their spread)\n"
    "      [--signature-only]   only the machine-independent signature (any-machine/)\n"
    "\n"
    "Long runs print progress on stderr; results go to stdout.\n";

// The options each backend declares, with the environment variable that sets them when a run
// does not; then ntpbench's own environment variables.
std::string BackendOptionsHelp() {
  std::string out = "\nbackend options (--backend-option, suites: --ntpb_backend_option=):\n";
  for (const std::string& name : ntpb::BackendNames()) {
    for (const ntpb::BackendOption& o : ntpb::FindBackend(name)->Options()) {
      std::string values;
      for (const std::string& v : o.values) values += (values.empty() ? "" : "|") + v;
      out += "  " + name + "." + o.name + "=" + values + "  (default " + o.values.front() + "; $" +
             o.env + ")\n      " + o.help + "\n";
    }
  }
  out +=
      "\nenvironment: NTPB_COUNTERS (default --counters), NTPB_CACHE_DIR (machine ceilings;\n"
      "  default ~/.cache/ntpbench), NTPB_TOPOLOGY_DIR (where suites look for topologies)\n";
  return out;
}

int ListOps() {
  for (const ntpb::OpDef& op : ntpb::AllOps()) {
    std::printf("%-16s %s%s\n", op.name.c_str(), op.kind == ntpb::OpKind::kInlay ? "(inlay) " : "",
                op.summary.c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::fputs((kUsage + BackendOptionsHelp()).c_str(), args.empty() ? stderr : stdout);
    return args.empty() ? 2 : 0;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  try {
    if (command == "run") return ntpb::cli::RunCommand(argv[0], args);
    if (command == "inspect") return ntpb::cli::InspectCommand(args);
    if (command == "ops") return ListOps();
    if (command == "gate") return ntpb::cli::GateCommand(args);
    if (command == "compare") return ntpb::cli::CompareCommand(args);
    if (command == "baseline") return ntpb::cli::BaselineCommand(args);
    if (command == "convert") return ntpb::cli::ConvertCommand(args);
    if (command == "machine") return ntpb::cli::MachineCommand(args);
    std::fprintf(stderr, "ntpbench: unknown command '%s'\n%s", command.c_str(), kUsage);
    return 2;
  } catch (const ntpb::Error& e) {
    std::fprintf(stderr, "ntpbench: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ntpbench: internal error: %s\n", e.what());
    return 3;
  }
}
