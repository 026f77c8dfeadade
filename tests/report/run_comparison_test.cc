// `ntpbench compare`: pairing, alignment (by name through fusion, by op and shape where names
// differ), the verdicts with and without repetitions, and the three formats.
#include "ntpbench/run_comparison.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "ntpbench/error.h"
#include "ntpbench/html_report.h"
#include "src/report/step_alignment.h"

namespace ntpb::testing {
namespace {

using nlohmann::json;

struct FakeStep {
  std::string name, op, shape;
  std::vector<std::string> layers;
  double ms;
  double flops = 100;
  bool inlay = false;
};

// A run file with one benchmark, `reps` repetitions, each step's time scaled per repetition.
std::string RunFile(const std::string& benchmark, const std::vector<FakeStep>& steps, int reps,
                    double scale = 1.0, double spread = 0.01, int batch = 1,
                    const std::string& topology = "") {
  json doc = {{"context", json::object()}, {"benchmarks", json::array()}};
  json description = {
      {"backend", "x"}, {"precision", "f32"}, {"batch", batch}, {"steps", json::array()}};
  if (!topology.empty()) description["topology"] = topology;
  for (const FakeStep& s : steps) {
    json d = {{"name", s.name}, {"op", s.op}, {"shape", s.shape}, {"flops", s.flops}};
    if (!s.layers.empty()) d["layers"] = s.layers;
    description["steps"].push_back(d);
  }
  for (int r = 0; r < reps; ++r) {
    const double jitter = 1.0 + spread * r;
    json b = {{"name", benchmark},
              {"run_name", benchmark},
              {"run_type", "iteration"},
              {"time_unit", "ms"},
              {"ntpbench", description}};
    double total = 0;
    int order = 0;
    for (const FakeStep& s : steps) {
      const double ms = s.ms * scale * jitter;
      total += ms;
      b["layer." + s.name + ".ms"] = ms;
      b["layer." + s.name + ".gflops"] = s.flops / (ms * 1e6);
      b["layer." + s.name + ".order"] = order++;
      if (s.inlay) b["layer." + s.name + ".inlay"] = 1;
    }
    b["real_time"] = total;
    b["net.flops"] = 1000;
    doc["benchmarks"].push_back(b);
  }
  return doc.dump();
}

const RunComparisonRow* Row(const RunComparison& c, const std::string& name) {
  for (const RunComparisonRow& r : c.rows) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

TEST(StepAlignment, FusedStepsFaceTheLayersTheyComputeAndRenamedLayersAlignByOpAndShape) {
  const std::vector<FakeStep> a = {{"conv1", "conv2d", "[1, 8]", {"conv1"}, 3},
                                   {"relu1", "relu", "[1, 8]", {"relu1"}, 1},
                                   {"fc", "dense", "[1, 4]", {"fc"}, 2},
                                   {"out", "softmax", "[1, 4]", {"out"}, 1}};
  const std::vector<FakeStep> b = {{"conv1.reorder", "reorder", "", {}, 0.5, 0, true},
                                   {"conv1", "conv2d", "[1, 8]", {"conv1", "relu1"}, 2},
                                   {"Gemm_3", "dense", "[1, 4]", {"Gemm_3"}, 2},
                                   {"Softmax_4", "softmax", "[1, 4]", {"Softmax_4"}, 1}};
  const RunMeasurement ma =
      ParseRunResults(RunFile("net/a", a, 1), "a").benchmarks.at("net/a").Measurement();
  const RunMeasurement mb =
      ParseRunResults(RunFile("net/b", b, 1), "b").benchmarks.at("net/b").Measurement();
  const auto rows = report::AlignSteps(ma, mb);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].by, report::AlignedSteps::By::kOnlyB) << "the inlay is b's own";
  EXPECT_EQ(rows[1].a, (std::vector<int>{0, 1})) << "conv1 and relu1 face the fused step";
  EXPECT_EQ(rows[1].b, (std::vector<int>{1}));
  EXPECT_EQ(rows[1].by, report::AlignedSteps::By::kName);
  EXPECT_EQ(rows[2].by, report::AlignedSteps::By::kOpShape);
  EXPECT_EQ(rows[2].a, (std::vector<int>{2}));
  EXPECT_EQ(rows[2].b, (std::vector<int>{2}));
  EXPECT_EQ(rows[3].by, report::AlignedSteps::By::kOpShape);
}

// Two exports of one long network, every layer renamed, b with an extra step every 1000 and
// without a's every 1500th: each step pairs by op and shape, the extras stand alone, in order.
std::pair<RunMeasurement, RunMeasurement> RenamedRuns(int steps) {
  std::vector<FakeStep> a, b;
  const char* ops[] = {"conv2d", "relu", "add", "dense"};
  for (int i = 0; i < steps; ++i) {
    const std::string op = ops[i % 4], shape = "[1, " + std::to_string(i % 7 + 1) + "]";
    a.push_back({"a" + std::to_string(i), op, shape, {}, 1});
    if (i % 1500 != 7) b.push_back({"b" + std::to_string(i), op, shape, {}, 1});
    if (i % 1000 == 3) b.push_back({"extra" + std::to_string(i), "reshape", "[9]", {}, 1});
  }
  return {ParseRunResults(RunFile("net/a", a, 1), "a").benchmarks.at("net/a").Measurement(),
          ParseRunResults(RunFile("net/b", b, 1), "b").benchmarks.at("net/b").Measurement()};
}

void ExpectEveryStepPairedInOrder(const std::vector<report::AlignedSteps>& rows, int steps) {
  int paired = 0, only_a = 0, only_b = 0, last_a = -1;
  for (const report::AlignedSteps& r : rows) {
    if (!r.a.empty()) {
      EXPECT_GT(r.a.front(), last_a) << "rows in a's order";
      last_a = r.a.front();
    }
    if (r.by == report::AlignedSteps::By::kOpShape) ++paired;
    if (r.by == report::AlignedSteps::By::kOnlyA) ++only_a;
    if (r.by == report::AlignedSteps::By::kOnlyB) ++only_b;
  }
  const int dropped = (steps + 1492) / 1500, extra = (steps + 996) / 1000;
  EXPECT_EQ(only_a, dropped);
  EXPECT_EQ(only_b, extra);
  EXPECT_EQ(paired, steps - dropped);
}

TEST(StepAlignment, ExactAndGreedyMatchingAgreeOnRenamedLayers) {
  // 1,800 x 1,800 cells: the exact table.
  const auto [a, b] = RenamedRuns(1800);
  ASSERT_LE(1800LL * 1800, report::kExactAlignmentCells);
  ExpectEveryStepPairedInOrder(report::AlignSteps(a, b), 1800);
}

TEST(StepAlignment, LongRunsAlignWithoutAQuadraticTable) {
  // 20,000 steps a side: a 4e8-cell table (60,000-step run files ended in bad_alloc); the greedy
  // walk pairs the same.
  const auto [a, b] = RenamedRuns(20000);
  ASSERT_GT(20000LL * 20000, report::kExactAlignmentCells);
  const auto rows = report::AlignSteps(a, b);
  ExpectEveryStepPairedInOrder(rows, 20000);
  // What faces a's steps in b, by the index, as the rows say.
  const report::StepsFacingIndex index(rows);
  for (const report::AlignedSteps& r : rows) {
    if (!r.a.empty()) {
      EXPECT_EQ(index.StepsFacing(r.a), r.b);
    }
  }
  EXPECT_TRUE(index.StepsFacing({-1, 1 << 30}).empty());
}

TEST(RunComparison, RepetitionsTellASignificantChangeFromNoise) {
  const std::vector<FakeStep> steps = {{"fc1", "dense", "[1, 8]", {}, 2},
                                       {"fc2", "dense", "[1, 8]", {}, 1}};
  std::vector<FakeStep> slower = steps;
  slower[1].ms = 1.5;  // +50%
  const std::vector<RunResults> files = {
      ParseRunResults(RunFile("mlp/onednn/f32/batch:1", steps, 6), "before.json"),
      ParseRunResults(RunFile("mlp/onednn/f32/batch:1", slower, 6), "after.json")};
  const std::vector<RunComparison> c = CompareRuns(files, {});
  ASSERT_EQ(c.size(), 1u);
  const RunComparisonRow* fc1 = Row(c[0], "fc1");
  const RunComparisonRow* fc2 = Row(c[0], "fc2");
  ASSERT_TRUE(fc1 && fc2);
  EXPECT_EQ(fc1->judgements[0].verdict, "same");
  EXPECT_EQ(fc2->judgements[0].verdict, "slower");
  EXPECT_NEAR(fc2->judgements[0].change, 0.5, 1e-9);
  EXPECT_LT(fc2->judgements[0].p_value, 0.05);
  EXPECT_EQ(Row(c[0], "network")->judgements[0].verdict, "slower");

  // One repetition: the change is told, not judged.
  const std::vector<RunResults> once = {
      ParseRunResults(RunFile("mlp/onednn/f32/batch:1", steps, 1), "before.json"),
      ParseRunResults(RunFile("mlp/onednn/f32/batch:1", slower, 1), "after.json")};
  const std::vector<RunComparison> once_compared = CompareRuns(once, {});
  const RunComparisonRow* told = Row(once_compared[0], "fc2");
  ASSERT_NE(told, nullptr);
  EXPECT_EQ(told->judgements[0].verdict, "slower?");
  EXPECT_EQ(told->judgements[0].p_value, -1);
}

// Another batch size or another model is shown beside A, never judged against it.
TEST(RunComparison, AnotherBatchOrModelIsShownNotJudged) {
  const std::vector<FakeStep> steps = {{"fc1", "dense", "[4, 8]", {}, 2}};
  const std::vector<RunResults> batches = {
      ParseRunResults(RunFile("mlp/eigen/f32/batch:4", steps, 6, 1.0, 0.01, 4, "mlp"), "b4.json"),
      ParseRunResults(RunFile("mlp/eigen/f32/batch:16", steps, 6, 3.0, 0.01, 16, "mlp"),
                      "b16.json")};
  const std::vector<RunComparison> c = CompareRuns(batches, {});
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(Row(c[0], "network")->judgements[0].verdict, "n/a");
  EXPECT_EQ(Row(c[0], "fc1")->judgements[0].verdict, "n/a");
  ASSERT_EQ(c[0].notes.size(), 1u);
  EXPECT_NE(c[0].notes[0].find("another batch size (16; A: 4)"), std::string::npos)
      << c[0].notes[0];
  // Per sample (what batching buys), shown beside the per-batch time, not judged: 2 ms for 4
  // samples against 6 ms for 16 (x1.025, the repetitions' median jitter).
  const RunComparisonRow* per_sample = Row(c[0], "network per sample");
  ASSERT_NE(per_sample, nullptr);
  EXPECT_NEAR(per_sample->sides[0].ms, 0.5 * 1.025, 1e-9);
  EXPECT_NEAR(per_sample->sides[1].ms, 0.375 * 1.025, 1e-9);
  EXPECT_NEAR(per_sample->judgements[0].change, -0.25, 1e-9);
  EXPECT_EQ(per_sample->judgements[0].verdict, "n/a");
  const std::string text = FormatRunComparisons(c, CompareFormat::kText, {});
  EXPECT_NE(text.find("note: B measures another batch size"), std::string::npos) << text;
  EXPECT_NE(text.find("medians per iteration (one batch"), std::string::npos) << text;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    EXPECT_LE(line.size(), 120u) << "the text table fits 120 columns: " << line;
  }

