// The results of `ntpbench predict --check`: held-out models predicted from a latency
// calibration and measured on the machine, one row per model and batch. `predict --check -o`
// writes it; `ntpbench report` plots predicted against measured, one colour per machine.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ntpb {

struct PredictionCheckRow {
  std::string model;     // the topology file's name and the params it was set to
  std::string topology;  // its path
  int64_t batch = 1;
  double predicted_ms = 0, low_ms = 0, high_ms = 0;
  int uncalibrated = 0;  // steps the calibration could not price
  std::string dominant;  // the step predicted to take longest, with its share
  // The fastest pass where the check says so (PredictionCheck::fastest_pass), else the median
  // pass; absent: the run failed (`failed` says why).
  std::optional<double> measured_ms;
  double measured_spread = 0;  // the slowest pass over the fastest, less 1
  std::string failed;
  // Each pass's latency and how far apart the cores were in it (core-to-core ns; 0: not
  // measured), in the order they ran.
  struct Pass {
    double ms = 0;
    double core_to_core_ns = 0;
  };
  std::vector<Pass> passes;
  // No pass ran with the cores placed as while calibrated (SameCorePlacement with
  // PredictionCheck::core_to_core_ns): measured_ms is then over every pass, and its error holds
  // what the placement costs. Else only the passes placed alike count.
  bool placed_apart = false;
  // predicted / measured - 1; nullopt where nothing was measured.
  std::optional<double> RelativeError() const;
};

struct PredictionCheck {
  std::string file;         // where it was read from (not serialized)
  std::string calibration;  // the calibration file checked
  std::string machine;      // the machine it was calibrated and checked on, for people
  std::string backend, precision;
  int threads = 0;
  // Each model's fastest pass counts, as its calibration kept each step's fastest pass
  // (LatencyCalibration::passes above 1); else the median pass, as a one-pass calibration
  // measured each step once. Checks from before say neither: the median.
  bool fastest_pass = false;
  // The placement of the cores the calibration was measured in (LatencyCalibration::
  // core_to_core_ns); 0: not recorded.
  double core_to_core_ns = 0;
  std::vector<PredictionCheckRow> rows;
  // Per probe of the calibration, its reference point run again before and after the passes
  // (LatencyCalibration::speed_references): that latency over the calibration's, less 1. Above 0:
  // the machine ran slower at the check than while calibrated, and every prediction is that
  // much fast for a reason that is not the predictor's. Empty where the calibration has none.
  std::map<std::string, double> machine_change;
  // Their median; nullopt when there are none.
  std::optional<double> MedianMachineChange() const;
  // |predicted x scale / measured - 1| of each measured row: with `scale` 1 + the machine's
  // change, the error the predictor would have had on the machine it was calibrated on.
  std::vector<double> ErrorMagnitudes(double scale = 1) const;
  // How many of those are within `bound` (0.10: +-10%).
  int CountWithin(double bound, double scale = 1) const;
};

nlohmann::json PredictionCheckJson(const PredictionCheck& check);
// Whether `doc` is a check's results (its "format").
bool IsPredictionCheck(const nlohmann::json& doc);
// Throws ntpb::Error naming the file and the field.
PredictionCheck ParsePredictionCheck(const std::string& text, const std::string& file);
PredictionCheck ReadPredictionCheck(const std::string& path);

}  // namespace ntpb
