// Constant folding (constant_folding.h): a small evaluator over float and integer tensors for
// the ops exporters use to compute constants, with NumPy broadcasting.
#include "src/topology/onnx/constant_folding.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "ntpbench/error.h"
#include "ntpbench/shape.h"

namespace ntpb::onnx_import {
namespace {

using onnx::TensorProto;

// A constant tensor: floats (FLOAT, DOUBLE, FLOAT16 never reach here) or integers (INT64,
// INT32, BOOL, ...), with the ONNX data type it is written back as.
struct Value {
  int type = TensorProto::FLOAT;
  std::vector<int64_t> dims;
  std::vector<float> f;
  std::vector<int64_t> i;
  bool is_float() const { return type == TensorProto::FLOAT || type == TensorProto::DOUBLE; }
  int64_t size() const { return is_float() ? static_cast<int64_t>(f.size()) : i.size(); }
  double at(int64_t k) const { return is_float() ? f[k] : static_cast<double>(i[k]); }
};

// Saturating: sizes come from the file.
int64_t Count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (__builtin_mul_overflow(n, d, &n)) return INT64_MAX;
  }
  return n;
}

// The evaluator keeps booleans as integers.
bool IsIntegerType(int t) { return IsIntegerElementType(t) || t == TensorProto::BOOL; }

template <typename T>
void ReadRaw(const std::string& raw, std::vector<int64_t>* out) {
  for (size_t k = 0; k + sizeof(T) <= raw.size(); k += sizeof(T)) {
    T v;
    std::memcpy(&v, raw.data() + k, sizeof(T));
    out->push_back(static_cast<int64_t>(v));
  }
}

// Null when the tensor's type is not one the evaluator handles or its content does not match
// its dimensions (the importer reports malformed initializers itself).
std::optional<Value> FromProto(const TensorProto& t) {
  Value v;
  v.type = t.data_type();
  v.dims.assign(t.dims().begin(), t.dims().end());
  for (int64_t d : v.dims) {
    if (d < 0 || d > (int64_t{1} << 31)) return std::nullopt;
  }
  const int64_t n = Count(v.dims);
  if (n > (int64_t{1} << 31)) return std::nullopt;
  // Data not read (a large external weight when only shapes are asked for): not a constant.
  if (t.data_location() == TensorProto::EXTERNAL) return std::nullopt;
  const std::string& raw = t.raw_data();
  if (v.type == TensorProto::FLOAT) {
    if (!raw.empty()) {
      if (raw.size() != static_cast<size_t>(4 * n)) return std::nullopt;
      v.f.resize(n);
      std::memcpy(v.f.data(), raw.data(), raw.size());
    } else {
      if (t.float_data_size() != n) return std::nullopt;
      v.f.assign(t.float_data().begin(), t.float_data().end());
    }
  } else if (v.type == TensorProto::DOUBLE) {
    if (!raw.empty()) {
      if (raw.size() != static_cast<size_t>(8 * n)) return std::nullopt;
      for (int64_t k = 0; k < n; ++k) {
        double d;
        std::memcpy(&d, raw.data() + 8 * k, 8);
        v.f.push_back(static_cast<float>(d));
      }
    } else {
      for (double d : t.double_data()) v.f.push_back(static_cast<float>(d));
    }
  } else if (IsIntegerType(v.type)) {
    if (!raw.empty()) {
      switch (v.type) {
        case TensorProto::INT64:
          ReadRaw<int64_t>(raw, &v.i);
          break;
        case TensorProto::INT32:
          ReadRaw<int32_t>(raw, &v.i);
          break;
        case TensorProto::INT16:
          ReadRaw<int16_t>(raw, &v.i);
          break;
        case TensorProto::UINT16:
          ReadRaw<uint16_t>(raw, &v.i);
          break;
        case TensorProto::UINT32:
          ReadRaw<uint32_t>(raw, &v.i);
          break;
        case TensorProto::INT8:
          ReadRaw<int8_t>(raw, &v.i);
          break;
        default:
          ReadRaw<uint8_t>(raw, &v.i);
          break;  // UINT8, BOOL
      }
    } else if (v.type == TensorProto::INT64) {
      v.i.assign(t.int64_data().begin(), t.int64_data().end());
    } else {
      v.i.assign(t.int32_data().begin(), t.int32_data().end());
    }
  } else {
    return std::nullopt;
  }
  if (v.size() != n) return std::nullopt;
  return v;
}

}  // namespace

std::optional<TensorFloats> ReadTensorFloats(const TensorProto& tensor) {
  std::optional<Value> v = FromProto(tensor);
  if (!v) return std::nullopt;
  TensorFloats out;
  out.dims = v->dims;
  if (v->is_float()) {
    out.values = std::move(v->f);
  } else {
    out.values.reserve(v->i.size());
    for (int64_t x : v->i) out.values.push_back(static_cast<float>(x));
  }
  return out;
}

