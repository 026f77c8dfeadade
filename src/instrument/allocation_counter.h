// Heap allocation counting (the memory counter source, Google Benchmark's MemoryManager).
#pragma once

#include <cstddef>
#include <cstdint>

namespace ntpb::instrument {

struct HeapState {
  int64_t live_bytes = 0;  // allocated through operator new and not yet freed
  int64_t peak_bytes = 0;  // highest live_bytes since the last ResetHeapPeak()
};

HeapState CurrentHeap();
void ResetHeapPeak();

// Whether this program counts allocations: it links ntpbench::allocation_counter, whose
// replacement operator new calls these. Without it every count stays 0, which must not be
// reported as "no allocations".
bool AllocationCountingInstalled();
void MarkAllocationCountingInstalled();
// malloc (aligned_alloc for `align` beyond max_align_t) with the allocation counted; null on
// failure.
void* CountedAllocate(std::size_t n, std::size_t align) noexcept;
void CountedRelease(void* p) noexcept;

}  // namespace ntpb::instrument
