#include "tests/backends/naive_ops.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <stdexcept>

namespace ntpb::testing {
namespace {

float Act(const std::string& kind, float clip, float x) {
  if (kind == "relu") return x > 0 ? x : 0;
  if (kind == "clipped_relu") return std::min(std::max(x, 0.0f), clip);
  if (kind == "sigmoid") return 1.0f / (1.0f + std::exp(-x));
  if (kind == "tanh") return std::tanh(x);
  if (kind == "gelu") return 0.5f * x * (1.0f + std::erf(x / std::sqrt(2.0f)));
  if (kind == "gelu_tanh") {
    return 0.5f * x *
           (1.0f + std::tanh(std::sqrt(2.0f / 3.14159265358979f) * (x + 0.044715f * x * x * x)));
  }
  return x;
}

float FusedAct(const ResolvedLayer& l, float x) {
  return Act(l.attrs.Str("activation"), static_cast<float>(l.attrs.Float("clip")), x);
}

// Row-major offset of a multi-index.
int64_t Offset(const Shape& shape, const std::vector<int64_t>& idx) {
  int64_t off = 0;
  for (size_t i = 0; i < shape.size(); ++i) off = off * shape[i] + idx[i];
  return off;
}

std::vector<int64_t> Unravel(const Shape& shape, int64_t flat) {
  std::vector<int64_t> idx(shape.size());
  for (size_t i = shape.size(); i-- > 0;) {
    idx[i] = flat % shape[i];
    flat /= shape[i];
  }
  return idx;
}

Values Dense(const ResolvedLayer& l, const Values& x, const std::vector<Values>& w) {
  const int64_t k = l.input_shapes[0].back(), u = l.output_shapes[0].back();
  const int64_t m = static_cast<int64_t>(x.size()) / k;
  Values y(m * u);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < u; ++j) {
      double s = w.size() > 1 ? w[1][j] : 0.0;
      for (int64_t p = 0; p < k; ++p) s += double{x[i * k + p]} * w[0][p * u + j];
      y[i * u + j] = FusedAct(l, static_cast<float>(s));
    }
  }
  return y;
}

Values Conv2d(const ResolvedLayer& l, const Values& x, const std::vector<Values>& w) {
  const Shape& in = l.input_shapes[0];
  const Shape& out = l.output_shapes[0];
  const auto k = l.attrs.Ints("kernel"), s = l.attrs.Ints("stride"), d = l.attrs.Ints("dilation"),
             p = l.attrs.Ints("padding");
  const int64_t groups = l.attrs.Int("groups"), cg = in[1] / groups, fg = out[1] / groups;
  Values y(NumElements(out));
  for (int64_t n = 0; n < out[0]; ++n)
    for (int64_t f = 0; f < out[1]; ++f)
      for (int64_t oy = 0; oy < out[2]; ++oy)
        for (int64_t ox = 0; ox < out[3]; ++ox) {
          double sum = w.size() > 1 ? w[1][f] : 0.0;
          const int64_t g = f / fg;
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t ky = 0; ky < k[0]; ++ky)
              for (int64_t kx = 0; kx < k[1]; ++kx) {
                const int64_t iy = oy * s[0] - p[0] + ky * d[0];
                const int64_t ix = ox * s[1] - p[1] + kx * d[1];
                if (iy < 0 || iy >= in[2] || ix < 0 || ix >= in[3]) continue;
                sum += double{x[Offset(in, {n, g * cg + c, iy, ix})]} *
                       w[0][Offset({out[1], cg, k[0], k[1]}, {f, c, ky, kx})];
              }
          y[Offset(out, {n, f, oy, ox})] = FusedAct(l, static_cast<float>(sum));
        }
  return y;
}

Values Pool(const ResolvedLayer& l, const Values& x, bool is_max) {
  const Shape& in = l.input_shapes[0];
  const Shape& out = l.output_shapes[0];
  const auto k = l.attrs.Ints("kernel"), s = l.attrs.Ints("stride"), p = l.attrs.Ints("padding");
  const bool include_pad = !is_max && l.attrs.Bool("count_include_pad");
  Values y(NumElements(out));
  for (int64_t n = 0; n < out[0]; ++n)
    for (int64_t c = 0; c < out[1]; ++c)
      for (int64_t oy = 0; oy < out[2]; ++oy)
        for (int64_t ox = 0; ox < out[3]; ++ox) {
          double acc = is_max ? -std::numeric_limits<double>::infinity() : 0.0;
          int count = 0;
          for (int64_t ky = 0; ky < k[0]; ++ky)
            for (int64_t kx = 0; kx < k[1]; ++kx) {
              const int64_t iy = oy * s[0] - p[0] + ky, ix = ox * s[1] - p[1] + kx;
              if (iy < 0 || iy >= in[2] || ix < 0 || ix >= in[3]) continue;
              const float v = x[Offset(in, {n, c, iy, ix})];
              acc = is_max ? std::max(acc, double{v}) : acc + v;
              ++count;
            }
          if (!is_max) acc /= include_pad ? k[0] * k[1] : count;
          y[Offset(out, {n, c, oy, ox})] = static_cast<float>(acc);
        }
  return y;
}

