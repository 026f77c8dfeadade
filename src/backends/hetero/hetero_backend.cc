#include "src/backends/hetero/hetero_backend.h"

#include <algorithm>
#include <memory>
#include <set>

#include "ntpbench/error.h"
#include "src/backends/reference_run.h"

namespace ntpb {
namespace {

const char* kDefault = "default";
const char* kFallback = "fallback";

// The layers [first, last] of `t` as a topology of their own: its inputs are the tensors they
// read that they do not write; its outputs those they write that a later layer or the graph
// reads.
ResolvedTopology Segment(const ResolvedTopology& t, int first, int last) {
  ResolvedTopology s;
  s.name = t.name;
  s.file = t.file;
  s.params = t.params;
  s.shapes = t.shapes;
  std::set<std::string> written, read_before;
  for (int i = first; i <= last; ++i) {
    const ResolvedLayer& l = t.layers[static_cast<size_t>(i)];
    for (const std::string& in : l.inputs) {
      if (written.count(in) || read_before.count(in)) continue;
      read_before.insert(in);
      s.inputs.emplace_back(in, t.shapes.at(in));
      if (auto it = t.integer_inputs.find(in); it != t.integer_inputs.end()) {
        s.integer_inputs.insert(*it);
      }
    }
    for (const std::string& out : l.outputs) written.insert(out);
    s.layers.push_back(l);
  }
  const std::set<std::string> graph_outputs(t.outputs.begin(), t.outputs.end());
  std::set<std::string> wanted;
  for (size_t i = static_cast<size_t>(last) + 1; i < t.layers.size(); ++i) {
    for (const std::string& in : t.layers[i].inputs) wanted.insert(in);
  }
  for (int i = first; i <= last; ++i) {
    for (const std::string& out : t.layers[static_cast<size_t>(i)].outputs) {
      if (graph_outputs.count(out) || wanted.count(out)) s.outputs.push_back(out);
    }
  }
  return s;
}

struct Plan {
  struct Part {
    std::string backend;
    int first = 0, last = 0;
    bool fell_back = false;
    std::string from;  // the backend it fell back from
  };
  std::vector<Part> parts;
};

// Each layer's backend (its placement, else the default; the fallback where the placed backend
// cannot run it), then runs of equal backends merged into segments.
Plan MakePlan(const ResolvedTopology& t, const RunConfig& config) {
  const std::map<std::string, std::string>& place = config.placement;
  auto it = place.find(kDefault);
  if (it == place.end()) {
    throw Error(t.file, "", "--place",
                "no default backend (add default=BACKEND for the layers not named)");
  }
  const std::string fallback = place.count(kFallback) ? place.at(kFallback) : "";
  for (const auto& [layer, backend] : place) {
    if (layer != kDefault && layer != kFallback && t.LayerIndex(layer) < 0) {
      throw Error(t.file, layer, "--place", "no layer named '" + layer + "' in the topology");
    }
  }
  Plan plan;
  for (size_t i = 0; i < t.layers.size(); ++i) {
    const ResolvedLayer& l = t.layers[i];
    Plan::Part part;
    part.backend = place.count(l.name) ? place.at(l.name) : it->second;
    part.first = part.last = static_cast<int>(i);
    const Backend* b = FindBackend(part.backend);
    if (!b) throw Error(t.file, l.name, "--place", UnknownBackendProblem(part.backend));
    const Support s = b->Supports(Segment(t, part.first, part.last), config);
    if (!s.ok) {
      if (fallback.empty()) {
        throw Error(t.file, l.name, "--place",
                    part.backend + " cannot run it: " + s.reason +
                        " (add fallback=BACKEND to run such layers elsewhere)");
      }
      part.from = part.backend;
      part.backend = fallback;
      part.fell_back = true;
    }
    if (!plan.parts.empty() && plan.parts.back().backend == part.backend &&
        plan.parts.back().fell_back == part.fell_back) {
      plan.parts.back().last = part.last;
    } else {
      plan.parts.push_back(part);
    }
  }
  return plan;
}

class HeteroExecutable : public Executable {
 public:
  HeteroExecutable(const ResolvedTopology& t, RunConfig config) {
    const Plan plan = MakePlan(t, config);
    if (config.precision == Precision::kI8 && !config.calibration) {
      config.calibration = std::make_shared<const std::map<std::string, std::pair<float, float>>>(
          EigenReference(t, config)->ranges);
    }
    std::map<std::string, size_t> producer;  // tensor -> segment that writes it
    for (const Plan::Part& part : plan.parts) {
      const size_t index = segments_.size();
      Seg& seg = segments_.emplace_back();
      seg.backend = part.backend;
      seg.topology = Segment(t, part.first, part.last);
      seg.executable = FindBackend(part.backend)->Compile(seg.topology, config);
      // What crosses into it: one transfer step per tensor another segment wrote.
      for (const auto& [tensor, shape] : seg.topology.inputs) {
        auto from = producer.find(tensor);
        if (from == producer.end()) {
          graph_inputs_[tensor].push_back(index);
          continue;
        }
        StepInfo step;
        step.name = tensor + ".to_" + part.backend;
        step.op = "copy";
        step.inlay = true;
        step.feeds = part.first;
        step.kernel = segments_[from->second].backend + " to " + part.backend;
        steps_.push_back(step);
        calls_.push_back({Call::kTransfer, from->second, index, 0, tensor});
      }
      const std::vector<StepInfo>& inner = seg.executable->steps();
      for (size_t j = 0; j < inner.size(); ++j) {
        StepInfo step = inner[j];
        if (step.layer >= 0) step.layer += part.first;
        if (step.feeds >= 0) {
          step.feeds += part.first;
        } else if (step.layer < 0 && part.last + 1 < static_cast<int>(t.layers.size())) {
          step.feeds = part.last + 1;  // a segment's last transfer feeds the next segment
        }
        if (part.fell_back) {
          step.kernel =
              "fallback from " + part.from + (step.kernel.empty() ? "" : ": " + step.kernel);
        } else if (plan.parts.size() > 1) {
          step.kernel = part.backend + (step.kernel.empty() ? "" : ": " + step.kernel);
        }
        steps_.push_back(step);
        calls_.push_back({Call::kInner, index, index, j, ""});
      }
      for (const std::string& out : seg.topology.outputs) producer[out] = index;
    }
    producer_ = std::move(producer);
  }