  const std::vector<RunResults> models = {
      ParseRunResults(RunFile("a/eigen/f32/batch:1", steps, 1, 1.0, 0.01, 1, "mlp_export"),
                      "a.json"),
      ParseRunResults(RunFile("b/eigen/f32/batch:1", steps, 1, 9.0, 0.01, 1, "cnn_export"),
                      "b.json")};
  const std::vector<RunComparison> m = CompareRuns(models, {});
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(Row(m[0], "network")->judgements[0].verdict, "n/a");
  ASSERT_EQ(m[0].notes.size(), 1u);
  EXPECT_NE(m[0].notes[0].find("another topology (cnn_export; A: mlp_export)"), std::string::npos)
      << m[0].notes[0];
}

// Two exports both named after their file (model.onnx in two folders) share a benchmark name:
// their FLOPs and parameters at the same sizes tell them apart, and the pair is not judged.
TEST(RunComparison, TwoModelsOfOneNameAreToldApartByTheirStructure) {
  const std::vector<FakeStep> steps = {{"fc1", "dense", "[1, 8]", {}, 2}};
  auto model = [&](double flops, double params, double scale, const std::string& file) {
    json doc = json::parse(RunFile("model/eigen/f32/batch:1", steps, 3, scale, 0.01, 1, "model"));
    for (json& b : doc["benchmarks"]) {
      b["net.flops"] = flops;
      b["net.params"] = params;
    }
    return ParseRunResults(doc.dump(), file);
  };
  const std::vector<RunComparison> other =
      CompareRuns({model(1000, 50, 1.0, "a.json"), model(9000, 800, 5.0, "b.json")}, {});
  ASSERT_EQ(other.size(), 1u);
  EXPECT_EQ(Row(other[0], "network")->judgements[0].verdict, "n/a");
  ASSERT_EQ(other[0].notes.size(), 1u);
  EXPECT_NE(other[0].notes[0].find("another topology of the same name (9.00 k FLOPs"),
            std::string::npos)
      << other[0].notes[0];
  // The same model measured twice is judged.
  const std::vector<RunComparison> same =
      CompareRuns({model(1000, 50, 1.0, "a.json"), model(1000, 50, 5.0, "b.json")}, {});
  ASSERT_EQ(same.size(), 1u);
  EXPECT_NE(Row(same[0], "network")->judgements[0].verdict, "n/a");
}

