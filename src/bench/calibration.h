#pragma once

namespace ntpb::bench {

inline constexpr const char* kCalibrationPrefix = "ntpbench_calibration/";

// Registers ntpbench_calibration/compute and /memory (with --ntpb_calibration).
void RegisterCalibrationBenchmarks();

}  // namespace ntpb::bench
