// Activations and maps, broadcasting arithmetic and comparisons, where, softmax, batchnorm and
// layernorm, pooling, reductions, resize and embedding.
#include <cmath>
#include <limits>
#include <memory>

#include "ntpbench/error.h"
#include "src/backends/common/broadcast.h"
#include "src/backends/common/resize_taps.h"
#include "src/backends/opencl/half_storage.h"
#include "src/backends/opencl/op_builder.h"
#include "src/ops/activations.h"

namespace ntpb::opencl {
namespace {

enum UnaryOp : cl_int {  // kernels.cl's UNARY_*
  kActivation = 0,
  kExp,
  kSqrt,
  kPow,
  kSquare,
  kLeakyRelu,
  kHardSigmoid,
  kHardSwish,
  kSwish,
  kFill
};

StepRun Unary(OpArgs& a, UnaryOp op, cl_int act, float p, float q) {
  cl_kernel k = a.Kernel("unary");
  const int64_t n = NumElements(a.layer.output_shapes[0]);
  SetArgs(k, a.inputs[0], a.output, Int(n), cl_int{op}, act, cl_float{p}, cl_float{q});
  return [k, n](Enqueuer& e) { e.LaunchChunks(k, n); };
}

// relu, sigmoid, ...: the activation table's ops (src/ops/activations.h); the kernel's ACT_* codes
// are the table's kinds.
StepRun MakeActivation(OpArgs& a) {
  const ActivationChoice choice = ActivationOp(a.layer.op, a.layer.attrs);
  return Unary(a, kActivation, static_cast<cl_int>(choice.kind), choice.clip, 0);
}

StepRun MakeExp(OpArgs& a) { return Unary(a, kExp, 0, 0, 0); }
StepRun MakeSqrt(OpArgs& a) { return Unary(a, kSqrt, 0, 0, 0); }
StepRun MakePow(OpArgs& a) {
  const float p = static_cast<float>(a.layer.attrs.Float("exponent"));
  return p == 2.0f ? Unary(a, kSquare, 0, 0, 0) : Unary(a, kPow, 0, p, 0);
}
StepRun MakeLeakyRelu(OpArgs& a) {
  return Unary(a, kLeakyRelu, 0, static_cast<float>(a.layer.attrs.Float("alpha")), 0);
}
StepRun MakeHardSigmoid(OpArgs& a) {
  return Unary(a, kHardSigmoid, 0, static_cast<float>(a.layer.attrs.Float("alpha")),
               static_cast<float>(a.layer.attrs.Float("beta")));
}
StepRun MakeHardSwish(OpArgs& a) { return Unary(a, kHardSwish, 0, 0, 0); }
StepRun MakeSwish(OpArgs& a) { return Unary(a, kSwish, 0, 0, 0); }

// Each input broadcast to the output (broadcast.h's strides), the output row-major.
template <MapOp kOp>
StepRun MakeBroadcast(OpArgs& a) {
  const Shape& out = a.layer.output_shapes[0];
  StridedMap map;
  map.dims = out;
  map.strides[0] = RowMajorStrides(out);
  for (size_t i = 0; i < a.inputs.size() && i < 3; ++i) {
    map.strides[i + 1] = BroadcastStrides(a.layer.input_shapes[i], out);
  }
  const cl_mem none = nullptr;
  const MapLaunch m =
      PrepareStridedMap(a, map, a.output, a.inputs[0], a.inputs.size() > 1 ? a.inputs[1] : none,
                        a.inputs.size() > 2 ? a.inputs[2] : none, kOp);
  return [m](Enqueuer& e) { m.Run(e); };
}

StepRun MakeSoftmax(OpArgs& a) {
  const Shape& s = a.layer.input_shapes[0];
  int64_t axis = a.layer.attrs.Int("axis");
  if (axis < 0) axis += static_cast<int64_t>(s.size());
  int64_t inner = 1;
  for (size_t i = axis + 1; i < s.size(); ++i) inner *= s[i];
  const int64_t len = s[axis], lines = NumElements(s) / len;
  cl_kernel k = a.Kernel("softmax");
  SetArgs(k, a.inputs[0], a.output, Int(len), Int(inner), Int(lines));
  return [k, lines](Enqueuer& e) { e.Launch1D(k, lines); };
}

StepRun MakeBatchnorm(OpArgs& a) {
  const Shape& in = a.layer.input_shapes[0];
  const int64_t n = NumElements(in), c = in[1], inner = n / (in[0] * c);
  // y = x * scale + shift per channel, scale = gamma / sqrt(var + eps) and shift = beta - mean *
  // scale computed once here (the reference's formula) rather than for every element.
  const float eps = static_cast<float>(a.layer.attrs.Float("epsilon"));
  std::vector<float> gamma = a.WeightValues(0), beta = a.WeightValues(1), mean = a.WeightValues(2),
                     var = a.WeightValues(3);
  if (a.device.element_bytes == 2) {  // f16: the statistics as stored, as the reference's
    for (std::vector<float>* v : {&gamma, &beta, &mean, &var}) *v = RoundedToHalf(*v);
  }
  std::vector<float> scale(static_cast<size_t>(c)), shift(static_cast<size_t>(c));
  for (size_t ch = 0; ch < scale.size(); ++ch) {
    scale[ch] = gamma[ch] / std::sqrt(var[ch] + eps);
    shift[ch] = beta[ch] - mean[ch] * scale[ch];
  }
  cl_kernel k = a.Kernel("batchnorm");
  SetArgs(k, a.inputs[0], a.output, a.Constant(scale), a.Constant(shift), Int(c), Int(inner),
          Int(n));
  return [k, n](Enqueuer& e) { e.LaunchChunks(k, n); };
}

// One work-group per row (layernorm) or plane (global average pooling).
StepRun PerGroup(cl_kernel k, int64_t groups, size_t local) {
  return [k, groups, local](Enqueuer& e) {
    const size_t global = static_cast<size_t>(groups) * local;
    e.Launch(k, 1, &global, &local);
  };
}

StepRun MakeLayernorm(OpArgs& a) {
  const Shape& in = a.layer.input_shapes[0];
  const int64_t c = in.back(), rows = NumElements(in) / c;
  cl_kernel k = a.Kernel("layernorm");
  SetArgs(k, a.inputs[0], a.output, a.Weight(0), a.Weight(1),
          static_cast<cl_float>(a.layer.attrs.Float("epsilon")), Int(c));
  return PerGroup(k, rows, static_cast<size_t>(a.device.norm_local));
}

StepRun MakeRmsNorm(OpArgs& a) {
  const Shape& in = a.layer.input_shapes[0];
  const int64_t c = in.back(), rows = NumElements(in) / c;
  cl_kernel k = a.Kernel("rms_norm");
  SetArgs(k, a.inputs[0], a.output, a.Weight(0),
          static_cast<cl_float>(a.layer.attrs.Float("epsilon")), Int(c));
  return PerGroup(k, rows, static_cast<size_t>(a.device.norm_local));
}

StepRun MakeSwiglu(OpArgs& a) {
  const Shape& out = a.layer.output_shapes[0];
  const int64_t total = NumElements(out);
  cl_kernel k = a.Kernel("swiglu");
  SetArgs(k, a.inputs[0], a.output, Int(out.back()), Int(total),
          cl_int{a.layer.attrs.Str("activation") == "gelu" ? 1 : 0});
  return [k, total](Enqueuer& e) { e.Launch1D(k, total); };
}

template <bool kMax>
StepRun MakeWindowPool(OpArgs& a) {
  const Shape& in = a.layer.input_shapes[0];
  const Shape& out = a.layer.output_shapes[0];
  const auto k = a.layer.attrs.Ints("kernel"), s = a.layer.attrs.Ints("stride"),
             p = a.layer.attrs.Ints("padding");
  const bool include_pad = !kMax && a.layer.attrs.Bool("count_include_pad");
  const cl_mem q =
      a.Constant(std::vector<cl_int>{Int(in[2]), Int(in[3]), Int(out[2]), Int(out[3]), Int(k[0]),
                                     Int(k[1]), Int(s[0]), Int(s[1]), Int(p[0]), Int(p[1])});
  const int64_t total = NumElements(out);
  cl_kernel kernel = a.Kernel("window_pool");
  SetArgs(kernel, a.inputs[0], a.output, q, Int(total), cl_int{kMax ? 1 : 0},
          cl_int{include_pad ? 1 : 0});
  return [kernel, total](Enqueuer& e) { e.Launch1D(kernel, total); };
}

StepRun MakeGlobalAvgPool(OpArgs& a) {
  const Shape& in = a.layer.input_shapes[0];
  cl_kernel k = a.Kernel("plane_mean");
  SetArgs(k, a.inputs[0], a.output, Int(in[2] * in[3]));
  return PerGroup(k, in[0] * in[1], static_cast<size_t>(a.device.reduction_local));
}

template <cl_int kHow>  // kernels.cl's REDUCE_*
StepRun MakeReduce(OpArgs& a) {
  constexpr size_t kMaxRank = 8;
  const Shape& in = a.layer.input_shapes[0];
  const auto axes = a.layer.attrs.Ints("axes");
  const std::vector<int64_t> strides = RowMajorStrides(in);
  std::vector<bool> reduced(in.size(), false);
  for (int64_t ax : axes) reduced[static_cast<size_t>(ax)] = true;
  std::vector<cl_int> p(2 + 4 * kMaxRank, 0);
  cl_int kept = 0, gone = 0;
  int64_t outputs = 1, count = 1;
  for (size_t d = 0; d < in.size(); ++d) {
    if (reduced[d]) {
      p[2 + 2 * kMaxRank + gone] = Int(in[d]);
      p[2 + 3 * kMaxRank + gone] = Int(strides[d]);
      ++gone;
      count *= in[d];
    } else {
      p[1 + kept] = Int(in[d]);
      p[1 + kMaxRank + kept] = Int(strides[d]);
      ++kept;
      outputs *= in[d];
    }
  }
  p[0] = kept;
  p[1 + 2 * kMaxRank] = gone;
  cl_kernel k = a.Kernel("reduce");
  SetArgs(k, a.inputs[0], a.output, a.Constant(p), Int(outputs), Int(count), kHow);
  return [k, outputs](Enqueuer& e) { e.Launch1D(k, outputs); };
}

StepRun MakeResize(OpArgs& a) {
  const Shape& in = a.layer.input_shapes[0];
  const Shape& out = a.layer.output_shapes[0];
  const bool linear = a.layer.attrs.Str("mode") == "linear";
  const std::string coordinates = a.layer.attrs.Str("coordinates");
  const std::string rounding = a.layer.attrs.Str("nearest_rounding");
  // The taps are resize_taps.h's, computed once here as every backend computes them.
  auto upload = [&](int64_t from, int64_t to, cl_mem* index, cl_mem* weight) {
    const std::vector<ResizeTap> taps = ResizeTaps(from, to, coordinates, linear, rounding);
    std::vector<cl_int> idx;
    std::vector<cl_float> w;
    for (const ResizeTap& t : taps) {
      idx.push_back(Int(t.lo));
      idx.push_back(Int(t.hi));
      w.push_back(t.weight_hi);
    }
    *index = a.Constant(idx);
    *weight = a.Constant(w.data(), static_cast<int64_t>(w.size() * sizeof(cl_float)));
  };
  cl_mem ty_idx, ty_w, tx_idx, tx_w;
  upload(in[2], out[2], &ty_idx, &ty_w);
  upload(in[3], out[3], &tx_idx, &tx_w);
  const int64_t total = NumElements(out);
  cl_kernel k = a.Kernel("resize");
  SetArgs(k, a.inputs[0], a.output, ty_idx, ty_w, tx_idx, tx_w, Int(in[2]), Int(in[3]), Int(out[2]),
          Int(out[3]), cl_int{linear ? 1 : 0}, Int(total));
  return [k, total](Enqueuer& e) { e.Launch1D(k, total); };
}

// A bad id is flagged on the device and reported after the run, naming the layer as the
// reference does (embedding_rows.h).
StepRun MakeEmbedding(OpArgs& a) {
  const int64_t count = NumElements(a.layer.input_shapes[0]);
  const int64_t vocab = a.layer.attrs.Int("vocab"), dim = a.layer.attrs.Int("dim");
  const int64_t total = count * dim;
  const cl_mem bad = a.Buffer(sizeof(cl_int));
  const cl_mem ids = a.inputs[0];
  // Ids stored as float (f32 runs; token ids past what f16 holds in f16 runs), or as half.
  const bool half_ids = a.Bytes(1) == 2 && !a.input_f32.at(0);
  cl_kernel k = a.Kernel(half_ids ? "embedding_stored_ids" : "embedding");
  SetArgs(k, ids, a.Weight(0), a.output, Int(vocab), Int(dim), Int(total), bad);
  const std::string layer = a.layer.name;
  a.CheckAfterRun([bad, ids, layer, vocab, half_ids](cl_command_queue queue) {
    cl_int position = 0;
    Check(clEnqueueReadBuffer(queue, bad, CL_TRUE, 0, sizeof position, &position, 0, nullptr,
                              nullptr),
          "clEnqueueReadBuffer");
    if (position == 0) return;
    float id = 0;
    std::uint16_t half_id = 0;
    const size_t id_bytes = half_ids ? sizeof half_id : sizeof id;
    clEnqueueReadBuffer(queue, ids, CL_TRUE, id_bytes * static_cast<size_t>(position - 1), id_bytes,
                        half_ids ? static_cast<void*>(&half_id) : &id, 0, nullptr, nullptr);
    if (half_ids) HalvesToFloats(&half_id, 1, &id);
    const cl_int zero = 0;
    clEnqueueWriteBuffer(queue, bad, CL_TRUE, 0, sizeof zero, &zero, 0, nullptr, nullptr);
    throw Error("", layer, "inputs",
                "id " + std::to_string(id) + " at position " + std::to_string(position - 1) +
                    " is not an integer in [-" + std::to_string(vocab) + ", " +
                    std::to_string(vocab) + ") (the table's rows)");
  });
  return [k, total](Enqueuer& e) { e.Launch1D(k, total); };
}

}  // namespace

void AddElementwiseOps(OpTable* table) {
  for (const ActivationDef& d : Activations()) {
    if (d.op) (*table)[d.name] = MakeActivation;
  }
  (*table)["exp"] = MakeExp;
  (*table)["sqrt"] = MakeSqrt;
  (*table)["pow"] = MakePow;
  (*table)["leaky_relu"] = MakeLeakyRelu;
  (*table)["hard_sigmoid"] = MakeHardSigmoid;
  (*table)["hard_swish"] = MakeHardSwish;
  (*table)["swish"] = MakeSwish;
  (*table)["add"] = MakeBroadcast<kMapAdd>;
  (*table)["sub"] = MakeBroadcast<kMapSub>;
  (*table)["mul"] = MakeBroadcast<kMapMul>;
  (*table)["div"] = MakeBroadcast<kMapDiv>;
  (*table)["equal"] = MakeBroadcast<kMapEqual>;
  (*table)["less"] = MakeBroadcast<kMapLess>;
  (*table)["greater"] = MakeBroadcast<kMapGreater>;
  (*table)["where"] = MakeBroadcast<kMapWhere>;
  (*table)["softmax"] = MakeSoftmax;
  (*table)["batchnorm"] = MakeBatchnorm;
  (*table)["layernorm"] = MakeLayernorm;
  (*table)["rms_norm"] = MakeRmsNorm;
  (*table)["swiglu"] = MakeSwiglu;
  (*table)["max_pool"] = MakeWindowPool<true>;
  (*table)["avg_pool"] = MakeWindowPool<false>;
  (*table)["global_avg_pool"] = MakeGlobalAvgPool;
  (*table)["reduce_sum"] = MakeReduce<0>;
  (*table)["reduce_mean"] = MakeReduce<1>;
  (*table)["reduce_max"] = MakeReduce<2>;
  (*table)["resize"] = MakeResize;
  (*table)["embedding"] = MakeEmbedding;
}

}  // namespace ntpb::opencl
