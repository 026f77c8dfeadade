// attention: two batched matmul primitives over the heads read in place through strided
// descriptors ([N, S, heads x D] seen as [N, kv heads, group, S, D]; a key/value head is
// broadcast to its group of query heads), the scale as the first product's output scale, the
// masks as host code over its scores, and a softmax in f32 between them; a decode step's few
// queries over a cache: host code over the keys appended so far (the run's position shift).
// rotary: host code over the shared table (oneDNN 2.6 has no rotary primitive). kv_cache: host
// copies of the new rows into state memory of its own.
#include <omp.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>

#include "src/backends/common/attention_geometry.h"
#include "src/backends/onednn/builder.h"
#include "src/backends/onednn/native_vectors.h"

namespace ntpb::onednn {
namespace {

using dt = memory::data_type;

// Causal attention over many queries runs in blocks of queries, each scoring only the keys up
// to its last query's position: of a square, the blocks touch the lower triangle and the
// diagonal blocks (1024 queries in blocks of 128: 56% of the square), where one product over
// every key would compute and then mask the rest.
int64_t QueryBlock(const AttentionGeometry& g) {
  if (!g.causal || g.queries < 32) return g.queries;
  const int64_t block = (g.queries + 7) / 8;  // about 8 blocks, rounded to 16 rows
  return std::max<int64_t>(16, (block + 15) / 16 * 16);
}

// Activations as host code reads and writes them: f32, or bf16 (the upper half of an f32,
// stored rounded to nearest even).
inline float Load(const float* p, int64_t i) { return p[i]; }
inline float Load(const uint16_t* p, int64_t i) {
  const uint32_t bits = static_cast<uint32_t>(p[i]) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
inline void Store(float* p, int64_t i, float v) { p[i] = v; }
inline void Store(uint16_t* p, int64_t i, float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  bits += 0x7FFFu + ((bits >> 16) & 1u);
  p[i] = static_cast<uint16_t>(bits >> 16);
}

// GCC 12 reports false "may be used uninitialized" inside its AVX-512 intrinsics where they are
// inlined (Eigen's exp, the bf16 loads), as the CMake list of such files says.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

// Attention of a few queries over a cache (a decode step): what bounds it is reading the keys
// and values appended so far (the run's position shift says how many) once. A unit of work is
// one query of one item over a range of key/value heads (all of them, unless items x queries
// leave threads idle: batch 1). Per key/value head, its group's query heads take each key and
// value row once, queries and sums in vector registers (ScoreKeys, AddValues); a head's rows lie
// a whole cache row apart, which the hardware's prefetchers do not follow, so they are asked
// for ahead. Scores in f32 (the query pre-scaled, the key widened), the softmax by Eigen's
// vectorised exp. On the 2-core Intel Xeon guest (AVX-512), against the loop per query head
// and key it replaced (a scalar sum of 16 lanes a key): GPT-2's decode step at batch 8 after
// 384 tokens 0.93 -> 0.40 ms a layer in f32, 0.63 -> 0.22 in bf16; a Llama-1.1B-shaped layer
// (32 heads over 8, past 512) batch 8 2.67 -> 0.44 ms (f32), 1.83 -> 0.33 (bf16), batch 1
// 0.31 -> 0.04 ms. Heads of other widths take generic vector loops over rows in order.
struct CacheUnits {
  int64_t chunks = 1;        // ranges of key/value heads per query
  int64_t kv_per_chunk = 1;  // the largest range
  int64_t count(const AttentionGeometry& g) const { return g.batch * g.queries * chunks; }
  static CacheUnits Of(const AttentionGeometry& g, int threads) {
    CacheUnits u;
    const int64_t rows = g.batch * g.queries;
    u.chunks = std::clamp<int64_t>((2 * threads + rows - 1) / rows, 1, g.kv_heads);
    u.kv_per_chunk = (g.kv_heads + u.chunks - 1) / u.chunks;
    return u;
  }
};

// Floats per thread: each of its query heads' scores, output sum and query, and a sum each.
inline int64_t CachedAttentionScratch(const AttentionGeometry& g, int threads) {
  const int64_t heads = CacheUnits::Of(g, threads).kv_per_chunk * g.group();
  return heads * (g.key_rows + g.value_size + g.head_size + 1);
}

inline Floats LoadAsFloats(const float* p) { return LoadFloats(p); }
inline Floats LoadAsFloats(const uint16_t* p) { return LoadBf16Floats(p); }

template <typename T>
float Dot(const float* q, const T* k, int64_t n) {
  Floats a = {}, b = {};
  int64_t e = 0;
  for (; e + 2 * kLanes <= n; e += 2 * kLanes) {
    a = MulAdd(LoadFloats(q + e), LoadAsFloats(k + e), a);
    b = MulAdd(LoadFloats(q + e + kLanes), LoadAsFloats(k + e + kLanes), b);
  }
  if (e + kLanes <= n) {
    a = MulAdd(LoadFloats(q + e), LoadAsFloats(k + e), a);
    e += kLanes;
  }
  float dot = SumLanes(a + b);
  for (; e < n; ++e) dot += q[e] * Load(k, e);
  return dot;
}

// acc += p * v over n floats.
template <typename T>
void AddScaled(float* acc, float p, const T* v, int64_t n) {
  const Floats pv = Floats{} + p;
  int64_t e = 0;
  for (; e + kLanes <= n; e += kLanes) {
    StoreFloats(acc + e, MulAdd(pv, LoadAsFloats(v + e), LoadFloats(acc + e)));
  }
  for (; e < n; ++e) acc[e] += p * Load(v, e);
}

// A head's keys or values lie a cache row apart (all heads' side by side, for the whole context
// per item): a stride the hardware's prefetchers do not follow, so each row's lines are asked
// for `kRowsAhead` rows before they are read.
constexpr int64_t kRowsAhead = 16;
template <int V, typename T>
inline void PrefetchHead(const T* row) {
  constexpr int64_t kBytes = V * kLanes * sizeof(T);
  for (int64_t b = 0; b < kBytes; b += 64) PrefetchIntoL2(reinterpret_cast<const char*>(row) + b);
}

// A key/value head's `H` query heads of V vectors each, over keys [0, keys) (rows `stride`
// apart): each key's vectors are loaded once for all H heads, whose queries and value sums stay
// in registers. The generic loops above (Dot, AddScaled) take every other shape.
template <int V, int H, typename T>
void ScoreKeys(const float* q, const T* k, int64_t stride, int64_t keys, const float* mask,
               float* scores, int64_t score_stride) {
  Floats qv[H][V];
  for (int c = 0; c < H; ++c) {
    for (int x = 0; x < V; ++x) qv[c][x] = LoadFloats(q + (c * V + x) * kLanes);
  }
  for (int64_t j = 0; j < keys; ++j) {
    if (j + kRowsAhead < keys) PrefetchHead<V>(k + (j + kRowsAhead) * stride);
    if (mask && mask[j] == 0.0f) {
      for (int c = 0; c < H; ++c)
        scores[c * score_stride + j] = -std::numeric_limits<float>::infinity();
      continue;
    }
    Floats kv[V];
    for (int x = 0; x < V; ++x) kv[x] = LoadAsFloats(k + j * stride + x * kLanes);
    for (int c = 0; c < H; ++c) {
      Floats a = qv[c][0] * kv[0];
      for (int x = 1; x < V; ++x) a = MulAdd(qv[c][x], kv[x], a);
      scores[c * score_stride + j] = SumLanes(a);
    }
  }
}

template <int V, int H, typename T>
void AddValues(const float* p, int64_t p_stride, const T* v, int64_t stride, int64_t keys,
               const float* mask, float* acc) {
  Floats a[H][V] = {};
  for (int64_t j = 0; j < keys; ++j) {
    if (j + kRowsAhead < keys) PrefetchHead<V>(v + (j + kRowsAhead) * stride);
    if (mask && mask[j] == 0.0f) continue;
    Floats vv[V];
    for (int x = 0; x < V; ++x) vv[x] = LoadAsFloats(v + j * stride + x * kLanes);
    for (int c = 0; c < H; ++c) {
      const Floats pc = Floats{} + p[c * p_stride + j];
      for (int x = 0; x < V; ++x) a[c][x] = MulAdd(pc, vv[x], a[c][x]);
    }
  }
  for (int c = 0; c < H; ++c) {
    for (int x = 0; x < V; ++x) StoreFloats(acc + (c * V + x) * kLanes, a[c][x]);
  }
}

template <typename T>
struct HeadKernels {
  using Score = void (*)(const float*, const T*, int64_t, int64_t, const float*, float*, int64_t);
  using Add = void (*)(const float*, int64_t, const T*, int64_t, int64_t, const float*, float*);
  Score score = nullptr;
  Add add = nullptr;
  int64_t heads = 0;  // query heads a call takes

  template <int V, int H>
  static HeadKernels Of() {
    return {ScoreKeys<V, H, T>, AddValues<V, H, T>, H};
  }
  template <int V>
  static HeadKernels OfVectors(int64_t group) {
    // At most 16 vectors of sums, which with the key's (and the queries') fit AVX-512's 32
    // registers; a head of 16 vectors spills its queries to the L1.
    if constexpr (4 * V <= 16) {
      if (group % 4 == 0) return Of<V, 4>();
    }
    if constexpr (2 * V <= 16) {
      if (group % 2 == 0) return Of<V, 2>();
    }
    return Of<V, 1>();
  }
  // Kernels for heads of whole vectors (keys and values alike: 64, 80, 96, 128 or 256 wide with
  // AVX-512); none (the generic loops) for any other.
  static HeadKernels For(const AttentionGeometry& g) {
    if (g.head_size != g.value_size || g.head_size % kLanes != 0) return {};
    switch (g.head_size / kLanes) {
      case 1:
        return OfVectors<1>(g.group());
      case 2:
        return OfVectors<2>(g.group());
      case 3:
        return OfVectors<3>(g.group());
      case 4:
        return OfVectors<4>(g.group());
      case 5:
        return OfVectors<5>(g.group());
      case 6:
        return OfVectors<6>(g.group());
      case 8:
        return OfVectors<8>(g.group());
      case 16:
        return OfVectors<16>(g.group());
      default:
        return {};
    }
  }
};

template <typename T>
void CachedAttention(const AttentionGeometry& g, const T* q, const T* k, const T* v,
                     const float* mask, T* out, float* scratch, int threads) {
  const CacheUnits units = CacheUnits::Of(g, threads);
  const int64_t per_thread = CachedAttentionScratch(g, threads);
  const int64_t group = g.group(), d = g.head_size, dv = g.value_size, rows = g.key_rows;
  using Row = Eigen::Map<Eigen::ArrayXf>;
  const HeadKernels<T> blocked = HeadKernels<T>::For(g);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t u = 0; u < units.count(g); ++u) {
    const int64_t n = u / (g.queries * units.chunks), i = u / units.chunks % g.queries;
    const int64_t chunk = u % units.chunks;
    const int64_t kv_first = chunk * g.kv_heads / units.chunks;
    const int64_t kv_end = (chunk + 1) * g.kv_heads / units.chunks;
    const int64_t heads = (kv_end - kv_first) * group, h_first = kv_first * group;
    float* scores = scratch + static_cast<int64_t>(omp_get_thread_num()) * per_thread;
    float* acc = scores + heads * rows;
    float* query = acc + heads * dv;  // the queries in f32, scaled, converted once
    float* sum = query + heads * d;
    const int64_t q_at = (n * g.queries + i) * g.q_width() + h_first * d;
    for (int64_t e = 0; e < heads * d; ++e) query[e] = Load(q, q_at + e) * g.scale;
    const int64_t keys = std::max<int64_t>(0, g.LastKey(i) + 1);  // none: zeros
    const float* item_mask = mask ? mask + n * rows : nullptr;
    if (blocked.score) {
      for (int64_t c = 0; c < heads; c += blocked.heads) {
        blocked.score(query + c * d, k + n * rows * g.k_width() + (kv_first + c / group) * d,
                      g.k_width(), keys, item_mask, scores + c * rows, rows);
      }
    } else {
      for (int64_t j = 0; j < keys; ++j) {
        const T* row = k + (n * rows + j) * g.k_width() + kv_first * d;
        const bool masked = item_mask && item_mask[j] == 0.0f;
        for (int64_t c = 0; c < heads; ++c) {
          scores[c * rows + j] = masked ? -std::numeric_limits<float>::infinity()
                                        : Dot(query + c * d, row + c / group * d, d);
        }
      }
    }
    std::fill(acc, acc + heads * dv, 0.0f);
    for (int64_t c = 0; c < heads; ++c) {
      Row s(scores + c * rows, keys);
      const float top = keys > 0 ? s.maxCoeff() : -std::numeric_limits<float>::infinity();
      sum[c] = 0.0f;
      if (top == -std::numeric_limits<float>::infinity()) continue;  // no key seen: zeros
      s = (s - top).exp();  // a masked key's e^-88 at most (Eigen's exp clamps -inf)
      sum[c] = s.sum();
    }
    if (blocked.add) {
      for (int64_t c = 0; c < heads; c += blocked.heads) {
        blocked.add(scores + c * rows, rows,
                    v + n * rows * g.v_width() + (kv_first + c / group) * dv, g.v_width(), keys,
                    item_mask, acc + c * dv);
      }
    } else {
      for (int64_t j = 0; j < keys; ++j) {
        if (item_mask && item_mask[j] == 0.0f) continue;
        const T* row = v + (n * rows + j) * g.v_width() + kv_first * dv;
        for (int64_t c = 0; c < heads; ++c) {
          if (sum[c] > 0.0f) {
            AddScaled(acc + c * dv, scores[c * rows + j], row + c / group * dv, dv);
          }
        }
      }
    }
    const int64_t o_at = (n * g.queries + i) * g.out_width() + h_first * dv;
    for (int64_t c = 0; c < heads; ++c) {
      const float inverse = sum[c] > 0.0f ? 1.0f / sum[c] : 0.0f;
      for (int64_t e = 0; e < dv; ++e) Store(out, o_at + c * dv + e, acc[c * dv + e] * inverse);
    }
  }
}

#pragma GCC diagnostic pop

// Queries at most this many read a cache through host code that follows the position shift; a
// prefill's many queries run as primitives, at the resolved positions only.
constexpr int64_t kMaxHostQueries = 8;

void BuildCachedAttention(Builder& b, const AttentionGeometry& built) {
  const ResolvedLayer& l = b.layer();
  const memory mq = b.PlainInput(l.inputs[0]), mk = b.PlainInput(l.inputs[1]),
               mv = b.PlainInput(l.inputs[2]);
  memory mask;
  if (built.padding_mask) mask = b.Input(l.inputs[3], PlainDesc(l.input_shapes[3], dt::f32));
  const memory out = b.NewOutput(b.Plain(l.output_shapes[0]));
  // The run's threads, as the backend set them for the compile (one scratch each).
  const int threads = omp_get_max_threads();
  const int64_t floats = threads * CachedAttentionScratch(built, threads);
  const memory scratch = b.Scratch(memory::desc({floats}, dt::f32, memory::format_tag::a));
  const int64_t* shift = b.position_shift();
  const bool bf16 = b.act() == dt::bf16;
  b.AddHost([=] {
    const AttentionGeometry g = built.Shifted(*shift);
    const float* m = g.padding_mask ? static_cast<const float*>(mask.get_data_handle()) : nullptr;
    float* s = static_cast<float*>(scratch.get_data_handle());
    if (bf16) {
      CachedAttention(g, static_cast<const uint16_t*>(mq.get_data_handle()),
                      static_cast<const uint16_t*>(mk.get_data_handle()),
                      static_cast<const uint16_t*>(mv.get_data_handle()), m,
                      static_cast<uint16_t*>(out.get_data_handle()), s, threads);
    } else {
      CachedAttention(g, static_cast<const float*>(mq.get_data_handle()),
                      static_cast<const float*>(mk.get_data_handle()),
                      static_cast<const float*>(mv.get_data_handle()), m,
                      static_cast<float*>(out.get_data_handle()), s, threads);
    }
  });
  b.SetKernel("ntpbench host attention over the cache's appended keys");
}

void BuildAttention(Builder& b) {
  const ResolvedLayer& l = b.layer();
  const AttentionGeometry g = AttentionGeometry::Of(l);
  if (ReadsKvCache(b.topology(), l)) {
    if (g.queries <= kMaxHostQueries) return BuildCachedAttention(b, g);
    b.RefuseShift("layer " + l.name + " attends " + std::to_string(g.queries) +
                  " queries over its cache with primitives built for " + std::to_string(g.keys) +
                  " keys: it runs at the resolved positions only");
  }
  const memory mq = b.PlainInput(l.inputs[0]), mk = b.PlainInput(l.inputs[1]),
               mv = b.PlainInput(l.inputs[2]);
  const dt act = b.act();
  const size_t act_bytes = memory::data_type_size(act);
  const memory::dim n = g.batch, hk = g.kv_heads, gr = g.group(), sq = g.queries, sk = g.keys,
                    d = g.head_size, dv = g.value_size;
  const Shape& out_shape = l.output_shapes[0];
  const memory out = b.NewOutput(b.Plain(out_shape));
  memory mask;
  if (g.padding_mask) mask = b.Input(l.inputs[3], PlainDesc(l.input_shapes[3], dt::f32));
  // Each item's first key that is not padding: a query before it sees no key.
  auto first_key = std::make_shared<std::vector<int64_t>>(static_cast<size_t>(n), 0);
  if (g.padding_mask) {
    b.AddHost([=] {
      const float* m = static_cast<const float*>(mask.get_data_handle());
      for (int64_t i = 0; i < n; ++i) {
        (*first_key)[i] = sk;
        for (int64_t j = sk - 1; j >= 0; --j) {
          if (m[i * sk + j] != 0.0f) (*first_key)[i] = j;
        }
      }
    });
  }
  const int64_t block = QueryBlock(g);
  // One scores buffer serves every block (they run one after the other; the last sees every key).
  // The executable owns them (Builder::Scratch): the blocks' views over them stay valid.
  const memory::dims all_dims = {n, hk, gr, std::min<int64_t>(block, sq), sk};
  const memory scores_all = b.Scratch(memory::desc(all_dims, dt::f32, PlainTag(5)));
  const memory probs_all =
      act == dt::f32 ? scores_all : b.Scratch(memory::desc(all_dims, act, PlainTag(5)));
  std::string kernel;
  for (int64_t first = 0; first < sq; first += block) {
    const memory::dim rows = std::min<int64_t>(block, sq - first);
    const memory::dim keys = g.LastKey(first + rows - 1) + 1;  // all of them when not causal
    // [N, Hkv, group, rows, D] over q's [N, Sq, H*D] from query `first`; k^T [N, Hkv, 1, D,
    // keys] and v [N, Hkv, 1, keys, Dv] over their first `keys` positions.
    const memory::desc q_md({n, hk, gr, rows, d}, act,
                            {sq * g.q_width(), gr * d, d, g.q_width(), 1});
    const memory::desc kt_md({n, hk, 1, d, keys}, act, {sk * g.k_width(), d, d, 1, g.k_width()});
    const memory::desc v_md({n, hk, 1, keys, dv}, act, {sk * g.v_width(), dv, dv, g.v_width(), 1});
    const memory::desc scores_md({n, hk, gr, rows, keys}, dt::f32, PlainTag(5));
    const memory::desc probs_md({n, hk, gr, rows, keys}, act, PlainTag(5));
    const memory::desc o_md({n, hk, gr, rows, dv}, act,
                            {sq * g.out_width(), gr * dv, dv, g.out_width(), 1});
    const memory scores(scores_md, b.engine(), scores_all.get_data_handle());
    const memory probs(probs_md, b.engine(), probs_all.get_data_handle());
    char* q_at = static_cast<char*>(mq.get_data_handle()) + first * g.q_width() * act_bytes;
    char* o_at = static_cast<char*>(out.get_data_handle()) + first * g.out_width() * act_bytes;

    dnnl::primitive_attr qk_attr = UserScratchpad();
    qk_attr.set_output_scales(0, {g.scale});
    dnnl::matmul::primitive_desc qk(dnnl::matmul::desc(q_md, kt_md, scores_md), qk_attr,
                                    b.engine());
    b.AddPrimitive(qk, dnnl::matmul(qk),
                   {{DNNL_ARG_SRC, memory(q_md, b.engine(), q_at)},
                    {DNNL_ARG_WEIGHTS, memory(kt_md, b.engine(), mk.get_data_handle())},
                    {DNNL_ARG_DST, scores}});
    // The masks on the host, over the scores: as binary post-ops oneDNN 2.6 takes its reference
    // matmul (500x slower on GPT-2's heads). A key after the query's position, or padding,
    // scores -inf; the softmax of a row without a key seen is NaN, so such queries are zeroed
    // after the second product.
    const bool diagonal = g.causal && g.LastKey(first) + 1 < keys;
    if (diagonal || g.padding_mask) {
      b.AddHost([=] {
        const float neg_inf = -std::numeric_limits<float>::infinity();
        const float* m =
            g.padding_mask ? static_cast<const float*>(mask.get_data_handle()) : nullptr;
        float* all = static_cast<float*>(scores.get_data_handle());
        const int64_t count = n * g.heads * rows;
#pragma omp parallel for
        for (int64_t r = 0; r < count; ++r) {
          const int64_t item = r / (g.heads * rows), query = first + r % rows;
          float* row = all + r * keys;
          for (int64_t j = g.LastKey(query) + 1; j < keys; ++j) row[j] = neg_inf;
          if (m) {
            for (int64_t j = 0; j < keys; ++j) {
              if (m[item * sk + j] == 0.0f) row[j] = neg_inf;
            }
          }
        }
      });
    }
    // Softmax over the keys, written as the second product's input type (v2 converts).
    dnnl::softmax_v2_forward::primitive_desc sm(
        dnnl::softmax_v2_forward::desc(dnnl::prop_kind::forward_inference,
                                       dnnl::algorithm::softmax_accurate, scores_md, probs_md, 4),
        UserScratchpad(), b.engine());
    b.AddPrimitive(sm, dnnl::softmax_v2_forward(sm),
                   {{DNNL_ARG_SRC, scores}, {DNNL_ARG_DST, probs}});
    dnnl::matmul::primitive_desc pv(dnnl::matmul::desc(probs_md, v_md, o_md), UserScratchpad(),
                                    b.engine());
    b.AddPrimitive(pv, dnnl::matmul(pv),
                   {{DNNL_ARG_SRC, probs},
                    {DNNL_ARG_WEIGHTS, memory(v_md, b.engine(), mv.get_data_handle())},
                    {DNNL_ARG_DST, memory(o_md, b.engine(), o_at)}});
    if (kernel.empty()) {
      kernel =
          std::string(qk.impl_info_str()) + " + " + sm.impl_info_str() + " + " + pv.impl_info_str();
    }
  }
  if (g.padding_mask) {
    const size_t row_bytes = static_cast<size_t>(g.out_width()) * act_bytes;
    b.AddHost([=] {
      char* o = static_cast<char*>(out.get_data_handle());
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t q = 0; q < sq; ++q) {
          if ((*first_key)[i] > g.LastKey(q)) {
            std::memset(o + (i * sq + q) * row_bytes, 0, row_bytes);
          }
        }
      }
    });
  }
  if (block < sq) {
    kernel = std::to_string((sq + block - 1) / block) + " causal blocks of " +
             std::to_string(block) + ": " + kernel;
  }
  b.SetKernel(kernel);
}

