#!/usr/bin/python3
"""The ONNX corpus timed on ntpbench next to PyTorch eager, on the same machine and threads.

Each model of tools/onnx_corpus.py (one opset per model: the timing does not depend on it) is run
by `ntpbench run model.onnx` on a backend and by PyTorch eager from the same nn.Module the ONNX
file was exported from (torch.no_grad(), the same input). The two alternate A B A B for --rounds
rounds, so that a machine that slows down for a while (a shared VM) slows both; each round gives a
ratio, and the table shows the median ratio and its range over the rounds.

Also per model: ntpbench's share of its roofline (the sum over layers of the larger of compute
time at `ntpbench machine`'s f32 peak and memory time at its bandwidth, over the measured time),
and, where ntpbench is slower, the op class that loses the most time: ntpbench's per-layer times
(fused layers under their host, reorders as `reorder`) next to PyTorch's profiler (self time of
each aten op) grouped the same way.

Output (stdout): a Markdown table. Progress (done/total, ETA) on stderr. Needs Debian's
python3-torch, python3-torchvision and python3-onnx (setup.sh --with-torch); run with
/usr/bin/python3. Debian's torch uses mkldnn (oneDNN) for convolutions and the reference BLAS
for matmul unless an optimised libblas is installed: the script prints which it loaded.

  /usr/bin/python3 tools/compare_pytorch_corpus.py CORPUS [--build build] [--threads 2]
      [--backend onednn] [--rounds 3] [--min-time 0.5] [--only NAME,...]

CORPUS is a folder written by `tools/onnx_corpus.py CORPUS --set all` (ctest -L onnx-corpus
leaves one in build/tests/onnx_corpus).
"""
import argparse
import json
import os
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
# The shared pieces of the per-topology comparison: running ntpbench, timing a PyTorch callable,
# the BLAS torch mapped.
from compare_pytorch import loaded_blas, progress, run, time_torch  # noqa: E402


# Op classes both sides are grouped into: IR ops, and aten ops by name.
IR_CLASS = {"conv2d": "conv", "conv_transpose": "conv", "dense": "dense/matmul",
            "matmul": "dense/matmul", "lstm": "rnn", "gru": "rnn", "max_pool": "pool",
            "avg_pool": "pool", "global_avg_pool": "pool", "reorder": "reorder/copy",
            "copy": "reorder/copy", "transpose": "reorder/copy", "concat": "reorder/copy",
            "slice": "reorder/copy", "pad": "reorder/copy", "layernorm": "norm",
            "batchnorm": "norm", "softmax": "softmax"}
ATEN_CLASS = [("conv", "conv"), ("addmm", "dense/matmul"), ("matmul", "dense/matmul"),
              ("linear", "dense/matmul"), ("bmm", "dense/matmul"), ("mm", "dense/matmul"),
              ("lstm", "rnn"), ("gru", "rnn"), ("pool", "pool"), ("batch_norm", "norm"),
              ("layer_norm", "norm"), ("softmax", "softmax"), ("cat", "reorder/copy"),
              ("copy", "reorder/copy"), ("contiguous", "reorder/copy"), ("clone", "reorder/copy"),
              ("transpose", "reorder/copy"), ("permute", "reorder/copy")]


def aten_class(name):
    for key, cls in ATEN_CLASS:
        if key in name:
            return cls
    return "elementwise/other"


def ir_class(op):
    return IR_CLASS.get(op.split("+")[0], "elementwise/other")


def roofline_ms(inspect, peaks):
    """ntpbench's roofline bound of the network, as its per-layer table computes it."""
    total = 0.0
    for layer in inspect["layers"]:
        c = layer["cost"]
        moved = c.get("weight_traffic_bytes", c["weight_bytes"]) + c["input_bytes"] + \
            c["output_bytes"]
        in_cache = moved <= peaks["cache_bytes"] / 2 and peaks.get("cache_bandwidth_gbs")
        bandwidth = peaks["cache_bandwidth_gbs"] if in_cache else peaks["bandwidth_gbs"]
        total += max(c["flops"] / (peaks["peak_gflops"]["f32"] * 1e9), moved / (bandwidth * 1e9))
    return total * 1e3


