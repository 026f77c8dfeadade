// Binds params, checks the graph (unknown tensors, cycles), orders it and infers every shape.
#include "ntpbench/resolve.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <set>

#include "ntpbench/error.h"
#include "src/common/printable.h"
#include "src/common/region_names.h"
#include "src/topology/op_catalog.h"

namespace ntpb {
namespace {

using nlohmann::json;

constexpr size_t kMaxNameBytes = 4096;

class Resolver {
 public:
  Resolver(const Topology& t, const ResolveLimits& limits) : t_(t), limits_(limits) {}

  ResolvedTopology Run(const ParamEnv& overrides) {
    CheckTopologyName();
    CheckNames();
    if (t_.layers.empty()) {  // every layer left out by `when`, or an ONNX graph of Identities
      throw Error(t_.file, "", "layers",
                  "nothing to compute: no layer is left (every one left out by its `when`, or an "
                  "ONNX graph whose nodes only pass their input on)");
    }
    ResolvedTopology r;
    r.name = t_.name;
    r.file = t_.file;
    env_ = t_.params;
    for (const auto& [k, v] : overrides) {
      if (k != "N" && k != "T" && !t_.params.count(k)) {
        std::string known;
        for (const auto& p : t_.params) {
          if (p.first != "N" && p.first != "T") known += (known.empty() ? "" : ", ") + p.first;
        }
        std::string aliases;
        for (const auto& [alias, param] : t_.param_aliases)
          aliases += (aliases.empty() ? "; also " : ", ") + alias + " for " + param;
        throw Error(t_.file, "", "params",
                    "cannot set unknown param '" + k + "' (params: " +
                        (known.empty() ? "" : known + ", ") + "N, T" + aliases + ")");
      }
      env_[k] = v;
    }
    if (!env_.count("N")) env_["N"] = 1;
    for (const auto& [k, v] : env_) {
      if ((k == "N" || k == "T") && v <= 0) {
        throw Error(t_.file, "", "params." + k, "must be positive, got " + std::to_string(v));
      }
    }
    r.params = env_;

    for (const TensorDecl& in : t_.inputs) {
      Shape s;
      for (const std::string& d : in.shape)
        s.push_back(Eval(d, "", "inputs." + in.name + ".shape"));
      CheckShape(s, "", "inputs." + in.name + ".shape");
      if (!shapes_.emplace(in.name, s).second) {
        throw Error(t_.file, "", "inputs", "duplicate input tensor '" + in.name + "'");
      }
      r.inputs.emplace_back(in.name, s);
      if (in.integers) {
        const std::string field = "inputs." + in.name + ".integers";
        const IntegerRange range{Eval(in.integers->low, "", field),
                                 Eval(in.integers->high, "", field)};
        try {
          CheckIntegerRange(range);
        } catch (const std::invalid_argument& e) {
          throw Error(t_.file, "", field,
                      std::string(e.what()) + ", got [" + std::to_string(range.low) + ", " +
                          std::to_string(range.high) + "]");
        }
        r.integer_inputs[in.name] = range;
      }
    }
    for (const int index : Order()) r.layers.push_back(ResolveLayer(t_.layers[index]));
    for (const std::string& out : t_.outputs) {
      if (!shapes_.count(out)) {
        throw Error(t_.file, "", "outputs", "unknown tensor '" + out + "'");
      }
    }
    r.outputs = t_.outputs;
    r.shapes = shapes_;
    r.markers = ResolveMarkers(r, t_.markers);
    return r;
  }

 private:
  int64_t Eval(const std::string& text, const std::string& layer, const std::string& field) const {
    try {
      return EvaluateExpression(text, env_);
    } catch (const ExpressionError& e) {
      throw Error(t_.file, layer, field, e.what());
    }
  }

  // The name starts every benchmark's name (<name>/<backend>/...) and baseline key: '/' would
  // shift the fields, an empty one or a space would make names that tools cannot match.
  void CheckTopologyName() const {
    bool ok = !t_.name.empty() && t_.name.size() <= 200 && Printable(t_.name) == t_.name;
    for (const char c : t_.name)
      ok = ok && c != '/' && !std::isspace(static_cast<unsigned char>(c));
    if (!ok) {
      throw Error(t_.file, "", "name",
                  "the topology's name '" + t_.name +
                      "' must be 1 to 200 characters without '/', spaces or control characters "
                      "(it starts every benchmark's name)");
    }
  }

