// What the OpenCL backend's op builders get and give: a builder turns a resolved layer with its
// device buffers into a StepRun, a closure that enqueues the layer's kernels when the step runs.
// Kernel objects, parameter buffers and the arguments that never change are made at build time;
// nothing is allocated or compiled while a step runs. One file per family of ops.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ntpbench/resolve.h"
#include "src/backends/opencl/cl_runtime.h"
#include "src/backends/opencl/device_session.h"

namespace ntpb::opencl {

// Enqueues on the executable's queue, keeping each command's event so the step's device time
// can be read from the profiling counters after the run.
class Enqueuer {
 public:
  Enqueuer(cl_command_queue queue, std::vector<cl_event>* events, size_t local, int chunk)
      : queue_(queue), events_(events), local_(local), chunk_(chunk) {}
  // A 1-D kernel over n work-items (rounded up to the device's work-group size).
  void Launch1D(cl_kernel kernel, int64_t n);
  // An elementwise kernel over n elements, CHUNK per work-item (DeviceSession's
  // elementwise_chunk): unary, batchnorm, strided_map.
  void LaunchChunks(cl_kernel kernel, int64_t n) { Launch1D(kernel, (n + chunk_ - 1) / chunk_); }
  // Any work-group shape; local null leaves it to the driver.
  void Launch(cl_kernel kernel, int dims, const size_t* global, const size_t* local);
  void Copy(cl_mem from, cl_mem to, int64_t bytes, int64_t from_offset = 0, int64_t to_offset = 0);
  void Write(cl_mem to, const void* host, int64_t bytes);  // waits until the data is on device
  void Read(cl_mem from, void* host, int64_t bytes);       // waits until the data is on host
  cl_mem scratch = nullptr;  // shared by all steps (they run one at a time)

 private:
  cl_event* NextEvent();
  cl_command_queue queue_;
  std::vector<cl_event>* events_;
  size_t local_;
  int chunk_;
};

using StepRun = std::function<void(Enqueuer&)>;
// Run after the queue has drained (Executable::Wait): reads what a kernel flagged (an embedding's
// bad id) and throws ntpb::Error naming the layer.
using AfterRun = std::function<void(cl_command_queue)>;

template <typename T>
void SetArg(cl_kernel kernel, int index, const T& value) {
  Check(clSetKernelArg(kernel, static_cast<cl_uint>(index), sizeof(T), &value), "clSetKernelArg");
}
// Arguments 0, 1, ... in order; pass cl_int/cl_float/cl_mem exactly as the kernel declares them.
template <typename... T>
void SetArgs(cl_kernel kernel, const T&... values) {
  int index = 0;
  (SetArg(kernel, index++, values), ...);
}

// An activation quantized to 8 bits for an i8 layer (src/backends/common/quantization.h): its
// device buffer of u8 or s8 values, one byte each, and the scale that maps reals onto it.
struct QuantizedTensor {
  cl_mem data = nullptr;
  float scale = 1.0f;
  bool is_signed = false;  // s8, else u8
};

class OpArgs {
 public:
  using WeightUpload = std::function<cl_mem(size_t)>;
  using Quantizer = std::function<QuantizedTensor(const std::string&)>;
  OpArgs(const ResolvedLayer& layer, const DeviceSession& device, std::vector<cl_mem> inputs,
         cl_mem output, const std::vector<std::vector<float>>* weight_values,
         WeightUpload upload_weight, std::vector<KernelHandle>* kernels,
         std::vector<Memory>* buffers, int64_t* scratch_bytes, std::vector<AfterRun>* after_run)
      : layer(layer),
        device(device),
        inputs(std::move(inputs)),
        output(output),
        weight_values_(weight_values),
        upload_weight_(std::move(upload_weight)),
        weights_(weight_values->size(), nullptr),
        kernels_(kernels),
        buffers_(buffers),
        scratch_bytes_(scratch_bytes),
        after_run_(after_run) {}

