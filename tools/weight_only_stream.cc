// The weight-only kernel's streaming rate at batch 1 against `ntpbench machine`'s DRAM read,
// alternating within one process (a VM's memory bandwidth moves within seconds, so each pass is set
// against the read just before it): llama (1.1B)'s dense layer shapes for 8 blocks (q, k, v, o,
// gate_up, fc2; 176 MiB in w4, more than a last-level cache), each run with 2 threads, for each
// `prefetch_ahead` given (WeightOnlyDense::prefetch_ahead, bytes; 0: none).
//
//   g++ -std=c++17 -O3 -march=native -fopenmp -I. -Iinclude -o weight_only_stream
//       tools/weight_only_stream.cc src/backends/onednn/weight_only_dense.cc
//       src/machine/ceiling_kernels.cc
//   ./weight_only_stream w4|w8 [AHEAD ...]      (default: 0 and the kernel's default)
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
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
int main(int argc, char** argv) {
  if (argc < 2 || (std::strcmp(argv[1], "w4") != 0 && std::strcmp(argv[1], "w8") != 0)) {
    std::fprintf(stderr, "usage: weight_only_stream w4|w8 [PREFETCH_AHEAD_BYTES ...]\n");
    return 2;
  }
  const int levels = std::strcmp(argv[1], "w8") == 0 ? 127 : 7;
  const int64_t in = 5632, out = 11264;  // x and y hold the largest layer's
  std::vector<WeightOnlyDense> layers;
  const int64_t shapes[6][2] = {{2048, 2048}, {2048, 256},   {2048, 256},
                                {2048, 2048}, {2048, 11264}, {5632, 2048}};
  for (int l = 0; l < 8; ++l)
    for (auto& sh : shapes) layers.emplace_back(Make(sh[0], sh[1], levels, l));
  double bytes = 0;
  for (auto& L : layers) bytes += L.packed.size() + L.scales.size() * 4.0;
  std::vector<float> x(in, 0.5f), y(out);
  std::vector<int64_t> variants;
  for (int i = 2; i < argc; ++i) variants.push_back(std::atoll(argv[i]));
  if (variants.empty()) variants = {0, layers[0].prefetch_ahead};
  std::vector<std::vector<double>> gbs(variants.size());
  std::vector<double> reads;
  for (int rep = 0; rep < 30; ++rep) {
    // `ntpbench machine`'s own read.dram probe (256 MiB on huge pages), one timing.
    reads.push_back(StreamBandwidth(StreamKind::kRead, 2, int64_t{256} << 20, 1).front());
    for (size_t v = 0; v < variants.size(); ++v) {
      for (auto& L : layers) L.prefetch_ahead = variants[v];
      auto t0 = std::chrono::steady_clock::now();
      for (auto& L : layers) L.Run(x.data(), 1, y.data(), 2);
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
    std::printf("ahead %lld: median %.1f GB/s, x read %.2f\n", (long long)variants[v], med(gbs[v]),
                med(ratio));
  }
}