  const std::vector<StepInfo>& steps() const override { return steps_; }

  void RunStep(std::size_t index) override {
    const Call& c = calls_[index];
    if (c.kind == Call::kInner) {
      segments_[c.to].executable->RunStep(c.step);
      return;
    }
    Executable& from = *segments_[c.from].executable;
    from.Wait();
    segments_[c.to].executable->WriteTensor(c.tensor, from.ReadTensor(c.tensor));
  }

  void Wait() override {
    for (Seg& s : segments_) s.executable->Wait();
  }

  void WriteTensor(const std::string& name, const std::vector<float>& values) override {
    auto it = graph_inputs_.find(name);
    if (it != graph_inputs_.end()) {
      for (size_t s : it->second) segments_[s].executable->WriteTensor(name, values);
      return;
    }
    Owner(name).WriteTensor(name, values);
  }

  std::vector<float> ReadTensor(const std::string& name) const override {
    auto it = graph_inputs_.find(name);
    if (it != graph_inputs_.end())
      return segments_[it->second.front()].executable->ReadTensor(name);
    return const_cast<HeteroExecutable*>(this)->Owner(name).ReadTensor(name);
  }
  std::vector<float> ReadFreshTensor(const std::string& name) const override {
    auto it = graph_inputs_.find(name);
    if (it != graph_inputs_.end())
      return segments_[it->second.front()].executable->ReadFreshTensor(name);
    return const_cast<HeteroExecutable*>(this)->Owner(name).ReadFreshTensor(name);
  }

  std::vector<int64_t> DeviceStepNanoseconds() const override {
    std::vector<std::vector<int64_t>> inner;
    bool any = false;
    for (const Seg& s : segments_) {
      inner.push_back(s.executable->DeviceStepNanoseconds());
      any = any || !inner.back().empty();
    }
    if (!any) return {};
    std::vector<int64_t> ns(steps_.size(), 0);
    for (size_t i = 0; i < calls_.size(); ++i) {
      const Call& c = calls_[i];
      if (c.kind == Call::kInner && c.step < inner[c.to].size()) ns[i] = inner[c.to][c.step];
    }
    return ns;
  }

