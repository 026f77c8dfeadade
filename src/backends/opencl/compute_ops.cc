// The GEMM-shaped ops: dense and matmul as one (batched) GEMM; conv2d as im2col + GEMM per chunk
// of images, or on CPU devices and in i8 as im2row + a GEMM with its weights packed, as a dense
// layer's (1x1 stride-1 convolutions read the input directly; depthwise a direct kernel);
// conv_transpose as GEMM + col2im; LSTM and GRU as one GEMM for the input projection of every
// step, then per step a GEMM of the state and a gate kernel. In i8 runs dense and conv2d compute
// on 8-bit integers and the others stay f32 (oneDNN quantizes LSTM and GRU weights too).
#include <algorithm>
#include <memory>

#include "src/backends/common/conv_geometry.h"
#include "src/backends/common/quantization.h"
#include "src/backends/opencl/op_builder.h"

namespace ntpb::opencl {
namespace {

StepRun MakeDense(OpArgs& a) {
  const Shape& in = a.layer.input_shapes[0];
  GemmCall g;
  g.k = in.back();
  g.n = a.layer.output_shapes[0].back();
  g.m = NumElements(in) / g.k;
  g.lda = g.k;
  g.ldb = g.n;
  g.c = a.output;
  g.ldc = g.n;
  if (a.WeightCount() > 1) {
    g.bias = a.Weight(1);
    g.bias_mode = 1;
  }
  g.act = ActivationCode::FromAttrs(a.layer.attrs);
  GemmLaunch gemm;
  if (a.quantized()) {
    gemm = PrepareI8PackedGemm(a, g, a.quantize(a.layer.inputs[0]), a.WeightValues(0));
  } else if (a.vector_gemm) {
    g.a = a.inputs[0];
    gemm = PreparePackedGemm(a, g, a.WeightValues(0));
  } else {
    g.a = a.inputs[0];
    g.b = a.Weight(0);
    gemm = PrepareGemm(a, g);
  }
  return [gemm](Enqueuer& e) { gemm.Run(e); };
}

StepRun MakeMatmul(OpArgs& a) {
  const Shape& sa = a.layer.input_shapes[0];
  const Shape& sb = a.layer.input_shapes[1];
  GemmCall g;
  g.m = sa[sa.size() - 2];
  g.k = sa.back();
  g.n = sb.back();
  g.batch = NumElements(sa) / (g.m * g.k);
  g.a = a.inputs[0];
  g.lda = g.k;
  g.a_batch = g.m * g.k;
  g.b = a.inputs[1];
  g.ldb = g.n;
  g.b_batch = sb.size() == 2 ? 0 : g.k * g.n;
  g.c = a.output;
  g.ldc = g.n;
  g.c_batch = g.m * g.n;
  const GemmLaunch gemm = PrepareGemm(a, g);
  return [gemm](Enqueuer& e) { gemm.Run(e); };
}

// kernels.cl's `g` parameter block.
std::vector<cl_int> GeometryParams(const ConvGeometry& g) {
  return {Int(g.c),  Int(g.h),  Int(g.w),  Int(g.oh), Int(g.ow), Int(g.kh), Int(g.kw),
          Int(g.sh), Int(g.sw), Int(g.dh), Int(g.dw), Int(g.pt), Int(g.pl)};
}

// The im2col columns of a chunk of images stay under this, so a batch-64 ResNet's first layer
// does not need gigabytes of scratch.
constexpr int64_t kScratchChunkBytes = int64_t{64} << 20;

// A group's weights [fg, rows] (filters grp * fg.. of `w` [f, rows]) transposed to [rows, fg]:
// the constant B of the packed kernels.
std::vector<float> GroupWeightsTransposed(const std::vector<float>& w, int64_t grp, int64_t fg,
                                          int64_t rows) {
  std::vector<float> t(static_cast<size_t>(rows * fg));
  for (int64_t f = 0; f < fg; ++f) {
    for (int64_t r = 0; r < rows; ++r) t[r * fg + f] = w[(grp * fg + f) * rows + r];
  }
  return t;
}

StepRun MakeConv2d(OpArgs& a) {
  const ConvGeometry g = ConvGeometryOf(a.layer);
  const int64_t cg = g.c / g.groups, fg = g.f / g.groups, plane = g.oh * g.ow;
  const int64_t rows = cg * g.kh * g.kw;
  const ActivationCode act = ActivationCode::FromAttrs(a.layer.attrs);
  const bool has_bias = a.WeightCount() > 1;
  const cl_mem bias = has_bias ? a.Weight(1) : cl_mem{nullptr};
  const cl_mem params = a.Constant(GeometryParams(g));
  // i8: the input quantized per tensor, the weights per filter (src/backends/common/
  // quantization.h), summed in integers and dequantized per filter.
  const bool i8 = a.quantized();
  const QuantizedTensor xq = i8 ? a.quantize(a.layer.inputs[0]) : QuantizedTensor{};
  const cl_mem input = i8 ? xq.data : a.inputs[0];

  if (cg == 1) {  // depthwise, with an optional channel multiplier
    cl_kernel k = a.Kernel(i8 ? "depthwise_conv_i8" : "depthwise_conv");
    const int64_t total = g.n * g.f * plane;
    if (i8) {
      const QuantizedWeights q = QuantizeWeights(a.WeightValues(0), g.f, rows, 127);
      SetArgs(k, input, cl_int{xq.is_signed ? 1 : 0},
              a.Constant(q.values.data(), static_cast<int64_t>(q.values.size())),
              a.Constant(DequantizeScales(xq.scale, q.scales)), bias, cl_int{has_bias ? 1 : 0},
              a.output, params, Int(g.f), Int(fg), Int(total), act.kind, act.clip);
    } else {
      SetArgs(k, input, a.Weight(0), bias, cl_int{has_bias ? 1 : 0}, a.output, params, Int(g.f),
              Int(fg), Int(total), act.kind, act.clip);
    }
    return [k, total](Enqueuer& e) { e.Launch1D(k, total); };
  }

  const bool pointwise = g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.pt == 0 &&
                         g.pl == 0 && g.oh == g.h && g.ow == g.w;
  // Packed: per group, out^T [plane, fg] = cols^T [plane, rows] (im2row, or the input itself
  // read transposed) x W^T [rows, fg] packed once (gemm_packed, as a dense layer; on a CPU
  // device, and in i8 everywhere). Else out [fg, plane] = W [fg, rows] x cols [rows, plane]
  // (im2col + gemm_tiled or gemm_vec).
  const bool packed = i8 || a.vector_gemm;
  const int64_t element_bytes = i8 ? 1 : a.Bytes(1);
  const int64_t chunk =
      pointwise ? g.n
                : std::clamp<int64_t>(kScratchChunkBytes / (rows * plane * element_bytes), 1, g.n);
  struct Pass {
    cl_kernel columns = nullptr;  // im2col / im2row; null: the GEMM reads the input
    int64_t images = 0;
    GemmLaunch gemm;
  };
  auto passes = std::make_shared<std::vector<Pass>>();
  if (!pointwise) a.RequireScratch(chunk * rows * plane * element_bytes);
  std::vector<std::vector<float>> group_weights;
  if (packed) {
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      group_weights.push_back(GroupWeightsTransposed(a.WeightValues(0), grp, fg, rows));
    }
  }
  for (int64_t first = 0; first < g.n; first += chunk) {
    const int64_t images = std::min(chunk, g.n - first);
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      Pass p;
      p.images = images;
      const int64_t input_offset = (first * g.c + grp * cg) * g.h * g.w;
      if (!pointwise) {
        p.columns = a.Kernel(packed ? (i8 ? "im2row_i8" : "im2row") : "im2col");
        SetArgs(p.columns, input, Int(input_offset), Int(g.c * g.h * g.w), Int(cg), params,
                cl_mem{nullptr}, Int(images));
      }
      GemmCall call;
      call.batch = images;
      call.bias = bias;
      call.bias_offset = grp * fg;
      call.act = act;
      call.c = a.output;
      call.c_offset = (first * g.f + grp * fg) * plane;
      call.c_batch = g.f * plane;
      if (packed) {
        call.m = plane;
        call.n = fg;
        call.k = rows;
        // A: the im2row columns [image][pixel][row] (the scratch, set when the step runs), or
        // the input [image][channel][pixel] read transposed.
        call.a = pointwise ? input : nullptr;
        call.a_offset = pointwise ? input_offset : 0;
        call.trans_a = pointwise;
        call.lda = pointwise ? plane : rows;
        call.a_batch = pointwise ? g.c * plane : rows * plane;
        call.trans_c = true;
        call.ldc = plane;
        call.bias_mode = has_bias ? 1 : 0;
        if (i8) {
          QuantizedTensor columns = xq;
          columns.data = call.a;
          p.gemm = PrepareI8PackedGemm(a, call, columns, group_weights[grp]);
        } else {
          p.gemm = PreparePackedGemm(a, call, group_weights[grp]);
        }
      } else {
        call.m = fg;
        call.n = plane;
        call.k = rows;
        call.a = a.Weight(0);
        call.a_offset = grp * fg * rows;
        call.lda = rows;
        call.ldc = plane;
        call.bias_mode = has_bias ? 2 : 0;
        call.b = pointwise ? input : nullptr;  // else the scratch, set when the step runs
        call.b_offset = pointwise ? (first * g.c + grp * cg) * plane : 0;
        call.ldb = plane;
        call.b_batch = pointwise ? g.c * plane : rows * plane;
        p.gemm = PrepareGemm(a, call);
      }
      passes->push_back(p);
    }
  }
  // im2row: a work-item per pixel; im2col: per column entry.
  const int64_t per_image = packed ? plane : rows * plane;
  return [passes, per_image, packed](Enqueuer& e) {
    for (const Pass& p : *passes) {
      if (p.columns) {
        SetArg(p.columns, 5, e.scratch);
        e.Launch1D(p.columns, p.images * per_image);
        if (packed) {
          p.gemm.SetA(e.scratch, 0);
        } else {
          p.gemm.SetB(e.scratch, 0);
        }
      }
      p.gemm.Run(e);
    }
  };
}

