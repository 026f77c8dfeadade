// Prices one step from a latency calibration's samples: the predictor's core
// (latency_prediction.h), also what `calibrate` asks of each probe point with that point's own
// samples left out (calibration_outliers.h).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ntpbench/latency_calibration.h"
#include "ntpbench/latency_prediction.h"

namespace ntpb {

struct StepPrice {
  bool priced = false;                     // false: the calibration has no sample of its family
  double ms = 0, low_ms = 0, high_ms = 0;  // the estimate and its neighbours' range
  int samples = 0;                         // how many samples priced it
  std::string level;                       // the kind they are of: its own, or broader
  bool own_kind = false;                   // `level` is the step's own signature
  bool extrapolated = false;               // more than 3x from every sample
  double nearest_flops_ratio = 0;          // the nearest sample's FLOPs over the step's
  std::vector<PricedFrom> from;            // the samples it rests on, nearest first
};

// The probe point a sample was measured at: its source up to " / " ("probe_cnn batch=8,size=64").
std::string SamplePoint(const CalibrationSample& sample);

class StepPricer {
 public:
  // Keeps pointers into `calibration`, which must outlive it.
  explicit StepPricer(const LatencyCalibration& calibration);
  // `leave_out`: a probe point (SamplePoint) whose samples are not used.
  StepPrice Price(const StepFeatures& step, const std::string& leave_out = "") const;

  // The calibration's own rates: what its fastest steps reached and the per-step floor.
  struct Scale {
    double flops_per_ms = 1, bytes_per_ms = 1, floor_ms = 0;
    double Cost(const StepFeatures& f) const;
  };

 private:
  struct Entry {
    const CalibrationSample* sample;
    std::string point;
  };
  std::vector<Entry> entries_;
  std::map<std::string, std::vector<const Entry*>> by_level_;
  // Per kind (a level of by_level_): the part of its steps' time that does not grow with their
  // work, which a neighbour's time keeps as it is when scaled to the step.
  std::map<std::string, double> fixed_ms_;
  // The same of every kind of an op (conv2d, dense): the bound of a kind's below its samples.
  std::map<std::string, double> op_fixed_ms_;
  Scale scale_;
  // The calibration's cache_bytes from level 2 up (an L1 holds no network's weights).
  std::vector<double> cache_levels_;
  // Where a network's bytes are read from: 0 where they fit the L2s, 1 where the next level,
  // and so on; past the last level, by the share of them it cannot keep (1 - its size / theirs):
  // a network just over the L3 sits near the L3, one 10x its size near memory.
  double CachePosition(double context_bytes) const;
  // `work`: WorkDistance(a, b), which the caller also needs.
  double Distance(const StepFeatures& a, const StepFeatures& b, double work) const;
};

}  // namespace ntpb
