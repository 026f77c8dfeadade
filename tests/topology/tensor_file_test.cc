// Tensor files as people keep a model's test data: NumPy .npy read exactly, malformed ones one
// clear error naming the file.
#include "ntpbench/tensor_file.h"

#include <gtest/gtest.h>

#include <cstring>

#include "ntpbench/error.h"

namespace ntpb::testing {
namespace {

// What numpy.save writes (format 1.0: magic, version, header length, a padded dict, the data).
std::string Npy(const std::string& descr, const std::string& shape, const std::string& data,
                const std::string& fortran = "False") {
  std::string header =
      "{'descr': '" + descr + "', 'fortran_order': " + fortran + ", 'shape': " + shape + ", }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header + data;
}

template <typename T>
std::string Bytes(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

std::string ErrorOf(const std::string& bytes) {
  try {
    ParseNpy(bytes, "x.npy");
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(TensorFile, NpyFloatsAndIntegersAreReadWithTheirShape) {
  const TensorValues f = ParseNpy(Npy("<f4", "(2, 3)", Bytes<float>({1, 2, 3, 4, 5, -6.5f})), "x");
  EXPECT_EQ(f.dims, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(f.values, (std::vector<float>{1, 2, 3, 4, 5, -6.5f}));
  const TensorValues i = ParseNpy(Npy("<i8", "(3,)", Bytes<int64_t>({7, 0, 99})), "x");
  EXPECT_EQ(i.dims, (std::vector<int64_t>{3}));
  EXPECT_EQ(i.values, (std::vector<float>{7, 0, 99}));
  const TensorValues d = ParseNpy(Npy("<f8", "(1, 1)", Bytes<double>({0.25})), "x");
  EXPECT_EQ(d.values, (std::vector<float>{0.25f}));
  const TensorValues scalar = ParseNpy(Npy("<f4", "()", Bytes<float>({3})), "x");
  EXPECT_TRUE(scalar.dims.empty());
  EXPECT_EQ(scalar.values, (std::vector<float>{3}));
}

TEST(TensorFile, MalformedNpyIsOneClearError) {
  EXPECT_NE(ErrorOf("PK\x03\x04 a zip").find("x.npy: not a NumPy .npy file"), std::string::npos);
  EXPECT_NE(ErrorOf(Npy("<f4", "(2, 3)", Bytes<float>({1, 2})))
                .find("needs 24 bytes of data; "
                      "the file holds 8"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Npy("<c8", "(1,)", "12345678")).find("element type '<c8' is not read"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Npy(">f4", "(1,)", "1234")).find("element type '>f4' is not read"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Npy("<f4", "(1,)", "1234", "True")).find("Fortran-order"), std::string::npos);
  EXPECT_NE(ErrorOf(Npy("<f4", "(99999999999999, 99999999999)", "")).find("malformed .npy shape"),
            std::string::npos);
  EXPECT_NE(ErrorOf(std::string("\x93NUMPY\x01\x00\xff\x7f", 10)).find("truncated"),
            std::string::npos);
  EXPECT_THROW(ReadTensorFile("tensor.txt"), Error);
}

}  // namespace
}  // namespace ntpb::testing