  // Layer, tensor and marker names go into benchmark counters, tables, traces and C APIs: a NUL
  // would cut them short (two layers would share a name), and a name longer than any exporter
  // writes is a mistake or an attack on every table. Other control characters are printed
  // escaped (Printable).
  void CheckNames() const {
    auto check = [&](const std::string& name, const std::string& layer, const std::string& field) {
      if (name.find('\0') != std::string::npos || name.size() > kMaxNameBytes) {
        throw Error(t_.file, layer.size() > kMaxNameBytes ? layer.substr(0, 64) + "..." : layer,
                    field,
                    "a name of 1 to " + std::to_string(kMaxNameBytes) +
                        " bytes without NUL characters, got " + std::to_string(name.size()) +
                        " bytes" + (name.find('\0') != std::string::npos ? " with a NUL" : ""));
      }
    };
    for (const TensorDecl& in : t_.inputs) check(in.name, "", "inputs.name");
    for (const Layer& l : t_.layers) {
      check(l.name, l.name, "name");
      for (const std::string& out : l.outputs) check(out, l.name, "outputs");
    }
    for (const Marker& m : t_.markers) check(m.name, "", "markers.name");
  }

  // An integer attribute: a whole number or an expression, within the dimension limit either
  // way (an enormous padding would overflow the shape arithmetic into a plausible small shape).
  int64_t EvalJson(const json& v, const std::string& layer, const std::string& field) const {
    int64_t value = 0;
    if (v.is_string()) {
      value = Eval(v.get<std::string>(), layer, field);
    } else if (v.is_number_integer() &&
               !(v.is_number_unsigned() && v.get<uint64_t>() > uint64_t{INT64_MAX})) {
      value = v.get<int64_t>();
    } else if (v.is_number_integer()) {
      value = INT64_MAX;
    } else {
      throw Error(t_.file, layer, field, "expected an integer or an expression, got " + v.dump());
    }
    if (value > limits_.max_dimension || value < -limits_.max_dimension) {
      throw Error(
          t_.file, layer, field,
          "value " +
              (v.is_string() ? v.get<std::string>() + " = " + std::to_string(value) : v.dump()) +
              " is out of range (at most " + std::to_string(limits_.max_dimension) +
              " either way)");
    }
    return value;
  }

  void CheckShape(const Shape& s, const std::string& layer, const std::string& field) const {
    int64_t elements = 1;
    for (int64_t d : s) {
      if (d <= 0) {
        throw Error(t_.file, layer, field, "dimensions must be positive, got " + ShapeToString(s));
      }
      if (d > limits_.max_dimension || __builtin_mul_overflow(elements, d, &elements) ||
          elements > limits_.max_activation_bytes / 4) {
        throw Error(t_.file, layer, field,
                    "shape " + ShapeToString(s) + " is over the activation limit of " +
                        std::to_string(limits_.max_activation_bytes) + " bytes (ResolveLimits)");
      }
    }
  }

  // Kahn's algorithm, always taking the earliest ready layer in file order.
  std::vector<int> Order() const {
    std::map<std::string, int> producer;
    for (size_t i = 0; i < t_.layers.size(); ++i) {
      const Layer& l = t_.layers[i];
      for (const std::string& out : l.outputs) {
        if (shapes_.count(out)) {
          throw Error(t_.file, l.name, "outputs", "tensor '" + out + "' is also a graph input");
        }
        auto [it, fresh] = producer.emplace(out, static_cast<int>(i));
        if (!fresh) {
          throw Error(t_.file, l.name, "outputs",
                      "tensor '" + out + "' is already produced by layer '" +
                          t_.layers[it->second].name + "'");
        }
      }
    }
    const size_t n = t_.layers.size();
    std::vector<std::vector<int>> users(n);
    std::vector<int> pending(n, 0);
    for (size_t i = 0; i < n; ++i) {
      for (const std::string& in : t_.layers[i].inputs) {
        auto it = producer.find(in);
        if (it == producer.end()) {
          if (!shapes_.count(in)) {
            throw Error(t_.file, t_.layers[i].name, "inputs",
                        "unknown tensor '" + in + "' (neither a graph input nor a layer output)");
          }
          continue;
        }
        users[it->second].push_back(static_cast<int>(i));
        ++pending[i];
      }
    }
    std::set<int> ready;
    for (size_t i = 0; i < n; ++i) {
      if (pending[i] == 0) ready.insert(static_cast<int>(i));
    }
    std::vector<int> order;
    while (!ready.empty()) {
      int i = *ready.begin();
      ready.erase(ready.begin());
      order.push_back(i);
      for (int u : users[i]) {
        if (--pending[u] == 0) ready.insert(u);
      }
    }
    if (order.size() != n) ThrowCycle(pending, producer);
    return order;
  }