Values GlobalAvgPool(const ResolvedLayer& l, const Values& x) {
  const Shape& in = l.input_shapes[0];
  const int64_t area = in[2] * in[3];
  Values y(in[0] * in[1]);
  for (int64_t i = 0; i < in[0] * in[1]; ++i) {
    double s = 0;
    for (int64_t a = 0; a < area; ++a) s += x[i * area + a];
    y[i] = static_cast<float>(s / area);
  }
  return y;
}

Values Batchnorm(const ResolvedLayer& l, const Values& x, const std::vector<Values>& w) {
  const Shape& in = l.input_shapes[0];
  const double eps = l.attrs.Float("epsilon");
  Values y(x.size());
  for (int64_t i = 0; i < static_cast<int64_t>(x.size()); ++i) {
    const int64_t c = Unravel(in, i)[1];
    y[i] = static_cast<float>(w[0][c] * (x[i] - w[2][c]) / std::sqrt(w[3][c] + eps) + w[1][c]);
  }
  return y;
}

Values Layernorm(const ResolvedLayer& l, const Values& x, const std::vector<Values>& w) {
  const int64_t c = l.input_shapes[0].back(), rows = static_cast<int64_t>(x.size()) / c;
  const double eps = l.attrs.Float("epsilon");
  Values y(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    double mean = 0, var = 0;
    for (int64_t i = 0; i < c; ++i) mean += x[r * c + i];
    mean /= c;
    for (int64_t i = 0; i < c; ++i) var += (x[r * c + i] - mean) * (x[r * c + i] - mean);
    var /= c;
    for (int64_t i = 0; i < c; ++i) {
      y[r * c + i] =
          static_cast<float>((x[r * c + i] - mean) / std::sqrt(var + eps) * w[0][i] + w[1][i]);
    }
  }
  return y;
}

Values RmsNorm(const ResolvedLayer& l, const Values& x, const std::vector<Values>& w) {
  const int64_t c = l.input_shapes[0].back(), rows = static_cast<int64_t>(x.size()) / c;
  Values y(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    double ms = 0;
    for (int64_t i = 0; i < c; ++i) ms += double{x[r * c + i]} * x[r * c + i];
    const double inv = 1.0 / std::sqrt(ms / c + l.attrs.Float("epsilon"));
    for (int64_t i = 0; i < c; ++i) y[r * c + i] = static_cast<float>(x[r * c + i] * inv * w[0][i]);
  }
  return y;
}

Values Swiglu(const ResolvedLayer& l, const Values& x) {
  const int64_t f = l.output_shapes[0].back(), rows = static_cast<int64_t>(x.size()) / (2 * f);
  const bool gelu = l.attrs.Str("activation") == "gelu";
  Values y(rows * f);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t i = 0; i < f; ++i) {
      const double z = x[r * 2 * f + i];
      const double act =
          gelu ? 0.5 * z * (1 + std::erf(z / std::sqrt(2.0))) : z / (1 + std::exp(-z));
      y[r * f + i] = static_cast<float>(act * x[r * 2 * f + f + i]);
    }
  }
  return y;
}

// Query i of item n, head h: the keys it sees, scored, softmaxed and averaged over v, in double.
Values Attention(const ResolvedLayer& l, const std::vector<Values>& in) {
  const Shape &sq = l.input_shapes[0], &sk = l.input_shapes[1], &sv = l.input_shapes[2];
  const int64_t n_items = sq[0], nq = sq[1], nk = sk[1], heads = l.attrs.Int("heads");
  const int64_t kv_heads = l.attrs.Int("kv_heads"), d = sq[2] / heads, dv = sv[2] / kv_heads;
  const double scale = l.attrs.Float("scale");
  const bool causal = l.attrs.Bool("causal");
  Values y(n_items * nq * heads * dv, 0.0f);
  for (int64_t n = 0; n < n_items; ++n) {
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t kvh = h * kv_heads / heads;
      for (int64_t i = 0; i < nq; ++i) {
        std::vector<double> score(nk);
        std::vector<bool> seen(nk, false);
        double top = -std::numeric_limits<double>::infinity();
        for (int64_t j = 0; j < nk; ++j) {
          if (causal && j > nk - nq + i) continue;
          if (in.size() == 4 && in[3][n * nk + j] == 0.0f) continue;
          double dot = 0;
          for (int64_t e = 0; e < d; ++e) {
            dot += double{in[0][(n * nq + i) * heads * d + h * d + e]} *
                   in[1][(n * nk + j) * kv_heads * d + kvh * d + e];
          }
          score[j] = dot * scale;
          seen[j] = true;
          top = std::max(top, score[j]);
        }
        double sum = 0;
        for (int64_t j = 0; j < nk; ++j) sum += seen[j] ? std::exp(score[j] - top) : 0.0;
        if (sum == 0) continue;  // no key seen: zeros
        for (int64_t e = 0; e < dv; ++e) {
          double acc = 0;
          for (int64_t j = 0; j < nk; ++j) {
            if (seen[j])
              acc += std::exp(score[j] - top) / sum *
                     in[2][(n * nk + j) * kv_heads * dv + kvh * dv + e];
          }
          y[(n * nq + i) * heads * dv + h * dv + e] = static_cast<float>(acc);
        }
      }
    }
  }
  return y;
}

