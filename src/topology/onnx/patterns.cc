// Patterns exporters emit for one operation (GELU before opset 20, LayerNorm before opset 17,
// SiLU and HardSwish before opset 14), found before mapping so that each becomes one IR layer.
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

}  // namespace ntpb::onnx_import
