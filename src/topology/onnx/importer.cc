// The importer's steps and its mapping interface (declared in importer.h).
#include "src/topology/onnx/importer.h"

#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>

#include "src/topology/onnx/constant_folding.h"
#include "src/topology/onnx/shape_input_guard.h"
#include "src/topology/onnx/weight_pool.h"

namespace ntpb::onnx_import {

std::string ModelName(const std::string& graph_name, const std::string& file) {
  // Names exporters give every graph: two different models would share a benchmark name (and
  // a baseline entry), so the file says which model it is.
  static const char* const kExporterDefaults[] = {
      "", "torch_jit", "torch-jit-export", "main_graph", "tf2onnx", "onnx_model", "graph", "model"};
  bool generic = false;
  for (const char* d : kExporterDefaults) generic = generic || graph_name == d;
  if (!generic) return Identifier(graph_name);
  const size_t slash = file.find_last_of('/');
  std::string stem = slash == std::string::npos ? file : file.substr(slash + 1);
  const size_t dot = stem.rfind('.');
  if (dot != std::string::npos && dot > 0) stem = stem.substr(0, dot);
  if (stem.empty() || stem == "-" || stem.front() == '<') return "onnx_model";
  return Identifier(stem);
}

Topology OnnxImporter::Import() {
  if (!bindings_) return ImportGraph();
  try {
    return ImportGraph();
  } catch (const Error& e) {
    // A dim left at its default (1 for anything but a sequence) is the likely cause: the
    // message says which and how to give them.
    std::string defaults;
    for (const std::string& name : defaulted_) defaults += (defaults.empty() ? "" : ", ") + name;
    if (defaults.empty()) throw;
    if (defer_) {
      Topology deferred;
      deferred.file = file_;
      deferred.name = ModelName(m_.graph().name(), file_);
      deferred.description = "not read yet: " + e.message();
      for (const auto& [name, value] : symbolic_) {
        if (name != "N") deferred.params[name] = value;
      }
      deferred.param_aliases = t_.param_aliases;
      deferred.param_sources = t_.param_sources;
      deferred.bound = symbolic_;
      return deferred;
    }
    throw Error(e.file(), e.layer(), e.field(),
                e.message() + " (read with the default sizes of the model's symbolic dims " +
                    defaults + ": give them with --set NAME=VALUE)");
  }
}

Topology OnnxImporter::ImportGraph() {
  CheckLimits();
  CheckOpset();
  try {
    onnx::checker::check_model(m_);
  } catch (const std::exception& e) {
    Fail("", "", std::string("the ONNX checker refused the model: ") + OneLine(e.what()));
  }
  CheckGraphOutputsAreDefined();
  RefuseUnknownOpTypes();
  NameSymbolicInputDims();
  PrecheckForShapeInference();
  InferShapes();  // the version converter's adapters read shapes (Softmax 12 -> 13)
  if (opset_ < kOldestMapped) {
    ConvertOldOpset();
    InferShapes();
  }
  // Constants are computed once here, so the mappings see initializers where exporters left
  // Identity, Shape -> Gather -> Concat, ConstantOfShape, Expand, Range or weight transposes.
  const int nodes_read = m_.graph().node_size();
  for (const onnx::TensorProto& t : m_.graph().initializer()) model_initializers_.insert(t.name());
  // Folding feeds shape inference and back: a Reshape to a folded shape has a known output, whose
  // Shape then folds too (an exported attention's head split; a ShuffleNet's channel shuffles,
  // one round per unit).
  folding_budget_ = FoldingBudget();
  int64_t folded_bytes = 0;  // shared by the rounds
  int more = FoldConstants(&m_, file_, folding_budget_, &folded_bytes);
  folded_ = more;
  for (int round = 0; more > 0; ++round) {
    InferShapes();
    if (round == 256) break;  // each round folds at least one node: a bound, not a limit
    more = FoldConstants(&m_, file_, folding_budget_, &folded_bytes);
    folded_ += more;
  }
  const onnx::GraphProto& g = m_.graph();
  for (const onnx::TensorProto& t : g.initializer()) {
    init_[t.name()] = &t;
    types_[t.name()] = t.data_type();
  }
  for (const onnx::NodeProto& n : g.node()) {
    for (const std::string& in : n.input()) {
      ++consumers_[in];
      users_[in].push_back(&n);
    }
    for (const std::string& out : n.output()) node_of_[out] = &n;
  }
  for (const onnx::ValueInfoProto& v : g.input()) RecordDims(v, true);
  for (const onnx::ValueInfoProto& v : g.value_info()) RecordDims(v, false);
  for (const onnx::ValueInfoProto& v : g.output()) RecordDims(v, false);
  FindGeluPatterns();
  FindLayerNormPatterns();
  FindGatePatterns();
  FindAttentionPatterns();
  t_.file = file_;
  t_.name = ModelName(g.name(), file_);
  t_.description =
      "imported from " + file_ +
      (m_.producer_name().empty()
           ? std::string()
           : " (produced by " + m_.producer_name() +
                 (m_.producer_version().empty() ? "" : " " + m_.producer_version()) + ")") +
      ", opset " + std::to_string(opset_) +
      (converted_from_ > 0 ? " (converted from opset " + std::to_string(converted_from_) + ")"
                           : "") +
      ", " + std::to_string(folded_) + " of " + std::to_string(nodes_read) +
      " nodes folded into constants";
  if (bindings_) {
    std::string values;
    for (const auto& [name, value] : symbolic_)
      values += (values.empty() ? "" : ", ") + name + "=" + std::to_string(value);
    t_.description += "; its shape computations fold only with sizes, so it was read at " + values;
  }
  int index = 0;
  for (const onnx::NodeProto& n : g.node()) {
    auto pattern = patterns_.find(&n);
    if (pattern != patterns_.end()) {
      if (pattern->second) pattern->second();  // the pattern's last node emits its layer
      continue;
    }
    MapNode(n, index++);
  }
  if (!unsupported_.empty()) FailUnsupported();
  for (const onnx::ValueInfoProto& v : g.input()) {
    if (init_.count(v.name()) || weight_inputs_.count(v.name())) continue;
    if (!consumers_.count(v.name())) continue;
    auto d = dims_.find(v.name());
    if (d == dims_.end()) Fail("", "input", "graph input '" + v.name() + "' has no shape");
    TensorDecl input{v.name(), d->second, std::nullopt};
    const int32_t type = ElemType(v.name());
    if (type == onnx::TensorProto::BOOL) input.integers = IntegerBounds{"0", "2"};
    auto steps = length_steps_.find(v.name());
    if (IsIntegerElementType(type) && steps != length_steps_.end()) {
      input.integers = IntegerBounds{"1", std::to_string(steps->second + 1)};
    } else if (IsIntegerElementType(type)) {
      auto rows = id_rows_.find(v.name());
      if (rows == id_rows_.end()) {
        Fail("", "input",
             "graph input '" + v.name() +
                 "' holds integers that index no embedding table: the range of its values is "
                 "unknown (only token ids and sequence lengths are read)");
      }
      input.integers = IntegerBounds{"0", std::to_string(rows->second)};
    }
    t_.inputs.push_back(input);
  }
  if (t_.inputs.empty()) Fail("", "inputs", "the graph has no (non-weight) input");
  for (const onnx::ValueInfoProto& v : g.output()) t_.outputs.push_back(Resolve(v.name()));
  for (const auto& [name, value] : symbolic_) {
    if (name != "N") t_.params[name] = value;
  }
  if (bindings_) t_.bound = symbolic_;
  return t_;
}

void OnnxImporter::Fail(const std::string& node, const std::string& field,
                        const std::string& message) const {
  throw Error(file_, node, field, message);
}

std::string OnnxImporter::OneLine(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    if (c == ' ' && (out.empty() || out.back() == ' ')) continue;
    out += c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out.size() > 400 ? out.substr(0, 400) + "..." : out;
}

void OnnxImporter::CheckOpset() const {
  int64_t opset = -1;
  for (const onnx::OperatorSetIdProto& o : m_.opset_import()) {
    if (o.domain().empty() || o.domain() == "ai.onnx") opset = o.version();
  }
  const std::string read = "ntpbench reads opsets " + std::to_string(kOldestMapped) + " to " +
                           std::to_string(kNewestOpset) + " as they are and converts opsets " +
                           std::to_string(kOldestOpset) + " to " +
                           std::to_string(kOldestMapped - 1) + " to opset " +
                           std::to_string(kConvertTo) + " with libonnx's version converter";
  if (opset > kNewestOpset) {
    Fail("", "opset_import",
         "opset " + std::to_string(opset) + " is newer than this build's libonnx knows (" + read +
             "); export at opset " + std::to_string(kNewestOpset) + " or older");
  }
  if (opset < kOldestOpset) {
    Fail("", "opset_import",
         (opset < 0 ? std::string("the model imports no default-domain opset")
                    : "opset " + std::to_string(opset) + " is older than ntpbench converts") +
             " (" + read + "); re-export the model at opset " + std::to_string(kConvertTo) +
             " (torch.onnx.export(..., opset_version=" + std::to_string(kConvertTo) + "))");
  }
  opset_ = opset;
}

void OnnxImporter::ConvertOldOpset() {
  try {
    m_ = onnx::version_conversion::ConvertVersion(m_, kConvertTo);
  } catch (const std::exception& e) {
    Fail("", "opset_import",
         "opset " + std::to_string(opset_) + " could not be converted to opset " +
             std::to_string(kConvertTo) + " by libonnx's version converter: " + OneLine(e.what()));
  }
  converted_from_ = opset_;
  opset_ = kConvertTo;
}

void OnnxImporter::InferShapes() {
  // libonnx keeps a value's recorded type as it is: one recorded without a shape (the indices
  // of a lookup were not known yet) would stay so after folding made them known.
  // With the dims bound, every shape is static in the end: one inferred before folding made
  // it known (`unk__1`) would stay too, in value_info as in the graph's outputs.
  auto partial = [&](const onnx::ValueInfoProto& v) {
    if (!v.type().tensor_type().has_shape()) return true;
    if (!bindings_) return false;
    for (const auto& d : v.type().tensor_type().shape().dim()) {
      if (!d.has_dim_value()) return true;
    }
    return false;
  };
  auto* info = m_.mutable_graph()->mutable_value_info();
  for (int i = info->size(); i-- > 0;) {
    if (partial(info->Get(i))) info->DeleteSubrange(i, 1);
  }
  for (onnx::ValueInfoProto& v : *m_.mutable_graph()->mutable_output()) {
    if (bindings_ && partial(v)) v.mutable_type()->mutable_tensor_type()->clear_shape();
  }
  const onnx_import::ShapeInputGuardRegistry guarded(limits_.max_rank);
  try {
    onnx::shape_inference::InferShapes(m_, &guarded);
  } catch (const onnx_import::ShapeInputTooLong& e) {
    FailShapeInputTooLong(e);
  } catch (const std::exception& e) {
    Fail("", "", std::string("ONNX shape inference failed: ") + OneLine(e.what()));
  }
}

void OnnxImporter::FailShapeInputTooLong(const onnx_import::ShapeInputTooLong& e) const {
  // The node is the first of its op type whose shape input has that length as far as the graph
  // says (libonnx records each value's type as it infers it); else the first of its op type.
  auto length_of = [&](const std::string& tensor) -> int64_t {
    for (const onnx::TensorProto& t : m_.graph().initializer()) {
      if (t.name() == tensor) return t.dims_size() == 1 ? t.dims(0) : -1;
    }
    for (const onnx::ValueInfoProto& v : m_.graph().value_info()) {
      if (v.name() != tensor || !v.type().tensor_type().has_shape()) continue;
      const onnx::TensorShapeProto& shape = v.type().tensor_type().shape();
      if (shape.dim_size() == 1 && shape.dim(0).has_dim_value()) return shape.dim(0).dim_value();
    }
    return -1;
  };
  const onnx::NodeProto* first = nullptr;
  for (const onnx::NodeProto& n : m_.graph().node()) {
    if (n.op_type() != e.op || n.input_size() <= e.index) continue;
    if (first == nullptr) first = &n;
    if (length_of(n.input(e.index)) == e.length) {
      first = &n;
      break;
    }
  }
  if (first == nullptr)
    Fail("", "", std::string("ONNX shape inference refused a ") + e.op + ": " + e.what());
  Fail(first->name(), "input " + std::to_string(e.index),
       "'" + first->input(e.index) + "': " + e.what());
}

void OnnxImporter::RefuseUnknownOpTypes() {
  // Graph plumbing MapNode folds; the ops that become layers are the mapping tables'.
  for (const onnx::NodeProto& n : m_.graph().node()) {
    // Ops only some patterns use (Erf in GELU, ReduceMean in LayerNorm) are judged after the
    // patterns are found, in MapNode.
    if (CanFold(n.op_type())) continue;
    if (!FindOnnxMapping(n.op_type())) Refuse(n);
  }
  if (!unsupported_.empty()) FailUnsupported();
}

void OnnxImporter::FailUnsupported() const {
  std::string list;
  for (const auto& [op, u] : unsupported_) {
    list += (list.empty() ? "" : "; ") + op + " x" + std::to_string(u.count) + " (first: '" +
            u.first_node + "'" + (u.why.empty() ? "" : ", " + u.why) + ")";
  }
  Fail("", "op", "unsupported ONNX ops: " + list);
}

void OnnxImporter::CheckGraphOutputsAreDefined() const {
  const onnx::GraphProto& g = m_.graph();
  std::set<std::string> defined;
  for (const onnx::ValueInfoProto& v : g.input()) defined.insert(v.name());
  for (const onnx::TensorProto& t : g.initializer()) defined.insert(t.name());
  for (const onnx::NodeProto& n : g.node()) defined.insert(n.output().begin(), n.output().end());
  for (const onnx::ValueInfoProto& v : g.output()) {
    if (!defined.count(v.name())) {
      Fail("", "output",
           "graph output '" + v.name() + "' is produced by no node, input or initializer");
    }
  }
}

void OnnxImporter::PrecheckForShapeInference() const {
  std::map<std::string, int> ranks;
  for (const onnx::TensorProto& t : m_.graph().initializer()) ranks[t.name()] = t.dims_size();
  for (const onnx::ValueInfoProto& v : m_.graph().input()) {
    if (v.type().has_tensor_type() && v.type().tensor_type().has_shape()) {
      ranks.emplace(v.name(), v.type().tensor_type().shape().dim_size());
    }
  }
  std::set<std::string> initializers;
  for (const onnx::TensorProto& t : m_.graph().initializer()) initializers.insert(t.name());
  for (const onnx::ValueInfoProto& v : m_.graph().input()) {
    if (!initializers.count(v.name()) && ranks.count(v.name()) && ranks.at(v.name()) == 0) {
      Fail("", v.name(),
           "graph input '" + v.name() +
               "' is a scalar (its shape has no dimensions); ntpbench needs tensors of rank 1 "
               "or more");
    }
  }
  for (const onnx::NodeProto& n : m_.graph().node()) {
    CheckAxesAgainstRank(n, &ranks);
    const std::string& op = n.op_type();
    const bool conv =
        op == "Conv" || op == "ConvTranspose" || op == "ConvInteger" || op == "QLinearConv";
    const bool pool = op == "MaxPool" || op == "AveragePool" || op == "LpPool";
    if (!conv && !pool) continue;
    int spatial = -1;
    auto note = [&](int s, const std::string& what) {
      if (spatial >= 0 && s != spatial) {
        Fail(n.name(), what,
             op + " has " + std::to_string(s) + " spatial dimensions in '" + what + "' but " +
                 std::to_string(spatial) + " elsewhere");
      }
      spatial = s;
    };
    if (conv && n.input_size() > 1) {
      auto r = ranks.find(n.input(1));
      if (r != ranks.end()) {
        if (r->second < 3) {
          Fail(n.name(), "W",
               op + " weight '" + n.input(1) + "' has rank " + std::to_string(r->second) +
                   "; a convolution needs 3 or more");
        }
        note(r->second - 2, "W");
      }
    }
    if (n.input_size() > 0) {
      auto r = ranks.find(n.input(0));
      if (r != ranks.end()) {
        if (r->second < 3) {
          Fail(n.name(), "X",
               op + " input '" + n.input(0) + "' has rank " + std::to_string(r->second) +
                   "; it needs 3 or more");
        }
        note(r->second - 2, "X");
      }
    }
    for (const onnx::AttributeProto& a : n.attribute()) {
      const int len = a.ints_size();
      const bool positive =
          a.name() == "kernel_shape" || a.name() == "strides" || a.name() == "dilations";
      if (positive || a.name() == "output_padding") {
        note(len, a.name());
      } else if (a.name() == "pads") {
        if (len % 2 != 0) Fail(n.name(), "pads", "needs an even number of values");
        note(len / 2, "pads");
      }
      for (int64_t v : a.ints()) {  // a zero stride divided by zero in libonnx (fuzzing)
        if ((positive && (v < 1 || v > (int64_t{1} << 31))) || v < 0 || v > (int64_t{1} << 31)) {
          Fail(n.name(), a.name(), "value " + std::to_string(v) + " is out of range");
        }
      }
      if (a.name() == "group" && (a.i() < 1 || a.i() > (int64_t{1} << 31))) {
        Fail(n.name(), "group", "value " + std::to_string(a.i()) + " is out of range");
      }
    }
    if (pool && spatial < 0) Fail(n.name(), "kernel_shape", op + " needs kernel_shape");
  }
}

void OnnxImporter::CheckAxesAgainstRank(const onnx::NodeProto& n,
                                        std::map<std::string, int>* ranks) const {
  static const std::set<std::string> kSameRank = {"Sigmoid",
                                                  "Tanh",
                                                  "Relu",
                                                  "LeakyRelu",
                                                  "Identity",
                                                  "Dropout",
                                                  "Erf",
                                                  "Sqrt",
                                                  "Neg",
                                                  "Clip",
                                                  "Softmax",
                                                  "LogSoftmax",
                                                  "LayerNormalization",
                                                  "Transpose",
                                                  "BatchNormalization",
                                                  "Add",
                                                  "Sub",
                                                  "Mul",
                                                  "Div",
                                                  "Pow"};
  const std::string& op = n.op_type();
  auto rank_of = [&](int input) -> int {
    if (input >= n.input_size()) return -1;
    auto r = ranks->find(n.input(input));
    return r == ranks->end() ? -1 : r->second;
  };
  const int rank = rank_of(0);
  if (rank >= 0) {
    auto int_attr = [&](const char* name, int64_t fallback) {
      for (const onnx::AttributeProto& a : n.attribute()) {
        if (a.name() == name) return a.i();
      }
      return fallback;
    };
    if (op == "LayerNormalization" || op == "Softmax" || op == "LogSoftmax" || op == "Concat") {
      const int64_t axis = int_attr("axis", -1);
      if (rank < 1 || axis < -rank || axis >= rank) {
        Fail(n.name(), "axis",
             op + " axis " + std::to_string(axis) + " is out of range for its rank-" +
                 std::to_string(rank) + " input '" + n.input(0) + "'");
      }
    }
    if (op == "Flatten") {
      const int64_t axis = int_attr("axis", 1);
      if (axis < -rank || axis > rank) {
        Fail(n.name(), "axis",
             "Flatten axis " + std::to_string(axis) + " is out of range for its rank-" +
                 std::to_string(rank) + " input '" + n.input(0) + "'");
      }
    }
  }
  if (n.output_size() == 0) return;
  int out = -1;
  if (kSameRank.count(op)) {
    out = rank;
    for (int i = 1; i < n.input_size() &&
                    (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Pow");
         ++i) {
      const int other = rank_of(i);
      out = out < 0 || other < 0 ? -1 : std::max(out, other);  // broadcasting
    }
  } else if (op == "Flatten") {
    out = 2;
  }
  if (out >= 0) {
    (*ranks)[n.output(0)] = out;
  } else {
    ranks->erase(n.output(0));
  }
}

// Bytes per element of raw_data (the ONNX types; BOOL is one byte, as numpy writes it).
size_t OnnxImporter::ElementBytes(int32_t type) {
  switch (type) {
    case onnx::TensorProto::BOOL:
    case onnx::TensorProto::INT8:
    case onnx::TensorProto::UINT8:
      return 1;
    case onnx::TensorProto::INT16:
    case onnx::TensorProto::UINT16:
    case onnx::TensorProto::FLOAT16:
    case onnx::TensorProto::BFLOAT16:
      return 2;
    case onnx::TensorProto::INT64:
    case onnx::TensorProto::UINT64:
    case onnx::TensorProto::DOUBLE:
      return 8;
    default:
      return 4;
  }
}

void OnnxImporter::CheckLimits() const {
  const onnx::GraphProto& g = m_.graph();
  if (g.node_size() > limits_.max_nodes) {
    Fail("", "graph.node",
         std::to_string(g.node_size()) + " nodes exceed the limit of " +
             std::to_string(limits_.max_nodes) + " (OnnxLimits::max_nodes)");
  }
  int64_t total = 0;
  for (const onnx::TensorProto& t : g.initializer()) {
    const int64_t n = Elements(t, "initializer '" + t.name() + "'");
    if (n > (limits_.max_weight_bytes - total) / 4) {
      Fail("", "initializer",
           "initializer '" + t.name() + "' brings the weights over the limit of " +
               std::to_string(limits_.max_weight_bytes) + " bytes (OnnxLimits::max_weight_bytes)");
    }
    total += 4 * n;
    if (t.data_location() == onnx::TensorProto::EXTERNAL) {
      if (!limits_.read_weights) continue;  // its shape is what is read (LoadExternalData)
      Fail("", "initializer",
           "initializer '" + t.name() +
               "' keeps its data in an external file, read only beside a model given by its path "
               "(not from standard input)");
    }
    const size_t width = ElementBytes(t.data_type());
    const bool raw = !t.raw_data().empty();
    const int64_t have = raw ? static_cast<int64_t>(t.raw_data().size() / width)
                             : t.float_data_size() + t.int64_data_size() + t.int32_data_size() +
                                   t.double_data_size();
    if (have != n) {
      Fail("", "initializer",
           "initializer '" + t.name() + "' declares " + std::to_string(n) + " elements but holds " +
               std::to_string(have));
    }
  }
}

int64_t OnnxImporter::Elements(const onnx::TensorProto& t, const std::string& what) const {
  if (t.dims_size() > limits_.max_rank)
    Fail("", "dims", what + " has rank " + std::to_string(t.dims_size()));
  int64_t n = 1;
  for (int64_t d : t.dims()) {
    if (d < 0 || __builtin_mul_overflow(n, d, &n)) {
      Fail("", "dims", what + " has an impossible dimension " + std::to_string(d));
    }
  }
  return n;
}

onnx_import::FoldingLimits OnnxImporter::FoldingBudget() const {
  int64_t constants = 0;  // elements, saturating: a Constant's dims are not bounded yet
  const auto add = [&constants](int64_t n) {
    if (__builtin_add_overflow(constants, n, &constants)) constants = INT64_MAX;
  };
  for (const onnx::TensorProto& t : m_.graph().initializer()) add(Elements(t, t.name()));
  for (const onnx::NodeProto& n : m_.graph().node()) {
    if (n.op_type() != "Constant") continue;
    for (const onnx::AttributeProto& a : n.attribute()) {
      if (a.has_t()) add(Elements(a.t(), "node '" + n.name() + "' value"));
    }
  }
  onnx_import::FoldingLimits budget;
  // Twice the constants (a transpose and what reads it) and 16 Mi elements of room for small
  // models; never past what the weights may weigh (8 bytes per folded element, 4 per weight).
  constexpr int64_t kRoom = int64_t{1} << 24;
  const int64_t elements = std::min((budget.max_total_bytes / 8 - kRoom) / 2, constants);
  budget.max_total_bytes = std::min(
      budget.max_total_bytes, std::min(8 * (2 * elements + kRoom), 2 * limits_.max_weight_bytes));
  budget.max_elements = std::min(budget.max_elements, budget.max_total_bytes / 8);
  return budget;
}

std::string OnnxImporter::Symbol(const std::string& param, int axis, const std::string& input) {
  const std::string name = SymbolName(param, axis, input);
  symbolic_.emplace(name, name == "T" ? 16 : 1);
  return name;
}

std::string OnnxImporter::KnownSymbol(const std::string& param) const {
  auto alias = t_.param_aliases.find(Identifier(param));
  if (alias != t_.param_aliases.end()) return alias->second;
  const std::string name = SymbolName(param, -1, "");
  return symbolic_.count(name) ? name : "";
}

std::string OnnxImporter::SymbolName(const std::string& param, int axis, const std::string& input) {
  const std::string l = Lower(param);
  std::string name;
  if (l == "n" || l.find("batch") != std::string::npos) {
    name = "N";
  } else if (l == "t" || l.find("seq") != std::string::npos ||
             l.find("time") != std::string::npos) {
    name = "T";
  } else if (axis == 0) {
    name = "N";
  } else if (param.empty()) {
    name = Identifier(input + "_dim" + std::to_string(axis));
  } else {
    name = Identifier(param);
  }
  return name;
}

void OnnxImporter::NameSymbolicInputDims() {
  onnx::GraphProto* g = m_.mutable_graph();
  std::set<std::string> initializers;
  for (const onnx::TensorProto& t : g->initializer()) initializers.insert(t.name());
  for (onnx::ValueInfoProto& v : *g->mutable_input()) {
    if (initializers.count(v.name()) || !v.type().has_tensor_type() ||
        !v.type().tensor_type().has_shape()) {
      continue;
    }
    auto* shape = v.mutable_type()->mutable_tensor_type()->mutable_shape();
    for (int i = 0; i < shape->dim_size(); ++i) {
      auto* d = shape->mutable_dim(i);
      if (d->has_dim_value()) continue;
      const std::string param = d->has_dim_param() ? d->dim_param() : "";
      const std::string name = Symbol(param, i, v.name());
      if (!param.empty() && Identifier(param) != name) t_.param_aliases[Identifier(param)] = name;
      t_.param_sources.emplace(name, "dim " + std::to_string(i) +
                                         (param.empty() ? "" : " '" + param + "'") +
                                         " of ONNX input '" + v.name() + "'");
      if (!bindings_) continue;
      auto bound = bindings_->find(name);
      if (bound != bindings_->end()) {
        symbolic_[name] = bound->second;
      } else if (name != "N") {
        defaulted_.insert(name);
      }
      d->set_dim_value(symbolic_.at(name));
    }
  }
  if (!bindings_) return;
  // What the exporter declared with symbols would contradict what inference now finds.
  g->clear_value_info();
  for (onnx::ValueInfoProto& v : *g->mutable_output()) {
    if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) continue;
    for (auto& d : *v.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim()) {
      if (d.has_dim_param()) d.clear_dim_param();
    }
  }
}

void OnnxImporter::RecordDims(const onnx::ValueInfoProto& v, bool graph_input) {
  if (v.type().has_tensor_type() && v.type().tensor_type().elem_type() != 0) {
    types_[v.name()] = v.type().tensor_type().elem_type();
  }
  if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) return;
  Dims dims;
  const auto& shape = v.type().tensor_type().shape();
  if (shape.dim_size() > limits_.max_rank) {
    Fail("", "input", "'" + v.name() + "' has rank " + std::to_string(shape.dim_size()));
  }
  for (int i = 0; i < shape.dim_size(); ++i) {
    const auto& d = shape.dim(i);
    if (d.has_dim_value()) {
      // An empty tensor (Resize's unused roi) is legal inside the graph, not as an input.
      if (d.dim_value() < (graph_input ? 1 : 0) || d.dim_value() > (int64_t{1} << 31)) {
        Fail("", "input",
             "'" + v.name() + "' has an impossible dimension " + std::to_string(d.dim_value()));
      }
      dims.push_back(std::to_string(d.dim_value()));
    } else if (d.has_dim_param() && !d.dim_param().empty() && graph_input) {
      dims.push_back(Symbol(d.dim_param(), i, v.name()));
    } else if (d.has_dim_param() && !KnownSymbol(d.dim_param()).empty()) {
      // Inside the graph a name is a known input dim or nothing: libonnx names what it cannot
      // infer `unk__0`, which is no size a user could set.
      dims.push_back(KnownSymbol(d.dim_param()));
    } else if (graph_input) {
      dims.push_back(Symbol("", i, v.name()));
    } else {
      return;  // unknown: not recorded
    }
  }
  dims_[v.name()] = dims;
}

