#include "tests/onnx/onnx_test_models.h"

#include <cstring>
#include <stdexcept>

namespace ntpb::testing {

OnnxBuilder::OnnxBuilder(const std::string& name, int opset) {
  model.set_ir_version(8);
  model.set_producer_name("ntpbench tests");
  auto* o = model.add_opset_import();
  o->set_domain("");
  o->set_version(opset);
  model.mutable_graph()->set_name(name);
}

namespace {

// A float tensor type with dims that are integers or names of symbolic dimensions.
void SetTensorType(onnx::ValueInfoProto* v, const std::vector<std::string>& dims,
                   int32_t elem_type = onnx::TensorProto::FLOAT) {
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(elem_type);
  for (const std::string& d : dims) {
    auto* dim = t->mutable_shape()->add_dim();
    if (!d.empty() && std::isdigit(static_cast<unsigned char>(d[0]))) {
      dim->set_dim_value(std::stoll(d));
    } else {
      dim->set_dim_param(d);
    }
  }
}

}  // namespace

void OnnxBuilder::Input(const std::string& name, const std::vector<std::string>& dims,
                        int32_t elem_type) {
  auto* v = model.mutable_graph()->add_input();
  v->set_name(name);
  SetTensorType(v, dims, elem_type);
}

void OnnxBuilder::Output(const std::string& name, const std::vector<std::string>& dims,
                         int32_t elem_type) {
  auto* v = model.mutable_graph()->add_output();
  v->set_name(name);
  SetTensorType(v, dims, elem_type);
}

void OnnxBuilder::Weight(const std::string& name, const std::vector<int64_t>& dims,
                         const std::vector<float>& values) {
  auto* t = model.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->add_dims(d);
  t->set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), 4 * values.size()));
}

std::vector<float> OnnxBuilder::Random(const std::vector<int64_t>& dims, float scale,
                                       uint32_t seed) const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<float> v(n);
  uint32_t s = seed * 2654435761u + 1;
  for (float& x : v) {
    s = s * 1664525u + 1013904223u;
    x = scale * (static_cast<float>(s >> 8) / 8388608.0f - 1.0f);
  }
  return v;
}

void OnnxBuilder::RandomWeight(const std::string& name, const std::vector<int64_t>& dims,
                               float scale, uint32_t seed) {
  Weight(name, dims, Random(dims, scale, seed));
}

void OnnxBuilder::Ints(const std::string& name, const std::vector<int64_t>& values) {
  auto* t = model.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  t->add_dims(static_cast<int64_t>(values.size()));
  for (int64_t v : values) t->add_int64_data(v);
}

onnx::NodeProto& OnnxBuilder::Node(const std::string& op, const std::vector<std::string>& inputs,
                                   const std::vector<std::string>& outputs,
                                   const std::string& name) {
  auto* n = model.mutable_graph()->add_node();
  n->set_op_type(op);
  n->set_name(name);
  for (const std::string& i : inputs) n->add_input(i);
  for (const std::string& o : outputs) n->add_output(o);
  return *n;
}

void OnnxBuilder::SetInt(onnx::NodeProto& n, const std::string& name, int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}
void OnnxBuilder::SetFloat(onnx::NodeProto& n, const std::string& name, float v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}
void OnnxBuilder::SetInts(onnx::NodeProto& n, const std::string& name,
                          const std::vector<int64_t>& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}
void OnnxBuilder::SetString(onnx::NodeProto& n, const std::string& name, const std::string& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}

std::string OnnxBuilder::Bytes() const { return model.SerializeAsString(); }

