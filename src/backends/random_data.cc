#include "src/backends/random_data.h"

#include <cmath>
#include <random>

#include "ntpbench/error.h"

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

std::vector<float> RandomIntegers(uint64_t seed, const std::string& name, int64_t elements,
                                  const IntegerRange& range) {
  std::mt19937_64 rng(StreamSeed(seed, "input/" + name));
  std::uniform_int_distribution<int64_t> dist(range.low, range.high - 1);
  std::vector<float> v(static_cast<size_t>(elements));
  for (float& x : v) x = static_cast<float>(dist(rng));
  return v;
}

std::vector<float> GraphInputValues(const RunConfig& config, const ResolvedTopology& t,
                                    const std::string& name, const Shape& shape) {
  auto given = config.inputs.find(name);
  if (given == config.inputs.end()) return RandomGraphInput(config.seed, t, name, shape);
  // One batch item's values stand for every item (a recording benchmarked at batch 4).
  const int64_t item = shape.empty() || shape[0] <= 0 ? 0 : NumElements(shape) / shape[0];
  if (item > 0 && shape[0] > 1 && static_cast<int64_t>(given->second.size()) == item) {
    std::vector<float> tiled;
    tiled.reserve(static_cast<size_t>(NumElements(shape)));
    for (int64_t n = 0; n < shape[0]; ++n) {
      tiled.insert(tiled.end(), given->second.begin(), given->second.end());
    }
    return tiled;
  }
  if (static_cast<int64_t>(given->second.size()) != NumElements(shape)) {
    throw Error(t.file, "", "inputs",
                "input '" + name + "' is given " + std::to_string(given->second.size()) +
                    " values; its shape " + ShapeToString(shape) + " holds " +
                    std::to_string(NumElements(shape)));
  }
  return given->second;
}

std::vector<float> RandomGraphInput(uint64_t seed, const ResolvedTopology& t,
                                    const std::string& name, const Shape& shape) {
  auto range = t.integer_inputs.find(name);
  return range == t.integer_inputs.end()
             ? RandomInput(seed, name, NumElements(shape))
             : RandomIntegers(seed, name, NumElements(shape), range->second);
}

}  // namespace ntpb