namespace {

TensorProto ToProto(const Value& v, const std::string& name) {
  TensorProto t;
  t.set_name(name);
  for (int64_t d : v.dims) t.add_dims(d);
  if (v.is_float()) {
    t.set_data_type(TensorProto::FLOAT);
    t.set_raw_data(std::string(reinterpret_cast<const char*>(v.f.data()), 4 * v.f.size()));
  } else if (v.type == TensorProto::BOOL) {
    t.set_data_type(TensorProto::BOOL);
    for (int64_t x : v.i) t.add_int32_data(x != 0);
  } else if (v.type == TensorProto::INT32) {
    t.set_data_type(TensorProto::INT32);
    for (int64_t x : v.i) t.add_int32_data(static_cast<int32_t>(x));
  } else {
    t.set_data_type(TensorProto::INT64);
    t.set_raw_data(std::string(reinterpret_cast<const char*>(v.i.data()), 8 * v.i.size()));
  }
  return t;
}

class Folder {
 public:
  Folder(onnx::ModelProto* model, std::string file, const FoldingLimits& limits, int64_t bytes_used)
      : m_(*model), file_(std::move(file)), limits_(limits), total_bytes_(bytes_used) {}

  int64_t total_bytes() const { return total_bytes_; }

  int Run() {
    onnx::GraphProto* g = m_.mutable_graph();
    std::set<std::string> tables;  // the model's float matrices: embedding tables
    for (const TensorProto& t : g->initializer()) {
      if (t.data_type() == TensorProto::FLOAT && t.dims_size() == 2) tables.insert(t.name());
      initializers_[t.name()] = &t;  // converted when a node folds over it (Known)
    }
    for (const auto* list : {&g->input(), &g->value_info(), &g->output()}) {
      for (const onnx::ValueInfoProto& v : *list) RecordStaticDims(v);
    }
    std::set<std::string> graph_outputs;
    for (const onnx::ValueInfoProto& v : g->output()) graph_outputs.insert(v.name());
    int64_t opset = 0;
    for (const onnx::OperatorSetIdProto& o : m_.opset_import()) {
      if (o.domain().empty() || o.domain() == "ai.onnx") opset = o.version();
    }
    opset_ = opset;
    std::vector<onnx::NodeProto> kept;
    std::vector<TensorProto> made;
    int folded = 0;
    for (const onnx::NodeProto& n : g->node()) {
      bool outputs_free = n.output_size() >= 1;
      for (const std::string& o : n.output())
        outputs_free = outputs_free && !graph_outputs.count(o);
      // A lookup in one of the model's tables stays (an embedding of constant ids: position
      // ids): the table is a parameter the framework counts, the lookup work the model does.
      const bool lookup = n.op_type() == "Gather" && n.input_size() > 0 && tables.count(n.input(0));
      // Where shape inference knows the result's size, one over the budget is not computed.
      const auto known_dims =
          n.output_size() > 0 ? static_dims_.find(n.output(0)) : static_dims_.end();
      const bool too_large = known_dims != static_dims_.end() && !Fits(Count(known_dims->second));
      std::optional<Value> v;
      if (outputs_free && !lookup && !too_large &&
          (n.domain().empty() || n.domain() == "ai.onnx")) {
        v = Evaluate(n);
      }
      if (!v || !Fits(v->size())) {
        kept.push_back(n);
        continue;
      }
      total_bytes_ += 8 * v->size();
      made.push_back(ToProto(*v, n.output(0)));
      known_[n.output(0)] = std::move(*v);
      ++folded;
    }
    if (folded == 0) return 0;
    g->clear_node();
    for (onnx::NodeProto& n : kept) *g->add_node() = std::move(n);
    for (TensorProto& t : made) *g->add_initializer() = std::move(t);
    DropUnusedInitializers(g);
    return folded;
  }

 private:
  [[noreturn]] void Fail(const onnx::NodeProto& n, const std::string& message) const {
    throw Error(file_, n.name().empty() ? n.op_type() : n.name(), "", message);
  }

  // Whether a result of `elements` fits in what is left of the budget. Checked before computing
  // wherever the size is known first: computing a result that is then dropped costs as much.
  bool Fits(int64_t elements) const {
    return elements >= 0 && elements <= limits_.max_elements &&
           elements <= (limits_.max_total_bytes - total_bytes_) / 8;
  }

  void RecordStaticDims(const onnx::ValueInfoProto& v) {
    if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) return;
    std::vector<int64_t> dims;
    for (const auto& d : v.type().tensor_type().shape().dim()) {
      if (!d.has_dim_value() || d.dim_value() < 0) return;
      dims.push_back(d.dim_value());
    }
    static_dims_[v.name()] = dims;
  }

  void DropUnusedInitializers(onnx::GraphProto* g) const {
    std::set<std::string> used;
    for (const onnx::NodeProto& n : g->node()) used.insert(n.input().begin(), n.input().end());
    for (const onnx::ValueInfoProto& v : g->output()) used.insert(v.name());
    std::vector<TensorProto> keep;
    for (TensorProto& t : *g->mutable_initializer()) {
      if (used.count(t.name())) keep.push_back(std::move(t));
    }
    g->clear_initializer();
    for (TensorProto& t : keep) *g->add_initializer() = std::move(t);
    std::vector<onnx::ValueInfoProto> inputs;
    for (onnx::ValueInfoProto& v : *g->mutable_input()) {
      if (used.count(v.name())) inputs.push_back(std::move(v));
    }
    g->clear_input();
    for (onnx::ValueInfoProto& v : inputs) *g->add_input() = std::move(v);
  }

