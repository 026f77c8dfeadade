// Converted weights shared by the topologies one ONNX model is read into at several sizes
// (Topology::rebind reads the model again for each binding of its symbolic dims): a large weight
// equal to one an earlier reading converted becomes that one's storage, so a run or sweep over
// batch sizes and sequence lengths holds a model's weights once, not once per binding.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

namespace ntpb::onnx_import {

class WeightPool {
 public:
  // Weights of fewer elements are not worth comparing: returned as given.
  static constexpr size_t kMinElements = size_t{1} << 16;

  // `values`, or an equal weight already in the pool (and still held by some topology).
  std::shared_ptr<std::vector<float>> Intern(std::shared_ptr<std::vector<float>> values) {
    if (!values || values->size() < kMinElements) return values;
    const std::string_view bytes(reinterpret_cast<const char*>(values->data()),
                                 values->size() * sizeof(float));
    const uint64_t hash = std::hash<std::string_view>()(bytes);
    const std::lock_guard<std::mutex> lock(mutex_);
    auto [first, last] = by_hash_.equal_range(hash);
    for (auto it = first; it != last;) {
      std::shared_ptr<std::vector<float>> held = it->second.lock();
      if (!held) {  // every topology that used it is gone
        it = by_hash_.erase(it);
        continue;
      }
      // Bit for bit (memcmp, not ==: a NaN weight equals itself here).
      if (held->size() == values->size() &&
          std::memcmp(held->data(), values->data(), bytes.size()) == 0) {
        return held;
      }
      ++it;
    }
    by_hash_.emplace(hash, values);
    return values;
  }

 private:
  std::mutex mutex_;
  std::multimap<uint64_t, std::weak_ptr<std::vector<float>>> by_hash_;
};

}  // namespace ntpb::onnx_import
