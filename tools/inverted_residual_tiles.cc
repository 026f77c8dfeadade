// Would a fused inverted-residual block (MobileNet v2's expand 1x1 -> depthwise 3x3 -> project
// 1x1, + the residual) win if built from oneDNN's own kernels over bands of rows? Runs one block
// both ways, f32 NHWC, 2 threads, and prints the medians (and the largest difference of the two
// outputs, which must be 0):
//  - unfused: the three convolutions over the whole image, as ntpbench's plan runs them;
//  - fused: each thread a band of output rows, in tiles of R rows: the expanded rows a tile needs
//    (the ones shared with the tile before moved to the top of a buffer, not computed again) from
//    a matmul over those rows, the depthwise convolution on the buffer, the projection (a matmul,
//    the residual a binary post-op) into the output; every primitive made with its own
//    scratchpad (two threads running one primitive share oneDNN's) and run inside the threads'
//    OpenMP region (where oneDNN runs it on the calling thread).
// Measured on a 2-core AMD EPYC Zen 4 VM (1 MiB L2 per core, 32 MiB L3), oneDNN 2.6.3, medians of
// 1000 runs: MobileNet v2's features.3 (24 -> 144 -> 24 channels at 56x56, stride 1) unfused
// 0.311-0.356 ms; fused per thread, matmul route, 1.03-1.25x that at R = 4, 8, 14 and 28 (28: one
// band a thread, no tiling, still 1.09x); the convolution route 1.08-1.21x; shared tiles 1.19x
// at R = 28, 1.9x at R = 8; with the L2s flushed before each run 1.05-1.10x. features.2 (16 ->
// 96 -> 24, 112x112, stride 2) 1.06-1.13x, shared 1.27x. Single-threaded primitives in the
// threads' own region lose more than the tiles' locality gains: alone, the three convolutions
// keep the 1.8 MB expanded tensor in the two L2s anyway, which in the network (the same three
// steps took 0.35-0.46 ms there) they did not always. Not built into the backend (README,
// "Against ONNX Runtime").
// ROUTE=own runs the backend's own kernel instead (src/backends/onednn/inverted_residual.h), a
// row at a time: warm and alone 0.94-1.10x the three convolutions on features.2 to .8, 1.10-1.16x
// on features.12 and .15; with 64 MiB touched before each run (as the rest of a network would)
// features.2 0.84x (0.40 against 0.48 ms), .3 0.81x, .4 0.84x, .5 0.87x, .7 0.81x, .8 0.88x,
// .12 1.12x, .15 1.33x.
//
//   g++ -std=c++17 -O2 -march=native -ffp-contract=fast -fopenmp -I. -o inverted_residual_tiles \
//       tools/inverted_residual_tiles.cc src/backends/onednn/inverted_residual.cc -ldnnl
//   ./inverted_residual_tiles C_IN C_EXPANDED SIZE STRIDE C_OUT ROWS   (e.g. 24 144 56 1 24 8)
//   FLUSH=MIB ./inverted_residual_tiles ...   (MIB MiB touched by both threads before each run)
//   ROUTE=conv ...       the 1x1 steps as convolutions over a tile's rows (default: matmuls)
//   ROUTE=own ...        the block's own kernels, a row at a time (ROWS unused)
//   SCHEDULE=shared ...  the tiles in turn over the whole image, each primitive on oneDNN's
//                        threads (default: each thread a band of rows of its own)
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <oneapi/dnnl/dnnl.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/backends/onednn/inverted_residual.h"

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;

