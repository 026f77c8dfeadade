#include "src/topology/numeric_outputs.h"

#include <gtest/gtest.h>

#include "ntpbench/json_format.h"
#include "tests/test_util.h"

namespace ntpb::testing {
namespace {

// The end-to-end DeepSpeech ends in labels; its probabilities are what a comparison can judge.
TEST(NumericOutputs, ADecoderIsRepresentedByItsInput) {
  const ResolvedTopology t =
      Resolve(ReadTopologyJsonFile(SourcePath("topologies/deepspeech_e2e.json")), {});
  ASSERT_EQ(t.outputs, (std::vector<std::string>{"decode"}));
  EXPECT_EQ(NumericOutputs(t), (std::vector<std::string>{"probs"}));
  EXPECT_EQ(NumericStandIn(t, "decode"), "probs");
  EXPECT_EQ(NumericStandIn(t, "probs"), "probs");
}

TEST(NumericOutputs, OtherOutputsStandForThemselvesOnceEach) {
  const ResolvedTopology t = Resolve(ParseTopologyJson(R"({"name": "two",
    "inputs": [{"name": "x", "shape": [1, 4, 3]}],
    "layers": [{"name": "p", "op": "softmax"},
               {"name": "d", "op": "ctc_beam_decoder", "inputs": ["p"]},
               {"name": "q", "op": "relu", "inputs": ["x"]}],
    "outputs": ["d", "p", "q"]})",
                                                       "two.json"),
                                     {});
  EXPECT_EQ(NumericOutputs(t), (std::vector<std::string>{"p", "q"}));
}

}  // namespace
}  // namespace ntpb::testing
