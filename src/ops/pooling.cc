// max_pool, avg_pool (windows) and global_avg_pool, on NCHW inputs.
#include <algorithm>

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
  auto pad = ResolvePadding(ctx, in[2], in[3], kernel, stride, dilation);
  ctx.Require(pad[0] < kernel[0] && pad[2] < kernel[0] && pad[1] < kernel[1] && pad[3] < kernel[1],
              "padding", "padding must be smaller than the kernel");
  int64_t oh = WindowOutput(ctx, in[2], pad[0], pad[2], kernel[0], stride[0], 1, "kernel");
  int64_t ow = WindowOutput(ctx, in[3], pad[1], pad[3], kernel[1], stride[1], 1, "kernel");
  if (ctx.attrs.Bool("ceil_mode")) {
    ctx.Require(!ctx.attrs.Has("count_include_pad") || !ctx.attrs.Bool("count_include_pad"),
                "ceil_mode", "is not supported together with count_include_pad");
    // Rounding up adds a last, partial window, as in PyTorch and ONNX: unless it would start
    // past the input and its leading padding. The padding at the end grows to cover it, which
    // never counts in a mean (count_include_pad is false) nor wins a max.
    // (Padding is smaller than the kernel, so the dropped window is never the floor's last.)
    auto ceil_output = [&](int64_t size, int64_t before, int64_t after, int64_t k, int64_t s,
                           int64_t* grow) {
      const int64_t span = size + before + after - k;
      int64_t out = (span + s - 1) / s + 1;
      if ((out - 1) * s >= size + before) --out;
      *grow = std::max<int64_t>(0, (out - 1) * s + k - (size + before + after));
      return out;
    };
    int64_t grow_h = 0, grow_w = 0;
    oh = ceil_output(in[2], pad[0], pad[2], kernel[0], stride[0], &grow_h);
    ow = ceil_output(in[3], pad[1], pad[3], kernel[1], stride[1], &grow_w);
    pad[2] += grow_h;
    pad[3] += grow_w;
  }
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
                       "p, [ph, pw], [top, left, bottom, right], \"same\" or \"valid\""),
          OptionalAttr("ceil_mode", AttrType::kBool, false,
                       "round the output size up (a last, partial window)")};
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
