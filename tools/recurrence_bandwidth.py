#!/usr/bin/python3
"""DeepSpeech's recurrence against the memory floor: per precision, batch and route, the
bidirectional LSTM's (or GRU's) effective recurrent-weight bandwidth (bytes of recurrent weights
per step x steps / time) and its ratio to the DRAM read bandwidth `ntpbench machine --refresh
--force` measures just before and just after that row's recurrence (this VM's bandwidth moves within
seconds, so each row has its own reference, and a row whose two reads disagree is measured
again).

Two times per row, both from `ntpbench run`:
  - layer: DeepSpeech's own bilstm, whose time includes the input projection of all T steps
    (one compute-bound matmul: 6.7 GFLOP per sample at H 2048);
  - recurrence: the same recurrent layer (same H, T, direction, W_h) fed one feature per step,
    so its input projection is negligible and the time is the recurrence's: what the effective
    bandwidth and the ratio are computed from.

  tools/recurrence_bandwidth.py [--build build] [--precisions f32,bf16,i8] [--batches 1,4]
      [--routes decomposed,auto] [--min-time 2] [--op lstm|gru] [--n-hidden 2048] [--attempts 4]

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
BYTES = {"f32": 4, "bf16": 2, "f16": 2, "i8": 1}


def layer_ms(cli, path, layer, precision, batch, route, h, min_time, tmp):
    out = os.path.join(tmp, "run.json")
    subprocess.run([cli, "run", path, "--backend", "onednn", "--precision", precision,
                    "--batch", batch, "--set", "n_hidden=%d" % h, "--quiet", "--json", out,
                    "--benchmark_min_time=" + min_time],
                   check=True, env=dict(os.environ, NTPB_ONEDNN_RNN=route),
                   stdout=subprocess.DEVNULL)
    b = json.load(open(out))["benchmarks"][0]
    steps = {s["name"]: s for s in b["ntpbench"]["steps"]}
    return b["layer.%s.ms" % layer], steps[layer].get("kernel", "")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--precisions", default="f32,bf16,i8")
    ap.add_argument("--batches", default="1,4")
    ap.add_argument("--routes", default="decomposed,auto")
    ap.add_argument("--min-time", default="2")
    ap.add_argument("--op", default="lstm", choices=["lstm", "gru"])
    ap.add_argument("--n-hidden", type=int, default=2048)
    ap.add_argument("--attempts", type=int, default=4)
    a = ap.parse_args()
    cli = os.path.join(a.build, "ntpbench")
    topo = json.load(open(os.path.join(ROOT, "topologies", "deepspeech.json")))
    for layer in topo["layers"]:
        if layer["op"] == "lstm":
            layer["op"] = a.op
            rnn = dict(layer)
    tmp = tempfile.mkdtemp()
    full = os.path.join(tmp, "deepspeech_%s.json" % a.op)
    json.dump(topo, open(full, "w"))
    # The recurrent layer alone, one input feature per step: W_h and the T steps as in
    # DeepSpeech, an input projection of T x 1 x 4H multiply-adds.
    alone = os.path.join(tmp, "recurrence_%s.json" % a.op)
    json.dump({"format": "ntpbench-topology", "version": 1, "name": "recurrence",
               "params": {"T": topo["params"]["T"], "n_hidden": topo["params"]["n_hidden"]},
               "inputs": [{"name": "x", "shape": ["N", "T", 1]}], "layers": [rnn]},
              open(alone, "w"))
    cache = os.path.join(tmp, "cache")
    h, t = a.n_hidden, topo["params"]["T"]
    gates = 4 if a.op == "lstm" else 3
    combos = [(p, n, r) for p in a.precisions.split(",") for n in a.batches.split(",")
              for r in a.routes.split(",")]
    rows = []
    for i, (precision, batch, route) in enumerate(combos):
        print("recurrence_bandwidth: %d/%d %s batch %s %s" % (i + 1, len(combos), precision,
                                                            batch, route), file=sys.stderr)
        full_ms, kernel = layer_ms(cli, full, rnn["name"], precision, batch, route, h,
                                   a.min_time, tmp)
        # This VM's memory bandwidth jumps between regimes (e.g. 33 and 60 GB/s) within
        # seconds: a row counts when the reads before and after it agree within 10%, else it is
        # measured again (at most --attempts times; the last attempt is shown, marked '?').
        for attempt in range(a.attempts):
            before = machine_read_gbs(cli, cache, "recurrence_bandwidth")
            alone_ms, _ = layer_ms(cli, alone, rnn["name"], precision, batch, route, h,
                                   a.min_time, tmp)
            after = machine_read_gbs(cli, cache, "recurrence_bandwidth")
            if abs(before - after) <= 0.1 * max(before, after):
                break
        steady = abs(before - after) <= 0.1 * max(before, after)
        weight_bytes = 2 * h * gates * h * BYTES[precision]
        gbs = weight_bytes * t / (alone_ms * 1e-3) / 1e9
        rows.append((precision, batch, route, kernel, full_ms, alone_ms, gbs, before, after,
                     steady))
    print("| %s | precision | batch | route | kernel | layer ms (with input projection) | "
          "recurrence ms | effective GB/s | DRAM read GB/s (before / after) | x DRAM read |"
          % "op")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for p, n, route, kernel, full_ms, alone_ms, gbs, before, after, steady in rows:
        print("| %s | %s | %s | %s | %s | %.1f | %.1f | %.1f | %.1f / %.1f | %.2f%s |" %
              (a.op, p, n, route, kernel, full_ms, alone_ms, gbs, before, after,
               gbs / ((before + after) / 2), "" if steady else " ?"))
    if not all(r[-1] for r in rows):
        print("\n?: the DRAM reads before and after the row disagreed by more than 10% in every "
              "attempt")


if __name__ == "__main__":
    main()
