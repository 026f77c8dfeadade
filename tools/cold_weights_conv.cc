// What a convolution loses when its weights come from memory, as they do in a network whose
// weights outgrow the last-level cache (ResNet-50's 98 MB against a 32 MiB L3): each shape runs
// as oneDNN's convolution (NHWC, what the backend plans under AVX-512) and, for a 1x1, as the
// matmul it is ([N*H*W, C] x [C, F], the same memory), with a relu after, 2 threads; "warm" runs
// one copy of the weights again and again, "cold" turns through 12 copies (12 x the weights, past
// the L3), as a network reaches each layer. Prints the median of 7 timings of 100 runs each.
// Measured on a 2-core AMD EPYC Zen 5 VM (family 26 model 2, AVX-512, 1 MiB L2 per core, 32 MiB
// L3; `ntpbench machine`: f32 GEMM 547 GFLOP/s, DRAM read 55-94 GB/s as the host's memory moved
// between regimes), oneDNN 2.6.3, two runs minutes apart, GFLOP/s warm / cold:
//   3x3, 512 -> 512 at 7x7 (brgconv, 9 MiB):   634-675 / 440-459 (ResNet-50's /Conv_48 and
//                                               /Conv_51: 0.52-0.54 ms in the network = cold)
//   the same as im2col + 1x1 (4608 -> 512):     conv 503-525 / 430-437, matmul 514-536 / 436-455
//   1x1, 2048 -> 512 at 7x7 (4 MiB):            conv 368-508 / 335-443, matmul 425-512 / 457-491
//   1x1, 512 -> 2048 at 7x7:                    conv 503-531 / 384-494, matmul 499-527 / 407-479
//   1x1, 1024 -> 256 and 256 -> 1024 at 14x14:  conv 447-541 either, matmul 463-552
//   1x1, 960 -> 160 and 160 -> 960 at 7x7:      conv 478-537 either, matmul 375-415
//   1x1, 320 -> 1280 at 7x7:                    conv 513-548 / 512-532, matmul 510-535 / 510-513
//   1x1, 512 -> 1024 to 14x14, stride 2:        512 / 490 (stride 1 at 14x14: 531 / 529)
// So ResNet-50's last stage (7x7, 55 of its 98 MB of weights) runs at ~0.8 of the GEMM roof in
// the network: its 3x3 convolutions' 9 MiB of weights cost ~140-180 us each over their compute
// (~345 us), whichever kernel multiplies them (the im2col matmul as the convolution); the two
// cores both compute, and the stream the hardware prefetchers see does not overlap the
// multiply-adds. The matmul is ahead only at 2048 -> 512 and only some of the time (not taken
// into the backend: behind at the few-channel shapes MobileNet v2 has); a strided 1x1 as a
// subsample and a 1x1 would save ~5% of the layer at most.
//
// Each shape also runs on ntpbench's streamed convolution (src/backends/onednn/streamed_conv.h,
// onednn.streamed_conv), checked against oneDNN's result. Same VM, 2026-12-01, us warm /
// cold (cold without its software prefetch), oneDNN's beside:
//   3x3, 512 -> 512 at 7x7:        495-507 / 508-524 (613-630)   oneDNN 397-408 / 578-628
//   1x1, 2048 -> 512 at 7x7:       220-222 / 225-236 (264-275)   oneDNN 224-228 / 265-274
//   1x1, 512 -> 2048 at 7x7:       231 / 243 (281)               oneDNN 214 / 258
//   3x3 s2, 512 -> 512 to 14x14:   2101 / 2060 (2169)            oneDNN 1952 / 2272
// So from memory it is 7-18% faster, from the cache up to 1.25x slower (its tile of 6 pixels x
// 64 filters runs at ~465 GFLOP/s warm, oneDNN's 3x3 brgconv at ~575); the prefetch of the next
// block is worth 10-20% of it cold.
// Another 2-core Zen 5 class guest ("Oxide Virtual Turin-like", AVX-512, 1 MiB L2 per core; it
// reports a 508 MiB L3, its reads fall to the DRAM rate past 64 MiB), 2026-12-02, in a slower
// regime (oneDNN's 3x3 warm at ~410 GFLOP/s), us warm / cold, oneDNN's beside:
//   3x3, 512 -> 512 at 7x7:        675 / 757                     oneDNN 564 / 880
//   3x3 s2, 512 -> 512 to 7x7:     637 / 698                     oneDNN 592 / 827
//   1x1, 2048 -> 512 at 7x7:       294 / 362                     oneDNN 306 / 400
//   1x1, 512 -> 2048 at 7x7:       291-306 / 329-354             oneDNN 274-276 / 313-344
//   1x1 s2, 512 -> 1024 to 14x14:  578-605 / 581-627             oneDNN 628-844 / 620-940
// A third such guest ("AMD EPYC", family 26 model 2), 2026-12-02 evening, us warm / cold,
// oneDNN's beside (whence onednn.streamed_conv=small leaves 1x1s to oneDNN):
//   3x3, 512 -> 512 at 7x7:        659 / 780                     oneDNN 573 / 892
//   1x1, 2048 -> 512 at 7x7:       333 / 382                     oneDNN 316 / 376
//   1x1, 512 -> 2048 at 7x7:       320 / 392                     oneDNN 285 / 351
//   1x1 s2, 1024 -> 2048 to 7x7:   650-660 / 818-822             oneDNN 615-622 / 725-749
//   1x1 s2, 512 -> 1024 to 14x14:  624-640 / 647-663             oneDNN 835-850 / 886-893
//   1x1 s2, 256 -> 512 to 28x28:   675-691 / 693-721             oneDNN 577-580 / 604-622
// The same guest, later that day, the tile's sums kept in registers over a block's taps (the
// weights packed [panel][block][tap][channel]) against stored and loaded at every tap, 3x3
// 512 -> 512 at 7x7, alternating 6 times: warm 622-691 (median ~664) against 647-708 (~679),
// cold 674-821 (~722) against 718-768 (~755); blocks of 16, 32, 64 or 256 channels instead
// of 128 ran slower (warm 663-725 us).
//
//   g++ -std=c++17 -O2 -march=native -ffp-contract=fast -fopenmp -I. -o cold_weights_conv \
//       tools/cold_weights_conv.cc src/backends/onednn/streamed_conv.cc -ldnnl
//   OMP_NUM_THREADS=2 ./cold_weights_conv            (every shape above)
//   OMP_NUM_THREADS=2 ./cold_weights_conv 14 512 1024 1 2   (SIZE C_IN C_OUT KERNEL [STRIDE]:
//                                                           one shape; SIZE the output's)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dnnl.hpp>
#include <random>
#include <unordered_map>
#include <vector>

