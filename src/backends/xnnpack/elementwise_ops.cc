// Activations, binary ops (add and mul also in qs8), concat, softmax and views as XNNPACK's
// operators. Elementwise operators are blind to layout, so they run on NHWC tensors as stored (a
// binary op's broadcast operand's shape permuted the same way); softmax runs over rows of the
// IR's last axis.
#include "src/backends/xnnpack/steps.h"

namespace ntpb::xnnb {
namespace {

// The rows and columns of a tensor as nc operators take it: its last stored dim as channels.
struct Rows {
  size_t batch = 1, channels = 1;
};
Rows RowsOf(const Buffer& b) {
  const Shape stored = b.StoredShape();
  Rows r;
  r.channels = stored.empty() ? 1 : static_cast<size_t>(stored.back());
  r.batch = static_cast<size_t>(NumElements(stored)) / (r.channels ? r.channels : 1);
  return r;
}

using CreateUnary = xnn_status (*)(const ResolvedLayer&, size_t channels, xnn_operator_t*);
using SetupUnary = xnn_status (*)(xnn_operator_t, size_t, const float*, float*, pthreadpool_t);

template <CreateUnary kCreate, SetupUnary kSetup>
Step MakeUnaryWith(StepBuilder& b, const char* kernel) {
  const ResolvedLayer& l = *b.chain().host;
  const Buffer x = b.Input(0, Layout::kAsStored);
  const Buffer y = b.Output(x.layout);
  const Rows r = RowsOf(x);
  xnn_operator_t op = nullptr;
  Check(kCreate(l, r.channels, &op), l, kernel);
  Step step;
  step.operators.emplace_back(op);
  Check(kSetup(op, r.batch, x.f32(), y.f32(), b.threadpool()), l, kernel);
  step.kernel = kernel;
  return step;
}

xnn_status CreateClamp(const ResolvedLayer& l, size_t c, xnn_operator_t* op) {
  const float max = l.op == "clipped_relu" ? static_cast<float>(l.attrs.Float("clip")) : INFINITY;
  return xnn_create_clamp_nc_f32(c, c, c, 0.0f, max, 0, op);
}
xnn_status CreateLeakyRelu(const ResolvedLayer& l, size_t c, xnn_operator_t* op) {
  return xnn_create_leaky_relu_nc_f32(c, c, c, static_cast<float>(l.attrs.Float("alpha")), 0, op);
}
xnn_status CreateSigmoid(const ResolvedLayer&, size_t c, xnn_operator_t* op) {
  return xnn_create_sigmoid_nc_f32(c, c, c, 0, op);
}
xnn_status CreateHardswish(const ResolvedLayer&, size_t c, xnn_operator_t* op) {
  return xnn_create_hardswish_nc_f32(c, c, c, 0, op);
}
xnn_status CreateSquareRoot(const ResolvedLayer&, size_t c, xnn_operator_t* op) {
  return xnn_create_square_root_nc_f32(c, c, c, 0, op);
}

xnn_status CreateSquare(const ResolvedLayer&, size_t c, xnn_operator_t* op) {
  return xnn_create_square_nc_f32(c, c, c, 0, op);
}

Step MakeClamp(StepBuilder& b) {
  return MakeUnaryWith<CreateClamp, xnn_setup_clamp_nc_f32>(b, "xnn_clamp_nc_f32");
}
Step MakeLeakyRelu(StepBuilder& b) {
  return MakeUnaryWith<CreateLeakyRelu, xnn_setup_leaky_relu_nc_f32>(b, "xnn_leaky_relu_nc_f32");
}
Step MakeSigmoid(StepBuilder& b) {
  return MakeUnaryWith<CreateSigmoid, xnn_setup_sigmoid_nc_f32>(b, "xnn_sigmoid_nc_f32");
}
Step MakeHardswish(StepBuilder& b) {
  return MakeUnaryWith<CreateHardswish, xnn_setup_hardswish_nc_f32>(b, "xnn_hardswish_nc_f32");
}
Step MakeSquareRoot(StepBuilder& b) {
  return MakeUnaryWith<CreateSquareRoot, xnn_setup_square_root_nc_f32>(b, "xnn_square_root_nc_f32");
}

// pow by 2 or 0.5: XNNPACK's square and square root (it has no other power).
Step MakePow(StepBuilder& b) {
  if (b.chain().host->attrs.Float("exponent") == 2.0) {
    return MakeUnaryWith<CreateSquare, xnn_setup_square_nc_f32>(b, "xnn_square_nc_f32");
  }
  return MakeSquareRoot(b);
}

std::string PowRefusal(const ResolvedLayer& l) {
  const double e = l.attrs.Float("exponent");
  if (e == 2.0 || e == 0.5) return "";
  return "XNNPACK has powers 2 (square) and 0.5 (square root) only, not " + std::to_string(e);
}

using CreateBinary = xnn_status (*)(float, float, uint32_t, xnn_operator_t*);
using SetupBinary = xnn_status (*)(xnn_operator_t, size_t, const size_t*, size_t, const size_t*,
                                   const float*, const float*, float*, pthreadpool_t);

// An operand of lower rank as NumPy aligns it: ones in front, up to `rank`.
Shape Widened(const Shape& s, size_t rank) {
  Shape w(rank - s.size(), 1);
  w.insert(w.end(), s.begin(), s.end());
  return w;
}

// Whether an operand of rank < 4 keeps its element order when its dims are taken to NHWC
// ([1, C, H, W] -> [1, H, W, C]): true where C is 1 or H*W is.
bool SameOrderInNhwc(const Shape& operand) {
  const Shape w = Widened(operand, 4);
  return w[1] == 1 || w[2] * w[3] == 1;
}

using CreateBinaryQs8 = xnn_status (*)(int8_t, float, int8_t, float, int8_t, float, int8_t, int8_t,
                                       uint32_t, xnn_operator_t*);
using SetupBinaryQs8 = xnn_status (*)(xnn_operator_t, size_t, const size_t*, size_t, const size_t*,
                                      const int8_t*, const int8_t*, int8_t*, pthreadpool_t);
struct Qs8Binary {
  CreateBinaryQs8 create;
  SetupBinaryQs8 setup;
  const char* kernel;
};

template <CreateBinary kCreate, SetupBinary kSetup>
Step MakeBinaryWith(StepBuilder& b, const char* kernel, const Qs8Binary* qs8 = nullptr) {
  const ResolvedLayer& l = *b.chain().host;
  const OutputRange range = RangeOf(b.chain());
  const DataType type = qs8 && b.quantized() ? DataType::kQs8 : DataType::kF32;
  // NHWC where an image operand is stored so and every other operand can follow it there.
  bool nhwc = l.output_shapes[0].size() == 4;
  bool any_nhwc = false;
  std::vector<Buffer> as_stored;
  for (int i = 0; i < 2; ++i) as_stored.push_back(b.Stored(i));
  for (const Buffer& in : as_stored) {
    any_nhwc = any_nhwc || in.layout == Layout::kNhwc;
    if (in.shape.size() < 4) nhwc = nhwc && SameOrderInNhwc(in.shape);
  }
  nhwc = nhwc && any_nhwc;
  std::vector<Buffer> x;
  std::vector<std::vector<size_t>> dims;
  for (int i = 0; i < 2; ++i) {
    const Shape& s = as_stored[i].shape;
    if (!nhwc) {
      x.push_back(b.Input(i, Layout::kLogical, type));
      dims.emplace_back(s.begin(), s.end());
    } else if (s.size() == 4) {
      x.push_back(b.Input(i, Layout::kNhwc, type));
      const Shape st = x.back().StoredShape();
      dims.emplace_back(st.begin(), st.end());
    } else {
      x.push_back(b.Input(i, Layout::kAsStored, type));
      const Shape w = Widened(s, 4);
      dims.push_back({size_t(w[0]), size_t(w[2]), size_t(w[3]), size_t(w[1])});
    }
  }
  const Buffer y = b.Output(nhwc ? Layout::kNhwc : Layout::kLogical, type);
  xnn_operator_t op = nullptr;
  if (type == DataType::kQs8) {
    const Quantization &q0 = x[0].quantization, &q1 = x[1].quantization, &qy = y.quantization;
    Check(qs8->create(q0.zero_point, q0.scale, q1.zero_point, q1.scale, qy.zero_point, qy.scale,
                      QuantizedMin(range, qy), QuantizedMax(range, qy), 0, &op),
          l, qs8->kernel);
    Step step;
    step.operators.emplace_back(op);
    Check(qs8->setup(op, dims[0].size(), dims[0].data(), dims[1].size(), dims[1].data(), x[0].qs8(),
                     x[1].qs8(), y.qs8(), b.threadpool()),
          l, qs8->kernel);
    step.kernel = qs8->kernel;
    return step;
  }
  Check(kCreate(range.min, range.max, 0, &op), l, kernel);
  Step step;
  step.operators.emplace_back(op);
  Check(kSetup(op, dims[0].size(), dims[0].data(), dims[1].size(), dims[1].data(), x[0].f32(),
               x[1].f32(), y.f32(), b.threadpool()),
        l, kernel);
  step.kernel = kernel;
  return step;
}

Step MakeAdd(StepBuilder& b) {
  static const Qs8Binary qs8 = {xnn_create_add_nd_qs8, xnn_setup_add_nd_qs8, "xnn_add_nd_qs8"};
  return MakeBinaryWith<xnn_create_add_nd_f32, xnn_setup_add_nd_f32>(b, "xnn_add_nd_f32", &qs8);
}
Step MakeSubtract(StepBuilder& b) {
  return MakeBinaryWith<xnn_create_subtract_nd_f32, xnn_setup_subtract_nd_f32>(
      b, "xnn_subtract_nd_f32");
}
Step MakeMultiply(StepBuilder& b) {
  static const Qs8Binary qs8 = {xnn_create_multiply_nd_qs8, xnn_setup_multiply_nd_qs8,
                                "xnn_multiply_nd_qs8"};
  return MakeBinaryWith<xnn_create_multiply_nd_f32, xnn_setup_multiply_nd_f32>(
      b, "xnn_multiply_nd_f32", &qs8);
}
Step MakeDivide(StepBuilder& b) {
  return MakeBinaryWith<xnn_create_divide_nd_f32, xnn_setup_divide_nd_f32>(b, "xnn_divide_nd_f32");
}

// swish, x * sigmoid(x): a sigmoid operator then a multiply by the input.
Step MakeSwish(StepBuilder& b) {
  const ResolvedLayer& l = *b.chain().host;
  const Buffer x = b.Input(0, Layout::kAsStored);
  const Buffer y = b.Output(x.layout);
  const Rows r = RowsOf(x);
  const Shape stored = x.StoredShape();
  const std::vector<size_t> dims(stored.begin(), stored.end());
  xnn_operator_t sigmoid = nullptr, mul = nullptr;
  Check(xnn_create_sigmoid_nc_f32(r.channels, r.channels, r.channels, 0, &sigmoid), l,
        "xnn_create_sigmoid_nc_f32");
  Step step;
  step.operators.emplace_back(sigmoid);
  Check(xnn_create_multiply_nd_f32(-INFINITY, INFINITY, 0, &mul), l, "xnn_create_multiply_nd_f32");
  step.operators.emplace_back(mul);
  Check(xnn_setup_sigmoid_nc_f32(sigmoid, r.batch, x.f32(), y.f32(), b.threadpool()), l,
        "xnn_setup_sigmoid_nc_f32");
  Check(xnn_setup_multiply_nd_f32(mul, dims.size(), dims.data(), dims.size(), dims.data(), x.f32(),
                                  y.f32(), y.f32(), b.threadpool()),
        l, "xnn_setup_multiply_nd_f32");
  step.kernel = "xnn_sigmoid_nc_f32 + xnn_multiply_nd_f32";
  return step;
}

// hard_sigmoid, min(max(alpha * x + beta, 0), 1): a multiply and an add clamped to [0, 1].
Step MakeHardSigmoid(StepBuilder& b) {
  const ResolvedLayer& l = *b.chain().host;
  const Buffer x = b.Input(0, Layout::kAsStored);
  const Buffer y = b.Output(x.layout);
  const Shape stored = x.StoredShape();
  const std::vector<size_t> dims(stored.begin(), stored.end()), one = {1};
  // Read by the operators at run time; XNNPACK may read XNN_EXTRA_BYTES past them.
  auto alpha = std::make_shared<std::vector<float>>(1 + XNN_EXTRA_BYTES / sizeof(float),
                                                    static_cast<float>(l.attrs.Float("alpha")));
  auto beta = std::make_shared<std::vector<float>>(1 + XNN_EXTRA_BYTES / sizeof(float),
                                                   static_cast<float>(l.attrs.Float("beta")));
  xnn_operator_t mul = nullptr, add = nullptr;
  Check(xnn_create_multiply_nd_f32(-INFINITY, INFINITY, 0, &mul), l, "xnn_create_multiply_nd_f32");
  Step step;
  step.operators.emplace_back(mul);
  Check(xnn_create_add_nd_f32(0.0f, 1.0f, 0, &add), l, "xnn_create_add_nd_f32");
  step.operators.emplace_back(add);
  Check(xnn_setup_multiply_nd_f32(mul, dims.size(), dims.data(), 1, one.data(), x.f32(),
                                  alpha->data(), y.f32(), b.threadpool()),
        l, "xnn_setup_multiply_nd_f32");
  Check(xnn_setup_add_nd_f32(add, dims.size(), dims.data(), 1, one.data(), y.f32(), beta->data(),
                             y.f32(), b.threadpool()),
        l, "xnn_setup_add_nd_f32");
  step.constants = {alpha, beta};
  step.kernel = "xnn_multiply_nd_f32 + xnn_add_nd_f32 (clamped to [0, 1])";
  return step;
}

// concat along an image's channels (in NHWC: the last dim) or along a tensor's last axis: one
// strided copy per input into its columns of the output.
Step MakeConcat(StepBuilder& b) {
  const ResolvedLayer& l = *b.chain().host;
  const int64_t rank = static_cast<int64_t>(l.output_shapes[0].size());
  const int64_t axis = l.attrs.Int("axis") < 0 ? l.attrs.Int("axis") + rank : l.attrs.Int("axis");
  // An image's channels are NHWC's last dim; any tensor's last axis is its own.
  const Layout layout = rank == 4 && axis == 1 ? Layout::kNhwc : Layout::kLogical;
  const Buffer y = b.Output(layout);
  const size_t out_channels = static_cast<size_t>(y.StoredShape().back());
  const size_t rows = static_cast<size_t>(NumElements(y.shape)) / out_channels;
  Step step;
  size_t offset = 0;
  for (size_t i = 0; i < l.inputs.size(); ++i) {
    const Buffer x = b.Input(static_cast<int>(i), layout);
    const size_t channels = static_cast<size_t>(x.StoredShape().back());
    xnn_operator_t op = nullptr;
    Check(xnn_create_copy_nc_x32(channels, channels, out_channels, 0, &op), l,
          "xnn_create_copy_nc_x32");
    step.operators.emplace_back(op);
    Check(xnn_setup_copy_nc_x32(op, rows, x.f32(), y.f32() + offset, b.threadpool()), l,
          "xnn_setup_copy_nc_x32");
    offset += channels;
  }
  step.kernel = "xnn_copy_nc_x32 per input";
  return step;
}

std::string ConcatRefusal(const ResolvedLayer& l) {
  const int64_t rank = static_cast<int64_t>(l.output_shapes[0].size());
  int64_t axis = l.attrs.Int("axis");
  if (axis < 0) axis += rank;
  if ((rank == 4 && axis == 1) || axis == rank - 1) return "";
  return "XNNPACK's strided copy joins along an image's channels or the last axis only (axis " +
         std::to_string(axis) + ")";
}

Step MakeSoftmax(StepBuilder& b) {
  const ResolvedLayer& l = *b.chain().host;
  const Buffer x = b.Input(0, Layout::kLogical);
  const Buffer y = b.Output(Layout::kLogical);
  const Rows r = RowsOf(x);
  xnn_operator_t op = nullptr;
  Check(xnn_create_softmax_nc_f32(r.channels, r.channels, r.channels, 0, &op), l,
        "xnn_create_softmax_nc_f32");
  Step step;
  step.operators.emplace_back(op);
  Check(xnn_setup_softmax_nc_f32(op, r.batch, x.f32(), y.f32(), b.threadpool()), l,
        "xnn_setup_softmax_nc_f32");
  step.kernel = "xnn_softmax_nc_f32";
  return step;
}

Step MakeView(StepBuilder& b) {
  // In the IR's order, in whatever type it has (an i8 run reshapes qs8 values as they are).
  b.OutputIsView(b.Input(0, Layout::kLogical, b.Stored(0).type));
  Step step;
  step.kernel = "view (no data moves)";
  return step;
}

std::string SoftmaxRefusal(const ResolvedLayer& l) {
  const int64_t rank = static_cast<int64_t>(l.input_shapes[0].size());
  const int64_t axis = l.attrs.Int("axis");
  if (axis != -1 && axis != rank - 1) {
    return "XNNPACK's softmax runs over the last axis only (axis " + std::to_string(axis) + ")";
  }
  return "";
}

}  // namespace

void AddElementwiseOps(OpTable* table) {
  (*table)["relu"] = {MakeClamp, NoRefusal};
  (*table)["clipped_relu"] = {MakeClamp, NoRefusal};
  (*table)["leaky_relu"] = {MakeLeakyRelu, NoRefusal};
  (*table)["sigmoid"] = {MakeSigmoid, NoRefusal};
  (*table)["hard_swish"] = {MakeHardswish, NoRefusal};
  (*table)["sqrt"] = {MakeSquareRoot, NoRefusal};
  (*table)["pow"] = {MakePow, PowRefusal};
  (*table)["add"] = {MakeAdd, DimsRefusal};
  (*table)["sub"] = {MakeSubtract, DimsRefusal};
  (*table)["mul"] = {MakeMultiply, DimsRefusal};
  (*table)["div"] = {MakeDivide, DimsRefusal};
  (*table)["softmax"] = {MakeSoftmax, SoftmaxRefusal};
  (*table)["swish"] = {MakeSwish, NoRefusal};
  (*table)["hard_sigmoid"] = {MakeHardSigmoid, NoRefusal};
  (*table)["concat"] = {MakeConcat, ConcatRefusal};
  (*table)["flatten"] = {MakeView, NoRefusal};
  (*table)["reshape"] = {MakeView, NoRefusal};
}

}  // namespace ntpb::xnnb