  const onnx::AttributeProto* Attr(const onnx::NodeProto& n, const std::string& name) const {
    for (const onnx::AttributeProto& a : n.attribute()) {
      if (a.name() == name) return &a;
    }
    return nullptr;
  }
  int64_t IntAttr(const onnx::NodeProto& n, const std::string& name, int64_t dflt) const {
    const auto* a = Attr(n, name);
    return a ? a->i() : dflt;
  }
  std::vector<int64_t> IntsAttr(const onnx::NodeProto& n, const std::string& name) const {
    const auto* a = Attr(n, name);
    return a ? std::vector<int64_t>(a->ints().begin(), a->ints().end()) : std::vector<int64_t>{};
  }

  // Input k's value; null when it is not known (or absent and not optional).
  // An initializer's values are converted the first time a node folds over it: a model's weights
  // (most of a large model's bytes) are never copied here unless folding reads them.
  const Value* Known(const onnx::NodeProto& n, int k) const {
    if (k >= n.input_size() || n.input(k).empty()) return nullptr;
    auto it = known_.find(n.input(k));
    if (it != known_.end()) return &it->second;
    auto init = initializers_.find(n.input(k));
    if (init == initializers_.end()) return nullptr;
    std::optional<Value> v = FromProto(*init->second);
    if (!v) return nullptr;
    return &known_.emplace(n.input(k), std::move(*v)).first->second;
  }
  bool AllKnown(const onnx::NodeProto& n) const {
    for (int k = 0; k < n.input_size(); ++k) {  // names first: nothing converted for a miss
      if (!n.input(k).empty() && !known_.count(n.input(k)) && !initializers_.count(n.input(k)))
        return false;
    }
    for (int k = 0; k < n.input_size(); ++k) {
      if (!n.input(k).empty() && !Known(n, k)) return false;
    }
    return n.input_size() > 0;
  }
  std::vector<int64_t> Ints(const Value& v) const {
    if (v.is_float()) {
      std::vector<int64_t> out;
      for (float x : v.f) out.push_back(static_cast<int64_t>(x));
      return out;
    }
    return v.i;
  }

