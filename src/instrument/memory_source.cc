// Heap allocations (count and bytes) per region, and Google Benchmark's MemoryManager for the
// whole run (allocations per iteration, peak heap, heap growth).
#include "ntpbench/counters.h"
#include "src/instrument/allocation_counter.h"
#include "src/instrument/sources.h"

namespace ntpb::instrument {
namespace {

class MemorySource : public CounterSource {
 public:
  std::string name() const override { return "memory"; }
  const std::vector<std::string>& metrics() const override {
    // The network's pair becomes the memory signature's (bench puts it in the results model).
    static const std::vector<std::string> m = {kAllocationsMetric, kAllocatedBytesMetric};
    return m;
  }
  void Start() override { start_ = CurrentAllocations(); }
  void Read(double* values) override {
    const AllocationCounts now = CurrentAllocations();
    values[0] = static_cast<double>(now.count - start_.count);
    values[1] = static_cast<double>(now.bytes - start_.bytes);
  }

 private:
  AllocationCounts start_;
};

}  // namespace

std::unique_ptr<CounterSource> MakeMemorySource(std::string* why) {
  if (!AllocationCountingInstalled()) {
    *why =
        "this program does not count heap allocations (link ntpbench::allocation_counter, "
        "as suites built with ntpbench_main and the ntpbench CLI do)";
    return nullptr;
  }
  return std::make_unique<MemorySource>();
}

}  // namespace ntpb::instrument
