#include "src/backends/onednn/activation_pool.h"

#include <algorithm>
#include <cstdlib>

#include "ntpbench/error.h"

namespace ntpb::onednn {
ActivationPool::ActivationPool(const TensorUses& uses, bool reuse, HugePageArena* arena)
    : uses_(uses), reuse_(reuse), arena_(arena) {}

dnnl::memory ActivationPool::Allocate(const dnnl::memory::desc& desc, const std::string& tensor,
                                      const std::string& lifetime_of, int index,
                                      const dnnl::engine& engine) {
  const size_t size = std::max<size_t>(desc.get_size(), 1);
  const int last = std::max(index, uses_.LastUse(lifetime_of));
  Buffer* chosen = nullptr;
  if (reuse_) {
    // Free: every tenant's last reader runs before this step. Of those big enough, the one
    // released last (hot in cache); among equals, the smallest.
    for (Buffer& b : buffers_) {
      if (b.free_after >= index || b.size < size) continue;
      if (!chosen || b.free_after > chosen->free_after ||
          (b.free_after == chosen->free_after && b.size < chosen->size)) {
        chosen = &b;
      }
    }
  }
  if (!chosen) {
    void* p = nullptr;
    try {
      p = arena_->Allocate(size);
    } catch (const std::bad_alloc&) {
      throw Error("", tensor, "memory", "could not allocate " + std::to_string(size) + " B");
    }
    buffers_.push_back({p, size});
    chosen = &buffers_.back();
  }
  chosen->free_after = last;
  ++chosen->generation;
  chosen->tenants.push_back(tensor);
  chosen->generation_of_tenant.push_back(chosen->generation);
  home_[tensor] = {static_cast<size_t>(chosen - buffers_.data()), chosen->generation};
  return dnnl::memory(desc, engine, chosen->data);
}

ActivationPool::Buffer* ActivationPool::Owner(const void* ptr) {
  const char* p = static_cast<const char*>(ptr);
  for (Buffer& b : buffers_) {
    const char* base = static_cast<const char*>(b.data);
    if (p >= base && p < base + b.size) return &b;
  }
  return nullptr;
}

void ActivationPool::Share(const std::string& tensor, const dnnl::memory& mem) {
  Buffer* b = Owner(mem.get_data_handle());
  if (!b) return;  // a graph input's memory, or one of its own
  b->free_after = std::max(b->free_after, uses_.LastUse(tensor));
  b->tenants.push_back(tensor);
  b->generation_of_tenant.push_back(b->generation);
  home_[tensor] = {static_cast<size_t>(b - buffers_.data()), b->generation};
}

std::string ActivationPool::ReusedBy(const std::string& tensor) const {
  auto it = home_.find(tensor);
  if (it == home_.end()) return "";
  const Buffer& b = buffers_[it->second.first];
  for (size_t i = 0; i < b.tenants.size(); ++i) {
    if (b.generation_of_tenant[i] > it->second.second) return b.tenants[i];
  }
  return "";
}

int64_t ActivationPool::bytes() const {
  int64_t total = 0;
  for (const Buffer& b : buffers_) total += static_cast<int64_t>(b.size);
  return total;
}

}  // namespace ntpb::onednn
