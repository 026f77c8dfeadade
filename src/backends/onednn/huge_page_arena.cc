#include "src/backends/onednn/huge_page_arena.h"

#include <cstdlib>
#include <new>

#include "src/common/huge_pages.h"

namespace ntpb::onednn {

namespace {

constexpr size_t kAlignment = 64;

size_t RoundUp(size_t n, size_t to) { return (n + to - 1) / to * to; }

}  // namespace

HugePageArena::~HugePageArena() {
  for (void* p : blocks_) FreeHugePages(p);  // std::free, as for aligned_alloc's
}

void* HugePageArena::Allocate(size_t bytes) {
  const size_t size = RoundUp(bytes > 0 ? bytes : 1, kAlignment);
  auto take = [&](size_t block) {
    // 2 MiB aligned and marked for huge pages before the first touch (huge_pages.h).
    void* p = huge_pages_ ? AllocateHugePages(block) : std::aligned_alloc(kAlignment, block);
    if (!p) throw std::bad_alloc();
    blocks_.push_back(p);
    reserved_ += block;
    return static_cast<char*>(p);
  };
  if (size > kBlock / 2) return take(RoundUp(size, kPage));  // a block of its own
  if (size > left_) {  // a new block; what the last one has left stays unused
    next_ = take(kBlock);
    left_ = kBlock;
  }
  void* out = next_;
  next_ += size;
  left_ -= size;
  return out;
}

}  // namespace ntpb::onednn