Values Rotary(const ResolvedLayer& l, const Values& x) {
  const Shape& s = l.input_shapes[0];
  const int64_t heads = l.attrs.Int("heads"), d = s[2] / heads;
  const bool interleaved = l.attrs.Str("style") == "interleaved";
  Values y = x;
  for (int64_t n = 0; n < s[0]; ++n) {
    for (int64_t p = 0; p < s[1]; ++p) {
      const double pos = static_cast<double>(l.attrs.Int("offset") + p);
      for (int64_t h = 0; h < heads; ++h) {
        const int64_t base = ((n * s[1] + p) * heads + h) * d;
        for (int64_t j = 0; j < d / 2; ++j) {
          const double theta = pos / std::pow(l.attrs.Float("base"), 2.0 * j / d);
          const int64_t i0 = interleaved ? base + 2 * j : base + j;
          const int64_t i1 = interleaved ? i0 + 1 : i0 + d / 2;
          y[i0] = static_cast<float>(x[i0] * std::cos(theta) - x[i1] * std::sin(theta));
          y[i1] = static_cast<float>(x[i1] * std::cos(theta) + x[i0] * std::sin(theta));
        }
      }
    }
  }
  return y;
}

Values Softmax(const ResolvedLayer& l, const Values& x) {
  const Shape& s = l.input_shapes[0];
  int64_t axis = l.attrs.Int("axis");
  if (axis < 0) axis += static_cast<int64_t>(s.size());
  Values y(x.size());
  for (int64_t i = 0; i < static_cast<int64_t>(x.size()); ++i) {
    std::vector<int64_t> idx = Unravel(s, i);
    double mx = -1e30, sum = 0;
    for (int64_t a = 0; a < s[axis]; ++a) {
      idx[axis] = a;
      mx = std::max(mx, double{x[Offset(s, idx)]});
    }
    for (int64_t a = 0; a < s[axis]; ++a) {
      idx[axis] = a;
      sum += std::exp(x[Offset(s, idx)] - mx);
    }
    y[i] = static_cast<float>(std::exp(x[i] - mx) / sum);
  }
  return y;
}

Values Binary(const ResolvedLayer& l, const Values& a, const Values& b, char op) {
  const Shape& out = l.output_shapes[0];
  const Shape& sa = l.input_shapes[0];
  const Shape& sb = l.input_shapes[1];
  auto pick = [&](const Shape& s, const std::vector<int64_t>& idx) {
    std::vector<int64_t> sub(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
      const int64_t o = idx[idx.size() - s.size() + i];
      sub[i] = s[i] == 1 ? 0 : o;
    }
    return Offset(s, sub);
  };
  Values y(NumElements(out));
  for (int64_t i = 0; i < static_cast<int64_t>(y.size()); ++i) {
    const auto idx = Unravel(out, i);
    const float va = a[pick(sa, idx)], vb = b[pick(sb, idx)];
    if (op == '=' || op == '<' || op == '>') {
      y[i] = (op == '=' ? va == vb : op == '<' ? va < vb : va > vb) ? 1.0f : 0.0f;
    } else {
      y[i] = op == '+' ? va + vb : op == '-' ? va - vb : op == '*' ? va * vb : va / vb;
    }
  }
  return y;
}

// The element of `x` (of shape s) that NumPy broadcasting reads for output index idx.
float Broadcast(const Values& x, const Shape& s, const std::vector<int64_t>& idx) {
  std::vector<int64_t> sub(s.size());
  for (size_t i = 0; i < s.size(); ++i) sub[i] = s[i] == 1 ? 0 : idx[idx.size() - s.size() + i];
  return x[Offset(s, sub)];
}

Values Where(const ResolvedLayer& l, const Values& c, const Values& a, const Values& b) {
  const Shape& out = l.output_shapes[0];
  Values y(NumElements(out));
  for (int64_t i = 0; i < static_cast<int64_t>(y.size()); ++i) {
    const auto idx = Unravel(out, i);
    y[i] = Broadcast(c, l.input_shapes[0], idx) != 0 ? Broadcast(a, l.input_shapes[1], idx)
                                                     : Broadcast(b, l.input_shapes[2], idx);
  }
  return y;
}

Values Expand(const ResolvedLayer& l, const Values& x) {
  const Shape& out = l.output_shapes[0];
  Values y(NumElements(out));
  for (int64_t i = 0; i < static_cast<int64_t>(y.size()); ++i) {
    y[i] = Broadcast(x, l.input_shapes[0], Unravel(out, i));
  }
  return y;
}

