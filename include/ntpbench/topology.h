// The topology IR: layers over named tensors, as written in a topology file.
//
// Sizes may be integer expressions over params ("n_hidden", "2*n_hidden"); the symbolic sizes N
// (batch) and T (sequence length) are params too. Nothing here is resolved: see resolve.h.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ntpb {

// Integers in [low, high): what an input of token ids holds. Values are stored as floats like
// every tensor, exact below 2^24.
struct IntegerRange {
  int64_t low = 0;
  int64_t high = 0;
  bool operator==(const IntegerRange& o) const { return low == o.low && high == o.high; }
};

// The bounds of an input of integers as written: each an integer or an expression over the
// params ("vocab"), so a token-id input follows the vocabulary it indexes. Resolution evaluates
// them into an IntegerRange.
struct IntegerBounds {
  std::string low = "0";
  std::string high = "0";
  bool operator==(const IntegerBounds& o) const { return low == o.low && high == o.high; }
};

// Throws std::invalid_argument unless low < high within +-2^24 (integers a float holds exactly).
inline void CheckIntegerRange(const IntegerRange& range) {
  constexpr int64_t kExact = int64_t{1} << 24;
  if (range.low >= range.high || range.low < -kExact || range.high > kExact) {
    throw std::invalid_argument(
        "expected low < high within +-2^24 (integers a float holds exactly)");
  }
}

// A graph input: a name and a shape whose dimensions are integer expressions.
struct TensorDecl {
  std::string name;
  std::vector<std::string> shape;
  // Set for an input of integers (token ids read by an embedding): random data is drawn from it.
  std::optional<IntegerBounds> integers;
  bool operator==(const TensorDecl& o) const {
    return name == o.name && shape == o.shape && integers == o.integers;
  }
};

// A weight's values as the source gave them (an ONNX initializer), in the layout the op
// declares for it (op_catalog.h, WeightSpec). Shared, not copied, between resolutions.
struct WeightValues {
  std::vector<int64_t> shape;
  std::shared_ptr<const std::vector<float>> data;
  bool operator==(const WeightValues& o) const {
    return shape == o.shape && (data == o.data || (data && o.data && *data == *o.data));
  }
};

// One layer (or inlay). `attrs` holds the op's attributes exactly as written (ints, expression
// strings, lists, floats, bools, enum strings); the op catalogue says which are allowed.
struct Layer {
  std::string name;
  std::string op;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  nlohmann::json attrs = nlohmann::json::object();
  // An integer expression of the params ("conv_type == 1"); empty: always. When it is 0 the
  // layer is left out and whatever read its output reads its first input instead, so one param
  // can switch between blocks (a sweep's convolution type).
  std::string when;
  // Weights with real values, by WeightSpec name; the others are random (random_data.h).
  std::map<std::string, WeightValues> weights;
  bool operator==(const Layer& o) const {
    return name == o.name && op == o.op && inputs == o.inputs && outputs == o.outputs &&
           attrs == o.attrs && when == o.when && weights == o.weights;
  }
};

// A named region [start layer .. end layer] in execution order (NTP's start/end markers).
struct Marker {
  std::string name;
  std::string start;
  std::string end;
  bool operator==(const Marker& o) const {
    return name == o.name && start == o.start && end == o.end;
  }
};

struct Topology {
  std::string name;
  std::string description;
  std::string file;  // where it was read from; used in error messages, not serialized
  std::map<std::string, int64_t> params;  // defaults; N and T may appear here too
  std::vector<TensorDecl> inputs;
  std::vector<Layer> layers;
  std::vector<std::string> outputs;
  std::vector<Marker> markers;

  // Other names a param answers to in `--set` (an ONNX input's dim `seq` read as T).
  std::map<std::string, std::string> param_aliases;
  // Where a param comes from, for `inspect` ("dim 1 'seq' of ONNX input 'input'").
  std::map<std::string, std::string> param_sources;

  // A topology whose layers depend on its params beyond what shape expressions say (an ONNX
  // model's shape computations fold only once its symbolic dims have values) is read at the
  // values in `bound`; Resolve reads it again through `rebind` when a run binds others.
  std::map<std::string, int64_t> bound;
  std::function<Topology(const std::map<std::string, int64_t>& values)> rebind;

  // Equality of content (the source file name is not content).
  bool operator==(const Topology& o) const {
    return name == o.name && description == o.description && params == o.params &&
           inputs == o.inputs && layers == o.layers && outputs == o.outputs && markers == o.markers;
  }
};

}  // namespace ntpb
