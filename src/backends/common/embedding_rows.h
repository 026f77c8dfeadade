// The rows an embedding copies, shared by every backend: ids are floats holding integers; a
// negative id counts from the end (ONNX Gather), and one that is no integer in [-vocab, vocab)
// stops the run naming the layer (a silently clamped id would be a wrong number).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "ntpbench/error.h"

namespace ntpb {

// The row of one id: an error naming the layer and the id's position unless it is an integer
// in [-vocab, vocab).
inline int64_t EmbeddingRow(float v, int64_t position, int64_t vocab, const std::string& layer) {
  if (!(v >= -static_cast<float>(vocab) && v < static_cast<float>(vocab)) || v != std::trunc(v)) {
    throw Error("", layer, "inputs",
                "id " + std::to_string(v) + " at position " + std::to_string(position) +
                    " is not an integer in [-" + std::to_string(vocab) + ", " +
                    std::to_string(vocab) + ") (the table's rows)");
  }
  return v < 0 ? static_cast<int64_t>(v) + vocab : static_cast<int64_t>(v);
}

inline void EmbeddingRows(const float* ids, int64_t count, const float* table, int64_t vocab,
                          int64_t dim, float* out, const std::string& layer) {
  for (int64_t i = 0; i < count; ++i) {
    const int64_t row = EmbeddingRow(ids[i], i, vocab, layer);
    std::memcpy(out + i * dim, table + row * dim, sizeof(float) * static_cast<size_t>(dim));
  }
}

}  // namespace ntpb
