// Activation memory reused across layers, as a framework's caching allocator or memory planner
// does: a layer's output takes a buffer whose tensors no later layer reads, preferring the one
// released last (its lines are still in cache). Without reuse every tensor of a network has
// its own memory and every output is written to lines evicted long ago (a read for ownership
// from DRAM): MobileNet v2 at batch 1 ran about 10% slower so, with twice the memory.
//
// Buffers are chosen while the network is built, before any primitive captures a pointer, so
// nothing is rebound afterwards. Graph inputs and outputs are never reused.
// The option onednn.reuse=off (NTPB_ONEDNN_REUSE=off) gives every tensor memory of its own (and
// keeps it readable).
#pragma once

#include <dnnl.hpp>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ntpbench/analysis.h"
#include "src/backends/onednn/huge_page_arena.h"

namespace ntpb::onednn {

class ActivationPool {
 public:
  // `uses`: the network's readers and last uses (analysis.h; the pool keeps a reference).
  // `reuse` false (option reuse=off): every tensor keeps its own buffer. Buffers come from
  // `arena` (which must outlive every memory handed out).
  ActivationPool(const TensorUses& uses, bool reuse, HugePageArena* arena);

  // Memory of `desc` for `tensor`, written by the step of layers[index] (or an inlay in front
  // of it) and read up to the last reader of `lifetime_of` (a reordered copy lives as long as
  // its source).
  dnnl::memory Allocate(const dnnl::memory::desc& desc, const std::string& tensor,
                        const std::string& lifetime_of, int index, const dnnl::engine& engine);
  // `tensor` is stored in `mem` (a view, or a result written in place over another tensor):
  // if that is a pooled buffer, it is not reused before `tensor`'s last reader either.
  void Share(const std::string& tensor, const dnnl::memory& mem);

  // The tensor that took over `tensor`'s buffer after its last reader; empty if none did.
  std::string ReusedBy(const std::string& tensor) const;
  // Bytes of all buffers (what the activations occupy after reuse).
  int64_t bytes() const;
  // Whether buffers are reused (the option reuse is not "off").
  bool reusing() const { return reuse_; }

 private:
  struct Buffer {
    void* data = nullptr;  // in the arena
    size_t size = 0;
    int free_after = -1;                         // the last layer that reads a tensor in it
    std::vector<std::string> tenants = {};       // every tensor it held, in order
    std::vector<int> generation_of_tenant = {};  // which allocation each tenant belongs to
    int generation = 0;                          // allocations so far
  };
  Buffer* Owner(const void* ptr);

  const TensorUses& uses_;
  bool reuse_;
  HugePageArena* arena_;
  std::vector<Buffer> buffers_;
  std::map<std::string, std::pair<size_t, int>> home_;  // tensor -> (buffer, generation)
};

}  // namespace ntpb::onednn
