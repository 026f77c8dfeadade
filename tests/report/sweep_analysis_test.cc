// The density-contradiction detector and the factor series, on hand-made sweep points.
#include "ntpbench/sweep_analysis.h"

#include <gtest/gtest.h>

namespace ntpb::testing {
namespace {

SweepPointSummary Point(const std::string& id, double density, double gflops,
                        const std::string& precision = "f32") {
  SweepPointSummary p;
  p.id = id;
  p.ok = true;
  p.density = density;
  p.gflops = gflops;
  p.settings = {{"backend", "onednn"}, {"precision", precision}, {"threads", "0"}};
  return p;
}

TEST(DensityContradictions, FlagsADenserSlowerPointBeyondTheMargin) {
  const std::vector<SweepPointSummary> points = {
      Point("a", 10, 100),  // the roofline's order: denser, faster
      Point("b", 20, 180),
      Point("c", 40, 150),       // denser than b (x2) yet slower (180/150 = 1.2): flagged vs b
      Point("d", 21, 170),       // denser than b by 5% only: within the margin, not flagged
      Point("e", 80, 95, "i8"),  // another precision: another roofline, never compared
  };
  const std::vector<DensityContradiction> found = FindDensityContradictions(points, 0.1);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].denser, 2u);
  EXPECT_EQ(found[0].faster, 1u);
  EXPECT_DOUBLE_EQ(found[0].density_ratio, 2.0);
  EXPECT_DOUBLE_EQ(found[0].gflops_ratio, 1.2);
}

TEST(DensityContradictions, PicksTheStrongestPartnerAndSkipsFailedPoints) {
  std::vector<SweepPointSummary> points = {Point("slow", 50, 100), Point("x", 10, 150),
                                           Point("y", 20, 300), Point("broken", 5, 900)};
  points[3].ok = false;
  const std::vector<DensityContradiction> found = FindDensityContradictions(points, 0.1);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].faster, 2u);  // y: 3x the GFLOP/s; the failed point is no evidence
  EXPECT_TRUE(FindDensityContradictions({Point("a", 1, 1), Point("b", 2, 2)}).empty());
}

TEST(DensityContradictions, AnUnreliablePointIsNotJudged) {
  std::vector<SweepPointSummary> points = {Point("b", 20, 180), Point("c", 40, 150)};
  ASSERT_EQ(FindDensityContradictions(points, 0.1).size(), 1u);
  points[1].unreliable = "unreliable: the machine was busy";
  EXPECT_TRUE(FindDensityContradictions(points, 0.1).empty()) << "the denser one was disturbed";
  points[1].unreliable.clear();
  points[0].unreliable = "unreliable: its repetitions spread 9.0%";
  EXPECT_TRUE(FindDensityContradictions(points, 0.1).empty()) << "so was the faster one";
}

// A point's latency is the median of its repetitions' per-iteration medians; a point the machine
// disturbed carries the verdict.
TEST(SweepPoint, LatencyIsTheMedianIterationAndDisturbedPointsSaySo) {
  SweepPointResult p;
  p.id = "batch=1";
  p.ok = true;
  nlohmann::json bench = {{"name", "mlp/eigen/f32/batch:1"},
                          {"run_name", "mlp/eigen/f32/batch:1"},
                          {"run_type", "iteration"},
                          {"time_unit", "ms"},
                          {"real_time", 3.0},
                          {"net.p50_ms", 2.0},
                          {"net.flops", 4e6},
                          {"interference.seconds", 2.0},
                          {"interference.others_share", 0.4}};
  p.run = {{"context", nlohmann::json::object()}, {"benchmarks", {bench}}};
  const SweepPointSummary s = SummarizePoint(p, "sweep.json");
  EXPECT_DOUBLE_EQ(s.latency_ms, 2.0) << "the median iteration, not the 3 ms mean";
  EXPECT_NE(s.unreliable.find("busy"), std::string::npos) << s.unreliable;
  bench["interference.others_share"] = 0.0;
  p.run["benchmarks"][0] = bench;
  EXPECT_EQ(SummarizePoint(p, "sweep.json").unreliable, "");
}

TEST(FactorSeries, IsTheLineThroughTheBasePoint) {
  Sweep sweep;
  sweep.mode = SweepMode::kGrid;
  sweep.base = {{"k", "3"}, {"batch", "1"}};
  sweep.factors = {{"k", {"1", "3", "5"}, {}}, {"batch", {"1", "2"}, {}}};
  auto point = [](const std::string& k, const std::string& batch) {
    SweepPointSummary p = Point("k=" + k + ",batch=" + batch, 1, 1);
    p.settings["k"] = k;
    p.settings["batch"] = batch;
    return p;
  };
  // A grid: only the points with batch at its base value are on k's line.
  const std::vector<SweepPointSummary> points = {point("1", "1"), point("1", "2"), point("3", "1"),
                                                 point("5", "2"), point("5", "1")};
  const auto k_line = FactorSeries(points, sweep, "k");
  ASSERT_EQ(k_line.size(), 3u);
  EXPECT_EQ(k_line[0]->id, "k=1,batch=1");
  EXPECT_EQ(k_line[2]->id, "k=5,batch=1");
  const auto batch_line = FactorSeries(points, sweep, "batch");
  ASSERT_EQ(batch_line.size(), 1u);  // batch 2 with k 3 did not run
  EXPECT_EQ(batch_line[0]->id, "k=3,batch=1");
}

}  // namespace
}  // namespace ntpb::testing
