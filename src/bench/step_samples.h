// Each step's time in each of the first iterations of a timed loop, kept so that a step's or a
// marker's headline is a median with its range (a mean hides a slow tail and is pulled above
// the median by one descheduled iteration).
#pragma once

#include <cstdint>
#include <vector>

namespace ntpb::bench {

// A region's distribution over the kept iterations (nearest-rank median, as statistics.h's).
struct SampleSummary {
  double p50_ns = 0, min_ns = 0, max_ns = 0;
};

class StepSamples {
 public:
  // Room for min(iterations, kMaxCells / steps) iterations of `steps` steps (at least one),
  // zeroed here so that no page is first touched inside the timed loop.
  StepSamples(int64_t iterations, std::size_t steps);

  // Where iteration `i` writes its step times; nullptr beyond the kept iterations.
  int64_t* Row(int64_t i) {
    return i < rows_ ? data_.data() + static_cast<std::size_t>(i) * steps_ : nullptr;
  }
  void Kept(int64_t iterations) { used_ = iterations < rows_ ? iterations : rows_; }
  int64_t used() const { return used_; }

  // The distribution of the summed time of `steps` per kept iteration (one step: its own).
  SampleSummary Summary(const std::vector<std::size_t>& steps) const;

  // 8 MiB of samples: a 100-step network keeps its first 10485 iterations, a 4-step one 65536.
  static constexpr std::size_t kMaxCells = std::size_t{1} << 20;
  static constexpr int64_t kMaxRows = 1 << 16;

 private:
  std::size_t steps_;
  int64_t rows_;
  int64_t used_ = 0;
  std::vector<int64_t> data_;
};

}  // namespace ntpb::bench
