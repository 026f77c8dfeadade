// Reproducer, outside ntpbench, of the oneDNN 2.6 defect that src/backends/onednn/known_defects.h
// steps around: the gemm convolution (x64:gemm:jit, taken where no JIT kernel fits, as for an
// f32 1x1 convolution of 130 -> 300 channels under ONEDNN_MAX_CPU_ISA=SSE41) adds a binary
// post-op's operand from the wrong places when the tensors are NHWC. NCHW, or a sum post-op over
// the destination, come out right.
//
//   g++ -O2 -std=c++17 tools/repro/onednn_gemm_conv_binary_nhwc.cc -o /tmp/repro -ldnnl
//   ONEDNN_MAX_CPU_ISA=SSE41 /tmp/repro        # x64:gemm:jit, max abs error ~1.9: wrong
//   ONEDNN_MAX_CPU_ISA=SSE41 /tmp/repro nchw   # x64:gemm:jit, ~4e-7: right
//   /tmp/repro                                 # jit_1x1 on AVX-512 or AVX2: right
//
// Exits 1 when the result is wrong.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <dnnl.hpp>
#include <vector>

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

int main(int argc, char** argv) {
  const bool nchw = argc > 1 && std::strcmp(argv[1], "nchw") == 0;
  const tag layout = nchw ? tag::nchw : tag::nhwc;
  const int rows = 5, k = 130, n = 300;  // a dense layer of 5 rows as a 1x1 convolution
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  const dnnl::memory::desc src({1, k, rows, 1}, dt::f32, layout),
      dst({1, n, rows, 1}, dt::f32, layout), bias({n}, dt::f32, tag::x);
  dnnl::post_ops ops;
  ops.append_binary(dnnl::algorithm::binary_add, dst);
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  const dnnl::convolution_forward::primitive_desc pd(
      dnnl::convolution_forward::desc(
          dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src,
          dnnl::memory::desc({n, k, 1, 1}, dt::f32, tag::any), bias, dst, {1, 1}, {0, 0}, {0, 0}),
      attr, engine);
  dnnl::memory x(src, engine), y(dst, engine), addend(dst, engine), b(bias, engine),
      w_plain({{n, k, 1, 1}, dt::f32, tag::oihw}, engine), w(pd.weights_desc(), engine);
  auto* xs = static_cast<float*>(x.get_data_handle());
  auto* as = static_cast<float*>(addend.get_data_handle());
  auto* bs = static_cast<float*>(b.get_data_handle());
  auto* ws = static_cast<float*>(w_plain.get_data_handle());
  // Element (r, c) of a [rows, channels] tensor in the layout.
  auto at = [&](int r, int c, int channels) { return nchw ? c * rows + r : r * channels + c; };
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < k; ++c) xs[at(r, c, k)] = std::sin(0.3f * (r * k + c));
    for (int c = 0; c < n; ++c) as[at(r, c, n)] = std::cos(0.7f * (r * n + c));
  }
  for (int c = 0; c < n; ++c) bs[c] = 0.01f * c;
  for (int i = 0; i < n * k; ++i) ws[i] = 0.1f * std::sin(0.11f * i);
  dnnl::reorder(w_plain, w).execute(stream, w_plain, w);
  dnnl::convolution_forward(pd).execute(
      stream, {{DNNL_ARG_SRC, x},
               {DNNL_ARG_WEIGHTS, w},
               {DNNL_ARG_BIAS, b},
               {DNNL_ARG_DST, y},
               {DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, addend}});
  stream.wait();
  const auto* ys = static_cast<const float*>(y.get_data_handle());
  double error = 0;
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < n; ++c) {
      double sum = bs[c] + as[at(r, c, n)];
      for (int i = 0; i < k; ++i) sum += xs[at(r, i, k)] * ws[c * k + i];
      error = std::max(error, std::fabs(sum - ys[at(r, c, n)]));
    }
  }
  std::printf("%s, %s: max abs error %g\n", pd.impl_info_str(), nchw ? "nchw" : "nhwc", error);
  return error > 1e-4 ? 1 : 0;
}