Values Embedding(const ResolvedLayer& l, const Values& ids, const Values& table) {
  const int64_t vocab = l.attrs.Int("vocab"), dim = l.attrs.Int("dim");
  Values y;
  for (float id : ids) {
    const int64_t row = id < 0 ? static_cast<int64_t>(id) + vocab : static_cast<int64_t>(id);
    if (row < 0 || row >= vocab) throw std::runtime_error("naive embedding: id out of range");
    y.insert(y.end(), table.begin() + row * dim, table.begin() + (row + 1) * dim);
  }
  return y;
}

Values Slice(const ResolvedLayer& l, const Values& x) {
  const Shape& in = l.input_shapes[0];
  const Shape& out = l.output_shapes[0];
  const int64_t axis = l.attrs.Int("axis"), start = l.attrs.Int("start");
  Values y(NumElements(out));
  for (int64_t i = 0; i < static_cast<int64_t>(y.size()); ++i) {
    auto idx = Unravel(out, i);
    idx[axis] += start;
    y[i] = x[Offset(in, idx)];
  }
  return y;
}

Values Concat(const ResolvedLayer& l, const std::vector<Values>& inputs) {
  const Shape& out = l.output_shapes[0];
  int64_t axis = l.attrs.Int("axis");
  if (axis < 0) axis += static_cast<int64_t>(out.size());
  Values y(NumElements(out));
  for (int64_t i = 0; i < static_cast<int64_t>(y.size()); ++i) {
    auto idx = Unravel(out, i);
    size_t which = 0;
    while (idx[axis] >= l.input_shapes[which][axis]) idx[axis] -= l.input_shapes[which++][axis];
    y[i] = inputs[which][Offset(l.input_shapes[which], idx)];
  }
  return y;
}

Values Transpose(const ResolvedLayer& l, const Values& x) {
  const Shape& in = l.input_shapes[0];
  const Shape& out = l.output_shapes[0];
  const auto perm = l.attrs.Ints("perm");
  Values y(x.size());
  for (int64_t i = 0; i < static_cast<int64_t>(y.size()); ++i) {
    const auto o = Unravel(out, i);
    std::vector<int64_t> src(in.size());
    for (size_t a = 0; a < perm.size(); ++a) src[perm[a]] = o[a];
    y[i] = x[Offset(in, src)];
  }
  return y;
}

Values Matmul(const ResolvedLayer& l, const Values& a, const Values& b) {
  const Shape& sa = l.input_shapes[0];
  const Shape& sb = l.input_shapes[1];
  const int64_t m = sa[sa.size() - 2], k = sa.back(), n = sb.back();
  const int64_t batch = NumElements(sa) / (m * k);
  Values y(batch * m * n);
  for (int64_t bi = 0; bi < batch; ++bi)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t p = 0; p < k; ++p) {
          s += double{a[(bi * m + i) * k + p]} * b[(sb.size() == 2 ? 0 : bi * k * n) + p * n + j];
        }
        y[(bi * m + i) * n + j] = static_cast<float>(s);
      }
  return y;
}

double Sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }

// One direction of an LSTM or GRU, element by element, written into its half of the output;
// from the initial states in[1] (h0) and in[2] (c0), [dirs, N, H], where given.
void Recurrent(const ResolvedLayer& l, const std::vector<Values>& in_values,
               const std::vector<Values>& w, int dir, bool reverse, bool lstm, Values* y,
               Values* final_cell) {
  const Values& x = in_values[0];
  const Shape& in = l.input_shapes[0];
  const int64_t n = in[0], t_len = in[1], c = in[2], h = l.attrs.Int("units");
  const int64_t gates = lstm ? 4 : 3, width = l.output_shapes[0][2];
  const int per_dir = lstm ? 3 : 4;
  const Values& wx = w[dir * per_dir];
  const Values& wh = w[dir * per_dir + 1];
  const Values& bias = w[dir * per_dir + 2];
  for (int64_t b = 0; b < n; ++b) {
    std::vector<double> hs(h, 0.0), cs(h, 0.0);
    for (int64_t j = 0; j < h; ++j) {
      if (in_values.size() > 1) hs[j] = in_values[1][(dir * n + b) * h + j];
      if (lstm && in_values.size() > 2) cs[j] = in_values[2][(dir * n + b) * h + j];
    }
    for (int64_t s = 0; s < t_len; ++s) {
      const int64_t t = reverse ? t_len - 1 - s : s;
      std::vector<double> xg(gates * h), hg(gates * h);
      for (int64_t g = 0; g < gates * h; ++g) {
        xg[g] = bias[g];
        for (int64_t i = 0; i < c; ++i) xg[g] += x[(b * t_len + t) * c + i] * wx[i * gates * h + g];
        for (int64_t i = 0; i < h; ++i) hg[g] += hs[i] * wh[i * gates * h + g];
      }
      std::vector<double> next(h);
      for (int64_t j = 0; j < h; ++j) {
        if (lstm) {
          const double ig = Sigmoid(xg[j] + hg[j]), fg = Sigmoid(xg[h + j] + hg[h + j]);
          const double gg = std::tanh(xg[2 * h + j] + hg[2 * h + j]);
          const double og = Sigmoid(xg[3 * h + j] + hg[3 * h + j]);
          cs[j] = fg * cs[j] + ig * gg;
          next[j] = og * std::tanh(cs[j]);
        } else {
          const Values& bias_hn = w[dir * per_dir + 3];
          const double r = Sigmoid(xg[j] + hg[j]), z = Sigmoid(xg[h + j] + hg[h + j]);
          const double cand = std::tanh(xg[2 * h + j] + r * (hg[2 * h + j] + bias_hn[j]));
          next[j] = (1 - z) * cand + z * hs[j];
        }
      }
      hs = next;
      for (int64_t j = 0; j < h; ++j) {
        (*y)[(b * t_len + t) * width + dir * h + j] = static_cast<float>(hs[j]);
      }
    }
    for (int64_t j = 0; j < h && final_cell; ++j) {
      (*final_cell)[(dir * n + b) * h + j] = static_cast<float>(cs[j]);
    }
  }
}

