// What every backend's attention and rotary kernels share: the sizes read from the resolved
// layer, which keys a query sees, and the rotary angles, so that all backends mask and turn
// exactly alike.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "ntpbench/error.h"
#include "ntpbench/resolve.h"

namespace ntpb {

struct AttentionGeometry {
  int64_t batch = 0, queries = 0, keys = 0;  // N, Sq, Sk (the keys a query may see)
  int64_t key_rows = 0;  // rows of k and v per item in memory: Sk, a cache's whole capacity
  int64_t heads = 0, kv_heads = 0;        // H, Hkv
  int64_t head_size = 0, value_size = 0;  // D, Dv
  float scale = 1.0f;
  bool causal = false;
  bool padding_mask = false;  // a fourth input [N, Sk]: 0 = the key is masked

  static AttentionGeometry Of(const ResolvedLayer& l) {
    AttentionGeometry g;
    const Shape &q = l.input_shapes[0], &k = l.input_shapes[1], &v = l.input_shapes[2];
    g.batch = q[0];
    g.queries = q[1];
    g.keys = k[1];
    g.key_rows = k[1];
    g.heads = l.attrs.Int("heads");
    g.kv_heads = l.attrs.Int("kv_heads");
    g.head_size = q[2] / g.heads;
    g.value_size = v[2] / g.kv_heads;
    g.scale = static_cast<float>(l.attrs.Float("scale"));
    g.causal = l.attrs.Bool("causal");
    g.padding_mask = l.input_shapes.size() == 4;
    return g;
  }
  // The geometry of an inference run `shift` (<= 0) positions earlier
  // (Executable::SetPositionShift) over keys from a cache: fewer of its rows are valid yet.
  AttentionGeometry Shifted(int64_t shift) const {
    AttentionGeometry g = *this;
    g.keys = key_rows + shift;
    return g;
  }
  // Query heads per key/value head; query head h reads key/value head h / group().
  int64_t group() const { return heads / kv_heads; }
  // Keys 0..LastKey(i) are before or at query i's position (the queries are the last Sq).
  int64_t LastKey(int64_t query) const { return causal ? keys - queries + query : keys - 1; }
  int64_t q_width() const { return heads * head_size; }
  int64_t k_width() const { return kv_heads * head_size; }
  int64_t v_width() const { return kv_heads * value_size; }
  int64_t out_width() const { return heads * value_size; }
};

// Whether an attention layer's keys and values come from kv_cache layers: then its valid keys
// follow the run's position shift (the cache holds fewer rows earlier in a generation).
inline bool ReadsKvCache(const ResolvedTopology& t, const ResolvedLayer& attention) {
  for (const ResolvedLayer& l : t.layers) {
    if (l.op == "kv_cache" && l.outputs[0] == attention.inputs[1]) return true;
  }
  return false;
}

// How far back a run may be shifted (Executable::SetPositionShift): the smallest `past` of the
// kv_cache layers (0 without any: such a topology runs at its resolved positions only).
inline int64_t ShiftReach(const ResolvedTopology& t) {
  int64_t reach = -1;
  for (const ResolvedLayer& l : t.layers) {
    if (l.op != "kv_cache") continue;
    const int64_t past = l.attrs.Int("past");
    reach = reach < 0 ? past : std::min(reach, past);
  }
  return std::max<int64_t>(reach, 0);
}

// Throws ntpb::Error unless -reach <= shift <= 0.
inline void CheckPositionShift(int64_t shift, int64_t reach) {
  if (shift > 0 || shift < -reach) {
    throw Error("", "", "position shift",
                std::to_string(shift) + " is outside [-" + std::to_string(reach) +
                    ", 0]: a cache cannot start before its first row or grow past its capacity");
  }
}

// The row a kv_cache layer appends at, `shift` positions before the one it was resolved for.
inline int64_t CacheWriteRow(const ResolvedLayer& kv_cache, int64_t shift) {
  return kv_cache.attrs.Int("past") + shift;
}

// A query that sees no key (every key it may see is padding) outputs zeros, on every backend
// (PyTorch's scaled_dot_product_attention gives NaN there; a zero row cannot poison what follows).

// cos and sin of rotary's angles for `rows` positions from `offset`: [rows, D/2], pair j of
// position p turned by p * base^(-2j/D). Computed in double, so all backends turn alike.
struct RotaryTable {
  std::vector<float> cos, sin;
  RotaryTable(int64_t offset, int64_t rows, int64_t head_size, double base) {
    const int64_t half = head_size / 2;
    cos.resize(static_cast<size_t>(rows * half));
    sin.resize(cos.size());
    for (int64_t p = 0; p < rows; ++p) {
      for (int64_t j = 0; j < half; ++j) {
        const double angle = static_cast<double>(offset + p) *
                             std::pow(base, -2.0 * static_cast<double>(j) / head_size);
        cos[p * half + j] = static_cast<float>(std::cos(angle));
        sin[p * half + j] = static_cast<float>(std::sin(angle));
      }
    }
  }
};

// Where the two features of rotary's pair j lie in a head of `head_size`: (j, j + D/2) in the
// "half" style, (2j, 2j + 1) in the "interleaved" one.
inline int64_t RotaryFirst(bool interleaved, int64_t j) { return interleaved ? 2 * j : j; }
inline int64_t RotarySecond(bool interleaved, int64_t j, int64_t head_size) {
  return interleaved ? 2 * j + 1 : j + head_size / 2;
}

// Turns one head's features in place: (a, b) -> (a cos - b sin, b cos + a sin).
inline void RotateHead(float* x, const float* cos, const float* sin, int64_t head_size,
                       bool interleaved) {
  for (int64_t j = 0; j < head_size / 2; ++j) {
    float& a = x[RotaryFirst(interleaved, j)];
    float& b = x[RotarySecond(interleaved, j, head_size)];
    const float a0 = a, b0 = b;
    a = a0 * cos[j] - b0 * sin[j];
    b = b0 * cos[j] + a0 * sin[j];
  }
}

}  // namespace ntpb
