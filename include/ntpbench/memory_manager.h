// Google Benchmark MemoryManager backed by ntpbench's allocation counter: JSON gets
// allocs_per_iter, max_bytes_used (peak heap during the run) and total/net heap bytes.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>

namespace ntpb {

class AllocationMemoryManager : public benchmark::MemoryManager {
 public:
  void Start() override;
  void Stop(Result* result) override;

 private:
  int64_t count_ = 0, bytes_ = 0, live_ = 0;
};

// Registers one process-wide instance with benchmark::RegisterMemoryManager, where the program
// counts allocations (links ntpbench::allocation_counter); elsewhere does nothing.
void RegisterAllocationMemoryManager();

}  // namespace ntpb
