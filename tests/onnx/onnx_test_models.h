// Small ONNX models built with the protobuf API, for the reader's tests, `ntpbench inspect`
// examples and the fuzzers' seed corpus. Weights are deterministic, so references can be
// computed from the same values.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ntpb::testing {

// Builds a ModelProto node by node.
class OnnxBuilder {
 public:
  explicit OnnxBuilder(const std::string& name, int opset = 13);
  // dims: integers, or names for symbolic dimensions ("batch").
  void Input(const std::string& name, const std::vector<std::string>& dims,
             int32_t elem_type = onnx::TensorProto::FLOAT);
  void Output(const std::string& name, const std::vector<std::string>& dims,
              int32_t elem_type = onnx::TensorProto::FLOAT);
  void Weight(const std::string& name, const std::vector<int64_t>& dims,
              const std::vector<float>& values);
  // Deterministic values in [-scale, scale].
  std::vector<float> Random(const std::vector<int64_t>& dims, float scale, uint32_t seed) const;
  void RandomWeight(const std::string& name, const std::vector<int64_t>& dims, float scale,
                    uint32_t seed);
  void Ints(const std::string& name, const std::vector<int64_t>& values);
  onnx::NodeProto& Node(const std::string& op, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs, const std::string& name);
  static void SetInt(onnx::NodeProto& n, const std::string& name, int64_t v);
  static void SetFloat(onnx::NodeProto& n, const std::string& name, float v);
  static void SetInts(onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v);
  static void SetString(onnx::NodeProto& n, const std::string& name, const std::string& v);

  onnx::ModelProto model;
  std::string Bytes() const;
};

// name -> model: mlp (Gemm, MatMul+Add, Relu, Softmax), cnn_bn (Conv, BatchNormalization,
// Relu, MaxPool, depthwise Conv, Clip, GlobalAveragePool, a Shape->Gather->Concat->Reshape
// chain, Gemm), lstm (bidirectional LSTM), gru (GRU), ops and ops2 (the remaining mapped ops:
// Sigmoid, Tanh, Mul, Identity, Dropout, LayerNormalization, Transpose, Unsqueeze, Squeeze,
// Concat, Flatten, Add; LeakyRelu, Split, Sub and Div by constants, the GELU pattern).
std::vector<std::pair<std::string, onnx::ModelProto>> TestModels();
onnx::ModelProto TestModel(const std::string& name);

}  // namespace ntpb::testing
