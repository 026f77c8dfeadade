#include "src/backends/random_data.h"

#include <cmath>
#include <random>

namespace ntpb {
namespace {

// FNV-1a over the name, mixed with the seed: independent streams per tensor, so adding a layer
// does not change the numbers of the others.
uint64_t StreamSeed(uint64_t seed, const std::string& name) {
  uint64_t h = 1469598103934665603ull ^ seed;
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::vector<float> Uniform(uint64_t seed, int64_t n, float lo, float hi) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = dist(rng);
  return v;
}

}  // namespace

std::vector<float> RandomWeight(uint64_t seed, const std::string& layer, const WeightSpec& spec) {
  const uint64_t s = StreamSeed(seed, layer + "/" + spec.name);
  const int64_t n = NumElements(spec.shape);
  switch (spec.init) {
    case WeightInit::kFanIn: {
      const float a = 1.0f / std::sqrt(static_cast<float>(std::max<int64_t>(spec.fan_in, 1)));
      return Uniform(s, n, -a, a);
    }
    case WeightInit::kOnes:
      return Uniform(s, n, 0.75f, 1.25f);
    case WeightInit::kZeros:
      return Uniform(s, n, -0.1f, 0.1f);
    case WeightInit::kVariance:
      return Uniform(s, n, 0.5f, 1.5f);
  }
  return {};
}

std::vector<float> RandomInput(uint64_t seed, const std::string& name, int64_t elements) {
  return Uniform(StreamSeed(seed, "input/" + name), elements, -1.0f, 1.0f);
}

}  // namespace ntpb