#include "src/backends/onednn/streamed_conv.h"

namespace {

using dnnl::memory;
using dt = memory::data_type;
using tag = memory::format_tag;
using Args = std::unordered_map<int, memory>;

// Median microseconds per run of `p`; with `copies`, each run reads the next copy's weights.
double MedianMicroseconds(dnnl::stream& s, dnnl::primitive& p, Args args,
                          const std::vector<memory>& copies) {
  auto run = [&](int i) {
    if (!copies.empty()) args[DNNL_ARG_WEIGHTS] = copies[static_cast<size_t>(i) % copies.size()];
    p.execute(s, args);
  };
  for (int i = 0; i < 24; ++i) run(i);
  s.wait();
  std::vector<double> us;
  for (int r = 0; r < 7; ++r) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < 100; ++i) run(i);
    s.wait();
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
                     .count() /
                 100);
  }
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

std::vector<memory> Copies(const memory::desc& d, const dnnl::engine& e, int n) {
  std::vector<memory> copies;
  for (int i = 0; i < n; ++i) {
    copies.emplace_back(d, e);
    std::memset(copies.back().get_data_handle(), 0, d.get_size());  // touched: no page faults
  }
  return copies;
}

Args Bind(const dnnl::engine& e, const memory::desc& src, const memory::desc& w,
          const memory::desc& b, const memory::desc& dst) {
  Args args{{DNNL_ARG_SRC, memory(src, e)},
            {DNNL_ARG_WEIGHTS, memory(w, e)},
            {DNNL_ARG_BIAS, memory(b, e)},
            {DNNL_ARG_DST, memory(dst, e)}};
  for (auto& [arg, m] : args) std::memset(m.get_data_handle(), 0, m.get_desc().get_size());
  return args;
}