  int64_t NormAxis(const onnx::NodeProto& n, int64_t axis, size_t rank) const {
    const int64_t r = static_cast<int64_t>(rank);
    if (axis < -r || axis >= r) {
      Fail(n, "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    }
    return axis < 0 ? axis + r : axis;
  }

  // Copies element `from` of `src` to element `to` of `dst` (same kind).
  static void CopyElement(const Value& src, int64_t from, Value* dst, int64_t to) {
    if (src.is_float()) {
      dst->f[to] = src.f[from];
    } else {
      dst->i[to] = src.i[from];
    }
  }
  static Value Like(const Value& v, std::vector<int64_t> dims) {
    Value out;
    out.type = v.type;
    out.dims = std::move(dims);
    if (v.is_float()) {
      out.f.resize(Count(out.dims));
    } else {
      out.i.resize(Count(out.dims));
    }
    return out;
  }

  static std::vector<int64_t> Strides(const std::vector<int64_t>& dims) {
    std::vector<int64_t> s(dims.size(), 1);
    for (size_t k = dims.size(); k-- > 1;) s[k - 1] = s[k] * dims[k];
    return s;
  }

  std::optional<std::vector<int64_t>> BroadcastDims(const std::vector<const Value*>& vs) const {
    size_t rank = 0;
    for (const Value* v : vs) rank = std::max(rank, v->dims.size());
    std::vector<int64_t> out(rank, 1);
    for (const Value* v : vs) {
      for (size_t k = 0; k < v->dims.size(); ++k) {
        int64_t& o = out[rank - v->dims.size() + k];
        const int64_t d = v->dims[k];
        if (o == 1) {
          o = d;
        } else if (d != 1 && d != o) {
          return std::nullopt;
        }
      }
    }
    return out;
  }

  // For each output element of `out_dims`, the flat index into each input (NumPy broadcasting).
  // A template, not a std::function: it is called per element.
  template <typename F>
  static void ForEachBroadcast(const std::vector<int64_t>& out_dims,
                               const std::vector<const Value*>& vs, const F& f) {
    const size_t rank = out_dims.size();
    std::vector<std::vector<int64_t>> strides;
    for (const Value* v : vs) {
      std::vector<int64_t> s(rank, 0);
      const std::vector<int64_t> own = Strides(v->dims);
      for (size_t k = 0; k < v->dims.size(); ++k) {
        if (v->dims[k] != 1) s[rank - v->dims.size() + k] = own[k];
      }
      strides.push_back(s);
    }
    const int64_t total = Count(out_dims);
    std::vector<int64_t> index(rank, 0), at(vs.size(), 0);
    for (int64_t e = 0; e < total; ++e) {
      f(e, at);
      for (size_t k = rank; k-- > 0;) {
        ++index[k];
        for (size_t v = 0; v < vs.size(); ++v) at[v] += strides[v][k];
        if (index[k] < out_dims[k]) break;
        for (size_t v = 0; v < vs.size(); ++v) at[v] -= strides[v][k] * out_dims[k];
        index[k] = 0;
      }
    }
  }

  enum class BinaryOp {
    kAdd,
    kSub,
    kMul,
    kDiv,
    kPow,
    kEqual,
    kLess,
    kGreater,
    kLessOrEqual,
    kGreaterOrEqual,
    kAnd,
    kOr
  };

  static BinaryOp BinaryOpOf(const std::string& op) {
    static const std::map<std::string, BinaryOp> ops = {
        {"Add", BinaryOp::kAdd},
        {"Sub", BinaryOp::kSub},
        {"Mul", BinaryOp::kMul},
        {"Div", BinaryOp::kDiv},
        {"Pow", BinaryOp::kPow},
        {"Equal", BinaryOp::kEqual},
        {"Less", BinaryOp::kLess},
        {"Greater", BinaryOp::kGreater},
        {"LessOrEqual", BinaryOp::kLessOrEqual},
        {"GreaterOrEqual", BinaryOp::kGreaterOrEqual},
        {"And", BinaryOp::kAnd},
        {"Or", BinaryOp::kOr}};
    return ops.at(op);
  }

  static double Apply(BinaryOp op, double x, double y) {
    switch (op) {
      case BinaryOp::kAdd:
        return x + y;
      case BinaryOp::kSub:
        return x - y;
      case BinaryOp::kMul:
        return x * y;
      case BinaryOp::kDiv:
        return x / y;  // integers: the exact quotient is taken in Binary
      case BinaryOp::kPow:
        return std::pow(x, y);
      case BinaryOp::kEqual:
        return x == y;
      case BinaryOp::kLess:
        return x < y;
      case BinaryOp::kGreater:
        return x > y;
      case BinaryOp::kLessOrEqual:
        return x <= y;
      case BinaryOp::kGreaterOrEqual:
        return x >= y;
      case BinaryOp::kAnd:
        return x != 0 && y != 0;
      case BinaryOp::kOr:
        return x != 0 || y != 0;
    }
    return 0;
  }

  std::optional<Value> Binary(const onnx::NodeProto& n, const Value& a, const Value& b) const {
    const BinaryOp op = BinaryOpOf(n.op_type());  // once: the loop below runs per element
    const auto dims = BroadcastDims({&a, &b});
    if (!dims) Fail(n, "constant operands do not broadcast");
    if (!Fits(Count(*dims))) return std::nullopt;
    const bool compare = op >= BinaryOp::kEqual;
    const bool floats = a.is_float() || b.is_float();
    Value out;
    out.dims = *dims;
    if (compare) {
      out.type = TensorProto::BOOL;
    } else {
      out.type = floats && !a.is_float() ? b.type : a.type;
    }
    if (out.is_float()) {
      out.f.resize(Count(out.dims));
    } else {
      out.i.resize(Count(out.dims));
    }
    const bool exact_integers = !compare && !floats;
    bool bad = false;
    ForEachBroadcast(out.dims, {&a, &b}, [&](int64_t e, const std::vector<int64_t>& at) {
      if (out.is_float()) {
        out.f[e] = static_cast<float>(Apply(op, a.at(at[0]), b.at(at[1])));
      } else if (exact_integers && op == BinaryOp::kDiv) {
        const int64_t xi = a.i[at[0]], yi = b.i[at[1]];
        if (yi == 0) {
          bad = true;
          return;
        }
        out.i[e] = xi == INT64_MIN && yi == -1 ? INT64_MAX : xi / yi;
      } else if (exact_integers &&
                 (op == BinaryOp::kAdd || op == BinaryOp::kSub || op == BinaryOp::kMul)) {
        // Exact integer arithmetic (Slice ends of INT64_MAX pass through here), saturating.
        const int64_t xi = a.i[at[0]], yi = b.i[at[1]];
        int64_t ri = 0;
        const bool over = op == BinaryOp::kAdd   ? __builtin_add_overflow(xi, yi, &ri)
                          : op == BinaryOp::kSub ? __builtin_sub_overflow(xi, yi, &ri)
                                                 : __builtin_mul_overflow(xi, yi, &ri);
        out.i[e] =
            over ? ((xi < 0) != (yi < 0) && op == BinaryOp::kMul ? INT64_MIN : INT64_MAX) : ri;
      } else {
        out.i[e] = static_cast<int64_t>(Apply(op, a.at(at[0]), b.at(at[1])));
      }
    });
    if (bad) Fail(n, "integer division by zero in a constant computation");
    return out;
  }

  std::optional<Value> Evaluate(const onnx::NodeProto& n) {
    const auto rule = Rules().find(n.op_type());
    if (rule == Rules().end()) return std::nullopt;
    if (rule->second.inputs_known && !AllKnown(n)) return std::nullopt;
    return (this->*rule->second.fold)(n);
  }

  // How a node of an op folds; `inputs_known`: only once every input is known (the others read
  // what they need: a Shape its input's static dims).
  struct FoldRule {
    bool inputs_known;
    std::optional<Value> (Folder::*fold)(const onnx::NodeProto& n);
  };

 public:
  // Every op folded, by name: adding one is a method and a line here.
  static const std::map<std::string, FoldRule>& Rules() {
    static const std::map<std::string, FoldRule> rules = {
        {"Abs", {true, &Folder::FoldUnary}},
        {"Add", {true, &Folder::FoldBinary}},
        {"And", {true, &Folder::FoldBinary}},
        {"Cast", {true, &Folder::FoldCast}},
        {"Ceil", {true, &Folder::FoldUnary}},
        {"Concat", {true, &Folder::FoldConcat}},
        {"Constant", {false, &Folder::FoldConstant}},
        {"ConstantOfShape", {false, &Folder::FoldConstantOfShape}},
        {"Div", {true, &Folder::FoldBinary}},
        {"Dropout", {true, &Folder::FoldIdentity}},
        {"Equal", {true, &Folder::FoldBinary}},
        {"Expand", {true, &Folder::FoldExpand}},
        {"Flatten", {true, &Folder::FoldReshape}},
        {"Floor", {true, &Folder::FoldUnary}},
        {"Gather", {true, &Folder::FoldGather}},
        {"Greater", {true, &Folder::FoldBinary}},
        {"GreaterOrEqual", {true, &Folder::FoldBinary}},
        {"Identity", {true, &Folder::FoldIdentity}},
        {"Less", {true, &Folder::FoldBinary}},
        {"LessOrEqual", {true, &Folder::FoldBinary}},
        {"Mul", {true, &Folder::FoldBinary}},
        {"Neg", {true, &Folder::FoldUnary}},
        {"Not", {true, &Folder::FoldUnary}},
        {"Or", {true, &Folder::FoldBinary}},
        {"Pow", {true, &Folder::FoldBinary}},
        {"Range", {true, &Folder::FoldRange}},
        {"Reciprocal", {true, &Folder::FoldUnary}},
        {"Reshape", {true, &Folder::FoldReshape}},
        {"Shape", {false, &Folder::FoldShape}},
        {"Slice", {true, &Folder::FoldSlice}},
        {"Sqrt", {true, &Folder::FoldUnary}},
        {"Squeeze", {true, &Folder::FoldSqueeze}},
        {"Sub", {true, &Folder::FoldBinary}},
        {"Transpose", {true, &Folder::FoldTranspose}},
        {"Trilu", {true, &Folder::FoldTrilu}},
        {"Unsqueeze", {true, &Folder::FoldSqueeze}},
        {"Where", {true, &Folder::FoldWhere}},
    };
    return rules;
  }

 private:
  // Identity, and Dropout without its mask output (inference: the input itself).
  std::optional<Value> FoldIdentity(const onnx::NodeProto& n) {
    if (n.op_type() == "Dropout" && n.output_size() != 1) return std::nullopt;
    return *Known(n, 0);
  }

  std::optional<Value> FoldConstant(const onnx::NodeProto& n) {
    if (const auto* a = Attr(n, "value")) {
      if (a->has_t()) return FromProto(a->t());
    }
    Value v;
    if (const auto* a = Attr(n, "value_float")) {
      v.f = {a->f()};
      return v;
    }
    if (const auto* a = Attr(n, "value_floats")) {
      v.f.assign(a->floats().begin(), a->floats().end());
      v.dims = {static_cast<int64_t>(v.f.size())};
      return v;
    }
    v.type = TensorProto::INT64;
    if (const auto* a = Attr(n, "value_int")) {
      v.i = {a->i()};
      return v;
    }
    if (const auto* a = Attr(n, "value_ints")) {
      v.i.assign(a->ints().begin(), a->ints().end());
      v.dims = {static_cast<int64_t>(v.i.size())};
      return v;
    }
    return std::nullopt;
  }

  std::optional<Value> FoldShape(const onnx::NodeProto& n) {
    if (n.input_size() < 1) return std::nullopt;
    auto s = static_dims_.find(n.input(0));
    std::vector<int64_t> dims;
    if (s != static_dims_.end()) {
      dims = s->second;
    } else if (const Value* v = Known(n, 0)) {
      dims = v->dims;
    } else {
      return std::nullopt;
    }
    const int64_t rank = static_cast<int64_t>(dims.size());
    int64_t start = IntAttr(n, "start", 0), end = IntAttr(n, "end", rank);
    start = std::clamp(start < 0 ? start + rank : start, int64_t{0}, rank);
    end = std::clamp(end < 0 ? end + rank : end, int64_t{0}, rank);
    Value v;
    v.type = TensorProto::INT64;
    for (int64_t k = start; k < end; ++k) v.i.push_back(dims[k]);
    v.dims = {static_cast<int64_t>(v.i.size())};
    return v;
  }

  std::optional<Value> FoldConstantOfShape(const onnx::NodeProto& n) {
    const Value* shape = Known(n, 0);
    if (!shape) return std::nullopt;
    Value fill;
    fill.f = {0.0f};
    if (const auto* a = Attr(n, "value")) {
      if (auto v = FromProto(a->t()); v && v->size() == 1) fill = *v;
    }
    std::vector<int64_t> dims = Ints(*shape);
    for (int64_t d : dims) {
      if (d < 0 || d > (int64_t{1} << 31)) Fail(n, "impossible dimension " + std::to_string(d));
    }
    if (!Fits(Count(dims))) return std::nullopt;
    Value out = Like(fill, dims);
    for (int64_t e = 0; e < out.size(); ++e) CopyElement(fill, 0, &out, e);
    return out;
  }

  std::optional<Value> FoldCast(const onnx::NodeProto& n) {
    const Value& x = *Known(n, 0);
    const int to = static_cast<int>(IntAttr(n, "to", TensorProto::FLOAT));
    Value out;
    out.type = to;
    out.dims = x.dims;
    if (to == TensorProto::FLOAT || to == TensorProto::DOUBLE) {
      for (int64_t k = 0; k < x.size(); ++k) out.f.push_back(static_cast<float>(x.at(k)));
    } else if (IsIntegerType(to)) {
      for (int64_t k = 0; k < x.size(); ++k) {
        out.i.push_back(to == TensorProto::BOOL ? x.at(k) != 0 : static_cast<int64_t>(x.at(k)));
      }
    } else {
      return std::nullopt;
    }
    return out;
  }

  // Sqrt, Neg, Reciprocal, Not, Floor, Ceil, Abs
  std::optional<Value> FoldUnary(const onnx::NodeProto& n) {
    const std::string& op = n.op_type();
    const Value& x = *Known(n, 0);
    Value out = x;
    for (int64_t k = 0; k < x.size(); ++k) {
      const double v = x.at(k);
      const double r = op == "Sqrt"         ? std::sqrt(v)
                       : op == "Neg"        ? -v
                       : op == "Reciprocal" ? 1.0 / v
                       : op == "Not"        ? (v == 0)
                       : op == "Floor"      ? std::floor(v)
                       : op == "Ceil"       ? std::ceil(v)
                                            : std::fabs(v);
      if (out.is_float()) {
        out.f[k] = static_cast<float>(r);
      } else {
        out.i[k] = static_cast<int64_t>(r);
      }
    }
    return out;
  }

  // Add, Sub, Mul, Div, Pow, Equal, Less, Greater, LessOrEqual, GreaterOrEqual, And, Or
  std::optional<Value> FoldBinary(const onnx::NodeProto& n) {
    const Value& x = *Known(n, 0);
    if (n.input_size() != 2) return std::nullopt;
    return Binary(n, x, *Known(n, 1));
  }

  // A causal mask: triu(full(-inf), 1) over the bound sequence
  std::optional<Value> FoldTrilu(const onnx::NodeProto& n) {
    const Value& x = *Known(n, 0);
    if (x.dims.size() < 2) Fail(n, "Trilu needs a tensor of rank 2 or more");
    int64_t k = 0;
    if (const Value* kv = Known(n, 1)) {
      const std::vector<int64_t> ks = Ints(*kv);
      if (ks.size() != 1) Fail(n, "k must be one value");
      k = ks[0];
    }
    const bool upper = IntAttr(n, "upper", 1) != 0;
    Value out = Like(x, x.dims);
    const int64_t rows = x.dims[x.dims.size() - 2], cols = x.dims.back();
    for (int64_t e = 0; e < out.size(); ++e) {
      const int64_t j = e % cols, i = (e / cols) % rows;
      if (upper ? j - i >= k : j - i <= k) CopyElement(x, e, &out, e);
    }
    return out;
  }

  std::optional<Value> FoldWhere(const onnx::NodeProto& n) {
    const Value& x = *Known(n, 0);
    if (n.input_size() != 3) return std::nullopt;
    const Value &a = *Known(n, 1), &b = *Known(n, 2);
    if (a.is_float() != b.is_float()) return std::nullopt;
    const auto dims = BroadcastDims({&x, &a, &b});
    if (!dims) Fail(n, "constant operands do not broadcast");
    if (!Fits(Count(*dims))) return std::nullopt;
    Value out = Like(a, *dims);
    ForEachBroadcast(*dims, {&x, &a, &b}, [&](int64_t e, const std::vector<int64_t>& at) {
      if (x.at(at[0]) != 0) {
        CopyElement(a, at[1], &out, e);
      } else {
        CopyElement(b, at[2], &out, e);
      }
    });
    return out;
  }

  std::optional<Value> FoldExpand(const onnx::NodeProto& n) {
    const Value& x = *Known(n, 0);
    Value shape_as_value;
    shape_as_value.dims = Ints(*Known(n, 1));
    for (int64_t d : shape_as_value.dims) {
      if (d < 0 || d > (int64_t{1} << 31)) Fail(n, "impossible dimension " + std::to_string(d));
    }
    const auto dims = BroadcastDims({&x, &shape_as_value});
    if (!dims) {
      // A size the exporter traced into a constant (`pack_padded_sequence`'s initial states at
      // the batch it was exported at) meets another bound size.
      Fail(n, "the input " + ShapeToString(x.dims) + " does not broadcast to the shape " +
                  ShapeToString(shape_as_value.dims) +
                  " (where the model was exported at other sizes, it holds a constant of those "
                  "and runs at them only)");
    }
    if (!Fits(Count(*dims))) return std::nullopt;
    Value out = Like(x, *dims);
    ForEachBroadcast(*dims, {&x}, [&](int64_t e, const std::vector<int64_t>& at) {
      CopyElement(x, at[0], &out, e);
    });
    return out;
  }

  std::optional<Value> FoldRange(const onnx::NodeProto& n) {
    const Value& x = *Known(n, 0);
    const double start = x.at(0), limit = Known(n, 1)->at(0), delta = Known(n, 2)->at(0);
    if (delta == 0 || x.size() != 1) Fail(n, "Range needs scalar bounds and a non-zero delta");
    const double count = std::max(0.0, std::ceil((limit - start) / delta));
    if (count > static_cast<double>(limits_.max_elements) || !Fits(static_cast<int64_t>(count)))
      return std::nullopt;
    Value out = Like(x, {static_cast<int64_t>(count)});
    for (int64_t k = 0; k < out.size(); ++k) {
      if (out.is_float()) {
        out.f[k] = static_cast<float>(start + k * delta);
      } else {
        out.i[k] = static_cast<int64_t>(start) + k * static_cast<int64_t>(delta);
      }
    }
    return out;
  }

  // Unsqueeze, Squeeze
  std::optional<Value> FoldSqueeze(const onnx::NodeProto& n) {
    const std::string& op = n.op_type();
    const Value& x = *Known(n, 0);
    std::vector<int64_t> axes = IntsAttr(n, "axes");
    if (const Value* a = Known(n, 1)) axes = Ints(*a);
    Value out = x;
    if (op == "Unsqueeze") {
      const size_t rank = x.dims.size() + axes.size();
      std::vector<int64_t> norm;
      for (int64_t a : axes) norm.push_back(NormAxis(n, a, rank));
      std::sort(norm.begin(), norm.end());
      if (std::adjacent_find(norm.begin(), norm.end()) != norm.end()) Fail(n, "repeated axes");
      for (int64_t a : norm) out.dims.insert(out.dims.begin() + a, 1);
    } else {
      std::set<int64_t> drop;
      for (int64_t a : axes) drop.insert(NormAxis(n, a, x.dims.size()));
      out.dims.clear();
      for (size_t k = 0; k < x.dims.size(); ++k) {
        const bool squeeze = axes.empty() ? x.dims[k] == 1 : drop.count(k) > 0;
        if (squeeze && x.dims[k] != 1) Fail(n, "cannot squeeze a dimension that is not 1");
        if (!squeeze) out.dims.push_back(x.dims[k]);
      }
    }
    return out;
  }

  // Reshape, Flatten
  std::optional<Value> FoldReshape(const onnx::NodeProto& n) {
    const std::string& op = n.op_type();
    const Value& x = *Known(n, 0);
    std::vector<int64_t> dims;
    if (op == "Flatten") {
      const int64_t axis = IntAttr(n, "axis", 1);
      const int64_t a = axis < 0 ? axis + static_cast<int64_t>(x.dims.size()) : axis;
      if (a < 0 || a > static_cast<int64_t>(x.dims.size())) Fail(n, "axis out of range");
      int64_t before = 1;
      for (int64_t k = 0; k < a; ++k) before *= x.dims[k];
      dims = {before, before == 0 ? 0 : x.size() / std::max<int64_t>(before, 1)};
    } else {
      dims = Ints(*Known(n, 1));
      int64_t known = 1, infer = -1;
      for (size_t k = 0; k < dims.size(); ++k) {
        if (dims[k] == 0 && IntAttr(n, "allowzero", 0) == 0 && k < x.dims.size()) {
          dims[k] = x.dims[k];
        }
        if (dims[k] == -1) {
          if (infer >= 0) Fail(n, "more than one -1 in the shape");
          infer = static_cast<int64_t>(k);
        } else if (dims[k] < 0) {
          Fail(n, "impossible dimension " + std::to_string(dims[k]));
        } else {
          known *= dims[k];
        }
      }
      if (infer >= 0) dims[infer] = known == 0 ? 0 : x.size() / known;
    }
    if (Count(dims) != x.size()) Fail(n, "cannot reshape the constant to that shape");
    Value out = x;
    out.dims = dims;
    return out;
  }

  std::optional<Value> FoldTranspose(const onnx::NodeProto& n) {
    const Value& x = *Known(n, 0);
    const size_t rank = x.dims.size();
    std::vector<int64_t> perm = IntsAttr(n, "perm");
    if (perm.empty()) {
      for (size_t k = rank; k-- > 0;) perm.push_back(static_cast<int64_t>(k));
    }
    std::vector<int64_t> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    for (size_t k = 0; k < sorted.size(); ++k) {
      if (sorted.size() != rank || sorted[k] != static_cast<int64_t>(k))
        Fail(n, "perm is not a permutation");
    }
    std::vector<int64_t> dims(rank);
    for (size_t k = 0; k < rank; ++k) dims[k] = x.dims[perm[k]];
    Value out = Like(x, dims);
    const std::vector<int64_t> in_strides = Strides(x.dims);
    std::vector<int64_t> index(rank, 0);
    for (int64_t e = 0; e < out.size(); ++e) {
      int64_t from = 0;
      for (size_t k = 0; k < rank; ++k) from += index[k] * in_strides[perm[k]];
      CopyElement(x, from, &out, e);
      for (size_t k = rank; k-- > 0;) {
        if (++index[k] < dims[k]) break;
        index[k] = 0;
      }
    }
    return out;
  }

  std::optional<Value> FoldConcat(const onnx::NodeProto& n) {
    const Value& x = *Known(n, 0);
    const int64_t axis = NormAxis(n, IntAttr(n, "axis", 0), x.dims.size());
    std::vector<int64_t> dims = x.dims;
    dims[axis] = 0;
    for (int k = 0; k < n.input_size(); ++k) {
      const Value& v = *Known(n, k);
      if (v.dims.size() != x.dims.size() || v.is_float() != x.is_float()) {
        Fail(n, "constant inputs of different ranks or types");
      }
      for (size_t d = 0; d < dims.size(); ++d) {
        if (static_cast<int64_t>(d) != axis && v.dims[d] != x.dims[d]) {
          Fail(n, "constant inputs differ outside the axis");
        }
      }
      dims[axis] += v.dims[axis];
    }
    Value out = Like(x, dims);
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= dims[d];
    int64_t e = 0;
    for (int64_t o = 0; o < outer; ++o) {
      for (int k = 0; k < n.input_size(); ++k) {
        const Value& v = *Known(n, k);
        const int64_t chunk = outer == 0 ? 0 : v.size() / outer;
        for (int64_t c = 0; c < chunk; ++c) CopyElement(v, o * chunk + c, &out, e++);
      }
    }
    return out;
  }

  std::optional<Value> FoldGather(const onnx::NodeProto& n) {
    const Value& x = *Known(n, 0);
    const int64_t axis = NormAxis(n, IntAttr(n, "axis", 0), std::max<size_t>(x.dims.size(), 1));
    if (x.dims.empty()) Fail(n, "cannot gather from a scalar");
    const Value& idx = *Known(n, 1);
    const std::vector<int64_t> indices = Ints(idx);
    std::vector<int64_t> dims(x.dims.begin(), x.dims.begin() + axis);
    dims.insert(dims.end(), idx.dims.begin(), idx.dims.end());
    dims.insert(dims.end(), x.dims.begin() + axis + 1, x.dims.end());
    if (!Fits(Count(dims))) return std::nullopt;
    Value out = Like(x, dims);
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= x.dims[d];
    for (size_t d = axis + 1; d < x.dims.size(); ++d) inner *= x.dims[d];
    const int64_t along = x.dims[axis];
    int64_t e = 0;
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i : indices) {
        const int64_t k = i < 0 ? i + along : i;
        if (k < 0 || k >= along) Fail(n, "index " + std::to_string(i) + " is out of range");
        for (int64_t c = 0; c < inner; ++c) CopyElement(x, (o * along + k) * inner + c, &out, e++);
      }
    }
    return out;
  }