void BuildRotary(Builder& b) {
  const ResolvedLayer& l = b.layer();
  const Shape& shape = l.input_shapes[0];
  const int64_t heads = l.attrs.Int("heads"), d = shape[2] / heads, rows = shape[1];
  const int64_t count = shape[0] * rows * heads;
  const bool interleaved = l.attrs.Str("style") == "interleaved";
  // From position 0: a shifted run (Executable::SetPositionShift) reads rows further in.
  const int64_t offset = l.attrs.Int("offset");
  auto table = std::make_shared<const RotaryTable>(0, offset + rows, d, l.attrs.Float("base"));
  const memory src = b.Input(l.inputs[0], PlainDesc(shape, dt::f32));
  const memory dst = b.HostOutputF32(shape);
  const int64_t* shift = b.position_shift();
  b.AddHost([=] {
    const float* x = static_cast<const float*>(src.get_data_handle());
    float* y = static_cast<float*>(dst.get_data_handle());
    if (y != x) std::memcpy(y, x, sizeof(float) * static_cast<size_t>(count * d));
    const int64_t first = std::max<int64_t>(0, offset + *shift);
    for (int64_t h = 0; h < count; ++h) {
      const int64_t p = first + h / heads % rows;
      RotateHead(y + h * d, table->cos.data() + p * (d / 2), table->sin.data() + p * (d / 2), d,
                 interleaved);
    }
  });
  b.ConvertHostOutput(dst, shape);
  b.SetKernel("ntpbench host rotary");
}