// The run's configuration is part of what pairs: another size (a param's value) is shown, not
// judged; a seed is compared on purpose and said.
TEST(RunComparison, AnotherSizeIsShownNotJudgedAndASeedIsNamed) {
  const std::vector<FakeStep> steps = {{"fc1", "dense", "[1, 8]", {}, 2}};
  auto with_config = [&](const std::string& params, int seed, double scale) {
    json doc = json::parse(RunFile("mlp/eigen/f32/batch:1", steps, 1, scale));
    doc["context"]["ntpbench_config.mlp/eigen/f32"] =
        json{{"params", json::parse(params)}, {"seed", seed}}.dump();
    return doc.dump();
  };
  const std::vector<RunResults> sizes = {
      ParseRunResults(with_config(R"({"n_hidden": 1024})", 42, 1.0), "a.json"),
      ParseRunResults(with_config(R"({"n_hidden": 512})", 42, 0.5), "b.json")};
  const std::vector<RunComparison> c = CompareRuns(sizes, {});
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(Row(c[0], "network")->judgements[0].verdict, "n/a");
  ASSERT_EQ(c[0].notes.size(), 1u);
  EXPECT_NE(c[0].notes[0].find("other sizes (n_hidden 512; A: n_hidden 1024)"), std::string::npos)
      << c[0].notes[0];
  const std::vector<RunResults> seeds = {
      ParseRunResults(with_config(R"({"n_hidden": 1024})", 42, 1.0), "a.json"),
      ParseRunResults(with_config(R"({"n_hidden": 1024})", 7, 1.5), "b.json")};
  const std::vector<RunComparison> s = CompareRuns(seeds, {});
  EXPECT_EQ(Row(s[0], "network")->judgements[0].verdict, "slower?");
  ASSERT_EQ(s[0].notes.size(), 1u);
  EXPECT_NE(s[0].notes[0].find("B differs in seed 7 (A: 42)"), std::string::npos) << s[0].notes[0];
}

