// Tensors stored as files, as people keep a model's test data: ONNX `TensorProto` `.pb` files
// (the ONNX test-data layout, `test_data_set_0/input_0.pb`) and NumPy `.npy` arrays. Read as
// float values with their dims (integers converted exactly up to 2^24).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ntpb {

struct TensorValues {
  std::vector<int64_t> dims;
  std::vector<float> values;  // row-major
};

// By extension: `.pb` (needs ONNX support in the build) or `.npy`. Throws ntpb::Error naming the
// file and what is wrong with it (format, element type, a count that does not match its dims).
TensorValues ReadTensorFile(const std::string& path);

// The ONNX TensorProto in `bytes` (src/topology/onnx_reader.cc; without ONNX support an error).
TensorValues ParseOnnxTensor(const std::string& bytes, const std::string& file);
// A NumPy .npy array (format 1.0 to 3.0, little-endian, C order).
TensorValues ParseNpy(const std::string& bytes, const std::string& file);

}  // namespace ntpb
