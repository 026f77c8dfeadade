// The CTC prefix beam search against what CTC defines: hand-made frames whose best sequence is
// known (greedy and beam search disagreeing among them), repeats and blanks, and random frames
// against the enumeration of every path.
#include "src/backends/common/ctc_beam_search.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <tuple>

#include "ntpbench/error.h"
#include "ntpbench/json_format.h"
#include "ntpbench/resolve.h"
#include "tests/backends/naive_ops.h"

namespace ntpb::testing {
namespace {

std::vector<int> Beam(const std::vector<float>& frames, int64_t classes, int64_t blank,
                      int64_t width, double* log_p = nullptr) {
  CtcBeamSearch search;
  search.classes = classes;
  search.blank = blank;
  search.beam_width = width;
  return search.Decode(frames.data(), static_cast<int64_t>(frames.size()) / classes, classes,
                       log_p);
}

// Best path: the most probable class per frame, collapsed.
std::vector<int> Greedy(const std::vector<float>& frames, int64_t classes, int64_t blank) {
  std::vector<int> out;
  int previous = -1;
  for (size_t t = 0; t * classes < frames.size(); ++t) {
    const auto first = frames.begin() + t * classes;
    const int c = static_cast<int>(std::max_element(first, first + classes) - first);
    if (c != blank && c != previous) out.push_back(c);
    previous = c;
  }
  return out;
}

TEST(CtcBeamSearch, BeatsGreedyWhereTheBestSequenceHasNoSingleBestPath) {
  // Classes: 0 blank, 1 "a", 2 "b". The likeliest path is blank, blank (0.16): greedy says "".
  // But "a" is the sum of aa, a-, -a: 0.1225 + 0.14 + 0.14 = 0.4025.
  const std::vector<float> frames = {0.4f, 0.35f, 0.25f,  //
                                     0.4f, 0.35f, 0.25f};
  EXPECT_EQ(Greedy(frames, 3, 0), std::vector<int>{});
  double log_p = 0;
  EXPECT_EQ(Beam(frames, 3, 0, 4, &log_p), std::vector<int>{1});
  EXPECT_NEAR(std::exp(log_p), 0.4025, 1e-6);
  std::vector<double> as_double(frames.begin(), frames.end());
  EXPECT_EQ(NaiveCtcBest(as_double, 2, 3, 0), std::vector<int>{1});
}

TEST(CtcBeamSearch, RepeatsMergeUnlessABlankSeparatesThem) {
  const float hi = 0.98f, lo = 0.01f;
  // a a a -> "a"; a - a -> "aa"; the blank last (index 2), as DeepSpeech's output has it.
  const std::vector<float> merged = {lo, hi, lo, lo, hi, lo, lo, hi, lo};
  const std::vector<float> split = {hi, lo, lo, lo, lo, hi, hi, lo, lo};
  EXPECT_EQ(Beam(merged, 3, 0, 8), (std::vector<int>{1}));
  EXPECT_EQ(Beam(split, 3, 2, 8), (std::vector<int>{0, 0}));
  // b a a - b -> "bab"
  const std::vector<float> word = {lo, lo, hi, lo, hi, lo, lo, hi, lo, hi, lo, lo, lo, lo, hi};
  EXPECT_EQ(Beam(word, 3, 0, 8), (std::vector<int>{2, 1, 2}));
}

TEST(CtcBeamSearch, WideBeamsFindWhatEnumerationFinds) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(0.01f, 1.0f);
  int narrow_misses = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int64_t frames = 1 + trial % 5, classes = 2 + trial % 3, blank = trial % classes;
    std::vector<float> p(frames * classes);
    for (int64_t t = 0; t < frames; ++t) {  // each frame a distribution
      float sum = 0;
      for (int64_t c = 0; c < classes; ++c) sum += p[t * classes + c] = uniform(rng);
      for (int64_t c = 0; c < classes; ++c) p[t * classes + c] /= sum;
    }
    double expected_p = 0, log_p = 0;
    const std::vector<int> expected =
        NaiveCtcBest(std::vector<double>(p.begin(), p.end()), frames, classes, blank, &expected_p);
    // Every prefix of every length kept: the search is exact.
    EXPECT_EQ(Beam(p, classes, blank, 4096, &log_p), expected) << "trial " << trial;
    EXPECT_NEAR(std::exp(log_p), expected_p, 1e-6 * expected_p + 1e-12) << "trial " << trial;
    // A beam of 1 is allowed to miss; count how often, so the test shows beams matter.
    narrow_misses += Beam(p, classes, blank, 1) != expected;
  }
  EXPECT_GT(narrow_misses, 0) << "a beam of 1 never missed: the cases are too easy";
}

