// attention and rotary: per (item, head) a product of q and k, the masked softmax of each row and
// a product with v, the heads read and written in place in their [N, S, heads x size] tensors.
#include <algorithm>
#include <limits>
#include <memory>

#include "ntpbench/error.h"
#include "src/backends/common/attention_geometry.h"
#include "src/backends/eigen/kernels.h"

namespace ntpb::eigen {
namespace {

using Strided = Eigen::Map<RowMatrix, 0, Eigen::OuterStride<>>;
using ConstStrided = Eigen::Map<const RowMatrix, 0, Eigen::OuterStride<>>;

Kernel MakeAttention(const KernelArgs& a) {
  const AttentionGeometry built = AttentionGeometry::Of(a.layer);
  const bool cached = ReadsKvCache(*a.topology, a.layer);
  const int64_t* shift = a.position_shift;
  const AttentionGeometry& g = built;
  const float *q = a.inputs[0], *k = a.inputs[1], *v = a.inputs[2];
  const float* mask = g.padding_mask ? a.inputs[3] : nullptr;
  float* out = a.output;
  // Heads are shared out among the threads in contiguous runs, each with its own scores.
  const int threads =
      static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(a.threads, g.batch * g.heads)));
  a.scratch->Require(threads * g.queries * g.keys);
  Scratchpad* scratch = a.scratch;
  return [=] {
    // Over a cache, the keys appended so far: fewer earlier in a generation.
    const AttentionGeometry g = cached ? built.Shifted(*shift) : built;
    const int64_t units = g.batch * g.heads;
    const int64_t per_thread = (units + threads - 1) / threads;
#pragma omp parallel for num_threads(threads)
    for (int t = 0; t < threads; ++t) {
      float* scores = scratch->data() + t * g.queries * g.keys;
      for (int64_t u = t * per_thread; u < std::min(units, (t + 1) * per_thread); ++u) {
        const int64_t n = u / g.heads, h = u % g.heads, kvh = h / g.group();
        ConstStrided qh(q + n * g.queries * g.q_width() + h * g.head_size, g.queries, g.head_size,
                        Eigen::OuterStride<>(g.q_width()));
        ConstStrided kh(k + n * g.key_rows * g.k_width() + kvh * g.head_size, g.keys, g.head_size,
                        Eigen::OuterStride<>(g.k_width()));
        ConstStrided vh(v + n * g.key_rows * g.v_width() + kvh * g.value_size, g.keys, g.value_size,
                        Eigen::OuterStride<>(g.v_width()));
        MatrixMap s(scores, g.queries, g.keys);
        s.noalias() = (qh * kh.transpose()) * g.scale;
        for (int64_t i = 0; i < g.queries; ++i) {
          float* row = scores + i * g.keys;
          const int64_t last = g.LastKey(i);
          float top = -std::numeric_limits<float>::infinity();
          for (int64_t j = 0; j < g.keys; ++j) {
            if (j > last || (mask && mask[n * g.key_rows + j] == 0.0f)) {
              row[j] = -std::numeric_limits<float>::infinity();
            } else {
              top = std::max(top, row[j]);
            }
          }
          if (top == -std::numeric_limits<float>::infinity()) {  // no key seen: zeros
            std::fill(row, row + g.keys, 0.0f);
            continue;
          }
          float sum = 0.0f;
          for (int64_t j = 0; j < g.keys; ++j) {
            row[j] = std::exp(row[j] - top);
            sum += row[j];
          }
          const float inv = 1.0f / sum;
          for (int64_t j = 0; j < g.keys; ++j) row[j] *= inv;
        }
        Strided(out + n * g.queries * g.out_width() + h * g.value_size, g.queries, g.value_size,
                Eigen::OuterStride<>(g.out_width()))
            .noalias() = s * vh;
      }
    }
  };
}

// The angles from the earliest position a shift can reach (offset - past) to the resolved
// ones, so that a shifted run reads its rows further into the same table.
Kernel MakeRotary(const KernelArgs& a) {
  const Shape& in = a.layer.input_shapes[0];
  const int64_t n = in[0], rows = in[1], heads = a.layer.attrs.Int("heads");
  const int64_t d = in[2] / heads, offset = a.layer.attrs.Int("offset");
  const bool interleaved = a.layer.attrs.Str("style") == "interleaved";
  auto table =
      std::make_shared<const RotaryTable>(0, offset + rows, d, a.layer.attrs.Float("base"));
  const float* x = a.inputs[0];
  float* y = a.output;
  const int64_t* shift = a.position_shift;
  const std::string name = a.layer.name;
  return [=] {
    std::copy(x, x + NumElements(in), y);
    const int64_t first = offset + *shift;
    if (first < 0) throw Error("", name, "offset", "shifted before position 0");
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t p = 0; p < rows; ++p) {
        const float* c = table->cos.data() + (first + p) * (d / 2);
        const float* s = table->sin.data() + (first + p) * (d / 2);
        for (int64_t h = 0; h < heads; ++h) {
          RotateHead(y + ((i * rows + p) * heads + h) * d, c, s, d, interleaved);
        }
      }
    }
  };
}

// Appends the input's rows at the cache's current end; the rows before stay as earlier
// inferences left them.
Kernel MakeKvCache(const KernelArgs& a) {
  const Shape& in = a.layer.input_shapes[0];
  const int64_t n = in[0], rows = in[1], width = in[2], capacity = a.layer.output_shapes[0][1];
  const float* x = a.inputs[0];
  float* cache = a.output;
  const int64_t* shift = a.position_shift;
  const ResolvedLayer* layer = &a.layer;
  return [=] {
    const int64_t at = CacheWriteRow(*layer, *shift);
    for (int64_t i = 0; i < n; ++i) {
      std::copy(x + i * rows * width, x + (i + 1) * rows * width,
                cache + (i * capacity + at) * width);
    }
  };
}

}  // namespace

void AddAttentionKernels(KernelTable* table) {
  (*table)["attention"] = MakeAttention;
  (*table)["rotary"] = MakeRotary;
  (*table)["kv_cache"] = MakeKvCache;
}

}  // namespace ntpb::eigen