// y, or (output 1) lstm's final cell state [dirs, N, H].
Values RecurrentLayer(const ResolvedLayer& l, const std::vector<Values>& in,
                      const std::vector<Values>& w, bool lstm, size_t output) {
  Values y(NumElements(l.output_shapes[0]));
  Values cell(output == 1 ? NumElements(l.output_shapes[1]) : 0);
  Values* final_cell = output == 1 ? &cell : nullptr;
  const std::string dir = l.attrs.Str("direction");
  Recurrent(l, in, w, 0, dir == "reverse", lstm, &y, final_cell);
  if (dir == "bidirectional") Recurrent(l, in, w, 1, true, lstm, &y, final_cell);
  return output == 1 ? cell : y;
}

// Every input pixel scattered through every tap: the definition of the transposed convolution.
Values ConvTranspose(const ResolvedLayer& l, const Values& x, const std::vector<Values>& w) {
  const Shape& in = l.input_shapes[0];
  const Shape& out = l.output_shapes[0];
  const auto k = l.attrs.Ints("kernel"), s = l.attrs.Ints("stride"), d = l.attrs.Ints("dilation"),
             p = l.attrs.Ints("padding");
  const int64_t groups = l.attrs.Int("groups"), cg = in[1] / groups, fg = out[1] / groups;
  std::vector<double> acc(NumElements(out), 0.0);
  for (int64_t n = 0; n < in[0]; ++n)
    for (int64_t c = 0; c < in[1]; ++c)
      for (int64_t iy = 0; iy < in[2]; ++iy)
        for (int64_t ix = 0; ix < in[3]; ++ix)
          for (int64_t f = 0; f < fg; ++f)
            for (int64_t ky = 0; ky < k[0]; ++ky)
              for (int64_t kx = 0; kx < k[1]; ++kx) {
                const int64_t oy = iy * s[0] + ky * d[0] - p[0], ox = ix * s[1] + kx * d[1] - p[1];
                if (oy < 0 || oy >= out[2] || ox < 0 || ox >= out[3]) continue;
                const int64_t oc = c / cg * fg + f;
                acc[Offset(out, {n, oc, oy, ox})] +=
                    double{x[Offset(in, {n, c, iy, ix})]} *
                    w[0][Offset({in[1], fg, k[0], k[1]}, {c, f, ky, kx})];
              }
  Values y(acc.size());
  for (size_t i = 0; i < y.size(); ++i) {
    const int64_t oc = Unravel(out, static_cast<int64_t>(i))[1];
    y[i] = static_cast<float>(acc[i] + (w.size() > 1 ? w[1][oc] : 0.0));
  }
  return y;
}

Values Reduce(const ResolvedLayer& l, const Values& x, const std::string& how) {
  const Shape& in = l.input_shapes[0];
  const auto axes = l.attrs.Ints("axes");
  Shape kept = in;
  for (int64_t a : axes) kept[a] = 1;
  std::vector<double> acc(NumElements(kept), how == "max" ? -INFINITY : 0.0);
  for (int64_t i = 0; i < static_cast<int64_t>(x.size()); ++i) {
    auto idx = Unravel(in, i);
    for (int64_t a : axes) idx[a] = 0;
    double& r = acc[Offset(kept, idx)];
    r = how == "max" ? std::max(r, double{x[i]}) : r + x[i];
  }
  const double count = static_cast<double>(x.size()) / static_cast<double>(acc.size());
  Values y(acc.size());
  for (size_t i = 0; i < y.size(); ++i) {
    y[i] = static_cast<float>(how == "mean" ? acc[i] / count : acc[i]);
  }
  return y;
}

