// The one place that spells ntpbench's counter names: a region's counters are
// "<region>.<metric>"; the network's region is "net", a step's "layer.<step>", a marker's its
// name; "mem" and "acc" hold the memory signature and the accuracy delta.
#include <algorithm>
#include <climits>
#include <cmath>
#include <iterator>
#include <limits>
#include <set>

#include "ntpbench/results.h"
#include "src/common/region_names.h"

namespace ntpb {

namespace rn = region_names;

namespace {

// Metrics of every timed region (steps, markers).
constexpr const char* kMs = "ms";
constexpr const char* kRegionP50Ms = "p50_ms";  // with kMinMs, kMaxMs below
constexpr const char* kDeviceMs = "device_ms";
constexpr const char* kTimeShare = "time_share";
constexpr const char* kGflops = "gflops";
// A step's description: numbers, since Google Benchmark's counters hold nothing else.
constexpr const char* kOrder = "order";
constexpr const char* kFusedLayers = "fused_layers";
constexpr const char* kFeeds = "feeds";
constexpr const char* kInlay = "inlay";  // the inlay's op, as its index in kInlayOps + 1

// What a backend inserts as a step of its own; "inlay" (0) for anything else. Append only: the
// index is what the JSON holds.
constexpr const char* kInlayOps[] = {"reorder", "quantize", "dequantize", "copy"};

// The network's own metrics.
constexpr const char* kSamplesPerSecond = "samples_per_second";
constexpr const char* kP50Ms = "p50_ms";
constexpr const char* kP90Ms = "p90_ms";
constexpr const char* kP99Ms = "p99_ms";
constexpr const char* kMinMs = "min_ms";
constexpr const char* kMaxMs = "max_ms";
constexpr const char* kLatencySamples = "latency_samples";
constexpr const char* kStepSamples = "step_samples";
constexpr const char* kCountedIterations = "counted_iterations";
constexpr const char* kCountedMs = "counted_ms";
// The memory signature's.
constexpr const char* kActivationBytes = "activation_bytes";
constexpr const char* kPeakRssBytes = "peak_rss_bytes";
// The accuracy delta's.
constexpr const char* kMaxRelErr = "max_rel_err";
constexpr const char* kCosine = "cosine";
struct AccuracyField {
  const char* name;
  double OutputAccuracy::*value;
};
constexpr AccuracyField kAccuracyFields[] = {
    {kMaxRelErr, &OutputAccuracy::max_rel_err},
    {kCosine, &OutputAccuracy::cosine},
    {"rms_rel_err", &OutputAccuracy::rms_rel_err},
    {"logits_rms_rel_err", &OutputAccuracy::logits_rms_rel_err},
    {"logits_cosine", &OutputAccuracy::logits_cosine},
    {"top1_agreement", &OutputAccuracy::top1_agreement},
    {"top5_overlap", &OutputAccuracy::top5_overlap},
    {"predictions", &OutputAccuracy::predictions},
    {"inputs", &OutputAccuracy::inputs}};
// A step's error against the reference's same layer.
constexpr const char* kStepRmsRelErr = "rms_rel_err";

// A scenario's numbers, "scenario.<name>"; its kind as the enum's value.
constexpr const char* kScenarioKind = "kind";
struct ScenarioField {
  const char* name;
  double ScenarioMeasure::*value;
};
constexpr ScenarioField kScenarioFields[] = {
    {"queries", &ScenarioMeasure::queries},
    {"queries_needed", &ScenarioMeasure::queries_needed},
    {"samples_per_query", &ScenarioMeasure::samples_per_query},
    {"target_qps", &ScenarioMeasure::target_qps},
    {"achieved_qps", &ScenarioMeasure::achieved_qps},
    {"p99_bound_ms", &ScenarioMeasure::p99_bound_ms},
    {"max_qps", &ScenarioMeasure::max_qps}};
// The generate scenario's own, recorded for it alone.
constexpr ScenarioField kGenerateFields[] = {
    {"prompt_tokens", &ScenarioMeasure::prompt_tokens},
    {"gen_tokens", &ScenarioMeasure::gen_tokens},
    {"ttft_p50_ms", &ScenarioMeasure::ttft_p50_ms},
    {"ttft_p90_ms", &ScenarioMeasure::ttft_p90_ms},
    {"ttft_p99_ms", &ScenarioMeasure::ttft_p99_ms},
    {"tpot_p50_ms", &ScenarioMeasure::tpot_p50_ms},
    {"tpot_p90_ms", &ScenarioMeasure::tpot_p90_ms},
    {"tpot_p99_ms", &ScenarioMeasure::tpot_p99_ms},
    {"prefill_tokens_per_s", &ScenarioMeasure::prefill_tokens_per_s},
    {"decode_tokens_per_s", &ScenarioMeasure::decode_tokens_per_s},
    {"tokens_per_s", &ScenarioMeasure::tokens_per_s},
    {"kv_cache_bytes", &ScenarioMeasure::kv_cache_bytes},
    {"decode_steps", &ScenarioMeasure::decode_steps}};
constexpr const char* kStreams = "streams";
constexpr const char* kThreadsPerStream = "threads_per_stream";

// How busy the machine was, "interference.<name>".
struct InterferenceField {
  const char* name;
  double InterferenceMeasure::*value;
};
constexpr InterferenceField kInterferenceFields[] = {
    {"seconds", &InterferenceMeasure::seconds},
    {"involuntary_switches", &InterferenceMeasure::involuntary_switches},
    {"involuntary_switches_per_core_s", &InterferenceMeasure::involuntary_switches_per_core_second},
    {"steal_share", &InterferenceMeasure::steal_share},
    {"others_share", &InterferenceMeasure::others_share},
    {"mdape", &InterferenceMeasure::mdape},
    {"core_to_core_ns", &InterferenceMeasure::core_to_core_ns}};

std::string Of(const std::string& region, const std::string& metric) {
  return region + "." + metric;
}
std::string StepRegion(const std::string& step) { return Of(rn::kLayer, step); }

struct MetricEntry {
  Metric metric;
  const char* name;
  bool analytic;
};
constexpr MetricEntry kMetrics[] = {
    {Metric::kFlops, "net.flops", true},
    {Metric::kParams, "net.params", true},
    {Metric::kWeightBytes, "mem.weight_bytes", true},
    {Metric::kPeakActivationBytes, "mem.peak_activation_bytes", true},
    {Metric::kWorkspaceBytes, "mem.workspace_bytes", false},
    {Metric::kActivationBytes, "mem.activation_bytes", false},
    {Metric::kAllocs, "net.allocs", false},
    {Metric::kAllocBytes, "net.alloc_bytes", false},
    {Metric::kPeakRssBytes, "mem.peak_rss_bytes", false},
};

const MetricEntry& EntryOf(Metric metric) {
  for (const MetricEntry& e : kMetrics) {
    if (e.metric == metric) return e;
  }
  return kMetrics[0];  // unreachable: every Metric has an entry
}

int InlayOpCode(const std::string& op) {
  for (std::size_t i = 0; i < std::size(kInlayOps); ++i) {
    if (op == kInlayOps[i]) return static_cast<int>(i) + 1;
  }
  return 0;
}
// A counter read back as an int: a file may hold anything (NaN, 1e300), never UB.
int ToInt(double value) {
  if (!(value > -1e9 && value < 1e9)) return 0;
  return static_cast<int>(value);
}

std::string InlayOpName(double code) {
  const int i = ToInt(code) - 1;
  return i >= 0 && i < static_cast<int>(std::size(kInlayOps)) ? kInlayOps[i] : "inlay";
}

// Splits "<region>.<metric>" at the last dot: metric names hold none, region names may.
bool SplitLast(const std::string& counter, std::string* region, std::string* metric) {
  const std::size_t dot = counter.rfind('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == counter.size()) return false;
  *region = counter.substr(0, dot);
  *metric = counter.substr(dot + 1);
  return true;
}

// Fills a timed region's fields from one of its metrics; others go to its counters.
void SetRegionMetric(RegionMeasure* r, const std::string& metric, double value) {
  if (metric == kMs) {
    r->ms = value;
  } else if (metric == kTimeShare) {
    r->time_share = value;
  } else if (metric == kGflops) {
    r->gflops = value;
  } else if (metric == kDeviceMs) {
    r->device_ms = value;
  } else if (metric == kRegionP50Ms) {
    r->p50_ms = value;
  } else if (metric == kMinMs) {
    r->min_ms = value;
  } else if (metric == kMaxMs) {
    r->max_ms = value;
  } else {
    r->counters[metric] = value;
  }
}

void EncodeRegion(const std::string& region, const RegionMeasure& r,
                  std::vector<EncodedCounter>* out) {
  out->push_back({Of(region, kMs), r.ms});
  out->push_back({Of(region, kTimeShare), r.time_share});
  out->push_back({Of(region, kGflops), r.gflops});
  if (r.device_ms > 0) out->push_back({Of(region, kDeviceMs), r.device_ms});
  if (r.max_ms > 0) {
    out->push_back({Of(region, kRegionP50Ms), r.p50_ms});
    out->push_back({Of(region, kMinMs), r.min_ms});
    out->push_back({Of(region, kMaxMs), r.max_ms});
  }
  for (const auto& [metric, value] : r.counters) out->push_back({Of(region, metric), value});
}

}  // namespace

const char* StepKindName(StepKind kind) {
  switch (kind) {
    case StepKind::kLayer:
      return "layer";
    case StepKind::kFused:
      return "fused";
    case StepKind::kInlay:
      return "inlay";
  }
  return "layer";
}

const StepMeasure* RunMeasurement::FindStep(const std::string& name) const {
  for (const StepMeasure& s : steps) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

const MarkerMeasure* RunMeasurement::FindMarker(const std::string& name) const {
  for (const MarkerMeasure& m : markers) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

const char* MetricName(Metric metric) { return EntryOf(metric).name; }
bool IsAnalytic(Metric metric) { return EntryOf(metric).analytic; }

std::optional<Metric> MetricOfCounter(const std::string& counter) {
  for (const MetricEntry& e : kMetrics) {
    if (counter == e.name) return e.metric;
  }
  return std::nullopt;
}

std::optional<std::string> CounterValueProblem(const std::string& counter, double value) {
  std::string region, metric;
  SplitLast(counter, &region, &metric);
  // An error against the reference is infinite where the outputs were not finite (bf16 or i8
  // overflowing): a measurement, not a damaged number.
  const bool error = metric.size() >= 7 && metric.compare(metric.size() - 7, 7, "rel_err") == 0;
  if (error && value == std::numeric_limits<double>::infinity()) return std::nullopt;
  if (!std::isfinite(value)) return std::string("expected a finite number");
  if (std::fpclassify(value) == FP_SUBNORMAL) return std::string("a denormal number");
  const bool cosine = metric == kCosine || metric == "logits_cosine";
  if (cosine) {
    if (value < -1.0 - 1e-6 || value > 1.0 + 1e-6) return std::string("a cosine outside -1 to 1");
    return std::nullopt;
  }
  if (value < 0) return std::string("expected a number >= 0");
  static const std::set<std::string> kWholeNumbers = {kOrder,
                                                      kFusedLayers,
                                                      kFeeds,
                                                      kInlay,
                                                      kLatencySamples,
                                                      kStepSamples,
                                                      kCountedIterations,
                                                      kScenarioKind,
                                                      kStreams,
                                                      kThreadsPerStream,
                                                      "queries",
                                                      "queries_needed",
                                                      "samples_per_query",
                                                      "prompt_tokens",
                                                      "gen_tokens",
                                                      "decode_steps",
                                                      "predictions",
                                                      "inputs"};
  if (kWholeNumbers.count(metric) && (value != std::floor(value) || value >= 9007199254740992.0)) {
    return std::string("expected a whole number below 2^53");
  }
  // Sizes and operation counts: what a 64-bit machine can hold or do in one inference.
  const bool size_or_count =
      metric == "flops" || metric == "params" || metric == "allocs" ||
      (metric.size() >= 5 && metric.compare(metric.size() - 5, 5, "bytes") == 0);
  if (size_or_count && value >= 9.3e18) return std::string("expected a size below 2^63");
  return std::nullopt;
}

std::optional<double> MetricValue(const RunMeasurement& m, Metric metric) {
  switch (metric) {
    case Metric::kFlops:
      return m.net.flops;
    case Metric::kParams:
      return m.net.params;
    case Metric::kWeightBytes:
      return m.memory.weight_bytes;
    case Metric::kPeakActivationBytes:
      return m.memory.peak_activation_bytes;
    case Metric::kWorkspaceBytes:
      return m.memory.workspace_bytes;
    case Metric::kActivationBytes:
      return m.memory.activation_bytes;
    case Metric::kAllocs:
      return m.memory.allocs;
    case Metric::kAllocBytes:
      return m.memory.alloc_bytes;
    case Metric::kPeakRssBytes:
      return m.memory.peak_rss_bytes;
  }
  return std::nullopt;
}

bool IsStepCounter(const std::string& counter) {
  return counter.rfind(std::string(rn::kLayer) + ".", 0) == 0;
}

bool IsHeadlineCounter(const std::string& counter) {
  for (const char* metric : {kSamplesPerSecond, kP50Ms, kP99Ms}) {
    if (counter == Of(rn::kNet, metric)) return true;
  }
  return counter == Of(rn::kAcc, kCosine);  // a lower precision's cost in accuracy
}

std::vector<EncodedCounter> EncodeCounters(const RunMeasurement& m) {
  std::vector<EncodedCounter> out;
  const NetworkMeasure& n = m.net;
  out.push_back({Of(rn::kNet, kSamplesPerSecond), n.samples_per_second});
  out.push_back({Of(rn::kNet, kGflops), n.gflops});
  out.push_back({MetricName(Metric::kFlops), n.flops});
  out.push_back({MetricName(Metric::kParams), n.params});
  out.push_back({Of(rn::kNet, kP50Ms), n.p50_ms});
  out.push_back({Of(rn::kNet, kP90Ms), n.p90_ms});
  out.push_back({Of(rn::kNet, kP99Ms), n.p99_ms});
  if (n.latency_samples > 0) {
    out.push_back({Of(rn::kNet, kMinMs), n.min_ms});
    out.push_back({Of(rn::kNet, kMaxMs), n.max_ms});
    out.push_back({Of(rn::kNet, kLatencySamples), n.latency_samples});
  }
  if (n.step_samples > 0) out.push_back({Of(rn::kNet, kStepSamples), n.step_samples});
  if (n.counted_iterations > 0) {
    out.push_back({Of(rn::kNet, kCountedIterations), n.counted_iterations});
    out.push_back({Of(rn::kNet, kCountedMs), n.counted_ms});
  }
  for (const auto& [metric, value] : n.counters) out.push_back({Of(rn::kNet, metric), value});
  if (const std::optional<ScenarioMeasure>& sc = m.scenario) {
    out.push_back({Of(rn::kScenario, kScenarioKind), static_cast<double>(sc->kind)});
    out.push_back({Of(rn::kScenario, kStreams), static_cast<double>(sc->streams)});
    out.push_back(
        {Of(rn::kScenario, kThreadsPerStream), static_cast<double>(sc->threads_per_stream)});
    for (const ScenarioField& f : kScenarioFields) {
      out.push_back({Of(rn::kScenario, f.name), (*sc).*f.value});
    }
    if (sc->kind == ScenarioKind::kGenerate) {
      for (const ScenarioField& f : kGenerateFields) {
        out.push_back({Of(rn::kScenario, f.name), (*sc).*f.value,
                       f.value == &ScenarioMeasure::kv_cache_bytes});
      }
    }
  }
  if (const std::optional<InterferenceMeasure>& in = m.interference) {
    for (const InterferenceField& f : kInterferenceFields) {
      out.push_back({Of(rn::kInterference, f.name), (*in).*f.value});
    }
  }
  const MemorySignature& mem = m.memory;
  out.push_back({MetricName(Metric::kWeightBytes), mem.weight_bytes, true});
  out.push_back({MetricName(Metric::kPeakActivationBytes), mem.peak_activation_bytes, true});
  if (mem.workspace_bytes) {
    out.push_back({MetricName(Metric::kWorkspaceBytes), *mem.workspace_bytes, true});
  }
  if (mem.activation_bytes) {
    out.push_back({MetricName(Metric::kActivationBytes), *mem.activation_bytes, true});
  }
  if (mem.peak_rss_bytes) {
    out.push_back({MetricName(Metric::kPeakRssBytes), *mem.peak_rss_bytes, true});
  }
  if (mem.allocs) out.push_back({MetricName(Metric::kAllocs), *mem.allocs});
  if (mem.alloc_bytes) out.push_back({MetricName(Metric::kAllocBytes), *mem.alloc_bytes});
  if (m.accuracy) {
    for (const AccuracyField& f : kAccuracyFields) {
      out.push_back({Of(rn::kAcc, f.name), (*m.accuracy).*f.value});
    }
  }
  for (const MarkerMeasure& marker : m.markers) EncodeRegion(marker.name, marker.measure, &out);
  for (const StepMeasure& s : m.steps) {
    const std::string region = StepRegion(s.name);
    EncodeRegion(region, s.measure, &out);
    if (s.order >= 0) out.push_back({Of(region, kOrder), static_cast<double>(s.order)});
    if (s.kind == StepKind::kFused) {
      out.push_back({Of(region, kFusedLayers), static_cast<double>(s.fused_layers)});
    }
    if (s.kind == StepKind::kInlay) {
      out.push_back({Of(region, kInlay), static_cast<double>(InlayOpCode(s.inlay_op))});
      if (s.feeds >= 0) out.push_back({Of(region, kFeeds), static_cast<double>(s.feeds)});
    }
    if (s.rms_rel_err >= 0) out.push_back({Of(region, kStepRmsRelErr), s.rms_rel_err});
  }
  for (const auto& [name, value] : m.other) out.push_back({name, value});
  return out;
}

RunMeasurement DecodeCounters(const std::map<std::string, double>& counters) {
  RunMeasurement m;
  const std::string net = std::string(rn::kNet) + ".", acc = std::string(rn::kAcc) + ".",
                    scenario = std::string(rn::kScenario) + ".",
                    interference = std::string(rn::kInterference) + ".";
  std::map<std::string, StepMeasure> steps;
  std::map<std::string, MarkerMeasure> markers;
  // A marker is a region with a time; its other counters follow it.
  std::set<std::string> marker_names;
  for (const auto& [name, value] : counters) {
    std::string region, metric;
    if (!IsStepCounter(name) && SplitLast(name, &region, &metric) && metric == kMs &&
        !rn::ReservedRegionPrefix(region)) {
      marker_names.insert(region);
    }
  }
  for (const auto& [name, value] : counters) {
    std::string region, metric;
    const bool split = SplitLast(name, &region, &metric);
    if (const std::optional<Metric> known = MetricOfCounter(name)) {
      switch (*known) {
        case Metric::kFlops:
          m.net.flops = value;
          break;
        case Metric::kParams:
          m.net.params = value;
          break;
        case Metric::kWeightBytes:
          m.memory.weight_bytes = value;
          break;
        case Metric::kPeakActivationBytes:
          m.memory.peak_activation_bytes = value;
          break;
        case Metric::kWorkspaceBytes:
          m.memory.workspace_bytes = value;
          break;
        case Metric::kActivationBytes:
          m.memory.activation_bytes = value;
          break;
        case Metric::kAllocs:
          m.memory.allocs = value;
          break;
        case Metric::kAllocBytes:
          m.memory.alloc_bytes = value;
          break;
        case Metric::kPeakRssBytes:
          m.memory.peak_rss_bytes = value;
          break;
      }
    } else if (IsStepCounter(name) && split && region.size() > std::string(rn::kLayer).size() + 1) {
      const std::string step = region.substr(std::string(rn::kLayer).size() + 1);
      StepMeasure& s = steps[step];
      s.name = step;
      if (metric == kOrder) {
        s.order = ToInt(value);
      } else if (metric == kFusedLayers) {
        s.fused_layers = ToInt(value);
        if (s.kind != StepKind::kInlay && s.fused_layers > 0) s.kind = StepKind::kFused;
      } else if (metric == kInlay) {
        s.kind = StepKind::kInlay;
        s.inlay_op = InlayOpName(value);
      } else if (metric == kFeeds) {
        s.feeds = ToInt(value);
      } else if (metric == kStepRmsRelErr) {
        s.rms_rel_err = value;
      } else {
        SetRegionMetric(&s.measure, metric, value);
      }
    } else if (name.rfind(net, 0) == 0) {
      const std::string metric_name = name.substr(net.size());
      if (metric_name == kSamplesPerSecond) {
        m.net.samples_per_second = value;
      } else if (metric_name == kGflops) {
        m.net.gflops = value;
      } else if (metric_name == kP50Ms) {
        m.net.p50_ms = value;
      } else if (metric_name == kP90Ms) {
        m.net.p90_ms = value;
      } else if (metric_name == kP99Ms) {
        m.net.p99_ms = value;
      } else if (metric_name == kMinMs) {
        m.net.min_ms = value;
      } else if (metric_name == kMaxMs) {
        m.net.max_ms = value;
      } else if (metric_name == kLatencySamples) {
        m.net.latency_samples = value;
      } else if (metric_name == kStepSamples) {
        m.net.step_samples = value;
      } else if (metric_name == kCountedIterations) {
        m.net.counted_iterations = value;
      } else if (metric_name == kCountedMs) {
        m.net.counted_ms = value;
      } else {
        m.net.counters[metric_name] = value;
      }
    } else if (name.rfind(scenario, 0) == 0) {
      if (!m.scenario) m.scenario.emplace();
      const std::string field = name.substr(scenario.size());
      if (field == kScenarioKind) {
        const int kind = ToInt(value);  // a file may hold any number
        m.scenario->kind =
            IsScenarioKind(kind) ? static_cast<ScenarioKind>(kind) : ScenarioKind::kOffline;
      } else if (field == kStreams) {
        m.scenario->streams = ToInt(value);
      } else if (field == kThreadsPerStream) {
        m.scenario->threads_per_stream = ToInt(value);
      } else {
        bool known = false;
        for (const ScenarioField& f : kScenarioFields) {
          if (field == f.name) (*m.scenario).*f.value = value, known = true;
        }
        for (const ScenarioField& f : kGenerateFields) {
          if (field == f.name) (*m.scenario).*f.value = value, known = true;
        }
        if (!known) m.other[name] = value;
      }
    } else if (name.rfind(interference, 0) == 0) {
      if (!m.interference) m.interference.emplace();
      const std::string field = name.substr(interference.size());
      bool known = false;
      for (const InterferenceField& f : kInterferenceFields) {
        if (field == f.name) (*m.interference).*f.value = value, known = true;
      }
      if (!known) m.other[name] = value;
    } else if (name.rfind(acc, 0) == 0) {
      if (!m.accuracy) m.accuracy.emplace();
      for (const AccuracyField& f : kAccuracyFields) {
        if (name.substr(acc.size()) == f.name) (*m.accuracy).*f.value = value;
      }
    } else if (split && marker_names.count(region)) {
      MarkerMeasure& marker = markers[region];
      marker.name = region;
      SetRegionMetric(&marker.measure, metric, value);
    } else {
      m.other[name] = value;  // "mem.<something new>" included: kept, not lost
    }
  }
  for (auto& [name, s] : steps) m.steps.push_back(std::move(s));
  // Execution order where recorded; steps without one (older JSON) after, by name.
  std::stable_sort(m.steps.begin(), m.steps.end(), [](const StepMeasure& a, const StepMeasure& b) {
    return (a.order < 0 ? INT_MAX : a.order) < (b.order < 0 ? INT_MAX : b.order);
  });
  for (auto& [name, marker] : markers) m.markers.push_back(std::move(marker));
  return m;
}

}  // namespace ntpb
