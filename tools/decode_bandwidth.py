#!/usr/bin/python3
"""A decoder's batch-1 decode step against the memory floor (issue 42's bandwidth target): per
precision, the bytes one decode step moves (weights, key/value caches, activations, as the
analysis counts them) over the TPOT p50 of `ntpbench run --scenario generate`, and its ratio to
the DRAM read bandwidth `ntpbench machine --refresh --force` measures just before and just after
that row's run. A VM's memory bandwidth can move between regimes within seconds (38 to 88 GB/s
in one session on a 2-core Zen 5 guest), so each row has its own reference; a row whose two
reads disagree by more than 10%, or that moved more than 1.05x their rate (the bandwidth changed
during it), is measured again.

  tools/decode_bandwidth.py [--build build] [--topology topologies/llama.json]
      [--precisions f32,bf16,w8,w4] [--backend onednn] [--set prompt=32 --set gen=16]
      [--attempts 4]

TPOT is a wall time per output token (everything a decode step does, host steps included); the
"sum of steps" column is the per-layer table's total, which leaves out the time between layers.
Output: a Markdown table on stdout; progress on stderr.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

from machine_read import machine_read_gbs

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def generate(cli, topology, backend, precision, sets, out):
    args = [cli, "run", topology, "--backend", backend, "--precision", precision, "--scenario",
            "generate", "--queries", "1", "--quiet", "--json", out]
    for s in sets:
        args += ["--set", s]
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    b = json.load(open(out))["benchmarks"][0]
    decode = [p for p in b["ntpbench"]["phases"] if p["name"] == "decode"][0]
    moved = sum(s.get("weight_traffic_bytes", 0) + s.get("input_bytes", 0) +
                s.get("output_bytes", 0) for s in decode["steps"])
    steps_ms = sum(s["ms"] for s in decode["steps"])
    return moved, b["scenario.tpot_p50_ms"], steps_ms


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--topology", default=os.path.join(ROOT, "topologies", "llama.json"))
    ap.add_argument("--backend", default="onednn")
    ap.add_argument("--precisions", default="f32,bf16,w8,w4")
    ap.add_argument("--set", action="append", dest="sets", default=None,
                    help="a topology param, as `ntpbench run --set` (default prompt=32, gen=16)")
    ap.add_argument("--attempts", type=int, default=4)
    a = ap.parse_args()
    sets = a.sets if a.sets else ["prompt=32", "gen=16"]
    cli = os.path.join(a.build, "ntpbench")
    tmp = tempfile.mkdtemp()
    cache = os.path.join(tmp, "cache")
    out = os.path.join(tmp, "run.json")
    precisions = a.precisions.split(",")
    rows = []
    for i, precision in enumerate(precisions):
        for attempt in range(a.attempts):
            print("decode_bandwidth: %d/%d %s, attempt %d" % (i + 1, len(precisions), precision,
                                                              attempt + 1), file=sys.stderr)
            before = machine_read_gbs(cli, cache, "decode_bandwidth")
            moved, tpot_ms, steps_ms = generate(cli, a.topology, a.backend, precision, sets, out)
            after = machine_read_gbs(cli, cache, "decode_bandwidth")
            gbs = moved / (tpot_ms * 1e-3) / 1e9
            # A decode step reads gigabytes, far beyond the last-level cache: more than the
            # read's rate means the bandwidth moved during the row, between the two reads.
            steady = (abs(before - after) <= 0.1 * max(before, after) and
                      gbs <= 1.05 * (before + after) / 2)
            if steady:
                break
        rows.append((precision, moved, tpot_ms, steps_ms, gbs, before, after, steady))
    print("| %s %s | bytes a decode step moves | TPOT p50 ms | sum of steps ms | GB/s (bytes / "
          "TPOT) | DRAM read GB/s (before / after) | x DRAM read |" %
          (os.path.basename(a.topology), a.backend))
    print("|---|---|---|---|---|---|---|")
    for precision, moved, tpot_ms, steps_ms, gbs, before, after, steady in rows:
        print("| %s | %.0f MiB | %.2f | %.2f | %.1f | %.1f / %.1f | %.2f%s |" %
              (precision, moved / 2**20, tpot_ms, steps_ms, gbs, before, after,
               gbs / ((before + after) / 2), "" if steady else " ?"))
    if not all(r[-1] for r in rows):
        print("\n?: in every attempt the DRAM reads before and after the row disagreed by more "
              "than 10%, or the row moved more than 1.05x their rate")


if __name__ == "__main__":
    main()