Values Pad(const ResolvedLayer& l, const Values& x) {
  const Shape& in = l.input_shapes[0];
  const Shape& out = l.output_shapes[0];
  const auto pads = l.attrs.Ints("pads");
  Values y(NumElements(out), static_cast<float>(l.attrs.Float("value")));
  for (int64_t i = 0; i < static_cast<int64_t>(x.size()); ++i) {
    auto idx = Unravel(in, i);
    for (size_t a = 0; a < idx.size(); ++a) idx[a] += pads[a];
    y[Offset(out, idx)] = x[i];
  }
  return y;
}

// ONNX Resize, written from its specification: the source coordinate of each output index.
double ResizeSource(const std::string& mode, int64_t o, int64_t in, int64_t out) {
  const double scale = double(out) / double(in);
  if (mode == "half_pixel") return (o + 0.5) / scale - 0.5;
  if (mode == "pytorch_half_pixel") return out > 1 ? (o + 0.5) / scale - 0.5 : 0.0;
  if (mode == "align_corners") return out == 1 ? 0.0 : o * double(in - 1) / double(out - 1);
  return o / scale;  // asymmetric
}

Values Resize(const ResolvedLayer& l, const Values& x) {
  const Shape& in = l.input_shapes[0];
  const Shape& out = l.output_shapes[0];
  const std::string coords = l.attrs.Str("coordinates"), rounding = l.attrs.Str("nearest_rounding");
  const bool linear = l.attrs.Str("mode") == "linear";
  auto nearest = [&](double v, int64_t size) {
    const double f = std::floor(v);
    double r = rounding == "floor" ? f : rounding == "ceil" ? std::ceil(v) : 0.0;
    if (rounding == "round_prefer_floor") r = v - f > 0.5 ? f + 1 : f;
    if (rounding == "round_prefer_ceil") r = v - f >= 0.5 ? f + 1 : f;
    return std::min<int64_t>(std::max<int64_t>(static_cast<int64_t>(r), 0), size - 1);
  };
  Values y(NumElements(out));
  for (int64_t i = 0; i < static_cast<int64_t>(y.size()); ++i) {
    const auto idx = Unravel(out, i);
    double sy = ResizeSource(coords, idx[2], in[2], out[2]);
    double sx = ResizeSource(coords, idx[3], in[3], out[3]);
    auto at = [&](int64_t yy, int64_t xx) {
      return double{x[Offset(in, {idx[0], idx[1], yy, xx})]};
    };
    if (!linear) {
      y[i] = static_cast<float>(at(nearest(sy, in[2]), nearest(sx, in[3])));
      continue;
    }
    sy = std::min(std::max(sy, 0.0), double(in[2] - 1));
    sx = std::min(std::max(sx, 0.0), double(in[3] - 1));
    const int64_t y0 = static_cast<int64_t>(sy), x0 = static_cast<int64_t>(sx);
    const int64_t y1 = std::min(y0 + 1, in[2] - 1), x1 = std::min(x0 + 1, in[3] - 1);
    const double wy = sy - y0, wx = sx - x0;
    y[i] = static_cast<float>((1 - wy) * ((1 - wx) * at(y0, x0) + wx * at(y0, x1)) +
                              wy * ((1 - wx) * at(y1, x0) + wx * at(y1, x1)));
  }
  return y;
}

Values Map(const Values& x, const std::function<double(double)>& f) {
  Values y(x.size());
  for (size_t i = 0; i < x.size(); ++i) y[i] = static_cast<float>(f(x[i]));
  return y;
}

Values Unary(const std::string& kind, float clip, const Values& x) {
  Values y(x.size());
  for (size_t i = 0; i < x.size(); ++i) y[i] = Act(kind, clip, x[i]);
  return y;
}

}  // namespace

std::vector<int> NaiveCtcBest(const std::vector<double>& probs, int64_t frames, int64_t classes,
                              int64_t blank, double* probability) {
  std::map<std::vector<int>, double> sums;
  std::vector<int64_t> path(frames, 0);
  while (true) {
    double p = 1;
    std::vector<int> collapsed;
    for (int64_t t = 0; t < frames; ++t) {
      p *= probs[t * classes + path[t]];
      const bool repeat = t > 0 && path[t] == path[t - 1];
      if (path[t] != blank && !repeat) collapsed.push_back(static_cast<int>(path[t]));
    }
    sums[collapsed] += p;
    int64_t t = 0;
    while (t < frames && ++path[t] == classes) path[t++] = 0;
    if (t == frames) break;
  }
  auto best = sums.begin();
  for (auto it = sums.begin(); it != sums.end(); ++it) {
    if (it->second > best->second ||
        (it->second == best->second && it->first.size() < best->first.size())) {
      best = it;
    }
  }
  if (probability) *probability = best->second;
  return best->first;
}

