// Reads ONNX files: the bytes are parsed here, the graph mapped by the importer
// (src/topology/onnx/importer.h).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csetjmp>
#include <csignal>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <set>
#include <vector>

#include "ntpbench/error.h"
#include "ntpbench/onnx_format.h"
#include "ntpbench/tensor_file.h"
#include "src/common/file_io.h"
#include "src/common/printable.h"
#include "src/topology/onnx/constant_folding.h"
#include "src/topology/onnx/importer.h"
#include "src/topology/onnx/weight_pool.h"

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
                   const OnnxLimits& limits, const std::map<std::string, int64_t>& values,
                   std::shared_ptr<onnx_import::WeightPool> pool) {
  onnx::ModelProto model = source;
  return OnnxImporter(model, file, limits, &values, std::move(pool)).Import();
}

Topology BoundImport(std::shared_ptr<const onnx::ModelProto> source, const std::string& file,
                     const OnnxLimits& limits, const std::map<std::string, int64_t>& values) {
  onnx::ModelProto model = *source;
  // Every reading of the model shares its large weights: held once however many sizes a run
  // or sweep binds.
  auto pool = std::make_shared<onnx_import::WeightPool>();
  OnnxImporter importer(model, file, limits, &values, pool);
  importer.DeferFailureOfDefaults();
  Topology t = importer.Import();
  struct Cache {
    std::mutex mutex;
    std::map<std::map<std::string, int64_t>, Topology> read;
  };
  auto cache = std::make_shared<Cache>();
  t.rebind = [source, file, limits, cache, pool](const std::map<std::string, int64_t>& other) {
    std::lock_guard<std::mutex> lock(cache->mutex);
    auto it = cache->read.find(other);
    if (it != cache->read.end()) return it->second;
    if (cache->read.size() >= 16) cache->read.clear();
    return cache->read.emplace(other, ReadBound(*source, file, limits, other, pool)).first->second;
  };
  return t;
}

// Names that are not UTF-8 (ONNX says they are; proto2 does not check) or that hold control
// characters become Printable's \xNN text, once, here: every table, JSON file and trace then
// shows the same printable name, and no JSON writer throws on one. The same text is mapped the
// same way everywhere, so references between nodes, initializers and subgraphs still match.
void MakeNamesPrintable(onnx::ModelProto* model) {
  auto fix = [](std::string* s) {
    if (std::string printable = Printable(*s); printable != *s) *s = std::move(printable);
  };
  std::vector<onnx::GraphProto*> graphs = {model->mutable_graph()};  // subgraphs: no recursion
  while (!graphs.empty()) {
    onnx::GraphProto* g = graphs.back();
    graphs.pop_back();
    fix(g->mutable_name());
    for (onnx::NodeProto& n : *g->mutable_node()) {
      fix(n.mutable_name());
      for (std::string& s : *n.mutable_input()) fix(&s);
      for (std::string& s : *n.mutable_output()) fix(&s);
      for (onnx::AttributeProto& a : *n.mutable_attribute()) {
        if (a.has_g()) graphs.push_back(a.mutable_g());
        for (onnx::GraphProto& sub : *a.mutable_graphs()) graphs.push_back(&sub);
      }
    }
    for (auto* values : {g->mutable_input(), g->mutable_output(), g->mutable_value_info()}) {
      for (onnx::ValueInfoProto& v : *values) fix(v.mutable_name());
    }
    for (onnx::TensorProto& t : *g->mutable_initializer()) fix(t.mutable_name());
    for (onnx::SparseTensorProto& t : *g->mutable_sparse_initializer()) {
      fix(t.mutable_values()->mutable_name());
    }
  }
}

// `size` bytes at `data` (the file's, mapped or read) as a model with a graph; `model` parses in
// place, so a caller that maps the file can tell a fault from a parse error.
void ParseModelInto(const void* data, size_t size, const std::string& file,
                    const OnnxLimits& limits, onnx::ModelProto* model) {
  if (size > limits.max_file_bytes) {
    throw Error(file, "", "",
                "larger than the limit of " + std::to_string(limits.max_file_bytes) +
                    " bytes (OnnxLimits::max_file_bytes)");
  }
  if (size == 0 || !model->ParseFromArray(data, static_cast<int>(size))) {
    throw Error(file, "", "",
                "not an ONNX model: the protobuf does not parse (truncated, or another format)");
  }
  if (!model->has_graph() || model->graph().node_size() == 0) {
    throw Error(file, "", "graph", "the ONNX model has no graph nodes");
  }
  MakeNamesPrintable(model);
}

