#!/usr/bin/python3
"""ntpbench against ONNX Runtime on the same ONNX file, the same machine and the same threads.

ONNX Runtime is what a user would run these models with on a CPU instead, so it is the peer
ntpbench measures itself against (issue: ahead of ONNX Runtime). Each workload is a shipped
topology at a batch (and --set sizes): it is resolved by `ntpbench inspect --json`, written as
PyTorch modules with random weights (tools/compare_pytorch.py's builder), exported once with
torch.onnx.export (f32, fixed shapes, constant folding); then ONNX Runtime (every graph
optimisation, sequential execution, --threads intra-op threads: tools/ort_time.js on
onnxruntime-node) and `ntpbench run` on that same file alternate A B A B for --rounds rounds. A VM's host moves its two
virtual CPUs between core complexes (ntpbench records how far apart: "cores 38 ns apart"), and
both sides run at other speeds far apart, ONNX Runtime more so; by default (`--placement near`)
only rounds placed as the workload's nearest round count, and rounds run again (up to --rounds
more) to make up the count; the table says what was left out.
`--ntpbench-input topology` runs ntpbench on the shipped topology instead of the export.

Output (stdout): per workload and precision, each side's median latency over the rounds (its
range; a round's latency is its median inference on both sides: ntpbench's `net.p50_ms` of
its median repetition, ONNX Runtime's median session.run()), the ratio ntpbench / ONNX Runtime
(below 1 is faster), ntpbench's GFLOP/s and share of its roofline bound (from the run's own
analysis, against `ntpbench machine`'s ceilings measured at the start of this run, unless
`--machine cached`; the header gives the DRAM read then and at the end), and whether the numbers can be trusted. ONNX Runtime's CPU provider runs these graphs
in f32 only (it has no bf16 kernels for them), so a bf16 row compares ntpbench bf16 against ONNX
Runtime f32.
`--profile` adds a per-layer table for each workload: ONNX Runtime's per-node kernel times
(enableProfiling) beside ntpbench's per-layer p50, by node name, largest first, with the ratio
also at the timed runs (each side's layer times scaled to its median in the rounds: each side's
per-layer run is apart from its timed rounds, and ONNX Runtime's profiling moves it most).

Not part of CI: it needs npm's onnxruntime-node, installed once with
  npm install --prefix DIR --ignore-scripts onnxruntime-node@1.30.0
(--ignore-scripts: its install script fetches GPU providers, not needed for the CPU) and
Debian's python3-torch and python3-onnx (setup.sh --with-torch).

  /usr/bin/python3 tools/compare_ort.py --ort DIR [--build build] [--threads 2]
      [--models mlp:1,mlp:64,resnet50:1,mobilenet_v2:1,deepspeech:1:n_hidden=512,deepspeech:1]
      [--precision f32,bf16] [--min-time 2] [--rounds 3] [--placement near|any] [--profile]
      [--keep DIR]
      [--machine refresh|cached]

A workload is MODEL:BATCH[:PARAM=VALUE...]; deepspeech's default is n_hidden=2048, T=100.
"""
import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_pytorch as cp  # noqa: E402  (the builder and ntpbench's timing)
from machine_read import machine_read_gbs  # noqa: E402

ROOT = cp.ROOT


def export_onnx(torch, layers, path):
    """Writes the resolved layers as one ONNX file (f32); returns its inputs for ort_time.js."""
    forward, feeds = cp.build_torch_model(torch, layers, "f32")
    names = list(feeds)

    class Workload(torch.nn.Module):
        def forward(self, *xs):
            return forward(dict(zip(names, xs)))

    with torch.no_grad():
        torch.onnx.export(Workload(), tuple(feeds[n] for n in names), path, input_names=names,
                          output_names=["output"], opset_version=17, do_constant_folding=True)
    return [{"name": n, "dims": list(t.shape),
             "type": "int64" if t.dtype == torch.int64 else "float32"} for n, t in feeds.items()]


