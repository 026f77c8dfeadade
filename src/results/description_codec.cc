// The run's description: the strings of the results model, next to Google Benchmark's counters.
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ntpbench/error.h"
#include "ntpbench/results.h"

namespace ntpb {

namespace {

using nlohmann::json;

// Field names of the description, spelled once.
constexpr const char* kTopology = "topology";
constexpr int64_t kLatestStampNs = int64_t{1} << 62;  // 146 years of steady clock
constexpr const char* kLogits = "logits";             // the accuracy's logits tensor
constexpr const char* kBackend = "backend";
constexpr const char* kPrecision = "precision";
constexpr const char* kBatch = "batch";
constexpr const char* kSteps = "steps";
constexpr const char* kName = "name";
constexpr const char* kOp = "op";
constexpr const char* kShape = "shape";
constexpr const char* kKernel = "kernel";
constexpr const char* kLayers = "layers";
constexpr const char* kLayerOps = "layer_ops";
constexpr const char* kLayerShapes = "layer_shapes";
constexpr const char* kRoofMs = "roof_ms";
constexpr const char* kInlayLayer = "inlay";
// Markers' step ranges and the traced iterations (`--trace`).
constexpr const char* kMarkers = "markers";
constexpr const char* kFirstStep = "first_step";
constexpr const char* kLastStep = "last_step";
constexpr const char* kTrace = "trace";
constexpr const char* kThread = "thread";
constexpr const char* kIterations = "iterations";
constexpr const char* kBound = "bound";
// A generation's phases, each with its steps' mean times.
constexpr const char* kPhases = "phases";
constexpr const char* kRuns = "runs";
constexpr const char* kMs = "ms";
constexpr const char* kDeviceMs = "device_ms";  // where the backend times its device

// The cost's fields, with their names.
constexpr std::pair<const char*, double StepCost::*> kCostFields[] = {
    {"flops", &StepCost::flops},
    {"params", &StepCost::params},
    {"weight_bytes", &StepCost::weight_bytes},
    {"input_bytes", &StepCost::input_bytes},
    {"output_bytes", &StepCost::output_bytes},
    {"weight_traffic_bytes", &StepCost::weight_traffic_bytes},
};

[[noreturn]] void Wrong(const std::string& field, const char* expected, const json& got) {
  std::string shown = got.dump();
  if (shown.size() > 40) shown = shown.substr(0, 37) + "...";
  throw Error("", "", "ntpbench." + field, std::string("expected ") + expected + ", got " + shown);
}

std::string String(const json& j, const char* key, const std::string& at) {
  if (!j.contains(key)) return "";
  if (!j[key].is_string()) Wrong(at + key, "a string", j[key]);
  return j[key].get<std::string>();
}

std::vector<std::string> Strings(const json& j, const char* key, const std::string& at) {
  std::vector<std::string> out;
  if (!j.contains(key)) return out;
  if (!j[key].is_array()) Wrong(at + key, "an array of strings", j[key]);
  for (const json& v : j[key]) {
    if (!v.is_string()) Wrong(at + key, "an array of strings", v);
    out.push_back(v.get<std::string>());
  }
  return out;
}

double Number(const json& j, const char* key, const std::string& at) {
  if (!j.contains(key)) return 0;
  if (!j[key].is_number() || !(j[key].get<double>() >= 0)) {
    Wrong(at + key, "a number >= 0", j[key]);
  }
  return j[key].get<double>();
}

// A step's analytic cost and roofline bound: in the steps and in a generation's phases alike.
void EncodeCostAndBound(const StepMeasure& s, json* step) {
  for (const auto& [name, field] : kCostFields) {
    if (s.cost.*field != 0) (*step)[name] = s.cost.*field;
  }
  if (s.roof_ms > 0) {
    (*step)[kRoofMs] = s.roof_ms;
    (*step)[kBound] = s.bound;
  }
}
void DecodeCostAndBound(const json& j, const std::string& at, StepMeasure* s) {
  for (const auto& [key, field] : kCostFields) s->cost.*field = Number(j, key, at);
  s->roof_ms = Number(j, kRoofMs, at);
  s->bound = String(j, kBound, at);
}

}  // namespace

json EncodeDescription(const RunMeasurement& m) {
  json d = json::object();
  d[kTopology] = m.setup.topology;
  d[kBackend] = m.setup.backend;
  d[kPrecision] = m.setup.precision;
  d[kBatch] = m.setup.batch;
  if (m.accuracy && !m.accuracy->logits.empty()) d[kLogits] = m.accuracy->logits;
  json steps = json::array();
  for (const StepMeasure& s : m.steps) {
    json step = {{kName, s.name}, {kOp, s.op}};
    if (!s.shape.empty()) step[kShape] = s.shape;
    if (!s.kernel.empty()) step[kKernel] = s.kernel;
    if (!s.layers.empty()) step[kLayers] = s.layers;
    // A fused step's absorbed layers (a single layer's are the step's own op and shape).
    if (s.layers.size() > 1 && s.layer_ops.size() == s.layers.size() &&
        s.layer_shapes.size() == s.layers.size()) {
      step[kLayerOps] = s.layer_ops;
      step[kLayerShapes] = s.layer_shapes;
    }
    if (s.inlay_layer) step[kInlayLayer] = true;
    EncodeCostAndBound(s, &step);
    steps.push_back(std::move(step));
  }
  d[kSteps] = std::move(steps);
  json markers = json::array();
  for (const MarkerMeasure& mk : m.markers) {
    if (mk.first_step < 0) continue;
    markers.push_back({{kName, mk.name}, {kFirstStep, mk.first_step}, {kLastStep, mk.last_step}});
  }
  if (!markers.empty()) d[kMarkers] = std::move(markers);
  if (!m.trace.iterations.empty()) {
    d[kTrace] = {{kThread, m.trace.thread_id}, {kIterations, m.trace.iterations}};
  }
  if (!m.phases.empty()) {
    json phases = json::array();
    for (const PhaseMeasure& p : m.phases) {
      json steps = json::array();
      for (const StepMeasure& s : p.steps) {
        json step = {{kName, s.name}, {kOp, s.op}, {kMs, s.measure.ms}};
        if (s.measure.device_ms > 0) step[kDeviceMs] = s.measure.device_ms;
        EncodeCostAndBound(s, &step);
        steps.push_back(std::move(step));
      }
      phases.push_back({{kName, p.name}, {kRuns, p.runs}, {kSteps, std::move(steps)}});
    }
    d[kPhases] = std::move(phases);
  }
  return d;
}

namespace {

void DecodePhases(const json& d, RunMeasurement* m) {
  if (!d[kPhases].is_array()) Wrong(kPhases, "an array", d[kPhases]);
  m->phases.clear();
  int index = 0;
  for (const json& j : d[kPhases]) {
    const std::string at = std::string(kPhases) + "[" + std::to_string(index++) + "].";
    if (!j.is_object()) Wrong(at.substr(0, at.size() - 1), "an object", j);
    PhaseMeasure& p = m->phases.emplace_back();
    p.name = String(j, kName, at);
    p.runs = Number(j, kRuns, at);
    if (!j.contains(kSteps) || !j[kSteps].is_array()) Wrong(at + kSteps, "an array", j);
    int s_index = 0;
    for (const json& js : j[kSteps]) {
      const std::string s_at = at + kSteps + "[" + std::to_string(s_index++) + "].";
      if (!js.is_object()) Wrong(s_at.substr(0, s_at.size() - 1), "an object", js);
      StepMeasure& s = p.steps.emplace_back();
      s.name = String(js, kName, s_at);
      s.op = String(js, kOp, s_at);
      s.measure.ms = Number(js, kMs, s_at);
      s.measure.device_ms = Number(js, kDeviceMs, s_at);
      DecodeCostAndBound(js, s_at, &s);
    }
  }
}

}  // namespace

void DecodeDescription(const json& d, RunMeasurement* m) {
  if (!d.is_object()) Wrong("", "an object", d);
  m->setup.topology = String(d, kTopology, "");
  m->setup.backend = String(d, kBackend, "");
  m->setup.precision = String(d, kPrecision, "");
  const double batch = Number(d, kBatch, "");
  if (batch > 1e12) Wrong(kBatch, "a batch size", d[kBatch]);
  m->setup.batch = static_cast<int64_t>(batch);
  if (d.contains(kPhases)) DecodePhases(d, m);
  if (d.contains(kLogits)) {
    if (!m->accuracy) m->accuracy.emplace();
    m->accuracy->logits = String(d, kLogits, "");
  }
  if (!d.contains(kSteps)) return;
  if (!d[kSteps].is_array()) Wrong(kSteps, "an array", d[kSteps]);
  // Steps the counters named already, by name: a lookup per step, not a scan (a 60,000-step
  // run file took a minute).
  std::unordered_map<std::string, size_t> step_index;
  for (size_t i = 0; i < m->steps.size(); ++i) step_index.emplace(m->steps[i].name, i);
  int index = 0;
  for (const json& j : d[kSteps]) {
    const std::string at = std::string(kSteps) + "[" + std::to_string(index++) + "].";
    if (!j.is_object()) Wrong(at.substr(0, at.size() - 1), "an object", j);
    const std::string name = String(j, kName, at);
    if (name.empty()) Wrong(at + kName, "a step name", j.value(kName, json()));
    const auto [found, fresh] = step_index.emplace(name, m->steps.size());
    if (fresh) m->steps.emplace_back().name = name;
    StepMeasure* step = &m->steps[found->second];
    step->op = String(j, kOp, at);
    step->shape = String(j, kShape, at);
    step->kernel = String(j, kKernel, at);
    step->layers = Strings(j, kLayers, at);
    step->layer_ops = Strings(j, kLayerOps, at);
    step->layer_shapes = Strings(j, kLayerShapes, at);
    if (step->layer_ops.empty() && step->layers.size() == 1) {
      step->layer_ops = {step->op};
      step->layer_shapes = {step->shape};
    }
    for (const char* key : {kLayerOps, kLayerShapes}) {
      const size_t n = key == kLayerOps ? step->layer_ops.size() : step->layer_shapes.size();
      if (n != 0 && n != step->layers.size()) Wrong(at + key, "one entry per layer", j[key]);
    }
    DecodeCostAndBound(j, at, step);
    if (j.contains(kInlayLayer)) {
      if (!j[kInlayLayer].is_boolean()) Wrong(at + kInlayLayer, "true or false", j[kInlayLayer]);
      step->inlay_layer = j[kInlayLayer].get<bool>();
    }
  }
  const auto steps = static_cast<double>(m->steps.size());
  if (d.contains(kMarkers)) {
    if (!d[kMarkers].is_array()) Wrong(kMarkers, "an array", d[kMarkers]);
    std::unordered_map<std::string, size_t> marker_index;
    for (size_t i = 0; i < m->markers.size(); ++i) marker_index.emplace(m->markers[i].name, i);
    // The counters come back keyed by name; the description lists the markers as the topology
    // does: that order is the one readers show.
    std::vector<size_t> order;
    int index = 0;
    for (const json& j : d[kMarkers]) {
      const std::string at = std::string(kMarkers) + "[" + std::to_string(index++) + "].";
      if (!j.is_object()) Wrong(at.substr(0, at.size() - 1), "an object", j);
      const std::string name = String(j, kName, at);
      const double first = Number(j, kFirstStep, at), last = Number(j, kLastStep, at);
      if (first >= steps || last >= steps || last < first) {
        Wrong(at + kLastStep, "a step range within the steps", j);
      }
      const auto [found, fresh] = marker_index.emplace(name, m->markers.size());
      if (fresh) m->markers.emplace_back().name = name;
      MarkerMeasure& marker = m->markers[found->second];
      marker.first_step = static_cast<int>(first);
      marker.last_step = static_cast<int>(last);
      if (!name.empty()) order.push_back(found->second);
    }
    std::vector<bool> placed(m->markers.size(), false);
    std::vector<MarkerMeasure> ordered;
    for (size_t i : order) {
      if (placed[i]) continue;
      placed[i] = true;
      ordered.push_back(std::move(m->markers[i]));
    }
    for (size_t i = 0; i < m->markers.size(); ++i) {
      if (!placed[i] && !m->markers[i].name.empty()) ordered.push_back(std::move(m->markers[i]));
    }
    m->markers = std::move(ordered);
  }
  if (!d.contains(kTrace)) return;
  const json& t = d[kTrace];
  if (!t.is_object() || !t.contains(kIterations) || !t[kIterations].is_array()) {
    Wrong(kTrace, "an object with iterations", t);
  }
  m->trace.thread_id =
      t.contains(kThread) && t[kThread].is_number_integer() ? t[kThread].get<int64_t>() : 0;
  m->trace.iterations.clear();
  int64_t last_stamp = 0;
  for (const json& it : t[kIterations]) {
    // Each iteration: every step's begin and end, nanoseconds, in order.
    if (!it.is_array() || it.size() != 2 * m->steps.size()) {
      Wrong(std::string(kTrace) + "." + kIterations, "2 stamps per step", it);
    }
    // Steady-clock stamps: from 0, rising within an iteration and from one iteration to the
    // next, so that every difference the trace takes fits (near INT64_MAX it would wrap).
    std::vector<int64_t>& stamps = m->trace.iterations.emplace_back();
    for (const json& v : it) {
      if (!v.is_number_integer() || v.get<int64_t>() < last_stamp ||
          v.get<int64_t>() > kLatestStampNs) {
        Wrong(std::string(kTrace) + "." + kIterations, "rising integer nanoseconds from 0 to 2^62",
              v);
      }
      stamps.push_back(v.get<int64_t>());
      last_stamp = stamps.back();
    }
  }
}

}  // namespace ntpb
