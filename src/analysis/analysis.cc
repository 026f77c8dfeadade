// Per-layer and per-marker cost, and peak live activation memory under the execution order.
#include "ntpbench/analysis.h"

#include <algorithm>
#include <map>

namespace ntpb {

double Cost::Intensity() const {
  const int64_t bytes = weight_bytes + input_bytes + output_bytes;
  return bytes > 0 ? static_cast<double>(flops) / static_cast<double>(bytes) : 0.0;
}

Cost& Cost::operator+=(const Cost& o) {
  flops += o.flops;
  params += o.params;
  weight_bytes += o.weight_bytes;
  input_bytes += o.input_bytes;
  output_bytes += o.output_bytes;
  weight_traffic_bytes += o.weight_traffic_bytes;
  reread_tensor_bytes = std::max(reread_tensor_bytes, o.reread_tensor_bytes);
  return *this;
}

Cost LayerCost(const ResolvedLayer& layer, Precision precision) {
  const int64_t eb = ElementBytes(precision);
  Cost c;
  c.flops = layer.flops;
  for (size_t i = 0; i < layer.weights.size(); ++i) {
    const WeightSpec& w = layer.weights[i];
    const int64_t n = NumElements(w.shape);
    if (w.trainable) c.params += n;
    if (IsWeightOnly(precision) && w.weight_only_quantized && w.shape.size() == 2) {
      // Read whole at every inference, as a dense layer's kernel is.
      const int64_t bytes = WeightOnlyBytes(precision, w.shape[0], w.shape[1]);
      c.weight_bytes += bytes;
      c.weight_traffic_bytes += n > 0 ? bytes * layer.weight_elements_read[i] / n : 0;
      if (layer.weight_elements_read[i] > n) {
        c.reread_tensor_bytes = std::max(c.reread_tensor_bytes, bytes);
      }
      continue;
    }
    c.weight_bytes += n * eb;
    c.weight_traffic_bytes += layer.weight_elements_read[i] * eb;
    if (layer.weight_elements_read[i] > n) {
      c.reread_tensor_bytes = std::max(c.reread_tensor_bytes, n * eb);
    }
  }
  // A view moves no data: it reads and writes nothing.
  if (!layer.is_view) {
    for (const Shape& s : layer.input_shapes) c.input_bytes += NumElements(s) * eb;
    for (const Shape& s : layer.output_shapes) c.output_bytes += NumElements(s) * eb;
  }
  // A cache appends its input's rows to what earlier inferences left: only those are written.
  if (layer.cache_elements_per_token > 0) c.output_bytes = c.input_bytes;
  return c;
}

Cost FusedCost(const TopologyAnalysis& a, int first, int fused) {
  Cost c;
  for (int i = first; i <= first + fused; ++i) c += a.layers[i].cost;
  // Each absorbed layer reads the previous one's output from registers, not memory; what else
  // it reads (a residual add's other operand) still moves.
  for (int i = first + 1; i <= first + fused; ++i)
    c.input_bytes -= a.layers[i - 1].cost.output_bytes;
  c.output_bytes = a.layers[first + fused].cost.output_bytes;
  return c;
}

namespace {

// Live activation bytes at each step: a buffer lives from the step that writes it (graph
// inputs: from the start) to its last reader (graph outputs: to the end).
void ComputeLiveness(const ResolvedTopology& t, Precision precision, TopologyAnalysis* a) {
  const int n = static_cast<int>(t.layers.size());
  const TensorUses uses = AnalyzeTensorUses(t);
  std::map<std::string, int> birth;
  for (const auto& in : t.inputs) birth[in.first] = 0;
  for (int i = 0; i < n; ++i) {
    if (t.layers[i].is_view) continue;
    // A cache holds what earlier inferences appended from the start of this one.
    const bool state = t.layers[i].cache_elements_per_token > 0;
    for (const std::string& out : t.layers[i].outputs) birth[out] = state ? 0 : i;
  }
  std::vector<int64_t> live(n, 0);
  for (const auto& [root, b] : birth) {
    const int death = std::max(b, std::min(uses.LastUse(root), n - 1));
    const int64_t bytes = NumElements(t.shapes.at(root)) * ElementBytes(precision);
    for (int i = b; i <= death; ++i) live[i] += bytes;
  }
  for (int i = 0; i < n; ++i) {
    if (live[i] > a->peak_activation_bytes) {
      a->peak_activation_bytes = live[i];
      a->peak_layer = i;
    }
  }
}

}  // namespace

const std::vector<TensorUses::Read>& TensorUses::ReadersOf(const std::string& tensor) const {
  static const std::vector<Read> kNone;
  auto it = readers.find(tensor);
  return it == readers.end() ? kNone : it->second;
}

int TensorUses::LastUse(const std::string& tensor) const {
  auto root = storage.find(tensor);
  auto it = last_use.find(root == storage.end() ? tensor : root->second);
  return it == last_use.end() ? -1 : it->second;
}

TensorUses AnalyzeTensorUses(const ResolvedTopology& t) {
  TensorUses u;
  for (const auto& in : t.inputs) u.storage[in.first] = in.first;
  for (int i = 0; i < static_cast<int>(t.layers.size()); ++i) {
    const ResolvedLayer& l = t.layers[i];
    for (int k = 0; k < static_cast<int>(l.inputs.size()); ++k) {
      const std::string& in = l.inputs[k];
      u.readers[in].push_back({i, k});
      auto root = u.storage.find(in);
      const std::string& r = root == u.storage.end() ? in : root->second;
      u.last_use[r] = std::max(u.last_use.count(r) ? u.last_use[r] : -1, i);
    }
    for (const std::string& out : l.outputs) {
      const bool view = l.is_view && !l.inputs.empty();
      u.storage[out] =
          view ? u.storage.count(l.inputs[0]) ? u.storage[l.inputs[0]] : l.inputs[0] : out;
    }
  }
  // A cache is state: it outlives the inference (the next one reads what this one appended).
  for (const ResolvedLayer& l : t.layers) {
    if (l.cache_elements_per_token > 0) u.last_use[l.outputs[0]] = TensorUses::kForever;
  }
  for (const std::string& out : t.outputs) {
    u.graph_outputs.insert(out);
    auto root = u.storage.find(out);
    u.last_use[root == u.storage.end() ? out : root->second] = TensorUses::kForever;
  }
  return u;
}

TopologyAnalysis Analyze(const ResolvedTopology& t, Precision precision,
                         const std::vector<ResolvedMarker>& extra_markers) {
  TopologyAnalysis a;
  a.precision = precision;
  for (const ResolvedLayer& l : t.layers) {
    LayerAnalysis la{l.name, l.op, l.inlay, LayerCost(l, precision)};
    if (l.cache_elements_per_token > 0) {
      // i8 runs keep their caches in f32: no backend quantizes keys and values (only the inputs
      // of conv2d, dense and recurrent layers), so a cache costs 4 bytes an element there.
      const Precision stored = precision == Precision::kI8 ? Precision::kF32 : precision;
      a.kv_cache_bytes_per_token += l.cache_elements_per_token * ElementBytes(stored);
      ++a.kv_cache_layers;
    }
    a.total += la.cost;
    a.layers.push_back(std::move(la));
  }
  std::vector<ResolvedMarker> markers = t.markers;
  markers.insert(markers.end(), extra_markers.begin(), extra_markers.end());
  for (const ResolvedMarker& m : markers) {
    MarkerAnalysis ma{m.name, m.first, m.last, {}};
    for (int i = m.first; i <= m.last; ++i) ma.cost += a.layers[i].cost;
    a.markers.push_back(std::move(ma));
  }
  ComputeLiveness(t, precision, &a);
  return a;
}

}  // namespace ntpb