// A run the machine disturbed gets no verdict, nor does a run judged against it.
TEST(RunComparison, VerdictsOnADisturbedRunAreWithheld) {
  const std::vector<FakeStep> steps = {{"fc1", "dense", "[1, 8]", {}, 2}};
  json busy = json::parse(RunFile("mlp/eigen/f32/batch:1", steps, 1, 2.0));
  busy["benchmarks"][0]["interference.others_share"] = 0.5;
  busy["benchmarks"][0]["interference.seconds"] = 2.0;
  const std::vector<RunResults> files = {
      ParseRunResults(RunFile("mlp/eigen/f32/batch:1", steps, 1), "quiet.json"),
      ParseRunResults(busy.dump(), "busy.json")};
  const std::vector<RunComparison> c = CompareRuns(files, {});
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(Row(c[0], "network")->judgements[0].verdict, "withheld");
  EXPECT_EQ(Row(c[0], "fc1")->judgements[0].verdict, "withheld");
  EXPECT_NEAR(Row(c[0], "fc1")->judgements[0].change, 1.0, 1e-9) << "the change is still shown";
  ASSERT_EQ(c[0].notes.size(), 1u);
  EXPECT_NE(c[0].notes[0].find("B's verdicts withheld: unreliable: the machine was busy"),
            std::string::npos)
      << c[0].notes[0];
  // The other way round: the reference disturbed.
  const std::vector<RunResults> reversed = {files[1], files[0]};
  EXPECT_EQ(Row(CompareRuns(reversed, {})[0], "network")->judgements[0].verdict, "withheld");
}

