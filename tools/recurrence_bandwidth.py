#!/usr/bin/python3
"""DeepSpeech's recurrence against the memory floor: per precision, batch and route, the
bidirectional LSTM's time, its effective recurrent-weight bandwidth (bytes of recurrent weights
per step x steps / time) and its ratio to the DRAM read bandwidth `ntpbench machine --refresh`
measures in the same run (before and after the table; the ratio uses their mean).

  tools/recurrence_bandwidth.py [--build build] [--precisions f32,bf16,i8] [--batches 1,4]
      [--routes decomposed,auto] [--min-time 2] [--op lstm|gru] [--n-hidden 2048]

--op gru runs the same topology with its LSTM replaced by a GRU. Output: a Markdown table on
stdout; progress on stderr.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def machine_read_gbs(cli, cache):
    out = subprocess.run([cli, "machine", "--refresh", "--json"], capture_output=True, text=True,
                         check=True, env=dict(os.environ, NTPB_CACHE_DIR=cache)).stdout
    return json.loads(out)["ceilings"]["read.dram"]["best"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--precisions", default="f32,bf16,i8")
    ap.add_argument("--batches", default="1,4")
    ap.add_argument("--routes", default="decomposed,auto")
    ap.add_argument("--min-time", default="2")
    ap.add_argument("--op", default="lstm", choices=["lstm", "gru"])
    ap.add_argument("--n-hidden", type=int, default=2048)
    a = ap.parse_args()
    cli = os.path.join(a.build, "ntpbench")
    topo = json.load(open(os.path.join(ROOT, "topologies", "deepspeech.json")))
    for layer in topo["layers"]:
        if layer["op"] == "lstm":
            layer["op"] = a.op
            rnn = layer["name"]
    tmp = tempfile.mkdtemp()
    path = os.path.join(tmp, "deepspeech_%s.json" % a.op)
    json.dump(topo, open(path, "w"))
    cache = os.path.join(tmp, "cache")
    h, t = a.n_hidden, topo["params"]["T"]
    gates = 4 if a.op == "lstm" else 3
    print("ntpbench: DRAM read (before)", file=sys.stderr)
    before = machine_read_gbs(cli, cache)
    rows = []
    for precision in a.precisions.split(","):
        for batch in a.batches.split(","):
            for route in a.routes.split(","):
                print("ntpbench: %s batch %s %s" % (precision, batch, route), file=sys.stderr)
                out = os.path.join(tmp, "run.json")
                subprocess.run([cli, "run", path, "--backend", "onednn", "--precision", precision,
                                "--batch", batch, "--set", "n_hidden=%d" % h, "--quiet",
                                "--json", out, "--benchmark_min_time=" + a.min_time],
                               check=True, env=dict(os.environ, NTPB_ONEDNN_RNN=route),
                               stdout=subprocess.DEVNULL)
                b = json.load(open(out))["benchmarks"][0]
                steps = {s["name"]: s for s in b["ntpbench"]["steps"]}
                ms = b["layer.%s.ms" % rnn]
                weight_bytes = 2 * h * gates * h * {"f32": 4, "bf16": 2, "f16": 2, "i8": 1}[precision]
                rows.append((precision, batch, route, steps[rnn].get("kernel", ""), ms,
                             weight_bytes * t / (ms * 1e-3) / 1e9))
    print("ntpbench: DRAM read (after)", file=sys.stderr)
    after = machine_read_gbs(cli, cache)
    dram = (before + after) / 2
    print("DRAM read, same run: %.1f GB/s before, %.1f after (mean %.1f)\n" % (before, after, dram))
    print("| precision | batch | route | kernel | %s ms | effective GB/s | x DRAM read |" % rnn)
    print("|---|---|---|---|---|---|---|")
    for p, n, route, kernel, ms, gbs in rows:
        print("| %s | %s | %s | %s | %.1f | %.1f | %.2f |" % (p, n, route, kernel, ms, gbs, gbs / dram))


if __name__ == "__main__":
    main()
