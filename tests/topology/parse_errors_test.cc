// Bad input: every case is rejected before allocation with one line naming file, layer, field.
#include <gtest/gtest.h>

#include <fstream>

#include "ntpbench/error.h"
#include "ntpbench/json_format.h"
#include "ntpbench/resolve.h"
#include "tests/test_util.h"

namespace ntpb::testing {
namespace {

struct BadCase {
  std::string label;
  std::string json;
  std::string layer;
  std::string field;
  std::string message;  // a substring of the message
};

std::ostream& operator<<(std::ostream& os, const BadCase& c) { return os << c.label; }

// A valid topology whose layers are `layers` (a JSON array body).
std::string WithLayers(const std::string& layers, const std::string& extra = "") {
  return R"({"name": "bad", "params": {"h": 4},
             "inputs": [{"name": "x", "shape": ["N", 3, 8, 8]}],
             "layers": [)" +
         layers + "]" + extra + "}";
}

const std::vector<BadCase>& Cases() {
  static const std::vector<BadCase> cases = {
      {"malformed_json", R"({"name": "bad", "layers": [})", "", "", "malformed JSON"},
      {"not_an_object", R"([1, 2])", "", "", "expected a JSON object"},
      {"unknown_top_level_field", R"({"name": "x", "layerz": []})", "", "layerz",
       "unknown top-level field"},
      {"missing_name", R"({"inputs": [], "layers": []})", "", "name", "missing required field"},
      {"integers_not_a_range",
       R"({"name": "x", "inputs": [{"name": "ids", "shape": [4], "integers": 100}], "layers": []})",
       "", "inputs[0].integers", "expected [low, high]"},
      {"integers_empty_range",
       R"({"name": "x", "inputs": [{"name": "ids", "shape": [4], "integers": [5, 5]}],)"
       R"( "layers": []})",
       "", "inputs[0].integers", "expected low < high"},
      {"integers_beyond_float_exactness",
       R"({"name": "x", "inputs": [{"name": "ids", "shape": [4], "integers": [0, 16777217]}],)"
       R"( "layers": []})",
       "", "inputs[0].integers", "a float holds exactly"},
      {"unknown_input_field",
       R"({"name": "x", "inputs": [{"name": "ids", "shape": [4], "range": [0, 3]}],)"
       R"( "layers": []})",
       "", "inputs[0].range", "unknown field"},
      {"missing_layers", R"({"name": "x", "inputs": [{"name": "x", "shape": [1]}]})", "", "layers",
       "missing required field"},
      {"unknown_op", WithLayers(R"({"name": "c1", "op": "convolution2d"})"), "c1", "op",
       "unknown op 'convolution2d'"},
      {"missing_attribute", WithLayers(R"({"name": "c1", "op": "conv2d", "kernel": 3})"), "c1",
       "filters", "missing required attribute"},
      {"unknown_attribute",
       WithLayers(R"({"name": "c1", "op": "conv2d", "filters": 4, "kernel": 3, "strides": 2})"),
       "c1", "strides", "unknown attribute for op 'conv2d'"},
      // Found by the JSON fuzzer: "same" padding divided by a zero stride.
      {"zero_stride_same_padding",
       WithLayers(
           R"({"name": "c1", "op": "conv2d", "filters": 4, "kernel": 3, "stride": 0, "padding": "same"})"),
       "c1", "stride", "stride values must be between 1 and"},
      {"absurd_dilation",
       WithLayers(
           R"({"name": "c1", "op": "conv2d", "filters": 4, "kernel": 3, "dilation": 4611686018427387904})"),
       "c1", "dilation", "value 4611686018427387904 is out of range"},
      {"wrong_type_bool",
       WithLayers(R"({"name": "f", "op": "flatten"}, {"name": "d", "op": "dense", "units": true})"),
       "d", "units", "expected an integer or an expression string, got true"},
      {"wrong_type_enum",
       WithLayers(
           R"({"name": "f", "op": "flatten"}, {"name": "d", "op": "dense", "units": 2, "activation": "swish"})"),
       "d", "activation", "expected one of: none, relu"},
      {"wrong_type_inputs", WithLayers(R"({"name": "r", "op": "relu", "inputs": "x"})"), "r",
       "inputs", "expected an array of tensor names"},
      {"wrong_input_count", WithLayers(R"({"name": "a", "op": "add"})"), "a", "inputs",
       "takes 2 input(s), got 1"},
      {"duplicate_layer", WithLayers(R"({"name": "r", "op": "relu"}, {"name": "r", "op": "relu"})"),
       "r", "name", "duplicate layer name"},
      {"unknown_tensor", WithLayers(R"({"name": "r", "op": "relu", "inputs": ["x2"]})"), "r",
       "inputs", "unknown tensor 'x2'"},
      {"cycle",
       WithLayers(
           R"({"name": "a", "op": "add", "inputs": ["x", "b"]}, {"name": "b", "op": "relu", "inputs": ["a"]})"),
       "a", "inputs", "cycle"},
      {"mismatched_shapes",
       WithLayers(
           R"({"name": "p", "op": "max_pool", "kernel": 2}, {"name": "a", "op": "add", "inputs": ["x", "p"]})"),
       "a", "inputs", "do not broadcast"},
      {"channels_not_divisible",
       WithLayers(R"({"name": "c", "op": "conv2d", "filters": 4, "kernel": 3, "groups": 2})"), "c",
       "groups", "3 input channels are not divisible by 2 groups"},
      {"kernel_larger_than_input",
       WithLayers(R"({"name": "c", "op": "conv2d", "filters": 4, "kernel": 9})"), "c", "kernel",
       "does not fit"},
      {"zero_size", WithLayers(R"({"name": "c", "op": "conv2d", "filters": "h - 4", "kernel": 3})"),
       "c", "filters", "must be positive, got 0"},
      {"negative_size",
       WithLayers(R"({"name": "f", "op": "flatten"}, {"name": "d", "op": "dense", "units": -3})"),
       "d", "units", "must be positive, got -3"},
      {"attention_heads_not_dividing_width",
       WithLayers(
           R"({"name": "r", "op": "reshape", "shape": ["N", 24, 8]}, {"name": "a", "op": "attention", "inputs": ["r", "r", "r"], "heads": 3})"),
       "a", "heads", "3 heads do not divide the query width 8"},
      {"attention_kv_heads_not_dividing_heads",
       WithLayers(
           R"({"name": "r", "op": "reshape", "shape": ["N", 24, 8]}, {"name": "a", "op": "attention", "inputs": ["r", "r", "r"], "heads": 4, "kv_heads": 3})"),
       "a", "kv_heads", "3 key/value heads do not divide the 4 query heads"},
      {"attention_causal_more_queries_than_keys",
       WithLayers(
           R"({"name": "r", "op": "reshape", "shape": ["N", 24, 8]}, {"name": "k", "op": "slice", "axis": 1, "start": 0, "size": 4}, {"name": "a", "op": "attention", "inputs": ["r", "k", "k"], "heads": 2, "causal": true})"),
       "a", "causal", "needs at least as many keys as queries"},
      {"rotary_odd_head_size",
       WithLayers(
           R"({"name": "r", "op": "reshape", "shape": ["N", 24, 8]}, {"name": "p", "op": "rotary", "heads": 8})"),
       "p", "heads", "the head size 1 is odd"},
      {"negative_input_dim",
       R"({"name": "bad", "inputs": [{"name": "x", "shape": ["N", -2]}], "layers": [{"name": "r", "op": "relu"}]})",
       "", "inputs.x.shape", "dimensions must be positive"},
      {"unknown_param",
       WithLayers(
           R"({"name": "f", "op": "flatten"}, {"name": "d", "op": "dense", "units": "2*n_hiden"})"),
       "d", "units", "unknown param 'n_hiden'"},
      {"bad_expression",
       WithLayers(R"({"name": "f", "op": "flatten"}, {"name": "d", "op": "dense", "units": "2*"})"),
       "d", "units", "unexpected end"},
      {"weights_over_limit",
       WithLayers(
           R"({"name": "f", "op": "flatten"}, {"name": "d", "op": "dense", "units": 1000000000})"),
       "d", "weights", "over the limit of 8589934592 bytes"},
      {"activation_over_limit",
       R"({"name": "bad", "inputs": [{"name": "x", "shape": [100000, 100000, 100]}], "layers": [{"name": "r", "op": "relu"}]})",
       "", "inputs.x.shape", "over the activation limit"},
      {"reshape_impossible", WithLayers(R"({"name": "r", "op": "reshape", "shape": [5, -1]})"), "r",
       "shape", "cannot reshape"},
      {"transpose_not_a_permutation",
       WithLayers(R"({"name": "t", "op": "transpose", "perm": [0, 1, 1, 2]})"), "t", "perm",
       "is not a permutation"},
      {"softmax_bad_axis", WithLayers(R"({"name": "s", "op": "softmax", "axis": 4})"), "s", "axis",
       "out of range"},
      {"lstm_wrong_rank", WithLayers(R"({"name": "l", "op": "lstm", "units": 4})"), "l", "inputs",
       "needs an [N, T, C] input"},
      {"two_outputs_of_a_one_output_op",
       WithLayers(R"({"name": "r", "op": "relu", "outputs": ["a", "b"]})"), "r", "outputs",
       "op 'relu' has exactly one output, got 2"},
      {"lstm_three_outputs",
       WithLayers(
           R"({"name": "r", "op": "reshape", "shape": ["N", 8, 24]}, {"name": "l", "op": "lstm", "units": 4, "outputs": ["y", "c", "z"]})"),
       "l", "outputs", "op 'lstm' has 1 to 2 outputs, got 3"},
      {"param_not_integer", R"({"name": "bad", "params": {"h": 1.5}, "inputs": [], "layers": []})",
       "", "params.h", "expected an integer"},
      {"output_unknown", WithLayers(R"({"name": "r", "op": "relu"})", R"(, "outputs": ["nope"])"),
       "", "outputs", "unknown tensor 'nope'"},
      {"marker_unknown_layer",
       WithLayers(R"({"name": "r", "op": "relu"})",
                  R"(, "markers": [{"name": "m", "start": "r", "end": "zz"}])"),
       "", "markers.m.end", "no layer named 'zz'"},
      {"marker_start_after_end",
       WithLayers(R"({"name": "a", "op": "relu"}, {"name": "b", "op": "relu"})",
                  R"(, "markers": [{"name": "m", "start": "b", "end": "a"}])"),
       "", "markers.m", "runs after end layer"},
      {"marker_named_net",
       WithLayers(R"({"name": "a", "op": "relu"})",
                  R"(, "markers": [{"name": "net", "start": "a", "end": "a"}])"),
       "", "markers.net", "'net' is ntpbench's own region name"},
      {"marker_named_like_a_layer_region",
       WithLayers(R"({"name": "a", "op": "relu"})",
                  R"(, "markers": [{"name": "layer.a", "start": "a", "end": "a"}])"),
       "", "markers.layer.a", "'layer' is ntpbench's own region name"},
      {"markers_overlap",
       WithLayers(
           R"({"name": "a", "op": "relu"}, {"name": "b", "op": "relu"}, {"name": "c", "op": "relu"})",
           R"(, "markers": [{"name": "m1", "start": "a", "end": "b"}, {"name": "m2", "start": "b", "end": "c"}])"),
       "", "markers.m2", "overlaps marker 'm1'"},
      {"version_unsupported", R"({"version": 2, "name": "x"})", "", "version",
       "unsupported format version 2"},
      // Shapes within every limit whose cost still passes 2^63: an 8 GiB output from a 2^31
      // element kernel (padding makes a 1x1 input that large) once inspected as negative FLOPs.
      {"conv_flops_overflow",
       R"({"name": "bad", "inputs": [{"name": "x", "shape": [1, 1, 1, 1]}], "layers": [)"
       R"({"name": "c", "op": "conv2d", "filters": 1, "kernel": [65536, 32768],)"
       R"( "padding": [65535, 32767], "bias": false}]})",
       "c", "flops", "the layer's FLOPs (about 9.22e+18) exceed a 64-bit count"},
      {"pool_flops_overflow",
       R"({"name": "bad", "inputs": [{"name": "x", "shape": [1, 1, 1, 1]}], "layers": [)"
       R"({"name": "p", "op": "max_pool", "kernel": 16777216, "stride": 1,)"
       R"( "padding": 8404991}]})",
       "p", "flops", "the layer's FLOPs (about 3.02e+23) exceed a 64-bit count"},
      // Each layer fits (2^62 FLOPs), their sum does not.
      {"topology_flops_overflow",
       R"({"name": "bad", "inputs": [{"name": "x", "shape": [1, 1, 1, 1]}], "layers": [)"
       R"({"name": "a", "op": "conv2d", "inputs": ["x"], "filters": 1, "kernel": 32768,)"
       R"( "padding": [49151, 32767], "bias": false},)"
       R"({"name": "b", "op": "conv2d", "inputs": ["x"], "filters": 1, "kernel": 32768,)"
       R"( "padding": [49151, 32767], "bias": false}]})",
       "b", "flops", "the topology's FLOPs up to this layer (about 9.22e+18) exceed"},
  };
  return cases;
}

class BadTopology : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadTopology, IsRejectedWithFileLayerAndField) {
  const BadCase& c = GetParam();
  try {
    Resolve(ParseTopologyJson(c.json, "bad.json"), {});
    FAIL() << "accepted: " << c.label;
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.file(), "bad.json") << what;
    EXPECT_EQ(e.layer(), c.layer) << what;
    EXPECT_EQ(e.field(), c.field) << what;
    EXPECT_NE(e.message().find(c.message), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << "one line: " << what;
    EXPECT_EQ(what.rfind("bad.json: ", 0), 0u) << what;
  }
}

INSTANTIATE_TEST_SUITE_P(All, BadTopology, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<BadCase>& info) {
                           return info.param.label;
                         });

