// "Did you mean": near misses find their name, far ones find nothing.
#include "src/common/nearest_name.h"

#include <gtest/gtest.h>

namespace ntpb {
namespace {

TEST(NearestName, FindsTheLikelyIntent) {
  const std::vector<std::string> commands = {"run", "inspect", "ops", "gate", "compare"};
  EXPECT_EQ(NearestName("rnu", commands), "run");  // two letters swapped: one edit
  EXPECT_EQ(NearestName("inpsect", commands), "inspect");
  EXPECT_EQ(NearestName("Gate", commands), "gate");  // case is not an edit
  EXPECT_EQ(NearestName("comapre", commands), "compare");
  EXPECT_EQ(NearestName("--bach", {"--batch", "--backend"}), "--batch");
}

TEST(NearestName, SaysNothingWhenNothingIsClose) {
  EXPECT_EQ(NearestName("launch", {"run", "inspect", "ops"}), "");
  EXPECT_EQ(NearestName("x", {"run"}), "");  // a short name: only one edit allowed
  EXPECT_EQ(NearestName("anything", {}), "");
  EXPECT_EQ(DidYouMean("dens", {"dense", "conv"}), " (did you mean 'dense'?)");
  EXPECT_EQ(DidYouMean("zzzz", {"dense", "conv"}), "");
}

}  // namespace
}  // namespace ntpb
