// The heap allocation counts: a relaxed atomic add per allocation, plus the live and peak heap
// bytes for Google Benchmark's MemoryManager. Fed only where the program links
// ntpbench::allocation_counter (operator_new_replacement.cc), which replaces the global
// operator new/delete. (malloc calls made directly, e.g. by Eigen's aligned allocator, are not
// seen.)
#include "src/instrument/allocation_counter.h"

#include <malloc.h>

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

#include "ntpbench/counters.h"

namespace ntpb {
namespace {

std::atomic<int64_t> g_count{0};
std::atomic<int64_t> g_bytes{0};
std::atomic<int64_t> g_live{0};
std::atomic<int64_t> g_peak{0};
std::atomic<bool> g_installed{false};

}  // namespace

namespace instrument {

void* CountedAllocate(std::size_t n, std::size_t align) noexcept {
  void* p = align > alignof(std::max_align_t)
                ? std::aligned_alloc(align, (n + align - 1) / align * align)
                : std::malloc(n ? n : 1);
  if (!p) return nullptr;
  const auto usable = static_cast<int64_t>(malloc_usable_size(p));
  g_count.fetch_add(1, std::memory_order_relaxed);
  g_bytes.fetch_add(static_cast<int64_t>(n), std::memory_order_relaxed);
  const int64_t live = g_live.fetch_add(usable, std::memory_order_relaxed) + usable;
  int64_t peak = g_peak.load(std::memory_order_relaxed);
  while (live > peak && !g_peak.compare_exchange_weak(peak, live, std::memory_order_relaxed)) {
  }
  return p;
}

void CountedRelease(void* p) noexcept {
  if (!p) return;
  g_live.fetch_sub(static_cast<int64_t>(malloc_usable_size(p)), std::memory_order_relaxed);
  std::free(p);
}

void MarkAllocationCountingInstalled() { g_installed.store(true); }

bool AllocationCountingInstalled() { return g_installed.load(); }

}  // namespace instrument

AllocationCounts CurrentAllocations() {
  return {g_count.load(std::memory_order_relaxed), g_bytes.load(std::memory_order_relaxed)};
}

namespace instrument {

HeapState CurrentHeap() {
  return {g_live.load(std::memory_order_relaxed), g_peak.load(std::memory_order_relaxed)};
}

void ResetHeapPeak() { g_peak.store(g_live.load(std::memory_order_relaxed)); }

}  // namespace instrument
}  // namespace ntpb
