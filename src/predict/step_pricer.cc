// A step is priced from the samples of its own kind nearest to it in log FLOPs, log bytes, the log
// of the bytes its network moves, (half weighted) its activations read over written, the cache
// level its network's bytes fit in (past the last one, by the share it cannot keep) and the log of
// its network's FLOPs: the most specific kind the calibration sampled (conv2d[k3s1]+batchnorm+relu,
// else conv2d[k3s1], else conv2d+batchnorm+relu, else conv2d). Each neighbour's time is scaled by
// the ratio of the two steps' roofline-like cost, so that a neighbour twice the FLOPs of a
// compute-bound step counts as half its time; the neighbours' estimates are averaged in log space,
// weighted by closeness, and their spread is the interval. The part of a neighbour's time that does
// not grow with work (half its kind's shortest times; below every sample of its kind, at most its
// op's) is kept, not scaled. A step larger than every sample of its kind and over 3x from all of
// them is priced by its kind's own roofline instead (the rates its best samples reached): a
// scaled-up neighbour keeps the neighbour's efficiency, and large kernels run nearer their kind's
// best.
#include "src/predict/step_pricer.h"

#include <algorithm>
#include <cmath>

#include "src/common/statistics.h"

namespace ntpb {
namespace {

constexpr int kNeighbours = 4;
constexpr size_t kEnoughAtALevel = 3;  // fewer samples of a specific kind: a broader kind prices it
constexpr double kExtrapolation = 1.0986;  // log(3): every sample over 3x away
// Half as much as the others: the ratio of activations read to written (a shape's aspect).
// Measured on two held-out sets (Zen 3 VM, 2 threads and 1): 0.25, 0.5 and 1 against none,
// 0.5 best on both.
constexpr double kShapeWeight = 0.5;
// A network whose bytes fit another cache level than a sample's (the L2s against the L3, the
// L3 against memory) is as far from it as a step of e^2 times its work: a sample's weights came
// from where its network's bytes let them stay. Measured on four checks of the Intel Xeon guest
// (tools/recheck_predictions.py; weights 0, 1, 2 and 4 with the network's FLOPs at 0 to 2): a
// random MLP of 3.2 MB (bf16) ran its 2 MiB layer at 122 GB/s from the two 2 MiB L2s, where its
// nearest samples, in networks of 4.3-6.5 MB, ran at 58-81 GB/s.
constexpr double kCacheLevelWeight = 2;
// The log of the network's FLOPs per inference, as much as the others: GPT-2's decode step
// (31 MFLOP) ran its 768-wide projections in 28 us, BERT's pooler of the same shape and bytes
// (a network of 0.2-4 GFLOP) in 28-73 us.
constexpr double kContextFlopsWeight = 1;
// A kind's fixed time per step (a kernel's start and end, the threads' fork and join): this
// share of its shortest samples' time (their 2nd percentile), which a neighbour keeps unscaled.
// Scaled whole, a small sample priced a step of 4x its work at 4x its fixed time too (the tiny
// CNN's 3x3 stride-2 convolution at batch 1 on the Intel Xeon guest, bf16: +30%; +17% so; the
// network stays +14%, its max pool and residual add priced from probe layers that ran slower).
// Shares 0, 0.5, 1, 2 and 3 on four checks' measurements there (tools/recheck_predictions.py):
// within +-10% 89/82/95/39% (bf16 x3, f32), 89/86/95/39, 91/86/91/39, 91/82/93/39,
// 84/80/91/36; two other bf16 calibrations of the same day on the first two: 86/80 and 77/75 at
// 0, 86/80 and 80/80 at 0.5.
constexpr double kFixedShare = 0.5;

// Near the top (`percentile`), not the top: one lucky sample does not set the rate.
template <typename Samples, typename Get>
StepPricer::Scale ScaleOf(const Samples& samples, Get get, double percentile) {
  std::vector<double> flop_rates, byte_rates, times;
  for (const auto& item : samples) {
    const CalibrationSample& s = get(item);
    if (s.features.flops > 0) flop_rates.push_back(s.features.WorkFlops() / s.ms);
    if (s.features.bytes > 0) byte_rates.push_back(s.features.bytes / s.ms);
    times.push_back(s.ms);
  }
  StepPricer::Scale scale;
  if (!flop_rates.empty()) scale.flops_per_ms = Percentile(flop_rates, percentile);
  if (!byte_rates.empty()) scale.bytes_per_ms = Percentile(byte_rates, percentile);
  if (!times.empty()) scale.floor_ms = Percentile(times, 2);
  return scale;
}

double Log(double x) { return std::log(x + 1); }

// The op a kernel family belongs to: "conv2d" for "conv2d.winograd", "dense" for "dense.panels".
std::string OpOf(const std::string& family) { return family.substr(0, family.find('.')); }

std::vector<std::string> Levels(const StepFeatures& f) {
  std::vector<std::string> levels = {f.Signature()};
  if (!f.fused.empty() && !f.detail.empty()) levels.push_back(f.family + "[" + f.detail + "]");
  if (!f.detail.empty()) levels.push_back(f.family + f.fused);
  if (!f.fused.empty() || !f.detail.empty()) levels.push_back(f.family);
  return levels;
}

// In log FLOPs, log bytes, the log of the bytes its network moves (what is left in the caches)
// and the log of its activations read over written: how far a sample's work is from a step's.
double WorkDistance(const StepFeatures& a, const StepFeatures& b) {
  const double df = Log(a.WorkFlops()) - Log(b.WorkFlops()), db = Log(a.bytes) - Log(b.bytes);
  const double dc = Log(a.context_bytes) - Log(b.context_bytes);
  const double ds = kShapeWeight * ((Log(a.input_bytes) - Log(a.output_bytes)) -
                                    (Log(b.input_bytes) - Log(b.output_bytes)));
  return std::sqrt(df * df + db * db + dc * dc + ds * ds);
}

}  // namespace

double StepPricer::CachePosition(double context_bytes) const {
  double position = 0;
  for (size_t i = 0; i < cache_levels_.size(); ++i) {
    const double level = cache_levels_[i];
    if (context_bytes <= level) break;
    // The last level keeps a share of a network re-read in a cycle that outgrows it, a lower
    // level none: a last-level cache's replacement resists such thrashing (adaptive insertion),
    // an L2's evicts each line before its next use. Measured on held-out random MLPs: one of 35
    // MB on a Zen 4 VM (32 MiB L3) read its weights at 51 GB/s against a 35-37 GB/s DRAM read;
    // one of 5.2 MB on an Intel Xeon guest (2 x 2 MiB L2) at 50 GB/s, as from its L3, and priced
    // 35% fast as one partly in the L2s. The share falls off faster than level / bytes (what an
    // optimal replacement would keep): (level / bytes)^3 on six stored checks' measurements
    // (tools/recheck_predictions.py; Zen 4 f32 and bf16 on two checks each, the Intel guest's
    // two) within +-10% 98/93/82/75/39/73% against 95/91/80/75/36/73% at the power 1,
    // 98/93/82/75/36/73% at 2 and 95/91/82/75/39/73% keeping none.
    position += i + 1 == cache_levels_.size() ? 1 - std::pow(level / context_bytes, 3.0) : 1;
  }
  return position;
}

// The work's distance `dw` (WorkDistance), the cache level its network's bytes fit in and the
// log of its network's FLOPs (how long an inference runs between two uses of its weights).
double StepPricer::Distance(const StepFeatures& a, const StepFeatures& b, double dw) const {
  const double dl =
      kCacheLevelWeight * (CachePosition(a.context_bytes) - CachePosition(b.context_bytes));
  const double dn = a.context_flops > 0 && b.context_flops > 0
                        ? kContextFlopsWeight * (Log(a.context_flops) - Log(b.context_flops))
                        : 0;
  return std::sqrt(dw * dw + dl * dl + dn * dn);
}

std::string SamplePoint(const CalibrationSample& sample) {
  return sample.source.substr(0, sample.source.find(" / "));
}

double StepPricer::Scale::Cost(const StepFeatures& f) const {
  return std::max(f.WorkFlops() / flops_per_ms, f.bytes / bytes_per_ms) + floor_ms;
}

StepPricer::StepPricer(const LatencyCalibration& calibration) {
  entries_.reserve(calibration.samples.size());  // by_level_ points into it
  for (const CalibrationSample& s : calibration.samples) entries_.push_back({&s, SamplePoint(s)});
  for (const Entry& e : entries_) {
    for (const std::string& level : Levels(e.sample->features)) by_level_[level].push_back(&e);
  }
  for (size_t level = 1; level < calibration.cache_bytes.size(); ++level) {
    cache_levels_.push_back(static_cast<double>(calibration.cache_bytes[level]));
  }
  std::map<std::string, std::vector<double>> op_times;
  for (const Entry& e : entries_) op_times[OpOf(e.sample->features.family)].push_back(e.sample->ms);
  for (const auto& [op, times] : op_times) op_fixed_ms_[op] = kFixedShare * Percentile(times, 2);
  for (const auto& [level, entries] : by_level_) {
    std::vector<double> times;
    for (const Entry* e : entries) times.push_back(e->sample->ms);
    fixed_ms_[level] = kFixedShare * Percentile(times, 2);
  }
  scale_ = ScaleOf(
      calibration.samples, [](const CalibrationSample& s) -> const auto& { return s; }, 95);
}

StepPrice StepPricer::Price(const StepFeatures& step, const std::string& leave_out) const {
  StepPrice price;
  std::vector<const Entry*> pool;
  std::vector<std::string> levels = Levels(step);
  // An algorithm no sample has (one added after the calibration was made) that runs at about
  // the op's usual kernels' rate is priced by theirs rather than not at all.
  const bool sampled = std::any_of(levels.begin(), levels.end(),
                                   [&](const std::string& l) { return by_level_.count(l) > 0; });
  if (!sampled && !step.usual_family.empty()) levels.push_back(step.usual_family);
  for (const std::string& l : levels) {
    auto it = by_level_.find(l);
    if (it == by_level_.end()) continue;
    std::vector<const Entry*> kept;
    for (const Entry* e : it->second) {
      if (leave_out.empty() || e->point != leave_out) kept.push_back(e);
    }
    if (kept.empty()) continue;
    pool = std::move(kept);
    price.level = l;
    if (pool.size() >= kEnoughAtALevel) break;
  }
  if (pool.empty()) return price;
  std::vector<std::pair<double, const CalibrationSample*>> near;
  // The extrapolation is judged on the work alone: a step whose network differs from every
  // probe's is not one of a size never sampled.
  double nearest_work = 1e300;
  for (const Entry* e : pool) {
    const double work = WorkDistance(step, e->sample->features);
    nearest_work = std::min(nearest_work, work);
    near.push_back({Distance(step, e->sample->features, work), e->sample});
  }
  const size_t k = std::min<size_t>(kNeighbours, near.size());
  std::partial_sort(near.begin(), near.begin() + k, near.end(),
                    [](const auto& a, const auto& b) { return a.first < b.first; });
  double weights = 0, log_sum = 0;
  price.low_ms = 1e300;
  // Below the smallest of its kind, the kind's fixed time (half its shortest samples') says
  // nothing: a kind sampled only large (Winograd's, 0.15-1.8 ms on a Zen 4 VM) would keep 0.3 ms
  // of a 0.24 ms step. Its op's (conv2d's, from the cheapest convolutions) bounds it there.
  const bool smaller_than_all = std::all_of(pool.begin(), pool.end(), [&](const Entry* e) {
    return e->sample->features.WorkFlops() > step.WorkFlops();
  });
  const double own = scale_.Cost(step);
  const double fixed = smaller_than_all
                           ? std::min(fixed_ms_.at(price.level), op_fixed_ms_.at(OpOf(step.family)))
                           : fixed_ms_.at(price.level);
  for (size_t i = 0; i < k; ++i) {
    const CalibrationSample& s = *near[i].second;
    // Scaled whole where the fixed part is not below the sample's time, or the roofline-like
    // cost has nothing beyond its floor to scale by (a step of no work).
    const double sample_cost = scale_.Cost(s.features);
    const bool split = s.ms > fixed && own > scale_.floor_ms && sample_cost > scale_.floor_ms;
    const double estimate =
        split ? fixed + (s.ms - fixed) * (own - scale_.floor_ms) / (sample_cost - scale_.floor_ms)
              : s.ms * own / sample_cost;
    price.from.push_back({s.source, s.ms, estimate});
    const double w = 1 / ((near[i].first + 0.05) * (near[i].first + 0.05));
    weights += w;
    log_sum += w * std::log(estimate);
    price.low_ms = std::min(price.low_ms, estimate);
    price.high_ms = std::max(price.high_ms, estimate);
  }
  price.priced = true;
  price.ms = std::exp(log_sum / weights);
  price.extrapolated = nearest_work > kExtrapolation;
  // Beyond the largest of its kind: a kernel's efficiency grows with its work up to what the
  // kind reaches at best, which a smaller neighbour scaled up does not know; priced by the
  // kind's own roofline instead (the rates its best samples reached).
  const bool larger_than_all = std::all_of(pool.begin(), pool.end(), [&](const Entry* e) {
    return e->sample->features.WorkFlops() < step.WorkFlops();
  });
  if (price.extrapolated && larger_than_all && step.flops > 0) {
    const Scale kind = ScaleOf(
        pool, [](const Entry* e) -> const CalibrationSample& { return *e->sample; }, 90);
    price.ms = kind.Cost(step) - kind.floor_ms + scale_.floor_ms;
    price.low_ms = std::min(price.low_ms, price.ms);
    price.high_ms = std::max(price.high_ms, price.ms);
  }
  price.samples = static_cast<int>(k);
  price.own_kind = price.level == levels.front();
  const CalibrationSample& nearest = *near.front().second;
  price.nearest_flops_ratio = step.flops > 0 ? nearest.features.flops / step.flops : 0;
  return price;
}

}  // namespace ntpb
