// Leave-one-point-out: each probe point's steps priced from the rest of the calibration
// (calibration_outliers.h).
#include "src/predict/calibration_outliers.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "src/predict/step_pricer.h"

namespace ntpb {

std::vector<SlowProbePoint> SlowProbePoints(const LatencyCalibration& calibration, double limit) {
  const StepPricer pricer(calibration);
  std::map<std::string, SlowProbePoint> by_point;
  for (const CalibrationSample& s : calibration.samples) {
    const std::string point = SamplePoint(s);
    const StepPrice price = pricer.Price(s.features, point);
    if (!price.priced || !(price.ms > 0)) continue;
    SlowProbePoint& p = by_point[point];
    p.point = point;
    p.measured_ms += s.ms;
    p.priced_ms += price.ms;
  }
  std::vector<SlowProbePoint> slow;
  for (const auto& [point, p] : by_point) {
    if (p.priced_ms > 0 && p.Ratio() > limit) slow.push_back(p);
  }
  std::sort(slow.begin(), slow.end(),
            [](const SlowProbePoint& a, const SlowProbePoint& b) { return a.Ratio() > b.Ratio(); });
  return slow;
}

void ScalePointSamples(LatencyCalibration* calibration, const std::string& point, double factor) {
  for (CalibrationSample& s : calibration->samples) {
    if (SamplePoint(s) == point) s.ms *= factor;
  }
}

ReferenceDrift DriftWithFirstRunScaled(ReferenceDrift measured, double first_scale) {
  // ms = sqrt(first * last), last = first * (1 + drift).
  const double first = measured.ms / std::sqrt(1 + measured.drift);
  const double last = first * (1 + measured.drift), scaled = first * first_scale;
  return {last / scaled - 1, std::sqrt(scaled * last)};
}

}  // namespace ntpb
