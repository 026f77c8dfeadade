// How the xnnpack backend turns layers into steps: a step is one or more XNNPACK operators,
// created and set up at compile time over buffers that never move, then only run
// (xnn_run_operator) in the timed loop. A factory per op family builds them through a
// StepBuilder, which hands out each input in the layout the operator wants (inserting the
// reorder step that makes it) and the buffer of the step's output.
#pragma once

#include <xnnpack.h>

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

struct Buffer {
  float* data = nullptr;
  Shape shape;  // the IR's (logical) shape, whatever the layout
  Layout layout = Layout::kLogical;
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
  // The host's input `index` in `layout` (a reorder step is added the first time a tensor is
  // wanted in a layout it is not stored in).
  virtual Buffer Input(int index, Layout layout) = 0;
  // A new buffer for the step's output (the chain's last output), with XNN_EXTRA_BYTES after it.
  virtual Buffer Output(Layout layout) = 0;
  // The step's output is `input` itself (a reshape): no data moves.
  virtual void OutputIsView(const Buffer& input) = 0;
  // A weight of `layer` as the seed or the model gives it, in the IR's layout.
  virtual std::vector<float> Weight(const ResolvedLayer& layer, int index) const = 0;
  virtual pthreadpool_t threadpool() const = 0;
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

using StepFactory = Step (*)(StepBuilder&);
struct OpEntry {
  StepFactory make;
  // Why XNNPACK cannot run this layer ("" where it can).
  std::string (*refusal)(const ResolvedLayer&);
};
using OpTable = std::map<std::string, OpEntry>;

void AddComputeOps(OpTable* table);      // conv2d, dense, pooling, batchnorm
void AddElementwiseOps(OpTable* table);  // activations, binary ops, softmax, views
const OpTable& Ops();

}  // namespace ntpb::xnnb