  const ResolvedLayer& layer;
  const DeviceSession& device;
  std::vector<cl_mem> inputs;
  // Per input: stored as float whatever the run's precision (token ids past what f16 holds).
  std::vector<bool> input_f32;
  cl_mem output;
  // The layer's outputs past the first (lstm's final cell state), of the run's element type.
  std::vector<cl_mem> further_outputs;
  bool vector_gemm = false;  // gemm_vec, else gemm_tiled (the run's opencl.gemm option)
  // attention_group, else a work-item per query (the run's opencl.attention option)
  bool group_attention = false;
  // A few rows: gemm_skinny_split, else gemm_skinny (the run's opencl.skinny option)
  bool split_skinny = false;
  const ResolvedTopology* topology = nullptr;
  // The executable's position shift (Executable::SetPositionShift), read when a step enqueues.
  const int64_t* position_shift = nullptr;
  // Set in i8 runs: quantizes a tensor once per inference (a "quantize" inlay step in front of
  // the first layer that asks), returning its 8-bit copy. Null in f32 runs.
  Quantizer quantize;

  // Weight i (in the order of layer.weights) on the device, uploaded when first asked for: a
  // builder that repacks or quantizes a weight leaves the f32 original on the host.
  cl_mem Weight(size_t i);
  size_t WeightCount() const { return weights_.size(); }
  // Weight i's values (the source's, else drawn from the seed).
  const std::vector<float>& WeightValues(size_t i) const { return weight_values_->at(i); }
  bool quantized() const { return static_cast<bool>(quantize); }

  cl_kernel Kernel(const char* name);  // owned by the executable
  // The kernels the step was built from, in the order first asked for: the run table's kernel
  // column ("im2col + gemm_tiled").
  std::vector<std::string> kernel_names;
  // A read-only buffer holding `values`, owned by the executable (kernel parameters, taps).
  cl_mem Constant(const void* data, int64_t bytes);
  cl_mem Constant(const std::vector<cl_int>& values) {
    return Constant(values.data(), static_cast<int64_t>(values.size() * sizeof(cl_int)));
  }
  cl_mem Constant(const std::vector<float>& values) {
    return Constant(values.data(), static_cast<int64_t>(values.size() * sizeof(float)));
  }
  // A read-only tensor the kernels read as ELEM (float, or half in f16 runs): a weight the
  // builder repacked.
  cl_mem Elements(const std::vector<float>& values);
  // Bytes of `n` stored tensor elements (DeviceSession::element_bytes).
  int64_t Bytes(int64_t n) const { return n * device.element_bytes; }
  cl_mem Buffer(int64_t bytes);  // zero-filled, owned by the executable
  void RequireScratch(int64_t bytes) { *scratch_bytes_ = std::max(*scratch_bytes_, bytes); }
  void CheckAfterRun(AfterRun check) { after_run_->push_back(std::move(check)); }