TEST(RunComparison, BenchmarksPairByNameElseByTheMostAlikeAndTheRestIsSaid) {
  const std::vector<FakeStep> steps = {{"fc1", "dense", "[1, 8]", {}, 2}};
  std::vector<FakeStep> bigger = steps;
  bigger[0].flops = 400;
  const std::vector<RunResults> files = {
      ParseRunResults(RunFile("mlp/eigen/f32/batch:1", steps, 1), "eigen.json"),
      ParseRunResults(RunFile("mlp/onednn/f32/batch:1", bigger, 1, 0.5), "onednn.json")};
  const std::vector<RunComparison> c = CompareRuns(files, {});
  ASSERT_EQ(c.size(), 1u);
  const RunComparisonRow* fc1 = Row(c[0], "fc1");
  ASSERT_NE(fc1, nullptr);
  EXPECT_EQ(fc1->judgements[0].verdict, "faster?");
  EXPECT_NE(fc1->judgements[0].note.find("FLOPs 100 -> 400"), std::string::npos)
      << fc1->judgements[0].note;

  const std::string csv = FormatRunComparisons(c, CompareFormat::kCsv, {});
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "comparison,row,kind,aligned,op,run,ms,change,p_value,verdict,note");
  EXPECT_NE(csv.find("1,fc1,step,name,dense,B,1.000000,-0.5000,,faster?,FLOPs 100 -> 400"),
            std::string::npos)
      << csv;
  const std::string md = FormatRunComparisons(c, CompareFormat::kMarkdown, {});
  EXPECT_NE(md.find("| fc1 | dense | 2.00 ms | 1.00 ms | -50.0% |  | faster? |"), std::string::npos)
      << md;
  const std::string text = FormatRunComparisons(c, CompareFormat::kText, {});
  for (size_t at = 0, end; at < text.size(); at = end + 1) {
    end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    EXPECT_LE(end - at, 120u) << text.substr(at, end - at);
  }

  const std::vector<RunResults> unrelated = {
      ParseRunResults(RunFile("mlp/eigen/f32/batch:1", steps, 1), "a.json"),
      ParseRunResults(RunFile("x", steps, 1), "b.json"),
      ParseRunResults(RunFile("y", steps, 1), "c.json")};
  EXPECT_EQ(CompareRuns(unrelated, {}).size(), 1u) << "the last one left pairs";
}

