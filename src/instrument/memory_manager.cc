#include "ntpbench/memory_manager.h"

#include "ntpbench/counters.h"
#include "src/instrument/allocation_counter.h"

namespace ntpb {

void AllocationMemoryManager::Start() {
  const AllocationCounts a = CurrentAllocations();
  count_ = a.count;
  bytes_ = a.bytes;
  live_ = instrument::CurrentHeap().live_bytes;
  instrument::ResetHeapPeak();
}

void AllocationMemoryManager::Stop(Result* result) {
  const AllocationCounts a = CurrentAllocations();
  const instrument::HeapState heap = instrument::CurrentHeap();
  result->num_allocs = a.count - count_;
  result->total_allocated_bytes = a.bytes - bytes_;
  result->max_bytes_used = heap.peak_bytes - live_;
  result->net_heap_growth = heap.live_bytes - live_;
}

void RegisterAllocationMemoryManager() {
  if (!instrument::AllocationCountingInstalled()) return;  // its numbers would all be 0
  static AllocationMemoryManager manager;
  benchmark::RegisterMemoryManager(&manager);
}

}  // namespace ntpb