  [[noreturn]] void ThrowCycle(const std::vector<int>& pending,
                               const std::map<std::string, int>& producer) const {
    // Walk back along unfinished inputs until a layer repeats: that loop is the cycle.
    int start = 0;
    while (pending[start] == 0) ++start;
    std::vector<int> path;
    std::vector<int> seen(pending.size(), -1);
    int cur = start;
    while (seen[cur] < 0) {
      seen[cur] = static_cast<int>(path.size());
      path.push_back(cur);
      for (const std::string& in : t_.layers[cur].inputs) {
        auto it = producer.find(in);
        if (it != producer.end() && pending[it->second] > 0) {
          cur = it->second;
          break;
        }
      }
    }
    std::string cycle;
    for (size_t k = seen[cur]; k < path.size(); ++k)
      cycle = t_.layers[path[k]].name + " <- " + cycle;
    cycle += t_.layers[cur].name;
    throw Error(t_.file, t_.layers[cur].name, "inputs", "the graph has a cycle: " + cycle);
  }

  json ResolveAttr(const AttrDef& def, const json& v, const std::string& layer) const {
    switch (def.type) {
      case AttrType::kInt:
        return EvalJson(v, layer, def.name);
      case AttrType::kIntPair: {
        if (!v.is_array()) {
          int64_t x = EvalJson(v, layer, def.name);
          return json::array({x, x});
        }
        json out = json::array();
        for (const json& e : v) out.push_back(EvalJson(e, layer, def.name));
        if (out.size() == 1) out.push_back(out[0]);
        return out;
      }
      case AttrType::kIntList: {
        json out = json::array();
        for (const json& e : v) out.push_back(EvalJson(e, layer, def.name));
        return out;
      }
      case AttrType::kPadding: {
        if (v == "same" || v == "valid") return v;
        if (!v.is_array()) return json::array({EvalJson(v, layer, def.name)});
        json out = json::array();
        for (const json& e : v) out.push_back(EvalJson(e, layer, def.name));
        return out;
      }
      case AttrType::kFloat: {
        if (!v.is_number() || !std::isfinite(v.get<double>())) {
          throw Error(t_.file, layer, def.name, "expected a finite number, got " + v.dump());
        }
        const double x = v.get<double>();
        if (def.greater_than && !(x > *def.greater_than)) {
          throw Error(
              t_.file, layer, def.name,
              "must be greater than " + json(*def.greater_than).dump() + ", got " + v.dump());
        }
        if (def.at_least && !(x >= *def.at_least)) {
          throw Error(t_.file, layer, def.name,
                      "must be at least " + json(*def.at_least).dump() + ", got " + v.dump());
        }
        return x;
      }
      case AttrType::kBool:
      case AttrType::kEnum:
        return v;
    }
    return v;
  }

