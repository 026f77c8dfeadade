// conv2d as im2col + GEMM per (image, group); depthwise as a direct loop (a GEMM of one row
// would be mostly overhead); 1x1 stride-1 convolutions skip im2col. conv_transpose as GEMM +
// col2im.
#include <algorithm>

#include "src/backends/common/conv_geometry.h"
#include "src/backends/eigen/kernels.h"

namespace ntpb::eigen {
namespace {

// Rows (channel, ky, kx) x columns (oy, ox) of one group of one image.
void Im2col(const ConvGeometry& g, const float* image, int64_t channels, float* col) {
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t ky = 0; ky < g.kh; ++ky) {
      for (int64_t kx = 0; kx < g.kw; ++kx) {
        float* row = col + ((c * g.kh + ky) * g.kw + kx) * g.oh * g.ow;
        for (int64_t oy = 0; oy < g.oh; ++oy) {
          const int64_t iy = oy * g.sh - g.pt + ky * g.dh;
          for (int64_t ox = 0; ox < g.ow; ++ox) {
            const int64_t ix = ox * g.sw - g.pl + kx * g.dw;
            row[oy * g.ow + ox] = (iy >= 0 && iy < g.h && ix >= 0 && ix < g.w)
                                      ? image[(c * g.h + iy) * g.w + ix]
                                      : 0.0f;
          }
        }
      }
    }
  }
}

Kernel MakeConv2d(const KernelArgs& a) {
  const ConvGeometry g = ConvGeometryOf(a.layer);
  const float* x = a.inputs[0];
  const float* w = a.weights[0];
  const float* b = a.weights.size() > 1 ? a.weights[1] : nullptr;
  float* y = a.output;
  const Activation act = Activation::FromAttrs(a.layer.attrs);
  const int64_t cg = g.c / g.groups, fg = g.f / g.groups, plane = g.oh * g.ow;
  const int threads = a.threads;

  if (cg == 1) {  // depthwise (with an optional channel multiplier fg)
    return [=] {
#pragma omp parallel for num_threads(threads) collapse(2)
      for (int64_t n = 0; n < g.n; ++n) {
        for (int64_t f = 0; f < g.f; ++f) {
          const float* image = x + (n * g.c + f / fg) * g.h * g.w;
          const float* kernel = w + f * g.kh * g.kw;
          float* out = y + (n * g.f + f) * plane;
          std::fill(out, out + plane, b ? b[f] : 0.0f);
          // Tap by tap over the valid output columns: the inner loop is a contiguous
          // multiply-add (for stride 1) that the compiler vectorizes.
          for (int64_t ky = 0; ky < g.kh; ++ky) {
            for (int64_t kx = 0; kx < g.kw; ++kx) {
              const float tap = kernel[ky * g.kw + kx];
              const int64_t shift = kx * g.dw - g.pl;  // ix = ox * sw + shift
              const int64_t ox0 = shift >= 0 ? 0 : (-shift + g.sw - 1) / g.sw;
              const int64_t last = g.w - 1 - shift;  // largest ox * sw still inside the row
              const int64_t ox1 = last < 0 ? 0 : std::min<int64_t>(g.ow, last / g.sw + 1);
              for (int64_t oy = 0; oy < g.oh; ++oy) {
                const int64_t iy = oy * g.sh - g.pt + ky * g.dh;
                if (iy < 0 || iy >= g.h) continue;
                const float* row = image + iy * g.w + shift;
                float* dst = out + oy * g.ow;
                for (int64_t ox = ox0; ox < ox1; ++ox) dst[ox] += tap * row[ox * g.sw];
              }
            }
          }
          act.Apply(out, plane);
        }
      }
    };
  }

  const bool pointwise = g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.pt == 0 &&
                         g.pl == 0 && g.oh == g.h && g.ow == g.w;
  const int64_t rows = cg * g.kh * g.kw;
  Scratchpad* scratch = a.scratch;
  if (!pointwise) scratch->Require(rows * plane);
  return [=] {
    for (int64_t n = 0; n < g.n; ++n) {
      for (int64_t grp = 0; grp < g.groups; ++grp) {
        const float* image = x + (n * g.c + grp * cg) * g.h * g.w;
        const float* cols = image;
        if (!pointwise) {
          Im2col(g, image, cg, scratch->data());
          cols = scratch->data();
        }
        MatrixMap out(y + (n * g.f + grp * fg) * plane, fg, plane);
        out.noalias() =
            ConstMatrixMap(w + grp * fg * rows, fg, rows) * ConstMatrixMap(cols, rows, plane);
        if (b) out.colwise() += Eigen::Map<const Eigen::VectorXf>(b + grp * fg, fg);
      }
    }
    act.Apply(y, g.n * g.f * plane);
  };
}

// conv_transpose as the adjoint of im2col + GEMM: per (image, group) a GEMM W^T x gives every
// input pixel's contribution to each (filter, ky, kx), then col2im adds them into the output.
Kernel MakeConvTranspose(const KernelArgs& a) {
  const Shape& in = a.layer.input_shapes[0];
  const Shape& out = a.layer.output_shapes[0];
  const auto k = a.layer.attrs.Ints("kernel"), s = a.layer.attrs.Ints("stride"),
             d = a.layer.attrs.Ints("dilation"), p = a.layer.attrs.Ints("padding");
  const int64_t n_img = in[0], c = in[1], h = in[2], w = in[3];
  const int64_t f = out[1], oh = out[2], ow = out[3], groups = a.layer.attrs.Int("groups");
  const int64_t cg = c / groups, fg = f / groups, rows = fg * k[0] * k[1], plane = h * w;
  const float* x = a.inputs[0];
  const float* wt = a.weights[0];  // [C, F / groups, kh, kw]
  const float* b = a.weights.size() > 1 ? a.weights[1] : nullptr;
  float* y = a.output;
  Scratchpad* scratch = a.scratch;
  scratch->Require(rows * plane);
  return [=] {
    for (int64_t n = 0; n < n_img; ++n) {
      for (int64_t grp = 0; grp < groups; ++grp) {
        float* col = scratch->data();
        MatrixMap(col, rows, plane).noalias() =
            ConstMatrixMap(wt + grp * cg * rows, cg, rows).transpose() *
            ConstMatrixMap(x + (n * c + grp * cg) * plane, cg, plane);
        for (int64_t ff = 0; ff < fg; ++ff) {
          float* dst = y + (n * f + grp * fg + ff) * oh * ow;
          std::fill(dst, dst + oh * ow, b ? b[grp * fg + ff] : 0.0f);
          for (int64_t ky = 0; ky < k[0]; ++ky) {
            for (int64_t kx = 0; kx < k[1]; ++kx) {
              const float* src = col + ((ff * k[0] + ky) * k[1] + kx) * plane;
              for (int64_t iy = 0; iy < h; ++iy) {
                const int64_t oy = iy * s[0] - p[0] + ky * d[0];
                if (oy < 0 || oy >= oh) continue;
                for (int64_t ix = 0; ix < w; ++ix) {
                  const int64_t ox = ix * s[1] - p[1] + kx * d[1];
                  if (ox >= 0 && ox < ow) dst[oy * ow + ox] += src[iy * w + ix];
                }
              }
            }
          }
        }
      }
    }
  };
}

}  // namespace

void AddConvKernels(KernelTable* table) {
  (*table)["conv2d"] = MakeConv2d;
  (*table)["conv_transpose"] = MakeConvTranspose;
}

}  // namespace ntpb::eigen
