// How the xnnpack backend turns layers into steps: a step is one or more XNNPACK operators,
// created and set up at compile time over buffers that never move, then only run
// (xnn_run_operator) in the timed loop. A factory per op family builds them through a
// StepBuilder, which hands out each input in the layout the operator wants (inserting the
// reorder step that makes it) and the buffer of the step's output.
#pragma once

#include <xnnpack.h>

#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ntpbench/resolve.h"

namespace ntpb::xnnb {

// How a tensor's values are laid out in memory.
enum class Layout {
  kLogical,  // row-major in the IR's order ([N, C, H, W] for images)
  kNhwc,     // a rank-4 tensor as [N, H, W, C], the order XNNPACK's image operators work in
  kAsStored  // (Input only) whichever it is in: layout-blind elementwise operators
};

// What a tensor's elements are: f32, or (i8 runs) XNNPACK's qs8, real = scale * (q - zero_point).
enum class DataType { kF32, kQs8 };
struct Quantization {
  float scale = 1.0f;
  int8_t zero_point = 0;
  // The qs8 value nearest `real`, saturated.
  int8_t Quantize(float real) const;
};

struct Buffer {
  void* data = nullptr;
  Shape shape;  // the IR's (logical) shape, whatever the layout
  Layout layout = Layout::kLogical;
  DataType type = DataType::kF32;
  Quantization quantization;  // kQs8 only
  float* f32() const { return static_cast<float*>(data); }
  int8_t* qs8() const { return static_cast<int8_t*>(data); }
  // The dims in memory order: shape, or [N, H, W, C] for kNhwc.
  Shape StoredShape() const;
};

struct OperatorDeleter {
  void operator()(xnn_operator_t op) const { xnn_delete_operator(op); }
};
using Operator = std::unique_ptr<xnn_operator, OperatorDeleter>;

struct Step {
  std::vector<Operator> operators;  // run in order
  std::function<void()> run;        // work of ntpbench's own (a reorder); else empty
  // Arrays the operators read at run time (a batchnorm's scale and shift): kept with them.
  std::vector<std::shared_ptr<const std::vector<float>>> constants;
  std::string kernel;  // the XNNPACK operators: the run table's kernel column
};

// Which layers a step computes: a host and the layers it absorbs (a convolution's batchnorm and
// activation, an add's activation), each the sole reader of the one before.
struct Chain {
  const ResolvedLayer* host = nullptr;
  const ResolvedLayer* batchnorm = nullptr;
  const ResolvedLayer* activation = nullptr;  // relu or clipped_relu: the operator's clamp
  int fused() const { return (batchnorm ? 1 : 0) + (activation ? 1 : 0); }
  const ResolvedLayer& last() const {
    return activation ? *activation : batchnorm ? *batchnorm : *host;
  }
};

class StepBuilder {
 public:
  virtual ~StepBuilder() = default;
  virtual const Chain& chain() const = 0;
  // The host's input `index` as it is stored (no step added).
  virtual Buffer Stored(int index) const = 0;
  // The host's input `index` in `layout` and `type` (a reorder, quantize or dequantize step is
  // added the first time a tensor is wanted in a form it is not stored in).
  virtual Buffer Input(int index, Layout layout, DataType type = DataType::kF32) = 0;
  // A new buffer for the step's output (the chain's last output), with XNN_EXTRA_BYTES after it;
  // qs8 with the quantization its calibrated range gives, or `same_as`'s (max pooling keeps it).
  virtual Buffer Output(Layout layout, DataType type = DataType::kF32,
                        const Quantization* same_as = nullptr) = 0;
  // The step's output is `input` itself (a reshape): no data moves.
  virtual void OutputIsView(const Buffer& input) = 0;
  // A weight of `layer` as the seed or the model gives it, in the IR's layout.
  virtual std::vector<float> Weight(const ResolvedLayer& layer, int index) const = 0;
  virtual pthreadpool_t threadpool() const = 0;
  // Whether the run is i8: layers with a qs8 operator run it, the others f32.
  virtual bool quantized() const = 0;
};

// Throws ntpb::Error naming the layer when an XNNPACK call did not succeed.
void Check(xnn_status status, const ResolvedLayer& layer, const char* call);

// The output clamp of a chain: its host's fused activation, else its absorbed relu or clipped
// relu; sigmoid where the host fuses one (XNNPACK's clamp cannot: a sigmoid operator follows).
struct OutputRange {
  float min = -INFINITY, max = INFINITY;
  bool sigmoid = false;
};
OutputRange RangeOf(const Chain& chain);
// The clamp of `range` in `q`'s units (qs8 operators clamp their quantized output).
int8_t QuantizedMin(const OutputRange& range, const Quantization& q);
int8_t QuantizedMax(const OutputRange& range, const Quantization& q);

using StepFactory = Step (*)(StepBuilder&);
struct OpEntry {
  StepFactory make;
  // Why XNNPACK cannot run this layer ("" where it can).
  std::string (*refusal)(const ResolvedLayer&);
};
using OpTable = std::map<std::string, OpEntry>;
std::string NoRefusal(const ResolvedLayer& layer);
// An input of more dims than XNNPACK's operators take (XNN_MAX_TENSOR_DIMS).
std::string DimsRefusal(const ResolvedLayer& layer);

void AddComputeOps(OpTable* table);      // conv2d, dense, pooling, resize, batchnorm
void AddElementwiseOps(OpTable* table);  // activations, binary ops, concat, softmax, views
const OpTable& Ops();
// The table entry a layer runs as: its op's, or reshape's view where the layer moves no data
// (a transpose of axes of size 1; ResolvedLayer::is_view).
inline std::string OpTableKey(const ResolvedLayer& layer) {
  return layer.is_view ? "reshape" : layer.op;
}

}  // namespace ntpb::xnnb