  ResolvedLayer ResolveLayer(const Layer& l) {
    ResolvedLayer r;
    r.name = l.name;
    r.op = l.op;
    const OpDef* op = FindOp(l.op);
    if (!op) throw Error(t_.file, l.name, "op", "unknown op '" + l.op + "'");
    r.inlay = op->kind == OpKind::kInlay;
    r.is_view = op->is_view;
    r.inputs = l.inputs;
    r.outputs = l.outputs;
    json attrs = json::object();
    for (const AttrDef& def : op->attrs) {
      if (l.attrs.contains(def.name)) {
        attrs[def.name] = ResolveAttr(def, l.attrs[def.name], l.name);
      } else if (def.required) {
        throw Error(t_.file, l.name, def.name, "missing required attribute of op '" + l.op + "'");
      } else if (!def.default_value.is_null()) {
        attrs[def.name] = ResolveAttr(def, def.default_value, l.name);
      }
    }
    for (const std::string& in : l.inputs) r.input_shapes.push_back(shapes_.at(in));
    Attrs resolved(attrs);
    InferContext ctx{t_.file, l, resolved, r.input_shapes};
    InferResult inferred = op->infer(ctx);
    for (auto it = inferred.resolved_attrs.begin(); it != inferred.resolved_attrs.end(); ++it) {
      attrs[it.key()] = it.value();
    }
    r.attrs = Attrs(attrs);
    r.output_shapes = inferred.outputs;
    r.is_view = r.is_view || inferred.view;
    if (r.output_shapes.size() != r.outputs.size()) {  // the op's infer and max_outputs disagree
      throw Error(t_.file, l.name, "outputs",
                  "op '" + l.op + "' gives " + std::to_string(r.output_shapes.size()) +
                      " output(s) here, the layer lists " + std::to_string(r.outputs.size()));
    }
    r.weights = inferred.weights;
    r.weight_values.resize(r.weights.size());
    for (const auto& [weight_name, given] : l.weights) {
      const std::string& name = weight_name;  // lambdas cannot capture structured bindings
      auto w = std::find_if(r.weights.begin(), r.weights.end(),
                            [&](const WeightSpec& spec) { return spec.name == name; });
      if (w == r.weights.end()) {
        std::string known;
        for (const WeightSpec& spec : r.weights) known += (known.empty() ? "" : ", ") + spec.name;
        throw Error(t_.file, l.name, "weights." + name,
                    "op '" + l.op + "' has no weight of that name (it has: " + known + ")");
      }
      if (given.shape != w->shape || !given.data ||
          static_cast<int64_t>(given.data->size()) != NumElements(w->shape)) {
        throw Error(t_.file, l.name, "weights." + name,
                    "given values of shape " + ShapeToString(given.shape) + ", the layer needs " +
                        ShapeToString(w->shape));
      }
      r.weight_values[w - r.weights.begin()] = given.data;
    }
    for (size_t i = 0; i < r.outputs.size(); ++i) {
      CheckShape(r.output_shapes[i], l.name, "outputs");
      shapes_[r.outputs[i]] = r.output_shapes[i];
    }
    for (const WeightSpec& w : r.weights) {
      int64_t elements = 1;
      bool overflow = false;
      for (int64_t d : w.shape) {
        overflow = overflow || d <= 0 || __builtin_mul_overflow(elements, d, &elements);
      }
      if (overflow || elements > (limits_.max_weight_bytes - weight_bytes_) / 4) {
        throw Error(t_.file, l.name, "weights",
                    "weight '" + w.name + "' " + ShapeToString(w.shape) +
                        " would bring the topology's weights over the limit of " +
                        std::to_string(limits_.max_weight_bytes) +
                        " bytes at f32 (ResolveLimits::max_weight_bytes)");
      }
      weight_bytes_ += 4 * elements;
    }
    const OpCostInput cost{r.attrs, r.input_shapes, r.output_shapes};
    try {
      r.flops = op->flops(cost);
      if (op->cache_elements_per_token)
        r.cache_elements_per_token = op->cache_elements_per_token(cost);
    } catch (const CostOverflow& e) {
      FailCount(l.name, "flops", "layer's FLOPs", e.approximate);
    }
    for (size_t i = 0; i < r.weights.size(); ++i) {
      // What the analysis derives from this layer must fit 64 bits too: the weights' traffic
      // (re-read at every step) at the widest element, and the topology's running totals.
      int64_t traffic = 0;
      try {
        const Shape& shape = r.weights[i].shape;
        const int64_t read = op->weight_elements_read ? op->weight_elements_read(cost, i, shape)
                                                      : NumElements(shape);
        r.weight_elements_read.push_back(read);
        traffic = CheckedProduct({read, 4});
      } catch (const CostOverflow& e) {
        FailCount(l.name, "weights", "layer's weight traffic in bytes", e.approximate);
      }
      const double approximate = static_cast<double>(total_weight_traffic_) + traffic;
      if (__builtin_add_overflow(total_weight_traffic_, traffic, &total_weight_traffic_)) {
        FailCount(l.name, "weights", "topology's weight traffic in bytes up to this layer",
                  approximate);
      }
    }
    const double approximate = static_cast<double>(total_flops_) + r.flops;
    if (__builtin_add_overflow(total_flops_, r.flops, &total_flops_)) {
      FailCount(l.name, "flops", "topology's FLOPs up to this layer", approximate);
    }
    return r;
  }

