// Probe points that ran much slower than the rest of their calibration prices them. A VM's speed
// can drop for a second: one point of probe_cnn ran 7.5 ms where it ran 0.93 when run again
// (Intel Xeon VM, 2 cores, onednn f32), and its samples, 8x too slow, would price every step
// near them. `calibrate` runs such points again and keeps the faster run.
#pragma once

#include <string>
#include <vector>

#include "ntpbench/latency_calibration.h"

namespace ntpb {

struct SlowProbePoint {
  std::string point;       // SamplePoint: "probe_cnn kernel=1,conv_type=0,batch=8"
  double measured_ms = 0;  // its priced samples' sum
  double priced_ms = 0;    // the same steps priced from the other points' samples
  double Ratio() const { return measured_ms / priced_ms; }
};

// The points whose samples sum to more than `limit` times what the calibration prices the same
// steps at without them (leave one point out), slowest first.
std::vector<SlowProbePoint> SlowProbePoints(const LatencyCalibration& calibration, double limit);

// Multiplies the time of every sample measured at `point` (SamplePoint) by `factor`: a run of the
// point again over its first.
void ScalePointSamples(LatencyCalibration* calibration, const std::string& point, double factor);

// A probe's drift (its reference point's last run over its first, less 1) and the reference's
// time (the geometric mean of the two runs), after its first run's time was multiplied by
// `first_scale` (ScalePointSamples of that point).
struct ReferenceDrift {
  double drift = 0, ms = 0;
};
ReferenceDrift DriftWithFirstRunScaled(ReferenceDrift measured, double first_scale);

}  // namespace ntpb
