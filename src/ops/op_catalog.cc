// The op registry: each family of ops adds its definitions here, in documentation order.
#include "src/topology/op_catalog.h"

#include "ntpbench/error.h"
#include "src/ops/op_helpers.h"

namespace ntpb {

int64_t CheckedProduct(std::initializer_list<int64_t> factors) {
  int64_t product = 1;
  bool overflow = false;
  for (const int64_t f : factors)
    overflow = overflow || __builtin_mul_overflow(product, f, &product);
  if (overflow) {
    double approximate = 1;
    for (const int64_t f : factors) approximate *= static_cast<double>(f);
    throw CostOverflow{approximate};
  }
  return product;
}

AttrDef RequiredAttr(std::string name, AttrType type, std::string doc) {
  AttrDef a;
  a.name = std::move(name);
  a.type = type;
  a.required = true;
  a.doc = std::move(doc);
  return a;
}

AttrDef OptionalAttr(std::string name, AttrType type, nlohmann::json default_value,
                     std::string doc) {
  AttrDef a;
  a.name = std::move(name);
  a.type = type;
  a.default_value = std::move(default_value);
  a.doc = std::move(doc);
  return a;
}

AttrDef EnumAttr(std::string name, std::vector<std::string> choices, std::string default_value,
                 std::string doc) {
  AttrDef a;
  a.name = std::move(name);
  a.type = AttrType::kEnum;
  a.default_value = std::move(default_value);
  a.choices = std::move(choices);
  a.doc = std::move(doc);
  return a;
}

void InferContext::Fail(const std::string& field, const std::string& message) const {
  throw Error(file, layer.name, field, message);
}

const std::vector<OpDef>& AllOps() {
  static const std::vector<OpDef> ops = [] {
    std::vector<OpDef> v;
    ops::AddDenseOps(&v);
    ops::AddConvOps(&v);
    ops::AddPoolingOps(&v);
    ops::AddNormalizationOps(&v);
    ops::AddElementwiseOps(&v);
    ops::AddBinaryOps(&v);
    ops::AddSelectOps(&v);
    ops::AddReduceOps(&v);
    ops::AddResizeOps(&v);
    ops::AddShapeOps(&v);
    ops::AddEmbeddingOps(&v);
    ops::AddRecurrentOps(&v);
    ops::AddAttentionOps(&v);
    ops::AddInlayOps(&v);
    return v;
  }();
  return ops;
}

const OpDef* FindOp(const std::string& name) {
  for (const OpDef& op : AllOps()) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

}  // namespace ntpb
