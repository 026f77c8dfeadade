// The memory an executable keeps for its life (weights in the layouts its primitives want,
// activation buffers, workspace), carved from large blocks that the kernel is asked to back by
// 2 MiB pages (src/common/huge_pages.h: transparent huge pages, madvise(MADV_HUGEPAGE)), where
// oneDNN's own allocations would be 4 KiB pages: at batch 1 a CNN's weights come from memory at
// every inference, and one TLB entry then covers 512 times the bytes. On a 2-core Intel Xeon KVM
// guest with AMX (THP in `madvise` mode), ResNet-50 f32 at batch 1 ran 25.11 against 25.64 ms
// and 25.53 against 26.05 (6 and 8 rounds A B A B, p50), near the 25.01 of every allocation of
// the process on such pages (THP `always`); BERT and DeepSpeech did not move beyond their noise
// under `always`. Where THP is off (or the option onednn.huge_pages=off) the blocks are ordinary
// memory.
#pragma once

#include <cstddef>
#include <vector>

#include "src/common/huge_pages.h"

namespace ntpb::onednn {

class HugePageArena {
 public:
  // `huge_pages` false (option huge_pages=off): the blocks are ordinary memory.
  explicit HugePageArena(bool huge_pages) : huge_pages_(huge_pages) {}
  HugePageArena(const HugePageArena&) = delete;
  HugePageArena& operator=(const HugePageArena&) = delete;
  ~HugePageArena();

  // `bytes` aligned to 64 (a cache line, as oneDNN aligns its own), kept until the arena goes;
  // throws std::bad_alloc where there is no memory.
  void* Allocate(size_t bytes);
  // Bytes of the blocks taken from the system so far.
  size_t reserved() const { return reserved_; }

  static constexpr size_t kPage = kHugePageBytes;
  // A block holds many tensors: 32 MiB, or one larger tensor rounded up to whole pages.
  static constexpr size_t kBlock = size_t{32} << 20;

 private:
  bool huge_pages_;
  std::vector<void*> blocks_;
  char* next_ = nullptr;
  size_t left_ = 0;
  size_t reserved_ = 0;
};

}  // namespace ntpb::onednn