namespace {

constexpr int kThreads = 2;
std::vector<char>* flush_buffer = nullptr;

double MedianMs(const std::function<void()>& f, int runs = 1000) {
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    if (flush_buffer) {
#pragma omp parallel for num_threads(kThreads)
      for (size_t j = 0; j < flush_buffer->size(); j += 64) (*flush_buffer)[j]++;
    }
    const auto start = std::chrono::steady_clock::now();
    f();
    times.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

std::vector<float> Values(size_t n, int mul, int mod, float scale, float offset) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>((i * mul) % mod) * scale + offset;
  return v;
}

void Copy(const std::vector<float>& from, memory& to) {
  std::memcpy(to.get_data_handle(), from.data(), from.size() * sizeof(float));
}

primitive_attr Clip6(bool user_scratchpad) {
  primitive_attr a;
  post_ops p;
  p.append_eltwise(1, algorithm::eltwise_clip, 0, 6);
  a.set_post_ops(p);
  if (user_scratchpad) a.set_scratchpad_mode(scratchpad_mode::user);
  return a;
}

// An f32 forward convolution of square stride and padding given per side (top/left, bottom/
// right), a 1x1 one by default.
convolution_forward::primitive_desc Convolution(const engine& eng, const memory::desc& src,
                                                const memory::desc& weights,
                                                const memory::desc& bias, const memory::desc& dst,
                                                const primitive_attr& attr, memory::dim stride = 1,
                                                memory::dims pad_l = {0, 0},
                                                memory::dims pad_r = {0, 0}) {
  return convolution_forward::primitive_desc({prop_kind::forward_inference,
                                              algorithm::convolution_direct,
                                              src,
                                              weights,
                                              bias,
                                              dst,
                                              {stride, stride},
                                              pad_l,
                                              pad_r},
                                             attr, eng);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 7) {
    std::fprintf(stderr, "usage: %s C_IN C_EXPANDED SIZE STRIDE C_OUT ROWS\n", argv[0]);
    return 2;
  }
  const int C = std::atoi(argv[1]), E = std::atoi(argv[2]), H = std::atoi(argv[3]),
            S = std::atoi(argv[4]), CO = std::atoi(argv[5]), R = std::atoi(argv[6]);
  if (C <= 0 || E <= 0 || H <= 2 || (S != 1 && S != 2) || CO <= 0 || R <= 0) {
    std::fprintf(stderr, "%s: sizes must be positive, SIZE > 2, STRIDE 1 or 2\n", argv[0]);
    return 2;
  }
  const int W = H, HO = H / S, WO = W / S;
  const bool residual = S == 1 && C == CO;
  engine eng(engine::kind::cpu, 0);
  stream st(eng);

  const std::vector<float> input = Values(size_t(H) * W * C, 7919, 13, 0.05f, -0.3f);
  const std::vector<float> w1 = Values(size_t(E) * C, 7919, 13, 0.05f, -0.3f);   // [E][C]
  const std::vector<float> w2 = Values(size_t(E) * 9, 31, 11, 0.05f, -0.25f);    // [E][3][3]
  const std::vector<float> w3 = Values(size_t(CO) * E, 7919, 13, 0.05f, -0.3f);  // [CO][E]
  const std::vector<float> b1 = Values(E, 3, 7, 0.1f, -0.2f), b3 = Values(CO, 5, 7, 0.1f, -0.2f);

  // Unfused: the three convolutions over the whole image.
  memory::desc src({1, C, H, W}, dt::f32, tag::nhwc), mid({1, E, H, W}, dt::f32, tag::nhwc),
      dw_out({1, E, HO, WO}, dt::f32, tag::nhwc), out({1, CO, HO, WO}, dt::f32, tag::nhwc);
  memory::desc any_w1({E, C, 1, 1}, dt::f32, tag::any), bias1({E}, dt::f32, tag::a),
      any_w2({E, 1, 1, 3, 3}, dt::f32, tag::any), any_w3({CO, E, 1, 1}, dt::f32, tag::any),
      bias3({CO}, dt::f32, tag::a);
  primitive_attr sum;
  if (residual) {
    post_ops p;
    p.append_sum(1.f);
    sum.set_post_ops(p);
  }
  const auto pd1 = Convolution(eng, src, any_w1, bias1, mid, Clip6(false));
  const auto pd2 = Convolution(eng, mid, any_w2, bias1, dw_out, Clip6(false), S, {1, 1}, {1, 1});
  const auto pd3 = Convolution(eng, dw_out, any_w3, bias3, out, sum);
  std::printf("unfused: %s | %s | %s\n", pd1.impl_info_str(), pd2.impl_info_str(),
              pd3.impl_info_str());
  memory m_src(src, eng), m_w1(pd1.weights_desc(), eng), m_b1(bias1, eng), m_mid(mid, eng),
      m_w2(pd2.weights_desc(), eng), m_dw(dw_out, eng), m_w3(pd3.weights_desc(), eng),
      m_b3(bias3, eng), m_unfused(out, eng), m_fused(out, eng);
  Copy(input, m_src);
  Copy(b1, m_b1);
  Copy(b3, m_b3);
  auto reorder_from = [&](const std::vector<float>& plain, const memory::desc& plain_desc,
                          memory& to) {
    memory from(plain_desc, eng, const_cast<float*>(plain.data()));
    reorder(from, to).execute(st, from, to);
  };
  reorder_from(w1, {{E, C, 1, 1}, dt::f32, tag::oihw}, m_w1);
  reorder_from(w2, {{E, 1, 1, 3, 3}, dt::f32, tag::goihw}, m_w2);
  reorder_from(w3, {{CO, E, 1, 1}, dt::f32, tag::oihw}, m_w3);
  convolution_forward c1(pd1), c2(pd2), c3(pd3);
  auto unfused = [&] {
    c1.execute(st, {{DNNL_ARG_SRC, m_src},
                    {DNNL_ARG_WEIGHTS, m_w1},
                    {DNNL_ARG_BIAS, m_b1},
                    {DNNL_ARG_DST, m_mid}});
    c2.execute(st, {{DNNL_ARG_SRC, m_mid},
                    {DNNL_ARG_WEIGHTS, m_w2},
                    {DNNL_ARG_BIAS, m_b1},
                    {DNNL_ARG_DST, m_dw}});
    if (residual) std::memcpy(m_unfused.get_data_handle(), input.data(), out.get_size());
    c3.execute(st, {{DNNL_ARG_SRC, m_dw},
                    {DNNL_ARG_WEIGHTS, m_w3},
                    {DNNL_ARG_BIAS, m_b3},
                    {DNNL_ARG_DST, m_unfused}});
  };

