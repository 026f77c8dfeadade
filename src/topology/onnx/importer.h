// The ONNX importer: one model read into the IR (src/topology/onnx_reader.cc runs it). Shapes
// come from ONNX's own shape inference; small integer computations on shapes (Shape -> Gather
// -> Concat -> Reshape) are folded into attributes; every other op is mapped by its family's
// table (mappings.h).
#pragma once

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <set>

#include "ntpbench/error.h"
#include "ntpbench/onnx_format.h"
#include "src/topology/onnx/constant_folding.h"
#include "src/topology/onnx/mappings.h"

namespace ntpb::onnx_import {

struct ShapeInputTooLong;
class WeightPool;

using Dims = std::vector<std::string>;  // each an integer or an expression ("N")

inline std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

inline std::string Identifier(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "d_" + out;
  return out;
}

// The topology's name: the graph's, or the file's stem where the graph has a name exporters give
// every model (`torch_jit`, `main_graph`, `tf2onnx`, none).
std::string ModelName(const std::string& graph_name, const std::string& file);

inline bool ToInt(const std::string& s, int64_t* v) {
  if (s.empty() || s.size() > 19) return false;
  size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size()) return false;
  for (size_t k = i; k < s.size(); ++k) {
    if (!std::isdigit(static_cast<unsigned char>(s[k]))) return false;
  }
  errno = 0;
  const long long parsed = std::strtoll(s.c_str(), nullptr, 10);
  if (errno != 0) return false;  // out of range (found by fuzzing: std::stoll threw)
  *v = parsed;
  return true;
}

// Input i of a node ("" when absent) and its first output.
inline std::string In(const onnx::NodeProto& n, int i) {
  return i < n.input_size() ? n.input(i) : std::string();
}
inline std::string Out(const onnx::NodeProto& n) {
  return n.output_size() > 0 ? n.output(0) : std::string();
}

// Reads one ONNX model into the IR. Its public helpers are the interface the per-family op
// mappings (src/topology/onnx/map_*.cc) use; the graph's state stays private.
class OnnxImporter {
 public:
  // With `bindings`, the graph inputs' symbolic dims get those values (a dim not named there its
  // default) before shape inference and folding, so that every shape computation folds; without,
  // they stay symbols (N, T, ...) in the topology's shapes.
  // `pool`: large weights are interned there, shared with the model's other readings.
  OnnxImporter(onnx::ModelProto& model, std::string file, const OnnxLimits& limits,
               const std::map<std::string, int64_t>* bindings = nullptr,
               std::shared_ptr<WeightPool> pool = nullptr)
      : m_(model),
        file_(std::move(file)),
        limits_(limits),
        bindings_(bindings),
        pool_(std::move(pool)) {}

  Topology Import();
  Topology ImportGraph();
  // A model that does not read with its dims' default sizes (an image's height and width of 1)
  // comes back without layers but with its params, to be read again with sizes given (`--set`).
  void DeferFailureOfDefaults() { defer_ = true; }

 public:  // the mapping interface
  int64_t opset() const { return opset_; }
  bool reads_weights() const { return limits_.read_weights; }
  const OnnxLimits& limits() const { return limits_; }
  bool IsConsumed(const std::string& tensor) const { return consumers_.count(tensor) > 0; }
  // Consumed by a node or a graph output.
  bool IsUsed(const std::string& tensor) const;
  bool IsInitializer(const std::string& tensor) const { return init_.count(tensor) > 0; }

  struct Unsupported {
    int count = 0;
    std::string first_node, why;
  };

  [[noreturn]] void Fail(const std::string& node, const std::string& field,
                         const std::string& message) const;

  // The checker's messages span lines (the offending node is printed after a newline).
  static std::string OneLine(const std::string& s);

  // Opsets read: what libonnx 1.12 knows. Older than kOldestMapped is brought forward to
  // kConvertTo with libonnx's version converter, so the mappings see opset 11 and later only.
  static constexpr int64_t kOldestOpset = 7, kOldestMapped = 11, kConvertTo = 13, kNewestOpset = 17;
  void CheckOpset() const;
  void ConvertOldOpset();
  void InferShapes();
  [[noreturn]] void FailShapeInputTooLong(const onnx_import::ShapeInputTooLong& e) const;

  // Op types no mapping exists for are reported before libonnx's shape inference sees them
  // (less third-party code run on untrusted input); attribute-level refusals come later.
  void RefuseUnknownOpTypes();

  void FailUnsupported() const;

  // libonnx 1.12's shape inference for convolution and pooling indexes attributes by the
  // weight's rank without checking them, and crashes on inconsistent ones (found by fuzzing:
  // a Conv whose weight has rank 2). Those invariants are checked here first.
  void PrecheckForShapeInference() const;

  // libonnx 1.12's version converter dereferences the producer of every graph output and
  // crashed on an output that nothing produces (found by fuzzing an opset-9 model whose last
  // node's output was renamed; the checker lets it pass). Checked before any libonnx pass.
  void CheckGraphOutputsAreDefined() const;