  [[noreturn]] void FailCount(const std::string& layer, const std::string& field,
                              const std::string& what, double approximate) const {
    char count[32];
    std::snprintf(count, sizeof count, "%.3g", approximate);
    throw Error(t_.file, layer, field,
                "the " + what + " (about " + count +
                    ") exceed a 64-bit count (2^63 - 1): the shapes are too large");
  }

  const Topology& t_;
  const ResolveLimits& limits_;
  ParamEnv env_;
  std::map<std::string, Shape> shapes_;
  int64_t weight_bytes_ = 0;          // f32 bytes of the weights of the layers resolved so far
  int64_t total_flops_ = 0;           // of the layers resolved so far, checked against overflow
  int64_t total_weight_traffic_ = 0;  // f32 bytes, likewise
};

}  // namespace

int ResolvedTopology::LayerIndex(const std::string& layer) const {
  for (size_t i = 0; i < layers.size(); ++i) {
    if (layers[i].name == layer) return static_cast<int>(i);
  }
  return -1;
}

std::vector<ResolvedMarker> ResolveMarkers(const ResolvedTopology& t,
                                           const std::vector<Marker>& markers) {
  std::vector<ResolvedMarker> out;
  std::set<std::string> names;
  for (const Marker& m : markers) {
    const std::string field = "markers." + m.name;
    if (m.name.empty()) throw Error(t.file, "", "markers", "a marker needs a name");
    if (!names.insert(m.name).second) throw Error(t.file, "", field, "duplicate marker name");
    // The same name for another region than the topology's own marker would mix the two (the
    // same region again is the topology's marker itself, passed back in).
    for (const ResolvedMarker& own : t.markers) {
      if (own.name == m.name &&
          (t.layers[own.first].name != m.start || t.layers[own.last].name != m.end)) {
        throw Error(t.file, "", field,
                    "the topology already has a marker '" + m.name + "' (" +
                        t.layers[own.first].name + ":" + t.layers[own.last].name +
                        "); name this one otherwise");
      }
    }
    if (const char* reserved = region_names::ReservedRegionPrefix(m.name)) {
      throw Error(t.file, "", field,
                  "'" + std::string(reserved) +
                      "' is ntpbench's own region name (net, mem, acc, layer); name the marker "
                      "otherwise");
    }
    ResolvedMarker r{m.name, t.LayerIndex(m.start), t.LayerIndex(m.end)};
    if (r.first < 0) throw Error(t.file, "", field + ".start", "no layer named '" + m.start + "'");
    if (r.last < 0) throw Error(t.file, "", field + ".end", "no layer named '" + m.end + "'");
    if (r.first > r.last) {
      throw Error(t.file, "", field,
                  "start layer '" + m.start + "' runs after end layer '" + m.end + "'");
    }
    for (const ResolvedMarker& o : out) {
      const bool disjoint = r.last < o.first || o.last < r.first;
      const bool nested =
          (r.first >= o.first && r.last <= o.last) || (o.first >= r.first && o.last <= r.last);
      if (!disjoint && !nested) {
        throw Error(t.file, "", field,
                    "overlaps marker '" + o.name + "' without nesting in it or around it");
      }
    }
    out.push_back(r);
  }
  return out;
}

namespace {

// The topology without the layers whose `when` is 0 under `overrides`: a reader of a left-out
// layer's output reads its first input instead (through a chain of left-out layers), and a
// marker's ends move to the nearest layers kept inside it (a marker with none left goes).
Topology WithoutSkippedLayers(const Topology& t, const ParamEnv& overrides) {
  ParamEnv env = t.params;
  for (const auto& [k, v] : overrides) env[k] = v;
  if (!env.count("N")) env["N"] = 1;
  std::map<std::string, std::string> alias;
  auto through = [&](std::string name) {
    for (size_t hops = 0; hops <= alias.size(); ++hops) {
      auto it = alias.find(name);
      if (it == alias.end()) break;
      name = it->second;
    }
    return name;
  };
  Topology pruned = t;
  pruned.layers.clear();
  std::vector<bool> kept;
  for (const Layer& l : t.layers) {
    bool keep = true;
    if (!l.when.empty()) {
      try {
        keep = EvaluateExpression(l.when, env) != 0;
      } catch (const ExpressionError& e) {
        throw Error(t.file, l.name, "when", e.what());
      }
    }
    kept.push_back(keep);
    if (!keep) {
      if (l.inputs.empty()) {
        throw Error(t.file, l.name, "when", "a layer without inputs cannot be left out");
      }
      for (const std::string& out : l.outputs) alias[out] = l.inputs[0];
      continue;
    }
    Layer copy = l;
    copy.when.clear();
    pruned.layers.push_back(std::move(copy));
  }
  for (Layer& l : pruned.layers) {
    for (std::string& in : l.inputs) in = through(in);
  }
  for (std::string& out : pruned.outputs) out = through(out);
  pruned.markers.clear();
  for (const Marker& m : t.markers) {
    int first = -1, last = -1;
    for (size_t i = 0; i < t.layers.size(); ++i) {
      if (t.layers[i].name == m.start) first = static_cast<int>(i);
      if (t.layers[i].name == m.end) last = static_cast<int>(i);
    }
    if (first < 0 || last < 0 || (kept[first] && kept[last])) {
      pruned.markers.push_back(m);  // unchanged (an unknown layer: ResolveMarkers says so)
      continue;
    }
    while (first <= last && !kept[first]) ++first;
    while (last >= first && !kept[last]) --last;
    if (first > last) continue;
    pruned.markers.push_back({m.name, t.layers[first].name, t.layers[last].name});
  }
  return pruned;
}

}  // namespace

ResolvedTopology Resolve(const Topology& topology, const ParamEnv& given,
                         const ResolveLimits& limits) {
  ParamEnv overrides;
  for (const auto& [k, v] : given) {
    auto alias = topology.param_aliases.find(k);
    const std::string& name = alias == topology.param_aliases.end() ? k : alias->second;
    auto [it, fresh] = overrides.emplace(name, v);
    if (!fresh && it->second != v) {
      throw Error(topology.file, "", "params." + name,
                  "set twice with different values (" + k + " is another name of " + name + ")");
    }
  }
  if (topology.rebind) {
    std::map<std::string, int64_t> values = topology.bound;
    for (auto& [k, v] : values) {
      auto o = overrides.find(k);
      if (o == overrides.end()) continue;
      if (o->second < 1 || o->second > limits.max_dimension) {
        auto source = topology.param_sources.find(k);
        throw Error(
            topology.file, "", "params." + k,
            "must be 1 to " + std::to_string(limits.max_dimension) + ", got " +
                std::to_string(o->second) +
                (source == topology.param_sources.end() ? "" : " (" + source->second + ")"));
      }
      v = o->second;
    }
    // No layers: the model did not read at its default sizes; these may be the ones it needs.
    if (values != topology.bound || topology.layers.empty()) {
      return Resolve(topology.rebind(values), overrides, limits);
    }
  }
  const bool conditional = std::any_of(topology.layers.begin(), topology.layers.end(),
                                       [](const Layer& l) { return !l.when.empty(); });
  if (!conditional) return Resolver(topology, limits).Run(overrides);
  // Unknown or invalid overrides: the Resolver's checks (on the pruned copy) say so.
  return Resolver(WithoutSkippedLayers(topology, overrides), limits).Run(overrides);
}

}  // namespace ntpb
