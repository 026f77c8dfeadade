#include "ntpbench/report.h"

#include <gtest/gtest.h>

#include "ntpbench/json_format.h"
#include "ntpbench/precision_report.h"
#include "src/report/csv_field.h"
#include "src/report/svg.h"
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

// A name from a file reaches HTML, SVG and CSV as text: markup as entities, quotes doubled,
// control characters (an ESC in a layer's name) and stray bytes as \xNN; line breaks of notes
// stay in HTML.
TEST(Report, NamesAreTextInHtmlSvgAndCsv) {
  EXPECT_EQ(report::Escape("fc\x1b[2J<b>\"&\nnext\xff"),
            "fc\\x1b[2J&lt;b&gt;&quot;&amp;\nnext\\xff");
  EXPECT_EQ(CsvField("fc\x1b[2J"), "fc\\x1b[2J");
  EXPECT_EQ(CsvField("a,\"b\"\n"), "\"a,\"\"b\"\"\\x0a\"");
  EXPECT_EQ(CsvField("caf\xc3\xa9"), "caf\xc3\xa9");
}

// The roof line names the precision's compute peak, and how it stands against f32's where the
// two differ by 10% or more: a machine whose bf16 peak is below its f32 one runs compute-bound
// layers slower in bf16, which the speed-up alone leaves unexplained.
TEST(Report, TheRoofLineSetsAPrecisionsPeakAgainstF32s) {
  const ResolvedTopology t = Resolve(ReadTopologyJsonFile(SourcePath("topologies/mlp.json")), {});
  const TopologyAnalysis a = Analyze(t, f32);
  const std::map<std::string, double> counters = {{"layer.fc1.ms", 0.25},
                                                  {"net.samples_per_second", 2000}};
  MachinePeaks peaks;
  peaks.peak_gflops = {{"f32", 300}, {"bf16", 170}, {"i8", 1350}, {"f16", 310}};
  peaks.bandwidth_gbs = 30;
  auto roof_lines = [&](const std::string& precision) {
    RunMeasurement m = DescribedLikeARun(t, a, DecodeCounters(counters));
    m.setup.precision = precision;
    const std::string table = FormatRunTable(m, &peaks);
    const size_t at = table.find("roof: ");
    return at == std::string::npos ? std::string() : table.substr(at);
  };
  const std::string recurrence =
      "      a recurrence (weights re-read each step): its largest re-read tensor's plateau, half "
      "the L3 served beyond it\n";
  EXPECT_EQ(roof_lines("f32"),
            "roof: f32 peak 300 GFLOP/s, memory 30.0 GB/s; from `ntpbench machine`\n" + recurrence);
  EXPECT_EQ(roof_lines("bf16"),
            "roof: bf16 peak 170 GFLOP/s, memory 30.0 GB/s; from `ntpbench machine`\n" +
                recurrence +
                "      bf16 computes at 0.57x f32's peak here: compute-bound layers run slower "
                "than in f32\n");
  EXPECT_EQ(roof_lines("i8"),
            "roof: i8 peak 1350 GFLOP/s, memory 30.0 GB/s; from `ntpbench machine`\n" + recurrence +
                "      i8 computes at 4.50x f32's peak here\n");
  EXPECT_EQ(roof_lines("f16"),
            "roof: f16 peak 310 GFLOP/s, memory 30.0 GB/s; from `ntpbench machine`\n" + recurrence);
}