TEST(CtcBeamSearch, LogProbabilitiesDecodeAsProbabilitiesDo) {
  const std::vector<float> p = {0.4f, 0.35f, 0.25f, 0.4f, 0.35f, 0.25f, 0.1f, 0.2f, 0.7f};
  std::vector<float> logs;
  for (float v : p) logs.push_back(std::log(v));
  CtcBeamSearch search;
  search.classes = 3;
  search.blank = 0;
  search.beam_width = 8;
  const std::vector<int> from_p = search.Decode(p.data(), 3, 3);
  search.log_probs = true;
  EXPECT_EQ(search.Decode(logs.data(), 3, 3), from_p);
}

// The language-model hook: a scorer that forbids "b" after "a" changes the answer.
TEST(CtcBeamSearch, AScorerHookSteersTheSearch) {
  struct NoBAfterA : PrefixScorer {
    double Extend(const std::vector<int>& prefix, int label) const override {
      return !prefix.empty() && prefix.back() == 1 && label == 2 ? -1e9 : 0.0;
    }
  };
  const float hi = 0.9f, lo = 0.05f;
  const std::vector<float> ab = {lo, hi, lo, lo, lo, hi};  // "ab"
  CtcBeamSearch search;
  search.classes = 3;
  search.blank = 0;
  search.beam_width = 8;
  EXPECT_EQ(search.Decode(ab.data(), 2, 3), (std::vector<int>{1, 2}));
  const NoBAfterA scorer;
  search.scorer = &scorer;
  const std::vector<int> steered = search.Decode(ab.data(), 2, 3);
  EXPECT_NE(steered, (std::vector<int>{1, 2}));
}

// A decoder that cannot work is refused when the topology resolves, naming layer and field.
TEST(CtcBeamDecoderOp, BadShapesAndAttributesAreNamed) {
  auto resolve = [](const std::string& shape, const std::string& attrs) {
    return Resolve(ParseTopologyJson(R"({"format": "ntpbench-topology", "version": 1, "name": "d",
        "inputs": [{"name": "p", "shape": )" +
                                         shape + R"(}], "layers": [{"name": "decode",
        "op": "ctc_beam_decoder")" + attrs +
                                         "}]}",
                                     "d.json"),
                   {});
  };
  const ResolvedTopology ok = resolve("[50, 2, 29]", "");
  EXPECT_EQ(ok.layers[0].output_shapes[0], (Shape{2, 50}));
  for (const auto& [shape, attrs, field] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"[50, 29]", "", "inputs"},
           {"[50, 2, 1]", "", "inputs"},
           {"[50, 2, 29]", R"(, "blank": 29)", "blank"},
           {"[50, 2, 29]", R"(, "beam_width": 0)", "beam_width"}}) {
    try {
      resolve(shape, attrs);
      ADD_FAILURE() << shape << attrs << " resolved";
    } catch (const Error& e) {
      EXPECT_EQ(e.layer(), "decode") << e.what();
      EXPECT_EQ(e.field(), field) << e.what();
    }
  }
}

}  // namespace
}  // namespace ntpb::testing