onnx::ModelProto ParseModel(const std::string& bytes, const std::string& file,
                            const OnnxLimits& limits) {
  onnx::ModelProto model;
  ParseModelInto(bytes.data(), bytes.size(), file, limits, &model);
  return model;
}

// ONNX external data (a model over protobuf's 2 GiB, or saved with save_as_external_data): each
// initializer's bytes are read from its file beside the model into the initializer itself, once.
// Locations are relative paths inside the model's folder (the ONNX rule); any other is refused.
void LoadExternalData(onnx::ModelProto* model, const std::string& file, const OnnxLimits& limits) {
  const size_t slash = file.rfind('/');
  const std::string folder = slash == std::string::npos ? "." : file.substr(0, slash);
  int64_t total = 0;
  for (onnx::TensorProto& t : *model->mutable_graph()->mutable_initializer()) {
    if (t.data_location() != onnx::TensorProto::EXTERNAL) continue;
    auto fail = [&](const std::string& field, const std::string& message) {
      throw Error(file, "", "initializer",
                  "initializer '" + t.name() + "' external data " + field + ": " + message);
    };
    std::string location;
    int64_t offset = 0, length = -1;
    for (const onnx::StringStringEntryProto& e : t.external_data()) {
      int64_t v = 0;
      if (e.key() == "location") location = e.value();
      if ((e.key() == "offset" || e.key() == "length") &&
          (!onnx_import::ToInt(e.value(), &v) || v < 0)) {
        fail(e.key(), "'" + e.value() + "' is not a byte count");
      }
      if (e.key() == "offset") offset = v;
      if (e.key() == "length") length = v;
    }
    if (location.empty()) fail("location", "missing");
    if (location.front() == '/' || location == ".." || location.rfind("../", 0) == 0 ||
        location.find("/../") != std::string::npos ||
        (location.size() >= 3 && location.compare(location.size() - 3, 3, "/..") == 0)) {
      fail("location", "'" + location + "' leaves the model's folder");
    }
    const std::string path = folder + "/" + location;
    const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) fail("location", "cannot read " + path + ": " + std::strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      close(fd);
      fail("location", path + " is not a regular file");
    }
    if (length < 0) length = st.st_size - offset;
    if (offset > st.st_size || length > st.st_size - offset) {
      close(fd);
      fail("length", std::to_string(length) + " bytes at offset " + std::to_string(offset) +
                         " run past the end of " + path + " (" + std::to_string(st.st_size) +
                         " bytes)");
    }
    if (length > limits.max_weight_bytes - total) {
      close(fd);
      fail("length", "brings the weights over the limit of " +
                         std::to_string(limits.max_weight_bytes) +
                         " bytes (OnnxLimits::max_weight_bytes)");
    }
    total += length;
    if (!limits.read_weights && length >= (int64_t{1} << 18)) {
      // Shapes only: the bytes stay in their file, checked to be there. libonnx's checker
      // looks for them from the working folder: it is given the path it can find.
      close(fd);
      for (onnx::StringStringEntryProto& e : *t.mutable_external_data()) {
        if (e.key() == "location") e.set_value(path);
      }
      continue;
    }
    std::string* raw = t.mutable_raw_data();
    raw->resize(static_cast<size_t>(length));
    for (int64_t done = 0; done < length;) {
      const ssize_t got = pread(fd, raw->data() + done, static_cast<size_t>(length - done),
                                static_cast<off_t>(offset + done));
      if (got <= 0) {
        close(fd);
        fail("location", "reading " + path + " failed");
      }
      done += got;
    }
    close(fd);
    t.clear_external_data();
    t.set_data_location(onnx::TensorProto::DEFAULT);
  }
}

// `from_file`: the model was read from `file`, so external data beside it can be read; bytes
// from elsewhere (standard input, a caller's buffer) have no folder to read it from.
Topology ImportModel(onnx::ModelProto& model, const std::string& file, const OnnxLimits& limits,
                     bool from_file) {
  if (from_file) LoadExternalData(&model, file, limits);
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

}  // namespace