// Appends the input's rows after the rows earlier inferences left, in memory of its own.
void BuildKvCache(Builder& b) {
  const ResolvedLayer& l = b.layer();
  const Shape &in = l.input_shapes[0], &out = l.output_shapes[0];
  const memory src = b.PlainInput(l.inputs[0]);
  const memory cache = b.State(b.Plain(out));
  b.SetTensor(l.outputs[0], cache);
  const size_t element = memory::data_type_size(b.act());
  const size_t row = static_cast<size_t>(in[2]) * element;
  const int64_t n = in[0], rows = in[1], capacity = out[1];
  const int64_t* shift = b.position_shift();
  const int64_t at_resolved = CacheWriteRow(l, 0);
  b.AddHost([=] {
    const int64_t at = at_resolved + *shift;
    const char* x = static_cast<const char*>(src.get_data_handle());
    char* c = static_cast<char*>(cache.get_data_handle());
    for (int64_t i = 0; i < n; ++i) {
      std::memcpy(c + (i * capacity + at) * row, x + i * rows * row, rows * row);
    }
  });
  b.SetKernel("ntpbench host append");
}

}  // namespace

void AddAttentionOps(OpTable* table) {
  (*table)["attention"] = BuildAttention;
  (*table)["rotary"] = BuildRotary;
  (*table)["kv_cache"] = BuildKvCache;
}

}  // namespace ntpb::onednn
