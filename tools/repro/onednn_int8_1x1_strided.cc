// Reproducer, outside ntpbench, of the oneDNN 2.6 defect that src/backends/onednn/known_defects.h
// steps around: jit_uni_int8_1x1 (AVX2, SSE4.1) computes a strided u8 x s8 1x1 convolution
// wrongly, differently from run to run, when the input channels are an odd number of SIMD
// blocks, on 2 threads.
//
//   g++ -O2 -std=c++17 tools/repro/onednn_int8_1x1_strided.cc -o /tmp/repro -ldnnl
//   ONEDNN_MAX_CPU_ISA=AVX2 OMP_NUM_THREADS=2 /tmp/repro 8     # wrong in 0-137 of 200 runs
//   ONEDNN_MAX_CPU_ISA=AVX2 OMP_NUM_THREADS=2 /tmp/repro 16    # right
//   ONEDNN_MAX_CPU_ISA=SSE41 OMP_NUM_THREADS=2 /tmp/repro 12   # wrong
//
// Arguments: input channels (default 8), stride (2), batch (2). Exits 1 when any run is wrong.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dnnl.hpp>
#include <random>
#include <unordered_map>
#include <vector>

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

int main(int argc, char** argv) {
  const int ic = argc > 1 ? std::atoi(argv[1]) : 8, stride = argc > 2 ? std::atoi(argv[2]) : 2,
            mb = argc > 3 ? std::atoi(argv[3]) : 2;
  const int oc = 16, h = 16, oh = (h - 1) / stride + 1;
  const float oscale = 0.002f;  // small inputs and weights: no u8 x s8 pair saturates int16
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  const dnnl::memory::desc src_md({mb, ic, h, h}, dt::u8, tag::nhwc),
      dst_md({mb, oc, oh, oh}, dt::u8, tag::nhwc), bias_md({oc}, dt::f32, tag::a);
  dnnl::primitive_attr attr;
  attr.set_output_scales(0, {oscale});
  dnnl::convolution_forward::primitive_desc pd(
      dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                      dnnl::algorithm::convolution_direct, src_md,
                                      dnnl::memory::desc({oc, ic, 1, 1}, dt::s8, tag::any), bias_md,
                                      dst_md, {stride, stride}, {0, 0}, {0, 0}),
      attr, engine);
  std::printf("oneDNN %d.%d.%d, %s, ic %d, stride %d, batch %d\n", dnnl_version()->major,
              dnnl_version()->minor, dnnl_version()->patch, pd.impl_info_str(), ic, stride, mb);

  std::mt19937 rng(1);
  std::vector<uint8_t> src(static_cast<size_t>(mb) * ic * h * h);
  std::vector<int8_t> weights(static_cast<size_t>(oc) * ic);
  std::vector<float> bias(oc);
  for (auto& v : src) v = static_cast<uint8_t>(rng() % 64);
  for (auto& v : weights) v = static_cast<int8_t>(static_cast<int>(rng() % 63) - 31);
  for (auto& v : bias) v = static_cast<float>(static_cast<int>(rng() % 21) - 10);
  std::vector<uint8_t> expected(static_cast<size_t>(mb) * oh * oh * oc);
  for (int n = 0; n < mb; ++n)
    for (int y = 0; y < oh; ++y)
      for (int x = 0; x < oh; ++x)
        for (int o = 0; o < oc; ++o) {
          int32_t acc = 0;
          for (int c = 0; c < ic; ++c)
            acc += src[((static_cast<size_t>(n) * h + y * stride) * h + x * stride) * ic + c] *
                   weights[static_cast<size_t>(o) * ic + c];
          const float v = std::nearbyint((static_cast<float>(acc) + bias[o]) * oscale);
          expected[((static_cast<size_t>(n) * oh + y) * oh + x) * oc + o] =
              static_cast<uint8_t>(std::min(255.0f, std::max(0.0f, v)));
        }

  dnnl::memory src_m(src_md, engine, src.data()), bias_m(bias_md, engine, bias.data()),
      dst_m(dst_md, engine), weights_m(pd.weights_desc(), engine);
  dnnl::memory user_weights({{oc, ic, 1, 1}, dt::s8, tag::oihw}, engine, weights.data());
  dnnl::reorder(user_weights, weights_m).execute(stream, user_weights, weights_m);
  const dnnl::convolution_forward conv(pd);
  int wrong_runs = 0;
  for (int run = 0; run < 200; ++run) {
    std::memset(dst_m.get_data_handle(), 0, expected.size());
    conv.execute(stream, {{DNNL_ARG_SRC, src_m},
                          {DNNL_ARG_WEIGHTS, weights_m},
                          {DNNL_ARG_BIAS, bias_m},
                          {DNNL_ARG_DST, dst_m}});
    stream.wait();
    const auto* out = static_cast<const uint8_t*>(dst_m.get_data_handle());
    int off = 0;
    for (size_t i = 0; i < expected.size(); ++i) off += std::abs(out[i] - expected[i]) > 1;
    if (off > 0 && ++wrong_runs <= 3) {
      std::printf("run %d: %d of %zu values wrong\n", run, off, expected.size());
    }
  }
  std::printf("%d of 200 runs wrong\n", wrong_runs);
  return wrong_runs > 0 ? 1 : 0;
}
