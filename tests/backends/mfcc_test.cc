// The MFCC front end against torchaudio's (a committed reference made by
// tools/mfcc_reference.py), and the context window.
#include "src/backends/common/mfcc.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "ntpbench/error.h"
#include "ntpbench/json_format.h"
#include "ntpbench/resolve.h"
#include "src/backends/common/speech_inlays.h"
#include "src/cli/audio_file.h"
#include "tests/test_util.h"

namespace ntpb::testing {
namespace {

std::vector<float> Signal(const std::string& name, int64_t samples, double rate) {
  std::vector<float> pcm(samples);
  constexpr double kPi = 3.14159265358979323846;
  for (int64_t i = 0; i < samples; ++i) {
    const double t = i / rate;
    pcm[i] = static_cast<float>(
        name == "tones" ? 0.5 * std::sin(2 * kPi * 440 * t) + 0.25 * std::sin(2 * kPi * 1000 * t)
                        : 0.5 * std::sin(2 * kPi * (100 * t + (4000 - 100) / (2 * 0.25) * t * t)));
  }
  return pcm;
}

TEST(Mfcc, MatchesTorchaudioOnTonesAndAChirp) {
  std::ifstream in(SourcePath("tests/data/mfcc_reference.json"));
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json ref = nlohmann::json::parse(text.str());
  const int64_t samples = ref["samples"];
  const MfccFrontEnd front_end(MfccConfig{});
  ASSERT_EQ(MfccFrames(samples, 400, 160), 23);
  for (const std::string name : {"tones", "chirp"}) {
    const nlohmann::json& frames = ref["cases"][name];
    const std::vector<float> pcm = Signal(name, samples, ref["sample_rate"].get<double>());
    std::vector<float> out(23 * 26);
    front_end.Compute(pcm.data(), samples, out.data());
    ASSERT_EQ(frames.size(), 23u);
    double worst = 0;
    for (size_t t = 0; t < frames.size(); ++t) {
      for (size_t k = 0; k < 26; ++k) {
        const double expected = frames[t][k].get<double>();
        const double error = std::abs(out[t * 26 + k] - expected) / (1 + std::abs(expected));
        worst = std::max(worst, error);
      }
    }
    // float32 on both sides, FFTW against PyTorch's FFT: a few 1e-5 of each coefficient.
    EXPECT_LT(worst, 1e-3) << name;
  }
}

// Real speech (espeak-ng, resampled to 16 kHz, as a 16-bit WAV read through libsndfile).
TEST(Mfcc, MatchesTorchaudioOnSpeech) {
  std::ifstream in(SourcePath("tests/data/mfcc_reference.json"));
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json ref = nlohmann::json::parse(text.str());
  const cli::Audio audio =
      cli::ReadAudioFile(SourcePath("tests/data/" + ref["speech_wav"].get<std::string>()));
  ASSERT_EQ(audio.sample_rate, 16000);
  const auto samples = static_cast<int64_t>(audio.samples.size());
  const nlohmann::json& frames = ref["cases"]["speech"];
  ASSERT_EQ(MfccFrames(samples, 400, 160), static_cast<int64_t>(frames.size()));
  std::vector<float> out(frames.size() * 26);
  MfccFrontEnd(MfccConfig{}).Compute(audio.samples.data(), samples, out.data());
  double worst = 0;
  for (size_t t = 0; t < frames.size(); ++t) {
    for (size_t k = 0; k < 26; ++k) {
      const double expected = frames[t][k].get<double>();
      worst = std::max(worst, std::abs(out[t * 26 + k] - expected) / (1 + std::abs(expected)));
    }
  }
  // Silence between words has log energies near log(1e-6): float rounding moves them most.
  EXPECT_LT(worst, 1e-3);
}

TEST(Mfcc, TheFilterbankIsTriangularOverTheBandsItSpans) {
  const MfccFrontEnd front_end(MfccConfig{});
  const std::vector<double>& fb = front_end.filterbank();
  const int64_t bins = 201;
  ASSERT_EQ(fb.size(), static_cast<size_t>(26 * bins));
  for (int64_t m = 0; m < 26; ++m) {
    double peak = 0;
    int64_t nonzero = 0;
    for (int64_t b = 0; b < bins; ++b) {
      EXPECT_GE(fb[m * bins + b], 0.0);
      peak = std::max(peak, fb[m * bins + b]);
      nonzero += fb[m * bins + b] > 0;
    }
    EXPECT_LE(peak, 1.0 + 1e-12) << m;
    EXPECT_GT(nonzero, 0) << "band " << m << " covers no bin";
  }
}

TEST(ContextWindowKernel, NeighboursAndZerosPastTheEnds) {
  const ContextWindow window{1, 3, 2, 1};  // N 1, T 3, F 2, one step each side
  const std::vector<float> in = {1, 2, 3, 4, 5, 6};
  std::vector<float> out(3 * 6, -7);
  window(in.data(), out.data());
  EXPECT_EQ(out, (std::vector<float>{0, 0, 1, 2, 3, 4,  //
                                     1, 2, 3, 4, 5, 6,  //
                                     3, 4, 5, 6, 0, 0}));
}

TEST(MfccOp, TheAudioLengthSetsTheStepsAndBadSettingsAreNamed) {
  auto resolve = [](int64_t samples, const std::string& attrs) {
    return Resolve(ParseTopologyJson(R"({"format": "ntpbench-topology", "version": 1, "name": "f",
        "inputs": [{"name": "audio", "shape": ["N", )" +
                                         std::to_string(samples) + R"(]}],
        "layers": [{"name": "features", "op": "mfcc")" +
                                         attrs + R"(},
                   {"name": "context", "op": "context_window"}]})",
                                     "f.json"),
                   {{"N", 2}});
  };
  const ResolvedTopology one_second = resolve(16000, "");
  EXPECT_EQ(one_second.layers[0].output_shapes[0], (Shape{2, 98, 26}));
  EXPECT_EQ(one_second.layers[1].output_shapes[0], (Shape{2, 98, 494})) << "DeepSpeech's 494";
  for (const auto& [samples, attrs, field] :
       std::vector<std::tuple<int64_t, std::string, std::string>>{
           {300, "", "inputs"},
           {16000, R"(, "window_ms": 0)", "window_ms"},
           {16000, R"(, "cepstra": 40)", "cepstra"},
           {16000, R"(, "high_hz": 9000)", "high_hz"},
           {16000, R"(, "sample_rate": 11025, "window_ms": 40, "step_ms": 7)", "step_ms"}}) {
    try {
      resolve(samples, attrs);
      ADD_FAILURE() << samples << attrs << " resolved";
    } catch (const Error& e) {
      EXPECT_EQ(e.layer(), "features") << e.what();
      EXPECT_EQ(e.field(), field) << e.what();
    }
  }
}

}  // namespace
}  // namespace ntpb::testing