  // libonnx 1.12's shape inference for LayerNormalization indexes its input's dimensions by the
  // axis without checking it (found by fuzzing: a scalar input crashed it), and other ops that
  // take an axis may do the same. So ranks are followed through the ops that keep them, and
  // each axis is checked against a known rank first.
  void CheckAxesAgainstRank(const onnx::NodeProto& n, std::map<std::string, int>* ranks) const;

  // Sizes are checked before any tensor's content is converted.
  void CheckLimits() const;

  int64_t Elements(const onnx::TensorProto& t, const std::string& what) const;
  // What constant folding may produce: about the size of the model's own constants (exporters
  // fold shape arithmetic and weight transposes). Larger generated data (ConstantOfShape,
  // Expand, Range, Tile of sizes in the file) stays a node, as it would be made at run time;
  // folding it cost seconds and gigabytes for nothing (a fuzz finding).
  onnx_import::FoldingLimits FoldingBudget() const;
  static size_t ElementBytes(int32_t type);

  // Symbolic dimensions: the batch becomes N, a sequence T, anything else a param (default 1)
  // named after the dim (or after the input and axis when the dim has no name).
  std::string Symbol(const std::string& param, int axis, const std::string& input = "");
  static std::string SymbolName(const std::string& param, int axis, const std::string& input);
  // The param a dim name inside the graph stands for: an input dim's, or "" (none).
  std::string KnownSymbol(const std::string& param) const;
  // Names the graph inputs' symbolic dims as params (with their ONNX names as aliases) and, when
  // binding, gives them their values.
  void NameSymbolicInputDims();

  void RecordDims(const onnx::ValueInfoProto& v, bool graph_input);

  const Dims& DimsOf(const std::string& tensor, const onnx::NodeProto& n) const;

  std::string Resolve(const std::string& tensor) const;

  const onnx::AttributeProto* Attr(const onnx::NodeProto& n, const std::string& name) const;
  int64_t Int(const onnx::NodeProto& n, const std::string& name, int64_t dflt) const;
  float Float(const onnx::NodeProto& n, const std::string& name, float dflt) const;
  std::string Str(const onnx::NodeProto& n, const std::string& name, const std::string& dflt) const;
  std::vector<int64_t> Ints(const onnx::NodeProto& n, const std::string& name) const;

  // The ONNX element type of a tensor (onnx::TensorProto::DataType) as shape inference or the
  // model declares it; UNDEFINED (0) when unknown.
  int32_t ElemType(const std::string& tensor) const;
  // `input` is a graph input of integers read as ids of a table of `rows` (an embedding): its
  // random data is drawn from [0, rows).
  void DeclareIds(const std::string& input, int64_t rows);
  // `input` is a graph input of sequence lengths up to `steps` (a recurrent layer's
  // sequence_lens): its random data is drawn from [1, steps].
  void DeclareLengths(const std::string& input, int64_t steps);

  // Float contents of an initializer or Constant (integer tensors converted: a comparison with
  // an integer constant).
  std::vector<float> Floats(const onnx::TensorProto& t, const onnx::NodeProto& n) const;

  // A weight input: its dims, and its values when the model carries them.
  struct Weight {
    std::vector<int64_t> dims;
    std::shared_ptr<std::vector<float>> values;  // null: the model has none (random)
  };
  Weight WeightInput(const onnx::NodeProto& n, int index);

  bool IsWeight(const std::string& name) const;

  Layer& Add(const onnx::NodeProto& n, const std::string& op, const std::string& suffix,
             std::vector<std::string> inputs, const std::string& output);
  // Gives the layer just added a further output (lstm's final cell state).
  void AddOutput(Layer& layer, const std::string& output);

  std::string LayerName(const onnx::NodeProto& n);

  void SetWeight(Layer& l, const std::string& name, std::vector<int64_t> shape,
                 std::shared_ptr<std::vector<float>> values);

  void Refuse(const onnx::NodeProto& n, const std::string& why = "");

  // Integer constants, possibly symbolic, for shape computations.
  bool IntConst(const std::string& name, Dims* out) const;

  std::vector<int64_t> IntsOf(const Dims& d, const onnx::NodeProto& n,
                              const std::string& field) const;

  static int64_t Axis(int64_t axis, size_t rank);

  // Graph plumbing is folded here (constants, shape arithmetic, identities); every op that
  // becomes a layer is mapped by its family's table (src/topology/onnx/mappings.h).
  void MapNode(const onnx::NodeProto& n, int /*index*/);

  static nlohmann::json ToJson(const std::string& dim);

  bool IsGraphInput(const std::string& name) const;
  // A graph input used as data by some node (not only as a weight).
  bool IsActivationInput(const std::string& name) const;

  static std::shared_ptr<std::vector<float>> Transposed(const std::vector<float>& v, int64_t rows,
                                                        int64_t cols);

