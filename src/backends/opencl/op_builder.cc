#include "src/backends/opencl/op_builder.h"

#include <algorithm>
#include <limits>

#include "ntpbench/error.h"
#include "src/backends/common/quantization.h"
#include "src/backends/opencl/half_storage.h"
#include "src/ops/activations.h"

namespace ntpb::opencl {

cl_int Int(int64_t v) {
  if (v > std::numeric_limits<cl_int>::max() || v < std::numeric_limits<cl_int>::min()) {
    throw Error("", "", "opencl", "a size of " + std::to_string(v) + " exceeds 32-bit indexing");
  }
  return static_cast<cl_int>(v);
}

cl_event* Enqueuer::NextEvent() {
  events_->push_back(nullptr);
  return &events_->back();
}

void Enqueuer::Launch1D(cl_kernel kernel, int64_t n) {
  size_t global = static_cast<size_t>(std::max<int64_t>(n, 1));
  if (local_ > 0) global = (global + local_ - 1) / local_ * local_;
  Launch(kernel, 1, &global, local_ > 0 ? &local_ : nullptr);
}

void Enqueuer::Launch(cl_kernel kernel, int dims, const size_t* global, const size_t* local) {
  Check(clEnqueueNDRangeKernel(queue_, kernel, static_cast<cl_uint>(dims), nullptr, global, local,
                               0, nullptr, NextEvent()),
        "clEnqueueNDRangeKernel");
}

void Enqueuer::Copy(cl_mem from, cl_mem to, int64_t bytes, int64_t from_offset, int64_t to_offset) {
  Check(clEnqueueCopyBuffer(queue_, from, to, static_cast<size_t>(from_offset),
                            static_cast<size_t>(to_offset), static_cast<size_t>(bytes), 0, nullptr,
                            NextEvent()),
        "clEnqueueCopyBuffer");
}

void Enqueuer::Write(cl_mem to, const void* host, int64_t bytes) {
  Check(clEnqueueWriteBuffer(queue_, to, CL_TRUE, 0, static_cast<size_t>(bytes), host, 0, nullptr,
                             NextEvent()),
        "clEnqueueWriteBuffer");
}

void Enqueuer::Read(cl_mem from, void* host, int64_t bytes) {
  Check(clEnqueueReadBuffer(queue_, from, CL_TRUE, 0, static_cast<size_t>(bytes), host, 0, nullptr,
                            NextEvent()),
        "clEnqueueReadBuffer");
}

cl_mem OpArgs::Weight(size_t i) {
  if (!weights_.at(i)) weights_[i] = upload_weight_(i);
  return weights_[i];
}

cl_kernel OpArgs::Kernel(const char* name) {
  if (std::find(kernel_names.begin(), kernel_names.end(), name) == kernel_names.end()) {
    kernel_names.emplace_back(name);
  }
  kernels_->emplace_back(device.NewKernel(name));
  return kernels_->back().get();
}

cl_mem OpArgs::Constant(const void* data, int64_t bytes) {
  cl_int status = CL_SUCCESS;
  cl_mem m = clCreateBuffer(device.context.get(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                            static_cast<size_t>(std::max<int64_t>(bytes, 4)),
                            const_cast<void*>(data), &status);
  Check(status, "clCreateBuffer");
  buffers_->emplace_back(m);
  return m;
}

cl_mem OpArgs::Elements(const std::vector<float>& values) {
  const std::vector<char> bytes =
      StoredBytes(values.data(), static_cast<int64_t>(values.size()), device.element_bytes);
  return Constant(bytes.data(), static_cast<int64_t>(bytes.size()));
}

cl_mem OpArgs::Buffer(int64_t bytes) {
  const std::vector<char> zeros(static_cast<size_t>(std::max<int64_t>(bytes, 4)), 0);
  cl_int status = CL_SUCCESS;
  cl_mem m = clCreateBuffer(device.context.get(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                            zeros.size(), const_cast<char*>(zeros.data()), &status);
  Check(status, "clCreateBuffer");
  buffers_->emplace_back(m);
  return m;
}

ActivationCode ActivationCode::FromAttrs(const Attrs& attrs) {
  const ActivationChoice choice = FusedActivation(attrs);  // src/ops/activations.h
  ActivationCode act;
  act.kind = static_cast<cl_int>(choice.kind);
  act.clip = static_cast<cl_float>(choice.clip);
  return act;
}

namespace {
constexpr int kSkinnyRows = 8;      // kernels.cl's SKINNY_ROWS
constexpr int64_t kPanelCols = 32;  // kernels.cl's PACKED_COLS
constexpr size_t kVecRows = 8;      // kernels.cl's VEC_ROWS

// B [K, N] as panels of kPanelCols columns, [N / kPanelCols][K][kPanelCols], zero-padded.
template <typename T>
std::vector<T> PackPanels(const std::vector<T>& b, int64_t k_size, int64_t n) {
  const int64_t panels = (n + kPanelCols - 1) / kPanelCols;
  std::vector<T> packed(static_cast<size_t>(panels * k_size * kPanelCols), T{0});
  for (int64_t p = 0; p < panels; ++p) {
    const int64_t cols = std::min(kPanelCols, n - p * kPanelCols);
    for (int64_t k = 0; k < k_size; ++k) {
      std::copy_n(&b[k * n + p * kPanelCols], cols, &packed[(p * k_size + k) * kPanelCols]);
    }
  }
  return packed;
}

// The packed kernels' work size: work-groups of up to 8 row blocks of one panel, which read the
// panel while it is in cache (8 measured faster than 16-64 on PoCL's CPU device at 1024^3 and
// 2048^3; docs/opencl.md), and the batch along the third axis.
void SetPackedWorkSize(const GemmCall& g, GemmLaunch* launch) {
  const size_t blocks = (static_cast<size_t>(g.m) + kVecRows - 1) / kVecRows;
  size_t local = 1;
  while (local < blocks && local < 8) local *= 2;
  launch->dims = 3;
  launch->global[0] = static_cast<size_t>((g.n + kPanelCols - 1) / kPanelCols);
  launch->global[1] = (blocks + local - 1) / local * local;
  launch->global[2] = static_cast<size_t>(g.batch);
  launch->local[0] = 1;
  launch->local[1] = local;
  launch->local[2] = 1;
}

// The packed kernels' operand layout arguments: A's strides and batch stride, then (after B)
// C's offset, strides and batch stride.
struct PackedLayout {
  cl_int a_ms, a_ks, a_batch, c_offset, c_ms, c_ns, c_batch;
};
PackedLayout LayoutOf(const GemmCall& g) {
  return {Int(g.trans_a ? 1 : g.lda), Int(g.trans_a ? g.lda : 1), Int(g.a_batch), Int(g.c_offset),
          Int(g.trans_c ? 1 : g.ldc), Int(g.trans_c ? g.ldc : 1), Int(g.c_batch)};
}
}  // namespace

GemmLaunch PreparePackedGemm(OpArgs& args, const GemmCall& g, const std::vector<float>& b) {
  const std::vector<float> packed = PackPanels(b, g.k, g.n);
  const PackedLayout l = LayoutOf(g);
  GemmLaunch launch;
  launch.kernel = args.Kernel("gemm_packed");
  SetArgs(launch.kernel, Int(g.m), Int(g.n), Int(g.k), g.a, Int(g.a_offset), l.a_ms, l.a_ks,
          l.a_batch, args.Elements(packed), g.c, l.c_offset, l.c_ms, l.c_ns, l.c_batch,
          g.bias_mode == 1 ? g.bias : cl_mem{nullptr}, Int(g.bias_offset), g.act.kind, g.act.clip);
  launch.b_arg = -1;  // constant
  launch.c_arg = 9;
  SetPackedWorkSize(g, &launch);
  return launch;
}

GemmLaunch PrepareI8PackedGemm(OpArgs& args, const GemmCall& g, const QuantizedTensor& a,
                               const std::vector<float>& b) {
  const QuantizedWeights q = QuantizeWeights(b, g.n, 1, 127);
  const std::vector<int8_t> packed = PackPanels(q.values, g.k, g.n);
  const PackedLayout l = LayoutOf(g);
  GemmLaunch launch;
  launch.kernel = args.Kernel("gemm_i8_packed");
  SetArgs(launch.kernel, Int(g.m), Int(g.n), Int(g.k), a.data, Int(g.a_offset), l.a_ms, l.a_ks,
          l.a_batch, cl_int{a.is_signed ? 1 : 0},
          args.Constant(packed.data(), static_cast<int64_t>(packed.size())), g.c, l.c_offset,
          l.c_ms, l.c_ns, l.c_batch, args.Constant(DequantizeScales(a.scale, q.scales)),
          g.bias_mode == 1 ? g.bias : cl_mem{nullptr}, Int(g.bias_offset), g.act.kind, g.act.clip);
  launch.a_arg = 3;
  launch.b_arg = -1;  // constant
  launch.c_arg = 10;
  SetPackedWorkSize(g, &launch);
  return launch;
}

GemmLaunch PrepareGemm(OpArgs& args, const GemmCall& g) {
  GemmLaunch launch;
  if (args.vector_gemm) {
    launch.kernel = args.Kernel("gemm_vec");
    SetArgs(launch.kernel, Int(g.m), Int(g.n), Int(g.k), g.a, Int(g.a_offset), Int(g.lda),
            Int(g.a_batch), cl_int{g.trans_a ? 1 : 0}, g.b, Int(g.b_offset), Int(g.ldb),
            Int(g.b_batch), g.c, Int(g.c_offset), Int(g.ldc), Int(g.c_batch), g.bias,
            Int(g.bias_offset), cl_int{g.bias_mode}, g.act.kind, g.act.clip);
    // Work-groups of up to 64 row blocks of one column block: they share B's panel in cache.
    const size_t blocks = (static_cast<size_t>(g.m) + kVecRows - 1) / kVecRows;
    size_t local = 1;
    while (local < blocks && local < 64) local *= 2;
    launch.dims = 3;
    launch.global[0] = (static_cast<size_t>(g.n) + 15) / 16;
    launch.global[1] = (blocks + local - 1) / local * local;
    launch.global[2] = static_cast<size_t>(g.batch);
    launch.local[0] = 1;
    launch.local[1] = local;
    launch.local[2] = 1;
    return launch;
  }
  launch.skinny = g.m <= kSkinnyRows && g.batch == 1 && !g.trans_a;
  const cl_mem bias = g.bias;
  if (launch.skinny) {
    cl_kernel split = args.split_skinny ? args.Kernel("gemm_skinny_split") : nullptr;
    // The split kernel's work-group: 32 columns, or 16 or 8 where N leaves fewer than two groups
    // per compute unit; by as many slices of K (a power of two) as the device and kernel allow,
    // each slice taking two or more chunks of SPLIT_UNROLL rows (the session's split_group and
    // split_unroll).
    size_t most = 0;
    if (split) {
      clGetKernelWorkGroupInfo(split, args.device.info.device, CL_KERNEL_WORK_GROUP_SIZE,
                               sizeof most, &most, nullptr);
    }
    const size_t n = static_cast<size_t>(g.n);
    const size_t enough = 2 * static_cast<size_t>(std::max(1, args.device.info.compute_units));
    size_t cols = 32;
    while (cols > 8 && (n + cols - 1) / cols < enough) cols /= 2;
    const size_t unroll = static_cast<size_t>(args.device.split_unroll);
    size_t slices = static_cast<size_t>(args.device.split_group) / cols;
    while (slices > 1 && (slices * cols > most || slices * unroll * 2 > static_cast<size_t>(g.k))) {
      slices /= 2;
    }
    const bool use_split = split && most >= cols;
    launch.kernel = use_split ? split : args.Kernel("gemm_skinny");
    SetArgs(launch.kernel, Int(g.m), Int(g.n), Int(g.k), g.a, Int(g.a_offset), Int(g.lda), g.b,
            Int(g.b_offset), Int(g.ldb), g.c, Int(g.c_offset), Int(g.ldc), bias, Int(g.bias_offset),
            cl_int{g.bias_mode}, g.act.kind, g.act.clip);
    launch.b_arg = 6;
    launch.c_arg = 9;
    if (use_split) {
      launch.skinny = false;  // the work-group size chosen above
      launch.dims = 2;
      launch.global[0] = (n + cols - 1) / cols * cols;
      launch.global[1] = slices;
      launch.local[0] = cols;
      launch.local[1] = slices;
      return launch;
    }
    launch.dims = 1;
    launch.global[0] = static_cast<size_t>(g.n);
    return launch;
  }
  launch.kernel = args.Kernel("gemm_tiled");
  SetArgs(launch.kernel, Int(g.m), Int(g.n), Int(g.k), g.a, Int(g.a_offset), Int(g.lda),
          Int(g.a_batch), cl_int{g.trans_a ? 1 : 0}, g.b, Int(g.b_offset), Int(g.ldb),
          Int(g.b_batch), g.c, Int(g.c_offset), Int(g.ldc), Int(g.c_batch), bias,
          Int(g.bias_offset), cl_int{g.bias_mode}, g.act.kind, g.act.clip);
  const size_t tile = static_cast<size_t>(args.device.gemm_tile);
  const size_t threads = tile / static_cast<size_t>(args.device.gemm_wpt);
  launch.dims = 3;
  launch.global[0] = (static_cast<size_t>(g.n) + tile - 1) / tile * threads;
  launch.global[1] = (static_cast<size_t>(g.m) + tile - 1) / tile * threads;
  launch.global[2] = static_cast<size_t>(g.batch);
  launch.local[0] = threads;
  launch.local[1] = threads;
  launch.local[2] = 1;
  return launch;
}

void GemmLaunch::SetA(cl_mem a, int64_t offset) const {
  SetArg(kernel, a_arg, a);
  SetArg(kernel, a_arg + 1, Int(offset));
}
void GemmLaunch::SetB(cl_mem b, int64_t offset) const {
  SetArg(kernel, b_arg, b);
  SetArg(kernel, b_arg + 1, Int(offset));
}
void GemmLaunch::SetC(cl_mem c, int64_t offset) const {
  SetArg(kernel, c_arg, c);
  SetArg(kernel, c_arg + 1, Int(offset));
}

std::vector<int64_t> RowMajorStrides(const Shape& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
  return strides;
}

namespace {
// The same map over fewer axes: axes of size 1 dropped, and an axis merged into the one before it
// where every operand steps over the pair as over one axis (a same-shape add becomes one flat
// axis). The kernel divides its index once per axis, which on PoCL's CPU device made a
// [1, 256, 56, 56] add take 9 ms.
StridedMap Collapsed(const StridedMap& map) {
  StridedMap out;
  out.base = map.base;
  auto stride = [&](size_t k, size_t d) {
    return d < map.strides[k].size() ? map.strides[k][d] : int64_t{0};
  };
  for (size_t d = 0; d < map.dims.size(); ++d) {
    if (map.dims[d] == 1) continue;
    bool merges = !out.dims.empty();
    for (size_t k = 0; k < 4 && merges; ++k) {
      merges = out.strides[k].back() == stride(k, d) * map.dims[d];
    }
    if (merges) {
      out.dims.back() *= map.dims[d];
      for (size_t k = 0; k < 4; ++k) out.strides[k].back() = stride(k, d);
    } else {
      out.dims.push_back(map.dims[d]);
      for (size_t k = 0; k < 4; ++k) out.strides[k].push_back(stride(k, d));
    }
  }
  return out;
}
}  // namespace

MapLaunch PrepareStridedMap(OpArgs& args, const StridedMap& uncollapsed, cl_mem y, cl_mem a,
                            cl_mem b, cl_mem c, MapOp op) {
  constexpr size_t kMaxRank = 8;  // kernels.cl's MAX_RANK
  const StridedMap map = Collapsed(uncollapsed);
  const size_t rank = map.dims.size();
  if (rank > kMaxRank) {
    throw Error("", args.layer.name, "shape",
                "the opencl backend handles tensors of up to 8 axes, not " + std::to_string(rank));
  }
  std::vector<cl_int> p(1 + 5 * kMaxRank + 4, 0);
  p[0] = static_cast<cl_int>(rank);
  for (size_t d = 0; d < rank; ++d) p[1 + d] = Int(map.dims[d]);
  for (size_t k = 0; k < 4; ++k) {
    for (size_t d = 0; d < map.strides[k].size() && d < rank; ++d) {
      p[1 + (k + 1) * kMaxRank + d] = Int(map.strides[k][d]);
    }
    p[1 + 5 * kMaxRank + k] = Int(map.base[k]);
  }
  MapLaunch launch;
  launch.kernel = args.Kernel("strided_map");
  launch.count = NumElements(map.dims);
  SetArgs(launch.kernel, y, a, b, c, args.Constant(p), Int(launch.count), cl_int{op});
  return launch;
}

const OpTable& Ops() {
  static const OpTable table = [] {
    OpTable t;
    AddComputeOps(&t);
    AddElementwiseOps(&t);
    AddLayoutOps(&t);
    AddAttentionOps(&t);
    return t;
  }();
  return table;
}

}  // namespace ntpb::opencl
