// Analytic signature of a resolved topology: FLOPs, parameters, bytes, intensity, liveness.
// Everything here is exact and deterministic; nothing is run.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ntpbench/precision.h"
#include "ntpbench/resolve.h"

namespace ntpb {

struct Cost {
  int64_t flops = 0;         // multiply-add = 2
  int64_t params = 0;        // trainable weights (running statistics excluded)
  int64_t weight_bytes = 0;  // every stored weight at the precision, statistics included
  int64_t input_bytes = 0;   // activations read
  int64_t output_bytes = 0;  // activations written
  // Weight bytes read per execution (OpDef::weight_elements_read): weight_bytes, plus re-reads
  // such as an LSTM's recurrent weights at every step, less what is not read (the embedding
  // rows no id picks). The roofline's memory traffic.
  int64_t weight_traffic_bytes = 0;
  // The largest weight tensor read more than once per execution (an LSTM direction's recurrent
  // weights, read every step), 0 if none: what a cache must hold from one pass over it to the
  // next. The largest of the parts where costs are summed.
  int64_t reread_tensor_bytes = 0;
  // FLOPs per byte moved (weights + inputs + outputs), 0 when nothing moves.
  double Intensity() const;
  Cost& operator+=(const Cost& o);
};

struct LayerAnalysis {
  std::string name;
  std::string op;
  bool inlay = false;
  Cost cost;
};

struct MarkerAnalysis {
  std::string name;
  int first = 0, last = 0;  // layer indices, execution order
  Cost cost;
};

struct TopologyAnalysis {
  Precision precision = Precision::kF32;
  std::vector<LayerAnalysis> layers;  // execution order
  std::vector<MarkerAnalysis> markers;
  Cost total;
  // Largest sum of live activation bytes at any step of the execution order (graph inputs and
  // outputs included; views share their source's storage).
  int64_t peak_activation_bytes = 0;
  int peak_layer = 0;  // index of the layer where the peak occurs
  // A decoder's KV cache per token of context and sequence, at the precision (f32 in i8 runs,
  // which quantize no cache), and how many
  // kv_cache layers keep it (one for keys, one for values per block); 0 for a network that
  // caches nothing.
  int64_t kv_cache_bytes_per_token = 0;
  int kv_cache_layers = 0;
};

// Who reads each tensor and until when its storage is needed, computed once here for the
// analysis (liveness) and for the backends (buffer reuse, fusion, requantization), which must
// agree on it.
struct TensorUses {
  struct Read {
    int layer = 0;  // index into ResolvedTopology::layers
    int input = 0;  // which of its inputs
  };
  static constexpr int kForever = 1 << 30;  // read by the caller: a graph output (or a view of one)

  // Every read of each tensor, in execution order (tensors never read have no entry).
  std::map<std::string, std::vector<Read>> readers;
  // The tensor whose storage each tensor is: itself, or for a view the storage of its source.
  std::map<std::string, std::string> storage;
  // Per storage: the last layer that reads it, through any view of it; kForever for a graph
  // output; absent if nothing reads it.
  std::map<std::string, int> last_use;

  const std::vector<Read>& ReadersOf(const std::string& tensor) const;
  // The last layer that reads `tensor`'s storage (kForever, or -1 if none).
  int LastUse(const std::string& tensor) const;
  bool IsGraphOutput(const std::string& tensor) const { return graph_outputs.count(tensor) > 0; }
  std::set<std::string> graph_outputs;
};
TensorUses AnalyzeTensorUses(const ResolvedTopology& topology);

Cost LayerCost(const ResolvedLayer& layer, Precision precision);
// Layers first..first+fused run as one fused step (a conv with its batchnorm folded in, its
// activation and a residual add as post-ops), each absorbed layer reading the one before it:
// their FLOPs and weights, their inputs but those intermediates, the last layer's outputs.
Cost FusedCost(const TopologyAnalysis& analysis, int first, int fused);
// Uses topology.markers plus `extra_markers` (already resolved against the same topology).
TopologyAnalysis Analyze(const ResolvedTopology& topology, Precision precision,
                         const std::vector<ResolvedMarker>& extra_markers = {});

}  // namespace ntpb
