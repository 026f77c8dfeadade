#include "ntpbench/expression.h"

#include <gtest/gtest.h>

namespace ntpb {
namespace {

TEST(Expression, EvaluatesArithmeticWithParams) {
  const ParamEnv env = {{"n_hidden", 2048}, {"N", 4}, {"T", 100}, {"k", 3}};
  EXPECT_EQ(EvaluateExpression("n_hidden", env), 2048);
  EXPECT_EQ(EvaluateExpression("2*n_hidden", env), 4096);
  EXPECT_EQ(EvaluateExpression(" 26 * (2*9 + 1) ", env), 494);
  EXPECT_EQ(EvaluateExpression("(224 + 2*1 - k)/2 + 1", env), 112);
  EXPECT_EQ(EvaluateExpression("N*T", env), 400);
  EXPECT_EQ(EvaluateExpression("-1", env), -1);
  EXPECT_EQ(EvaluateExpression("10 % 3 - -2", env), 3);
  EXPECT_EQ(EvaluateExpression("7/2", env), 3);
  EXPECT_EQ(EvaluateExpression("1+2*3", env), 7);
  EXPECT_EQ(EvaluateExpression("(1+2)*3", env), 9);
}

// One comparison, for layers' `when`: 1 or 0, after the arithmetic on both sides.
TEST(Expression, ComparesOnce) {
  const ParamEnv env = {{"conv_type", 1}, {"k", 3}};
  EXPECT_EQ(EvaluateExpression("conv_type == 1", env), 1);
  EXPECT_EQ(EvaluateExpression("conv_type==0", env), 0);
  EXPECT_EQ(EvaluateExpression("conv_type != 0", env), 1);
  EXPECT_EQ(EvaluateExpression("k < 3", env), 0);
  EXPECT_EQ(EvaluateExpression("k <= 3", env), 1);
  EXPECT_EQ(EvaluateExpression("k > 1 + 1", env), 1);
  EXPECT_EQ(EvaluateExpression("k >= 2*2", env), 0);
  EXPECT_EQ(EvaluateExpression("(k == 3) * 5", env), 5);
  EXPECT_THROW(EvaluateExpression("k == 3 == 1", env), ExpressionError);
  EXPECT_THROW(EvaluateExpression("k = 3", env), ExpressionError);
}

TEST(Expression, RejectsBadInputWithAClearMessage) {
  const ParamEnv env = {{"a", 1}};
  auto message = [&](const std::string& text) {
    try {
      EvaluateExpression(text, env);
    } catch (const ExpressionError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("n_hiden"), "unknown param 'n_hiden' in expression \"n_hiden\"");
  EXPECT_NE(message("1/0").find("division by zero"), std::string::npos);
  EXPECT_NE(message("1 +").find("unexpected end"), std::string::npos);
  EXPECT_NE(message("(1").find("missing ')'"), std::string::npos);
  EXPECT_NE(message("2 $ 3").find("unexpected '$'"), std::string::npos);
  EXPECT_NE(message("").find("unexpected end"), std::string::npos);
  EXPECT_NE(message("9223372036854775807 + 1").find("overflow"), std::string::npos);
  EXPECT_NE(message("99999999999999999999").find("overflow"), std::string::npos);
  EXPECT_NE(message("4294967296 * 4294967296").find("overflow"), std::string::npos);
  EXPECT_NE(message(std::string(100, '(') + "1" + std::string(100, ')')).find("nesting"),
            std::string::npos);
}

}  // namespace
}  // namespace ntpb
