#include "ntpbench/tensor_file.h"

#include <cstring>
#include <limits>

#include "ntpbench/error.h"
#include "src/common/file_io.h"

namespace ntpb {
namespace {

constexpr std::size_t kMaxTensorFileBytes = std::size_t{4} << 30;

std::string Extension(const std::string& path) {
  const size_t dot = path.rfind('.'), slash = path.rfind('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  return path.substr(dot + 1);
}

// The value of `key` in a .npy header ("{'descr': '<f4', 'fortran_order': False, 'shape': (2,
// 3), }"): the text after "'key':" up to the next top-level comma.
std::string HeaderField(const std::string& header, const std::string& key,
                        const std::string& file) {
  const size_t at = header.find("'" + key + "'");
  if (at == std::string::npos) {
    throw Error(file, "", key, "the .npy header has no '" + key + "'");
  }
  size_t start = header.find(':', at);
  if (start == std::string::npos) throw Error(file, "", key, "malformed .npy header");
  ++start;
  while (start < header.size() && header[start] == ' ') ++start;
  size_t end = start;
  if (end < header.size() && header[end] == '(') {
    end = header.find(')', end);
    if (end == std::string::npos) throw Error(file, "", key, "malformed .npy header");
    return header.substr(start, end - start + 1);
  }
  while (end < header.size() && header[end] != ',' && header[end] != '}') ++end;
  return header.substr(start, end - start);
}

template <typename T>
void Convert(const char* data, int64_t count, std::vector<float>* out) {
  out->resize(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    T v;
    std::memcpy(&v, data + i * sizeof(T), sizeof(T));
    (*out)[i] = static_cast<float>(v);
  }
}

}  // namespace

TensorValues ParseNpy(const std::string& bytes, const std::string& file) {
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) {
    throw Error(file, "", "", "not a NumPy .npy file (no \\x93NUMPY magic)");
  }
  const int major = static_cast<unsigned char>(bytes[6]);
  size_t header_len = 0, offset = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8;
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) throw Error(file, "", "", "truncated .npy header");
    uint32_t len = 0;
    std::memcpy(&len, bytes.data() + 8, 4);
    header_len = len;
    offset = 12;
  } else {
    throw Error(file, "", "", ".npy format version " + std::to_string(major) + " is not read");
  }
  if (header_len > bytes.size() - offset) throw Error(file, "", "", "truncated .npy header");
  const std::string header = bytes.substr(offset, header_len);
  offset += header_len;
  std::string descr = HeaderField(header, "descr", file);
  descr.erase(0, descr.find_first_not_of(" '\""));
  descr.erase(descr.find_last_not_of(" '\"") + 1);
  if (HeaderField(header, "fortran_order", file).find("True") != std::string::npos) {
    throw Error(file, "", "fortran_order",
                "a Fortran-order array (save it with numpy.ascontiguousarray first)");
  }
  TensorValues t;
  const std::string shape = HeaderField(header, "shape", file);
  int64_t count = 1;
  for (size_t i = 1; i < shape.size();) {
    while (i < shape.size() && (shape[i] == ' ' || shape[i] == ',')) ++i;
    if (i >= shape.size() || shape[i] == ')') break;
    size_t used = 0;
    long long d = -1;
    try {
      d = std::stoll(shape.substr(i), &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || d < 0 || d > (int64_t{1} << 40) || __builtin_mul_overflow(count, d, &count)) {
      throw Error(file, "", "shape", "malformed .npy shape " + shape);
    }
    t.dims.push_back(d);
    i += used;
  }
  static const struct {
    const char* descr;
    size_t width;
  } kTypes[] = {{"<f4", 4}, {"<f8", 8}, {"<i8", 8}, {"<i4", 4}, {"<i2", 2},
                {"|i1", 1}, {"|u1", 1}, {"|b1", 1}, {"<u2", 2}, {"<u4", 4}};
  size_t width = 0;
  for (const auto& k : kTypes) {
    if (descr == k.descr) width = k.width;
  }
  if (width == 0) {
    throw Error(file, "", "descr",
                "element type '" + descr +
                    "' is not read (float32, float64, integers or bool, little-endian)");
  }
  if (static_cast<uint64_t>(count) > (bytes.size() - offset) / width ||
      static_cast<uint64_t>(count) * width != bytes.size() - offset) {
    throw Error(file, "", "shape",
                "the shape " + shape + " of '" + descr + "' needs " +
                    std::to_string(static_cast<uint64_t>(count) * width) +
                    " bytes of data; the file holds " + std::to_string(bytes.size() - offset));
  }
  const char* data = bytes.data() + offset;
  if (descr == "<f4") Convert<float>(data, count, &t.values);
  if (descr == "<f8") Convert<double>(data, count, &t.values);
  if (descr == "<i8") Convert<int64_t>(data, count, &t.values);
  if (descr == "<i4") Convert<int32_t>(data, count, &t.values);
  if (descr == "<i2") Convert<int16_t>(data, count, &t.values);
  if (descr == "<u2") Convert<uint16_t>(data, count, &t.values);
  if (descr == "<u4") Convert<uint32_t>(data, count, &t.values);
  if (descr == "|i1") Convert<int8_t>(data, count, &t.values);
  if (descr == "|u1" || descr == "|b1") Convert<uint8_t>(data, count, &t.values);
  return t;
}

TensorValues ReadTensorFile(const std::string& path) {
  const std::string ext = Extension(path);
  if (ext != "pb" && ext != "npy") {
    throw Error(path, "", "", "a tensor file is an ONNX TensorProto (.pb) or a NumPy array (.npy)");
  }
  const std::string bytes = ReadTextFile(path, kMaxTensorFileBytes);
  return ext == "npy" ? ParseNpy(bytes, path) : ParseOnnxTensor(bytes, path);
}

}  // namespace ntpb
