// A sweep's results file: the sweep as it was run, and each point as it finished (its settings,
// whether it ran, why not, and the point's run as Google Benchmark JSON with ntpbench's
// description, so its per-layer results stay available). Points are added one at a time under a
// lock and written atomically: an interrupted sweep leaves every finished point whole, and
// `ntpbench sweep --resume` goes on from there.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ntpbench/run_file.h"

namespace ntpb {

struct SweepPointResult {
  std::string id;  // SweepPoint::id
  std::map<std::string, std::string> settings;
  std::string varied;  // one-at-a-time: the factor it varies ("" for the base point)
  bool base = false;   // SweepPoint::base
  bool ok = false;     // it ran and measured
  std::string reason;  // why not (unsupported precision, out of memory, timed out, ...)
  double seconds = 0;  // wall time of the point's run, compile and warm-up included
  nlohmann::json run;  // the run's Google Benchmark JSON (null when it did not run)

  // The run, in the results model (throws ntpb::Error when there is none or it is unreadable).
  RunResults Run(const std::string& file) const;
};

struct SweepResults {
  std::string file;
  // Sweep::ToJson() of the sweep that wrote it (ParseSweepJson reads it back, sweep.h; the
  // results model itself needs no topology reader).
  nlohmann::json sweep;
  std::string machine;                   // the machine it ran on, as run files describe it
  std::vector<SweepPointResult> points;  // in the order they finished
  const SweepPointResult* Find(const std::string& id) const;
};

// Whether `doc` is a sweep results file (its "format").
bool IsSweepResults(const nlohmann::json& doc);
// Throws ntpb::Error naming the file (and the point) when it is unreadable or not one.
SweepResults ReadSweepResults(const std::string& path);
SweepResults ParseSweepResults(const std::string& text, const std::string& file);

// Adds `point` to the results file at `path` (replacing a point with its id), creating the file
// with `sweep` and `machine` when it does not exist. Under `path`.lock, written atomically. A
// file that holds another sweep is an error, not overwritten.
void RecordSweepPoint(const std::string& path, const nlohmann::json& sweep,
                      const std::string& machine, const SweepPointResult& point);

}  // namespace ntpb
