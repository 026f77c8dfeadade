// The prediction check's file (`predict --check -o`): read back as written, the machine's own
// change against its calibration included, and refused with the field named.
#include "ntpbench/prediction_check.h"

#include <gtest/gtest.h>

#include "ntpbench/error.h"

namespace ntpb {
namespace {

PredictionCheck TwoRows() {
  PredictionCheck c;
  c.calibration = "cal.json";
  c.machine = "Test CPU, 2 cores";
  c.backend = "onednn";
  c.precision = "f32";
  c.threads = 2;
  PredictionCheckRow measured;
  measured.model = "tiny_cnn.json width=8";
  measured.topology = "topologies/tiny_cnn.json";
  measured.batch = 8;
  measured.predicted_ms = 1.1;
  measured.low_ms = 1;
  measured.high_ms = 1.2;
  measured.dominant = "conv1 conv2d.image[k3s1] (30%)";
  measured.measured_ms = 1.0;
  measured.measured_spread = 0.02;
  PredictionCheckRow failed = measured;
  failed.batch = 1;
  failed.measured_ms.reset();
  failed.failed = "killed by signal 9";
  c.rows = {measured, failed};
  return c;
}

std::string Refusal(const std::string& text) {
  try {
    ParsePredictionCheck(text, "check.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "accepted";
}

TEST(PredictionCheckFile, RoundTripsWithTheMachinesOwnChange) {
  PredictionCheck c = TwoRows();
  EXPECT_FALSE(c.MedianMachineChange());
  c.machine_change = {{"probe_cnn", 0.09}, {"probe_dense", 0.03}, {"probe_layers", -0.01}};
  EXPECT_DOUBLE_EQ(*c.MedianMachineChange(), 0.03);
  const PredictionCheck back = ParsePredictionCheck(PredictionCheckJson(c).dump(), "check.json");
  EXPECT_EQ(back.machine_change, c.machine_change);
  ASSERT_EQ(back.rows.size(), 2u);
  EXPECT_NEAR(*back.rows[0].RelativeError(), 0.1, 1e-12);
  // +10% is within +-10%, not within +-5%; scaled by the machine's +3%, +13.3% is not.
  EXPECT_EQ(back.CountWithin(0.10), 1);
  EXPECT_EQ(back.CountWithin(0.05), 0);
  EXPECT_EQ(back.CountWithin(0.10, 1.03), 0);
  EXPECT_FALSE(back.rows[1].RelativeError());
  EXPECT_EQ(back.rows[1].failed, "killed by signal 9");
  // A check from before the change was measured reads as none.
  nlohmann::json j = PredictionCheckJson(c);
  j.erase("machine_change");
  EXPECT_TRUE(ParsePredictionCheck(j.dump(), "check.json").machine_change.empty());
}

// Which pass a row's measurement is (the fastest, against a calibration of several passes) reads
// back as written; a check from before says neither and was the median; another word is refused.
TEST(PredictionCheckFile, SaysWhichPassItMeasured) {
  PredictionCheck c = TwoRows();
  c.fastest_pass = true;
  nlohmann::json j = PredictionCheckJson(c);
  EXPECT_EQ(j["measured"], "fastest pass");
  EXPECT_TRUE(ParsePredictionCheck(j.dump(), "check.json").fastest_pass);
  j.erase("measured");
  EXPECT_FALSE(ParsePredictionCheck(j.dump(), "check.json").fastest_pass);
  j["measured"] = "best pass";
  EXPECT_NE(Refusal(j.dump()).find("check.json: field 'measured': expected \"fastest pass\" or "
                                   "\"median pass\", got \"best pass\""),
            std::string::npos)
      << Refusal(j.dump());
}

// Each pass with its cores' placement, the calibration's placement and a row measured only far
// apart read back as written; checks from before hold none of them.
TEST(PredictionCheckFile, KeepsEachPassWithItsCoresPlacement) {
  PredictionCheck c = TwoRows();
  c.core_to_core_ns = 30;
  c.rows[0].passes = {{1.4, 176}, {1.0, 29}, {1.02, 31}};
  c.rows[0].placed_apart = false;
  c.rows[1].passes = {};
  PredictionCheckRow apart = c.rows[0];
  apart.passes = {{1.5, 181}};
  apart.placed_apart = true;
  c.rows.push_back(apart);
  nlohmann::json j = PredictionCheckJson(c);
  const PredictionCheck back = ParsePredictionCheck(j.dump(), "check.json");
  EXPECT_DOUBLE_EQ(back.core_to_core_ns, 30);
  ASSERT_EQ(back.rows.size(), 3u);
  ASSERT_EQ(back.rows[0].passes.size(), 3u);
  EXPECT_DOUBLE_EQ(back.rows[0].passes[0].ms, 1.4);
  EXPECT_DOUBLE_EQ(back.rows[0].passes[0].core_to_core_ns, 176);
  EXPECT_FALSE(back.rows[0].placed_apart);
  EXPECT_TRUE(back.rows[2].placed_apart);
  EXPECT_TRUE(back.rows[1].passes.empty());
  j.erase("core_to_core_ns");
  j["results"][0].erase("passes");
  j["results"][2].erase("placed_apart");
  const PredictionCheck before = ParsePredictionCheck(j.dump(), "check.json");
  EXPECT_EQ(before.core_to_core_ns, 0);
  EXPECT_TRUE(before.rows[0].passes.empty());
  EXPECT_FALSE(before.rows[2].placed_apart);
  j = PredictionCheckJson(c);
  j["results"][0]["passes"][1]["core_to_core_ns"] = "near";
  EXPECT_NE(Refusal(j.dump()).find(
                "check.json: field 'results[0].passes[1].core_to_core_ns': has the wrong type"),
            std::string::npos)
      << Refusal(j.dump());
}

TEST(PredictionCheckFile, RefusesAMistypedChangeNamingIt) {
  nlohmann::json j = PredictionCheckJson(TwoRows());
  j["machine_change"] = {{"probe_cnn", "faster"}};
  EXPECT_NE(Refusal(j.dump()).find("check.json: field 'machine_change': has the wrong type"),
            std::string::npos)
      << Refusal(j.dump());
  j = PredictionCheckJson(TwoRows());
  j["results"][0].erase("measured_spread");
  EXPECT_NE(Refusal(j.dump()).find("field 'results[0].measured_spread': missing"),
            std::string::npos)
      << Refusal(j.dump());
}

}  // namespace
}  // namespace ntpb
