#!/usr/bin/python3
"""The OpenCL backend's comparison tables, every ratio taken within one run of this script:

1. opencl vs onednn latency for each shipped topology at batch 1 and 4, the two backends
   alternating A B A B (two rounds; each backend's best round is used);
2. the OpenCL GEMM at 1024^3 and 2048^3 (a dense layer of M=K=N: the GEMM step's own time,
   best of three rounds) as a share of the f32 register peak `ntpbench machine --refresh`
   measures in the same run, with oneDNN's GEMM beside it, for each GEMM kernel
   (opencl.gemm=vector: packed weights on a CPU device; tiled);
3. the per-step overhead of a tiny kernel (a relu of 16 floats): host wall time per step (launch,
   profiling event, wait) against the device's own time for it;
4. i8 on opencl: per topology (--i8-topologies) opencl i8 against opencl f32 and onednn i8, the
   three alternating (best of two rounds), and the i8 GEMM step at 1024^3 and 2048^3 against
   the i8 and f32 register peaks of the same `ntpbench machine` run.

  tools/opencl_tables.py [--build build] [--min-time 1] [--device SPEC] [--topologies a,b]
                         [--i8-topologies a,b]

Output: Markdown on stdout; progress on stderr. Needs an OpenCL device (`ntpbench devices`).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOPOLOGIES = ["tiny_cnn", "mlp", "deepspeech", "deepspeech_e2e", "mobilenet_v2", "resnet50"]


def run(cli, topology, backends, batch, min_time, extra=(), precision="f32"):
    """One `ntpbench run`; returns {backend: benchmark JSON entry}."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        cmd = [cli, "run", topology, "--backend", ",".join(backends), "--batch", str(batch),
               "--precision", precision, "--quiet", "--json", out.name,
               f"--benchmark_min_time={min_time}", *extra]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        doc = json.load(open(out.name))
    found = {}
    for b in doc["benchmarks"]:
        backend = b["name"].split("/")[1]
        if b.get("error_occurred"):
            raise SystemExit(f"{b['name']}: {b.get('error_message')}")
        found[backend] = b
    return found


def gemm_topology(n):
    """A file holding a dense layer of M=K=N=n (M is the batch)."""
    topo = {"name": "gemm", "params": {"N": n, "K": n},
            "inputs": [{"name": "a", "shape": ["N", "K"]}],
            "layers": [{"name": "gemm", "op": "dense", "units": "K", "bias": False}],
            "outputs": ["gemm"]}
    f = tempfile.NamedTemporaryFile("w", suffix=".json")
    json.dump(topo, f)
    f.flush()
    return f