def time_ntpbench(args, model_path):
    """Median latency (ms) and per-class ms of one `ntpbench run`."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        run([os.path.join(args.build, "ntpbench"), "run", model_path, "--backend", args.backend,
             "--threads", str(args.threads), "--benchmark_min_time=%g" % args.min_time,
             "--json", out.name])
        with open(out.name) as f:
            bench = json.load(f)["benchmarks"][0]
    return bench["net.p50_ms"], bench


def ntpbench_classes(bench, inspect):
    op_of = {l["name"]: l["op"] for l in inspect["layers"]}
    classes = {}
    for key, value in bench.items():
        if not key.startswith("layer.") or not key.endswith(".ms"):
            continue
        step = key[len("layer."):-len(".ms")]
        op = op_of.get(step, "reorder" if ".reorder." in step else "other")
        classes[ir_class(op)] = classes.get(ir_class(op), 0.0) + value
    return classes


def torch_classes(torch, model, x, passes=5):
    """ms per op class per inference, from the profiler's self times."""
    with torch.no_grad(), torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) \
            as prof:
        for _ in range(passes):
            model(x)
    classes = {}
    for e in prof.key_averages():
        cls = aten_class(e.key)
        classes[cls] = classes.get(cls, 0.0) + e.self_cpu_time_total / 1e3 / passes
    return classes


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("corpus")
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--backend", default="onednn")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--min-time", type=float, default=0.5)
    p.add_argument("--only", default="", help="comma-separated model names")
    args = p.parse_args()

    import torch
    import onnx_corpus
    torch.set_num_threads(args.threads)
    torch.ones(2, 2) @ torch.ones(2, 2)  # maps the BLAS
    progress("PyTorch %s, %d threads, mkldnn %s, BLAS loaded: %s" % (
        torch.__version__, torch.get_num_threads(), torch.backends.mkldnn.is_available(),
        loaded_blas()))
    with open(os.path.join(args.corpus, "corpus.json")) as f:
        manifest = json.load(f)
    builders = {m[0]: m for m in onnx_corpus.MODELS}
    only = set(filter(None, args.only.split(",")))
    todo, seen = [], set()
    for entry in manifest["models"]:
        if entry["name"] in seen or (only and entry["name"] not in only):
            continue
        seen.add(entry["name"])
        todo.append(entry)
    peaks = json.loads(run([os.path.join(args.build, "ntpbench"), "machine", "--threads",
                            str(args.threads), "--json"]))
    rows, start = [], time.time()
    for i, entry in enumerate(todo):
        name, builder, spec = builders[entry["name"]][:3]
        path = os.path.join(args.corpus, entry["folder"], "model.onnx")
        torch.manual_seed(0)
        model = builder().eval()
        x = onnx_corpus.make_input(spec, torch.Generator().manual_seed(1))
        inspect = json.loads(run([os.path.join(args.build, "ntpbench"), "inspect", path,
                                  "--json"]))
        ratios, ours, theirs, bench = [], [], [], None
        for r in range(args.rounds):  # A B A B: both sides see the same minutes of the machine
            ms, bench = time_ntpbench(args, path)
            torch_ms = time_torch(torch, model, x, args.min_time)
            ours.append(ms)
            theirs.append(torch_ms)
            ratios.append(ms / torch_ms)
        done = i + 1
        eta = (time.time() - start) / done * (len(todo) - done)
        progress("%d/%d %s: ntpbench %.3f ms, PyTorch %.3f ms (ETA %.0f s)" % (
            done, len(todo), name, statistics.median(ours), statistics.median(theirs), eta))
        ratio = statistics.median(ratios)
        why = ""
        if ratio > 1.0:
            mine = ntpbench_classes(bench, inspect)
            other = torch_classes(torch, model, x)
            loss = {c: mine.get(c, 0.0) - other.get(c, 0.0) for c in set(mine) | set(other)}
            worst = max(loss, key=loss.get)
            why = "%s: %.2f vs %.2f ms" % (worst, mine.get(worst, 0.0), other.get(worst, 0.0))
        roof = roofline_ms(inspect, peaks) / statistics.median(ours)
        rows.append((name, entry["kind"], statistics.median(ours), statistics.median(theirs),
                     ratio, min(ratios), max(ratios), roof, why))

    print("ntpbench %s vs PyTorch %s eager, %d threads, %d alternating rounds; ratio = ntpbench "
          "/ PyTorch (below 1: ntpbench faster); roof = ntpbench's roofline bound / its time" % (
              args.backend, torch.__version__, args.threads, args.rounds))
    header = ("model", "kind", "ntpbench ms", "PyTorch ms", "ratio", "range", "% of roof",
              "where ntpbench loses most (ntpbench vs PyTorch)")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for name, kind, ms, torch_ms, ratio, lo, hi, roof, why in rows:
        print("| %s | %s | %.4g | %.4g | %.2f | %.2f-%.2f | %.0f%% | %s |" % (
            name, kind, ms, torch_ms, ratio, lo, hi, 100 * roof, why))


if __name__ == "__main__":
    main()