namespace {

onnx::ModelProto Mlp() {
  OnnxBuilder b("mlp");
  b.Input("x", {"batch", "3"});
  // fc1: Gemm with transB (PyTorch's nn.Linear export), fc2: MatMul + Add.
  b.Weight("fc1.weight", {2, 3}, {1, 2, 3, -1, 0.5f, 0});
  b.Weight("fc1.bias", {2}, {0.5f, -0.25f});
  b.Weight("fc2.weight", {2, 2}, {1, -1, 2, 0.5f});
  b.Weight("fc2.bias", {2}, {0.1f, 0.2f});
  OnnxBuilder::SetInt(b.Node("Gemm", {"x", "fc1.weight", "fc1.bias"}, {"h"}, "fc1"), "transB", 1);
  b.Node("Relu", {"h"}, {"h_relu"}, "relu1");
  b.Node("MatMul", {"h_relu", "fc2.weight"}, {"h2"}, "fc2");
  b.Node("Add", {"h2", "fc2.bias"}, {"logits"}, "fc2_bias");
  OnnxBuilder::SetInt(b.Node("Softmax", {"logits"}, {"probs"}, "softmax"), "axis", -1);
  b.Output("probs", {"batch", "2"});
  return b.model;
}

onnx::ModelProto CnnBn() {
  OnnxBuilder b("cnn_bn");
  b.Input("image", {"N", "3", "8", "8"});
  b.RandomWeight("conv1.w", {4, 3, 3, 3}, 0.4f, 1);
  b.RandomWeight("conv1.b", {4}, 0.1f, 2);
  auto& conv = b.Node("Conv", {"image", "conv1.w", "conv1.b"}, {"c1"}, "conv1");
  OnnxBuilder::SetInts(conv, "pads", {1, 1, 1, 1});
  OnnxBuilder::SetInts(conv, "kernel_shape", {3, 3});
  b.Weight("bn.scale", {4}, {1.0f, 0.5f, 2.0f, 1.5f});
  b.Weight("bn.bias", {4}, {0.1f, -0.1f, 0.0f, 0.2f});
  b.Weight("bn.mean", {4}, {0.05f, -0.02f, 0.1f, 0.0f});
  b.Weight("bn.var", {4}, {1.0f, 0.8f, 1.2f, 0.9f});
  OnnxBuilder::SetFloat(b.Node("BatchNormalization",
                               {"c1", "bn.scale", "bn.bias", "bn.mean", "bn.var"}, {"b1"}, "bn1"),
                        "epsilon", 1e-3f);
  b.Node("Relu", {"b1"}, {"r1"}, "relu1");
  auto& pool = b.Node("MaxPool", {"r1"}, {"p1"}, "pool1");
  OnnxBuilder::SetInts(pool, "kernel_shape", {2, 2});
  OnnxBuilder::SetInts(pool, "strides", {2, 2});
  b.RandomWeight("dw.w", {4, 1, 3, 3}, 0.5f, 3);
  auto& dw = b.Node("Conv", {"p1", "dw.w"}, {"d1"}, "dwconv");
  OnnxBuilder::SetInt(dw, "group", 4);
  OnnxBuilder::SetString(dw, "auto_pad", "SAME_UPPER");
  b.Weight("zero", {}, {0.0f});
  b.Weight("six", {}, {6.0f});
  b.Node("Clip", {"d1", "zero", "six"}, {"relu6"}, "relu6");
  b.Node("GlobalAveragePool", {"relu6"}, {"gap"}, "gap");
  // torch.flatten as exported by older PyTorch: Shape -> Gather -> Unsqueeze -> Concat -> Reshape.
  b.Node("Shape", {"gap"}, {"gap_shape"}, "shape");
  b.Ints("zero_index", {0});
  b.Node("Gather", {"gap_shape", "zero_index"}, {"batch"}, "gather");
  b.Ints("minus_one", {-1});
  OnnxBuilder::SetInt(b.Node("Concat", {"batch", "minus_one"}, {"flat_shape"}, "concat_shape"),
                      "axis", 0);
  b.Node("Reshape", {"gap", "flat_shape"}, {"flat"}, "flatten");
  b.RandomWeight("fc.w", {5, 4}, 0.5f, 4);
  b.RandomWeight("fc.b", {5}, 0.1f, 5);
  OnnxBuilder::SetInt(b.Node("Gemm", {"flat", "fc.w", "fc.b"}, {"logits"}, "fc"), "transB", 1);
  b.Output("logits", {"N", "5"});
  return b.model;
}

onnx::ModelProto Recurrent(bool lstm) {
  const int64_t t = 5, c = 3, h = 4, gates = lstm ? 4 : 3, dirs = lstm ? 2 : 1;
  OnnxBuilder b(lstm ? "lstm" : "gru");
  b.Input("x", {"sequence", "batch", std::to_string(c)});
  b.RandomWeight("W", {dirs, gates * h, c}, 0.5f, 11);
  b.RandomWeight("R", {dirs, gates * h, h}, 0.5f, 12);
  b.RandomWeight("B", {dirs, 2 * gates * h}, 0.3f, 13);
  auto& n = b.Node(lstm ? "LSTM" : "GRU", {"x", "W", "R", "B"}, {"y"}, lstm ? "lstm" : "gru");
  OnnxBuilder::SetInt(n, "hidden_size", h);
  if (lstm) OnnxBuilder::SetString(n, "direction", "bidirectional");
  if (!lstm) OnnxBuilder::SetInt(n, "linear_before_reset", 1);
  b.Output("y", {"sequence", std::to_string(dirs), "batch", std::to_string(h)});
  (void)t;
  return b.model;
}

// The mapped ops the other models leave out.
onnx::ModelProto Ops() {
  OnnxBuilder b("ops", 17);
  b.Input("x", {"N", "4", "6"});
  b.Node("Sigmoid", {"x"}, {"s"}, "sigmoid");
  b.Node("Tanh", {"x"}, {"t"}, "tanh");
  b.Node("Mul", {"s", "t"}, {"m"}, "gate");
  b.Node("Identity", {"m"}, {"m2"}, "identity");
  b.Node("Dropout", {"m2"}, {"d"}, "dropout");
  b.Weight("ln.scale", {6}, {1, 1, 0.5f, 2, 1, 1});
  b.Weight("ln.bias", {6}, {0, 0.1f, 0, 0, -0.1f, 0});
  b.Node("LayerNormalization", {"d", "ln.scale", "ln.bias"}, {"ln"}, "layernorm");
  OnnxBuilder::SetInts(b.Node("Transpose", {"ln"}, {"tr"}, "transpose"), "perm", {0, 2, 1});
  b.Ints("axes", {1});
  b.Node("Unsqueeze", {"tr", "axes"}, {"u"}, "unsqueeze");
  b.Node("Squeeze", {"u", "axes"}, {"sq"}, "squeeze");
  OnnxBuilder::SetInt(b.Node("Concat", {"sq", "sq"}, {"cat"}, "concat"), "axis", 2);
  OnnxBuilder::SetInt(b.Node("Flatten", {"cat"}, {"flat"}, "flatten"), "axis", 1);
  b.Node("Add", {"flat", "flat"}, {"sum"}, "residual");
  b.Output("sum", {"N", "48"});
  return b.model;
}

// LeakyRelu, Split, Sub and Div with constant operands, and GELU as PyTorch exports it.
onnx::ModelProto Ops2() {
  OnnxBuilder b("ops2", 13);
  b.Input("x", {"N", "6"});
  OnnxBuilder::SetFloat(b.Node("LeakyRelu", {"x"}, {"lr"}, "leaky"), "alpha", 0.2f);
  b.Ints("split_sizes", {2, 4});
  OnnxBuilder::SetInt(b.Node("Split", {"lr", "split_sizes"}, {"a", "b"}, "split"), "axis", 1);
  b.Weight("shift", {4}, {0.5f, -0.5f, 0.25f, 0.0f});
  b.Weight("scale", {4}, {2.0f, 0.5f, 1.0f, 4.0f});
  b.Node("Sub", {"b", "shift"}, {"sb"}, "sub");
  b.Node("Div", {"sb", "scale"}, {"dv"}, "div");
  auto scalar = [&](const std::string& name, float v) {
    auto& c = b.Node("Constant", {}, {name}, name + "_const");
    auto* a = c.add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    a->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
    a->mutable_t()->add_float_data(v);
  };
  scalar("sqrt2", 1.4142135f);
  scalar("one", 1.0f);
  scalar("half", 0.5f);
  b.Node("Div", {"dv", "sqrt2"}, {"g1"}, "gelu_div");
  b.Node("Erf", {"g1"}, {"g2"}, "gelu");
  b.Node("Add", {"g2", "one"}, {"g3"}, "gelu_add");
  b.Node("Mul", {"dv", "g3"}, {"g4"}, "gelu_mul");
  b.Node("Mul", {"g4", "half"}, {"g"}, "gelu_half");
  OnnxBuilder::SetInt(b.Node("Concat", {"a", "g"}, {"out"}, "concat"), "axis", 1);
  b.Output("out", {"N", "6"});
  return b.model;
}

}  // namespace

std::vector<std::pair<std::string, onnx::ModelProto>> TestModels() {
  return {{"mlp", Mlp()}, {"cnn_bn", CnnBn()}, {"lstm", Recurrent(true)}, {"gru", Recurrent(false)},
          {"ops", Ops()}, {"ops2", Ops2()}};
}

onnx::ModelProto TestModel(const std::string& name) {
  for (auto& [n, m] : TestModels()) {
    if (n == name) return m;
  }
  throw std::runtime_error("no test model " + name);
}

}  // namespace ntpb::testing
