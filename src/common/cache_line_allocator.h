// std::vector storage aligned to a cache line (64 bytes): a kernel's 64-byte vector loads then
// never straddle two lines. malloc's 16-byte alignment split every 64-byte load of the w4 panels
// (weight_only_dense.cc).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <new>

namespace ntpb {

template <typename T>
struct CacheLineAllocator {
  using value_type = T;
  static constexpr std::size_t kAlign = 64;
  CacheLineAllocator() = default;
  template <typename U>
  CacheLineAllocator(const CacheLineAllocator<U>&) {}  // NOLINT: rebinding, as std allocators do
  T* allocate(std::size_t n) {
    const std::size_t bytes =
        (std::max<std::size_t>(n * sizeof(T), 1) + kAlign - 1) / kAlign * kAlign;
    void* p = std::aligned_alloc(kAlign, bytes);
    if (p == nullptr) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t) { std::free(p); }
  template <typename U>
  bool operator==(const CacheLineAllocator<U>&) const {
    return true;
  }
  template <typename U>
  bool operator!=(const CacheLineAllocator<U>&) const {
    return false;
  }
};

}  // namespace ntpb
