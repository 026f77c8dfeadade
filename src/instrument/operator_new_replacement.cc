// The global operator new/delete, replaced so that every heap allocation is counted
// (allocation_counter.h). Its own library, ntpbench::allocation_counter, so that only programs
// that want allocation counters get a replaced operator new: suites built with ntpbench_main, the
// ntpbench CLI and the tests link it; a program that links only ntpbench::ntpbench keeps its own
// allocator and its memory counters say they are unavailable.
#include <cstddef>
#include <new>

#include "src/instrument/allocation_counter.h"

namespace {

void* AllocateOrThrow(std::size_t n, std::size_t align) {
  void* p = ntpb::instrument::CountedAllocate(n, align);
  if (!p) throw std::bad_alloc();
  return p;
}

// Tells the counter readers that the counts are real (before main, and before any counter reads).
const bool kInstalled = (ntpb::instrument::MarkAllocationCountingInstalled(), true);

}  // namespace

// The library is linked with --undefined=ntpb_allocation_counter_anchor, so that a static
// archive still contributes this object even where nothing else refers to it.
extern "C" {
extern const int ntpb_allocation_counter_anchor;
const int ntpb_allocation_counter_anchor = 1;
}

using ntpb::instrument::CountedAllocate;
using ntpb::instrument::CountedRelease;

void* operator new(std::size_t n) { return AllocateOrThrow(n, 0); }
void* operator new[](std::size_t n) { return AllocateOrThrow(n, 0); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return CountedAllocate(n, 0); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  return CountedAllocate(n, 0);
}
void* operator new(std::size_t n, std::align_val_t a) {
  return AllocateOrThrow(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a) {
  return AllocateOrThrow(n, static_cast<std::size_t>(a));
}
void operator delete(void* p) noexcept { CountedRelease(p); }
void operator delete[](void* p) noexcept { CountedRelease(p); }
void operator delete(void* p, std::size_t) noexcept { CountedRelease(p); }
void operator delete[](void* p, std::size_t) noexcept { CountedRelease(p); }
void operator delete(void* p, std::align_val_t) noexcept { CountedRelease(p); }
void operator delete[](void* p, std::align_val_t) noexcept { CountedRelease(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { CountedRelease(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { CountedRelease(p); }
