// Reads ONNX files: the bytes are parsed here, the graph mapped by the importer
// (src/topology/onnx/importer.h).
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "ntpbench/error.h"
#include "ntpbench/onnx_format.h"
#include "ntpbench/tensor_file.h"
#include "src/common/file_io.h"
#include "src/topology/onnx/importer.h"

namespace ntpb {

using onnx_import::OnnxImporter;

namespace {

bool HasSymbolicInputDims(const onnx::ModelProto& model) {
  std::set<std::string> initializers;
  for (const onnx::TensorProto& t : model.graph().initializer()) initializers.insert(t.name());
  for (const onnx::ValueInfoProto& v : model.graph().input()) {
    if (initializers.count(v.name()) || !v.type().tensor_type().has_shape()) continue;
    for (const auto& d : v.type().tensor_type().shape().dim()) {
      if (!d.has_dim_value()) return true;
    }
  }
  return false;
}

// The model read with its symbolic dims bound; the topology reads it again for other values
// (each set of values once: a run resolves the same configuration several times).
Topology ReadBound(const onnx::ModelProto& source, const std::string& file,
                   const OnnxLimits& limits, const std::map<std::string, int64_t>& values) {
  onnx::ModelProto model = source;
  return OnnxImporter(model, file, limits, &values).Import();
}

Topology BoundImport(std::shared_ptr<const onnx::ModelProto> source, const std::string& file,
                     const OnnxLimits& limits, const std::map<std::string, int64_t>& values) {
  onnx::ModelProto model = *source;
  OnnxImporter importer(model, file, limits, &values);
  importer.DeferFailureOfDefaults();
  Topology t = importer.Import();
  struct Cache {
    std::mutex mutex;
    std::map<std::map<std::string, int64_t>, Topology> read;
  };
  auto cache = std::make_shared<Cache>();
  t.rebind = [source, file, limits, cache](const std::map<std::string, int64_t>& other) {
    std::lock_guard<std::mutex> lock(cache->mutex);
    auto it = cache->read.find(other);
    if (it != cache->read.end()) return it->second;
    if (cache->read.size() >= 16) cache->read.clear();
    return cache->read.emplace(other, ReadBound(*source, file, limits, other)).first->second;
  };
  return t;
}

}  // namespace

Topology ParseOnnx(const std::string& bytes, const std::string& file, const OnnxLimits& limits) {
  if (bytes.size() > limits.max_file_bytes) {
    throw Error(file, "", "",
                "larger than the limit of " + std::to_string(limits.max_file_bytes) +
                    " bytes (OnnxLimits::max_file_bytes)");
  }
  onnx::ModelProto model;
  if (bytes.empty() || !model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    throw Error(file, "", "",
                "not an ONNX model: the protobuf does not parse (truncated, or another format)");
  }
  if (!model.has_graph() || model.graph().node_size() == 0) {
    throw Error(file, "", "graph", "the ONNX model has no graph nodes");
  }
  if (!HasSymbolicInputDims(model)) return OnnxImporter(model, file, limits).Import();
  auto source = std::make_shared<const onnx::ModelProto>(model);
  try {
    return OnnxImporter(model, file, limits).Import();
  } catch (const Error&) {
    // Shapes computed from a symbolic dim (an attention's head split, a recurrent layer's zero
    // initial state) fold only once it has a value: the model is read at its params' values.
  }
  return BoundImport(source, file, limits, {});
}

Topology ReadOnnxFile(const std::string& path, const OnnxLimits& limits) {
  return ParseOnnx(ReadTextFile(path, limits.max_file_bytes), path, limits);
}

TensorValues ParseOnnxTensor(const std::string& bytes, const std::string& file) {
  onnx::TensorProto t;
  if (bytes.empty() || !t.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    throw Error(file, "", "", "not an ONNX TensorProto: the protobuf does not parse");
  }
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    throw Error(file, "", "data_location", "keeps its data in an external file");
  }
  TensorValues out;
  int64_t count = 1;
  for (int64_t d : t.dims()) {
    if (d < 0 || d > (int64_t{1} << 40) || __builtin_mul_overflow(count, d, &count)) {
      throw Error(file, "", "dims", "an impossible dimension " + std::to_string(d));
    }
    out.dims.push_back(d);
  }
  const std::string& raw = t.raw_data();
  auto from_raw = [&](size_t width, auto convert) {
    if (raw.size() / width != static_cast<uint64_t>(count) || raw.size() % width != 0) {
      throw Error(file, "", "raw_data",
                  "holds " + std::to_string(raw.size() / width) + " elements; its dims declare " +
                      std::to_string(count));
    }
    out.values.resize(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) out.values[i] = convert(raw.data() + i * width);
  };
  auto expect = [&](int64_t have) {
    if (have != count) {
      throw Error(
          file, "", "data",
          "holds " + std::to_string(have) + " elements; its dims declare " + std::to_string(count));
    }
  };
  switch (t.data_type()) {
    case onnx::TensorProto::FLOAT:
      if (!raw.empty()) {
        from_raw(4, [](const char* p) {
          float v;
          std::memcpy(&v, p, 4);
          return v;
        });
      } else {
        expect(t.float_data_size());
        out.values.assign(t.float_data().begin(), t.float_data().end());
      }
      break;
    case onnx::TensorProto::DOUBLE:
      if (!raw.empty()) {
        from_raw(8, [](const char* p) {
          double v;
          std::memcpy(&v, p, 8);
          return static_cast<float>(v);
        });
      } else {
        expect(t.double_data_size());
        for (double v : t.double_data()) out.values.push_back(static_cast<float>(v));
      }
      break;
    case onnx::TensorProto::INT64:
      if (!raw.empty()) {
        from_raw(8, [](const char* p) {
          int64_t v;
          std::memcpy(&v, p, 8);
          return static_cast<float>(v);
        });
      } else {
        expect(t.int64_data_size());
        for (int64_t v : t.int64_data()) out.values.push_back(static_cast<float>(v));
      }
      break;
    case onnx::TensorProto::INT32:
      if (!raw.empty()) {
        from_raw(4, [](const char* p) {
          int32_t v;
          std::memcpy(&v, p, 4);
          return static_cast<float>(v);
        });
      } else {
        expect(t.int32_data_size());
        for (int32_t v : t.int32_data()) out.values.push_back(static_cast<float>(v));
      }
      break;
    default:
      throw Error(file, "", "data_type",
                  "element type " + std::to_string(t.data_type()) +
                      " is not read (float, double, int32, int64)");
  }
  return out;
}

}  // namespace ntpb