TEST(Report, RunTableShowsEveryLayerMarkerAndTotal) {
  const ResolvedTopology t = Resolve(ReadTopologyJsonFile(SourcePath("topologies/mlp.json")), {});
  const TopologyAnalysis a = Analyze(t, f32);
  const std::map<std::string, double> counters = {
      {"layer.fc1.ms", 0.25}, {"layer.fc1.time_share", 0.5},   {"layer.fc1.gflops", 6.4},
      {"layer.fc2.ms", 0.25}, {"layer.fc2.time_share", 0.5},   {"hidden.time_share", 1.0},
      {"hidden.ms", 0.5},     {"net.samples_per_second", 2000}};
  const std::string table = FormatRunTable(DescribedLikeARun(t, a, DecodeCounters(counters)));
  // Sub-millisecond times in µs.
  for (const char* text : {"fc1", "fc2", "fc3", "probs", "[hidden]", "total", "500.0 \u00b5s",
                           "250.0 \u00b5s", "50.0%", "6.4", "samples/s 2000.00"}) {
    EXPECT_NE(table.find(text), std::string::npos) << text << "\n" << table;
  }
  // FLOPs and bytes are in the wide table; --benchmark_time_unit fixes the unit of every time.
  TableView wide;
  wide.wide = true;
  wide.time_unit = "ms";
  const std::string all =
      FormatRunTable(DescribedLikeARun(t, a, DecodeCounters(counters)), nullptr, wide);
  for (const char* text : {"1.61 M", "FLOP/B", "activations out", "0.500 ms", "0.250 ms"}) {
    EXPECT_NE(all.find(text), std::string::npos) << text << "\n" << all;
  }
  EXPECT_EQ(table.find("FLOP/B"), std::string::npos) << table;
  EXPECT_EQ(table.find("latency min"), std::string::npos) << "no range when none was recorded";
  // The range behind the percentiles, and which percentile has too few iterations to be one.
  std::map<std::string, double> with_range = counters;
  with_range["net.min_ms"] = 0.4;
  with_range["net.max_ms"] = 2.5;
  with_range["net.latency_samples"] = 57;
  const std::string ranged = FormatRunTable(DescribedLikeARun(t, a, DecodeCounters(with_range)));
  EXPECT_NE(ranged.find("\nlatency min 400.0 \u00b5s, max 2.50 ms over 57 iterations (too few for "
                        "a p90: it needs 100)"),
            std::string::npos)
      << ranged;
  with_range["net.latency_samples"] = 500;
  EXPECT_NE(FormatRunTable(DescribedLikeARun(t, a, DecodeCounters(with_range)))
                .find("over 500 iterations (too few for a p99: it needs 1000)"),
            std::string::npos);
  with_range["net.latency_samples"] = 1000;
  EXPECT_EQ(FormatRunTable(DescribedLikeARun(t, a, DecodeCounters(with_range))).find("too few"),
            std::string::npos);
}

// Where the run kept each step's iterations, every row's headline is its median with its range
// (a mean above the median is one slow iteration's doing); the mean is in the footer; counters
// measured in a pass of their own say so, with what counting cost.
TEST(Report, RunTableHeadlinesAreMediansWithTheirRange) {
  const ResolvedTopology t =
      Resolve(ReadTopologyJsonFile(SourcePath("topologies/mlp.json")), {{"N", 4}});
  const TopologyAnalysis a = Analyze(t, f32);
  std::map<std::string, double> counters = {
      {"layer.fc1.ms", 0.5},          {"layer.fc1.p50_ms", 0.2},   {"layer.fc1.min_ms", 0.19},
      {"layer.fc1.max_ms", 31.0},     {"layer.fc1.time_share", 1}, {"hidden.ms", 0.5},
      {"hidden.p50_ms", 0.21},        {"hidden.min_ms", 0.2},      {"hidden.max_ms", 0.4},
      {"net.p50_ms", 0.25},           {"net.min_ms", 0.24},        {"net.max_ms", 31.2},
      {"net.latency_samples", 2000},  {"net.step_samples", 1500},  {"net.net_counter", 1},
      {"net.counted_iterations", 40}, {"net.counted_ms", 0.75}};
  RunMeasurement m = DecodeCounters(counters);
  m.setup.batch = 4;
  const std::string table = FormatRunTable(DescribedLikeARun(t, a, m));
  auto row = [&](const std::string& start) {
    const size_t at = table.find("\n" + start);
    return at == std::string::npos ? std::string()
                                   : table.substr(at + 1, table.find('\n', at + 1) - at - 1);
  };
  EXPECT_NE(table.find(" p50 "), std::string::npos) << table;
  EXPECT_NE(table.find("min..max"), std::string::npos) << table;
  EXPECT_NE(row("fc1").find("200.0 \u00b5s"), std::string::npos) << row("fc1");
  EXPECT_NE(row("fc1").find("190.0 \u00b5s..31.00 ms"), std::string::npos) << row("fc1");
  EXPECT_EQ(row("fc1").find("500.0"), std::string::npos) << "not the mean: " << row("fc1");
  EXPECT_NE(row("[hidden]").find("200.0..400.0 \u00b5s"), std::string::npos) << row("[hidden]");
  EXPECT_NE(row("total").find("250.0 \u00b5s"), std::string::npos) << row("total");
  EXPECT_NE(table.find("mean 500.0 \u00b5s"), std::string::npos) << table;
  EXPECT_NE(table.find("per sample (batch 4) p50 62.5 \u00b5s"), std::string::npos) << table;
  EXPECT_NE(table.find("rows over the first 1500"), std::string::npos) << table;
  EXPECT_NE(table.find("counters from a pass of their own after the timed one: 40 iterations at "
                       "750.0 \u00b5s each,\n  counting included (+50% over the timed mean)"),
            std::string::npos)
      << table;
  // A file from before medians were kept: means, said so, and no range column.
  const std::string old = FormatRunTable(DescribedLikeARun(
      t, a, DecodeCounters({{"layer.fc1.ms", 0.5}, {"net.samples_per_second", 2000}})));
  EXPECT_NE(old.find(" mean "), std::string::npos) << old;
  EXPECT_EQ(old.find("min..max"), std::string::npos) << old;
}