// ntpbench's streamed convolution (streamed_conv.h) on the same shape: its largest difference
// from oneDNN's result on random values (relu after both), then warm and cold, with and without
// its software prefetch.
void StreamedColumns(const dnnl::engine& e, dnnl::stream& s, dnnl::primitive& conv,
                     const dnnl::convolution_forward::primitive_desc& pd, int size, int c, int f,
                     int k, int stride, double flops) {
  if (f % ntpb::onednn::StreamedConv::PanelWidth() != 0) return;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  const int in_size = size * stride;
  std::vector<float> x(static_cast<size_t>(in_size) * in_size * c), w(size_t(f) * c * k * k),
      bias(static_cast<size_t>(f)), y(size_t(size) * size * f), ref(y.size());
  for (auto* v : {&x, &w, &bias}) {
    for (float& value : *v) value = u(rng);
  }
  ntpb::onednn::StreamedConvShape shape;
  shape.channels = c;
  shape.filters = f;
  shape.height = shape.width = in_size;
  shape.out_height = shape.out_width = size;
  shape.kernel_h = shape.kernel_w = k;
  shape.stride_h = shape.stride_w = stride;
  shape.pad_top = shape.pad_left = k / 2;
  std::vector<ntpb::onednn::StreamedConv> copies;
  for (int i = 0; i < 12; ++i) copies.emplace_back(shape, w, bias, 2);
  for (auto& copy : copies) copy.low = 0.0f;
  // oneDNN's result on the same values.
  memory src(pd.src_desc(), e, x.data()), dst(pd.dst_desc(), e, ref.data()),
      b(pd.bias_desc(), e, bias.data()), weights(pd.weights_desc(), e);
  memory user(memory::desc({f, c, k, k}, dt::f32, tag::oihw), e, w.data());
  dnnl::reorder(user, weights).execute(s, user, weights);
  conv.execute(
      s,
      {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_BIAS, b}, {DNNL_ARG_DST, dst}});
  s.wait();
  copies[0].Run(x.data(), nullptr, y.data());
  double worst = 0.0;
  for (size_t i = 0; i < y.size(); ++i) worst = std::max<double>(worst, std::abs(y[i] - ref[i]));
  auto median = [&](int n_copies, bool prefetch) {
    for (int i = 0; i < 24; ++i) copies[i % n_copies].Run(x.data(), nullptr, y.data(), prefetch);
    std::vector<double> us;
    for (int r = 0; r < 7; ++r) {
      const auto start = std::chrono::steady_clock::now();
      for (int i = 0; i < 100; ++i) copies[i % n_copies].Run(x.data(), nullptr, y.data(), prefetch);
      us.push_back(
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
              .count() /
          100);
    }
    std::sort(us.begin(), us.end());
    return us[us.size() / 2];
  };
  const double warm = median(1, true), cold = median(12, true), cold_plain = median(12, false);
  std::printf(
      "; streamed (max |diff| %.1e) warm %.1f us (%.0f), cold %.1f us (%.0f), cold "
      "without prefetch %.1f us (%.0f)",
      worst, warm, flops / warm / 1e3, cold, flops / cold / 1e3, cold_plain,
      flops / cold_plain / 1e3);
}

