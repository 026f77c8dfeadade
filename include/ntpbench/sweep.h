// A sweep (BackboneAnalysis, one factor at a time): a base topology, the factors to vary and
// their values, and the settings held fixed. `ntpbench sweep SWEEP.json` runs its points; this
// header reads the file (JSON, or NTP-style XML like topologies) and lists the points.
//
// A setting is one of the run's choices: "backend", "precision", "batch", "threads", a further
// run setting the caller declares (SweepSetting), or any param the topology declares (`--set`: a
// layer size, a kernel size, the input size, a param that switches the convolution type through
// layers' `when`).
#pragma once

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ntpbench/topology.h"

namespace ntpb {

// The settings that are not topology params.
inline constexpr const char* kSweepRunSettings[] = {"backend", "precision", "batch", "threads"};

struct SweepFactor {
  std::string name;                 // a run setting or a topology param
  std::vector<std::string> values;  // as written (numbers as decimal text)
  std::vector<std::string> labels;  // optional, one per value: "depthwise-separable" for 1
  // The label of `value` ("" when none).
  std::string LabelOf(const std::string& value) const;
};

enum class SweepMode {
  kOneAtATime,  // the base point, then each factor's other values with the rest at base
  kGrid,        // every combination
  kPoints,      // the points listed in the file
};
const char* SweepModeName(SweepMode mode);  // "one-at-a-time", "grid", "points"

struct Sweep {
  std::string name;
  std::string description;
  std::string file;           // where it was read from (messages; not serialized)
  std::string topology;       // the topology's path, relative to the sweep file's folder
  std::string topology_path;  // ... as this process opens it (resolved when read)
  std::map<std::string, std::string> base;  // settings held fixed, and factors' base values
  std::vector<SweepFactor> factors;
  SweepMode mode = SweepMode::kOneAtATime;
  std::vector<std::map<std::string, std::string>> points;  // kPoints: each point's factors
  double min_time = 0.5;  // --benchmark_min_time of each point's run
  int repetitions = 1;    // --benchmark_repetitions of each point's run

  // The JSON form (what `ParseSweepJson` reads): stored in the results file so that a resumed
  // sweep can tell whether it is still the same sweep.
  nlohmann::json ToJson() const;
};

// One configuration to run.
struct SweepPoint {
  std::string id;  // "batch=4,kernel=3": every factor's value, in the file's factor order
  std::map<std::string, std::string> settings;  // base and factors: everything the run needs
  std::string varied;  // one-at-a-time: the factor it varies ("" for the base point)
  bool base = false;   // every factor at its base value (a grid's or a list's may be missing)
};

// A further run setting a sweep may vary or hold (`ntpbench sweep` passes every setting of
// `ntpbench run` that its run-settings table declares: seed, device, backend_option, place): a
// point has it only where the base or a factor gives it (otherwise the run's default holds); a
// factor without a base value starts from its first value. `check` throws ntpb::Error on a bad
// value, naming `field`.
struct SweepSetting {
  std::string name;
  std::function<void(const std::string& value, const std::string& field)> check;
};

// Throws ntpb::Error naming the file and the field (factors[2].values, base.batch).
Sweep ParseSweepJson(const std::string& text, const std::string& file);
Sweep ParseSweepXml(const std::string& text, const std::string& file);
// By extension (.xml, else JSON).
Sweep ReadSweepFile(const std::string& path);

// The points, in run order. Checks every factor and base setting against the topology (a name
// that is neither a run setting, one of `settings`, nor one of its params, a value that is not an
// integer where one is needed, a precision that does not exist) and throws ntpb::Error naming the
// sweep file.
std::vector<SweepPoint> SweepPoints(const Sweep& sweep, const Topology& topology,
                                    const std::vector<SweepSetting>& settings = {});

}  // namespace ntpb
