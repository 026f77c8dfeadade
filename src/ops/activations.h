// The activations: fused into dense and conv2d by their "activation" attribute, and ops of their
// own (relu, sigmoid, ...). One table, read by the op catalogue (the attribute's values), every
// backend (the Eigen reference, oneDNN's post-ops, the OpenCL host code) and the OpenCL kernels
// (their ACT_* codes are generated from it). Adding one is a row here plus its formula in each
// backend: Activation::Apply (Eigen), ActivationPostOps (oneDNN), activate() in kernels.cl.
#pragma once

#include <string>
#include <vector>

#include "ntpbench/attrs.h"

namespace ntpb {

enum class ActivationKind : int {
  kNone = 0,
  kRelu,
  kClippedRelu,
  kSigmoid,
  kTanh,
  kGelu,
  kGeluTanh,  // gelu with approximate="tanh"
};

struct ActivationDef {
  ActivationKind kind;
  const char* name;  // the attribute value and, where `op`, the op's name
  const char* code;  // kernels.cl's ACT_<code>
  bool fusable;      // a value of dense's and conv2d's "activation"
  bool op;           // an op of its own
};

inline const std::vector<ActivationDef>& Activations() {
  static const std::vector<ActivationDef> table = {
      {ActivationKind::kNone, "none", "NONE", true, false},
      {ActivationKind::kRelu, "relu", "RELU", true, true},
      {ActivationKind::kClippedRelu, "clipped_relu", "CLIPPED_RELU", true, true},
      {ActivationKind::kSigmoid, "sigmoid", "SIGMOID", true, true},
      {ActivationKind::kTanh, "tanh", "TANH", true, true},
      {ActivationKind::kGelu, "gelu", "GELU", true, true},
      {ActivationKind::kGeluTanh, "gelu_tanh", "GELU_TANH", false, false},
  };
  return table;
}

// An activation and its parameter (clipped_relu's upper bound).
struct ActivationChoice {
  ActivationKind kind = ActivationKind::kNone;
  float clip = 20.0f;
};

inline ActivationKind ActivationNamed(const std::string& name) {
  for (const ActivationDef& d : Activations()) {
    if (name == d.name) return d.kind;
  }
  return ActivationKind::kNone;
}

// The activation a dense or conv2d layer fuses ("activation", "clip"), kNone without one.
inline ActivationChoice FusedActivation(const Attrs& attrs) {
  ActivationChoice a;
  if (attrs.Has("activation")) a.kind = ActivationNamed(attrs.Str("activation"));
  if (attrs.Has("clip")) a.clip = static_cast<float>(attrs.Float("clip"));
  return a;
}

// The activation an activation op computes (its name, gelu's "approximate", "clip").
inline ActivationChoice ActivationOp(const std::string& op, const Attrs& attrs) {
  ActivationChoice a;
  a.kind = ActivationNamed(op);
  if (a.kind == ActivationKind::kGelu && attrs.Has("approximate") &&
      attrs.Str("approximate") == "tanh") {
    a.kind = ActivationKind::kGeluTanh;
  }
  if (attrs.Has("clip")) a.clip = static_cast<float>(attrs.Float("clip"));
  return a;
}

// "#define ACT_NONE 0\n#define ACT_RELU 1\n...": the codes OpenCL kernels compare against.
inline std::string ActivationCodeDefines() {
  std::string out;
  for (const ActivationDef& d : Activations()) {
    out += std::string("#define ACT_") + d.code + " " + std::to_string(static_cast<int>(d.kind)) +
           "\n";
  }
  return out;
}

}  // namespace ntpb
