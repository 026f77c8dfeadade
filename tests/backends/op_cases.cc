#include "tests/backends/op_cases.h"

#include "tests/test_util.h"

namespace ntpb::testing {

using nlohmann::json;

const std::vector<OpCase>& OpCases() {
  static const std::vector<OpCase> cases = {
      {"dense", "dense", {{3, 7}}, {{"units", 5}}},
      {"dense_3d_relu", "dense", {{2, 4, 6}}, {{"units", 3}, {"activation", "relu"}}},
      {"dense_clipped",
       "dense",
       {{2, 6}},
       {{"units", 4}, {"activation", "clipped_relu"}, {"clip", 0.1}}},
      {"dense_nobias_gelu",
       "dense",
       {{2, 5}},
       {{"units", 4}, {"bias", false}, {"activation", "gelu"}}},
      {"dense_sigmoid", "dense", {{2, 5}}, {{"units", 4}, {"activation", "sigmoid"}}},
      {"dense_tanh", "dense", {{2, 5}}, {{"units", 4}, {"activation", "tanh"}}},
      // Wide enough for the column-split multiply of few-row products (2 threads).
      {"dense_wide_columns_split", "dense", {{2, 20}}, {{"units", 301}, {"activation", "tanh"}}},
      // Rows over several 8-row blocks and columns over several 32-column panels, both ending
      // in a partial one (the OpenCL backend's packed GEMM on a CPU device).
      {"dense_row_blocks_and_panels", "dense", {{19, 33}}, {{"units", 70}}},
      {"matmul", "matmul", {{2, 3, 4}, {2, 4, 5}}, {}},
      {"matmul_shared_rhs", "matmul", {{2, 3, 4}, {4, 2}}, {}},
      {"conv2d", "conv2d", {{2, 3, 7, 6}}, {{"filters", 4}, {"kernel", 3}, {"padding", 1}}},
      {"conv2d_stride_dilation",
       "conv2d",
       {{1, 2, 9, 9}},
       {{"filters", 3}, {"kernel", 3}, {"stride", 2}, {"dilation", 2}, {"padding", {2, 1}}}},
      {"conv2d_rect_kernel",
       "conv2d",
       {{1, 2, 6, 8}},
       {{"filters", 2}, {"kernel", {1, 3}}, {"padding", {0, 1, 0, 2}}, {"activation", "relu"}}},
      {"conv2d_grouped", "conv2d", {{2, 4, 5, 5}}, {{"filters", 6}, {"kernel", 3}, {"groups", 2}}},
      {"conv2d_depthwise",
       "conv2d",
       {{2, 4, 6, 6}},
       {{"filters", 4}, {"kernel", 3}, {"groups", 4}, {"padding", 1}, {"stride", 2}}},
      {"conv2d_depthwise_multiplier",
       "conv2d",
       {{1, 3, 5, 5}},
       {{"filters", 6},
        {"kernel", 3},
        {"groups", 3},
        {"bias", false},
        {"activation", "clipped_relu"},
        {"clip", 0.2}}},
      {"conv2d_depthwise_dilated_padded",
       "conv2d",
       {{1, 2, 9, 8}},
       {{"filters", 2},
        {"kernel", 3},
        {"groups", 2},
        {"dilation", 2},
        {"stride", {1, 3}},
        {"padding", {1, 2, 0, 3}}}},
      // Padding wider than the kernel's reach: some taps see no valid column at all.
      {"conv2d_depthwise_wide_padding",
       "conv2d",
       {{1, 1, 3, 2}},
       {{"filters", 1}, {"kernel", {1, 4}}, {"stride", {1, 2}}, {"padding", {0, 0, 0, 5}}}},
      {"conv2d_pointwise", "conv2d", {{2, 5, 4, 4}}, {{"filters", 3}, {"kernel", 1}}},
      {"conv2d_same",
       "conv2d",
       {{1, 2, 7, 7}},
       {{"filters", 2}, {"kernel", 4}, {"stride", 2}, {"padding", "same"}}},
      {"max_pool", "max_pool", {{2, 3, 7, 7}}, {{"kernel", 3}, {"stride", 2}, {"padding", 1}}},
      {"max_pool_default_stride", "max_pool", {{1, 2, 6, 6}}, {{"kernel", 2}}},
      {"avg_pool", "avg_pool", {{2, 3, 7, 7}}, {{"kernel", 3}, {"stride", 2}, {"padding", 1}}},
      {"avg_pool_include_pad",
       "avg_pool",
       {{1, 2, 5, 5}},
       {{"kernel", 3}, {"stride", 1}, {"padding", 1}, {"count_include_pad", true}}},
      {"global_avg_pool", "global_avg_pool", {{2, 3, 4, 5}}, {}},
      {"batchnorm", "batchnorm", {{2, 3, 4, 4}}, {}},
      {"batchnorm_2d", "batchnorm", {{4, 6}}, {{"epsilon", 0.001}}},
      // Planes of 9: the OpenCL kernel's chunks of 16 cross channels and images.
      {"batchnorm_odd_planes", "batchnorm", {{2, 5, 3, 3}}, {}},
      {"layernorm", "layernorm", {{2, 3, 8}}, {}},
      {"rms_norm", "rms_norm", {{2, 3, 8}}, {}},
      // Rows wider than four times a norm's work-group with a tail: the OpenCL kernels' loads
      // four at a time, then one at a time.
      {"layernorm_wide", "layernorm", {{2, 1000}}, {}},
      {"rms_norm_wide", "rms_norm", {{3, 1100}}, {}},
      {"swiglu", "swiglu", {{2, 3, 10}}, {}},
      {"swiglu_gelu", "swiglu", {{3, 8}}, {{"activation", "gelu"}}},
      {"attention", "attention", {{2, 3, 8}, {2, 3, 8}, {2, 3, 8}}, {{"heads", 2}}},
      // Causal with fewer queries than keys: the queries are the last positions (a decode step
      // over a cache), each seeing the keys up to its own.
      {"attention_causal_cached",
       "attention",
       {{2, 2, 8}, {2, 5, 8}, {2, 5, 8}},
       {{"heads", 2}, {"causal", true}}},
      // Grouped-query heads (4 query heads share 2 key/value heads) and a value width of its own.
      {"attention_grouped_query",
       "attention",
       {{1, 4, 16}, {1, 6, 8}, {1, 6, 6}},
       {{"heads", 4}, {"kv_heads", 2}, {"causal", true}}},
      // 40 queries after 8 cached keys: causal blocks of 16 queries on oneDNN, each over the
      // keys up to its last query (24, 40 and 48 keys).
      {"attention_causal_blocks",
       "attention",
       {{1, 40, 16}, {1, 48, 16}, {1, 48, 16}},
       {{"heads", 2}, {"causal", true}}},
      {"attention_multi_query",
       "attention",
       {{2, 3, 12}, {2, 3, 4}, {2, 3, 4}},
       {{"heads", 3}, {"kv_heads", 1}, {"scale", 0.3}}},
      // A padding mask of random 0/1 per key: some queries see no key at all (zeros).
      {"attention_padding_mask",
       "attention",
       {{2, 3, 8}, {2, 4, 8}, {2, 4, 8}, {2, 4}},
       {{"heads", 2}},
       false,
       {{3, {0, 2}}}},
      // A fresh cache: the rows before `past` are zeros, the input's rows follow them.
      {"kv_cache", "kv_cache", {{2, 3, 8}}, {}},
      {"kv_cache_past", "kv_cache", {{2, 3, 8}}, {{"past", 4}}},
      {"rotary", "rotary", {{2, 3, 8}}, {{"heads", 2}}},
      {"rotary_interleaved_offset",
       "rotary",
       {{1, 4, 12}},
       {{"heads", 2}, {"style", "interleaved"}, {"offset", 7}, {"base", 500.0}}},
      {"relu", "relu", {{2, 9}}, {}},
      {"clipped_relu", "clipped_relu", {{2, 9}}, {{"clip", 0.5}}},
      {"sigmoid", "sigmoid", {{3, 4}}, {}},
      {"tanh", "tanh", {{3, 4}}, {}},
      {"gelu", "gelu", {{3, 4}}, {}},
      {"gelu_tanh", "gelu", {{3, 4}}, {{"approximate", "tanh"}}},
      {"softmax", "softmax", {{3, 5}}, {}},
      {"softmax_axis1", "softmax", {{2, 4, 3}}, {{"axis", 1}}},
      {"add", "add", {{2, 3, 4}, {2, 3, 4}}, {}},
      {"add_broadcast", "add", {{2, 3, 4}, {3, 1}}, {}},
      {"sub", "sub", {{2, 3, 4}, {2, 3, 4}}, {}},
      {"sub_broadcast", "sub", {{3, 1}, {2, 3, 4}}, {}},
      {"div", "div", {{2, 5}, {2, 5}}, {}},
      {"div_broadcast", "div", {{2, 1, 4}, {3, 1}}, {}},
      {"leaky_relu", "leaky_relu", {{2, 9}}, {{"alpha", 0.2}}},
      {"slice", "slice", {{2, 7, 3}}, {{"axis", 1}, {"start", 2}, {"size", 4}}},
      {"slice_last_axis", "slice", {{2, 3, 5}}, {{"axis", -1}, {"start", 4}, {"size", 1}}},
      {"constant", "constant", {}, {{"shape", {2, 3}}}},
      {"mul", "mul", {{2, 5}, {2, 5}}, {}},
      {"mul_broadcast", "mul", {{2, 1, 4}, {3, 1}}, {}},
      {"concat", "concat", {{2, 3, 4}, {2, 2, 4}}, {}},
      {"concat_last_axis", "concat", {{2, 3}, {2, 1}, {2, 2}}, {{"axis", -1}}},
      {"reshape", "reshape", {{2, 3, 4}}, {{"shape", {4, -1}}}},
      {"flatten", "flatten", {{2, 3, 2, 2}}, {}},
      {"transpose", "transpose", {{2, 3, 4}}, {{"perm", {2, 0, 1}}}},
      {"transpose_unit_axes_view", "transpose", {{1, 3, 1, 4}}, {{"perm", {1, 2, 0, 3}}}},
      {"transpose_past_unit_axis", "transpose", {{1, 3, 4}}, {{"perm", {0, 2, 1}}}},
      // The last axis kept (a transformer's heads): the onednn backend copies whole rows.
      {"transpose_rows", "transpose", {{2, 3, 4, 5}}, {{"perm", {0, 2, 1, 3}}}},
      {"transpose_rows_outer", "transpose", {{3, 4, 2, 5}}, {{"perm", {2, 0, 1, 3}}}},
      {"lstm", "lstm", {{2, 4, 3}}, {{"units", 5}}},
      {"lstm_reverse", "lstm", {{1, 3, 4}}, {{"units", 2}, {"direction", "reverse"}}},
      {"lstm_bidirectional", "lstm", {{2, 5, 3}}, {{"units", 4}, {"direction", "bidirectional"}}},
      {"lstm_wide_columns_split",
       "lstm",
       {{2, 3, 5}},
       {{"units", 40}, {"direction", "bidirectional"}}},
      // Initial states as inputs ([dirs, N, H]): h0 and c0, h0 alone (c0 zeros), both ways.
      {"lstm_initial_states", "lstm", {{2, 4, 3}, {1, 2, 5}, {1, 2, 5}}, {{"units", 5}}},
      {"lstm_bidirectional_initial_h",
       "lstm",
       {{2, 5, 3}, {2, 2, 4}},
       {{"units", 4}, {"direction", "bidirectional"}}},
      {"lstm_reverse_initial_states",
       "lstm",
       {{1, 3, 4}, {1, 1, 2}, {1, 1, 2}},
       {{"units", 2}, {"direction", "reverse"}}},
      // The final cell state as a second output: from zeros, from given states, each direction.
      {"lstm_final_cell", "lstm", {{2, 4, 3}}, {{"units", 5}}, false, {}, 2},
      {"lstm_reverse_final_cell",
       "lstm",
       {{1, 3, 4}},
       {{"units", 2}, {"direction", "reverse"}},
       false,
       {},
       2},
      {"lstm_bidirectional_initial_states_final_cell",
       "lstm",
       {{2, 5, 3}, {2, 2, 4}, {2, 2, 4}},
       {{"units", 4}, {"direction", "bidirectional"}},
       false,
       {},
       2},
      {"gru_initial_state", "gru", {{2, 4, 3}, {1, 2, 5}}, {{"units", 5}}},
      {"gru_bidirectional_initial_state",
       "gru",
       {{2, 3, 3}, {2, 2, 2}},
       {{"units", 2}, {"direction", "bidirectional"}}},
      {"gru", "gru", {{2, 4, 3}}, {{"units", 5}}},
      {"gru_reverse", "gru", {{1, 3, 2}}, {{"units", 3}, {"direction", "reverse"}}},
      {"gru_bidirectional", "gru", {{2, 3, 3}}, {{"units", 2}, {"direction", "bidirectional"}}},
      {"gru_wide_columns_split", "gru", {{1, 3, 4}}, {{"units", 50}}},
      {"hard_sigmoid", "hard_sigmoid", {{2, 9}}, {{"alpha", 0.6}, {"beta", 0.4}}},
      {"hard_swish", "hard_swish", {{3, 3, 2, 2}}, {}},
      {"swish", "swish", {{2, 9}}, {}},
      {"sqrt", "sqrt", {{2, 9}}, {}, true},
      {"exp", "exp", {{2, 9}}, {}},
      {"pow_square", "pow", {{2, 9}}, {{"exponent", 2.0}}},
      {"pow_fractional", "pow", {{2, 9}}, {{"exponent", 1.5}}, true},
      {"conv_transpose",
       "conv_transpose",
       {{2, 3, 4, 3}},
       {{"filters", 4}, {"kernel", 2}, {"stride", 2}}},
      {"conv_transpose_padded_grouped",
       "conv_transpose",
       {{1, 4, 3, 3}},
       {{"filters", 6},
        {"kernel", 3},
        {"stride", 2},
        {"padding", 1},
        {"output_padding", 1},
        {"groups", 2},
        {"bias", false}}},
      {"conv_transpose_dilated",
       "conv_transpose",
       {{1, 2, 4, 4}},
       {{"filters", 3}, {"kernel", {2, 3}}, {"dilation", 2}, {"padding", {0, 1, 1, 0}}}},
      {"max_pool_ceil_mode",
       "max_pool",
       {{1, 2, 8, 7}},
       {{"kernel", 3}, {"stride", 2}, {"ceil_mode", true}}},
      {"avg_pool_ceil_mode_padded",
       "avg_pool",
       {{1, 2, 6, 6}},
       {{"kernel", 3}, {"stride", 2}, {"padding", 1}, {"ceil_mode", true}}},
      {"reduce_mean_spatial",
       "reduce_mean",
       {{2, 3, 4, 5}},
       {{"axes", {2, 3}}, {"keepdims", false}}},
      {"reduce_mean_last", "reduce_mean", {{2, 3, 8}}, {{"axes", {-1}}}},
      {"reduce_sum_split_axes", "reduce_sum", {{2, 3, 4}}, {{"axes", {0, 2}}}},
      {"reduce_max", "reduce_max", {{2, 5, 3}}, {{"axes", {1}}, {"keepdims", false}}},
      {"pad", "pad", {{2, 3, 4}}, {{"pads", {0, 1, 2, 0, 2, 1}}}},
      {"pad_nchw_value",
       "pad",
       {{1, 2, 3, 3}},
       {{"pads", {0, 0, 1, 0, 0, 0, 2, 1}}, {"value", -1.5}}},
      {"resize_nearest_x2",
       "resize",
       {{1, 2, 3, 4}},
       {{"size", {6, 8}}, {"coordinates", "asymmetric"}, {"nearest_rounding", "floor"}}},
      {"resize_nearest_fractional",
       "resize",
       {{1, 2, 4, 5}},
       {{"size", {6, 3}}, {"coordinates", "half_pixel"}}},
      {"resize_linear_half_pixel",
       "resize",
       {{2, 2, 3, 4}},
       {{"size", {6, 8}}, {"mode", "linear"}}},
      {"resize_linear_align_corners",
       "resize",
       {{1, 3, 4, 3}},
       {{"size", {7, 5}}, {"mode", "linear"}, {"coordinates", "align_corners"}}},
      {"resize_linear_down",
       "resize",
       {{1, 1, 6, 6}},
       {{"size", {4, 3}}, {"mode", "linear"}, {"coordinates", "pytorch_half_pixel"}}},
      {"embedding", "embedding", {{2, 5}}, {{"vocab", 7}, {"dim", 3}}, false, {{0, {0, 7}}}},
      // ONNX Gather counts negative ids from the end.
      {"embedding_negative_ids",
       "embedding",
       {{3, 2, 2}},
       {{"vocab", 4}, {"dim", 5}},
       false,
       {{0, {-4, 4}}}},
      // Small integers, so that equal values occur; broadcasting both ways round (oneDNN's
      // binary broadcasts its second operand only: the first is swapped in).
      {"equal", "equal", {{2, 3, 4}, {3, 1}}, {}, false, {{0, {0, 3}}, {1, {0, 3}}}},
      {"equal_first_broadcast", "equal", {{4}, {2, 3, 4}}, {}, false, {{0, {0, 3}}, {1, {0, 3}}}},
      {"less", "less", {{2, 3, 4}, {3, 1}}, {}},
      {"less_first_broadcast", "less", {{1, 4}, {2, 3, 4}}, {}},
      {"greater", "greater", {{2, 5}, {2, 5}}, {}, false, {{0, {-2, 2}}, {1, {-2, 2}}}},
      {"greater_first_broadcast", "greater", {{3, 1}, {2, 3, 4}}, {}},
      {"where", "where", {{2, 1, 4}, {2, 3, 4}, {1}}, {}, false, {{0, {0, 2}}}},
      {"where_all_broadcast", "where", {{3, 1}, {1, 4}, {2, 1, 1}}, {}, false, {{0, {0, 2}}}},
      // Random inputs read as log-probabilities; a beam wide enough that the search is exact
      // (the naive reference enumerates every path).
      {"ctc_beam_decoder",
       "ctc_beam_decoder",
       {{4, 2, 3}},
       {{"beam_width", 64}, {"log_probs", true}}},
      {"ctc_beam_decoder_ntc_blank_first",
       "ctc_beam_decoder",
       {{2, 5, 3}},
       {{"beam_width", 64}, {"log_probs", true}, {"layout", "ntc"}, {"blank", 0}}},
      // 2 items of 100 ms at 8 kHz: 5 frames of 25 ms (200 samples) every 15 ms.
      {"mfcc",
       "mfcc",
       {{2, 800}},
       {{"sample_rate", 8000}, {"step_ms", 15}, {"mels", 12}, {"cepstra", 8}, {"high_hz", 4000.0}}},
      {"mfcc_normalized", "mfcc", {{1, 1600}}, {{"normalize", true}}},
      {"context_window", "context_window", {{2, 5, 3}}, {{"context", 2}}},
      {"expand", "expand", {{2, 1, 4}}, {{"shape", {3, 2, 3, 4}}}},
      {"expand_ones_keep", "expand", {{3, 1}}, {{"shape", {1, 1, 5}}}},
      {"copy", "copy", {{2, 7}}, {}},
      {"reorder", "reorder", {{1, 2, 3, 3}}, {{"layout", "nhwc"}}},
  };
  return cases;
}

std::vector<std::string> OpCaseOutputs(const OpCase& c) {
  std::vector<std::string> names = {"y"};
  for (int i = 1; i < c.outputs; ++i) names.push_back("y_" + std::to_string(i));
  return names;
}

Topology OpCaseTopology(const OpCase& c) {
  Topology t = SingleLayer(c.op, c.inputs, c.attrs);
  t.layers[0].outputs = t.outputs = OpCaseOutputs(c);
  for (const auto& [index, range] : c.integer_inputs) {
    t.inputs.at(index).integers =
        IntegerBounds{std::to_string(range.low), std::to_string(range.high)};
  }
  if (!c.nonnegative_inputs) return t;
  std::vector<Layer> squares;
  for (std::string& input : t.layers[0].inputs) {
    Layer square;
    square.name = input + ".square";
    square.op = "pow";
    square.inputs = {input};
    input += ".squared";
    square.outputs = {input};
    square.attrs = {{"exponent", 2.0}};
    squares.push_back(square);
  }
  t.layers.insert(t.layers.begin(), squares.begin(), squares.end());
  return t;
}

const std::vector<TopologyCase>& ShippedTopologyCases() {
  static const std::vector<TopologyCase> cases = {
      {"tiny_cnn.json", {{"N", 2}}},
      {"mlp.json", {{"N", 3}, {"n_hidden", 32}}},
      {"deepspeech.json", {{"N", 2}, {"T", 4}, {"n_hidden", 16}}},
      // Audio through the MFCC front end gives features with heavier tails than the random
      // normal inputs of the other topologies (normalised coefficients reach 4 sigma; the context
      // window's zero rows): per-tensor u8 scales reach 2.3% max relative error at fc1 (VNNI).
      {"deepspeech_e2e.json", {{"N", 2}, {"seconds", 1}, {"n_hidden", 16}, {"beam", 4}}, "", 1.5},
      {"mobilenet_v2.json", {{"size", 32}, {"n_classes", 10}}},
      {"resnet50.json", {{"size", 32}, {"n_classes", 10}}},
      // One param switches the backbone's convolutions (layers' `when`): each type once. With 8
      // channels the depthwise-separable case has strided 1x1 convolutions of 8 channels, which
      // oneDNN 2.6's AVX2 int8 kernel got wrong (onednn/known_defects.h).
      {"backbone.json", {{"size", 32}, {"width", 8}, {"kernel", 5}, {"conv_type", 0}}, "standard"},
      {"backbone.json",
       {{"N", 2}, {"size", 32}, {"width", 8}, {"kernel", 3}, {"conv_type", 1}},
       "depthwise_separable"},
      {"backbone.json",
       {{"size", 32}, {"width", 8}, {"kernel", 3}, {"conv_type", 2}, {"groups", 4}},
       "grouped"},
      // The transformers at toy sizes, two blocks of each (the others left out by `layers`). In
      // i8 the error of 4-6 quantized products per block compounds through the residual stream
      // and each normalisation rescales it: with VNNI 2.0-2.3% after two blocks (norm_f), the same
      // to 4 digits on onednn and opencl (the same integer scheme); oneDNN's AVX2 path 5.2%.
      {"bert.json",
       {{"N", 2},
        {"seq", 8},
        {"hidden", 32},
        {"heads", 4},
        {"ffn", 64},
        {"vocab", 50},
        {"layers", 2}},
       "",
       1.5},
      {"gpt2.json",
       {{"N", 2},
        {"prompt", 8},
        {"hidden", 32},
        {"heads", 4},
        {"ffn", 64},
        {"vocab", 50},
        {"layers", 2}},
       "",
       1.5},
      {"llama.json",
       {{"N", 2},
        {"prompt", 8},
        {"hidden", 32},
        {"heads", 4},
        {"kv_heads", 2},
        {"ffn", 48},
        {"vocab", 50},
        {"layers", 2}},
       "",
       1.5},
      // One decode step after 7 cached tokens (a fresh cache: zeros), with rotary positions.
      {"llama.json",
       {{"N", 2},
        {"prompt", 1},
        {"past", 7},
        {"hidden", 32},
        {"heads", 4},
        {"kv_heads", 2},
        {"ffn", 48},
        {"vocab", 50},
        {"layers", 2}},
       "decode_step",
       1.5},
      {"vit.json",
       {{"size", 32},
        {"patch", 8},
        {"hidden", 32},
        {"heads", 4},
        {"ffn", 64},
        {"n_classes", 10},
        {"layers", 2}},
       "",
       1.5}};
  return cases;
}

}  // namespace ntpb::testing