  // Fused: primitives per row count (a band's last tile is shorter, its first reads one more
  // row), each with a scratchpad the calling thread passes. ROUTE=conv runs the 1x1 steps as
  // convolutions over the tile's rows (an image of `rows` rows), else as matmuls over them.
  const char* route = std::getenv("ROUTE");
  const bool conv_route = route && std::string(route) == "conv";
  const int in_rows_max = S * (R - 1) + 3;
  auto rows_md = [&](int rows, int width, int channels) {
    return conv_route ? memory::desc({1, channels, rows, width}, dt::f32, tag::nhwc)
                      : memory::desc({rows * width, channels}, dt::f32, tag::ab);
  };
  const memory::desc f_bias1 = conv_route ? bias1 : memory::desc({1, E}, dt::f32, tag::ab),
                     f_bias3 = conv_route ? bias3 : memory::desc({1, CO}, dt::f32, tag::ab);
  struct Made {
    primitive made;
    memory::desc weights;
    size_t scratchpad;
    std::string impl;
  };
  auto one_by_one = [&](int rows, int width, int in, int out_channels, const memory::desc& bias,
                        const primitive_attr& attr) -> Made {
    if (conv_route) {
      const auto pd = Convolution(eng, rows_md(rows, width, in),
                                  memory::desc({out_channels, in, 1, 1}, dt::f32, tag::any), bias,
                                  rows_md(rows, width, out_channels), attr);
      return {convolution_forward(pd), pd.weights_desc(), pd.scratchpad_desc().get_size(),
              pd.impl_info_str()};
    }
    matmul::primitive_desc pd(
        {rows_md(rows, width, in), memory::desc({in, out_channels}, dt::f32, tag::any), bias,
         rows_md(rows, width, out_channels)},
        attr, eng);
    return {matmul(pd), pd.weights_desc(), pd.scratchpad_desc().get_size(), pd.impl_info_str()};
  };
  auto expand = [&](int rows) { return one_by_one(rows, W, C, E, f_bias1, Clip6(true)); };
  auto project = [&](int rows) {
    primitive_attr a;
    if (residual) {
      post_ops p;
      p.append_binary(algorithm::binary_add, rows_md(rows, WO, CO));
      a.set_post_ops(p);
    }
    a.set_scratchpad_mode(scratchpad_mode::user);
    return one_by_one(rows, WO, E, CO, f_bias3, a);
  };
  auto depthwise_pd = [&](int out_rows) {
    const int in_rows = S * (out_rows - 1) + 3;
    return Convolution(eng, memory::desc({1, E, in_rows, W}, dt::f32, tag::nhwc), any_w2, bias1,
                       memory::desc({1, E, out_rows, WO}, dt::f32, tag::nhwc), Clip6(true), S,
                       {0, 1}, {0, 1});
  };
  std::map<int, primitive> expands, projects;
  std::map<int, convolution_forward> depthwises;
  size_t scratchpad = 0;
  std::string impl;
  memory::desc expand_weights, project_weights;
  for (int r = 1; r <= R; ++r) {
    Made p = project(r);
    const auto d = depthwise_pd(r);
    scratchpad = std::max({scratchpad, p.scratchpad, d.scratchpad_desc().get_size()});
    if (r == R) impl = " | " + std::string(d.impl_info_str()) + " | " + p.impl;
    project_weights = p.weights;
    projects.emplace(r, std::move(p.made));
    depthwises.emplace(r, convolution_forward(d));
  }
  for (int r = 1; r <= in_rows_max; ++r) {
    Made p = expand(r);
    scratchpad = std::max(scratchpad, p.scratchpad);
    if (r == R) impl = p.impl + impl;
    expand_weights = p.weights;
    expands.emplace(r, std::move(p.made));
  }
  std::printf("fused: %s\n", impl.c_str());
  memory f_w1(expand_weights, eng), f_b1(f_bias1, eng), f_w2(depthwise_pd(R).weights_desc(), eng),
      f_w3(project_weights, eng), f_b3(f_bias3, eng);
  if (conv_route) {
    reorder_from(w1, {{E, C, 1, 1}, dt::f32, tag::oihw}, f_w1);
    reorder_from(w3, {{CO, E, 1, 1}, dt::f32, tag::oihw}, f_w3);
  } else {
    reorder_from(w1, {{C, E}, dt::f32, tag::ba}, f_w1);  // [E][C] read as C x E
    reorder_from(w3, {{E, CO}, dt::f32, tag::ba}, f_w3);
  }
  reorder_from(w2, {{E, 1, 1, 3, 3}, dt::f32, tag::goihw}, f_w2);
  Copy(b1, f_b1);
  Copy(b3, f_b3);
  std::vector<std::vector<float>> expanded(kThreads,
                                           std::vector<float>(size_t(in_rows_max) * W * E)),
      depthwise_rows(kThreads, std::vector<float>(size_t(R) * WO * E));
  std::vector<std::vector<char>> pads(kThreads, std::vector<char>(scratchpad + 64));
  float* const fused_out = static_cast<float*>(m_fused.get_data_handle());
  // Output rows [first, end) with thread t's buffers.
  auto band = [&](int t, int first, int end) {
    {
      const size_t row = size_t(W) * E;  // floats in an expanded row
      float* const ebuf = expanded[t].data();
      float* const dbuf = depthwise_rows[t].data();
      stream s(eng);
      memory pad({{static_cast<memory::dim>(scratchpad)}, dt::u8, tag::a}, eng, pads[t].data());
      int have_lo = 0, have_hi = 0;  // the expanded rows [have_lo, have_hi) at ebuf's top
      for (int y = first; y < end; y += R) {
        const int rows = std::min(R, end - y);
        const int lo = S * y - 1, hi = S * (y + rows - 1) + 2;  // input rows needed
        int next = lo;
        if (have_hi > have_lo && have_lo <= lo && lo < have_hi) {
          std::memmove(ebuf, ebuf + size_t(lo - have_lo) * row,
                       size_t(have_hi - lo) * row * sizeof(float));
          next = have_hi;
        }
        for (; next < hi && next < 0; ++next) {  // the padding row above the image
          std::memset(ebuf + size_t(next - lo) * row, 0, row * sizeof(float));
        }
        const int last = std::min(hi, H);
        if (last > next) {
          memory e_src(rows_md(last - next, W, C), eng,
                       const_cast<float*>(input.data()) + size_t(next) * W * C);
          memory e_dst(rows_md(last - next, W, E), eng, ebuf + size_t(next - lo) * row);
          expands.at(last - next)
              .execute(s, {{DNNL_ARG_SRC, e_src},
                           {DNNL_ARG_WEIGHTS, f_w1},
                           {DNNL_ARG_BIAS, f_b1},
                           {DNNL_ARG_DST, e_dst},
                           {DNNL_ARG_SCRATCHPAD, pad}});
        }
        for (int z = std::max(last, next); z < hi; ++z) {  // the padding row below
          std::memset(ebuf + size_t(z - lo) * row, 0, row * sizeof(float));
        }
        have_lo = lo;
        have_hi = hi;
        memory d_src({{1, E, hi - lo, W}, dt::f32, tag::nhwc}, eng, ebuf);
        memory d_dst({{1, E, rows, WO}, dt::f32, tag::nhwc}, eng, dbuf);
        depthwises.at(rows).execute(s, {{DNNL_ARG_SRC, d_src},
                                        {DNNL_ARG_WEIGHTS, f_w2},
                                        {DNNL_ARG_BIAS, m_b1},
                                        {DNNL_ARG_DST, d_dst},
                                        {DNNL_ARG_SCRATCHPAD, pad}});
        memory p_src(rows_md(rows, WO, E), eng, dbuf);
        memory p_dst(rows_md(rows, WO, CO), eng, fused_out + size_t(y) * WO * CO);
        std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, p_src},
                                                {DNNL_ARG_WEIGHTS, f_w3},
                                                {DNNL_ARG_BIAS, f_b3},
                                                {DNNL_ARG_DST, p_dst},
                                                {DNNL_ARG_SCRATCHPAD, pad}};
        if (residual) {
          args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1] = memory(
              rows_md(rows, WO, CO), eng, const_cast<float*>(input.data()) + size_t(y) * W * C);
        }
        projects.at(rows).execute(s, args);
      }
    }
  };
  // ROUTE=own: the backend's kernel (its weights in the IR's layout: w1 [E][C], w2 [E][3][3],
  // w3 [CO][E]), run on its own threads.
  const bool own_route = route && std::string(route) == "own";
  ntpb::onednn::InvertedResidualShape own_shape;
  own_shape.height = H;
  own_shape.width = W;
  own_shape.channels = C;
  own_shape.expanded = E;
  own_shape.outputs = CO;
  own_shape.stride = S;
  own_shape.residual = residual;
  ntpb::onednn::InvertedResidual own(own_shape, {w1, b1, 0.f, 6.f}, {w2, b1, 0.f, 6.f}, {w3, b3},
                                     kThreads);
  if (own_route) std::printf("own: ntpbench's inverted residual kernel, a row at a time\n");
  // SCHEDULE=shared: the tiles one after another over the whole image, each primitive run by
  // oneDNN's own threads; else each thread a band of its own.
  const char* schedule = std::getenv("SCHEDULE");
  const bool shared = schedule && std::string(schedule) == "shared";
  auto fused = [&] {
    if (shared) {
      band(0, 0, HO);
      return;
    }
    if (own_route) {
      own.Run(input.data(), fused_out);
      return;
    }
#pragma omp parallel num_threads(kThreads)
    {
      const int t = omp_get_thread_num(), n = omp_get_num_threads();
      band(t, HO * t / n, HO * (t + 1) / n);
    }
  };

  unfused();
  fused();
  // The matmul route sums in the convolutions' order (the same outputs to the bit); the
  // convolution route may not (another kernel at a tile's size): within rounding.
  double largest = 0, magnitude = 0;
  const float* a = static_cast<const float*>(m_unfused.get_data_handle());
  for (size_t i = 0; i < out.get_size() / sizeof(float); ++i) {
    largest = std::max(largest, static_cast<double>(std::fabs(a[i] - fused_out[i])));
    magnitude = std::max(magnitude, static_cast<double>(std::fabs(a[i])));
  }
  const char* flush_mib = std::getenv("FLUSH");
  std::vector<char> flush(size_t(flush_mib ? std::max(1, std::atoi(flush_mib)) : 0) << 20);
  if (flush_mib) flush_buffer = &flush;
  for (int round = 0; round < 3; ++round) {
    const double u = MedianMs(unfused), f = MedianMs(fused);
    std::printf(
        "C %d E %d %dx%d stride %d C_out %d, %d-row tiles: unfused %.4f ms, fused %.4f ms "
        "(%.2fx); largest difference %.2g\n",
        C, E, H, W, S, CO, R, u, f, f / u, largest);
  }
  // The own kernels sum in another order: within rounding of the magnitudes summed.
  return largest <= (own_route ? 1e-5 : 1e-6) * (1 + magnitude) ? 0 : 1;
}