// Below f32 the table says where accuracy went: the outputs, the logits, the agreement of the
// predictions and the three steps that lost most.
TEST(Report, RunTableShowsTheAccuracyBlock) {
  const ResolvedTopology t = Resolve(ReadTopologyJsonFile(SourcePath("topologies/mlp.json")), {});
  const TopologyAnalysis a = Analyze(t, f32);
  RunMeasurement m = DecodeCounters({{"layer.fc1.ms", 0.1},
                                     {"layer.fc1.rms_rel_err", 2e-3},
                                     {"layer.fc2.ms", 0.1},
                                     {"layer.fc2.rms_rel_err", 5e-3},
                                     {"layer.fc3.ms", 0.1},
                                     {"layer.fc3.rms_rel_err", 8e-3},
                                     {"layer.probs.ms", 0.1},
                                     {"layer.probs.rms_rel_err", 1e-4},
                                     {"acc.max_rel_err", 1e-5},
                                     {"acc.cosine", 0.999999},
                                     {"acc.rms_rel_err", 1.2e-4},
                                     {"acc.logits_rms_rel_err", 8e-3},
                                     {"acc.logits_cosine", 0.99997},
                                     {"acc.top1_agreement", 0.984375},
                                     {"acc.top5_overlap", 0.99},
                                     {"acc.predictions", 64},
                                     {"acc.inputs", 64}});
  m.accuracy->logits = "fc3";
  const std::string table = FormatRunTable(DescribedLikeARun(t, a, m, Precision::kI8));
  for (const char* text :
       {"outputs: relative error 1.20e-04",
        "logits (fc3, before the softmax): relative error "
        "8.00e-03",
        "top-1 agreement 98.4%, top-5 overlap 99.0% over 64 predictions of 64 seeded inputs",
        "steps losing most (their output's relative error): fc3 8.00e-03, fc2 5.00e-03, fc1 "
        "2.00e-03\n"}) {
    EXPECT_NE(table.find(text), std::string::npos) << text << "\n" << table;
  }
  // Every step's error in the table itself, in its own column.
  EXPECT_NE(table.find("rel. err"), std::string::npos) << table;
  const size_t fc2 = table.find("\nfc2 ");
  ASSERT_NE(fc2, std::string::npos) << table;
  EXPECT_NE(table.substr(fc2, table.find('\n', fc2 + 1) - fc2).find("5.00e-03"), std::string::npos)
      << table;
  EXPECT_EQ(FormatRunTable(DescribedLikeARun(t, a, DecodeCounters({{"layer.fc1.ms", 0.1}})))
                .find("rel. err"),
            std::string::npos)
      << "no column where no error was measured";
}