// A convolution of `size` x `size` outputs (inputs stride times as large).
void Shape(const dnnl::engine& e, dnnl::stream& s, int size, int c, int f, int k, int stride) {
  dnnl::post_ops relu;
  relu.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
  dnnl::primitive_attr attr;
  attr.set_post_ops(relu);
  const memory::dims pad{k / 2, k / 2};
  const dnnl::convolution_forward::primitive_desc conv_pd(
      dnnl::convolution_forward::desc(
          dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
          memory::desc({1, c, size * stride, size * stride}, dt::f32, tag::nhwc),
          memory::desc({f, c, k, k}, dt::f32, tag::any), memory::desc({f}, dt::f32, tag::x),
          memory::desc({1, f, size, size}, dt::f32, tag::nhwc), {stride, stride}, pad, pad),
      attr, e);
  dnnl::primitive conv = dnnl::convolution_forward(conv_pd);
  const Args conv_args =
      Bind(e, conv_pd.src_desc(), conv_pd.weights_desc(), conv_pd.bias_desc(), conv_pd.dst_desc());
  const double flops = 2.0 * size * size * c * f * k * k;
  const double conv_warm = MedianMicroseconds(s, conv, conv_args, {});
  const double conv_cold =
      MedianMicroseconds(s, conv, conv_args, Copies(conv_pd.weights_desc(), e, 12));
  std::printf(
      "%dx%d %d -> %d, %dx%d stride %d: %s warm %.1f us (%.0f GFLOP/s), cold %.1f us (%.0f)", size,
      size, c, f, k, k, stride, conv_pd.impl_info_str(), conv_warm, flops / conv_warm / 1e3,
      conv_cold, flops / conv_cold / 1e3);
  StreamedColumns(e, s, conv, conv_pd, size, c, f, k, stride, flops);
  if (k == 1 && stride == 1) {
    const int rows = size * size;
    const dnnl::matmul::primitive_desc mm_pd(
        dnnl::matmul::desc(
            memory::desc({rows, c}, dt::f32, tag::ab), memory::desc({c, f}, dt::f32, tag::any),
            memory::desc({1, f}, dt::f32, tag::ab), memory::desc({rows, f}, dt::f32, tag::ab)),
        attr, e);
    dnnl::primitive mm = dnnl::matmul(mm_pd);
    const Args mm_args =
        Bind(e, mm_pd.src_desc(), mm_pd.weights_desc(), mm_pd.bias_desc(), mm_pd.dst_desc());
    const double mm_warm = MedianMicroseconds(s, mm, mm_args, {});
    const double mm_cold = MedianMicroseconds(s, mm, mm_args, Copies(mm_pd.weights_desc(), e, 12));
    std::printf("; matmul warm %.1f us (%.0f), cold %.1f us (%.0f)", mm_warm, flops / mm_warm / 1e3,
                mm_cold, flops / mm_cold / 1e3);
  }
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  dnnl::engine e(dnnl::engine::kind::cpu, 0);
  dnnl::stream s(e);
  if (argc == 5 || argc == 6) {
    Shape(e, s, std::atoi(argv[1]), std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]),
          argc == 6 ? std::atoi(argv[5]) : 1);
    return 0;
  }
  if (argc != 1) {
    std::fprintf(stderr, "usage: cold_weights_conv [SIZE C_IN C_OUT KERNEL [STRIDE]]\n");
    return 2;
  }
  const int shapes[][5] = {{7, 512, 512, 3, 1},   {7, 4608, 512, 1, 1},  {7, 2048, 512, 1, 1},
                           {7, 512, 2048, 1, 1},  {14, 1024, 256, 1, 1}, {14, 256, 1024, 1, 1},
                           {7, 960, 160, 1, 1},   {7, 160, 960, 1, 1},   {7, 320, 1280, 1, 1},
                           {14, 512, 1024, 1, 2}, {14, 512, 1024, 1, 1}};
  for (const auto& shape : shapes) Shape(e, s, shape[0], shape[1], shape[2], shape[3], shape[4]);
  return 0;
}
