#include "ntpbench/report.h"

#include <gtest/gtest.h>

#include "ntpbench/json_format.h"
#include "tests/test_util.h"

namespace ntpb::testing {
namespace {

TEST(Report, FormatsBytesAndCounts) {
  EXPECT_EQ(FormatBytes(512), "512 B");
  EXPECT_EQ(FormatBytes(1536), "1.50 KiB");
  EXPECT_EQ(FormatBytes(3.0 * (1 << 30)), "3.00 GiB");
  EXPECT_EQ(FormatCount(16.99e9), "16.99 G");
  EXPECT_EQ(FormatCount(3.72e6), "3.72 M");
  EXPECT_EQ(FormatCount(120), "120");
}

TEST(Report, RunTableShowsEveryLayerMarkerAndTotal) {
  const ResolvedTopology t = Resolve(ReadTopologyJsonFile(SourcePath("topologies/mlp.json")), {});
  const TopologyAnalysis a = Analyze(t, f32);
  const std::map<std::string, double> counters = {
      {"layer.fc1.ms", 0.25}, {"layer.fc1.time_share", 0.5},   {"layer.fc1.gflops", 6.4},
      {"layer.fc2.ms", 0.25}, {"layer.fc2.time_share", 0.5},   {"hidden.time_share", 1.0},
      {"hidden.ms", 0.5},     {"net.samples_per_second", 2000}};
  const std::string table = FormatRunTable(t, a, DecodeCounters(counters));
  for (const char* text : {"fc1", "fc2", "fc3", "probs", "[hidden]", "total", "0.500", "50.0%",
                           "6.4", "samples/s 2000.00", "1.61 M"}) {
    EXPECT_NE(table.find(text), std::string::npos) << text << "\n" << table;
  }
}

// A step that absorbed layers (post-op fusion) shows them under it; its bytes, and those of the
// markers and the total, leave out the intermediates that never reached memory.
TEST(Report, RunTableShowsFusedLayersUnderTheirStep) {
  const ResolvedTopology t =
      Resolve(ReadTopologyJsonFile(SourcePath("topologies/tiny_cnn.json")), {{"N", 1}});
  const TopologyAnalysis a = Analyze(t, f32);
  const std::map<std::string, double> counters = {{"layer.conv1.ms", 0.01},
                                                  {"layer.conv1.fused_layers", 2},
                                                  {"layer.conv1.reorder.image.ms", 0.002},
                                                  {"layer.conv1.reorder.image.inlay", 1},
                                                  {"layer.conv1.reorder.image.feeds", 0},
                                                  {"stem.ms", 0.012}};
  const std::string table = FormatRunTable(t, a, DecodeCounters(counters));
  // conv1, bn1 and relu1 each write 8 KiB ([1, 8, 16, 16] f32); the step writes relu1's only.
  for (const char* text :
       {"conv2d+batchnorm+relu", "  bn1", "  relu1", "fused", "conv1.reorder.image (inlay)"}) {
    EXPECT_NE(table.find(text), std::string::npos) << text << "\n" << table;
  }
  auto row = [&](const std::string& start) {
    const size_t at = table.find("\n" + start);
    return at == std::string::npos ? std::string()
                                   : table.substr(at + 1, table.find('\n', at + 1) - at - 1);
  };
  EXPECT_NE(row("[stem]").find("8.00 KiB"), std::string::npos) << row("[stem]");
  EXPECT_EQ(row("[stem]").find("24.00 KiB"), std::string::npos) << row("[stem]");
  // Without fusion the marker writes all three tensors.
  const std::string unfused = FormatRunTable(t, a, DecodeCounters({{"stem.ms", 0.012}}));
  EXPECT_NE(unfused.find("24.00 KiB"), std::string::npos) << unfused;
}

TEST(Report, InspectTableShowsShapesParamsAndPeak) {
  const ResolvedTopology t =
      Resolve(ReadTopologyJsonFile(SourcePath("topologies/tiny_cnn.json")), {{"N", 2}});
  const std::string table = FormatInspectTable(t, Analyze(t, f32));
  for (const char* text : {"conv1", "[2, 8, 16, 16]", "pw, relu1", "[stem]", "params 1722",
                           "FLOPs 455868", "peak live activations 48.00 KiB (at layer pw)"}) {
    EXPECT_NE(table.find(text), std::string::npos) << text << "\n" << table;
  }
}

}  // namespace
}  // namespace ntpb::testing
