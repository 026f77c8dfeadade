// Patterns exporters emit for one operation (GELU before opset 20, LayerNorm before opset 17,
// SiLU and HardSwish before opset 14, scaled dot-product attention in every opset), found before
// mapping so that each becomes one IR layer.
#include "src/topology/onnx/importer.h"

namespace ntpb::onnx_import {

namespace {

bool Near(float a, float b) { return std::abs(a - b) <= 1e-3f * std::abs(b); }

}  // namespace

// GELU as PyTorch exports it: Div(x, sqrt 2) -> Erf -> Add(1) -> Mul(x) -> Mul(0.5).
void OnnxImporter::FindGeluPatterns() {
  // Constant nodes are initializers by now (constant folding), so ScalarConst reads them all.
  for (const onnx::NodeProto& div : m_.graph().node()) {
    if (div.op_type() != "Div" || div.input_size() != 2 ||
        !Near(ScalarConst(div.input(1)), std::sqrt(2.0f)))
      continue;
    const std::string x = div.input(0);
    const onnx::NodeProto* erf = OnlyUser(div.output(0), "Erf");
    const onnx::NodeProto* add = erf ? OnlyUser(erf->output(0), "Add") : nullptr;
    if (!add ||
        !Near(ScalarConst(add->input(0) == erf->output(0) ? add->input(1) : add->input(0)), 1.0f))
      continue;
    const onnx::NodeProto* mul = OnlyUser(add->output(0), "Mul");
    if (!mul || (mul->input(0) != x && mul->input(1) != x)) continue;
    const onnx::NodeProto* half = OnlyUser(mul->output(0), "Mul");
    if (!half ||
        !Near(ScalarConst(half->input(0) == mul->output(0) ? half->input(1) : half->input(0)),
              0.5f))
      continue;
    if (patterns_.count(&div)) continue;
    patterns_[&div] = patterns_[erf] = patterns_[add] = patterns_[mul] = nullptr;
    node_names_[half] =
        erf->name().empty() ? "gelu_" + std::to_string(patterns_.size()) : erf->name();
    used_names_.insert(node_names_[half]);
    patterns_[half] = [this, half, x] { Add(*half, "gelu", "", {x}, half->output(0)); };
  }
}

// x * sigmoid(x) (SiLU, as exported before opset 14 has no such op) -> swish; and
// x * HardSigmoid(x; 1/6, 1/2) (HardSwish before opset 14) -> hard_swish. Each is one oneDNN
// eltwise, fusable into the convolution in front, instead of an activation and a multiply.
void OnnxImporter::FindGatePatterns() {
  for (const onnx::NodeProto& gate : m_.graph().node()) {
    const bool sigmoid = gate.op_type() == "Sigmoid";
    if (!(sigmoid || gate.op_type() == "HardSigmoid") || patterns_.count(&gate)) continue;
    if (!sigmoid &&
        (!Near(Float(gate, "alpha", 0.2f), 1.0f / 6) || !Near(Float(gate, "beta", 0.5f), 0.5f)))
      continue;
    const std::string x = In(gate, 0);
    const onnx::NodeProto* mul = OnlyUser(gate.output(0), "Mul");
    if (!mul || patterns_.count(mul)) continue;
    const std::string other = mul->input(0) == gate.output(0) ? mul->input(1) : mul->input(0);
    if (other != x) continue;
    patterns_[&gate] = nullptr;
    const char* op = sigmoid ? "swish" : "hard_swish";
    patterns_[mul] = [this, mul, x, op] { Add(*mul, op, "", {x}, mul->output(0)); };
  }
}

// LayerNorm over the last axis as exported before opset 17: ReduceMean(x) -> Sub(x, mean) ->
// Pow(d, 2) -> ReduceMean -> Add(epsilon) -> Sqrt -> Div(d, std), then optionally Mul(gamma) and
// Add(beta) with weights of the last axis's size.
void OnnxImporter::FindLayerNormPatterns() {
  auto last_axis_only = [&](const onnx::NodeProto& mean) {
    const auto axes = Ints(mean, "axes");
    const auto d = dims_.find(In(mean, 0));
    const int64_t rank = d == dims_.end() ? -1 : static_cast<int64_t>(d->second.size());
    return axes.size() == 1 && rank > 0 && Axis(axes[0], rank) == rank - 1 &&
           Int(mean, "keepdims", 1) == 1 && mean.input_size() == 1;
  };
  auto other = [](const onnx::NodeProto& n, const std::string& one) {
    return n.input(0) == one ? n.input(1) : n.input(0);
  };
  for (const onnx::NodeProto& mean : m_.graph().node()) {
    if (mean.op_type() != "ReduceMean" || patterns_.count(&mean) || !last_axis_only(mean)) continue;
    const std::string x = mean.input(0);
    const onnx::NodeProto* sub = OnlyUser(mean.output(0), "Sub");
    if (!sub || sub->input(0) != x || sub->input(1) != mean.output(0)) continue;
    const onnx::NodeProto *pow = nullptr, *div = nullptr;
    auto users = users_.find(sub->output(0));
    if (users == users_.end() || users->second.size() != 2) continue;
    for (const onnx::NodeProto* u : users->second) {
      if (u->op_type() == "Pow" && u->input(0) == sub->output(0)) pow = u;
      if (u->op_type() == "Div" && u->input(0) == sub->output(0)) div = u;
    }
    if (!pow || !div || !Near(ScalarConst(pow->input(1)), 2.0f)) continue;
    const onnx::NodeProto* var = OnlyUser(pow->output(0), "ReduceMean");
    if (!var || !last_axis_only(*var)) continue;
    const onnx::NodeProto* add_eps = OnlyUser(var->output(0), "Add");
    if (!add_eps) continue;
    const float epsilon = ScalarConst(other(*add_eps, var->output(0)));
    const onnx::NodeProto* sqrt = OnlyUser(add_eps->output(0), "Sqrt");
    if (!(epsilon > 0) || !sqrt || div->input(1) != sqrt->output(0)) continue;
    std::vector<const onnx::NodeProto*> absorbed = {&mean, sub, pow, var, add_eps, sqrt, div};
    std::string gamma, beta;
    if (const onnx::NodeProto* mul = OnlyUser(div->output(0), "Mul")) {
      if (IsWeight(other(*mul, div->output(0)))) {
        gamma = other(*mul, div->output(0));
        absorbed.push_back(mul);
        if (const onnx::NodeProto* add = OnlyUser(mul->output(0), "Add")) {
          if (IsWeight(other(*add, mul->output(0)))) {
            beta = other(*add, mul->output(0));
            absorbed.push_back(add);
          }
        }
      }
    }
    for (const onnx::NodeProto* n : absorbed) patterns_[n] = nullptr;
    const onnx::NodeProto* last = absorbed.back();
    node_names_[last] = mean.name().empty() ? "layernorm_" + std::to_string(patterns_.size())
                                            : mean.name().substr(0, mean.name().rfind('/'));
    while (used_names_.count(node_names_[last])) node_names_[last] += "_";
    used_names_.insert(node_names_[last]);
    patterns_[last] = [this, last, x, epsilon, gamma, beta] {
      const Dims& d = DimsOf(x, *last);
      int64_t c = 0;
      if (!ToInt(d.back(), &c)) Fail(LayerName(*last), "X", "LayerNorm over a symbolic axis");
      Layer& l = Add(*last, "layernorm", "", {x}, last->output(0));
      l.attrs["epsilon"] = epsilon;
      auto values = [&](const std::string& name, float fill) {
        if (name.empty()) return std::make_shared<std::vector<float>>(c, fill);
        auto it = init_.find(name);
        std::vector<float> v =
            it != init_.end() ? Floats(*it->second, *last) : *float_consts_.at(name).values;
        if (static_cast<int64_t>(v.size()) == 1) v.assign(c, v[0]);
        if (static_cast<int64_t>(v.size()) != c) {
          Fail(LayerName(*last), name, "a LayerNorm weight that is not of the last axis's size");
        }
        return std::make_shared<std::vector<float>>(std::move(v));
      };
      SetWeight(l, "gamma", {c}, values(gamma, 1.0f));
      SetWeight(l, "beta", {c}, values(beta, 0.0f));
    };
  }
}

namespace {

// Scores at or below this are dropped by a mask: exporters write -inf, the type's lowest value
// or -10000.
constexpr float kMasked = -1e4f;

}  // namespace

const onnx::NodeProto* OnnxImporter::SoleProducer(const std::string& tensor) const {
  auto p = node_of_.find(tensor);
  if (p == node_of_.end()) return nullptr;
  auto u = users_.find(tensor);
  return u != users_.end() && u->second.size() == 1 ? p->second : nullptr;
}

std::vector<int64_t> OnnxImporter::ConstDims(const std::string& name) const {
  if (auto w = float_consts_.find(name); w != float_consts_.end()) return w->second.dims;
  if (auto i = init_.find(name); i != init_.end()) {
    return std::vector<int64_t>(i->second->dims().begin(), i->second->dims().end());
  }
  return {};
}

int OnnxImporter::CausalMask(const std::string& name, const onnx::NodeProto& n, MaskKind kind,
                             size_t rank) const {
  std::vector<float> values;
  if (kind == MaskKind::kAdditive ? !FloatsConst(name, n, &values) : !IsInitializer(name)) {
    return -1;
  }
  if (kind != MaskKind::kAdditive) values = Floats(*init_.at(name), n);
  const std::vector<int64_t> d = ConstDims(name);
  if (d.size() < 2 || d.size() > rank) return -1;
  const int64_t sq = d[d.size() - 2], sk = d.back();
  if (sq <= 0 || sk < sq || static_cast<int64_t>(values.size()) != sq * sk) return -1;
  bool none = true, causal = true;
  for (int64_t i = 0; i < sq; ++i) {
    for (int64_t j = 0; j < sk; ++j) {
      const float x = values[static_cast<size_t>(i * sk + j)];
      bool sees = false;
      if (kind == MaskKind::kAdditive) {
        if (x != 0 && !(x <= kMasked)) return -1;  // a bias, not a mask
        sees = x == 0;
      } else {
        sees = (x != 0) == (kind == MaskKind::kTrueSees);
      }
      none = none && sees;
      causal = causal && sees == (j <= i + (sk - sq));  // the queries are the last sq positions
    }
  }
  return none ? 0 : causal ? 1 : -1;
}

std::string OnnxImporter::PaddingMaskSource(const std::string& tensor,
                                            std::vector<const onnx::NodeProto*>* chain) const {
  // Mul(Sub(1, m[:, None, None, :]), c) with c at most kMasked, either operand order of the Mul.
  auto node = node_of_.find(tensor);
  const onnx::NodeProto* mul = node == node_of_.end() ? nullptr : node->second;
  if (!mul || mul->op_type() != "Mul" || mul->input_size() != 2) return "";
  const int c = IsWeight(mul->input(0)) ? 0 : 1;
  if (!IsWeight(mul->input(c)) || !(ScalarConst(mul->input(c)) <= kMasked)) return "";
  auto sub_node = node_of_.find(mul->input(1 - c));
  const onnx::NodeProto* sub = sub_node == node_of_.end() ? nullptr : sub_node->second;
  if (!sub || sub->op_type() != "Sub" || sub->input_size() != 2 || !IsWeight(sub->input(0)) ||
      ScalarConst(sub->input(0)) != 1.0f)
    return "";
  std::vector<const onnx::NodeProto*> nodes = {mul, sub};
  std::string m = sub->input(1);
  for (auto u = node_of_.find(m); u != node_of_.end() && u->second->op_type() == "Unsqueeze";
       u = node_of_.find(m)) {
    nodes.push_back(u->second);
    m = u->second->input(0);
  }
  // [N, keys] made [N, 1, 1, keys].
  const auto from = dims_.find(m), to = dims_.find(sub->input(1));
  if (nodes.size() < 3 || from == dims_.end() || to == dims_.end() || from->second.size() != 2 ||
      to->second != Dims{from->second[0], "1", "1", from->second[1]})
    return "";
  *chain = nodes;
  return m;
}

// Scaled dot-product attention as exporters write it becomes one `attention` layer instead of
// five to fifteen (two matmuls, the scales, a mask, the softmax and the head-splitting
// transposes):
//   Softmax(mask(MatMul(q [* or / c], kT) [* or / c'])) -> MatMul(., v)
// where mask is nothing, Add(a constant causal mask) or Where(a constant causal condition,
// ., -inf). Two head layouts are recognised:
// - heads split by Reshape + Transpose from [N, S, H*D] (Hugging Face, GPT-2, hand-written
//   blocks): q = Transpose(Reshape(xq), 0 2 1 3), kT = Transpose(Reshape(xk), 0 2 3 1),
//   v = Transpose(Reshape(xv), 0 2 1 3), the result back through Transpose(0 2 1 3) and a
//   Reshape to [N, S, H*Dv]: one attention over xq, xk, xv with H heads, no transposes left.
// - [N*H, S, D] already (nn.MultiheadAttention): one attention with 1 head over N*H items, kT's
//   transpose turned so that it gives k.
// Anything else (a padding mask computed from an input, a bias added to the scores) is left as
// the nodes are.
void OnnxImporter::FindAttentionPatterns() {
  for (const onnx::NodeProto& softmax : m_.graph().node()) {
    if (softmax.op_type() != "Softmax" || patterns_.count(&softmax)) continue;
    const auto sd = dims_.find(softmax.input(0));
    if (sd == dims_.end() || (sd->second.size() != 3 && sd->second.size() != 4)) continue;
    const size_t rank = sd->second.size();
    if (Axis(Int(softmax, "axis", opset_ >= 13 ? -1 : 1), rank) != static_cast<int64_t>(rank) - 1)
      continue;
    std::vector<const onnx::NodeProto*> absorbed = {&softmax};
    double scale = 1;
    bool causal = false;
    // A padding mask [N, keys] from an input (0: padding), and the nodes that widened it.
    std::string padding;
    std::vector<const onnx::NodeProto*> padding_chain;
    // Takes a constant scale (Mul by c, Div by c) off `tensor`; false when there is none.
    auto peel_scale = [&](std::string* tensor) {
      const onnx::NodeProto* n = SoleProducer(*tensor);
      if (!n || (n->op_type() != "Mul" && n->op_type() != "Div") || n->input_size() != 2)
        return false;
      const bool div = n->op_type() == "Div";
      for (int i = div ? 1 : 0; i < 2; ++i) {
        const float c = IsWeight(n->input(i)) ? ScalarConst(n->input(i)) : 0.0f;
        if (c == 0 || !std::isfinite(c)) continue;
        scale *= div ? 1.0 / c : c;
        *tensor = n->input(1 - i);
        absorbed.push_back(n);
        return true;
      }
      return false;
    };
    // Takes a constant causal mask off `tensor` (or one that masks nothing).
    auto peel_mask = [&](std::string* tensor) {
      const onnx::NodeProto* n = SoleProducer(*tensor);
      if (n && n->op_type() == "Add" && n->input_size() == 2) {
        for (int i = 0; i < 2; ++i) {
          const int kind = CausalMask(n->input(i), *n, MaskKind::kAdditive, rank);
          std::vector<const onnx::NodeProto*> chain;
          const std::string keys = kind < 0 ? PaddingMaskSource(n->input(i), &chain) : "";
          if (kind < 0 && keys.empty()) continue;
          causal = kind == 1;
          padding = keys;
          padding_chain = chain;
          *tensor = n->input(1 - i);
          absorbed.push_back(n);
          return true;
        }
      } else if (n && n->op_type() == "Where" && n->input_size() == 3) {
        // Where(condition, scores, -inf) keeps the scores where it holds, Where(condition,
        // -inf, scores) where it does not.
        for (int i = 1; i <= 2; ++i) {
          const std::string& fill = n->input(i == 1 ? 2 : 1);
          if (!IsWeight(fill) || !(ScalarConst(fill) <= kMasked)) continue;
          const MaskKind kind = i == 1 ? MaskKind::kTrueSees : MaskKind::kFalseSees;
          const int found = CausalMask(n->input(0), *n, kind, rank);
          if (found < 0) continue;
          causal = found == 1;
          *tensor = n->input(i);
          absorbed.push_back(n);
          return true;
        }
      }
      return false;
    };
    std::string scores = softmax.input(0);
    if (!peel_mask(&scores) && peel_scale(&scores)) peel_mask(&scores);
    peel_scale(&scores);
    const onnx::NodeProto* qk = SoleProducer(scores);
    if (!qk || qk->op_type() != "MatMul") continue;
    absorbed.push_back(qk);
    std::string q = qk->input(0);
    const std::string kt = qk->input(1);
    peel_scale(&q);
    const onnx::NodeProto* pv = OnlyUser(softmax.output(0), "MatMul");
    if (!pv || pv->input(0) != softmax.output(0)) continue;
    absorbed.push_back(pv);
    const std::string v = pv->input(1);
    auto transpose_of = [&](const std::string& t,
                            const std::vector<int64_t>& perm) -> const onnx::NodeProto* {
      const onnx::NodeProto* n = SoleProducer(t);
      return n && n->op_type() == "Transpose" && Ints(*n, "perm") == perm ? n : nullptr;
    };
    auto reshape_of = [&](const std::string& t) -> const onnx::NodeProto* {
      const onnx::NodeProto* n = SoleProducer(t);
      return n && n->op_type() == "Reshape" ? n : nullptr;
    };
    auto rank_of = [&](const std::string& t) {
      auto d = dims_.find(t);
      return d == dims_.end() ? size_t{0} : d->second.size();
    };
    auto claim = [&](const onnx::NodeProto* last) {
      for (const onnx::NodeProto* n : absorbed) {
        if (patterns_.count(n)) return false;
        // What the graph gives out (the attention weights, say) must stay a tensor of its own.
        for (const onnx::ValueInfoProto& out : m_.graph().output()) {
          if (n != last &&
              std::find(n->output().begin(), n->output().end(), out.name()) != n->output().end())
            return false;
        }
      }
      for (const onnx::NodeProto* n : absorbed) patterns_[n] = nullptr;
      const std::string& path = softmax.name();
      std::string name = path.empty() || path.rfind('/') == std::string::npos
                             ? "attention_" + std::to_string(patterns_.size())
                             : path.substr(0, path.rfind('/') + 1) + "attention";
      while (used_names_.count(name)) name += "_";
      used_names_.insert(name);
      node_names_[last] = name;
      return true;
    };
    if (rank == 4) {
      const onnx::NodeProto* tq = transpose_of(q, {0, 2, 1, 3});
      const onnx::NodeProto* tk = transpose_of(kt, {0, 2, 3, 1});
      const onnx::NodeProto* tv = transpose_of(v, {0, 2, 1, 3});
      const onnx::NodeProto* rq = tq ? reshape_of(tq->input(0)) : nullptr;
      const onnx::NodeProto* rk = tk ? reshape_of(tk->input(0)) : nullptr;
      const onnx::NodeProto* rv = tv ? reshape_of(tv->input(0)) : nullptr;
      const onnx::NodeProto* to = OnlyUser(pv->output(0), "Transpose");
      const onnx::NodeProto* ro = to && Ints(*to, "perm") == std::vector<int64_t>{0, 2, 1, 3}
                                      ? OnlyUser(to->output(0), "Reshape")
                                      : nullptr;
      if (!rq || !rk || !rv || !ro) continue;
      // [N, S, H*D] split into [N, S, H, D], and the result joined back into [N, S, H*Dv].
      const auto split = dims_.find(rq->output(0));
      int64_t heads = 0;
      if (rank_of(rq->input(0)) != 3 || rank_of(rk->input(0)) != 3 || rank_of(rv->input(0)) != 3 ||
          rank_of(ro->output(0)) != 3 || split == dims_.end() || split->second.size() != 4 ||
          !ToInt(split->second[2], &heads) || heads <= 0)
        continue;
      absorbed.insert(absorbed.end(), {tq, tk, tv, rq, rk, rv, to, ro});
      if (!claim(ro)) continue;
      const std::string a = rq->input(0), b = rk->input(0), c = rv->input(0);
      mask_chains_.insert(mask_chains_.end(), padding_chain.begin(), padding_chain.end());
      patterns_[ro] = [this, ro, a, b, c, padding, heads, scale, causal] {
        std::vector<std::string> inputs = {a, b, c};
        if (!padding.empty()) inputs.push_back(padding);
        Layer& l = Add(*ro, "attention", "", inputs, ro->output(0));
        l.attrs["heads"] = heads;
        l.attrs["scale"] = scale;
        if (causal) l.attrs["causal"] = true;
      };
      continue;
    }
    // [N*H, S, D]: k from kT's transpose turned back. (A padding mask would have to be repeated
    // for each head: left as the nodes are.)
    const onnx::NodeProto* tk = SoleProducer(kt);
    if (!padding.empty() || !tk || tk->op_type() != "Transpose" || rank_of(q) != 3 ||
        rank_of(v) != 3)
      continue;
    std::vector<int64_t> perm = Ints(*tk, "perm");
    if (perm.size() != 3) continue;
    std::swap(perm[1], perm[2]);
    absorbed.push_back(tk);
    if (!claim(pv)) continue;
    patterns_[pv] = [this, pv, tk, q, v, perm, scale, causal] {
      std::string k = tk->input(0);
      if (perm != std::vector<int64_t>{0, 1, 2}) {
        Add(*tk, "transpose", "", {k}, tk->output(0)).attrs["perm"] = perm;
        k = tk->output(0);
      }
      Layer& l = Add(*pv, "attention", "", {q, k, v}, pv->output(0));
      l.attrs["heads"] = 1;
      l.attrs["scale"] = scale;
      if (causal) l.attrs["causal"] = true;
    };
  }
  // A padding mask widened once for every layer (Unsqueeze, Sub, Mul) is left with no reader
  // when every attention took the narrow mask: its nodes go too, readers first.
  for (const onnx::NodeProto* n : mask_chains_) {
    if (patterns_.count(n)) continue;
    bool read = false;
    for (const std::string& out : n->output()) {
      auto u = users_.find(out);
      if (u != users_.end()) {
        for (const onnx::NodeProto* user : u->second) read = read || !patterns_.count(user);
      }
      for (const onnx::ValueInfoProto& o : m_.graph().output()) read = read || o.name() == out;
    }
    if (!read) patterns_[n] = nullptr;
  }
}

}  // namespace ntpb::onnx_import
