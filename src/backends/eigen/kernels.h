// Kernel factories of the Eigen backend: each turns a resolved layer plus its bound buffers
// into a closure that runs the op. Buffers are allocated before; closures never allocate.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ntpbench/resolve.h"

namespace ntpb::eigen {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatrixMap = Eigen::Map<RowMatrix>;
using ConstMatrixMap = Eigen::Map<const RowMatrix>;
using ArrayMap = Eigen::Map<Eigen::ArrayXf>;
using ConstArrayMap = Eigen::Map<const Eigen::ArrayXf>;

struct KernelArgs {
  const ResolvedLayer& layer;
  std::vector<const float*> inputs;
  float* output;
  std::vector<const float*> weights;  // in the order of layer.weights
  int threads;
  int64_t* workspace_bytes;  // kernels add the scratch memory they set aside
};

using Kernel = std::function<void()>;
using KernelFactory = Kernel (*)(const KernelArgs&);
using KernelTable = std::map<std::string, KernelFactory>;

// The fused activation of dense and conv2d ("activation", "clip").
struct Activation {
  enum class Kind {
    kNone,
    kRelu,
    kClippedRelu,
    kSigmoid,
    kTanh,
    kGelu,
    kGeluTanh
  } kind = Kind::kNone;
  float clip = 20.0f;
  static Activation FromAttrs(const Attrs& attrs);
  void Apply(float* data, int64_t n) const;
};

// One file per family of ops.
void AddDenseKernels(KernelTable* table);
void AddConvKernels(KernelTable* table);
void AddPoolingKernels(KernelTable* table);
void AddNormalizationKernels(KernelTable* table);
void AddElementwiseKernels(KernelTable* table);
void AddShapeKernels(KernelTable* table);
void AddRecurrentKernels(KernelTable* table);

const KernelTable& Kernels();

}  // namespace ntpb::eigen
