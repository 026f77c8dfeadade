// Memory for large buffers that are streamed from DRAM again and again (a recurrence's weights,
// the bandwidth probes of `ntpbench machine`), on 2 MiB pages where the kernel grants them:
// aligned to 2 MiB and marked MADV_HUGEPAGE, which transparent huge pages in `madvise` mode
// (Debian's default) honour. On a 2-core AMD EPYC VM (Zen 5) a two-thread read of 256 MiB ran at
// 35-37 GB/s on 2 MiB pages against 31-32 GB/s on 4 KiB pages: a TLB miss every 4 KiB, and
// hardware prefetchers that stop at each 4 KiB page boundary, cost a stream about an eighth.
// Smaller buffers, and systems without madvise, get ordinary 64-byte aligned memory.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace ntpb {

constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

// Uninitialised memory for `bytes`; free it with FreeHugePages. Throws std::bad_alloc.
inline void* AllocateHugePages(std::size_t bytes) {
  const bool huge = bytes >= kHugePageBytes;
  const std::size_t align = huge ? kHugePageBytes : 64;
  const std::size_t size = (std::max<std::size_t>(bytes, 1) + align - 1) / align * align;
  void* p = std::aligned_alloc(align, size);
  if (p == nullptr) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (huge) madvise(p, size, MADV_HUGEPAGE);  // advice: without THP the pages stay 4 KiB
#endif
  return p;
}
inline void FreeHugePages(void* p) { std::free(p); }

// For std::vector<T, HugePageAllocator<T>>.
template <typename T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) {}  // NOLINT: rebinding, as std allocators do
  T* allocate(std::size_t n) { return static_cast<T*>(AllocateHugePages(n * sizeof(T))); }
  void deallocate(T* p, std::size_t) { FreeHugePages(p); }
  template <typename U>
  bool operator==(const HugePageAllocator<U>&) const {
    return true;
  }
  template <typename U>
  bool operator!=(const HugePageAllocator<U>&) const {
    return false;
  }
};

// An uninitialised array of n T on huge pages: the caller's threads touch it first.
struct HugePageFree {
  void operator()(void* p) const { FreeHugePages(p); }
};
template <typename T>
std::unique_ptr<T[], HugePageFree> NewHugePageArray(std::size_t n) {
  return std::unique_ptr<T[], HugePageFree>(static_cast<T*>(AllocateHugePages(n * sizeof(T))));
}

}  // namespace ntpb
