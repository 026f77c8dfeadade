#!/usr/bin/env python3
"""Predicts again the rows of a `ntpbench predict --check -o CHECK.json` file with a calibration
(after the predictor or the calibration changed) and compares with the latencies the check
measured, without running anything: what a change to the predictor does on measurements already
made. Run from the folder the check ran in (its topology paths are relative to it).

  tools/recheck_predictions.py CALIBRATION.json CHECK.json [--ntpbench build/ntpbench]
"""
import argparse
import json
import statistics
import subprocess


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("calibration")
    parser.add_argument("check")
    parser.add_argument("--ntpbench", default="build/ntpbench")
    args = parser.parse_args()
    check = json.load(open(args.check))
    errors = []
    for row in check["results"]:
        if "measured_ms" not in row:
            continue
        command = [args.ntpbench, "predict", row["topology"], "-c", args.calibration, "--json",
                   "--batch", str(row["batch"])]
        for assignment in row["model"].split()[1:]:  # "resnet50.json size=160"
            command += ["--set", assignment]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            print(f"{row['model']} batch {row['batch']}: {done.stderr.strip()}")
            continue
        predicted = json.loads(done.stdout)[0]["ms"]
        error = predicted / row["measured_ms"] - 1
        errors.append(abs(error))
        print(f"{row['model'][:36]:36} {row['batch']:3} {predicted:10.3f} {row['measured_ms']:10.3f}"
              f" {100 * error:+7.1f}%")
    if not errors:
        raise SystemExit("nothing measured in " + args.check)
    n = len(errors)
    within = {b: sum(e <= b for e in errors) / n for b in (0.05, 0.10, 0.20)}
    print(f"{n} predictions: within +-5% {within[0.05]:.0%}, +-10% {within[0.10]:.0%}, "
          f"+-20% {within[0.20]:.0%}; median |error| {100 * statistics.median(errors):.1f}%")


if __name__ == "__main__":
    main()
