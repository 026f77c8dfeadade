// max_pool, avg_pool (windows) and global_avg_pool, on NCHW inputs.
#include "src/ops/op_helpers.h"

namespace ntpb::ops {
namespace {

InferResult InferPool(const InferContext& ctx) {
  const Shape& in = ctx.inputs[0];
  ctx.Require(in.size() == 4, "inputs", "pooling needs an NCHW input, got " + ShapeToString(in));
  const auto kernel = ctx.attrs.Ints("kernel");
  // Like PyTorch, the stride defaults to the kernel size.
  const auto stride = ctx.attrs.Has("stride") ? ctx.attrs.Ints("stride") : kernel;
  const std::vector<int64_t> dilation = {1, 1};
  const auto pad = ResolvePadding(ctx, in[2], in[3], kernel, stride, dilation);
  ctx.Require(pad[0] < kernel[0] && pad[2] < kernel[0] && pad[1] < kernel[1] && pad[3] < kernel[1],
              "padding", "padding must be smaller than the kernel");
  const int64_t oh = WindowOutput(ctx, in[2], pad[0], pad[2], kernel[0], stride[0], 1, "kernel");
  const int64_t ow = WindowOutput(ctx, in[3], pad[1], pad[3], kernel[1], stride[1], 1, "kernel");
  InferResult r;
  r.outputs = {{in[0], in[1], oh, ow}};
  r.resolved_attrs["padding"] = pad;
  r.resolved_attrs["stride"] = stride;
  return r;
}

int64_t PoolFlops(const OpCostInput& c) {
  const auto kernel = c.attrs.Ints("kernel");
  return CheckedProduct({NumElements(c.outputs[0]), kernel[0], kernel[1]});
}

InferResult InferGlobalPool(const InferContext& ctx) {
  const Shape& in = ctx.inputs[0];
  ctx.Require(in.size() == 4, "inputs",
              "global_avg_pool needs an NCHW input, got " + ShapeToString(in));
  return {{{in[0], in[1]}}, {}, {}};
}

int64_t GlobalPoolFlops(const OpCostInput& c) { return NumElements(c.inputs[0]); }

std::vector<AttrDef> WindowAttrs() {
  return {RequiredAttr("kernel", AttrType::kIntPair, "window k or [kh, kw]"),
          OptionalAttr("stride", AttrType::kIntPair, nullptr, "stride; defaults to the kernel"),
          OptionalAttr("padding", AttrType::kPadding, 0,
                       "p, [ph, pw], [top, left, bottom, right], \"same\" or \"valid\"")};
}

}  // namespace

void AddPoolingOps(std::vector<OpDef>* ops) {
  OpDef max_pool;
  max_pool.name = "max_pool";
  max_pool.attrs = WindowAttrs();
  max_pool.infer = InferPool;
  max_pool.flops = PoolFlops;
  max_pool.summary = "maximum over each window (padding never wins)";
  ops->push_back(max_pool);

  OpDef avg_pool = max_pool;
  avg_pool.name = "avg_pool";
  avg_pool.attrs.push_back(OptionalAttr("count_include_pad", AttrType::kBool, false,
                                        "divide by the full window, padding included"));
  avg_pool.summary = "mean over each window";
  ops->push_back(avg_pool);

  OpDef global;
  global.name = "global_avg_pool";
  global.infer = InferGlobalPool;
  global.flops = GlobalPoolFlops;
  global.summary = "mean over H and W: [N, C, H, W] -> [N, C]";
  ops->push_back(global);
}

}  // namespace ntpb::ops