namespace {

// mfcc by its definition, in double: a direct DFT (no FFT), the HTK filterbank, log, DCT-II.
Values Mfcc(const ResolvedLayer& l, const Values& in) {
  constexpr double kPi = 3.14159265358979323846;
  const int64_t rate = l.attrs.Int("sample_rate");
  const int64_t window = rate * l.attrs.Int("window_ms") / 1000;
  const int64_t step = rate * l.attrs.Int("step_ms") / 1000;
  const int64_t mels = l.attrs.Int("mels"), cepstra = l.attrs.Int("cepstra");
  const int64_t batch = l.input_shapes[0][0], samples = l.input_shapes[0][1];
  const int64_t frames = l.output_shapes[0][1], bins = window / 2 + 1;
  auto mel = [](double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); };
  auto hz = [](double m) { return 700.0 * (std::pow(10.0, m / 2595.0) - 1.0); };
  const double lo = mel(l.attrs.Float("low_hz")), hi = mel(l.attrs.Float("high_hz"));
  Values out(batch * frames * cepstra);
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t t = 0; t < frames; ++t) {
      std::vector<double> power(bins);
      for (int64_t k = 0; k < bins; ++k) {
        double re = 0, im = 0;
        for (int64_t i = 0; i < window; ++i) {
          const double x =
              in[n * samples + t * step + i] * (0.54 - 0.46 * std::cos(2 * kPi * i / window));
          re += x * std::cos(2 * kPi * k * i / window);
          im -= x * std::sin(2 * kPi * k * i / window);
        }
        power[k] = re * re + im * im;
      }
      std::vector<double> log_mel(mels);
      for (int64_t m = 0; m < mels; ++m) {
        const double f0 = hz(lo + (hi - lo) * m / (mels + 1));
        const double f1 = hz(lo + (hi - lo) * (m + 1) / (mels + 1));
        const double f2 = hz(lo + (hi - lo) * (m + 2) / (mels + 1));
        double energy = 0;
        for (int64_t k = 0; k < bins; ++k) {
          const double f = rate / 2.0 * k / (bins - 1);
          energy += std::max(0.0, std::min((f - f0) / (f1 - f0), (f2 - f) / (f2 - f1))) * power[k];
        }
        log_mel[m] = std::log(energy + 1e-6);
      }
      for (int64_t c = 0; c < cepstra; ++c) {
        double sum = 0;
        for (int64_t m = 0; m < mels; ++m) sum += log_mel[m] * std::cos(kPi / mels * (m + 0.5) * c);
        out[(n * frames + t) * cepstra + c] =
            sum * std::sqrt(2.0 / mels) * (c == 0 ? 1 / std::sqrt(2.0) : 1.0);
      }
    }
    if (!l.attrs.Bool("normalize")) continue;
    for (int64_t c = 0; c < cepstra; ++c) {
      double mean = 0, var = 0;
      for (int64_t t = 0; t < frames; ++t) mean += out[(n * frames + t) * cepstra + c] / frames;
      for (int64_t t = 0; t < frames; ++t) {
        var += std::pow(out[(n * frames + t) * cepstra + c] - mean, 2) / frames;
      }
      for (int64_t t = 0; t < frames; ++t) {
        float& v = out[(n * frames + t) * cepstra + c];
        v = static_cast<float>((v - mean) / std::sqrt(var + 1e-10));
      }
    }
  }
  return out;
}

Values ContextWindowNaive(const ResolvedLayer& l, const Values& in) {
  const Shape& s = l.input_shapes[0];
  const int64_t context = l.attrs.Int("context"), width = (2 * context + 1) * s[2];
  Values out(s[0] * s[1] * width, 0.0f);
  for (int64_t n = 0; n < s[0]; ++n) {
    for (int64_t t = 0; t < s[1]; ++t) {
      for (int64_t d = -context; d <= context; ++d) {
        if (t + d < 0 || t + d >= s[1]) continue;
        for (int64_t f = 0; f < s[2]; ++f) {
          out[(n * s[1] + t) * width + (d + context) * s[2] + f] =
              in[(n * s[1] + t + d) * s[2] + f];
        }
      }
    }
  }
  return out;
}

// ctc_beam_decoder: each item's frames (log-probabilities exponentiated) by enumeration.
Values CtcDecoder(const ResolvedLayer& l, const Values& in) {
  const Shape& s = l.input_shapes[0];
  const bool tnc = l.attrs.Str("layout") == "tnc";
  const int64_t frames = tnc ? s[0] : s[1], batch = tnc ? s[1] : s[0], classes = s[2];
  const int64_t blank =
      l.attrs.Int("blank") < 0 ? l.attrs.Int("blank") + classes : l.attrs.Int("blank");
  Values out(batch * frames, -1.0);
  for (int64_t n = 0; n < batch; ++n) {
    std::vector<double> probs(frames * classes);
    for (int64_t t = 0; t < frames; ++t) {
      for (int64_t c = 0; c < classes; ++c) {
        const double v = in[tnc ? (t * batch + n) * classes + c : (n * frames + t) * classes + c];
        probs[t * classes + c] = l.attrs.Bool("log_probs") ? std::exp(v) : v;
      }
    }
    const std::vector<int> labels = NaiveCtcBest(probs, frames, classes, blank);
    for (size_t i = 0; i < labels.size(); ++i) out[n * frames + i] = labels[i];
  }
  return out;
}

}  // namespace