// Found by fuzz_json_reader: a number too large for a double once escaped as a JSON library
// exception instead of ntpb::Error.
TEST(BadTopologyFile, NumberOverflowIsMalformedJson) {
  try {
    ParseTopologyJson("2e422", "big.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("big.json: malformed JSON: number overflow"),
              std::string::npos)
        << e.what();
  }
}

TEST(BadTopologyFile, MissingDirectoryAndOversizedFilesNameThePath) {
  try {
    ReadTopologyJsonFile(MissingPath("t.json"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              MissingPath("t.json") + ": cannot read: No such file or directory");
  }
  EXPECT_THROW(ReadTopologyJsonFile(TestDir()), Error);
  const std::string big = TestDir() + "/ntpb_big.json";
  {
    std::ofstream out(big);
    out << std::string(kMaxTopologyFileBytes + 1, ' ');
  }
  try {
    ReadTopologyJsonFile(big);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("over the limit"), std::string::npos) << e.what();
  }
  std::remove(big.c_str());
}

TEST(BadTopologyFile, WeightLimitIsConfigurable) {
  const Topology t = ParseTopologyJson(
      WithLayers(R"({"name": "f", "op": "flatten"}, {"name": "d", "op": "dense", "units": 1000})"),
      "t.json");
  EXPECT_NO_THROW(Resolve(t, {}));
  ResolveLimits tight;
  tight.max_weight_bytes = 1000;
  EXPECT_THROW(Resolve(t, {}, tight), Error);
}

TEST(BadTopologyFile, UnknownOverrideIsAnError) {
  const Topology t = ParseTopologyJson(WithLayers(R"({"name": "r", "op": "relu"})"), "t.json");
  try {
    Resolve(t, {{"n_hiden", 3}});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot set unknown param 'n_hiden' (params: h, N, T)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(Resolve(t, {{"N", 0}}), Error);
}

}  // namespace
}  // namespace ntpb::testing