StepRun MakeConvTranspose(OpArgs& a) {
  const Shape& in = a.layer.input_shapes[0];
  const Shape& out = a.layer.output_shapes[0];
  const auto k = a.layer.attrs.Ints("kernel"), s = a.layer.attrs.Ints("stride"),
             d = a.layer.attrs.Ints("dilation"), p = a.layer.attrs.Ints("padding");
  const int64_t n_img = in[0], c = in[1], h = in[2], w = in[3];
  const int64_t f = out[1], oh = out[2], ow = out[3], groups = a.layer.attrs.Int("groups");
  const int64_t cg = c / groups, fg = f / groups, rows = fg * k[0] * k[1], plane = h * w;
  const bool has_bias = a.WeightCount() > 1;
  const cl_mem params = a.Constant(std::vector<cl_int>{Int(h), Int(w), Int(oh), Int(ow), Int(k[0]),
                                                       Int(k[1]), Int(s[0]), Int(s[1]), Int(d[0]),
                                                       Int(d[1]), Int(p[0]), Int(p[1])});
  a.RequireScratch(a.Bytes(rows * plane));
  struct Pass {
    GemmLaunch gemm;
    cl_kernel col2im;
  };
  auto passes = std::make_shared<std::vector<Pass>>();
  for (int64_t n = 0; n < n_img; ++n) {
    for (int64_t grp = 0; grp < groups; ++grp) {
      // col [rows, plane] = W[grp]^T [rows, cg] * x [cg, plane]
      GemmCall call;
      call.m = rows;
      call.n = plane;
      call.k = cg;
      call.a = a.Weight(0);
      call.a_offset = grp * cg * rows;
      call.lda = rows;
      call.trans_a = true;
      call.b = a.inputs[0];
      call.b_offset = (n * c + grp * cg) * plane;
      call.ldb = plane;
      call.c = nullptr;  // the scratch
      call.ldc = plane;
      Pass pass{PrepareGemm(a, call), a.Kernel("col2im")};
      SetArgs(pass.col2im, cl_mem{nullptr}, a.output, Int((n * f + grp * fg) * oh * ow),
              has_bias ? a.Weight(1) : cl_mem{nullptr}, cl_int{has_bias ? 1 : 0}, Int(grp * fg),
              params, Int(fg));
      passes->push_back(pass);
    }
  }
  const int64_t outputs = fg * oh * ow;
  return [passes, outputs](Enqueuer& e) {
    for (const Pass& p : *passes) {
      p.gemm.SetC(e.scratch, 0);
      p.gemm.Run(e);
      SetArg(p.col2im, 0, e.scratch);
      e.Launch1D(p.col2im, outputs);
    }
  };
}