// Each precision of one configuration against its f32 run: speed-up at the median next to the
// accuracy; a configuration with one precision gets no table.
TEST(Report, PrecisionTablePutsSpeedNextToAccuracy) {
  auto run = [](const std::string& precision, double p50, double top1, double logits) {
    PrecisionRun r;
    r.name = "mlp/onednn/" + precision + "/batch:1/real_time";
    r.measured.setup.precision = precision;
    r.measured.net.p50_ms = p50;
    if (precision != "f32") {
      r.measured.accuracy.emplace();
      r.measured.accuracy->top1_agreement = top1;
      r.measured.accuracy->logits = "fc3";
      r.measured.accuracy->logits_rms_rel_err = logits;
    }
    return r;
  };
  EXPECT_EQ(PrecisionGroup("mlp/onednn/bf16/batch:1/real_time", "bf16"), "mlp/onednn/batch:1");
  const std::string table = RenderPrecisionTable(
      {run("f32", 0.08, 0, 0), run("bf16", 0.04, 0.998, 5e-3), run("i8", 0.032, 0.97, 2.5e-2)});
  for (const char* text : {"mlp/onednn/batch:1", "reference", "x2.00", "99.8%", "5.00e-03", "x2.50",
                           "97.0%", "2.50e-02"}) {
    EXPECT_NE(table.find(text), std::string::npos) << text << "\n" << table;
  }
  EXPECT_EQ(RenderPrecisionTable({run("f32", 0.08, 0, 0)}), "");
  EXPECT_EQ(table.find("disturbed"), std::string::npos);
  // A run the machine disturbed: its speed-up marked and said, not read.
  PrecisionRun busy = run("bf16", 0.04, 0.998, 5e-3);
  busy.measured.interference.emplace();
  busy.measured.interference->seconds = 3;
  busy.measured.interference->others_share = 0.5;
  const std::string marked = RenderPrecisionTable({run("f32", 0.08, 0, 0), busy});
  EXPECT_NE(marked.find("x2.00?"), std::string::npos) << marked;
  EXPECT_NE(marked.find("? the machine disturbed this run"), std::string::npos) << marked;
}

// Display columns of the widest line (UTF-8 continuation bytes take none).
size_t Widest(const std::string& text) {
  size_t widest = 0, n = 0;
  for (unsigned char c : text) {
    if (c == '\n') {
      widest = std::max(widest, n);
      n = 0;
    } else {
      n += (c & 0xC0) != 0x80;
    }
  }
  return std::max(widest, n);
}