  std::optional<Value> FoldSlice(const onnx::NodeProto& n) {
    const Value& x = *Known(n, 0);
    std::vector<int64_t> starts, ends, axes, steps;
    if (opset_ < 10) {
      starts = IntsAttr(n, "starts");
      ends = IntsAttr(n, "ends");
      axes = IntsAttr(n, "axes");
    } else {
      starts = Ints(*Known(n, 1));
      ends = Ints(*Known(n, 2));
      if (const Value* a = Known(n, 3)) axes = Ints(*a);
      if (const Value* s = Known(n, 4)) steps = Ints(*s);
    }
    const size_t rank = x.dims.size();
    if (axes.empty()) {
      for (size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<int64_t>(k));
    }
    if (steps.empty()) steps.assign(starts.size(), 1);
    if (ends.size() != starts.size() || axes.size() != starts.size() ||
        steps.size() != starts.size()) {
      Fail(n, "starts, ends, axes and steps differ in length");
    }
    std::vector<int64_t> begin(rank, 0), step(rank, 1), dims = x.dims;
    for (size_t k = 0; k < starts.size(); ++k) {
      const int64_t a = NormAxis(n, axes[k], rank), d = x.dims[a];
      if (steps[k] == 0) Fail(n, "a step of 0");
      int64_t s = starts[k] < 0 ? std::max<int64_t>(starts[k], -d) + d : starts[k];
      int64_t e = ends[k] < 0 ? std::max<int64_t>(ends[k], -d - 1) + d : ends[k];
      if (steps[k] > 0) {
        s = std::clamp<int64_t>(s, 0, d);
        e = std::clamp<int64_t>(e, 0, d);
        dims[a] = e > s ? (e - s + steps[k] - 1) / steps[k] : 0;
      } else {
        s = std::clamp<int64_t>(s, 0, d - 1);
        e = std::clamp<int64_t>(e, -1, d - 1);
        dims[a] = s > e ? (s - e - steps[k] - 1) / -steps[k] : 0;
      }
      begin[a] = s;
      step[a] = steps[k];
    }
    Value out = Like(x, dims);
    const std::vector<int64_t> strides = Strides(x.dims);
    std::vector<int64_t> index(rank, 0);
    for (int64_t e = 0; e < out.size(); ++e) {
      int64_t from = 0;
      for (size_t k = 0; k < rank; ++k) from += (begin[k] + index[k] * step[k]) * strides[k];
      CopyElement(x, from, &out, e);
      for (size_t k = rank; k-- > 0;) {
        if (++index[k] < dims[k]) break;
        index[k] = 0;
      }
    }
    return out;
  }

