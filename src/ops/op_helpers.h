// Small pieces shared by the op definitions in src/ops/.
#pragma once

#include <string>
#include <vector>

#include "src/topology/op_catalog.h"

namespace ntpb::ops {

// Fused activation attributes shared by dense and conv2d ("activation", "clip").
std::vector<AttrDef> ActivationAttrs();
// Normalizes a possibly negative axis against `rank`; fails naming `field` when out of range.
int NormalizeAxis(const InferContext& ctx, int64_t axis, size_t rank, const std::string& field);
// Output size of a sliding window, failing naming the layer when it is not positive.
int64_t WindowOutput(const InferContext& ctx, int64_t in, int64_t pad_before, int64_t pad_after,
                     int64_t kernel, int64_t stride, int64_t dilation, const std::string& field);
// Resolves "padding" (int, [h, w], [t, l, b, r], "same", "valid") to [top, left, bottom, right].
std::vector<int64_t> ResolvePadding(const InferContext& ctx, int64_t h, int64_t w,
                                    const std::vector<int64_t>& kernel,
                                    const std::vector<int64_t>& stride,
                                    const std::vector<int64_t>& dilation);
// NumPy broadcasting of two shapes; fails naming the inputs when they do not broadcast.
Shape BroadcastShapes(const InferContext& ctx, const Shape& a, const Shape& b,
                      const std::string& field = "inputs");
// Product of the dimensions in [from, to).
int64_t Product(const Shape& s, size_t from, size_t to);

// Families of ops, one per file in src/ops/.
void AddDenseOps(std::vector<OpDef>* ops);
void AddConvOps(std::vector<OpDef>* ops);
void AddPoolingOps(std::vector<OpDef>* ops);
void AddNormalizationOps(std::vector<OpDef>* ops);
void AddElementwiseOps(std::vector<OpDef>* ops);
void AddBinaryOps(std::vector<OpDef>* ops);
void AddSelectOps(std::vector<OpDef>* ops);
void AddEmbeddingOps(std::vector<OpDef>* ops);
void AddReduceOps(std::vector<OpDef>* ops);
void AddResizeOps(std::vector<OpDef>* ops);
void AddShapeOps(std::vector<OpDef>* ops);
void AddRecurrentOps(std::vector<OpDef>* ops);
void AddAttentionOps(std::vector<OpDef>* ops);
void AddInlayOps(std::vector<OpDef>* ops);

}  // namespace ntpb::ops
