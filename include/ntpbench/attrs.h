// A layer's attributes after resolution: expressions evaluated, defaults filled in, short forms
// expanded (kernel 3 -> [3, 3]; padding -> [top, left, bottom, right]).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ntpb {

class Attrs {
 public:
  Attrs() = default;
  explicit Attrs(nlohmann::json values) : values_(std::move(values)) {}

  int64_t Int(const std::string& name) const { return values_.at(name).get<int64_t>(); }
  std::vector<int64_t> Ints(const std::string& name) const {
    return values_.at(name).get<std::vector<int64_t>>();
  }
  double Float(const std::string& name) const { return values_.at(name).get<double>(); }
  bool Bool(const std::string& name) const { return values_.at(name).get<bool>(); }
  std::string Str(const std::string& name) const { return values_.at(name).get<std::string>(); }
  bool Has(const std::string& name) const { return values_.contains(name); }
  const nlohmann::json& json() const { return values_; }

 private:
  nlohmann::json values_ = nlohmann::json::object();
};

}  // namespace ntpb
