#!/usr/bin/python3
"""ntpbench against PyTorch on the same topology, the same machine and the same thread count.

NTP's paper validates its timings against a framework implementation of the same topology
(its Figure 6A); this is that check for ntpbench. Each shipped topology is resolved by
`ntpbench inspect --json`, rebuilt layer by layer in PyTorch (eager, torch.no_grad(), random
weights: the timing does not depend on the values; each tensor dropped after its last reader,
as an nn.Module's forward drops it), and timed in a fresh process each round, as ntpbench's
side is (what glibc's malloc costs depends on what the process allocated before); ntpbench runs
it on its backend (`--backend torch`: the same ATen calls from C++, the check of that backend).
Output (stdout): per model, batch and precision, ntpbench's and PyTorch's median latency, their
ratio (ntpbench / PyTorch: below 1 is faster), ntpbench's GFLOP/s and its share of this machine's
measured peak (`ntpbench machine`). Progress goes to stderr.

Needs Debian's python3-torch (1.13) and runs with /usr/bin/python3. Debian's torch uses the
reference BLAS for matmul unless libopenblas0-openmp is installed (OPENBLAS_CORETYPE unset); the
script prints which BLAS library torch loaded and whether mkldnn is on, since both change
PyTorch's numbers.

Precisions (--precision f32,bf16,i8): PyTorch runs f32 as is; bf16 with every weight and input
in torch.bfloat16; i8 with dynamic quantization (torch.ao's qint8 Linear and LSTM kernels,
activations quantized per call), the way eager PyTorch quantizes without a calibration pass:
its convolutions stay f32 (eager PyTorch has no dynamic int8 convolution). The "PyTorch mode"
column says which.

  /usr/bin/python3 tools/compare_pytorch.py [--build build] [--threads 2] [--backend onednn]
      [--precision f32] [--models mlp:1,mlp:64,resnet50:1,mobilenet_v2:1,deepspeech:1]
      [--set seq=128 ...]

Transformers (bert, gpt2, llama, vit) are written as Hugging Face's modules run them on PyTorch
1.13, which has no scaled_dot_product_attention: attention as matmul, softmax in f32, matmul;
grouped-query heads repeated (repeat_kv); rotary as apply_rotary_pos_emb; a key/value cache as
Hugging Face's, the past rows and the new ones joined by torch.cat. A decoder's decode step is
`--set prompt=1 --set past=P` (one token after P cached: the time per output token there).
      [--min-time 2] [--rounds 3]

The two alternate (ntpbench, PyTorch, ntpbench, ...) for --rounds rounds; each side's median
over the rounds is shown. The reliability column says when a ratio should not be trusted:
ntpbench's own verdict on the machine's quiet (its interference probe), PyTorch's samples
spreading over 5% (MdAPE), or either side's rounds over 10% apart; else "quiet".
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def progress(msg):
    print(msg, file=sys.stderr, flush=True)


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), r.stderr))
    return r.stdout


def build_torch_model(torch, layers, precision):
    """A callable running the resolved layers in order, each with random weights, and its
    inputs, in `precision` (see the module's docstring)."""
    F = torch.nn.functional
    steps = []  # (output name, fn, input names)
    params = []
    dtype = torch.bfloat16 if precision == "bf16" else torch.float32
    quantized = precision == "i8"

    def rand(*shape):
        t = (torch.randn(*shape) * 0.05).to(dtype)
        params.append(t)
        return t

    def activation(name, clip):
        return {
            "none": lambda x: x,
            "relu": F.relu,
            "clipped_relu": lambda x: torch.clamp(x, 0, clip),
            "sigmoid": torch.sigmoid,
            "tanh": torch.tanh,
            "gelu": F.gelu,
            "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
        }[name]

    for layer in layers:
        op, a, shapes = layer["op"], layer["attrs"], layer["input_shapes"]
        if op == "dense":
            w = rand(a["units"], shapes[0][-1])
            b = rand(a["units"]) if a.get("bias", True) else None
            act = activation(a.get("activation", "none"), a.get("clip", 20.0))
            if quantized:  # what torch.ao.quantization.quantize_dynamic makes of nn.Linear
                qw = torch.quantize_per_channel(w, w.abs().amax(1) / 127, torch.zeros(
                    w.shape[0], dtype=torch.long), 0, torch.qint8)
                packed = torch.ops.quantized.linear_prepack(qw, b)
                fn = lambda x, p=packed, act=act: act(torch.ops.quantized.linear_dynamic(x, p))
            else:
                fn = lambda x, w=w, b=b, act=act: act(F.linear(x, w, b))
        elif op == "conv2d":
            groups = a.get("groups", 1)
            kh, kw = a["kernel"]
            w = rand(a["filters"], shapes[0][1] // groups, kh, kw)
            b = rand(a["filters"]) if a.get("bias", True) else None
            top, left, bottom, right = a["padding"]
            act = activation(a.get("activation", "none"), a.get("clip", 20.0))
            if top == bottom and left == right:
                fn = lambda x, w=w, b=b, a=a, g=groups, p=(top, left), act=act: act(
                    F.conv2d(x, w, b, a["stride"], p, a["dilation"], g))
            else:
                fn = lambda x, w=w, b=b, a=a, g=groups, p=(left, right, top, bottom), act=act: act(
                    F.conv2d(F.pad(x, p), w, b, a["stride"], 0, a["dilation"], g))
        elif op == "batchnorm":
            c = shapes[0][1]
            mean, var = rand(c), rand(c).abs() + 1
            gamma, beta = rand(c), rand(c)
            fn = lambda x, m=mean, v=var, g=gamma, b=beta, e=a.get("epsilon", 1e-5): F.batch_norm(
                x, m, v, g, b, False, 0.0, e)
        elif op == "relu":
            fn = F.relu
        elif op == "clipped_relu":
            fn = lambda x, c=a.get("clip", 6.0): torch.clamp(x, 0, c)
        elif op == "add":
            fn = lambda x, y: x + y
        elif op == "max_pool":
            top, left, _, _ = a["padding"]
            fn = lambda x, a=a, p=(top, left): F.max_pool2d(x, a["kernel"], a["stride"], p)
        elif op == "global_avg_pool":
            rank = len(layer["output_shape"])  # [N, C] or [N, C, 1, 1]
            fn = lambda x, rank=rank: F.adaptive_avg_pool2d(x, 1).reshape(x.shape[:2] + (1,) * (rank - 2))
        elif op == "softmax":
            fn = lambda x, axis=a.get("axis", -1): F.softmax(x, dim=axis)
        elif op == "flatten":
            fn = lambda x, axis=a.get("axis", 1): torch.flatten(x, axis)
        elif op == "lstm":
            h = a["units"]
            bidirectional = a.get("direction", "forward") == "bidirectional"
            m = torch.nn.LSTM(shapes[0][-1], h, batch_first=True, bidirectional=bidirectional)
            m.eval().requires_grad_(False)  # its weights as constants when traced (compare_ort.py)
            if quantized:
                m = torch.ao.quantization.quantize_dynamic(m, {torch.nn.LSTM}, dtype=torch.qint8)
            else:
                m = m.to(dtype)
            params.append(m)
            fn = lambda x, m=m: m(x)[0]
        elif op == "embedding":
            table = rand(a["vocab"], a["dim"])
            fn = lambda ids, t=table: F.embedding(ids, t)
        elif op == "constant":
            value = rand(*layer["output_shape"])
            fn = lambda v=value: v
        elif op == "layernorm":
            c = shapes[0][-1]
            gamma, beta = rand(c), rand(c)
            fn = lambda x, g=gamma, b=beta, e=a.get("epsilon", 1e-5): F.layer_norm(
                x, (x.shape[-1],), g, b, e)
        elif op == "rms_norm":  # as Hugging Face's LlamaRMSNorm
            gamma = rand(shapes[0][-1])
            fn = lambda x, g=gamma, e=a.get("epsilon", 1e-6): x * torch.rsqrt(
                x.pow(2).mean(-1, keepdim=True) + e) * g
        elif op == "swiglu":
            act = F.silu if a.get("activation", "silu") == "silu" else F.gelu
            fn = lambda x, act=act: (lambda g, v: act(g) * v)(*x.chunk(2, dim=-1))
        elif op == "rotary":  # as Hugging Face's apply_rotary_pos_emb (rotate_half)
            n, s, width = shapes[0]
            heads = a["heads"]
            d = width // heads
            pos = torch.arange(a.get("offset", 0), a.get("offset", 0) + s, dtype=torch.float32)
            freq = a.get("base", 10000.0) ** (-torch.arange(0, d, 2, dtype=torch.float32) / d)
            angles = torch.outer(pos, freq)
            emb = torch.cat((angles, angles), dim=-1)
            cos, sin = emb.cos().to(dtype)[None, :, None, :], emb.sin().to(dtype)[None, :, None, :]

            def rotary(x, cos=cos, sin=sin, heads=heads, d=d):
                x = x.view(x.shape[0], x.shape[1], heads, d)
                half = torch.cat((-x[..., d // 2:], x[..., :d // 2]), dim=-1)
                return (x * cos + half * sin).flatten(2)
            fn = rotary
        elif op == "attention":  # PyTorch 1.13 has no scaled_dot_product_attention: as HF does
            heads, kv_heads = a["heads"], a["kv_heads"]
            sq, sk = shapes[0][1], shapes[1][1]
            mask = None
            if a.get("causal"):
                mask = torch.full((sq, sk), float("-inf")).triu(sk - sq + 1).to(dtype)

            def attention(q, k, v, heads=heads, kv_heads=kv_heads, scale=a["scale"], mask=mask):
                n, sq, _ = q.shape
                sk = k.shape[1]
                q = q.view(n, sq, heads, -1).transpose(1, 2)
                k = k.view(n, sk, kv_heads, -1).transpose(1, 2)
                v = v.view(n, sk, kv_heads, -1).transpose(1, 2)
                if kv_heads != heads:  # as HF's repeat_kv
                    k = k.repeat_interleave(heads // kv_heads, dim=1)
                    v = v.repeat_interleave(heads // kv_heads, dim=1)
                scores = torch.matmul(q, k.transpose(-1, -2)) * scale
                if mask is not None:
                    scores = scores + mask
                probs = F.softmax(scores.float(), dim=-1).to(q.dtype)
                return torch.matmul(probs, v).transpose(1, 2).reshape(n, sq, -1)
            fn = attention
        elif op == "kv_cache":  # as Hugging Face's cache: the past rows, then torch.cat
            n, s, width = shapes[0]
            past = rand(n, a.get("past", 0), width)
            fn = lambda x, past=past: torch.cat((past, x), dim=1)
        elif op == "slice":
            fn = lambda x, a=a: x.narrow(a["axis"], a["start"], a["size"])
        elif op == "reshape":
            fn = lambda x, shape=layer["output_shape"]: x.reshape(shape)
        elif op == "transpose":
            fn = lambda x, perm=a["perm"]: x.permute(perm).contiguous()
        elif op == "expand":
            fn = lambda x, shape=layer["output_shape"]: x.expand(shape)
        elif op == "concat":
            fn = lambda *xs, axis=a.get("axis", 1): torch.cat(xs, dim=axis)
        elif op in ("gelu", "tanh", "sigmoid"):
            fn = {"gelu": F.gelu, "tanh": torch.tanh, "sigmoid": torch.sigmoid}[op]
        else:
            sys.exit("compare_pytorch.py: no PyTorch equivalent for op '%s' (layer %s)"
                     % (op, layer["name"]))
        steps.append((layer["name"], fn, layer["inputs"]))

    # As an nn.Module's forward holds its tensors: each dropped after its last reader (a local
    # reassigned), so PyTorch's allocator frees it there. Holding every tensor to the end made
    # mobilenet_v2 3x faster than torchvision's own module, which frees as it goes and with
    # glibc's malloc takes ~2,750 page faults per inference for it (2-core AMD EPYC VM).
    last_use = {}
    for i, (_, _, ins) in enumerate(steps):
        for name in ins:
            last_use[name] = i
    dead_after = [[n for n in dict.fromkeys(ins) if last_use[n] == i and n != steps[-1][0]]
                  for i, (_, _, ins) in enumerate(steps)]

    def forward(feeds):
        values = dict(feeds)
        for (name, fn, ins), dead in zip(steps, dead_after):
            values[name] = fn(*[values[i] for i in ins])
            for d in dead:
                if d not in feeds:
                    del values[d]
        return values[steps[-1][0]]

    feeds = {}
    outputs = {l["name"] for l in layers}
    for layer in layers:
        for name, shape in zip(layer["inputs"], layer["input_shapes"]):
            if name not in outputs and name not in feeds:
                if layer["op"] == "embedding":  # token ids
                    feeds[name] = torch.randint(0, layer["attrs"]["vocab"], tuple(shape))
                else:
                    feeds[name] = torch.randn(*shape).to(dtype)
    return forward, feeds


def torch_mode(precision):
    return {"f32": "f32", "bf16": "bf16 weights and activations",
            "i8": "dynamic qint8 dense/LSTM, f32 conv"}[precision]


def loaded_blas():
    """The BLAS library this process mapped (Debian's torch links libblas.so.3, an alternative)."""
    with open("/proc/self/maps") as maps:
        libs = {line.split()[-1] for line in maps if "blas" in line}
    names = sorted(os.path.basename(os.path.dirname(l)) + "/" + os.path.basename(l) for l in libs)
    return ", ".join(names) or "none mapped"


def time_torch(torch, forward, feeds, min_time):
    """PyTorch's median latency in ms and the relative spread of its samples (MdAPE)."""
    with torch.no_grad():
        for _ in range(3):
            forward(feeds)
        samples, start = [], time.perf_counter()
        while time.perf_counter() - start < min_time or len(samples) < 5:
            t0 = time.perf_counter()
            forward(feeds)
            samples.append((time.perf_counter() - t0) * 1e3)
    median = statistics.median(samples)
    return median, statistics.median(abs(s - median) / median for s in samples)


def torch_worker(args):
    """One model timed on PyTorch in this process, fresh: {"ms", "spread"} on stdout."""
    import torch
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    model, batch = args.models.split(":")
    sets = [arg for kv in args.set for arg in ("--set", kv)]
    resolved = json.loads(run([os.path.join(args.build, "ntpbench"), "inspect",
                               os.path.join(ROOT, "topologies", model + ".json"), "--batch",
                               batch, "--json"] + sets))
    forward, feeds = build_torch_model(torch, resolved["layers"], args.precision)
    ms, spread = time_torch(torch, forward, feeds, args.min_time)
    print(json.dumps({"ms": ms, "spread": spread}))


def time_torch_fresh(args, model, batch, precision):
    """PyTorch's median and spread, timed in a process of its own, as ntpbench's side is: the
    allocator's state depends on what a process ran before (mobilenet_v2 after resnet50 in one
    process took 12 ms; alone, 48 ms of which most were page faults: glibc's thresholds had
    grown with resnet50's larger tensors)."""
    out = json.loads(run([sys.executable, os.path.abspath(__file__), "--torch-worker",
                          "--build", args.build, "--threads", str(args.threads), "--min-time",
                          str(args.min_time), "--models", model + ":" + batch, "--precision",
                          precision] + [a for kv in args.set for a in ("--set", kv)]))
    return out["ms"], out["spread"]


def unreliable_verdicts(node):
    """Every "unreliable" verdict ntpbench wrote into a run file entry."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "unreliable" and isinstance(value, str):
                yield value
            else:
                yield from unreliable_verdicts(value)
    elif isinstance(node, list):
        for value in node:
            yield from unreliable_verdicts(value)


def time_ntpbench(build, topology, backend, batch, precision, threads, min_time, sets=()):
    """ntpbench's median latency in ms, its GFLOP/s, and its verdicts on the machine's quiet."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        run([os.path.join(build, "ntpbench"), "run", topology, *sets, "--backend", backend,
             "--batch", str(batch), "--precision", precision, "--threads", str(threads),
             "--benchmark_min_time=%g" % min_time, "--benchmark_repetitions=3",
             "--json", out.name])
        with open(out.name) as f:
            report = json.load(f)
    verdicts = sorted(set(unreliable_verdicts(report.get("benchmarks", []))))
    for b in report["benchmarks"]:
        if b.get("aggregate_name") == "median":
            if b.get("error_occurred"):
                return None, None, verdicts
            return b["real_time"], b.get("net.gflops", 0.0), verdicts
    return None, None, verdicts


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--backend", default="onednn")
    p.add_argument("--precision", default="f32")
    p.add_argument("--models", default="mlp:1,mlp:64,resnet50:1,mobilenet_v2:1,deepspeech:1")
    p.add_argument("--min-time", type=float, default=2.0)
    p.add_argument("--rounds", type=int, default=3, help="alternating ntpbench/PyTorch rounds")
    p.add_argument("--set", action="append", default=[],
                   help="a topology param for every model (name=value), as ntpbench run --set")
    p.add_argument("--torch-worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.torch_worker:
        return torch_worker(args)

    import torch  # here, so --help works without it
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    torch.ones(2, 2) @ torch.ones(2, 2)  # maps the BLAS
    progress("PyTorch %s, %d threads, mkldnn %s, BLAS loaded: %s, OPENBLAS_CORETYPE=%s" % (
        torch.__version__, torch.get_num_threads(), torch.backends.mkldnn.is_available(),
        loaded_blas(), os.environ.get("OPENBLAS_CORETYPE", "(unset)")))
    peaks = json.loads(run([os.path.join(args.build, "ntpbench"), "machine", "--threads",
                            str(args.threads), "--json"]))

    rows = []
    for item in args.models.split(","):
        model, batch = item.split(":")
        topology = os.path.join(ROOT, "topologies", model + ".json")
        sets = [arg for kv in args.set for arg in ("--set", kv)]
        for precision in args.precision.split(","):
            # A B A B: both sides see the same minutes of a machine whose speed drifts.
            ours, theirs, gflops, notes = [], [], None, set()
            for r in range(args.rounds):
                progress("%s batch %s %s: round %d/%d" % (model, batch, precision, r + 1,
                                                          args.rounds))
                ms, gflops, verdicts = time_ntpbench(args.build, topology, args.backend, batch,
                                                     precision, args.threads, args.min_time, sets)
                notes.update("ntpbench " + v for v in verdicts)
                if ms is None:
                    break
                ours.append(ms)
                torch_ms, spread = time_torch_fresh(args, model, batch, precision)
                theirs.append(torch_ms)
                if spread > 0.05:  # the bound ntpbench holds its own repetitions to
                    notes.add("PyTorch samples spread %.0f%% (a busy machine?)" % (100 * spread))
            if not ours:
                theirs = [time_torch_fresh(args, model, batch, precision)[0]]
            for side, values in (("ntpbench", ours), ("PyTorch", theirs)):
                if len(values) > 1 and (max(values) - min(values)) / min(values) > 0.10:
                    notes.add("%s rounds %.3f..%.3f ms" % (side, min(values), max(values)))
            rows.append((model, batch, precision, statistics.median(ours) if ours else None,
                         statistics.median(theirs), gflops, "; ".join(sorted(notes))))

    header = ("model", "batch", "precision", "ntpbench ms", "PyTorch ms", "ratio", "GFLOP/s",
              "% of peak", "PyTorch mode", "reliability")
    print("ntpbench %s vs PyTorch %s, %d threads; %% of peak: of the `ntpbench machine` matmul "
          "peak of the precision" % (args.backend, torch.__version__, args.threads))
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for model, batch, precision, ms, torch_ms, gflops, notes in rows:
        if ms is None:
            print("| %s | %s | %s | skipped | %.3f | | | | %s | %s |" % (
                model, batch, precision, torch_ms, torch_mode(precision), notes))
            continue
        peak = peaks["peak_gflops"].get(precision)
        share = "%.0f%%" % (100 * gflops / peak) if peak and gflops else ""
        print("| %s | %s | %s | %.3f | %.3f | %.2f | %.1f | %s | %s | %s |" % (
            model, batch, precision, ms, torch_ms, ms / torch_ms, gflops, share,
            torch_mode(precision), notes or "quiet"))


if __name__ == "__main__":
    main()