 private:
  const std::vector<std::vector<float>>* weight_values_;
  WeightUpload upload_weight_;
  std::vector<cl_mem> weights_;
  std::vector<KernelHandle>* kernels_;
  std::vector<Memory>* buffers_;
  int64_t* scratch_bytes_;
  std::vector<AfterRun>* after_run_;
};

using OpBuilder = StepRun (*)(OpArgs&);
using OpTable = std::map<std::string, OpBuilder>;

// The fused activation of dense and conv2d, as kernels.cl's ACT_* codes.
struct ActivationCode {
  cl_int kind = 0;
  cl_float clip = 20.0f;
  static ActivationCode FromAttrs(const Attrs& attrs);
};

// C = op(A) * B (+ bias) (activation) over `batch` products (kernels.cl's gemm_tiled, or
// gemm_skinny for a few rows). Offsets, leading dimensions and batch strides in floats.
struct GemmCall {
  int64_t m = 0, n = 0, k = 0, batch = 1;
  cl_mem a = nullptr, b = nullptr, c = nullptr, bias = nullptr;
  int64_t a_offset = 0, lda = 0, a_batch = 0, b_offset = 0, ldb = 0, b_batch = 0, c_offset = 0,
          ldc = 0, c_batch = 0, bias_offset = 0;
  bool trans_a = false;
  bool trans_c = false;  // C stored transposed, (m, n) at n * ldc + m (the packed kernels only)
  int bias_mode = 0;     // 0 none, 1 per column, 2 per row
  ActivationCode act;
};
// A prepared GEMM: its kernel with every argument set, and the work size.
struct GemmLaunch {
  cl_kernel kernel = nullptr;
  int dims = 1;
  size_t global[3] = {1, 1, 1}, local[3] = {1, 1, 1};
  bool skinny = false;                   // leaves the work-group size to the driver
  int a_arg = 3, b_arg = 8, c_arg = 12;  // the kernel's argument indices of A, B and C
  void Run(Enqueuer& e) const { e.Launch(kernel, dims, global, skinny ? nullptr : local); }
  // Re-points an operand (the scratch, a step's slice) before Run: its buffer and offset.
  void SetA(cl_mem a, int64_t offset) const;
  void SetB(cl_mem b, int64_t offset) const;
  void SetC(cl_mem c, int64_t offset) const;
};
GemmLaunch PrepareGemm(OpArgs& args, const GemmCall& call);
// The same product on a CPU device with B constant (a dense layer's weights; a convolution's,
// transposed), `b_values` [K, N]: B packed once into column panels (kernels.cl's gemm_packed);
// A (transposed or not), C (trans_c or not), their batch strides and the bias (per column, or
// none) as in `call`. B cannot be re-pointed.
GemmLaunch PreparePackedGemm(OpArgs& args, const GemmCall& call,
                             const std::vector<float>& b_values);
// The same product in an i8 run, on any device: A quantized (`a`, whose buffer replaces
// call.a), B quantized per column (per output channel) and packed as above (gemm_i8_packed),
// sums in 32-bit integers, dequantized per column; C f32.
GemmLaunch PrepareI8PackedGemm(OpArgs& args, const GemmCall& call, const QuantizedTensor& a,
                               const std::vector<float>& b_values);

// kernels.cl's strided_map: every element of the iteration space `dims` (rank <= 8), with
// operand k (y, a, b, c) at base[k] + sum of index * strides[k][axis] (a missing stride list is
// all zeros: the operand is not read, or broadcast whole).
struct StridedMap {
  Shape dims;
  std::array<std::vector<int64_t>, 4> strides;
  std::array<int64_t, 4> base{};
};
enum MapOp : cl_int {  // kernels.cl's MAP_*
  kMapCopy = 0,
  kMapAdd,
  kMapSub,
  kMapMul,
  kMapDiv,
  kMapEqual,
  kMapLess,
  kMapGreater,
  kMapWhere
};
struct MapLaunch {
  cl_kernel kernel = nullptr;
  int64_t count = 0;
  void Run(Enqueuer& e) const { e.LaunchChunks(kernel, count); }
};
MapLaunch PrepareStridedMap(OpArgs& args, const StridedMap& map, cl_mem y, cl_mem a, cl_mem b,
                            cl_mem c, MapOp op);
std::vector<int64_t> RowMajorStrides(const Shape& shape);

// The op families (one file each).
void AddComputeOps(OpTable* table);      // dense, matmul, conv2d, conv_transpose, lstm, gru
void AddElementwiseOps(OpTable* table);  // activations, arithmetic, norms, pooling, reductions
void AddLayoutOps(OpTable* table);       // data movement: concat, slice, pad, transpose, ...
void AddAttentionOps(OpTable* table);    // attention, rotary

const OpTable& Ops();

// Checked narrowing for kernel arguments (kernels index with 32-bit ints; Supports refuses
// tensors past that).
cl_int Int(int64_t v);

}  // namespace ntpb::opencl
