#include "ntpbench/expression.h"

#include <cctype>

namespace ntpb {
namespace {

// Recursive descent: compare := expr [('=='|'!='|'<'|'<='|'>'|'>=') expr] (1 or 0);
// expr := term (('+'|'-') term)*; term := unary (('*'|'/'|'%') unary)*;
// unary := '-' unary | primary; primary := number | name | '(' compare ')'.
class Parser {
 public:
  Parser(const std::string& text, const ParamEnv& env) : text_(text), env_(env) {}

  int64_t Parse() {
    if (text_.size() > 4096) throw ExpressionError("expression longer than 4096 characters");
    int64_t v = Compare();
    SkipSpace();
    if (pos_ != text_.size()) Fail(std::string("unexpected '") + text_[pos_] + "'");
    return v;
  }

 private:
  [[noreturn]] void Fail(const std::string& what) const {
    throw ExpressionError(what + " in expression \"" + text_ + "\"");
  }
  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool Accept(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  int64_t Add(int64_t a, int64_t b) const {
    int64_t r = 0;
    if (__builtin_add_overflow(a, b, &r)) Fail("integer overflow");
    return r;
  }
  int64_t Sub(int64_t a, int64_t b) const {
    int64_t r = 0;
    if (__builtin_sub_overflow(a, b, &r)) Fail("integer overflow");
    return r;
  }
  int64_t Mul(int64_t a, int64_t b) const {
    int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r)) Fail("integer overflow");
    return r;
  }
  // One comparison at most: "a < b < c" means nothing useful for sizes.
  int64_t Compare() {
    const int64_t a = Expr();
    SkipSpace();
    const std::string rest = text_.substr(pos_, 2);
    for (const char* op : {"==", "!=", "<=", ">=", "<", ">"}) {
      const std::string o = op;
      if (rest.compare(0, o.size(), o) != 0) continue;
      pos_ += o.size();
      const int64_t b = Expr();
      if (o == "==") return a == b;
      if (o == "!=") return a != b;
      if (o == "<=") return a <= b;
      if (o == ">=") return a >= b;
      return o == "<" ? a < b : a > b;
    }
    return a;
  }
  int64_t Expr() {
    int64_t v = Term();
    for (;;) {
      if (Accept('+')) {
        v = Add(v, Term());
      } else if (Accept('-')) {
        v = Sub(v, Term());
      } else {
        return v;
      }
    }
  }
  int64_t Term() {
    int64_t v = Unary();
    for (;;) {
      if (Accept('*')) {
        v = Mul(v, Unary());
      } else if (Accept('/') || Accept('%')) {
        const bool is_div = text_[pos_ - 1] == '/';
        int64_t d = Unary();
        if (d == 0) Fail("division by zero");
        if (v == INT64_MIN && d == -1) Fail("integer overflow");
        v = is_div ? v / d : v % d;
      } else {
        return v;
      }
    }
  }
  int64_t Unary() {
    if (++depth_ > 64) Fail("nesting deeper than 64");
    int64_t v = 0;
    if (Accept('-')) {
      v = Sub(0, Unary());
    } else {
      v = Primary();
    }
    --depth_;
    return v;
  }
  int64_t Primary() {
    SkipSpace();
    if (pos_ >= text_.size()) Fail("unexpected end");
    char c = text_[pos_];
    if (Accept('(')) {
      int64_t v = Compare();
      if (!Accept(')')) Fail("missing ')'");
      return v;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      int64_t v = 0;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        v = Add(Mul(v, 10), text_[pos_++] - '0');
      }
      return v;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t start = pos_;
      while (pos_ < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
        ++pos_;
      }
      std::string name = text_.substr(start, pos_ - start);
      auto it = env_.find(name);
      if (it == env_.end()) {
        throw ExpressionError("unknown param '" + name + "' in expression \"" + text_ + "\"");
      }
      return it->second;
    }
    Fail(std::string("unexpected '") + c + "'");
  }

  const std::string& text_;
  const ParamEnv& env_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

int64_t EvaluateExpression(const std::string& text, const ParamEnv& env) {
  return Parser(text, env).Parse();
}

}  // namespace ntpb
