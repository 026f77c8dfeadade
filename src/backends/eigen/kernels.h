// Kernel factories of the Eigen backend: each turns a resolved layer plus its bound buffers
// into a closure that runs the op. Buffers are allocated before; closures never allocate.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ntpbench/resolve.h"
#include "src/ops/activations.h"

namespace ntpb::eigen {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatrixMap = Eigen::Map<RowMatrix>;
using ConstMatrixMap = Eigen::Map<const RowMatrix>;
using ArrayMap = Eigen::Map<Eigen::ArrayXf>;
using ConstArrayMap = Eigen::Map<const Eigen::ArrayXf>;

// Scratch memory shared by all steps of an executable (steps run one at a time, so one buffer
// sized for the hungriest step serves them all, as a framework's scratchpad does). Kernels ask
// for their size when built and take data() when they run; it is allocated once, at compile.
// Eigen's vectorised reductions peel a head up to the first aligned element, so the order of
// their sums (and the last bits of results) would depend on where malloc put a buffer: every
// buffer is aligned as Eigen prefers, and the same seed gives the same numbers, bit for bit.
using AlignedFloats = std::vector<float, Eigen::aligned_allocator<float>>;

class Scratchpad {
 public:
  void Require(int64_t floats) { need_ = std::max(need_, floats); }
  void Allocate() { buffer_.assign(static_cast<size_t>(need_), 0.0f); }
  float* data() { return buffer_.data(); }
  int64_t bytes() const { return static_cast<int64_t>(buffer_.size() * sizeof(float)); }

 private:
  int64_t need_ = 0;
  AlignedFloats buffer_;
};

struct KernelArgs {
  const ResolvedLayer& layer;
  std::vector<const float*> inputs;
  float* output;                      // outputs[0]
  std::vector<float*> outputs;        // every output the layer lists (lstm: y, then the final cell)
  std::vector<const float*> weights;  // in the order of layer.weights
  int threads;
  Scratchpad* scratch;
  const ResolvedTopology* topology = nullptr;
  // The executable's position shift (Executable::SetPositionShift), read when a kernel runs.
  const int64_t* position_shift = nullptr;
};

using Kernel = std::function<void()>;
using KernelFactory = Kernel (*)(const KernelArgs&);
using KernelTable = std::map<std::string, KernelFactory>;

// The fused activation of dense and conv2d ("activation", "clip").
struct Activation {
  using Kind = ActivationKind;  // src/ops/activations.h
  Kind kind = Kind::kNone;
  float clip = 20.0f;
  static Activation FromAttrs(const Attrs& attrs);
  void Apply(float* data, int64_t n) const;
};

// out[m, n] = a[m, k] * b[k, n], all row-major. Eigen parallelizes large products itself but
// runs matrix-vector products (batch 1 dense layers, RNN recurrences) on one thread; for few
// rows this splits the columns of b across `threads` so both cores stream the weights.
void MultiplyRowMajor(const float* a, const float* b, float* out, int64_t m, int64_t k, int64_t n,
                      int threads);

// One file per family of ops.
void AddDenseKernels(KernelTable* table);
void AddConvKernels(KernelTable* table);
void AddPoolingKernels(KernelTable* table);
void AddNormalizationKernels(KernelTable* table);
void AddElementwiseKernels(KernelTable* table);
void AddShapeKernels(KernelTable* table);
void AddRecurrentKernels(KernelTable* table);
void AddReduceKernels(KernelTable* table);
void AddResizeKernels(KernelTable* table);
void AddEmbeddingKernels(KernelTable* table);
void AddInlayKernels(KernelTable* table);
void AddAttentionKernels(KernelTable* table);

const KernelTable& Kernels();

}  // namespace ntpb::eigen