Topology ParseOnnx(const std::string& bytes, const std::string& file, const OnnxLimits& limits) {
  onnx::ModelProto model = ParseModel(bytes, file, limits);
  return ImportModel(model, file, limits, /*from_file=*/false);
}

namespace {

// A regular file is parsed where the kernel maps it: no copy of its bytes on the heap first (a
// 531 MB model: inspect 6.6 s -> 3.5 s). A file truncated while it is parsed raises SIGBUS on the
// pages that went away; that is caught here and said, not a crash.
sigjmp_buf* volatile g_parse_jump = nullptr;

void OnSigbus(int) {
  if (g_parse_jump) siglongjmp(*g_parse_jump, 1);
  signal(SIGBUS, SIG_DFL);
  raise(SIGBUS);
}

// False when the file cannot be mapped (then it is read as any other file).
bool ParseMapped(const std::string& path, const OnnxLimits& limits, onnx::ModelProto* model) {
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
      static_cast<uint64_t>(st.st_size) > limits.max_file_bytes) {
    close(fd);
    return false;
  }
  void* bytes = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (bytes == MAP_FAILED) return false;
  static std::mutex one_at_a_time;  // the handler's jump target is process-wide
  std::lock_guard<std::mutex> lock(one_at_a_time);
  struct sigaction handler = {}, previous = {};
  handler.sa_handler = OnSigbus;
  sigemptyset(&handler.sa_mask);
  sigaction(SIGBUS, &handler, &previous);
  sigjmp_buf jump;
  bool truncated = false;
  std::optional<Error> error;
  if (sigsetjmp(jump, 1) == 0) {
    g_parse_jump = &jump;
    try {
      ParseModelInto(bytes, static_cast<size_t>(st.st_size), path, limits, model);
    } catch (const Error& e) {
      error = e;
    }
  } else {
    truncated = true;
  }
  g_parse_jump = nullptr;
  sigaction(SIGBUS, &previous, nullptr);
  munmap(bytes, static_cast<size_t>(st.st_size));
  if (truncated) {
    // The parse stopped in the middle: what it held is left (leaked), not destroyed.
    new (model) onnx::ModelProto();
    throw Error(path, "", "", "the file was truncated while it was read");
  }
  if (error) throw *error;
  return true;
}

}  // namespace

Topology ReadOnnxFile(const std::string& path, const OnnxLimits& limits) {
  onnx::ModelProto model;
  if (!ParseMapped(path, limits, &model)) {
    // Not a regular file within the limit (a FIFO, /dev/zero, too large, missing): read with
    // ReadTextFile's checks, which say why not.
    const std::string bytes = ReadTextFile(path, limits.max_file_bytes);
    model = ParseModel(bytes, path, limits);
  }
  return ImportModel(model, path, limits, /*from_file=*/true);
}

TensorValues ParseOnnxTensor(const std::string& bytes, const std::string& file) {
  onnx::TensorProto t;
  if (bytes.empty() || !t.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    throw Error(file, "", "", "not an ONNX TensorProto: the protobuf does not parse");
  }
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    throw Error(file, "", "data_location", "keeps its data in an external file");
  }
  int64_t count = 1;
  for (int64_t d : t.dims()) {
    if (d < 0 || d > (int64_t{1} << 40) || __builtin_mul_overflow(count, d, &count)) {
      throw Error(file, "", "dims", "an impossible dimension " + std::to_string(d));
    }
  }
  const bool known =
      t.data_type() == onnx::TensorProto::FLOAT || t.data_type() == onnx::TensorProto::DOUBLE ||
      t.data_type() == onnx::TensorProto::BOOL || onnx_import::IsIntegerElementType(t.data_type());
  if (!known) {
    throw Error(file, "", "data_type",
                "element type " + std::to_string(t.data_type()) +
                    " is not read (float, double, integers, bool)");
  }
  // The constant folder's reading of initializers (one reader for both).
  std::optional<onnx_import::TensorFloats> read = onnx_import::ReadTensorFloats(t);
  if (!read) {
    throw Error(
        file, "", "data",
        "its data does not hold the " + std::to_string(count) + " elements its dims declare");
  }
  return {std::move(read->dims), std::move(read->values)};
}

}  // namespace ntpb