// The default table fits 120 columns however long the names are (shortened in the middle);
// --top N keeps the slowest steps, slowest first, and sums the rest in one row.
TEST(Report, RunTableFits120ColumnsAndShowsHotSpots) {
  Topology long_names = ReadTopologyJsonFile(SourcePath("topologies/mlp.json"));
  const std::string prefix = "/model/encoder/layers.0/self_attention/multi_head/output_projection/";
  std::map<std::string, double> counters;
  double ms = 0.1;
  for (Layer& l : long_names.layers) {
    l.name = prefix + l.name;
    counters["layer." + l.name + ".ms"] = ms;
    ms *= 2;  // later layers slower: fc1 0.1, fc2 0.2, fc3 0.4, probs 0.8
  }
  long_names.markers.clear();
  const ResolvedTopology t = Resolve(long_names, {});
  const TopologyAnalysis a = Analyze(t, f32);
  const std::string table = FormatRunTable(DescribedLikeARun(t, a, DecodeCounters(counters)));
  EXPECT_LE(Widest(table), 120u) << table;
  EXPECT_NE(table.find("\u2026"), std::string::npos) << "names shortened:\n" << table;
  EXPECT_NE(table.find("output_projection/fc1"), std::string::npos) << "the end is kept\n" << table;
  TableView wide;
  wide.wide = true;
  EXPECT_GT(
      Widest(FormatRunTable(DescribedLikeARun(t, a, DecodeCounters(counters)), nullptr, wide)),
      120u);
  TableView top;
  top.top = 2;
  const std::string hot =
      FormatRunTable(DescribedLikeARun(t, a, DecodeCounters(counters)), nullptr, top);
  const size_t probs = hot.find("probs"), fc3 = hot.find("fc3");
  ASSERT_NE(probs, std::string::npos) << hot;
  ASSERT_NE(fc3, std::string::npos) << hot;
  EXPECT_LT(probs, fc3) << "slowest first\n" << hot;
  EXPECT_EQ(hot.find("fc1"), std::string::npos) << hot;
  EXPECT_NE(hot.find("(2 more steps)"), std::string::npos) << hot;
  EXPECT_NE(hot.find("300.0 \u00b5s"), std::string::npos) << "fc1 + fc2\n" << hot;
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
  TableView wide;  // the bytes columns
  wide.wide = true;
  const std::string table =
      FormatRunTable(DescribedLikeARun(t, a, DecodeCounters(counters)), nullptr, wide);
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
  const std::string unfused =
      FormatRunTable(DescribedLikeARun(t, a, DecodeCounters({{"stem.ms", 0.012}})), nullptr, wide);
  EXPECT_NE(unfused.find("24.00 KiB"), std::string::npos) << unfused;
}

// CSV for a spreadsheet: a header, one row per layer (fused ones say so), inlays and markers,
// fields with commas quoted.
TEST(Report, RunCsvHasOneRowPerLayerInlayAndMarker) {
  const ResolvedTopology t =
      Resolve(ReadTopologyJsonFile(SourcePath("topologies/tiny_cnn.json")), {{"N", 1}});
  const TopologyAnalysis a = Analyze(t, f32);
  const RunMeasurement m = DecodeCounters({{"layer.conv1.ms", 0.25},
                                           {"layer.conv1.fused_layers", 2},
                                           {"layer.conv1.reorder.image.ms", 0.002},
                                           {"layer.conv1.reorder.image.inlay", 1},
                                           {"layer.conv1.reorder.image.feeds", 0},
                                           {"stem.ms", 0.252}});
  const std::string bench = "tiny_cnn/x/f32/batch:1";
  const RunReportFormat* csv = FindRunReportFormat("csv");
  ASSERT_NE(csv, nullptr);
  const std::string out = csv->render({bench, DescribedLikeARun(t, a, m), nullptr});
  std::vector<std::string> lines;
  for (size_t at = 0, nl; (nl = out.find('\n', at)) != std::string::npos; at = nl + 1) {
    lines.push_back(out.substr(at, nl - at));
  }
  // Every layer, the inlay and both markers of tiny_cnn.
  ASSERT_EQ(lines.size(), t.layers.size() + 1 + a.markers.size()) << out;
  EXPECT_EQ(lines[0], bench + ",conv1.reorder.image,reorder,inlay,,0.002,0,0,0,0,");
  // The step's cost: conv1's 110592 FLOPs and 864 weight bytes, bn1's 4096 and 128 (four
  // values for each of 8 channels), relu1's 2048 FLOPs; only relu1's 8 KiB are written.
  EXPECT_EQ(lines[1], bench + ",conv1,conv2d,fused,\"[1, 8, 16, 16]\",0.25,0,0,116736,992,8192");
  EXPECT_EQ(lines[2].rfind(bench + ",bn1,batchnorm,fused,", 0), 0u) << lines[2];
  EXPECT_NE(out.find(bench + ",stem,marker,marker,conv1..relu1,0.252,"), std::string::npos) << out;
  EXPECT_EQ(std::string(csv->header).rfind("benchmark,layer,op,kind,output,ms,", 0), 0u);
  EXPECT_EQ(FindRunReportFormat("xml"), nullptr);
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
