// max_pool, avg_pool, global_avg_pool, batchnorm, layernorm: in whatever layout the input has;
// rms_norm as host code (oneDNN 2.6's layer normalization always subtracts the mean).
#include <cmath>
#include <memory>

#include "src/backends/onednn/builder.h"

namespace ntpb::onednn {
namespace {

using dt = memory::data_type;
using tag = memory::format_tag;

// Pools `src` into a plain or primitive-chosen output; `plain_out` forces plain row-major
// (a reorder in the same step when the primitive picks another layout).
void Pool(Builder& b, dnnl::algorithm alg, const memory::dims& kernel, const memory::dims& stride,
          const memory::dims& pad_l, const memory::dims& pad_r, const Shape& out_dims,
          bool plain_out, const Shape& out_shape) {
  const ResolvedLayer& l = b.layer();
  const memory src = b.Input(l.inputs[0]);
  const dt type = src.get_desc().data_type();
  const memory::desc dst_any(Dims(out_dims), type, tag::any);
  dnnl::pooling_forward::desc desc(dnnl::prop_kind::forward_inference, alg, src.get_desc(), dst_any,
                                   stride, kernel, pad_l, pad_r);
  dnnl::pooling_forward::primitive_desc pd(desc, UserScratchpad(), b.engine());
  const memory::desc plain = PlainDesc(out_dims, type);
  if (!plain_out || pd.dst_desc() == plain) {
    const memory dst = b.NewOutput(pd.dst_desc());
    b.AddPrimitive(pd, dnnl::pooling_forward(pd), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
    if (plain_out)
      b.SetTensor(l.outputs[0],
                  memory(PlainDesc(out_shape, type), b.engine(), dst.get_data_handle()));
    return;
  }
  memory pooled(pd.dst_desc(), b.engine());
  b.AddPrimitive(pd, dnnl::pooling_forward(pd), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, pooled}});
  const memory out = b.NewOutput(PlainDesc(out_shape, type));
  const memory out4(plain, b.engine(), out.get_data_handle());
  b.Add(dnnl::reorder(pooled, out4), {{DNNL_ARG_FROM, pooled}, {DNNL_ARG_TO, out4}});
}

void BuildPool(Builder& b, bool max) {
  const ResolvedLayer& l = b.layer();
  const auto k = l.attrs.Ints("kernel"), s = l.attrs.Ints("stride"), p = l.attrs.Ints("padding");
  dnnl::algorithm alg = dnnl::algorithm::pooling_max;
  if (!max) {
    alg = l.attrs.Bool("count_include_pad") ? dnnl::algorithm::pooling_avg_include_padding
                                            : dnnl::algorithm::pooling_avg_exclude_padding;
  }
  Pool(b, alg, {k[0], k[1]}, {s[0], s[1]}, {p[0], p[1]}, {p[2], p[3]}, l.output_shapes[0], false,
       l.output_shapes[0]);
}
void BuildMaxPool(Builder& b) { BuildPool(b, true); }
void BuildAvgPool(Builder& b) { BuildPool(b, false); }

void BuildGlobalAvgPool(Builder& b) {
  const ResolvedLayer& l = b.layer();
  const Shape& in = l.input_shapes[0];
  Pool(b, dnnl::algorithm::pooling_avg_exclude_padding, {in[2], in[3]}, {1, 1}, {0, 0}, {0, 0},
       {in[0], in[1], 1, 1}, true, l.output_shapes[0]);
}

void BuildBatchnorm(Builder& b) {
  const ResolvedLayer& l = b.layer();
  const memory src = b.Input(l.inputs[0]);
  using flags = dnnl::normalization_flags;
  dnnl::batch_normalization_forward::desc desc(
      dnnl::prop_kind::forward_inference, src.get_desc(),
      static_cast<float>(l.attrs.Float("epsilon")),
      flags::use_global_stats | flags::use_scale | flags::use_shift);
  dnnl::batch_normalization_forward::primitive_desc pd(desc, UserScratchpad(), b.engine());
  const memory dst = b.NewOutput(pd.dst_desc());
  const int64_t c = l.input_shapes[0][1];
  const memory::desc vec({c}, dt::f32, tag::a);
  b.AddPrimitive(pd, dnnl::batch_normalization_forward(pd),
                 {{DNNL_ARG_SRC, src},
                  {DNNL_ARG_DST, dst},
                  {DNNL_ARG_SCALE, b.WeightMemory(b.WeightValues(0), vec, vec)},
                  {DNNL_ARG_SHIFT, b.WeightMemory(b.WeightValues(1), vec, vec)},
                  {DNNL_ARG_MEAN, b.WeightMemory(b.WeightValues(2), vec, vec)},
                  {DNNL_ARG_VARIANCE, b.WeightMemory(b.WeightValues(3), vec, vec)}});
}

void BuildLayernorm(Builder& b) {
  const ResolvedLayer& l = b.layer();
  const memory src = b.PlainInput(l.inputs[0]);
  using flags = dnnl::normalization_flags;
  dnnl::layer_normalization_forward::desc desc(dnnl::prop_kind::forward_inference, src.get_desc(),
                                               static_cast<float>(l.attrs.Float("epsilon")),
                                               flags::use_scale | flags::use_shift);
  dnnl::layer_normalization_forward::primitive_desc pd(desc, UserScratchpad(), b.engine());
  const memory dst = b.NewOutput(pd.dst_desc());
  const memory::desc vec({l.input_shapes[0].back()}, dt::f32, tag::a);
  Args args = {{DNNL_ARG_SRC, src},
               {DNNL_ARG_DST, dst},
               {DNNL_ARG_SCALE, b.WeightMemory(b.WeightValues(0), vec, vec)},
               {DNNL_ARG_SHIFT, b.WeightMemory(b.WeightValues(1), vec, vec)}};
  // Statistics are computed per inference; oneDNN wants room for them.
  args[DNNL_ARG_MEAN] = memory(pd.mean_desc(), b.engine());
  args[DNNL_ARG_VARIANCE] = memory(pd.variance_desc(), b.engine());
  b.AddPrimitive(pd, dnnl::layer_normalization_forward(pd), std::move(args));
}

void BuildRmsNorm(Builder& b) {
  const ResolvedLayer& l = b.layer();
  const Shape& shape = l.input_shapes[0];
  const int64_t c = shape.back(), rows = NumElements(shape) / c;
  const float eps = static_cast<float>(l.attrs.Float("epsilon"));
  auto gamma = std::make_shared<const std::vector<float>>(b.WeightValues(0));
  const memory src = b.Input(l.inputs[0], PlainDesc(shape, dt::f32));
  const memory dst = b.HostOutputF32(shape);
  b.AddHost([=] {
    const float* x = static_cast<const float*>(src.get_data_handle());
    float* y = static_cast<float*>(dst.get_data_handle());
#pragma omp parallel for if (rows > 1)
    for (int64_t r = 0; r < rows; ++r) {
      const float* in = x + r * c;
      float partial[16] = {};  // 16 running sums the compiler keeps in vector registers
      int64_t i = 0;
      for (; i + 16 <= c; i += 16) {
        for (int k = 0; k < 16; ++k) partial[k] += in[i + k] * in[i + k];
      }
      float sum = 0.0f;
      for (; i < c; ++i) sum += in[i] * in[i];
      for (float p : partial) sum += p;
      const float inv = 1.0f / std::sqrt(sum / static_cast<float>(c) + eps);
      for (int64_t k = 0; k < c; ++k) y[r * c + k] = in[k] * inv * (*gamma)[k];
    }
  });
  b.ConvertHostOutput(dst, shape);
  b.SetKernel("ntpbench host rms_norm");
}

}  // namespace

void AddPoolingNormOps(OpTable* table) {
  (*table)["max_pool"] = BuildMaxPool;
  (*table)["avg_pool"] = BuildAvgPool;
  (*table)["global_avg_pool"] = BuildGlobalAvgPool;
  (*table)["batchnorm"] = BuildBatchnorm;
  (*table)["layernorm"] = BuildLayernorm;
  (*table)["rms_norm"] = BuildRmsNorm;
}

}  // namespace ntpb::onednn