  // A weight used as an operand (Add(x, bias), Mul(x, scale)) becomes a `constant` layer named
  // after it, created once however many nodes use it. Activations pass through.
  std::string ConstantLayer(const onnx::NodeProto& n, const std::string& tensor);
  // A `constant` layer of zeros of `shape` (not a parameter), named after `name`; returns its
  // output's name.
  std::string ZerosLayer(const std::string& name, const std::vector<int64_t>& shape);
  // The same of the given values (as many as the shape holds).
  std::string ValuesLayer(const std::string& name, const std::vector<int64_t>& shape,
                          std::vector<float> values);

  float ScalarConst(const std::string& name) const;
  // The values of a float constant (an initializer or a folded Constant); false if not one.
  bool FloatsConst(const std::string& name, const onnx::NodeProto& n,
                   std::vector<float>* out) const;
  // `out` is the same tensor as `in` (an identity: a Pad by nothing, a Dropout).
  // `out` stands for `in`'s source, resolved now: a chain of aliases costs one lookup each.
  void Alias(const std::string& out, const std::string& in) {
    std::string source = Resolve(in);
    if (source != out) alias_[out] = std::move(source);
  }

  const onnx::NodeProto* OnlyUser(const std::string& tensor, const std::string& op) const;

  // Exported patterns that become one IR layer (patterns.cc): GELU (erf form) and LayerNorm
  // decomposed into ReduceMean, Sub, Pow, Sqrt, Div, Mul, Add.
  void FindGeluPatterns();
  void FindLayerNormPatterns();
  void FindGatePatterns();
  void FindAttentionPatterns();
  // The node writing `tensor` when exactly one node reads it (a pattern may absorb both); else
  // null.
  const onnx::NodeProto* SoleProducer(const std::string& tensor) const;
  // A constant's dims (a folded constant or an initializer); empty if not one.
  std::vector<int64_t> ConstDims(const std::string& name) const;
  // How a constant masks attention scores: added to them (0 sees, -inf or -10000 does not), or a
  // Where condition (true sees, or false sees).
  enum class MaskKind { kAdditive, kTrueSees, kFalseSees };
  // 1: the constant `name` (its last two axes [queries, keys], others of size 1) is a causal
  // mask, with the queries the last positions; 0: it masks nothing; -1: neither.
  int CausalMask(const std::string& name, const onnx::NodeProto& n, MaskKind kind,
                 size_t rank) const;
  // The [N, keys] tensor of an additive padding mask Mul(Sub(1, Unsqueeze(s)(m)), -inf) (BERT's
  // extended attention mask), with the nodes that widen it in *chain (readers first); else "".
  std::string PaddingMaskSource(const std::string& tensor,
                                std::vector<const onnx::NodeProto*>* chain) const;

  // MatMul + Add(bias) -> one dense layer with a bias.
  bool FoldBias(const onnx::NodeProto& n, const std::string& x, const std::string& bias,
                const std::string& out);

  bool SetPadding(const onnx::NodeProto& n, Layer& l);

 private:
  onnx::ModelProto& m_;
  std::string file_;
  const OnnxLimits& limits_;
  const std::map<std::string, int64_t>* bindings_;
  std::shared_ptr<WeightPool> pool_;  // may be null
  mutable int64_t opset_ = 0;
  int64_t converted_from_ = 0;  // the model's own opset when it was converted, else 0
  int folded_ = 0;              // nodes folded into constants
  onnx_import::FoldingLimits folding_budget_;
  Topology t_;
  std::map<std::string, const onnx::TensorProto*> init_;
  std::list<onnx::TensorProto> owned_;  // Constant nodes' integer tensors
  std::map<std::string, Weight> float_consts_;
  std::map<std::string, Dims> int_consts_, dims_;
  std::map<std::string, std::string> alias_;
  std::map<std::string, int> consumers_;
  std::map<std::string, size_t> producer_;
  std::set<std::string> weight_inputs_, used_names_;
  std::map<const onnx::NodeProto*, std::string> node_names_;
  std::map<std::string, Unsupported> unsupported_;
  std::map<std::string, std::vector<const onnx::NodeProto*>> users_;
  std::map<std::string, const onnx::NodeProto*> node_of_;  // the node writing each tensor
  std::vector<const onnx::NodeProto*> mask_chains_;        // padding masks' widening nodes
  // Nodes absorbed by a pattern: the last one's function adds the layer, the others' are empty.
  std::map<const onnx::NodeProto*, std::function<void()>> patterns_;
  std::set<std::string> constant_layers_;
  std::set<std::string> model_initializers_;  // as the model carries them, before folding
  std::map<std::string, int64_t> symbolic_;
  bool defer_ = false;
  std::set<std::string> defaulted_;  // symbolic dims read at their default size (bound mode)
  std::map<std::string, int32_t> types_;
  std::map<std::string, int64_t> id_rows_;
  std::map<std::string, int64_t> length_steps_;  // DeclareLengths
  // Large initializers converted to floats, their bytes in the model released (WeightInput).
  std::map<std::string, std::shared_ptr<std::vector<float>>> converted_;
  int InitializerIndex(
      const std::string& name) const;  // graph inputs of ids: the smallest table's rows
};

}  // namespace ntpb::onnx_import