  onnx::ModelProto& m_;
  std::string file_;
  const FoldingLimits& limits_;
  int64_t opset_ = 0;
  int64_t total_bytes_ = 0;
  mutable std::map<std::string, Value> known_;
  std::map<std::string, const TensorProto*> initializers_;
  std::map<std::string, std::vector<int64_t>> static_dims_;
};

}  // namespace

bool IsIntegerElementType(int32_t type) {
  using T = TensorProto;
  return type == T::INT8 || type == T::UINT8 || type == T::INT16 || type == T::UINT16 ||
         type == T::INT32 || type == T::UINT32 || type == T::INT64 || type == T::UINT64;
}

// Every op the folder handles (Folder::Rules): read by the importer too (CanFold).
const std::set<std::string>& FoldedOps() {
  static const std::set<std::string> ops = [] {
    std::set<std::string> names;
    for (const auto& [op, rule] : Folder::Rules()) names.insert(op);
    return names;
  }();
  return ops;
}

bool CanFold(const std::string& op_type) { return FoldedOps().count(op_type) > 0; }

std::vector<std::string> FoldableOps() { return {FoldedOps().begin(), FoldedOps().end()}; }

int FoldConstants(onnx::ModelProto* model, const std::string& file, const FoldingLimits& limits,
                  int64_t* bytes_used) {
  Folder folder(model, file, limits, bytes_used ? *bytes_used : 0);
  const int folded = folder.Run();
  if (bytes_used) *bytes_used = folder.total_bytes();
  return folded;
}

}  // namespace ntpb::onnx_import
