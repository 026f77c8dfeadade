// Resolution: bind params (N, T, user params), validate the graph, order it, infer shapes.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ntpbench/attrs.h"
#include "ntpbench/expression.h"
#include "ntpbench/shape.h"
#include "ntpbench/topology.h"

namespace ntpb {

// Limits enforced before anything is allocated.
struct ResolveLimits {
  int64_t max_weight_bytes = int64_t{8} << 30;      // at f32, whole topology
  int64_t max_activation_bytes = int64_t{8} << 30;  // at f32, any one tensor
  int64_t max_dimension = int64_t{1} << 31;
};

// How the reference initializer fills a weight (deterministic from the run's seed).
enum class WeightInit { kFanIn, kOnes, kZeros, kVariance };

struct WeightSpec {
  std::string name;
  Shape shape;
  bool trainable = true;  // false for running statistics (counted in bytes, not in params)
  WeightInit init = WeightInit::kFanIn;
  int64_t fan_in = 1;
  // A [inputs, outputs] matrix the weight-only precisions (w8, w4) store quantized.
  bool weight_only_quantized = false;
};

struct ResolvedLayer {
  std::string name;
  std::string op;
  bool inlay = false;    // not a network layer but part of the end-to-end cost (MFCC, copy, ...)
  bool is_view = false;  // the output shares the input's storage (reshape): no data moves
  std::vector<std::string> inputs, outputs;
  std::vector<Shape> input_shapes, output_shapes;
  Attrs attrs;
  std::vector<WeightSpec> weights;
  // Parallel to `weights`: the source's values, or null where the weight is random.
  std::vector<std::shared_ptr<const std::vector<float>>> weight_values;
  // Parallel to `weights`: elements of each read per execution (a recurrent layer reads its
  // recurrent weights at every step, an embedding the rows it looks up; the roofline counts
  // them as memory traffic).
  std::vector<int64_t> weight_elements_read;
  int64_t flops = 0;
  // Elements a decoder caches per token of context for this layer (OpDef's; 0: none).
  int64_t cache_elements_per_token = 0;
};

// A marker mapped to execution order: layers [first, last] (indices into ResolvedTopology::layers).
struct ResolvedMarker {
  std::string name;
  int first = 0;
  int last = 0;
};

struct ResolvedTopology {
  std::string name;
  std::string file;
  ParamEnv params;  // every param's bound value, N and T included when used
  std::vector<std::pair<std::string, Shape>> inputs;
  std::map<std::string, IntegerRange> integer_inputs;  // inputs of integers (token ids)
  std::vector<std::string> outputs;
  std::vector<ResolvedLayer> layers;    // execution order (topological, stable w.r.t. the file)
  std::map<std::string, Shape> shapes;  // every tensor
  std::vector<ResolvedMarker> markers;

  int LayerIndex(const std::string& name) const;  // -1 when absent
};

// `overrides` replace the topology's param defaults (N from the batch, T, n_hidden, ...).
// Throws ntpb::Error naming the file, layer and field.
ResolvedTopology Resolve(const Topology& topology, const ParamEnv& overrides,
                         const ResolveLimits& limits = {});

// Checks markers against the topology (names exist, start not after end, nesting) and returns
// their layer ranges. `extra` are markers added at registration.
std::vector<ResolvedMarker> ResolveMarkers(const ResolvedTopology& topology,
                                           const std::vector<Marker>& markers);

}  // namespace ntpb