  int64_t workspace_bytes() const override {
    int64_t total = 0;
    for (const Seg& s : segments_) total += s.executable->workspace_bytes();
    return total;
  }
  int64_t activation_bytes() const override {
    int64_t total = 0;
    for (const Seg& s : segments_) total += s.executable->activation_bytes();
    return total;
  }

 private:
  struct Seg {
    std::string backend;
    ResolvedTopology topology;
    std::unique_ptr<Executable> executable;
  };
  struct Call {
    enum Kind { kInner, kTransfer } kind;
    size_t from, to;  // segments (kInner: to is the segment)
    size_t step;      // kInner: the segment's step
    std::string tensor;
  };

  // The segment holding `name`: the one that wrote it, else the one whose layer it belongs to.
  Executable& Owner(const std::string& name) {
    if (auto it = producer_.find(name); it != producer_.end()) {
      return *segments_[it->second].executable;
    }
    for (Seg& s : segments_) {
      for (const ResolvedLayer& l : s.topology.layers) {
        if (std::find(l.outputs.begin(), l.outputs.end(), name) != l.outputs.end()) {
          return *s.executable;
        }
      }
    }
    throw Error("", "", name, "no tensor named '" + name + "'");
  }

  std::vector<Seg> segments_;
  std::vector<StepInfo> steps_;
  std::vector<Call> calls_;
  std::map<std::string, std::vector<size_t>> graph_inputs_;
  std::map<std::string, size_t> producer_;
};

class HeteroBackend : public Backend {
 public:
  std::string name() const override { return "hetero"; }
  std::string version() const override { return "layers placed on the other backends (--place)"; }
  bool UsesPlacement() const override { return true; }
  bool HasDevices() const override { return true; }  // its opencl segments take --device
  bool MemoryPlanIsPortable() const override { return false; }

  Support Supports(const ResolvedTopology& t, const RunConfig& config) const override {
    if (config.placement.empty()) {
      return {false,
              "the hetero backend needs a placement (--place layer=backend,...,"
              "default=backend)"};
    }
    try {
      MakePlan(t, config);
    } catch (const Error& e) {
      return {false, e.what()};
    }
    return {};
  }

  std::unique_ptr<Executable> Compile(const ResolvedTopology& t,
                                      const RunConfig& config) const override {
    const Support s = Supports(t, config);
    if (!s.ok) throw Error(t.file, "", "backend", s.reason);
    return std::make_unique<HeteroExecutable>(t, config);
  }
};

}  // namespace

const Backend* HeteroBackendInstance() {
  static const HeteroBackend backend;
  return &backend;
}

std::map<std::string, std::string> ParsePlacement(const std::string& text,
                                                  const std::string& field) {
  std::map<std::string, std::string> placement;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t comma = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, comma - pos);
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size()) {
      throw Error("", "", field,
                  "expected layer=backend (or default=, fallback=), got '" + item + "'");
    }
    const std::string backend = item.substr(eq + 1);
    if (backend == "hetero" || !FindBackend(backend)) {
      const std::string problem = backend == "hetero" ? "a layer cannot be placed on hetero itself"
                                                      : UnknownBackendProblem(backend);
      throw Error("", "", field, problem.empty() ? BackendUnavailableReason(backend) : problem);
    }
    const std::string layer = item.substr(0, eq);
    if (const auto [it, added] = placement.emplace(layer, backend);
        !added && it->second != backend) {
      throw Error("", "", field,
                  "'" + layer + "' is placed twice, on " + it->second + " and on " + backend);
    }
    pos = comma + 1;
  }
  return placement;
}

std::string PlacementText(const std::map<std::string, std::string>& placement) {
  std::string text;
  for (const auto& [layer, backend] : placement) {
    if (layer == kDefault || layer == kFallback) continue;
    text += (text.empty() ? "" : ",") + layer + "=" + backend;
  }
  for (const char* key : {kDefault, kFallback}) {
    if (auto it = placement.find(key); it != placement.end()) {
      text += (text.empty() ? "" : ",") + std::string(key) + "=" + it->second;
    }
  }
  return text;
}

}  // namespace ntpb
