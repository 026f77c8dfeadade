// The weight-only kernel's streaming rate at batch 1 against `ntpbench machine`'s DRAM read,
// alternating within one process (a VM's memory bandwidth moves within seconds, so each pass is set
// against the read just before it): llama (1.1B)'s dense layer shapes for 8 blocks (q, k, v, o,
// gate_up, fc2; 176 MiB in w4, more than a last-level cache), each run with 2 threads, for each
// `prefetch_ahead` given (WeightOnlyDense::prefetch_ahead, bytes; 0: none).
//
//   g++ -std=c++17 -O3 -march=native -fopenmp -I. -Iinclude -o weight_only_stream
//       tools/weight_only_stream.cc src/backends/onednn/weight_only_dense.cc
//       src/machine/ceiling_kernels.cc
//       src/common/error.cc src/common/printable.cc
//   ./weight_only_stream w4|w8 [[int-dot:|widened:]AHEAD ...]
//   (default: each kernel built here at 0 and at the kernel's default distance)
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "src/backends/onednn/weight_only_dense.h"
#include "src/machine/ceiling_kernels.h"

using namespace ntpb;
using namespace ntpb::onednn;
// Random int values of the width and scales, as QuantizeByGroups lays them out.
static GroupQuantizedWeights Make(int64_t in, int64_t out, int levels, unsigned seed) {
  GroupQuantizedWeights q;
  q.inputs = in;
  q.outputs = out;
  q.groups = (in + kWeightGroup - 1) / kWeightGroup;
  q.levels = levels;
  q.values.resize(in * out);
  q.scales.resize(q.groups * out);
  std::mt19937 r(seed);
  for (auto& v : q.values) v = static_cast<int8_t>(int(r() % (2 * levels + 1)) - levels);
  for (auto& s : q.scales) s = 0.01f * (1 + r() % 100);
  return q;
}
// A variant: "AHEAD" (the default kernel) or "KERNEL:AHEAD", KERNEL int-dot or widened.
struct Variant {
  WeightOnlyKernel kernel;
  int64_t ahead;
  std::string name;
};

int main(int argc, char** argv) {
  if (argc < 2 || (std::strcmp(argv[1], "w4") != 0 && std::strcmp(argv[1], "w8") != 0)) {
    std::fprintf(stderr, "usage: weight_only_stream w4|w8 [[int-dot:|widened:]AHEAD_BYTES ...]\n");
    return 2;
  }
  const int levels = std::strcmp(argv[1], "w8") == 0 ? 127 : 7;
  const int64_t in = 5632, out = 11264;  // x and y hold the largest layer's
  const int64_t shapes[6][2] = {{2048, 2048}, {2048, 256},   {2048, 256},
                                {2048, 2048}, {2048, 11264}, {5632, 2048}};
  std::vector<Variant> variants;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    const size_t colon = a.find(':');
    const std::string kernel = colon == std::string::npos ? "auto" : a.substr(0, colon);
    variants.push_back({WeightOnlyKernelFor(kernel),
                        std::atoll(a.c_str() + (colon == std::string::npos ? 0 : colon + 1)), a});
  }
  const WeightOnlyKernel best = WeightOnlyKernelFor("auto");
  if (variants.empty()) {
    variants = {{WeightOnlyKernel::kWidened, 0, "widened:0"},
                {WeightOnlyKernel::kWidened, WeightOnlyDense::kPrefetchAheadW8, "widened:default"}};
    if (best == WeightOnlyKernel::kIntegerDot) {
      variants.push_back({best, 0, "int-dot:0"});
      variants.push_back({best, WeightOnlyDense::kPrefetchAheadW8, "int-dot:default"});
    }
    const int64_t ahead =
        levels == 127 ? WeightOnlyDense::kPrefetchAheadW8 : WeightOnlyDense::kPrefetchAheadW4;
    for (Variant& v : variants) {
      if (v.ahead) v.ahead = ahead;
    }
  }
  // One set of layers per kernel (their panels differ).
  std::vector<std::vector<WeightOnlyDense>> layers(2);
  for (const Variant& v : variants) {
    auto& set = layers[static_cast<int>(v.kernel)];
    if (!set.empty()) continue;
    for (int l = 0; l < 8; ++l)
      for (auto& sh : shapes) set.emplace_back(Make(sh[0], sh[1], levels, l), v.kernel);
  }
  double bytes = 0;  // the same for either kernel but for w8's padding to 4 inputs (none here)
  for (auto& L : layers[static_cast<int>(variants[0].kernel)])
    bytes += L.packed.size() + L.scales.size() * 4.0;
  std::vector<float> x(in), y(out);
  std::mt19937 r(7);
  for (auto& v : x) v = std::uniform_real_distribution<float>(-1, 1)(r);
  std::vector<std::vector<double>> gbs(variants.size());
  std::vector<double> reads;
  for (int rep = 0; rep < 30; ++rep) {
    // `ntpbench machine`'s own read.dram probe (256 MiB on huge pages), one timing.
    reads.push_back(StreamBandwidth(StreamKind::kRead, 2, int64_t{256} << 20, 1).front());
    for (size_t v = 0; v < variants.size(); ++v) {
      auto& set = layers[static_cast<int>(variants[v].kernel)];
      for (auto& L : set) L.prefetch_ahead = variants[v].ahead;
      auto t0 = std::chrono::steady_clock::now();
      for (auto& L : set) L.Run(x.data(), 1, y.data(), 2);
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      gbs[v].push_back(bytes / s / 1e9);
    }
  }
  auto med = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::printf("%s, %s\n", argv[1],
              "median of 30 alternations; x read: each pass over the read before it");
  std::printf("read median %.1f GB/s (min %.1f max %.1f)\n", med(reads),
              *std::min_element(reads.begin(), reads.end()),
              *std::max_element(reads.begin(), reads.end()));
  for (size_t v = 0; v < variants.size(); ++v) {
    std::vector<double> ratio;
    for (size_t i = 0; i < reads.size(); ++i) ratio.push_back(gbs[v][i] / reads[i]);
    std::printf("%-16s median %.1f GB/s, x read %.2f\n", variants[v].name.c_str(), med(gbs[v]),
                med(ratio));
  }
}
