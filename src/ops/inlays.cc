// Inlays present from the start: copy and layout reorder. Later inlays (MFCC, CTC decoder,
// quantize) are added here the same way.
#include "src/ops/op_helpers.h"

namespace ntpb::ops {
namespace {

InferResult InferSame(const InferContext& ctx) { return {{ctx.inputs[0]}, {}, {}}; }
int64_t NoFlops(const OpCostInput&) { return 0; }

}  // namespace

void AddInlayOps(std::vector<OpDef>* ops) {
  OpDef copy;
  copy.name = "copy";
  copy.kind = OpKind::kInlay;
  copy.infer = InferSame;
  copy.flops = NoFlops;
  copy.summary = "copies a tensor (host/device transfer on device backends)";
  ops->push_back(copy);

  OpDef reorder;
  reorder.name = "reorder";
  reorder.kind = OpKind::kInlay;
  reorder.attrs = {EnumAttr("layout", {"plain", "nchw", "nhwc", "ntc", "tnc", "blocked"}, "plain",
                            "memory layout the data is moved into")};
  reorder.infer = InferSame;
  reorder.flops = NoFlops;
  reorder.summary = "layout conversion: same logical values, data moved into another memory layout";
  ops->push_back(reorder);
}

}  // namespace ntpb::ops
