// Constant folding of ONNX graphs (src/topology/onnx/constant_folding.h): what exporters compute
// from constants is evaluated exactly and replaced by initializers; what depends on run-time
// values stays; malformed constant computations name their node.
#include "src/topology/onnx/constant_folding.h"

#include <gtest/gtest.h>

#include <cstring>

#include "ntpbench/error.h"
#include "tests/onnx/onnx_test_models.h"

namespace ntpb::testing {
namespace {

using onnx_import::FoldConstants;
using onnx_import::FoldingLimits;

const onnx::TensorProto* Initializer(const onnx::ModelProto& m, const std::string& name) {
  for (const onnx::TensorProto& t : m.graph().initializer()) {
    if (t.name() == name) return &t;
  }
  return nullptr;
}

std::vector<float> FloatsOf(const onnx::TensorProto& t) {
  std::vector<float> v(t.raw_data().size() / 4);
  std::memcpy(v.data(), t.raw_data().data(), t.raw_data().size());
  return v;
}

std::vector<int64_t> DimsOf(const onnx::TensorProto& t) {
  return std::vector<int64_t>(t.dims().begin(), t.dims().end());
}

std::vector<std::string> OpTypes(const onnx::ModelProto& m) {
  std::vector<std::string> ops;
  for (const onnx::NodeProto& n : m.graph().node()) ops.push_back(n.op_type());
  return ops;
}

// A deduplicated weight behind Identity, transposed by a node: MatMul reads an initializer.
TEST(ConstantFolding, WeightBehindIdentityAndTransposeBecomesAnInitializer) {
  OnnxBuilder b("w");
  b.Input("x", {"1", "2"});
  b.Weight("w", {3, 2}, {1, 2, 3, 4, 5, 6});
  b.Node("Identity", {"w"}, {"w_same"}, "identity");
  onnx::NodeProto& t = b.Node("Transpose", {"w_same"}, {"w_t"}, "transpose");
  OnnxBuilder::SetInts(t, "perm", {1, 0});
  b.Node("MatMul", {"x", "w_t"}, {"y"}, "matmul");
  b.Output("y", {"1", "3"});
  EXPECT_EQ(FoldConstants(&b.model, "w.onnx"), 2);
  EXPECT_EQ(OpTypes(b.model), (std::vector<std::string>{"MatMul"}));
  const onnx::TensorProto* w_t = Initializer(b.model, "w_t");
  ASSERT_NE(w_t, nullptr);
  EXPECT_EQ(DimsOf(*w_t), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(FloatsOf(*w_t), (std::vector<float>{1, 3, 5, 2, 4, 6}));
  EXPECT_EQ(Initializer(b.model, "w"), nullptr) << "nobody reads the original any more";
}

// An LSTM's zero initial state as PyTorch exports it: Shape(x) -> Gather(1) -> Unsqueeze ->
// Concat([2], n, [5]) -> ConstantOfShape, then Expand.
TEST(ConstantFolding, ZeroStateFromTheInputShapeFolds) {
  OnnxBuilder b("state");
  b.Input("x", {"7", "3", "4"});
  b.Ints("one", {1});
  b.Ints("two", {2});
  b.Ints("five", {5});
  b.Ints("axes", {0});
  b.Node("Shape", {"x"}, {"shape"}, "shape");
  onnx::NodeProto& g = b.Node("Gather", {"shape", "one"}, {"n"}, "gather");
  OnnxBuilder::SetInt(g, "axis", 0);
  OnnxBuilder::SetInt(b.Node("Concat", {"two", "n", "five"}, {"dims"}, "concat"), "axis", 0);
  b.Node("ConstantOfShape", {"dims"}, {"zeros"}, "zeros");
  b.Node("Add", {"x", "x"}, {"y"}, "add");
  b.Output("y", {"7", "3", "4"});
  b.Output("zeros_used", {"2", "3", "5"});
  b.Node("Identity", {"zeros"}, {"zeros_used"}, "out");
  const int folded = FoldConstants(&b.model, "state.onnx");
  EXPECT_EQ(folded, 4);  // Shape, Gather, Concat, ConstantOfShape (the graph output stays)
  const onnx::TensorProto* zeros = Initializer(b.model, "zeros");
  ASSERT_NE(zeros, nullptr);
  EXPECT_EQ(DimsOf(*zeros), (std::vector<int64_t>{2, 3, 5}));
  EXPECT_EQ(FloatsOf(*zeros), std::vector<float>(30, 0.0f));
  EXPECT_EQ(OpTypes(b.model), (std::vector<std::string>{"Add", "Identity"}));
}

// Slice with ONNX's "to the end" (INT64_MAX) and a negative start, Range, Equal and Where,
// evaluated exactly; a Slice of the graph input stays a node.
TEST(ConstantFolding, SliceRangeWhereAreExact) {
  OnnxBuilder b("ops");
  b.Input("x", {"1", "6"});
  b.Weight("table", {6}, {10, 11, 12, 13, 14, 15});
  b.Ints("start", {-4});
  b.Ints("end", {INT64_MAX});
  b.Ints("r0", {0});
  b.Ints("r1", {6});
  b.Ints("r2", {2});
  b.Node("Slice", {"table", "start", "end"}, {"tail"}, "slice");  // 12..15
  b.Ints("zero_i", {0});
  b.Node("Range", {"zero_i", "r1", "r2"}, {"evens"}, "range");  // 0, 2, 4
  b.Weight("two_f", {1}, {12});
  b.Node("Equal", {"tail", "two_f"}, {"is_12"}, "equal");
  b.Weight("minus", {1}, {-1});
  b.Node("Where", {"is_12", "minus", "tail"}, {"picked"}, "where");  // -1, 13, 14, 15
  b.Node("Slice", {"x", "start", "end"}, {"x_tail"}, "slice_x");
  b.Node("Concat", {"x_tail", "picked"}, {"y"}, "concat");
  b.Output("y", {"1", "8"});
  // Range's scalars must be scalars: rebuild them as rank 0.
  for (onnx::TensorProto& t : *b.model.mutable_graph()->mutable_initializer()) {
    if (t.name() == "zero_i" || t.name() == "r1" || t.name() == "r2") t.clear_dims();
  }
  FoldConstants(&b.model, "ops.onnx");
  EXPECT_EQ(FloatsOf(*Initializer(b.model, "picked")), (std::vector<float>{-1, 13, 14, 15}));
  const onnx::TensorProto* evens = Initializer(b.model, "evens");
  EXPECT_EQ(evens, nullptr) << "folded, then dropped: nobody reads it";
  EXPECT_EQ(OpTypes(b.model), (std::vector<std::string>{"Slice", "Concat"}));
}

// A causal mask as torch.triu exports it (opset 14+): Trilu over a constant, both triangles and
// an offset k, on the last two axes of a batch of matrices.
TEST(ConstantFolding, TriluKeepsOneTriangle) {
  OnnxBuilder b("trilu", 14);
  b.Input("x", {"2", "3", "3"});
  b.Weight("m", {2, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, -1, -2, -3, -4, -5, -6, -7, -8, -9});
  b.Ints("one", {1});
  b.Node("Trilu", {"m", "one"}, {"upper1"}, "upper1");  // torch.triu(m, diagonal=1)
  OnnxBuilder::SetInt(b.Node("Trilu", {"m"}, {"lower"}, "lower"), "upper", 0);
  b.Node("Add", {"x", "upper1"}, {"a"}, "add");
  b.Node("Add", {"a", "lower"}, {"y"}, "add2");
  b.Output("y", {"2", "3", "3"});
  for (onnx::TensorProto& t : *b.model.mutable_graph()->mutable_initializer()) {
    if (t.name() == "one") t.clear_dims();  // k is a scalar
  }
  FoldConstants(&b.model, "trilu.onnx");
  EXPECT_EQ(FloatsOf(*Initializer(b.model, "upper1")),
            (std::vector<float>{0, 2, 3, 0, 0, 6, 0, 0, 0, 0, -2, -3, 0, 0, -6, 0, 0, 0}));
  EXPECT_EQ(FloatsOf(*Initializer(b.model, "lower")),
            (std::vector<float>{1, 0, 0, 4, 5, 0, 7, 8, 9, -1, 0, 0, -4, -5, 0, -7, -8, -9}));
}

TEST(ConstantFolding, AnIndexOutOfRangeNamesTheNode) {
  OnnxBuilder b("bad");
  b.Input("x", {"2", "3"});
  b.Ints("nine", {9});
  b.Node("Shape", {"x"}, {"shape"}, "shape");
  b.Node("Gather", {"shape", "nine"}, {"n"}, "picks_nine");
  b.Node("Reshape", {"x", "n"}, {"y"}, "reshape");
  b.Output("y", {"6"});
  try {
    FoldConstants(&b.model, "bad.onnx");
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), "bad.onnx");
    EXPECT_EQ(e.layer(), "picks_nine");
    EXPECT_NE(e.message().find("index 9 is out of range"), std::string::npos) << e.what();
  }
}

// A constant larger than the limit is left to the importer as a node, not allocated.
TEST(ConstantFolding, LargeResultsStayNodes) {
  OnnxBuilder b("large");
  b.Input("x", {"1"});
  b.Ints("dims", {1 << 20, 1 << 20});
  b.Node("ConstantOfShape", {"dims"}, {"huge"}, "huge");
  b.Node("Add", {"x", "huge"}, {"y"}, "add");
  b.Output("y", {"1048576", "1048576"});
  FoldingLimits limits;
  EXPECT_EQ(FoldConstants(&b.model, "large.onnx", limits), 0);
  EXPECT_EQ(OpTypes(b.model), (std::vector<std::string>{"ConstantOfShape", "Add"}));
}

}  // namespace
}  // namespace ntpb::testing