const Dims& OnnxImporter::DimsOf(const std::string& tensor, const onnx::NodeProto& n) const {
  auto it = dims_.find(tensor);
  if (it == dims_.end()) {
    Fail(n.name(), "inputs", "the shape of '" + tensor + "' is unknown after shape inference");
  }
  return it->second;
}

// A loop, not recursion: an exported graph may chain 100 000 Identity nodes (which overflowed
// the stack); bounded by the aliases' count, so a cycle in a malformed file cannot hang it.
std::string OnnxImporter::Resolve(const std::string& tensor) const {
  const std::string* at = &tensor;
  for (size_t hops = 0; hops <= alias_.size(); ++hops) {
    auto it = alias_.find(*at);
    if (it == alias_.end()) return *at;
    at = &it->second;
  }
  return *at;
}

const onnx::AttributeProto* OnnxImporter::Attr(const onnx::NodeProto& n,
                                               const std::string& name) const {
  for (const onnx::AttributeProto& a : n.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

int64_t OnnxImporter::Int(const onnx::NodeProto& n, const std::string& name, int64_t dflt) const {
  const auto* a = Attr(n, name);
  return a ? a->i() : dflt;
}

float OnnxImporter::Float(const onnx::NodeProto& n, const std::string& name, float dflt) const {
  const auto* a = Attr(n, name);
  return a ? a->f() : dflt;
}

std::string OnnxImporter::Str(const onnx::NodeProto& n, const std::string& name,
                              const std::string& dflt) const {
  const auto* a = Attr(n, name);
  return a ? a->s() : dflt;
}

std::vector<int64_t> OnnxImporter::Ints(const onnx::NodeProto& n, const std::string& name) const {
  const auto* a = Attr(n, name);
  return a ? std::vector<int64_t>(a->ints().begin(), a->ints().end()) : std::vector<int64_t>{};
}

int32_t OnnxImporter::ElemType(const std::string& tensor) const {
  auto it = types_.find(tensor);
  return it == types_.end() ? 0 : it->second;
}

void OnnxImporter::DeclareLengths(const std::string& input, int64_t steps) {
  auto it = length_steps_.find(input);
  length_steps_[input] = it == length_steps_.end() ? steps : std::min(it->second, steps);
}

void OnnxImporter::DeclareIds(const std::string& input, int64_t rows) {
  auto it = id_rows_.find(input);
  id_rows_[input] = it == id_rows_.end() ? rows : std::min(it->second, rows);
}

std::vector<float> OnnxImporter::Floats(const onnx::TensorProto& t,
                                        const onnx::NodeProto& n) const {
  auto converted = converted_.find(t.name());
  if (converted != converted_.end()) return *converted->second;  // its bytes were released
  Dims ints;
  if ((t.data_type() == onnx::TensorProto::INT64 || t.data_type() == onnx::TensorProto::INT32) &&
      IntConst(t.name(), &ints)) {
    if (static_cast<int64_t>(ints.size()) != Elements(t, "'" + t.name() + "'")) {
      Fail(n.name(), "inputs", "'" + t.name() + "' carries a different number of values");
    }
    std::vector<float> v;
    for (int64_t i : IntsOf(ints, n, "inputs")) {
      if (i > (int64_t{1} << 24) || i < -(int64_t{1} << 24)) {
        Fail(n.name(), "inputs",
             "integer constant '" + t.name() + "' holds " + std::to_string(i) +
                 ", beyond what a float holds exactly");
      }
      v.push_back(static_cast<float>(i));
    }
    return v;
  }
  const int32_t type = t.data_type();
  if (type == onnx::TensorProto::BOOL || type == onnx::TensorProto::INT8 ||
      type == onnx::TensorProto::UINT8) {
    // A mask the exporter folded (a causal mask's `== 0`): 0 and 1 as floats.
    const int64_t count = Elements(t, "'" + t.name() + "'");
    std::vector<float> v;
    if (!t.raw_data().empty()) {
      if (static_cast<int64_t>(t.raw_data().size()) != count) {
        Fail(n.name(), "inputs",
             "'" + t.name() + "' declares " + std::to_string(count) + " values and carries " +
                 std::to_string(t.raw_data().size()));
      }
      for (char c : t.raw_data()) {
        v.push_back(type == onnx::TensorProto::INT8 ? static_cast<float>(static_cast<int8_t>(c))
                                                    : static_cast<float>(static_cast<uint8_t>(c)));
      }
    } else {
      if (t.int32_data_size() != count) {
        Fail(n.name(), "inputs",
             "'" + t.name() + "' declares " + std::to_string(count) + " values and carries " +
                 std::to_string(t.int32_data_size()));
      }
      for (int32_t x : t.int32_data()) v.push_back(static_cast<float>(x));
    }
    return v;
  }
  if (t.data_type() != onnx::TensorProto::FLOAT) {
    Fail(n.name(), "inputs",
         "weight '" + t.name() + "' is not float32 (data type " + std::to_string(t.data_type()) +
             ")");
  }
  const int64_t count = Elements(t, "'" + t.name() + "'");
  // The values the model carries are counted before anything is allocated: a tensor that
  // declares 4 GiB of floats and carries 4 bytes is an error, not an allocation of 4 GiB.
  const uint64_t carried =
      t.raw_data().empty() ? static_cast<uint64_t>(t.float_data_size()) : t.raw_data().size() / 4;
  if ((!t.raw_data().empty() && t.raw_data().size() % 4 != 0) ||
      carried != static_cast<uint64_t>(count)) {
    Fail(n.name(), "inputs",
         "'" + t.name() + "' declares " + std::to_string(count) + " values and carries " +
             std::to_string(carried));
  }
  if (t.raw_data().empty()) return std::vector<float>(t.float_data().begin(), t.float_data().end());
  const char* raw = t.raw_data().data();
  if (reinterpret_cast<uintptr_t>(raw) % alignof(float) == 0) {  // one pass, no zero-fill first
    const float* f = reinterpret_cast<const float*>(raw);
    return std::vector<float>(f, f + count);
  }
  std::vector<float> v(count);
  std::memcpy(v.data(), raw, 4 * v.size());
  return v;
}

OnnxImporter::Weight OnnxImporter::WeightInput(const onnx::NodeProto& n, int index) {
  if (index >= n.input_size() || n.input(index).empty()) {
    Fail(n.name(), "inputs", "input " + std::to_string(index) + " is missing");
  }
  const std::string& name = n.input(index);
  Weight w;
  auto it = init_.find(name);
  if (it != init_.end()) {
    w.dims.assign(it->second->dims().begin(), it->second->dims().end());
    auto converted = converted_.find(name);
    if (converted != converted_.end()) {  // a weight two nodes share: one copy
      w.values = converted->second;
      return w;
    }
    const bool unread = it->second->data_location() == onnx::TensorProto::EXTERNAL;
    if (unread || (!limits_.read_weights && Elements(*it->second, name) >= (int64_t{1} << 16))) {
      return w;  // shapes only (OnnxLimits::read_weights): no values
    }
    w.values = std::make_shared<std::vector<float>>(Floats(*it->second, n));
    if (w.values->size() >= (size_t{1} << 16)) {
      // A large weight's bytes in the model are dead once converted: released now, a large
      // model is held about once while it is read, not twice.
      converted_[name] = w.values;
      std::string().swap(*const_cast<onnx::TensorProto*>(it->second)->mutable_raw_data());
    }
    return w;
  }
  auto c = float_consts_.find(name);
  if (c != float_consts_.end()) return c->second;
  // A graph input that holds a weight: the model was exported without its weights.
  auto d = dims_.find(name);
  bool is_graph_input = false;
  for (const auto& v : m_.graph().input()) is_graph_input = is_graph_input || v.name() == name;
  if (!is_graph_input || d == dims_.end()) {
    Fail(n.name(), "inputs",
         "'" + name +
             "' must be a weight (an initializer); weights computed at run time are "
             "not supported");
  }
  for (const std::string& s : d->second) {
    int64_t v = 0;
    if (!ToInt(s, &v)) Fail(n.name(), "inputs", "weight '" + name + "' has a symbolic shape");
    w.dims.push_back(v);
  }
  weight_inputs_.insert(name);
  return w;
}

bool OnnxImporter::IsWeight(const std::string& name) const {
  return init_.count(name) || float_consts_.count(name);
}

Layer& OnnxImporter::Add(const onnx::NodeProto& n, const std::string& op, const std::string& suffix,
                         std::vector<std::string> inputs, const std::string& output) {
  Layer l;
  l.name = LayerName(n) + suffix;
  l.op = op;
  for (std::string& in : inputs) in = Resolve(in);
  l.inputs = std::move(inputs);
  l.outputs = {output};
  t_.layers.push_back(std::move(l));
  producer_[output] = t_.layers.size() - 1;
  return t_.layers.back();
}

void OnnxImporter::AddOutput(Layer& layer, const std::string& output) {
  layer.outputs.push_back(output);
  producer_[output] = static_cast<size_t>(&layer - t_.layers.data());
}

std::string OnnxImporter::LayerName(const onnx::NodeProto& n) {
  auto it = node_names_.find(&n);
  if (it != node_names_.end()) return it->second;
  std::string name =
      n.name().empty() ? n.op_type() + "_" + std::to_string(node_names_.size()) : n.name();
  while (used_names_.count(name)) name += "_";
  used_names_.insert(name);
  return node_names_[&n] = name;
}

void OnnxImporter::SetWeight(Layer& l, const std::string& name, std::vector<int64_t> shape,
                             std::shared_ptr<std::vector<float>> values) {
  if (pool_) values = pool_->Intern(std::move(values));
  if (values) l.weights[name] = {std::move(shape), std::move(values)};
}

void OnnxImporter::Refuse(const onnx::NodeProto& n, const std::string& why) {
  Unsupported& u = unsupported_[n.op_type()];
  if (u.count++ == 0) {
    u.first_node = LayerName(n);
    u.why = why;
  }
}

bool OnnxImporter::IntConst(const std::string& name, Dims* out) const {
  auto it = int_consts_.find(name);
  if (it != int_consts_.end()) {
    *out = it->second;
    return true;
  }
  auto i = init_.find(name);
  if (i == init_.end()) return false;
  const onnx::TensorProto& t = *i->second;
  if (t.data_type() != onnx::TensorProto::INT64 && t.data_type() != onnx::TensorProto::INT32)
    return false;
  out->clear();
  if (!t.raw_data().empty()) {
    const bool wide = t.data_type() == onnx::TensorProto::INT64;
    const size_t width = wide ? 8 : 4;
    for (size_t k = 0; k + width <= t.raw_data().size(); k += width) {
      int64_t v = 0;
      if (wide) {
        std::memcpy(&v, t.raw_data().data() + k, 8);
      } else {
        int32_t v32 = 0;
        std::memcpy(&v32, t.raw_data().data() + k, 4);
        v = v32;
      }
      out->push_back(std::to_string(v));
    }
  } else {
    for (int64_t v : t.int64_data()) out->push_back(std::to_string(v));
    for (int32_t v : t.int32_data()) out->push_back(std::to_string(v));
  }
  return true;
}

std::vector<int64_t> OnnxImporter::IntsOf(const Dims& d, const onnx::NodeProto& n,
                                          const std::string& field) const {
  std::vector<int64_t> out;
  for (const std::string& s : d) {
    int64_t v = 0;
    if (!ToInt(s, &v)) Fail(n.name(), field, "expected constant integers, got '" + s + "'");
    out.push_back(v);
  }
  return out;
}

int64_t OnnxImporter::Axis(int64_t axis, size_t rank) {
  return axis < 0 ? axis + static_cast<int64_t>(rank) : axis;
}

void OnnxImporter::MapNode(const onnx::NodeProto& n, int /*index*/) {
  if (!n.domain().empty() && n.domain() != "ai.onnx") {
    Refuse(n, "domain " + n.domain());
    return;
  }
  const std::string& op = n.op_type();
  const std::string out = n.output_size() > 0 ? n.output(0) : "";
  auto in = [&](int i) { return i < n.input_size() ? n.input(i) : std::string(); };
  Dims c;
  // Folded shape arithmetic.
  if (op == "Constant") {
    const auto* value = Attr(n, "value");
    if (!value || !value->has_t()) return Refuse(n, "only 'value' tensors");
    const onnx::TensorProto& t = value->t();
    Elements(t, "constant '" + out + "'");
    if (t.data_type() == onnx::TensorProto::FLOAT) {
      Weight w;
      w.dims.assign(t.dims().begin(), t.dims().end());
      w.values = std::make_shared<std::vector<float>>(Floats(t, n));
      float_consts_[out] = w;
    } else {
      onnx::TensorProto named = t;
      named.set_name(out);
      owned_.push_back(named);
      init_[out] = &owned_.back();
    }
    return;
  }
  if (op == "Shape") {
    int_consts_[out] = DimsOf(in(0), n);
    return;
  }
  if ((op == "Gather" || op == "Unsqueeze" || op == "Squeeze" || op == "Cast" || op == "Concat") &&
      IntConst(in(0), &c)) {
    if (op == "Gather") {
      Dims idx;
      if (!IntConst(in(1), &idx)) return Refuse(n, "gather with computed indices");
      Dims picked;
      for (int64_t i : IntsOf(idx, n, "indices")) {
        const int64_t k = Axis(i, c.size());
        if (k < 0 || k >= static_cast<int64_t>(c.size())) Fail(n.name(), "indices", "out of range");
        picked.push_back(c[k]);
      }
      int_consts_[out] = picked;
    } else if (op == "Concat") {
      Dims all;
      for (const std::string& i : n.input()) {
        Dims part;
        if (!IntConst(i, &part)) return Refuse(n, "concat of shapes and tensors");
        all.insert(all.end(), part.begin(), part.end());
      }
      int_consts_[out] = all;
    } else {
      int_consts_[out] = c;
    }
    return;
  }
  if (op == "Identity" || op == "Dropout") {
    if (op == "Dropout" && n.output_size() > 1 && consumers_.count(n.output(1))) {
      return Refuse(n, "the mask output is used");
    }
    if (IntConst(in(0), &c)) {
      int_consts_[out] = c;
    } else {
      alias_[out] = in(0);
    }
    return;
  }
  const OnnxOpMapping* mapping = FindOnnxMapping(op);
  if (!mapping && CanFold(op)) {
    bool constant_inputs = true;
    for (const std::string& i : n.input())
      constant_inputs = constant_inputs && (i.empty() || IsInitializer(i));
    if (constant_inputs) {
      return Refuse(n, "only over constants; its result is more than ntpbench computes ahead (" +
                           std::to_string(folding_budget_.max_elements) +
                           " elements, about the model's own constants)");
    }
    return Refuse(n, "only over constants, and its inputs are computed at run time");
  }
  if (!mapping) return Refuse(n);
  if (!mapping->map) return Refuse(n, mapping->refusal);
  mapping->map(*this, n);
}

nlohmann::json OnnxImporter::ToJson(const std::string& dim) {
  int64_t v = 0;
  return ToInt(dim, &v) ? nlohmann::json(v) : nlohmann::json(dim);
}

bool OnnxImporter::IsUsed(const std::string& tensor) const {
  if (consumers_.count(tensor)) return true;
  for (const auto& v : m_.graph().output()) {
    if (v.name() == tensor) return true;
  }
  return false;
}

bool OnnxImporter::IsGraphInput(const std::string& name) const {
  for (const auto& v : m_.graph().input()) {
    if (v.name() == name) return true;
  }
  return false;
}

bool OnnxImporter::IsActivationInput(const std::string& name) const {
  return IsGraphInput(name) && !init_.count(name) && consumers_.count(name) && dims_.count(name) &&
         !dims_.at(name).empty() && dims_.at(name)[0] == "N";
}

std::shared_ptr<std::vector<float>> OnnxImporter::Transposed(const std::vector<float>& v,
                                                             int64_t rows, int64_t cols) {
  auto out = std::make_shared<std::vector<float>>(v.size());
  constexpr int64_t kTile = 32;  // in tiles: a large weight's columns are far apart in memory
  for (int64_t r0 = 0; r0 < rows; r0 += kTile) {
    for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
      const int64_t r1 = std::min(rows, r0 + kTile), c1 = std::min(cols, c0 + kTile);
      for (int64_t r = r0; r < r1; ++r) {
        for (int64_t c = c0; c < c1; ++c) (*out)[c * rows + r] = v[r * cols + c];
      }
    }
  }
  return out;
}

std::string OnnxImporter::ConstantLayer(const onnx::NodeProto& n, const std::string& tensor) {
  if (!IsWeight(tensor) || constant_layers_.count(tensor)) return tensor;
  int index = 0;
  for (int i = 0; i < n.input_size(); ++i) index = n.input(i) == tensor ? i : index;
  Weight w = WeightInput(n, index);
  std::vector<int64_t> shape = w.dims.empty() ? std::vector<int64_t>{1} : w.dims;
  Layer l;
  l.name = tensor;
  while (used_names_.count(l.name)) l.name += "_";
  used_names_.insert(l.name);
  l.op = "constant";
  l.outputs = {tensor};
  l.attrs["shape"] = shape;
  // The model's float initializers are its parameters; a Constant node's value, or one folded
  // from constants, is not (PyTorch counts neither).
  if (!model_initializers_.count(tensor) || ElemType(tensor) != onnx::TensorProto::FLOAT) {
    l.attrs["parameter"] = false;  // an integer initializer is a buffer (ids), not a parameter
  }
  SetWeight(l, "value", shape, w.values);
  t_.layers.push_back(std::move(l));
  constant_layers_.insert(tensor);
  return tensor;
}

std::string OnnxImporter::ZerosLayer(const std::string& name, const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return ValuesLayer(name, shape, std::vector<float>(static_cast<size_t>(n), 0.0f));
}

std::string OnnxImporter::ValuesLayer(const std::string& name, const std::vector<int64_t>& shape,
                                      std::vector<float> values) {
  Layer l;
  l.name = name;
  while (used_names_.count(l.name)) l.name += "_";
  used_names_.insert(l.name);
  l.op = "constant";
  l.outputs = {l.name};
  l.attrs["shape"] = shape;
  l.attrs["parameter"] = false;
  SetWeight(l, "value", shape, std::make_shared<std::vector<float>>(std::move(values)));
  const std::string out = l.name;
  t_.layers.push_back(std::move(l));
  return out;
}

bool OnnxImporter::FloatsConst(const std::string& name, const onnx::NodeProto& n,
                               std::vector<float>* out) const {
  auto w = float_consts_.find(name);
  if (w != float_consts_.end() && w->second.values) {
    *out = *w->second.values;
    return true;
  }
  auto i = init_.find(name);
  if (i == init_.end() || i->second->data_type() != onnx::TensorProto::FLOAT) return false;
  *out = Floats(*i->second, n);
  return true;
}

float OnnxImporter::ScalarConst(const std::string& name) const {
  auto w = float_consts_.find(name);
  if (w != float_consts_.end() && w->second.values && w->second.values->size() == 1) {
    return w->second.values->front();
  }
  auto i = init_.find(name);
  if (i != init_.end() && i->second->data_type() == onnx::TensorProto::FLOAT) {
    const onnx::TensorProto& t = *i->second;
    if (t.raw_data().size() == 4) {
      float v = 0;
      std::memcpy(&v, t.raw_data().data(), 4);
      return v;
    }
    if (t.float_data_size() == 1) return t.float_data(0);
  }
  return NAN;
}

const onnx::NodeProto* OnnxImporter::OnlyUser(const std::string& tensor,
                                              const std::string& op) const {
  auto u = users_.find(tensor);
  if (u == users_.end() || u->second.size() != 1 || u->second[0]->op_type() != op) return nullptr;
  return u->second[0];
}

bool OnnxImporter::FoldBias(const onnx::NodeProto& n, const std::string& x, const std::string& bias,
                            const std::string& out) {
  auto p = producer_.find(Resolve(x));
  if (p == producer_.end() || consumers_[x] != 1) return false;
  Layer& l = t_.layers[p->second];
  if (l.op != "dense" || l.attrs.value("bias", true)) return false;
  Weight b = WeightInput(n, bias == n.input(0) ? 0 : 1);
  const int64_t units = l.attrs["units"].get<int64_t>();
  int64_t count = 1;
  for (int64_t d : b.dims) count *= d;
  if (count != units) return false;
  l.attrs["bias"] = true;
  SetWeight(l, "bias", {units}, b.values);
  alias_[out] = l.outputs[0];
  return true;
}

bool OnnxImporter::SetPadding(const onnx::NodeProto& n, Layer& l) {
  const std::string pad = Str(n, "auto_pad", "NOTSET");
  if (pad == "SAME_UPPER") {
    l.attrs["padding"] = "same";
  } else if (pad == "VALID") {
    l.attrs["padding"] = "valid";
  } else if (pad == "NOTSET") {
    const auto pads = Ints(n, "pads");
    if (!pads.empty()) l.attrs["padding"] = pads;
  } else {
    Refuse(n, "auto_pad " + pad);
    return false;
  }
  return true;
}

}  // namespace ntpb::onnx_import