def ms(entry):
    return entry["real_time"] * {"ns": 1e-6, "us": 1e-3, "ms": 1, "s": 1e3}[entry["time_unit"]]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--min-time", default="1")
    ap.add_argument("--device", default="")
    ap.add_argument("--topologies", default=",".join(TOPOLOGIES))
    ap.add_argument("--i8-topologies", default="mlp,mobilenet_v2,resnet50")
    a = ap.parse_args()
    cli = os.path.join(a.build, "ntpbench")
    device = ["--device", a.device] if a.device else []

    print("### opencl vs onednn, f32 (best of 2 alternating rounds)\n")
    print("| topology | batch | onednn ms | opencl ms | opencl / onednn |")
    print("|---|---|---|---|---|")
    for name in filter(None, a.topologies.split(",")):  # --topologies "": this table left out
        path = os.path.join(ROOT, "topologies", name + ".json")
        for batch in (1, 4):
            print(f"opencl_tables: {name} batch {batch}", file=sys.stderr)
            best = {"onednn": float("inf"), "opencl": float("inf")}
            for _ in range(2):  # A B A B
                for backend in ("onednn", "opencl"):
                    r = run(cli, path, [backend], batch, a.min_time, device)
                    best[backend] = min(best[backend], ms(r[backend]))
            print(f"| {name} | {batch} | {best['onednn']:.2f} | {best['opencl']:.2f} | "
                  f"{best['opencl'] / best['onednn']:.2f} |")

    print("\n### GEMM as a share of the f32 register peak measured in this run\n")
    with tempfile.TemporaryDirectory() as cache:
        ceilings = json.loads(subprocess.run(
            [cli, "machine", "--refresh", "--json"], capture_output=True, text=True, check=True,
            env=dict(os.environ, NTPB_CACHE_DIR=cache)).stdout)["ceilings"]
    peak = ceilings["register.f32"]["best"]
    print(f"f32 register peak: {peak:.1f} GFLOP/s\n")
    print("| M=K=N | onednn GFLOP/s | opencl vector GFLOP/s | % peak | opencl tiled GFLOP/s | % peak |")
    print("|---|---|---|---|---|---|")
    for n in (1024, 2048):
        with gemm_topology(n) as f:
            print(f"opencl_tables: gemm {n}", file=sys.stderr)
            # The GEMM step's own rate (its upload and download are steps of their own), best
            # of three rounds: PoCL's run-to-run spread on this VM was up to 2x.
            g = {"onednn": 0.0, "vector": 0.0, "tiled": 0.0}
            for _ in range(3):
                r = run(cli, f.name, ["onednn"], n, a.min_time)["onednn"]
                g["onednn"] = max(g["onednn"], r["layer.gemm.gflops"])
                for kernel in ("vector", "tiled"):
                    r = run(cli, f.name, ["opencl"], n, a.min_time,
                            device + ["--backend-option", f"opencl.gemm={kernel}"])
                    g[kernel] = max(g[kernel], r["opencl"]["layer.gemm.gflops"])
        print(f"| {n} | {g['onednn']:.1f} | {g['vector']:.1f} | {100 * g['vector'] / peak:.0f}% | "
              f"{g['tiled']:.1f} | {100 * g['tiled'] / peak:.0f}% |")

    print("\n### Per-step overhead of a tiny kernel (relu of 16 floats)\n")
    topo = {"name": "tiny_kernel", "inputs": [{"name": "x", "shape": [1, 16]}],
            "layers": [{"name": "relu", "op": "relu"}], "outputs": ["relu"]}
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump(topo, f)
        f.flush()
        r = run(cli, f.name, ["eigen", "opencl"], 1, a.min_time, device)
    wall = r["opencl"]["layer.relu.ms"] * 1e3
    dev = r["opencl"].get("layer.relu.device_ms", 0) * 1e3
    print("| step | eigen wall µs | opencl wall µs (enqueue + event + wait) | opencl device µs |")
    print("|---|---|---|---|")
    print(f"| relu [1, 16] | {r['eigen']['layer.relu.ms'] * 1e3:.2f} | {wall:.1f} | {dev:.1f} |")

    print("\n### i8 on opencl (best of 2 rounds, the three alternating)\n")
    print("| topology | batch | opencl f32 ms | opencl i8 ms | i8 / f32 | onednn i8 ms |")
    print("|---|---|---|---|---|---|")
    for name in filter(None, a.i8_topologies.split(",")):
        path = os.path.join(ROOT, "topologies", name + ".json")
        for batch in (1, 4):
            print(f"opencl_tables: i8 {name} batch {batch}", file=sys.stderr)
            best = {"f32": float("inf"), "i8": float("inf"), "onednn": float("inf")}
            for _ in range(2):
                for key, backend, precision in (("f32", "opencl", "f32"), ("i8", "opencl", "i8"),
                                                ("onednn", "onednn", "i8")):
                    extra = device if backend == "opencl" else []
                    r = run(cli, path, [backend], batch, a.min_time, extra, precision)
                    best[key] = min(best[key], ms(r[backend]))
            print(f"| {name} | {batch} | {best['f32']:.2f} | {best['i8']:.2f} | "
                  f"{best['i8'] / best['f32']:.2f} | {best['onednn']:.2f} |")
    i8_peak = ceilings.get("register.i8", {}).get("best", 0)
    print(f"\ni8 register peak: {i8_peak:.1f} GOP/s; f32: {peak:.1f} GFLOP/s\n")
    print("| M=K=N | opencl f32 GFLOP/s | opencl i8 GOP/s | % i8 peak | % f32 peak |")
    print("|---|---|---|---|---|")
    for n in (1024, 2048):
        with gemm_topology(n) as f:
            print(f"opencl_tables: i8 gemm {n}", file=sys.stderr)
            g = {"f32": 0.0, "i8": 0.0}
            for _ in range(3):
                for precision in ("f32", "i8"):
                    r = run(cli, f.name, ["opencl"], n, a.min_time, device, precision)
                    g[precision] = max(g[precision], r["opencl"]["layer.gemm.gflops"])
        share = f"{100 * g['i8'] / i8_peak:.0f}%" if i8_peak else "-"
        print(f"| {n} | {g['f32']:.1f} | {g['i8']:.1f} | {share} | {100 * g['i8'] / peak:.0f}% |")


if __name__ == "__main__":
    main()