// Three runs leave the text table's notes little room: each keeps its start (which run it is
// of) and is cut at its end, and a line says where the notes are whole.
TEST(RunComparison, NotesCutToFitKeepTheirStart) {
  std::vector<FakeStep> steps;
  for (int i = 0; i < 3; ++i) {
    steps.push_back(
        {"a_rather_long_layer_name_" + std::to_string(i), "conv2d", "[1, 64, 112, 112]", {}, 2});
  }
  std::vector<FakeStep> b = steps, c = steps;
  for (FakeStep& f : b) f.flops = 400, f.shape = "[1, 64, 56, 56]";
  for (FakeStep& f : c) f.flops = 800, f.shape = "[1, 128, 56, 56]";
  c.push_back({"c_only", "copy", "[1, 8]", {}, 1});
  const std::vector<RunComparison> cmp =
      CompareRuns({ParseRunResults(RunFile("cnn/onednn/f32/batch:1", steps, 1), "a.json"),
                   ParseRunResults(RunFile("cnn/torch/f32/batch:1", b, 1), "b.json"),
                   ParseRunResults(RunFile("cnn/xnnpack/f32/batch:1", c, 1), "c.json")},
                  {});
  const std::string text = FormatRunComparisons(cmp, CompareFormat::kText, {});
  EXPECT_NE(text.find("B: FLOPs x4.00"), std::string::npos) << text;
  EXPECT_NE(text.find("\u2026\n"), std::string::npos) << "cut at the end" << text;
  EXPECT_NE(text.find("notes cut to fit 120 columns: --format markdown or csv has them whole"),
            std::string::npos)
      << text;
  // A step only C has (a transfer of its own) is "only C" under C and nothing under B.
  const RunComparisonRow* only_c = Row(cmp[0], "c_only");
  ASSERT_NE(only_c, nullptr);
  EXPECT_EQ(only_c->judgements[0].verdict, "");
  EXPECT_EQ(only_c->judgements[1].verdict, "only C");
  const std::string md = FormatRunComparisons(cmp, CompareFormat::kMarkdown, {});
  EXPECT_NE(md.find("C: FLOPs 100 -> 800; shape [1, 64, 112, 112] -> [1, 128, 56, 56] |"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("notes cut"), std::string::npos);
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The page stands alone (nothing fetched), escapes what files say, compares the same
// configuration across machines with speed-ups, and draws each run's hot spots and roofline.
TEST(HtmlReport, OnePageOverRunsFromTwoMachines) {
  const std::vector<FakeStep> steps = {{"fc<1>", "dense", "[1, 8]", {}, 2, 4e6},
                                       {"out", "softmax", "[1, 8]", {}, 1, 100}};
  std::string one = RunFile("mlp/onednn/f32/nthreads:1/batch:1", steps, 1);
  std::string two = RunFile("mlp/onednn/f32/nthreads:2/batch:1", steps, 1, 0.5);
  nlohmann::json a = nlohmann::json::parse(one), b = nlohmann::json::parse(two);
  a["context"]["ntpbench_threads"] = "1";
  b["context"]["ntpbench_threads"] = "2";
  for (nlohmann::json* doc : {&a, &b}) {
    for (auto& bench : (*doc)["benchmarks"]) {
      for (auto& st : bench["ntpbench"]["steps"]) st["input_bytes"] = 1e5;
      bench["ntpbench"]["topology"] = "mlp";
    }
  }
  const std::vector<RunResults> files = {ParseRunResults(a.dump(), "one.json"),
                                         ParseRunResults(b.dump(), "two.json")};
  const std::string html = RenderHtmlReport(files);
  EXPECT_EQ(Count(html, "http"), Count(html, "xmlns=\"http://www.w3.org/2000/svg\""))
      << "nothing but the SVG namespace names a URL";
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("fc<1>"), std::string::npos) << "names are escaped";
  EXPECT_NE(html.find("fc&lt;1&gt;"), std::string::npos);
  // 1 comparison chart, and per run a hot-spot chart and a roofline.
  EXPECT_EQ(Count(html, "<svg "), 1u + 2 * 2);
  EXPECT_NE(html.find("1 thread"), std::string::npos);
  EXPECT_NE(html.find("2 threads"), std::string::npos);
  EXPECT_NE(html.find("x2.00"), std::string::npos) << "the second machine's speed-up";
  EXPECT_NE(html.find("Layers across runs"), std::string::npos);
  EXPECT_EQ(Count(html, "<circle "), 2u * 2) << "every step with FLOPs and bytes is a point";
}

// Precisions of each configuration: a table per configuration with the speed-up over its f32
// run and the accuracy, and one scatter of speed-up against logit error whose lines the legend
// names by configuration (colour alone said nothing).
TEST(HtmlReport, PrecisionsSetSpeedAgainstAccuracyWithALegend) {
  const std::vector<FakeStep> steps = {{"fc", "dense", "[1, 8]", {"fc"}, 2}};
  json doc = json::parse(RunFile("mlp/onednn/f32/batch:1", steps, 1, 1.0, 0.01, 1, "mlp"));
  doc["benchmarks"].clear();
  for (const char* backend : {"onednn", "opencl"}) {
    for (const char* precision : {"f32", "f16"}) {
      json b = json::parse(RunFile(std::string("mlp/") + backend + "/" + precision + "/batch:1",
                                   steps, 1, precision == std::string("f32") ? 1.0 : 0.5, 0.01, 1,
                                   "mlp"))["benchmarks"][0];
      b["ntpbench"]["backend"] = backend;
      b["ntpbench"]["precision"] = precision;
      if (precision == std::string("f16")) {
        b["acc.cosine"] = 0.999999;
        b["acc.max_rel_err"] = 1e-3;
        b["acc.rms_rel_err"] = 2e-4;
        b["acc.logits_rms_rel_err"] = 6e-4;
        b["acc.top1_agreement"] = 0.984;
      }
      doc["benchmarks"].push_back(b);
    }
  }
  const std::string html = RenderHtmlReport({ParseRunResults(doc.dump(), "precisions.json")});
  const size_t at = html.find("<h3>Precisions: speed against accuracy</h3>");
  ASSERT_NE(at, std::string::npos) << html;
  const std::string section = html.substr(at, html.find("<h3>", at + 4) - at);
  EXPECT_EQ(Count(section, "<table>"), 2u) << "a table per configuration";
  EXPECT_EQ(Count(section, "x2.00"), 2u) << "f16 twice as fast in both";
  EXPECT_EQ(Count(section, "98.4%"), 6u)
      << "top-1 in each table, beside each f16 point, in its tooltip";
  const size_t legend = section.find("<p class=\"legend\">");
  ASSERT_NE(legend, std::string::npos) << section;
  const std::string names = section.substr(legend, section.find("</p>", legend) - legend);
  EXPECT_NE(names.find("onednn/batch:1 on "), std::string::npos) << names;
  EXPECT_NE(names.find("opencl/batch:1 on "), std::string::npos) << names;
  EXPECT_EQ(Count(section, "<circle "), 4u) << "a point per precision and configuration";
}

// Backends of one topology on one machine (NTP's framework comparison): a chart of the slowest
// layers with a bar per backend, and each backend's time outside its steps.
TEST(HtmlReport, BackendsOfOneTopologyGetTheFrameworkFigure) {
  const std::vector<FakeStep> steps = {{"conv1", "conv2d", "[1, 8]", {"conv1"}, 3},
                                       {"fc", "dense", "[1, 4]", {"fc"}, 2}};
  json a = json::parse(RunFile("cnn/onednn/f32/batch:1", steps, 1, 1.0, 0.01, 1, "cnn"));
  json b = json::parse(RunFile("cnn/torch/f32/batch:1", steps, 1, 2.0, 0.01, 1, "cnn"));
  a["benchmarks"][0]["ntpbench"]["backend"] = "onednn";
  b["benchmarks"][0]["ntpbench"]["backend"] = "torch";
  b["benchmarks"][0]["real_time"] = 10.0 + 0.5;  // its steps take 10 ms: 0.5 ms between them
  a["benchmarks"].push_back(b["benchmarks"][0]);
  const std::string html = RenderHtmlReport({ParseRunResults(a.dump(), "fleet.json")});
  const size_t at = html.find("Backends and frameworks layer by layer (f32, batch 1");
  ASSERT_NE(at, std::string::npos) << html;
  const std::string section = html.substr(at, html.find("<h3>", at + 4) - at);
  EXPECT_NE(section.find("onednn ("), std::string::npos);
  EXPECT_NE(section.find("torch ("), std::string::npos);
  EXPECT_NE(section.find("conv1 (conv2d)"), std::string::npos);
  EXPECT_NE(section.find("outside its steps"), std::string::npos);
  EXPECT_NE(section.find("time per inference 10.50 ms less its steps' 10.00 ms"), std::string::npos)
      << section;
  // One backend alone: no such figure.
  const std::string single = RenderHtmlReport({ParseRunResults(
      RunFile("cnn/onednn/f32/batch:1", steps, 1, 1.0, 0.01, 1, "cnn"), "a.json")});
  EXPECT_EQ(single.find("Backends and frameworks"), std::string::npos);
}

// Scenario runs (offline at streams x batch, single-stream beside them): the page plots
// samples/s against p99 with the Pareto front joined, and prints the table.
TEST(HtmlReport, ScenarioRunsGetTheThroughputAgainstP99Chart) {
  json doc = {{"context", {{"ntpbench_threads", "2"}}}, {"benchmarks", json::array()}};
  struct Row {
    std::string name;
    int streams, batch;
    double samples, p99;
    bool scenario;
  };
  for (const Row& r :
       std::vector<Row>{{"mlp/onednn/f32/batch:1", 1, 1, 100, 10, false},
                        {"mlp/onednn/f32/offline/streams:2/batch:1", 2, 1, 150, 12, true},
                        {"mlp/onednn/f32/offline/streams:2/batch:4", 2, 4, 140, 30, true}}) {
    json b = {{"name", r.name},
              {"run_name", r.name},
              {"run_type", "iteration"},
              {"time_unit", "ms"},
              {"real_time", 1000 / r.samples},
              {"net.samples_per_second", r.samples},
              {"net.p99_ms", r.p99},
              {"net.flops", 1000},
              {"ntpbench",
               {{"backend", "onednn"},
                {"precision", "f32"},
                {"batch", r.batch},
                {"topology", "mlp"},
                {"steps", json::array()}}}};
    if (r.scenario) {
      b["scenario.kind"] = 1;  // offline
      b["scenario.streams"] = r.streams;
      b["scenario.threads_per_stream"] = 1;
      b["scenario.queries"] = 1000;
      b["scenario.queries_needed"] = 1000;
      b["scenario.achieved_qps"] = r.samples / r.batch;
    }
    doc["benchmarks"].push_back(b);
  }
  const std::string html = RenderHtmlReport({ParseRunResults(doc.dump(), "scenarios.json")});
  const size_t section = html.find("throughput against p99 latency (the batching decision)");
  ASSERT_NE(section, std::string::npos) << html;
  const size_t chart_end = html.find("</svg>", section);
  const std::string chart = html.substr(section, chart_end - section);
  EXPECT_EQ(Count(chart, "<circle "), 3u);
  // The front: single-stream b1 (lowest p99) and offline 2 streams b1 (most samples/s); the
  // batch-4 run is behind the latter in both, so not outlined.
  EXPECT_EQ(Count(chart, "stroke=\"#222\""), 2u) << chart;
  EXPECT_NE(chart.find("off 2s b4"), std::string::npos) << chart;
  EXPECT_NE(chart.find("ss b1"), std::string::npos) << chart;
  EXPECT_NE(html.find("offline/streams:2/batch:4", chart_end), std::string::npos)
      << "the table under it";
}

// A run measured beside a busy neighbour is marked where its time is read, with what was seen.
TEST(HtmlReport, ARunOnABusyMachineIsMarkedUnreliable) {
  json doc = {{"context", {{"ntpbench_threads", "2"}}}, {"benchmarks", json::array()}};
  for (const auto& [name, others] :
       {std::pair{"quiet/eigen/f32/batch:1", 0.01}, std::pair{"busy/eigen/f32/batch:1", 0.52}}) {
    doc["benchmarks"].push_back({{"name", name},
                                 {"run_name", name},
                                 {"run_type", "iteration"},
                                 {"time_unit", "ms"},
                                 {"real_time", 10.0},
                                 {"net.flops", 1000},
                                 {"interference.seconds", 3.0},
                                 {"interference.others_share", others}});
  }
  const std::string html = RenderHtmlReport({ParseRunResults(doc.dump(), "busy.json")});
  EXPECT_EQ(Count(html, "class=\"unreliable\" title="), 1u) << html;
  EXPECT_NE(html.find("busy/eigen/f32/batch:1: unreliable: the machine was busy (other processes "
                      "took 52% of the cores' time)"),
            std::string::npos)
      << html;
  EXPECT_EQ(html.find("quiet/eigen/f32/batch:1: unreliable"), std::string::npos);
}

// One configuration twice on one machine (a file given twice) is shown twice, told apart by file
// and said, never one hidden as the other's reference; batches compare in samples per second.
TEST(HtmlReport, DuplicatesAreShownAndBatchesCompareInSamplesPerSecond) {
  const std::vector<FakeStep> steps = {{"fc", "dense", "[1, 8]", {}, 2}};
  const RunResults b4 =
      ParseRunResults(RunFile("mlp/eigen/f32/batch:4", steps, 1, 1.0, 0.01, 4, "mlp"), "b4.json");
  const RunResults b16 = ParseRunResults(
      RunFile("mlp/eigen/f32/batch:16", steps, 1, 2.0, 0.01, 16, "mlp"), "b16.json");
  const std::string html = RenderHtmlReport({b4, b16, b4});
  EXPECT_NE(html.find("The same configuration on the same machine more than once"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("(b4.json)"), std::string::npos) << "the copy is told apart by its file";
  // 2 ms per batch of 4 against 4 ms per batch of 16: twice the samples per second.
  EXPECT_NE(html.find("x2.00"), std::string::npos) << html;
  EXPECT_NE(html.find("/sample)"), std::string::npos);
  EXPECT_NE(html.find("x1.00"), std::string::npos) << "the copy against the reference";
  EXPECT_EQ(Count(html, "  reference"), 1u);
}

}  // namespace
}  // namespace ntpb::testing
