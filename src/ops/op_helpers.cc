#include "src/ops/op_helpers.h"

#include <algorithm>

#include "src/ops/activations.h"

namespace ntpb::ops {

std::vector<AttrDef> ActivationAttrs() {
  std::vector<std::string> names;
  for (const ActivationDef& d : Activations()) {
    if (d.fusable) names.push_back(d.name);
  }
  std::vector<AttrDef> attrs = {
      EnumAttr("activation", names, "none", "activation fused after the op"),
      OptionalAttr("clip", AttrType::kFloat, 20.0,
                   "upper bound of clipped_relu (DeepSpeech clips at 20)")};
  attrs[1].at_least = 0;
  return attrs;
}

Shape BroadcastShapes(const InferContext& ctx, const Shape& a, const Shape& b,
                      const std::string& field) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    ctx.Require(da == db || da == 1 || db == 1, field,
                "shapes " + ShapeToString(a) + " and " + ShapeToString(b) + " do not broadcast");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

int NormalizeAxis(const InferContext& ctx, int64_t axis, size_t rank, const std::string& field) {
  const int64_t r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r) {
    ctx.Fail(field,
             "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  }
  return static_cast<int>(axis < 0 ? axis + r : axis);
}

int64_t WindowOutput(const InferContext& ctx, int64_t in, int64_t pad_before, int64_t pad_after,
                     int64_t kernel, int64_t stride, int64_t dilation, const std::string& field) {
  ctx.Require(kernel > 0, "kernel", "kernel sizes must be positive");
  ctx.Require(stride > 0, "stride", "strides must be positive");
  ctx.Require(dilation > 0, "dilation", "dilations must be positive");
  ctx.Require(pad_before >= 0 && pad_after >= 0, "padding", "padding must not be negative");
  const int64_t span = dilation * (kernel - 1) + 1;
  const int64_t padded = in + pad_before + pad_after;
  if (padded < span) {
    ctx.Fail(field, "window of " + std::to_string(span) + " does not fit the padded input of " +
                        std::to_string(padded));
  }
  return (padded - span) / stride + 1;
}

std::vector<int64_t> ResolvePadding(const InferContext& ctx, int64_t h, int64_t w,
                                    const std::vector<int64_t>& kernel,
                                    const std::vector<int64_t>& stride,
                                    const std::vector<int64_t>& dilation) {
  // Checked before any arithmetic on them: "same" padding divides by the stride, and the
  // window span multiplies dilation and kernel (bounded, so that nothing overflows).
  constexpr int64_t kMaxWindow = int64_t{1} << 24;
  for (size_t i = 0; i < 2; ++i) {
    for (const auto& [value, field] :
         {std::pair{kernel[i], "kernel"}, std::pair{stride[i], "stride"},
          std::pair{dilation[i], "dilation"}}) {
      ctx.Require(value > 0 && value <= kMaxWindow, field,
                  std::string(field) + " values must be between 1 and " +
                      std::to_string(kMaxWindow) + ", got " + std::to_string(value));
    }
  }
  const nlohmann::json& p = ctx.attrs.json().at("padding");
  if (p.is_string()) {
    if (p == "valid") return {0, 0, 0, 0};
    // "same" as in TensorFlow: output = ceil(in / stride), extra padding at the end.
    std::vector<int64_t> out(4);
    const int64_t in[2] = {h, w};
    for (int i = 0; i < 2; ++i) {
      const int64_t o = (in[i] + stride[i] - 1) / stride[i];
      const int64_t span = dilation[i] * (kernel[i] - 1) + 1;
      const int64_t total = std::max<int64_t>(0, (o - 1) * stride[i] + span - in[i]);
      out[i] = total / 2;
      out[i + 2] = total - total / 2;
    }
    return out;
  }
  std::vector<int64_t> v = p.get<std::vector<int64_t>>();
  if (v.size() == 1) return {v[0], v[0], v[0], v[0]};
  if (v.size() == 2) return {v[0], v[1], v[0], v[1]};
  return v;
}

int64_t Product(const Shape& s, size_t from, size_t to) {
  int64_t n = 1;
  for (size_t i = from; i < to && i < s.size(); ++i) n *= s[i];
  return n;
}

}  // namespace ntpb::ops
