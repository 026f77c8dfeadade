// Step factories of the torch backend: each turns a resolved layer into a closure of ATen calls.
// Tensors live in named slots of the executable; a step reads its inputs' slots when it runs and
// writes its output's slot (in place through an ATen `_out` call where one exists, else by
// assigning the result, as eager PyTorch does).
#pragma once

#include <ATen/ATen.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ntpbench/resolve.h"

namespace ntpb::torchb {

struct StepArgs {
  const ResolvedLayer& layer;
  std::vector<const at::Tensor*> inputs;
  at::Tensor* output;                // preallocated with the resolved shape and the run's type
  std::vector<at::Tensor*> outputs;  // every output the layer lists; outputs[0] is output
  std::vector<at::Tensor> weights;   // in the order of layer.weights, the run's type
  at::ScalarType type;               // kFloat or kBFloat16
  const ResolvedTopology* topology;
  // The executable's position shift (Executable::SetPositionShift), read when a step runs.
  const int64_t* position_shift;
};

struct Step {
  std::function<void()> run;
  std::string kernel;  // the ATen op it calls: the run table's kernel column
};

using StepFactory = Step (*)(const StepArgs&);
using StepTable = std::map<std::string, StepFactory>;

// One file per family of ops.
void AddComputeSteps(StepTable* table);      // dense, matmul, conv, pooling, norms
void AddElementwiseSteps(StepTable* table);  // activations, binary ops, softmax, reductions
void AddLayoutSteps(StepTable* table);       // shape ops, resize, embedding, inlays
void AddSequenceSteps(StepTable* table);     // lstm, gru, attention, rotary, kv_cache

const StepTable& Steps();

// A f32 host array as a tensor of `shape` and `type` (copied).
at::Tensor TensorFrom(const std::vector<float>& values, const Shape& shape, at::ScalarType type);

}  // namespace ntpb::torchb