Values NaiveOp(const ResolvedLayer& l, const std::vector<Values>& in, const std::vector<Values>& w,
               size_t output) {
  const std::string& op = l.op;
  if (output > 0 && op != "lstm") throw std::runtime_error(op + " has one output");
  if (op == "dense") return Dense(l, in[0], w);
  if (op == "matmul") return Matmul(l, in[0], in[1]);
  if (op == "conv2d") return Conv2d(l, in[0], w);
  if (op == "max_pool") return Pool(l, in[0], true);
  if (op == "avg_pool") return Pool(l, in[0], false);
  if (op == "global_avg_pool") return GlobalAvgPool(l, in[0]);
  if (op == "batchnorm") return Batchnorm(l, in[0], w);
  if (op == "layernorm") return Layernorm(l, in[0], w);
  if (op == "rms_norm") return RmsNorm(l, in[0], w);
  if (op == "swiglu") return Swiglu(l, in[0]);
  if (op == "attention") return Attention(l, in);
  if (op == "rotary") return Rotary(l, in[0]);
  if (op == "kv_cache") {  // a fresh cache: zeros before the appended rows
    const Shape &s = l.input_shapes[0], &o = l.output_shapes[0];
    Values y(static_cast<size_t>(NumElements(o)), 0.0f);
    const int64_t past = l.attrs.Int("past");
    for (int64_t n = 0; n < s[0]; ++n) {
      for (int64_t r = 0; r < s[1] * s[2]; ++r) {
        y[(n * o[1] + past) * s[2] + r] = in[0][n * s[1] * s[2] + r];
      }
    }
    return y;
  }
  if (op == "relu" || op == "sigmoid" || op == "tanh") return Unary(op, 0, in[0]);
  if (op == "clipped_relu") return Unary(op, static_cast<float>(l.attrs.Float("clip")), in[0]);
  if (op == "gelu")
    return Unary(l.attrs.Str("approximate") == "tanh" ? "gelu_tanh" : "gelu", 0, in[0]);
  if (op == "softmax") return Softmax(l, in[0]);
  if (op == "leaky_relu") {
    Values y(in[0].size());
    const float alpha = static_cast<float>(l.attrs.Float("alpha"));
    for (size_t i = 0; i < y.size(); ++i) y[i] = in[0][i] > 0 ? in[0][i] : alpha * in[0][i];
    return y;
  }
  if (op == "hard_sigmoid") {
    const double a = l.attrs.Float("alpha"), b = l.attrs.Float("beta");
    return Map(in[0], [=](double x) { return std::min(1.0, std::max(0.0, a * x + b)); });
  }
  if (op == "hard_swish") {
    return Map(in[0], [](double x) { return x * std::min(1.0, std::max(0.0, (x + 3) / 6)); });
  }
  if (op == "swish") return Map(in[0], [](double x) { return x / (1 + std::exp(-x)); });
  if (op == "sqrt") return Map(in[0], [](double x) { return std::sqrt(x); });
  if (op == "exp") return Map(in[0], [](double x) { return std::exp(x); });
  if (op == "pow") {
    const double e = l.attrs.Float("exponent");
    return Map(in[0], [=](double x) { return std::pow(x, e); });
  }
  if (op == "conv_transpose") return ConvTranspose(l, in[0], w);
  if (op == "reduce_mean") return Reduce(l, in[0], "mean");
  if (op == "reduce_sum") return Reduce(l, in[0], "sum");
  if (op == "reduce_max") return Reduce(l, in[0], "max");
  if (op == "pad") return Pad(l, in[0]);
  if (op == "resize") return Resize(l, in[0]);
  if (op == "add") return Binary(l, in[0], in[1], '+');
  if (op == "sub") return Binary(l, in[0], in[1], '-');
  if (op == "mul") return Binary(l, in[0], in[1], '*');
  if (op == "div") return Binary(l, in[0], in[1], '/');
  if (op == "equal") return Binary(l, in[0], in[1], '=');
  if (op == "less") return Binary(l, in[0], in[1], '<');
  if (op == "greater") return Binary(l, in[0], in[1], '>');
  if (op == "where") return Where(l, in[0], in[1], in[2]);
  if (op == "expand") return Expand(l, in[0]);
  if (op == "embedding") return Embedding(l, in[0], w[0]);
  if (op == "ctc_beam_decoder") return CtcDecoder(l, in[0]);
  if (op == "mfcc") return Mfcc(l, in[0]);
  if (op == "context_window") return ContextWindowNaive(l, in[0]);
  if (op == "slice") return Slice(l, in[0]);
  if (op == "constant") return w[0];
  if (op == "concat") return Concat(l, in);
  if (op == "reshape" || op == "flatten" || op == "copy" || op == "reorder") return in[0];
  if (op == "transpose") return Transpose(l, in[0]);
  if (op == "lstm") return RecurrentLayer(l, in, w, true, output);
  if (op == "gru") return RecurrentLayer(l, in, w, false, output);
  throw std::runtime_error("no naive implementation of op " + op);
}

}  // namespace ntpb::testing