template <bool kLstm>
StepRun MakeRecurrent(OpArgs& a) {
  const Shape& in = a.layer.input_shapes[0];
  const int64_t n = in[0], t_len = in[1], c = in[2], h = a.layer.attrs.Int("units");
  const int64_t gates = kLstm ? 4 : 3;
  const std::string dir = a.layer.attrs.Str("direction");
  const int dirs = dir == "bidirectional" ? 2 : 1;
  const int per_dir = kLstm ? 3 : 4;  // weights per direction
  // Own buffers, not the shared scratch: the gate kernels' pointers are fixed at build time.
  const cl_mem xg = a.Buffer(a.Bytes(n * t_len * gates * h));
  const cl_mem hg = a.Buffer(a.Bytes(n * gates * h));
  const cl_mem state = a.Buffer(a.Bytes(n * h));
  const cl_mem cell = a.Buffer(a.Bytes(n * h));
  cl_kernel zero = a.Kernel("unary");
  SetArgs(zero, cl_mem{nullptr}, state, Int(n * h), cl_int{9}, cl_int{0}, cl_float{0},
          cl_float{0});  // UNARY_FILL
  cl_kernel zero_cell = a.Kernel("unary");
  SetArgs(zero_cell, cl_mem{nullptr}, cell, Int(n * h), cl_int{9}, cl_int{0}, cl_float{0},
          cl_float{0});
  struct Direction {
    GemmLaunch input_projection, recurrence;
    cl_kernel gate;
    bool reverse;
  };
  auto directions = std::make_shared<std::vector<Direction>>();
  for (int d = 0; d < dirs; ++d) {
    GemmCall x;
    x.m = n * t_len;
    x.n = gates * h;
    x.k = c;
    x.a = a.inputs[0];
    x.lda = c;
    x.b = a.Weight(d * per_dir);
    x.ldb = gates * h;
    x.c = xg;
    x.ldc = gates * h;
    x.bias = a.Weight(d * per_dir + 2);
    x.bias_mode = 1;
    GemmCall r;
    r.m = n;
    r.n = gates * h;
    r.k = h;
    r.a = state;
    r.lda = h;
    r.b = a.Weight(d * per_dir + 1);
    r.ldb = gates * h;
    r.c = hg;
    r.ldc = gates * h;
    Direction dn{PrepareGemm(a, x), PrepareGemm(a, r), a.Kernel(kLstm ? "lstm_gates" : "gru_gates"),
                 d == 1 || dir == "reverse"};
    if (kLstm) {
      SetArgs(dn.gate, hg, xg, state, cell, a.output, Int(n), Int(h), cl_int{0}, Int(t_len),
              Int(h * dirs), Int(d * h));
    } else {
      SetArgs(dn.gate, hg, xg, state, a.Weight(d * per_dir + 3), a.output, Int(n), Int(h),
              cl_int{0}, Int(t_len), Int(h * dirs), Int(d * h));
    }
    directions->push_back(dn);
  }
  const int64_t states = n * h, state_bytes = a.Bytes(states);
  // Initial states [dirs, N, H] where the layer has them as inputs, else zeros.
  const cl_mem h0 = a.inputs.size() > 1 ? a.inputs[1] : nullptr;
  const cl_mem c0 = kLstm && a.inputs.size() > 2 ? a.inputs[2] : nullptr;
  // lstm's final cell state [dirs, N, H], where the layer lists it: each direction's cell.
  const cl_mem final_cell = kLstm && !a.further_outputs.empty() ? a.further_outputs[0] : nullptr;
  return [=](Enqueuer& e) {
    for (size_t d = 0; d < directions->size(); ++d) {
      const Direction& dn = (*directions)[d];
      dn.input_projection.Run(e);
      const int64_t offset = static_cast<int64_t>(d) * state_bytes;
      if (h0) {
        e.Copy(h0, state, state_bytes, offset);
      } else {
        e.LaunchChunks(zero, states);
      }
      if (c0) {
        e.Copy(c0, cell, state_bytes, offset);
      } else if (kLstm) {
        e.LaunchChunks(zero_cell, states);
      }
      for (int64_t s = 0; s < t_len; ++s) {
        const int64_t t = dn.reverse ? t_len - 1 - s : s;
        dn.recurrence.Run(e);
        SetArg(dn.gate, 7, Int(t));
        e.Launch1D(dn.gate, states);
      }
      if (final_cell) e.Copy(cell, final_cell, state_bytes, 0, offset);
    }
  };
}

}  // namespace

void AddComputeOps(OpTable* table) {
  (*table)["dense"] = MakeDense;
  (*table)["matmul"] = MakeMatmul;
  (*table)["conv2d"] = MakeConv2d;
  (*table)["conv_transpose"] = MakeConvTranspose;
  (*table)["lstm"] = MakeRecurrent<true>;
  (*table)["gru"] = MakeRecurrent<false>;
}

}  // namespace ntpb::opencl
