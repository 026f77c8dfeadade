// The ONNX reader: every mapped op, real weights, outputs against references computed
// independently of the IR (ONNX semantics written out here), and broken models.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ntpbench/analysis.h"
#include "ntpbench/backend.h"
#include "ntpbench/error.h"
#include "ntpbench/onnx_format.h"
#include "ntpbench/resolve.h"
#include "ntpbench/tensor_file.h"
#include "ntpbench/topology_file.h"
#include "src/backends/random_data.h"
#include "tests/backends/naive_ops.h"
#include "tests/onnx/onnx_test_models.h"
#include "tests/test_util.h"

namespace ntpb::testing {
namespace {

Topology Import(const std::string& model) {
  return ParseOnnx(TestModel(model).SerializeAsString(), model + ".onnx");
}

const Layer& LayerNamed(const Topology& t, const std::string& name) {
  for (const Layer& l : t.layers) {
    if (l.name == name) return l;
  }
  throw std::runtime_error("no layer " + name);
}

// Runs the topology on Eigen with `input` written to its (single) input; returns its output.
std::vector<float> RunEigen(const Topology& topology, const ParamEnv& params,
                            const std::vector<float>& input) {
  const ResolvedTopology t = Resolve(topology, params);
  auto exe = FindBackend("eigen")->Compile(t, RunConfig{});
  exe->WriteTensor(t.inputs.at(0).first, input);
  exe->Run();
  return exe->ReadTensor(t.outputs.at(0));
}

std::string ErrorOf(const std::string& bytes, const OnnxLimits& limits = {}) {
  try {
    ParseOnnx(bytes, "bad.onnx", limits);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// Every PyTorch export is called torch_jit (every tf2onnx one tf2onnx): two such models must not
// share a benchmark name, so the file's stem names them.
TEST(OnnxReader, AnExportersDefaultGraphNameGivesWayToTheFileName) {
  onnx::ModelProto model = TestModel("mlp");
  for (const char* generic : {"torch_jit", "main_graph", "tf2onnx"}) {
    model.mutable_graph()->set_name(generic);
    EXPECT_EQ(ParseOnnx(model.SerializeAsString(), "models/resnet-18.v2.onnx").name, "resnet_18_v2")
        << "graph named '" << generic << "'";
    EXPECT_EQ(ParseOnnx(model.SerializeAsString(), "<stdin>").name, "onnx_model");
  }
  model.mutable_graph()->set_name("encoder");
  EXPECT_EQ(ParseOnnx(model.SerializeAsString(), "models/resnet.onnx").name, "encoder")
      << "a name the author chose is kept";
}

// What torch.onnx.export writes with dynamic_axes: shapes computed at run time from the input's
// symbolic dims (a state of ones sized from Shape(x), a slice that drops the last step). They
// fold once the dims have values, so the model is read at its params' values and read again for
// others; the dims answer to their ONNX names too.
// x [batch, seq, width] plus ones sized from Shape(x) at run time, as x1 (an exported
// recurrent layer's zero state is built so): its shape folds only once batch and seq have values.
// Leaves "zero", "one" and the sequence length "t" for the caller's nodes.
void AddOnesSizedAtRunTime(OnnxBuilder& b, int64_t width) {
  b.Input("x", {"batch", "seq", std::to_string(width)});
  b.Ints("zero", {0});
  b.Ints("one", {1});
  b.Ints("width", {width});
  b.Node("Shape", {"x"}, {"shape"}, "shape");
  b.Node("Gather", {"shape", "zero"}, {"n"}, "n");
  b.Node("Gather", {"shape", "one"}, {"t"}, "t");
  OnnxBuilder::SetInt(b.Node("Concat", {"n", "t", "width"}, {"dims"}, "dims"), "axis", 0);
  onnx::NodeProto& ones = b.Node("ConstantOfShape", {"dims"}, {"ones"}, "ones");
  onnx::AttributeProto* value = ones.add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  value->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  value->mutable_t()->add_dims(1);
  value->mutable_t()->add_float_data(1.0f);
  b.Node("Add", {"x", "ones"}, {"x1"}, "plus_ones");
}

TEST(OnnxReader, DynamicAxesAreParamsBoundBeforeFolding) {
  OnnxBuilder b("dynamic");
  AddOnesSizedAtRunTime(b, 4);
  b.Output("y", {"batch", "steps", "4"});
  b.Node("Sub", {"t", "one"}, {"last"}, "last");
  b.Node("Slice", {"x1", "zero", "last", "one"}, {"y"}, "drop_last");
  const Topology t = ParseOnnx(b.Bytes(), "dynamic.onnx");
  EXPECT_EQ(t.bound, (std::map<std::string, int64_t>{{"N", 1}, {"T", 16}}));
  EXPECT_EQ(t.param_aliases, (std::map<std::string, std::string>{{"batch", "N"}, {"seq", "T"}}));
  EXPECT_EQ(t.param_sources.at("T"), "dim 1 'seq' of ONNX input 'x'");
  EXPECT_NE(t.description.find("read at N=1, T=16"), std::string::npos) << t.description;
  const ResolvedTopology at_defaults = Resolve(t, {});
  EXPECT_EQ(at_defaults.shapes.at("y"), (Shape{1, 15, 4}));
  // Bound by the ONNX names, as `--set seq=5` does, and by the IR's (`--batch 3`).
  for (const ParamEnv& env : {ParamEnv{{"batch", 3}, {"seq", 5}}, ParamEnv{{"N", 3}, {"T", 5}}}) {
    const ResolvedTopology r = Resolve(t, env);
    EXPECT_EQ(r.shapes.at("x"), (Shape{3, 5, 4}));
    ASSERT_EQ(r.shapes.at("y"), (Shape{3, 4, 4}));
    std::vector<float> x(3 * 5 * 4);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
    auto exe = FindBackend("eigen")->Compile(r, RunConfig{});
    exe->WriteTensor("x", x);
    exe->Run();
    const std::vector<float> y = exe->ReadTensor("y");
    for (int n = 0; n < 3; ++n) {
      for (int s = 0; s < 4; ++s) {
        for (int c = 0; c < 4; ++c) {
          ASSERT_EQ(y[(n * 4 + s) * 4 + c], x[(n * 5 + s) * 4 + c] + 1.0f) << n << "," << s;
        }
      }
    }
  }
  try {
    Resolve(t, {{"sequence", 5}});
    ADD_FAILURE() << "an unknown param was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown param 'sequence'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("(params: N, T; also batch for N, seq for T)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(Resolve(t, {{"seq", 5}, {"T", 6}}), Error);  // two values for one dim
  EXPECT_THROW(Resolve(t, {{"seq", 0}}), Error);
}

// A model read again per binding of its symbolic dims (its shape arithmetic folds only with
// sizes) holds its large weights once: every binding's layers share the first reading's storage,
// so a run or sweep over batch sizes does not hold a copy per size.
TEST(OnnxReader, EveryBindingSharesTheLargeWeights) {
  OnnxBuilder b("shared");
  AddOnesSizedAtRunTime(b, 256);
  b.Output("y", {"batch", "seq", "256"});
  b.RandomWeight("w", {256, 256}, 0.1f, 3);
  b.Node("MatMul", {"x1", "w"}, {"y"}, "project");
  const Topology t = ParseOnnx(b.Bytes(), "shared.onnx");
  ASSERT_FALSE(t.bound.empty()) << "read per binding";
  const ResolvedTopology one = Resolve(t, {{"N", 1}});
  const ResolvedTopology three = Resolve(t, {{"N", 3}, {"T", 5}});
  auto weight = [](const ResolvedTopology& r) {
    for (const ResolvedLayer& l : r.layers) {
      for (const auto& w : l.weight_values) {
        if (w && w->size() == 256 * 256) return w.get();
      }
    }
    return static_cast<const std::vector<float>*>(nullptr);
  };
  ASSERT_NE(weight(one), nullptr);
  EXPECT_EQ(weight(one), weight(three));
  EXPECT_EQ(three.shapes.at("y"), (Shape{3, 5, 256}));
}

// ONNX external data (onnx.save_model(..., save_as_external_data=True), every model over 2 GiB):
// the weights come from files beside the model, read once; a location outside the model's
// folder or a range past a file's end is one clear error.
TEST(OnnxReader, ExternalDataIsReadFromBesideTheModel) {
  const Topology inline_weights = Import("mlp");
  const std::string dir = TestDir() + "/external";
  std::filesystem::create_directories(dir);
  auto with_external = [&](const std::string& location, int64_t extra_offset) {
    onnx::ModelProto m = TestModel("mlp");
    std::string blob;
    for (onnx::TensorProto& t : *m.mutable_graph()->mutable_initializer()) {
      if (t.data_type() != onnx::TensorProto::FLOAT) continue;
      std::string raw = t.raw_data();
      if (raw.empty()) {
        raw.assign(reinterpret_cast<const char*>(t.float_data().data()), 4 * t.float_data_size());
      }
      t.clear_float_data();
      t.clear_raw_data();
      t.set_data_location(onnx::TensorProto::EXTERNAL);
      for (const auto& [key, value] : {std::pair<std::string, std::string>{"location", location},
                                       {"offset", std::to_string(blob.size() + extra_offset)},
                                       {"length", std::to_string(raw.size())}}) {
        auto* e = t.add_external_data();
        e->set_key(key);
        e->set_value(value);
      }
      blob += raw;
    }
    std::ofstream(dir + "/weights.bin", std::ios::binary) << blob;
    std::ofstream(dir + "/model.onnx", std::ios::binary) << m.SerializeAsString();
    return dir + "/model.onnx";
  };
  const Topology t = ReadOnnxFile(with_external("weights.bin", 0));
  ASSERT_EQ(t.layers.size(), inline_weights.layers.size());
  for (size_t i = 0; i < t.layers.size(); ++i) {
    for (const auto& [name, w] : inline_weights.layers[i].weights) {
      ASSERT_TRUE(w.data) << name;
      EXPECT_EQ(*t.layers[i].weights.at(name).data, *w.data) << t.layers[i].name << " " << name;
    }
  }
  auto error = [&](const std::string& path) {
    try {
      ReadOnnxFile(path);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_NE(
      error(with_external("../weights.bin", 0)).find("'../weights.bin' leaves the model's folder"),
      std::string::npos);
  EXPECT_NE(error(with_external("/etc/passwd", 0)).find("leaves the model's folder"),
            std::string::npos);
  EXPECT_NE(error(with_external("weights.bin", 4)).find("run past the end of"), std::string::npos)
      << error(with_external("weights.bin", 4));
  EXPECT_NE(error(with_external("missing.bin", 0)).find("cannot read"), std::string::npos);
  // Bytes with no folder (standard input): external data cannot be read, and is not looked for.
  std::ifstream model(with_external("weights.bin", 0), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(model)),
                          std::istreambuf_iterator<char>());
  EXPECT_NE(ErrorOf(bytes).find("read only beside a model given by its path"), std::string::npos)
      << ErrorOf(bytes);
}

// `inspect` of a large model: its large weights' shapes without their values, the external file
// not read (its range still checked), the analysis the same as with them.
TEST(OnnxReader, ShapesOnlyLeavesLargeExternalWeightsUnread) {
  const std::string dir = TestDir() + "/shapes_only";
  std::filesystem::create_directories(dir);
  OnnxBuilder b("big");
  b.Input("x", {"batch", "256"});
  b.Output("y", {"batch", "256"});
  b.RandomWeight("w", {256, 256}, 0.1f, 3);
  OnnxBuilder::SetInt(b.Node("Gemm", {"x", "w"}, {"y"}, "fc"), "transB", 1);
  onnx::TensorProto& w = *b.model.mutable_graph()->mutable_initializer(0);
  std::string raw = w.raw_data();
  if (raw.empty()) {
    raw.assign(reinterpret_cast<const char*>(w.float_data().data()), 4 * w.float_data_size());
  }
  w.clear_float_data();
  w.clear_raw_data();
  w.set_data_location(onnx::TensorProto::EXTERNAL);
  auto* location = w.add_external_data();
  location->set_key("location");
  location->set_value("w.bin");
  std::ofstream(dir + "/w.bin", std::ios::binary) << raw;
  std::ofstream(dir + "/big.onnx", std::ios::binary) << b.model.SerializeAsString();
  const Topology shapes = ReadTopologyShapes(dir + "/big.onnx");
  const Topology full = ReadTopologyFile(dir + "/big.onnx");
  ASSERT_EQ(shapes.layers.size(), 1u);
  const auto& unread = shapes.layers[0].weights;
  EXPECT_TRUE(!unread.count("kernel") || !unread.at("kernel").data) << "not read";
  ASSERT_NE(full.layers[0].weights.at("kernel").data, nullptr);
  EXPECT_EQ(full.layers[0].weights.at("kernel").data->size(), 256u * 256u);
  const TopologyAnalysis a = Analyze(Resolve(shapes, {{"N", 2}}), Precision::kF32);
  const TopologyAnalysis f = Analyze(Resolve(full, {{"N", 2}}), Precision::kF32);
  EXPECT_EQ(a.total.params, 65536);
  EXPECT_EQ(a.total.params, f.total.params);
  EXPECT_EQ(a.total.flops, f.total.flops);
  // A file shorter than the tensor: said even when the bytes are not read.
  std::ofstream(dir + "/w.bin", std::ios::binary) << raw.substr(0, 100);
  EXPECT_THROW(ReadTopologyShapes(dir + "/big.onnx"), Error);
}

// Attention as PyTorch exports it becomes one `attention` layer (the corpus models: their
// outputs match PyTorch's in OnnxCorpus.CommittedModelsLoadRunAndMatchPyTorch).
TEST(OnnxReader, ExportedAttentionBecomesOneAttentionLayer) {
  auto count = [](const Topology& t, const std::string& op) {
    return std::count_if(t.layers.begin(), t.layers.end(),
                         [&](const Layer& l) { return l.op == op; });
  };
  auto corpus = [](const std::string& folder) {
    return ReadTopologyFile(SourcePath("tests/onnx/corpus/" + folder + "/model.onnx"));
  };
  // GPT-2: heads split by Reshape + Transpose, the scale after the product, a causal Where: one
  // attention over the un-split q, k, v with 4 heads; the six transposes are gone.
  const Topology gpt2 = corpus("gpt2_tiny_op17");
  EXPECT_EQ(count(gpt2, "attention"), 2);
  EXPECT_EQ(count(gpt2, "softmax") + count(gpt2, "matmul") + count(gpt2, "transpose"), 0);
  const Layer& a = LayerNamed(gpt2, "/blocks.0/attention");
  EXPECT_EQ(a.attrs["heads"], 4);
  EXPECT_TRUE(a.attrs["causal"].get<bool>());
  EXPECT_NEAR(a.attrs["scale"].get<double>(), 1 / std::sqrt(8.0), 1e-6);  // head size 32/4
  EXPECT_EQ(a.inputs[0], "/blocks.0/Split_output_0");
  // nn.TransformerDecoderLayer: [N*H, S, D] with a constant additive causal mask (self) and none
  // (cross): one head over N*H items each.
  const Topology decoder = corpus("decoder_block_op17");
  EXPECT_TRUE(LayerNamed(decoder, "/layer/self_attn/attention").attrs.value("causal", false));
  EXPECT_FALSE(LayerNamed(decoder, "/layer/multihead_attn/attention").attrs.value("causal", false));
  EXPECT_EQ(LayerNamed(decoder, "/layer/self_attn/attention").attrs["heads"], 1);
  EXPECT_EQ(count(decoder, "softmax"), 0);
  // BERT's padding mask, (1 - mask[:, None, None, :]) * -10000 added to the scores: the [N, keys]
  // mask is the attention's fourth input, and the nodes that widened it are gone.
  const Topology bert = corpus("bert_tiny_op13");
  EXPECT_EQ(count(bert, "attention"), 2);
  EXPECT_EQ(count(bert, "softmax") + count(bert, "unsqueeze") + count(bert, "sub"), 0);
  const Layer& masked = LayerNamed(bert, "/layers.1/attention");
  ASSERT_EQ(masked.inputs.size(), 4u);
  EXPECT_EQ(masked.inputs[3], "/Not_output_0");
  // A mask turned into scores by Where(mask, 0, -inf) is not a form the pattern knows: the nodes
  // stay as they are (and still match PyTorch).
  EXPECT_EQ(count(corpus("tiny_bert_op17"), "attention"), 0);
}

TEST(OnnxReader, MlpKeepsNodeNamesAndRealWeights) {
  const Topology t = Import("mlp");
  ASSERT_EQ(t.inputs.size(), 1u);
  EXPECT_EQ(t.inputs[0].shape, (std::vector<std::string>{"N", "3"}));  // symbolic batch -> N
  std::vector<std::string> names;
  for (const Layer& l : t.layers) names.push_back(l.name);
  EXPECT_EQ(names, (std::vector<std::string>{"fc1", "relu1", "fc2", "softmax"}));  // Add folded
  const Layer& fc1 = LayerNamed(t, "fc1");
  EXPECT_EQ(fc1.op, "dense");
  EXPECT_EQ(fc1.attrs["units"], 2);
  // Gemm's transB weight [2, 3] is stored as the IR's [K, units] = [3, 2].
  EXPECT_EQ(*fc1.weights.at("kernel").data, (std::vector<float>{1, -1, 2, 0.5f, 3, 0}));
  EXPECT_TRUE(LayerNamed(t, "fc2").attrs["bias"].get<bool>());

  // Computed by hand: x = [1, 2, -1]; fc1 = [1+4-3+0.5, -1+1+0-0.25] = [2.5, -0.25];
  // relu = [2.5, 0]; fc2 = [2.5*1 + 0.1, 2.5*-1 + 0.2] = [2.6, -2.3]; softmax.
  const std::vector<float> y = RunEigen(t, {{"N", 1}}, {1, 2, -1});
  const double e0 = std::exp(2.6), e1 = std::exp(-2.3);
  EXPECT_NEAR(y[0], e0 / (e0 + e1), 1e-6);
  EXPECT_NEAR(y[1], e1 / (e0 + e1), 1e-6);
}

TEST(OnnxReader, CnnWithBatchnormMapsEveryAttributeAndRunsLikeTheNaiveOps) {
  const Topology t = Import("cnn_bn");
  const Layer& conv = LayerNamed(t, "conv1");
  EXPECT_EQ(conv.attrs["padding"], (nlohmann::json{1, 1, 1, 1}));
  EXPECT_EQ(conv.attrs["filters"], 4);
  const Layer& dw = LayerNamed(t, "dwconv");
  EXPECT_EQ(dw.attrs["groups"], 4);
  EXPECT_EQ(dw.attrs["padding"], "same");
  EXPECT_FALSE(dw.attrs["bias"].get<bool>());
  EXPECT_EQ(LayerNamed(t, "relu6").op, "clipped_relu");
  EXPECT_EQ(LayerNamed(t, "relu6").attrs["clip"], 6.0);
  EXPECT_EQ(LayerNamed(t, "bn1").weights.at("variance").data->at(2), 1.2f);
  EXPECT_NEAR(LayerNamed(t, "bn1").attrs["epsilon"].get<double>(), 1e-3, 1e-9);
  // Shape -> Gather -> Concat folded into the reshape's attribute, batch kept symbolic.
  EXPECT_EQ(LayerNamed(t, "flatten").attrs["shape"], (nlohmann::json{"N", -1}));
  EXPECT_EQ(LayerNamed(t, "pool1").attrs["stride"], (nlohmann::json{2, 2}));

  // Every tensor on Eigen against the naive ops with the model's own weights.
  const ResolvedTopology r = Resolve(t, {{"N", 2}});
  auto exe = FindBackend("eigen")->Compile(r, RunConfig{});
  exe->Run();
  std::map<std::string, Values> naive;
  for (const auto& [name, shape] : r.inputs) naive[name] = exe->ReadTensor(name);
  for (const ResolvedLayer& l : r.layers) {
    std::vector<Values> inputs, weights;
    for (const std::string& in : l.inputs) inputs.push_back(naive.at(in));
    for (size_t i = 0; i < l.weights.size(); ++i) {
      ASSERT_TRUE(l.weight_values[i]) << l.name << " " << l.weights[i].name;
      weights.push_back(*l.weight_values[i]);
    }
    naive[l.outputs[0]] = NaiveOp(l, inputs, weights);
    EXPECT_LT(MaxRelativeError(exe->ReadTensor(l.outputs[0]), naive[l.outputs[0]]), 1e-5) << l.name;
  }
  EXPECT_EQ(r.shapes.at("logits"), (Shape{2, 5}));
}

float Sigmoid(float x) { return 1 / (1 + std::exp(-x)); }

// ONNX LSTM (gates i, o, f, c) and GRU (z, r, h; linear_before_reset=1), written from the
// operator specification over ONNX's own weight layout.
// `c0`: an LSTM's initial cell state [dirs, N, H], or empty for zeros. `final_cell`, where
// given: the LSTM's final cell state Y_c [dirs, N, H].
std::vector<float> OnnxRecurrentReference(
    bool lstm, const onnx::ModelProto& m, const std::vector<float>& x, int64_t t_len,
    int64_t n_batch, const std::vector<float>& c0 = {}, std::vector<float>* final_cell = nullptr,
    const std::vector<int64_t>& lens = {}, std::vector<float>* final_hidden = nullptr,
    bool reverse_only = false, const std::vector<float>& h0 = {}) {
  auto weight = [&](const std::string& name) {
    for (const auto& init : m.graph().initializer()) {
      if (init.name() == name) {
        std::vector<float> v(init.raw_data().size() / 4);
        std::memcpy(v.data(), init.raw_data().data(), init.raw_data().size());
        return v;
      }
    }
    throw std::runtime_error(name);
  };
  const std::vector<float> W = weight("W"), R = weight("R"), B = weight("B");
  const int64_t h = 4, c = 3, gates = lstm ? 4 : 3, dirs = lstm ? 2 : 1;
  std::vector<float> y(t_len * dirs * n_batch * h);
  if (final_cell) final_cell->assign(dirs * n_batch * h, 0.0f);
  if (final_hidden) final_hidden->assign(dirs * n_batch * h, 0.0f);
  for (int64_t d = 0; d < dirs; ++d) {
    for (int64_t b = 0; b < n_batch; ++b) {
      std::vector<float> hs(h, 0), cs(h, 0);
      if (!h0.empty())
        hs.assign(h0.begin() + (d * n_batch + b) * h, h0.begin() + (d * n_batch + b + 1) * h);
      if (!c0.empty())
        cs.assign(c0.begin() + (d * n_batch + b) * h, c0.begin() + (d * n_batch + b + 1) * h);
      // sequence_lens: the first `steps` of the sequence; Y zero past them.
      const int64_t steps = lens.empty() ? t_len : lens[b];
      for (int64_t step = 0; step < steps; ++step) {
        const int64_t t = d == 0 && !reverse_only ? step : steps - 1 - step;
        std::vector<float> xw(gates * h), hr(gates * h);
        for (int64_t g = 0; g < gates * h; ++g) {
          float a = B[d * 2 * gates * h + g], r = B[d * 2 * gates * h + gates * h + g];
          for (int64_t k = 0; k < c; ++k)
            a += W[(d * gates * h + g) * c + k] * x[(t * n_batch + b) * c + k];
          for (int64_t k = 0; k < h; ++k) r += R[(d * gates * h + g) * h + k] * hs[k];
          xw[g] = a;
          hr[g] = r;
        }
        std::vector<float> next(h);
        for (int64_t j = 0; j < h; ++j) {
          if (lstm) {
            const float i = Sigmoid(xw[j] + hr[j]), o = Sigmoid(xw[h + j] + hr[h + j]),
                        f = Sigmoid(xw[2 * h + j] + hr[2 * h + j]),
                        g = std::tanh(xw[3 * h + j] + hr[3 * h + j]);
            cs[j] = f * cs[j] + i * g;
            next[j] = o * std::tanh(cs[j]);
          } else {
            const float z = Sigmoid(xw[j] + hr[j]), r = Sigmoid(xw[h + j] + hr[h + j]);
            const float n = std::tanh(xw[2 * h + j] + r * hr[2 * h + j]);
            next[j] = (1 - z) * n + z * hs[j];
          }
        }
        hs = next;
        for (int64_t j = 0; j < h; ++j) y[((t * dirs + d) * n_batch + b) * h + j] = hs[j];
      }
      if (final_cell) std::copy(cs.begin(), cs.end(), final_cell->begin() + (d * n_batch + b) * h);
      if (final_hidden) {
        std::copy(hs.begin(), hs.end(), final_hidden->begin() + (d * n_batch + b) * h);
      }
    }
  }
  return y;
}

TEST(OnnxReader, BidirectionalLstmMatchesTheOnnxSpecification) {
  const Topology t = Import("lstm");
  EXPECT_EQ(LayerNamed(t, "lstm").op, "lstm");
  EXPECT_EQ(LayerNamed(t, "lstm").attrs["direction"], "bidirectional");
  EXPECT_EQ(t.inputs[0].shape, (std::vector<std::string>{"T", "N", "3"}));
  const int64_t T = 5, N = 2;
  OnnxBuilder b("x");
  const std::vector<float> x = b.Random({T, N, 3}, 1.0f, 99);
  const std::vector<float> y = RunEigen(t, {{"N", N}, {"T", T}}, x);
  const std::vector<float> ref = OnnxRecurrentReference(true, TestModel("lstm"), x, T, N);
  ASSERT_EQ(y.size(), ref.size());
  EXPECT_LT(MaxRelativeError(y, ref), 1e-5);
}

// An LSTM given initial_c but no initial_h starts its hidden state from zeros (ONNX's rule):
// the importer adds a zeros input beside the cell state.
TEST(OnnxReader, AnLstmWithOnlyAnInitialCellStateStartsFromZeroHiddenState) {
  const int64_t T = 5, N = 2, h = 4;
  onnx::ModelProto m = TestModel("lstm");
  OnnxBuilder b("c0");
  const std::vector<float> c0 = b.Random({2, N, h}, 1.0f, 77);
  onnx::TensorProto* init = m.mutable_graph()->add_initializer();
  init->set_name("c0");
  init->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : {int64_t{2}, N, h}) init->add_dims(d);
  init->set_raw_data(c0.data(), c0.size() * sizeof(float));
  onnx::NodeProto* lstm = m.mutable_graph()->mutable_node(0);
  ASSERT_EQ(lstm->op_type(), "LSTM");
  for (const char* in : {"", "", "c0"}) lstm->add_input(in);  // sequence_lens, initial_h, initial_c
  const Topology t = ParseOnnx(m.SerializeAsString(), "lstm_c0.onnx");
  const std::vector<float> x = b.Random({T, N, 3}, 1.0f, 99);
  const std::vector<float> y = RunEigen(t, {{"N", N}, {"T", T}}, x);
  const std::vector<float> ref = OnnxRecurrentReference(true, m, x, T, N, c0);
  ASSERT_EQ(y.size(), ref.size());
  EXPECT_LT(MaxRelativeError(y, ref), 1e-5);
  EXPECT_GT(MaxRelativeError(y, OnnxRecurrentReference(true, m, x, T, N)), 1e-3)
      << "the cell state changes the output";
}

// `y, (h, c) = nn.LSTM(...)(x)` exported: Y_h and Y_c are graph outputs beside Y. Y_c is the
// lstm layer's second output; Y_h is read from Y's last steps.
TEST(OnnxReader, AnLstmsFinalStatesAreOutputsAsTheSpecificationSays) {
  const int64_t T = 5, N = 2, h = 4;
  onnx::ModelProto m = TestModel("lstm");
  onnx::NodeProto* lstm = m.mutable_graph()->mutable_node(0);
  ASSERT_EQ(lstm->op_type(), "LSTM");
  lstm->add_output("y_h");
  lstm->add_output("y_c");
  for (const char* name : {"y_h", "y_c"}) {
    onnx::ValueInfoProto* out = m.mutable_graph()->add_output();
    out->set_name(name);
    auto* tensor = out->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(onnx::TensorProto::FLOAT);
    tensor->mutable_shape()->add_dim()->set_dim_value(2);
    tensor->mutable_shape()->add_dim()->set_dim_param("batch");
    tensor->mutable_shape()->add_dim()->set_dim_value(h);
  }
  const Topology t = ParseOnnx(m.SerializeAsString(), "lstm_states.onnx");
  EXPECT_EQ(LayerNamed(t, "lstm").outputs.size(), 2u);
  const ResolvedTopology r = Resolve(t, {{"N", N}, {"T", T}});
  auto exe = FindBackend("eigen")->Compile(r, RunConfig{});
  OnnxBuilder b("x");
  const std::vector<float> x = b.Random({T, N, 3}, 1.0f, 99);
  exe->WriteTensor(r.inputs.at(0).first, x);
  exe->Run();
  std::vector<float> want_c;
  const std::vector<float> want_y = OnnxRecurrentReference(true, m, x, T, N, {}, &want_c);
  // Y_h: each direction's last step of Y (the reverse direction's is the sequence's first).
  std::vector<float> want_h;
  for (int64_t d = 0; d < 2; ++d) {
    const int64_t t_last = d == 0 ? T - 1 : 0;
    const auto first = want_y.begin() + ((t_last * 2 + d) * N) * h;
    want_h.insert(want_h.end(), first, first + N * h);
  }
  EXPECT_LT(MaxRelativeError(exe->ReadTensor("y"), want_y), 1e-5);
  EXPECT_LT(MaxRelativeError(exe->ReadTensor("y_h"), want_h), 1e-5);
  EXPECT_LT(MaxRelativeError(exe->ReadTensor("y_c"), want_c), 1e-5);
  EXPECT_GT(MaxRelativeError(want_c, want_h), 1e-2) << "the cell state is not the hidden state";
}

// sequence_lens shorter than the sequence, as `pack_padded_sequence` exports them (a graph
// input, cast) and as a constant: each sequence's own steps, in both directions, Y zero past
// them and Y_h the state after its last one.
TEST(OnnxReader, SequenceLengthsShorterThanTheSequenceAreEachSequencesOwn) {
  const int64_t T = 6, N = 3;
  const std::vector<int64_t> lens = {6, 2, 4};
  // The bidirectional LSTM, the forward GRU, and the GRU made reverse-only.
  for (const auto& [lstm_model, reverse_only] :
       {std::pair{true, false}, std::pair{false, false}, std::pair{false, true}}) {
    for (const bool from_input : {true, false}) {
      onnx::ModelProto m = TestModel(lstm_model ? "lstm" : "gru");
      onnx::GraphProto* g = m.mutable_graph();
      if (reverse_only) {
        onnx::AttributeProto* direction = g->mutable_node(0)->add_attribute();
        direction->set_name("direction");
        direction->set_type(onnx::AttributeProto::STRING);
        direction->set_s("reverse");
      }
      if (from_input) {
        onnx::ValueInfoProto* in = g->add_input();
        in->set_name("lens");
        auto* tensor = in->mutable_type()->mutable_tensor_type();
        tensor->set_elem_type(onnx::TensorProto::INT64);
        tensor->mutable_shape()->add_dim()->set_dim_param("batch");
        onnx::NodeProto* cast = g->add_node();
        cast->set_op_type("Cast");
        cast->set_name("cast_lens");
        cast->add_input("lens");
        cast->add_output("lens_i32");
        onnx::AttributeProto* to = cast->add_attribute();
        to->set_name("to");
        to->set_type(onnx::AttributeProto::INT);
        to->set_i(onnx::TensorProto::INT32);
        // Nodes in topological order: the cast first.
        g->mutable_node()->SwapElements(0, 1);
      } else {
        onnx::TensorProto* init = g->add_initializer();
        init->set_name("lens_i32");
        init->set_data_type(onnx::TensorProto::INT32);
        init->add_dims(N);
        for (int64_t l : lens) init->add_int32_data(static_cast<int32_t>(l));
      }
      onnx::NodeProto* node = g->mutable_node(from_input ? 1 : 0);
      ASSERT_EQ(node->op_type(), lstm_model ? "LSTM" : "GRU");
      node->add_input("lens_i32");
      // The LSTM with constant lengths starts from given states: each direction's own.
      std::vector<float> h0, c0;
      if (lstm_model && !from_input) {
        OnnxBuilder states("states");
        h0 = states.Random({2, N, 4}, 1.0f, 51);
        c0 = states.Random({2, N, 4}, 1.0f, 52);
        for (const auto& [name, values] : {std::pair{"h0", &h0}, std::pair{"c0", &c0}}) {
          onnx::TensorProto* init = g->add_initializer();
          init->set_name(name);
          init->set_data_type(onnx::TensorProto::FLOAT);
          for (int64_t d : {int64_t{2}, N, int64_t{4}}) init->add_dims(d);
          init->set_raw_data(values->data(), values->size() * sizeof(float));
          node->add_input(name);
        }
      }
      node->add_output("y_h");
      onnx::ValueInfoProto* out = g->add_output();
      out->set_name("y_h");
      auto* out_type = out->mutable_type()->mutable_tensor_type();
      out_type->set_elem_type(onnx::TensorProto::FLOAT);
      out_type->mutable_shape()->add_dim()->set_dim_value(lstm_model ? 2 : 1);
      out_type->mutable_shape()->add_dim()->set_dim_param("batch");
      out_type->mutable_shape()->add_dim()->set_dim_value(4);
      const std::string what = std::string(lstm_model ? "lstm" : "gru") +
                               (reverse_only ? " reverse" : "") +
                               (from_input ? " lengths from an input" : " constant lengths");
      const Topology t = ParseOnnx(m.SerializeAsString(), "lens.onnx");
      const ResolvedTopology r = Resolve(t, {{"N", N}, {"T", T}});
      if (from_input) {  // random lengths are lengths: 1 to T
        ASSERT_EQ(r.inputs.size(), 2u) << what;
        ASSERT_TRUE(r.integer_inputs.count("lens")) << what;
        EXPECT_EQ(r.integer_inputs.at("lens").low, 1) << what;
        EXPECT_EQ(r.integer_inputs.at("lens").high, T + 1) << what;
      }
      OnnxBuilder b("x");
      const std::vector<float> x = b.Random({T, N, 3}, 1.0f, 99);
      std::vector<float> want_h;
      const std::vector<float> want_y = OnnxRecurrentReference(lstm_model, m, x, T, N, c0, nullptr,
                                                               lens, &want_h, reverse_only, h0);
      if (!h0.empty()) {  // each direction starts from its own slice of the states
        EXPECT_GT(MaxRelativeError(want_y, OnnxRecurrentReference(lstm_model, m, x, T, N, {},
                                                                  nullptr, lens, nullptr)),
                  1e-2);
        EXPECT_GE(r.LayerIndex("lstm.reverse.state1"), 0) << what;
      }
      for (const char* backend : {"eigen", "onednn"}) {
        auto exe = FindBackend(backend)->Compile(r, RunConfig{});
        exe->WriteTensor("x", x);
        if (from_input) exe->WriteTensor("lens", std::vector<float>(lens.begin(), lens.end()));
        exe->Run();
        EXPECT_LT(MaxRelativeError(exe->ReadTensor("y"), want_y), 1e-5) << what << " " << backend;
        EXPECT_LT(MaxRelativeError(exe->ReadTensor("y_h"), want_h), 1e-5) << what << " " << backend;
      }
      // The lengths matter: the whole sequences' output differs.
      EXPECT_GT(MaxRelativeError(want_y, OnnxRecurrentReference(lstm_model, m, x, T, N, c0, nullptr,
                                                                {}, nullptr, reverse_only, h0)),
                1e-2)
          << what;
    }
  }
  // Y_c past a shorter length is not what the whole sequence's run leaves: refused, named.
  onnx::ModelProto m = TestModel("lstm");
  onnx::TensorProto* init = m.mutable_graph()->add_initializer();
  init->set_name("lens_i32");
  init->set_data_type(onnx::TensorProto::INT32);
  init->add_dims(2);
  init->add_int32_data(3);
  init->add_int32_data(1);
  onnx::NodeProto* node = m.mutable_graph()->mutable_node(0);
  node->add_input("lens_i32");
  node->add_output("");
  node->add_output("y_c");
  onnx::ValueInfoProto* y_c = m.mutable_graph()->add_output();
  y_c->set_name("y_c");
  y_c->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  auto* y_c_shape = y_c->mutable_type()->mutable_tensor_type()->mutable_shape();
  y_c_shape->add_dim()->set_dim_value(2);
  y_c_shape->add_dim()->set_dim_param("batch");
  y_c_shape->add_dim()->set_dim_value(4);
  std::string error = "(no error)";
  try {  // read once its sequence length is bound
    Resolve(ParseOnnx(m.SerializeAsString(), "lens.onnx"), {{"N", 2}, {"T", 5}});
  } catch (const Error& e) {
    error = e.what();
  }
  EXPECT_NE(error.find("Y_c with sequence_lens shorter than the sequence"), std::string::npos)
      << error;
}

TEST(OnnxReader, GruMatchesTheOnnxSpecification) {
  const Topology t = Import("gru");
  const int64_t T = 5, N = 3;
  OnnxBuilder b("x");
  const std::vector<float> x = b.Random({T, N, 3}, 1.0f, 98);
  const std::vector<float> y = RunEigen(t, {{"N", N}, {"T", T}}, x);
  const std::vector<float> ref = OnnxRecurrentReference(false, TestModel("gru"), x, T, N);
  ASSERT_EQ(y.size(), ref.size());
  EXPECT_LT(MaxRelativeError(y, ref), 1e-5);
}

// Identity chains as long as the node limit allows import without recursion (99 999 of them
// overflowed the stack), and one that leaves nothing to compute is one line, not a crash.
TEST(OnnxReader, ALongIdentityChainImportsAndAllIdentitiesIsOneLine) {
  auto chain = [](int identities, bool relu) {
    OnnxBuilder b("chain");
    b.Input("x", {"1", "4"});
    b.Output("y", {"1", "4"});
    std::string last = "x";
    for (int i = 0; i < identities; ++i) {
      const std::string out = relu || i + 1 < identities ? "t" + std::to_string(i) : "y";
      b.Node("Identity", {last}, {out}, "id" + std::to_string(i));
      last = out;
    }
    if (relu) b.Node("Relu", {last}, {"y"}, "relu");
    return b.model.SerializeAsString();
  };
  const Topology t = ParseOnnx(chain(99999, true), "chain.onnx");
  ASSERT_EQ(t.layers.size(), 1u);
  EXPECT_EQ(t.layers[0].inputs, (std::vector<std::string>{"x"}));
  EXPECT_EQ(Resolve(t, {}).layers.size(), 1u);
  try {
    Resolve(ParseOnnx(chain(1000, false), "identities.onnx"), {});
    ADD_FAILURE() << "a graph of Identities resolved";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("identities.onnx: field 'layers': nothing to compute"),
              std::string::npos)
        << e.what();
  }
}

// A Tile of an activation is a concat of its copies: repeats past the node limit are one line,
// at once (fuzzing found 150994945 repeats, which built a 9 GB layer list for minutes first).
TEST(OnnxReader, ATileOfMoreCopiesThanTheNodeLimitIsOneLine) {
  OnnxBuilder b("tile");
  b.Input("x", {"1", "4"});
  b.Ints("reps", {1, 150994945});
  b.Node("Tile", {"x", "reps"}, {"y"}, "tile");
  b.Output("y", {"1", "603979780"});
  const std::string error = ErrorOf(b.model.SerializeAsString());
  EXPECT_NE(error.find("bad.onnx: layer 'tile', field 'repeats': over 100000 copies in all"),
            std::string::npos)
      << error;
  OnnxBuilder fits("tile");  // a few copies still tile
  fits.Input("x", {"1", "4"});
  fits.Ints("reps", {2, 3});
  fits.Node("Tile", {"x", "reps"}, {"y"}, "tile");
  fits.Output("y", {"2", "12"});
  const std::vector<float> y =
      RunEigen(ParseOnnx(fits.model.SerializeAsString(), "tile.onnx"), {}, {1, 2, 3, 4});
  EXPECT_EQ(y, (std::vector<float>{1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4,
                                   1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4}));
}

// Data a model generates from a few constants (ConstantOfShape, Expand, Range, Tile) is folded
// only up to about the size of the model's own constants: a 244-byte file asking for 60 million
// zeros, added to themselves 200 times, took 7 s and 1.9 GB to fold (a fuzz timeout). Now the
// generator stays a node and is refused by name, and a long chain over large generated data
// folds only its budget, the rest staying layers.
TEST(OnnxReader, GeneratedConstantsAreFoldedOnlyUpToTheModelsOwnSize) {
  OnnxBuilder zeros("zeros");
  zeros.Input("x", {"1", "4"});
  zeros.Ints("shape", {60000000});
  zeros.Node("ConstantOfShape", {"shape"}, {"z"}, "sixty_million_zeros");
  zeros.Node("ReduceSum", {"z"}, {"s"}, "sum");
  zeros.Node("Add", {"x", "s"}, {"y"}, "add");
  zeros.Output("y", {"1", "4"});
  const std::string error = ErrorOf(zeros.Bytes());
  EXPECT_NE(error.find("ConstantOfShape x1 (first: 'sixty_million_zeros', only over constants; "
                       "its result is more than ntpbench computes ahead"),
            std::string::npos)
      << error;

  OnnxBuilder chain("chain");
  chain.Input("x", {"1", "4"});
  chain.Ints("shape", {4 << 20});
  chain.Node("ConstantOfShape", {"shape"}, {"z0"}, "zeros");
  const int adds = 64;
  for (int i = 0; i < adds; ++i) {
    chain.Node("Add", {"z" + std::to_string(i), "z0"}, {"z" + std::to_string(i + 1)},
               "add" + std::to_string(i));
  }
  chain.Node("ReduceSum", {"z" + std::to_string(adds)}, {"s"}, "sum");
  chain.Node("Add", {"x", "s"}, {"y"}, "out");
  chain.Output("y", {"1", "4"});
  const Topology t = ParseOnnx(chain.Bytes(), "chain.onnx");
  // 16 Mi elements of room: the zeros and three sums fold, the other 61 sums stay layers, reading
  // the zeros and the third sum as constant layers.
  ASSERT_EQ(t.layers.size(), static_cast<size_t>(2 + adds - 3 + 2));
  EXPECT_EQ(t.layers[0].op, "constant");
  EXPECT_EQ(t.layers[1].op, "constant");
  EXPECT_EQ(t.layers[2].name, "add3");
}

// ONNX says names are UTF-8, protobuf's proto2 does not check: a node, tensor or initializer
// name holding a byte that is not UTF-8 (or a control character) made every JSON writer throw
// ("internal error: invalid UTF-8 byte"). Such names become their printable \xNN text, the same
// wherever they are used, so the graph still connects and runs.
TEST(OnnxReader, NamesThatAreNotUtf8BecomePrintable) {
  OnnxBuilder b("g\xff");
  b.Input("x\x1b", {"1", "4"});
  b.Output("y", {"1", "4"});
  b.RandomWeight("w\xfe", {4, 4}, 0.5f, 3);
  b.Node("MatMul", {"x\x1b", "w\xfe"}, {"h\xc2\x9b"}, "fc\xff");
  b.Node("Relu", {"h\xc2\x9b"}, {"y"}, "relu\xed\xa0\x80");
  const Topology t = ParseOnnx(b.model.SerializeAsString(), "names.onnx");
  ASSERT_EQ(t.layers.size(), 2u);
  EXPECT_EQ(t.layers[0].name, "fc\\xff");
  EXPECT_EQ(t.layers[0].inputs[0], "x\\x1b");
  EXPECT_EQ(t.layers[1].name, "relu\\xed\\xa0\\x80");
  EXPECT_EQ(t.layers[1].inputs[0], t.layers[0].outputs[0]);
  EXPECT_EQ(t.layers[0].outputs[0], "h\\xc2\\x9b");
  EXPECT_EQ(Resolve(t, {}).layers.size(), 2u);
  EXPECT_NO_THROW(nlohmann::json(t.layers[0].name).dump());
}

TEST(OnnxReader, RemainingOpsMapAndRun) {
  const Topology t = Import("ops");
  std::map<std::string, std::string> ops;
  for (const Layer& l : t.layers) ops[l.name] = l.op;
  EXPECT_EQ(ops, (std::map<std::string, std::string>{{"sigmoid", "sigmoid"},
                                                     {"tanh", "tanh"},
                                                     {"gate", "mul"},
                                                     {"layernorm", "layernorm"},
                                                     {"transpose", "transpose"},
                                                     {"unsqueeze", "reshape"},
                                                     {"squeeze", "reshape"},
                                                     {"concat", "concat"},
                                                     {"flatten", "flatten"},
                                                     {"residual", "add"}}));
  // Identity and Dropout are no layers: layernorm reads the gate's output directly.
  EXPECT_EQ(LayerNamed(t, "layernorm").inputs, (std::vector<std::string>{"m"}));
  // x -> sigmoid(x) * tanh(x) -> layernorm over 6 -> [N, 6, 4] -> concat -> [N, 48] -> x2.
  OnnxBuilder b("x");
  const std::vector<float> x = b.Random({1, 4, 6}, 1.0f, 7);
  const std::vector<float> y = RunEigen(t, {{"N", 1}}, x);
  ASSERT_EQ(y.size(), 48u);
  const float scale[6] = {1, 1, 0.5f, 2, 1, 1}, bias[6] = {0, 0.1f, 0, 0, -0.1f, 0};
  for (int row = 0; row < 4; ++row) {
    float g[6], mean = 0, var = 0;
    for (int j = 0; j < 6; ++j) {
      const float v = x[row * 6 + j];
      g[j] = Sigmoid(v) * std::tanh(v);
      mean += g[j] / 6;
    }
    for (int j = 0; j < 6; ++j) var += (g[j] - mean) * (g[j] - mean) / 6;
    for (int j = 0; j < 6; ++j) {
      const float ln = (g[j] - mean) / std::sqrt(var + 1e-5f) * scale[j] + bias[j];
      // transposed to [6, 4], concatenated with itself along the last axis: [6, 8].
      EXPECT_NEAR(y[j * 8 + row], 2 * ln, 1e-4) << row << "," << j;
      EXPECT_NEAR(y[j * 8 + 4 + row], 2 * ln, 1e-4);
    }
  }
}

TEST(OnnxReader, SplitConstantOperandsAndTheGeluPattern) {
  const Topology t = Import("ops2");
  std::map<std::string, std::string> ops;
  for (const Layer& l : t.layers) ops[l.name] = l.op;
  // Split -> one slice per part; constants -> layers named after them; the five GELU nodes ->
  // one gelu layer named after the Erf node.
  EXPECT_EQ(ops, (std::map<std::string, std::string>{{"leaky", "leaky_relu"},
                                                     {"split.0", "slice"},
                                                     {"split.1", "slice"},
                                                     {"shift", "constant"},
                                                     {"sub", "sub"},
                                                     {"scale", "constant"},
                                                     {"div", "div"},
                                                     {"gelu", "gelu"},
                                                     {"concat", "concat"}}));
  EXPECT_EQ(LayerNamed(t, "split.1").attrs["start"], 2);
  const std::vector<float> x = {-1.0f, 2.0f, 0.5f, -3.0f, 1.5f, 4.0f};
  const std::vector<float> y = RunEigen(t, {{"N", 1}}, x);
  ASSERT_EQ(y.size(), 6u);
  const float shift[4] = {0.5f, -0.5f, 0.25f, 0.0f}, scale[4] = {2.0f, 0.5f, 1.0f, 4.0f};
  std::vector<float> ref;
  for (int i = 0; i < 6; ++i) ref.push_back(x[i] > 0 ? x[i] : 0.2f * x[i]);
  for (int j = 0; j < 4; ++j) {
    const float v = (ref[2 + j] - shift[j]) / scale[j];
    ref[2 + j] = 0.5f * v * (1 + std::erf(v / std::sqrt(2.0f)));
  }
  EXPECT_LT(MaxRelativeError(y, ref), 1e-6);
}

// A BERT-like front: token and position embeddings (Gather over tables), a padding mask
// computed from the ids at run time (Equal, Reshape, Expand, Cast, Where) and x[:, 0].
OnnxBuilder TokenModel() {
  OnnxBuilder b("tokens");
  b.Input("ids", {"2", "4"}, onnx::TensorProto::INT64);
  b.RandomWeight("table", {10, 3}, 1.0f, 5);
  b.RandomWeight("positions", {4, 3}, 1.0f, 6);
  b.Ints("position_ids", {0, 1, 2, 3});
  b.Ints("zero", {0});
  b.Ints("mask_shape", {2, 4, 1});
  b.Ints("expanded", {2, 4, 3});
  b.Ints("first", {0});
  b.Weight("masked", {1}, {-5.0f});
  b.Weight("threshold", {1}, {0.25f});
  b.Node("Gather", {"table", "ids"}, {"tok"}, "tokens");
  b.Node("Gather", {"positions", "position_ids"}, {"pos"}, "positions");
  b.Node("Add", {"tok", "pos"}, {"h"}, "embed");
  b.Node("Equal", {"ids", "zero"}, {"pad"}, "padding");
  b.Node("Reshape", {"pad", "mask_shape"}, {"pad3"}, "pad3");
  b.Node("Expand", {"pad3", "expanded"}, {"padx"}, "expand");
  OnnxBuilder::SetInt(b.Node("Cast", {"padx"}, {"padb"}, "cast"), "to", onnx::TensorProto::BOOL);
  b.Node("Where", {"padb", "masked", "h"}, {"w"}, "mask");
  for (auto& t : *b.model.mutable_graph()->mutable_initializer()) {
    if (t.name() == "first") t.clear_dims();  // a scalar index: the axis is dropped
  }
  OnnxBuilder::SetInt(b.Node("Gather", {"w", "first"}, {"cls"}, "cls"), "axis", 1);
  b.Node("Greater", {"cls", "threshold"}, {"big"}, "big");
  b.Node("Add", {"cls", "big"}, {"y"}, "out");
  b.Output("y", {"2", "3"});
  return b;
}

TEST(OnnxReader, TokenIdsEmbeddingsAndARunTimeMask) {
  OnnxBuilder b = TokenModel();
  const Topology t = ParseOnnx(b.Bytes(), "tokens.onnx");
  std::map<std::string, std::string> ops;
  for (const Layer& l : t.layers) ops[l.name] = l.op;
  EXPECT_EQ(ops, (std::map<std::string, std::string>{{"tokens", "embedding"},
                                                     {"position_ids", "constant"},
                                                     {"positions", "embedding"},
                                                     {"embed", "add"},
                                                     {"zero", "constant"},
                                                     {"padding", "equal"},
                                                     {"pad3", "reshape"},
                                                     {"expand", "expand"},
                                                     {"masked", "constant"},
                                                     {"mask", "where"},
                                                     {"cls.slice", "slice"},
                                                     {"cls", "reshape"},
                                                     {"threshold", "constant"},
                                                     {"big", "greater"},
                                                     {"out", "add"}}));
  // The ids are integers below the table's 10 rows; random runs draw them from there.
  ASSERT_EQ(t.inputs.size(), 1u);
  ASSERT_TRUE(t.inputs[0].integers.has_value());
  EXPECT_EQ(*t.inputs[0].integers, (IntegerBounds{"0", "10"}));
  // Parameters: both tables (PyTorch counts them) and the two float initializers (ONNX cannot
  // tell them from parameters), not the integer buffer of position ids.
  const ResolvedTopology r = Resolve(t, {});
  EXPECT_EQ(Analyze(r, Precision::kF32).total.params, 30 + 12 + 2);

  OnnxBuilder weights("w");
  const std::vector<float> table = weights.Random({10, 3}, 1.0f, 5);
  const std::vector<float> positions = weights.Random({4, 3}, 1.0f, 6);
  const std::vector<float> ids = {3, 0, 7, 0, 0, 9, 9, 2};  // the second row starts with padding
  std::vector<float> want;
  for (int n = 0; n < 2; ++n) {
    for (int j = 0; j < 3; ++j) {
      const float id = ids[n * 4];
      const float h = id == 0 ? -5.0f : table[static_cast<int>(id) * 3 + j] + positions[j];
      want.push_back(h + (h > 0.25f ? 1.0f : 0.0f));
    }
  }
  for (const std::string& backend : BackendNames()) {
    if (FindBackend(backend)->UsesPlacement()) continue;  // hetero: by a placement only
    // An engine of a fixed operator set (xnnpack) has no embedding.
    if (!FindBackend(backend)->RunsEveryOp() && !FindBackend(backend)->Supports(r, {}).ok) continue;
    auto exe = FindBackend(backend)->Compile(r, RunConfig{});
    exe->WriteTensor("ids", ids);
    exe->Run();
    exe->Wait();
    EXPECT_EQ(exe->ReadTensor("y"), want) << backend;
    // An id outside the table stops the run naming the layer.
    std::vector<float> bad = ids;
    bad[5] = 10;
    exe->WriteTensor("ids", bad);
    try {
      exe->Run();
      exe->Wait();
      ADD_FAILURE() << backend << ": an id beyond the table ran";
    } catch (const Error& e) {
      EXPECT_EQ(e.layer(), "tokens") << backend;
      EXPECT_NE(std::string(e.what()).find("id 10"), std::string::npos) << e.what();
    }
  }
}

TEST(OnnxReader, IntegersWithoutAKnownRangeAndLossyCastsAreRefused) {
  OnnxBuilder b("counts");
  b.Input("n", {"2", "4"}, onnx::TensorProto::INT64);
  OnnxBuilder::SetInt(b.Node("Cast", {"n"}, {"f"}, "to_float"), "to", onnx::TensorProto::FLOAT);
  b.Output("f", {"2", "4"});
  const std::string e = ErrorOf(b.Bytes());
  EXPECT_NE(e.find("graph input 'n' holds integers that index no embedding table"),
            std::string::npos)
      << e;
  OnnxBuilder c("truncate");
  c.Input("x", {"2", "4"});
  OnnxBuilder::SetInt(c.Node("Cast", {"x"}, {"i"}, "truncate"), "to", onnx::TensorProto::INT64);
  c.Output("i", {"2", "4"}, onnx::TensorProto::INT64);
  const std::string t = ErrorOf(c.Bytes());
  EXPECT_NE(t.find("Cast x1 (first: 'truncate', a cast from data type 1 to 7 changes values"),
            std::string::npos)
      << t;
}

TEST(OnnxReader, AModelWithoutItsWeightsGetsRandomOnes) {
  OnnxBuilder b("no_weights");
  b.Input("x", {"N", "8"});
  b.Input("w", {"4", "8"});  // exported without initializers: the weight is a graph input
  OnnxBuilder::SetInt(b.Node("Gemm", {"x", "w"}, {"y"}, "fc"), "transB", 1);
  b.Output("y", {"N", "4"});
  const Topology t = ParseOnnx(b.Bytes(), "no_weights.onnx");
  ASSERT_EQ(t.inputs.size(), 1u);  // w is no activation input
  EXPECT_TRUE(t.layers[0].weights.empty());
  EXPECT_EQ(t.layers[0].attrs["units"], 4);
  EXPECT_EQ(RunEigen(t, {{"N", 2}}, std::vector<float>(16, 1.0f)).size(), 8u);
}

TEST(OnnxReader, UnsupportedOpsAreListedWithCountsAndFirstNode) {
  OnnxBuilder b("unsupported");
  b.Input("x", {"N", "4", "8", "8"});
  // Op types with no mapping at all are refused first, before any library pass runs on them.
  b.Node("LpNormalization", {"x"}, {"u1"}, "norm1");
  b.Node("LpNormalization", {"u1"}, {"u2"}, "norm2");
  b.Output("u2", {"N", "4", "8", "8"});
  const std::string unknown = ErrorOf(b.Bytes());
  EXPECT_NE(unknown.find("bad.onnx"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("LpNormalization x2 (first: 'norm1')"), std::string::npos) << unknown;
  // Known ops refused for what a node asks, each with its reason.
  OnnxBuilder m("refused");
  m.Input("x", {"N", "4", "8", "8"});
  for (const char* name : {"pool1", "pool2"}) {
    onnx::NodeProto& pool = m.Node("MaxPool", {name == std::string("pool1") ? "x" : "p1"},
                                   {name == std::string("pool1") ? "p1" : "p2"}, name);
    OnnxBuilder::SetInts(pool, "kernel_shape", {2, 2});
    OnnxBuilder::SetInts(pool, "dilations", {2, 2});
  }
  m.Node("Erf", {"p2"}, {"e"}, "erf");  // not inside a GELU pattern
  m.Output("e", {"N", "4", "4", "4"});
  const std::string e = ErrorOf(m.Bytes());
  EXPECT_NE(e.find("MaxPool x2 (first: 'pool1', dilations)"), std::string::npos) << e;
  EXPECT_NE(e.find("Erf x1 (first: 'erf', only inside the GELU pattern"), std::string::npos) << e;
}

TEST(OnnxReader, BrokenFilesGiveClearErrors) {
  const std::string good = TestModel("cnn_bn").SerializeAsString();
  // Truncated.
  EXPECT_NE(ErrorOf(good.substr(0, good.size() / 2)).find("bad.onnx"), std::string::npos);
  EXPECT_NE(ErrorOf(good.substr(0, good.size() / 2)).find("not an ONNX model"), std::string::npos);
  // Wrong magic: a JSON topology named .onnx.
  EXPECT_NE(ErrorOf("{\"name\": \"mlp\"}").find("not an ONNX model"), std::string::npos);
  EXPECT_NE(ErrorOf("").find("not an ONNX model"), std::string::npos);
  // Absurd dimensions: refused before anything is allocated.
  onnx::ModelProto huge = TestModel("mlp");
  auto* init = huge.mutable_graph()->mutable_initializer(0);
  init->clear_dims();
  init->add_dims(int64_t{1} << 40);
  init->add_dims(int64_t{1} << 40);
  EXPECT_NE(ErrorOf(huge.SerializeAsString()).find("impossible dimension"), std::string::npos)
      << ErrorOf(huge.SerializeAsString());
  init->clear_dims();
  init->add_dims(int64_t{1} << 20);
  init->add_dims(int64_t{1} << 12);
  EXPECT_NE(ErrorOf(huge.SerializeAsString()).find("over the limit"), std::string::npos);
  init->clear_dims();
  init->add_dims(3);
  init->add_dims(3);  // 9 declared, 6 held
  EXPECT_NE(ErrorOf(huge.SerializeAsString()).find("declares 9 elements but holds 6"),
            std::string::npos);
  // A dangling tensor name.
  onnx::ModelProto dangling = TestModel("mlp");
  dangling.mutable_graph()->mutable_node(1)->set_input(0, "nowhere");
  EXPECT_NE(ErrorOf(dangling.SerializeAsString()).find("checker"), std::string::npos)
      << ErrorOf(dangling.SerializeAsString());
  // A cycle.
  onnx::ModelProto cycle = TestModel("mlp");
  cycle.mutable_graph()->mutable_node(0)->set_input(0, "probs");
  EXPECT_NE(ErrorOf(cycle.SerializeAsString()).find("checker"), std::string::npos);
  // An opset outside 7..17 (what libonnx 1.12 knows); 7 to 10 are converted (OnnxCorpus).
  onnx::ModelProto old = TestModel("mlp");
  old.mutable_opset_import(0)->set_version(6);
  // One message, no contradiction: what is read, what converted, what to do.
  EXPECT_NE(ErrorOf(old.SerializeAsString())
                .find("opset 6 is older than ntpbench converts (ntpbench reads opsets 11 to 17 as "
                      "they are and converts opsets 7 to 10 to opset 13 with libonnx's version "
                      "converter); re-export the model at opset 13"),
            std::string::npos)
      << ErrorOf(old.SerializeAsString());
  // A graph output nothing produces, in a model old enough for the version converter (found by
  // fuzzing: libonnx's converter crashed on it).
  onnx::ModelProto orphan = TestModel("mlp");
  orphan.mutable_opset_import(0)->set_version(9);
  orphan.mutable_graph()->mutable_output(0)->set_name("nowhere");
  EXPECT_NE(ErrorOf(orphan.SerializeAsString())
                .find("field 'output': graph output 'nowhere' is produced by no node"),
            std::string::npos)
      << ErrorOf(orphan.SerializeAsString());
  onnx::ModelProto future = TestModel("mlp");
  future.mutable_opset_import(0)->set_version(18);
  EXPECT_NE(ErrorOf(future.SerializeAsString())
                .find("opset 18 is newer than this build's libonnx knows (ntpbench reads "
                      "opsets 11 to 17"),
            std::string::npos)
      << ErrorOf(future.SerializeAsString());
  // A Constant node that declares 2^30 floats (4 GiB) and carries one: refused before the 4 GiB
  // are allocated.
  OnnxBuilder constant("constant");
  constant.Input("x", {"N", "4"});
  onnx::NodeProto& c = constant.Node("Constant", {}, {"big"}, "big");
  onnx::AttributeProto* value = c.add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  value->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  value->mutable_t()->add_dims(int64_t{1} << 30);
  value->mutable_t()->add_float_data(1.0f);
  constant.Node("Mul", {"x", "big"}, {"y"}, "scale");
  constant.Output("y", {"N", "4"});
  EXPECT_NE(ErrorOf(constant.Bytes()).find("declares 1073741824 values and carries 1"),
            std::string::npos)
      << ErrorOf(constant.Bytes());
  // Found by fuzz_onnx_reader: Clip with an empty bound once threw std::out_of_range.
  OnnxBuilder clip("clip");
  clip.Input("x", {"N", "4"});
  clip.Weight("empty", {0}, {});
  clip.Node("Clip", {"x", "empty"}, {"y"}, "clip");
  clip.Output("y", {"N", "4"});
  EXPECT_NE(ErrorOf(clip.Bytes()).find("Clip x1 (first: 'clip', bounds that are not constant"),
            std::string::npos)
      << ErrorOf(clip.Bytes());
  // Found by fuzz_onnx_reader: a Conv whose weight has rank 2 crashed libonnx's own shape
  // inference; the reader now checks such invariants first.
  onnx::ModelProto rank2 = TestModel("cnn_bn");
  for (auto& node : *rank2.mutable_graph()->mutable_node()) {
    if (node.name() == "dwconv") node.set_input(1, "fc.w");
  }
  EXPECT_NE(ErrorOf(rank2.SerializeAsString())
                .find("layer 'dwconv', field 'W': Conv weight 'fc.w' has rank 2"),
            std::string::npos)
      << ErrorOf(rank2.SerializeAsString());
  // Found by fuzz_onnx_reader: a zero stride divided by zero inside libonnx.
  onnx::ModelProto zero_stride = TestModel("cnn_bn");
  for (auto& node : *zero_stride.mutable_graph()->mutable_node()) {
    if (node.name() == "pool1") node.mutable_attribute(1)->set_ints(1, 0);
  }
  EXPECT_NE(ErrorOf(zero_stride.SerializeAsString())
                .find("layer 'pool1', field 'strides': value 0 is out of range"),
            std::string::npos)
      << ErrorOf(zero_stride.SerializeAsString());
  // Found by fuzz_onnx_reader: LayerNormalization on a scalar crashed libonnx's shape
  // inference, which indexes dimensions by the axis unchecked.
  OnnxBuilder scalar("scalar");
  scalar.Input("x", {});
  scalar.model.mutable_graph()
      ->mutable_input(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape();  // a shape with no dimensions: a scalar
  scalar.Node("Sigmoid", {"x"}, {"y"}, "sigmoid");
  scalar.Output("y", {"1"});
  EXPECT_NE(ErrorOf(scalar.Bytes()).find("field 'x': graph input 'x' is a scalar"),
            std::string::npos)
      << ErrorOf(scalar.Bytes());
  OnnxBuilder axis("axis", 17);
  axis.Input("x", {"2", "6"});
  axis.Weight("g", {6}, std::vector<float>(6, 1.0f));
  axis.Node("Sigmoid", {"x"}, {"s"}, "sigmoid");
  OnnxBuilder::SetInt(axis.Node("LayerNormalization", {"s", "g"}, {"y"}, "ln"), "axis", 2);
  axis.Output("y", {"2", "6"});
  EXPECT_NE(ErrorOf(axis.Bytes())
                .find("layer 'ln', field 'axis': LayerNormalization axis 2 is out of range for "
                      "its rank-2 input 's'"),
            std::string::npos)
      << ErrorOf(axis.Bytes());
  // Found by fuzz_onnx_reader (an LSTM export's initial state, its length damaged): an Expand
  // or a Reshape whose shape is a ConstantOfShape of a huge length made libonnx's shape
  // inference allocate one dimension per element, past 20 GB.
  for (const std::string op : {"Expand", "Reshape"}) {
    OnnxBuilder shape(op);
    shape.Input("x", {"1", "2"});
    shape.Ints("length", {int64_t{576460752303423491}});
    onnx::NodeProto& zeros = shape.Node("ConstantOfShape", {"length"}, {"dims"}, "zeros");
    onnx::AttributeProto* value = zeros.add_attribute();
    value->set_name("value");
    value->set_type(onnx::AttributeProto::TENSOR);
    value->mutable_t()->set_data_type(onnx::TensorProto::INT64);
    value->mutable_t()->add_dims(1);
    value->mutable_t()->add_int64_data(1);
    shape.Node(op, {"x", "dims"}, {"y"}, "grow");
    shape.Output("y", {"1", "2"});
    EXPECT_NE(ErrorOf(shape.Bytes())
                  .find("layer 'grow', field 'input 1': 'dims': the shape input has "
                        "576460752303423491 values"),
              std::string::npos)
        << ErrorOf(shape.Bytes());
  }
  // Too many nodes for the configured limit.
  OnnxLimits small;
  small.max_nodes = 2;
  EXPECT_NE(ErrorOf(good, small).find("max_nodes"), std::string::npos);
}

}  // namespace
}  // namespace ntpb::testing

namespace ntpb::testing {
namespace {

// docs/onnx.md shows the coverage as generated from the importer's tables: an op mapped,
// refused or folded differently than documented fails here (regenerate the section with
// `ntpbench ops --onnx`).
TEST(OnnxCoverageDoc, IsTheGeneratedTable) {
  std::ifstream in(SourcePath("docs/onnx.md"));
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  const std::string begin_marker = "a test checks it -->\n", end_marker = "<!-- end of generated";
  const size_t begin = doc.find(begin_marker), end = doc.find(end_marker);
  ASSERT_NE(begin, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  const std::string section =
      doc.substr(begin + begin_marker.size(), end - begin - begin_marker.size());
  EXPECT_EQ(section, OnnxCoverageMarkdown());
  // Every op of the mapping table has a row, with the IR op it becomes where it is mapped.
  EXPECT_NE(section.find("| ConvTranspose | `conv_transpose` |"), std::string::npos);
  EXPECT_NE(section.find("| Erf | — | refused: only inside the GELU pattern"), std::string::npos);
}

// A test-data tensor (`--input x.pb`, `--check-output`): read as the constant folder reads
// initializers, every malformed one a clear error naming the file and field.
TEST(OnnxTensorFile, ReadsFloatsAndIntegersAndNamesWhatIsWrong) {
  auto error_of = [](const std::string& bytes) {
    try {
      ParseOnnxTensor(bytes, "t.pb");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  onnx::TensorProto f;
  f.set_data_type(onnx::TensorProto::FLOAT);
  f.add_dims(2);
  f.add_dims(2);
  const std::vector<float> values = {1.5f, -2, 3, 4};
  f.set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), 16));
  TensorValues read = ParseOnnxTensor(f.SerializeAsString(), "t.pb");
  EXPECT_EQ(read.dims, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(read.values, values);
  onnx::TensorProto ids;
  ids.set_data_type(onnx::TensorProto::INT64);
  ids.add_dims(3);
  for (int64_t id : {7, 0, 16777216}) ids.add_int64_data(id);
  read = ParseOnnxTensor(ids.SerializeAsString(), "t.pb");
  EXPECT_EQ(read.values, (std::vector<float>{7, 0, 16777216}));
  onnx::TensorProto short_data = f;
  short_data.set_raw_data(short_data.raw_data().substr(0, 12));
  EXPECT_NE(error_of(short_data.SerializeAsString())
                .find("t.pb: field 'data': its data does not hold the 4 elements its dims declare"),
            std::string::npos)
      << error_of(short_data.SerializeAsString());
  onnx::TensorProto text = f;
  text.set_data_type(onnx::TensorProto::STRING);
  EXPECT_NE(error_of(text.SerializeAsString()).find("element type 8 is not read"),
            std::string::npos);
  onnx::TensorProto external = f;
  external.set_data_location(onnx::TensorProto::EXTERNAL);
  EXPECT_NE(error_of(external.SerializeAsString()).find("external file"), std::string::npos);
  onnx::TensorProto huge = f;
  huge.add_dims(int64_t{1} << 41);
  EXPECT_NE(error_of(huge.SerializeAsString()).find("impossible dimension"), std::string::npos);
  EXPECT_NE(error_of("not a protobuf at all").find("not an ONNX TensorProto"), std::string::npos);
}

}  // namespace
}  // namespace ntpb::testing