def time_ort(args, model, inputs, profile_prefix=None):
    """ONNX Runtime's latency samples (ms) and its profile file, through ort_time.js."""
    with tempfile.NamedTemporaryFile("w", suffix=".json") as request:
        json.dump({"model": model, "threads": args.threads, "min_time": args.min_time,
                   "inputs": inputs, "profile": profile_prefix}, request)
        request.flush()
        env = dict(os.environ, NODE_PATH=os.path.join(args.ort, "node_modules"))
        r = subprocess.run(["node", os.path.join(ROOT, "tools", "ort_time.js"), request.name],
                           capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.exit("compare_ort.py: ONNX Runtime failed on %s: %s" % (model, r.stderr.strip()))
    return json.loads(r.stdout)


def time_ntpbench(args, target, batch, precision, sets, out):
    """ntpbench's median latency (ms), the median repetition's entry and its verdicts."""
    cmd = [os.path.join(args.build, "ntpbench"), "run", target, *sets, "--backend",
           args.backend, "--precision", precision, "--threads", str(args.threads),
           "--benchmark_min_time=%g" % args.min_time, "--benchmark_repetitions=3", "--json", out]
    if batch is not None:
        cmd += ["--batch", str(batch)]
    cp.run(cmd)
    with open(out) as f:
        report = json.load(f)
    verdicts = sorted(set(cp.unreliable_verdicts(report.get("benchmarks", []))))
    runs = [b for b in report["benchmarks"] if b.get("run_type") == "iteration"]
    # How far apart the cores were (a VM's host moves its virtual CPUs between core complexes,
    # and both sides run slower far apart): the farthest of its repetitions.
    placed = max((b.get("interference.core_to_core_ns", 0.0) for b in runs), default=0.0)
    if placed > 0:
        verdicts.append("cores %.0f ns apart" % placed)
    # The median inference, as ONNX Runtime's side is the median of its session.run() times:
    # each repetition's p50 of the network's own time (`net.p50_ms`), the median repetition.
    # Google Benchmark's real_time is a repetition's mean iteration, which counts the harness
    # between inferences and the VM's outliers (ResNet-50 on a Zen 5 guest: mean 25.0 ms, p50
    # 22.7, p99 54.4).
    timed = [r for r in runs if not r.get("error_occurred") and r.get("net.p50_ms", 0) > 0]
    if timed:
        entry = sorted(timed, key=lambda r: r["net.p50_ms"])[(len(timed) - 1) // 2]
        return entry["net.p50_ms"], entry, verdicts
    return None, None, verdicts


# ONNX Runtime renames the nodes it fuses or lays out anew: a convolution fused with its
# ReLU in NCHWc is named after the ReLU's output ("/Relu_3_output_0_nchwc"), a MatMul fused with
# its Add "/MatMul/MatMulAddFusion". These name the ONNX nodes back; ntpbench's steps list the
# layers they fused, so either side's fusion finds its step. Kernels no name finds are paired
# in execution order within their class.
ORT_SUFFIXES = ("_output_0_nchwc", "_nchwc", "_output_0")
ORT_CLASS = {"Conv": "conv", "FusedConv": "conv", "NchwcConv": "conv", "Gemm": "dense",
             "FusedGemm": "dense", "MatMul": "dense", "FusedMatMul": "dense", "LSTM": "recurrent",
             "GRU": "recurrent"}
NTPBENCH_CLASS = {"conv2d": "conv", "depthwise_conv2d": "conv", "dense": "dense",
                  "lstm": "recurrent", "gru": "recurrent"}


def onnx_node_names(ort_name):
    """The ONNX node names an ONNX Runtime node name may stand for, most likely first."""
    names = [ort_name]
    for suffix in ORT_SUFFIXES:
        if ort_name.endswith(suffix):
            names.append(ort_name[: -len(suffix)])
    head, _, tail = ort_name.rpartition("/")
    if head and "Fusion" in tail:
        names.append(head)
    return names


def ort_node_times(profile_file):
    """ONNX Runtime's nodes in execution order: (name, op, mean kernel ms per run), runs
    counted by model_run events (the warm-up runs are in the profile too; every run executes
    every node)."""
    with open(profile_file) as f:
        events = json.load(f)
    runs = sum(1 for e in events if e.get("name") == "model_run")
    nodes = {}  # insertion order: the first run's order
    for e in events:
        if e.get("cat") == "Node" and e.get("name", "").endswith("_kernel_time"):
            name = e["name"][: -len("_kernel_time")]
            if name.startswith("fused "):  # a fusion takes its first node's name
                name = name[len("fused "):]
            op, total = nodes.get(name, (e.get("args", {}).get("op_name", "?"), 0.0))
            nodes[name] = (op, total + e["dur"] / 1e3)
    return [(n, op, total / max(runs, 1)) for n, (op, total) in nodes.items()]


def print_layer_table(title, ort_nodes, entry, timed, rows_shown=15):
    """ONNX Runtime's nodes beside ntpbench's steps (by the layers a step fused, else kernels
    of one class in execution order); the `rows_shown` largest pairs. A node ntpbench fused into
    a step another node is paired with says so instead of a ratio (its time is in that step's).
    `timed`: each side's median latency in the timed rounds (ntpbench, ONNX Runtime), to which
    each side's per-layer times are scaled for the last column: the per-layer runs are apart
    from the timed rounds, and ONNX Runtime's profiled nodes summed 28.5 ms in one ResNet-50 run
    whose rounds took 26.6, 25.0 in another whose rounds took 26.6 (a Zen 5 guest), so the raw
    ratio can be off either way by as much."""
    steps = entry.get("ntpbench", {}).get("steps", [])
    step_ms = {s["name"]: entry.get("layer.%s.p50_ms" % s["name"]) for s in steps}
    our_sum = sum(ms for ms in step_ms.values() if ms)
    ort_sum = sum(ms for _, _, ms in ort_nodes)
    scale = (timed[0] / our_sum) / (timed[1] / ort_sum) if our_sum and ort_sum and all(timed) \
        else None
    step_of = {}
    for s in steps:
        for layer in [s["name"]] + s.get("layers", []):
            step_of.setdefault(layer, s["name"])
    queues = {}
    for s in steps:
        if s.get("op") in NTPBENCH_CLASS:
            queues.setdefault(NTPBENCH_CLASS[s["op"]], []).append(s["name"])
    matched = {}
    for name, _, _ in ort_nodes:
        found = next((step_of[n] for n in onnx_node_names(name) if n in step_of), None)
        if found:
            matched[name] = found
            for queue in queues.values():
                if found in queue:
                    queue.remove(found)
    rows, paired = [], set()
    for name, op, ms in ort_nodes:
        mine = matched.get(name)
        cls = ORT_CLASS.get(op)
        if mine is None and cls and queues.get(cls):
            mine = queues[cls].pop(0)
        if mine and mine in paired:  # fused by ntpbench into a step already shown
            rows.append((name, op, ms, "(in %s)" % mine, None))
            continue
        if mine:
            paired.add(mine)
        rows.append((name, op, ms, mine, step_ms.get(mine) if mine else None))
    rows += [("", "", None, n, ms) for n, ms in step_ms.items() if n not in paired and ms]
    rows.sort(key=lambda r: -max(r[2] or 0.0, r[4] or 0.0))
    print("\n%s: per layer, ms per inference (ONNX Runtime's profile, which slows it; nodes "
          "paired by the layers each side fused, else in execution order); ratio at the timed "
          "runs: each side's times scaled to its median in the timed rounds (layers summed: "
          "ntpbench %.3f ms against %.3f timed, ONNX Runtime %.3f against %.3f)" % (
              title, our_sum, timed[0] or 0, ort_sum, timed[1] or 0))
    print("| ONNX Runtime node | op | ONNX Runtime ms | ntpbench step | ntpbench ms | ratio "
          "| ratio at the timed runs |")
    print("|---|---|---|---|---|---|---|")
    for name, op, theirs, mine, ours in rows[:rows_shown]:
        ratio = "%.2f" % (ours / theirs) if ours and theirs else ""
        scaled = "%.2f" % (ours / theirs * scale) if ours and theirs and scale else ""
        print("| %s | %s | %s | %s | %s | %s | %s |" % (
            name or "-", op, "%.3f" % theirs if theirs else "-", mine or "-",
            "%.3f" % ours if ours else "-", ratio, scaled))
    # Where the time goes on each side, by op: what the paired rows above do not show (many
    # small nodes, reorders, what one side fused and the other ran on its own).
    ort_ops, our_ops = {}, {}
    for _, op, ms in ort_nodes:
        ort_ops[op] = ort_ops.get(op, 0.0) + ms
    for s in steps:
        ms = step_ms.get(s["name"]) or 0.0
        our_ops[s.get("op", "?")] = our_ops.get(s.get("op", "?"), 0.0) + ms
    print("\nby op, ms per inference: ONNX Runtime | ntpbench")
    print("| ONNX Runtime op | ms | ntpbench op | ms |")
    print("|---|---|---|---|")
    left = sorted(ort_ops.items(), key=lambda kv: -kv[1])[:10]
    right = sorted(our_ops.items(), key=lambda kv: -kv[1])[:10]
    for i in range(max(len(left), len(right))):
        a = left[i] if i < len(left) else ("", None)
        b = right[i] if i < len(right) else ("", None)
        print("| %s | %s | %s | %s |" % (a[0], "%.3f" % a[1] if a[1] is not None else "",
                                         b[0], "%.3f" % b[1] if b[1] is not None else ""))


def spread(values):
    return "%.3f..%.3f" % (min(values), max(values)) if values else ""


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--ort", required=True,
                   help="the folder onnxruntime-node was installed into with npm --prefix")
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--backend", default="onednn")
    p.add_argument("--precision", default="f32")
    p.add_argument("--models", default="mlp:1,mlp:64,resnet50:1,mobilenet_v2:1,"
                   "deepspeech:1:n_hidden=512,deepspeech:1")
    p.add_argument("--min-time", type=float, default=2.0)
    p.add_argument("--rounds", type=int, default=3, help="alternating ntpbench/ORT rounds")
    p.add_argument("--ntpbench-input", choices=("onnx", "topology"), default="onnx",
                   help="what ntpbench runs: the exported file (default) or the topology")
    p.add_argument("--profile", action="store_true", help="per-layer table against ORT's profile")
    p.add_argument("--profile-rows", type=int, default=15,
                   help="rows of the per-layer table (the largest pairs first)")
    p.add_argument("--placement", choices=("near", "any"), default="near",
                   help="near (default): keep only the rounds whose ntpbench run read the cores "
                        "as near as the workload's nearest round (within 2x or 30 ns), running "
                        "up to --rounds more to make up the count: a VM's host moves its virtual "
                        "CPUs between core complexes, and the two placements are two machines; "
                        "any: keep every round")
    p.add_argument("--keep", help="keep the exported ONNX files in this folder")
    p.add_argument("--machine", choices=("refresh", "cached"), default="refresh",
                   help="the roof's ceilings: `ntpbench machine --refresh` at the start of this "
                        "run, in a cache of its own (default), or those the user's cache holds")
    args = p.parse_args()
    if not os.path.isdir(os.path.join(args.ort, "node_modules", "onnxruntime-node")):
        sys.exit("compare_ort.py: no onnxruntime-node under --ort %s; install it with: npm install "
                 "--prefix %s --ignore-scripts onnxruntime-node@1.30.0" % (args.ort, args.ort))

    import torch  # here, so --help works without it
    torch.manual_seed(0)
    work = args.keep or tempfile.mkdtemp(prefix="compare_ort.")
    os.makedirs(work, exist_ok=True)
    ntpbench = os.path.join(args.build, "ntpbench")
    reads = []
    if args.machine == "refresh":
        # The roof is set against ceilings measured now, on this machine as it is during the run
        # (a VM's memory bandwidth moves between days and within minutes): every ntpbench below
        # reads them from this cache.
        os.environ["NTPB_CACHE_DIR"] = os.path.join(work, "machine-cache")
        cp.progress("measuring the machine's ceilings (ntpbench machine --refresh)")
        reads.append(machine_read_gbs(ntpbench, os.environ["NTPB_CACHE_DIR"], "compare_ort"))

    rows, profiles = [], []
    for item in args.models.split(","):
        model, batch, *params = item.split(":")
        sets = [arg for kv in params for arg in ("--set", kv)]
        label = " ".join([model, "batch " + batch] + params)
        topology = os.path.join(ROOT, "topologies", model + ".json")
        resolved = json.loads(cp.run([ntpbench, "inspect", topology, "--batch", batch, "--json"]
                                     + sets))
        onnx_file = os.path.join(work, "_".join([model, "b" + batch] + params) + ".onnx")
        cp.progress("%s: exporting %s" % (label, onnx_file))
        inputs = export_onnx(torch, resolved["layers"], onnx_file)
        target, target_batch, target_sets = (onnx_file, None, []) if \
            args.ntpbench_input == "onnx" else (topology, batch, sets)
        ort_version = None
        for precision in args.precision.split(","):
            # Each round: (ntpbench ms, ORT ms, ntpbench's entry, its placement in ns or 0, the
            # median deviation of ORT's samples from their median).
            rounds, notes = [], set()
            out = os.path.join(work, "run.json")

            def alike(a, b):  # results.h SameCorePlacement: within 2x or 30 ns; 0 = unmeasured
                return a <= 0 or b <= 0 or max(a, b) <= max(2 * min(a, b), min(a, b) + 30)

            def kept():
                if args.placement == "any":
                    return rounds
                nearest = min((r[3] for r in rounds if r[3] > 0), default=0.0)
                return [r for r in rounds if alike(r[3], nearest)]

            attempts = 0
            while len(kept()) < args.rounds and attempts < 2 * args.rounds:
                attempts += 1
                cp.progress("%s %s: round %d (%d of %d kept)" % (label, precision, attempts,
                                                                len(kept()), args.rounds))
                ms, entry_r, verdicts = time_ntpbench(args, target, target_batch, precision,
                                                      target_sets, out)
                placed = max([float(v.split()[1]) for v in verdicts if v.startswith("cores ")],
                             default=0.0)
                notes.update("ntpbench " + v for v in verdicts if not v.startswith("cores "))
                if ms is None:
                    break
                result = time_ort(args, onnx_file, inputs)
                ort_version = result["ort"]
                samples = result["samples_ms"]
                median = statistics.median(samples)
                mdape = statistics.median(abs(s - median) / median for s in samples)
                rounds.append((ms, median, entry_r, placed, mdape))
            chosen = kept()
            worst = max((r[4] for r in chosen), default=0.0)
            if worst > 0.05:  # ONNX Runtime's own samples within a kept round
                notes.add("ORT samples spread up to %.0f%%" % (100 * worst))
            ours = [r[0] for r in chosen]
            theirs = [r[1] for r in chosen]
            entry = chosen[len(chosen) // 2][2] if chosen else None
            placements = [r[3] for r in chosen if r[3] > 0]
            if len(chosen) < len(rounds):
                apart = [r[3] for r in rounds if r not in chosen]
                notes.add("%d round(s) with the cores %.0f-%.0f ns apart left out" % (
                    len(apart), min(apart), max(apart)))
            if len(chosen) < args.rounds:
                notes.add("only %d of %d rounds placed alike" % (len(chosen), args.rounds))
            # Rounds in two placements of the cores (over 2x and 30 ns apart) are two machines.
            if placements and not alike(min(placements), max(placements)):
                notes.add("cores %.0f-%.0f ns apart across rounds" % (min(placements),
                                                                     max(placements)))
            elif placements:
                notes.add("cores %.0f ns apart" % statistics.median(placements))
            for side, values in (("ntpbench", ours), ("ORT", theirs)):
                if len(values) > 1 and (max(values) - min(values)) / min(values) > 0.10:
                    notes.add("%s rounds %s ms" % (side, spread(values)))
            rows.append((label, precision, ours, theirs, entry, "; ".join(sorted(notes))))
            if ours and theirs:  # as it goes, so that an interrupted run still told something
                cp.progress("%s %s: ntpbench %.3f ms, ORT %.3f ms, ratio %.2f" % (
                    label, precision, statistics.median(ours), statistics.median(theirs),
                    statistics.median(ours) / statistics.median(theirs)))
            if args.profile and entry is not None and precision == args.precision.split(",")[0]:
                prefix = os.path.join(work, "ort_profile")
                for old in glob.glob(prefix + "_*.json"):
                    os.remove(old)
                time_ort(args, onnx_file, inputs, prefix)
                # ORT names its file PREFIX_<date>_<time>.json.
                written = glob.glob(prefix + "_*.json")
                if written:
                    profiles.append(("%s %s" % (label, precision), ort_node_times(written[0]),
                                     entry, (statistics.median(ours) if ours else None,
                                             statistics.median(theirs) if theirs else None)))

    if reads:
        # The DRAM read again at the end, to show how far the machine moved during the run
        # (`--force` without overwriting the start's ceilings: a cache of its own).
        reads.append(machine_read_gbs(ntpbench, os.path.join(work, "machine-cache-end"),
                                      "compare_ort"))
    print("ntpbench %s (on the %s) vs ONNX Runtime %s (CPU, all optimisations, sequential), "
          "%d threads, %d rounds A B A B; ratio = ntpbench / ORT of the medians; roof: the "
          "run's GFLOP/s against its roofline bound from `ntpbench machine`%s" % (
              args.backend, "exported ONNX file" if args.ntpbench_input == "onnx" else
              "shipped topology", ort_version, args.threads, args.rounds,
              " measured at the start of this run (DRAM read %.1f GB/s, %.1f at the end)" %
              tuple(reads) if reads else "'s cache"))
    header = ("workload", "precision", "ntpbench ms", "(range)", "ORT f32 ms", "(range)",
              "ratio", "GFLOP/s", "% of roof", "reliability")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for label, precision, ours, theirs, entry, notes in rows:
        if not ours:
            print("| %s | %s | failed | | %.3f | | | | | %s |" % (
                label, precision, statistics.median(theirs) if theirs else 0, notes))
            continue
        mine, other = statistics.median(ours), statistics.median(theirs)
        # At the median inference (net.gflops is at the mean iteration).
        gflops = entry.get("net.flops", 0.0) / (mine * 1e6)
        roof_ms = sum(s.get("roof_ms", 0.0) for s in entry.get("ntpbench", {}).get("steps", []))
        share = "%.0f%%" % (100 * roof_ms / mine) if roof_ms else ""
        print("| %s | %s | %.3f | %s | %.3f | %s | %.2f | %.1f | %s | %s |" % (
            label, precision, mine, spread(ours), other, spread(theirs), mine / other, gflops,
            share, notes or "quiet"))
    for title, nodes, entry, timed in profiles:
        print_layer_table(title, nodes, entry, timed, args.profile_rows)


if __name__ == "__main__":
    main()
