// Integer size expressions: "n_hidden", "2*n_hidden", "(H + 2*pad - k)/s + 1".
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace ntpb {

using ParamEnv = std::map<std::string, int64_t>;
// Several values per param: each value (each combination) is its own configuration.
using ParamLists = std::map<std::string, std::vector<int64_t>>;

// Thrown for syntax errors, unknown params, division by zero and overflow. The caller adds the
// file, layer and field (see ntpb::Error).
class ExpressionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Evaluates + - * / % ( ), unary minus, decimal integers and param names, and one comparison
// (== != < <= > >=, giving 1 or 0: a layer's `when`). Division truncates toward zero like C++.
int64_t EvaluateExpression(const std::string& text, const ParamEnv& env);

}  // namespace ntpb
