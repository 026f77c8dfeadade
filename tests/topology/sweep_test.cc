// Sweep files: what they accept, the errors they give, and how many points each mode makes.
#include "ntpbench/sweep.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "ntpbench/error.h"
#include "ntpbench/json_format.h"
#include "ntpbench/topology_file.h"
#include "tests/test_util.h"

namespace ntpb::testing {
namespace {

const char* kTopology = R"({"name": "t", "params": {"n_hidden": 8, "k": 3},
  "inputs": [{"name": "x", "shape": ["N", 4]}],
  "layers": [{"name": "d", "op": "dense", "units": "n_hidden"}]})";

Topology TestTopology() { return ParseTopologyJson(kTopology, "t.json"); }

std::string SweepJson(const std::string& factors, const std::string& extra = "") {
  return R"({"name": "s", "topology": "t.json", "base": {"batch": 2}, "factors": )" + factors +
         extra + "}";
}

std::string ErrorOf(const std::string& text) {
  try {
    SweepPoints(ParseSweepJson(text, "s.json"), TestTopology());
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// A run setting the caller declares (ntpbench sweep: the run-settings table's) is a factor like
// any other, its values checked by the caller's check, and the base point starts at its first.
TEST(Sweep, AFurtherRunSettingIsAFactorCheckedByItsOwner) {
  const std::vector<SweepSetting> further = {
      {"seed", [](const std::string& value, const std::string& field) {
         if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos) {
           throw Error("", "", field, "expected a seed >= 0, got '" + value + "'");
         }
       }}};
  const Sweep s = ParseSweepJson(SweepJson(R"([{"name": "seed", "values": [7, 8, 9]}])"), "s.json");
  const std::vector<SweepPoint> points = SweepPoints(s, TestTopology(), further);
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(points[0].id, "seed=7");
  EXPECT_TRUE(points[0].base);
  EXPECT_EQ(points[2].settings.at("seed"), "9");
  EXPECT_EQ(points[2].varied, "seed");
  try {
    SweepPoints(ParseSweepJson(SweepJson(R"([{"name": "seed", "values": [1, -2]}])"), "s.json"),
                TestTopology(), further);
    ADD_FAILURE() << "a bad seed was taken";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "s.json: field 'factors[0].values[1]': expected a seed >= 0, got '-2'");
  }
  EXPECT_NE(ErrorOf(SweepJson(R"([{"name": "seed", "values": [1, 2]}])"))
                .find("neither a run "
                      "setting"),
            std::string::npos)
      << "without the caller's table, seed is unknown";
}

TEST(Sweep, OneAtATimeVariesEachFactorAroundTheBase) {
  const Sweep s = ParseSweepJson(SweepJson(R"([{"name": "n_hidden", "values": [4, 8, 16]},
                    {"name": "batch", "values": [1, 2, 4, 8]},
                    {"name": "precision", "values": ["f32", "i8"]}])"),
                                 "dir/s.json");
  EXPECT_EQ(s.topology_path, "dir/t.json");  // relative to the sweep file
  const std::vector<SweepPoint> points = SweepPoints(s, TestTopology());
  // The base (n_hidden 8: the topology's default, batch 2, f32) and each other value once.
  ASSERT_EQ(points.size(), 1u + 2 + 3 + 1);
  EXPECT_EQ(points[0].id, "n_hidden=8,batch=2,precision=f32");
  EXPECT_EQ(points[0].varied, "");
  EXPECT_TRUE(points[0].base);
  EXPECT_FALSE(points[1].base);
  EXPECT_EQ(points[0].settings.at("backend"), "eigen");
  EXPECT_EQ(points[0].settings.count("k"), 0u);  // not a factor: the topology's default
  EXPECT_EQ(points[1].id, "n_hidden=4,batch=2,precision=f32");
  EXPECT_EQ(points[1].varied, "n_hidden");
  EXPECT_EQ(points.back().id, "n_hidden=8,batch=2,precision=i8");
}

TEST(Sweep, AGridHasEveryCombinationAndPointsAreTheListed) {
  const std::string factors =
      R"([{"name": "n_hidden", "values": [4, 8, 16]}, {"name": "k", "values": [1, 3, 5, 7]},
          {"name": "threads", "values": [1, 2]}])";
  const Sweep grid = ParseSweepJson(SweepJson(factors, R"(, "mode": "grid")"), "s.json");
  const std::vector<SweepPoint> all = SweepPoints(grid, TestTopology());
  EXPECT_EQ(all.size(), 3u * 4 * 2);
  // The base has threads 0 (the default), which is not among the values: no point is the base.
  EXPECT_EQ(std::count_if(all.begin(), all.end(), [](const SweepPoint& p) { return p.base; }), 0);
  const Sweep with_base = ParseSweepJson(
      SweepJson(R"([{"name": "n_hidden", "values": [4, 8]}, {"name": "k", "values": [1, 3]}])",
                R"(, "mode": "grid")"),
      "s.json");
  const std::vector<SweepPoint> four = SweepPoints(with_base, TestTopology());
  ASSERT_EQ(std::count_if(four.begin(), four.end(), [](const SweepPoint& p) { return p.base; }), 1);
  EXPECT_EQ(std::find_if(four.begin(), four.end(), [](const SweepPoint& p) { return p.base; })->id,
            "n_hidden=8,k=3");
  const Sweep listed = ParseSweepJson(
      SweepJson(factors, R"(, "mode": "points", "points": [{"k": 5}, {"n_hidden": 4, "k": 1}])"),
      "s.json");
  const std::vector<SweepPoint> points = SweepPoints(listed, TestTopology());
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[1].id, "n_hidden=4,k=1,threads=0");
}

TEST(Sweep, BadSweepsNameTheFileAndField) {
  EXPECT_EQ(ErrorOf(SweepJson(R"([{"name": "width", "values": [1, 2]}])")),
            "s.json: field 'factors[0].values[0]': 'width' is neither a run setting nor a param "
            "of t (t.json; settings: backend, precision, batch, threads, k, n_hidden)");
  EXPECT_EQ(ErrorOf(SweepJson(R"([{"name": "k", "values": []}])")),
            "s.json: field 'factors[0].values': factor 'k' needs a non-empty list of values");
  EXPECT_EQ(ErrorOf(SweepJson(R"([{"name": "k", "values": [1, 1]}])")),
            "s.json: field 'factors[0].values[1]': value 1 of factor 'k' is given twice");
  EXPECT_EQ(ErrorOf(SweepJson(R"([{"name": "batch", "values": [0]}])")),
            "s.json: field 'factors[0].values[0]': 'batch' takes a positive integer, got '0'");
  // Past int64 (strtoll saturated it silently) and past the thread limit `run` has.
  EXPECT_EQ(ErrorOf(SweepJson(R"([{"name": "batch", "values": ["99999999999999999999"]}])")),
            "s.json: field 'factors[0].values[0]': 'batch' takes a positive integer (this one is "
            "past 64 bits), got '99999999999999999999'");
  EXPECT_EQ(ErrorOf(SweepJson(R"([{"name": "threads", "values": [5000]}])")),
            "s.json: field 'factors[0].values[0]': 'threads' takes a thread count from 0 (one per "
            "core) to 4096, got '5000'");
  EXPECT_EQ(ErrorOf(SweepJson(R"([{"name": "k", "values": ["big"]}])")),
            "s.json: field 'factors[0].values[0]': 'k' takes an integer, got 'big'");
  EXPECT_NE(ErrorOf(SweepJson(R"([{"name": "precision", "values": ["f64"]}])"))
                .find("s.json: field 'factors[0].values[0]': "),
            std::string::npos);
  EXPECT_EQ(ErrorOf(SweepJson("[]")),
            "s.json: field 'factors': expected a non-empty list of {\"name\", \"values\"}");
  EXPECT_EQ(ErrorOf(SweepJson(R"([{"name": "k", "values": [1]}])", R"(, "mode": "zigzag")")),
            "s.json: field 'mode': expected one-at-a-time, grid or points, got 'zigzag'");
  EXPECT_EQ(ErrorOf(SweepJson(R"([{"name": "k", "values": [1]}])", R"(, "colour": 1)")),
            "s.json: field 'colour': unknown field (expected format, version, name, "
            "description, topology, base, factors, mode, points, min_time, repetitions)");
  EXPECT_EQ(ErrorOf(R"({"name": "s", "topology": "t.json", "base": {"depth": 3},)"
                    R"( "factors": [{"name": "k", "values": [1]}]})"),
            "s.json: field 'base.depth': 'depth' is neither a run setting nor a param of t "
            "(t.json; settings: backend, precision, batch, threads, k, n_hidden)");
  EXPECT_EQ(ErrorOf(SweepJson(R"([{"name": "k", "values": [1, 3]}])",
                              R"(, "mode": "points", "points": [{"k": 1}, {"k": 1}])")),
            "s.json: field 'points': the point k=1 is listed twice");
  EXPECT_EQ(ErrorOf(SweepJson(R"([{"name": "k", "values": [1, 3], "labels": ["a"]}])")),
            "s.json: field 'factors[0].labels': expected one label per value (2)");
  // A number past double's range is malformed JSON, not an internal error; a grid too large to
  // count in an integer says so without wrapping round ("-9223372036854775808 points").
  EXPECT_EQ(ErrorOf(SweepJson(R"([{"name": "k", "values": [1]}])", R"(, "min_time": 1e400)"))
                .rfind("s.json: malformed JSON: ", 0),
            0u);
  std::string values = "1";
  for (int v = 2; v <= 60000; ++v) values += ", " + std::to_string(v);
  std::string factors;
  for (const char* name : {"k", "n_hidden", "batch", "T"}) {
    factors += std::string(factors.empty() ? "" : ", ") + R"({"name": ")" + name +
               R"(", "values": [)" + values + "]}";
  }
  const std::string huge = ErrorOf(SweepJson("[" + factors + "]", R"(, "mode": "grid")"));
  EXPECT_NE(huge.find("the sweep has 1.3e+19 points; at most"), std::string::npos) << huge;
}

// The shipped sweeps read, fit their topologies, and the XML form reads as the JSON one does.
TEST(Sweep, ShippedSweepsAndTheXmlForm) {
  for (const char* name : {"backbone_analysis", "deepspeech_sizing"}) {
    const Sweep s = ReadSweepFile(SourcePath(std::string("sweeps/") + name + ".json"));
    const std::vector<SweepPoint> points = SweepPoints(s, ReadTopologyFile(s.topology_path));
    EXPECT_EQ(points.size(), std::string(name) == "backbone_analysis" ? 14u : 9u) << name;
  }
  const Sweep xml = ParseSweepXml(R"(<sweep name="s" topology="t.json" mode="grid"
      min_time="0.2" repetitions="2"><description>d</description>
      <base name="batch" value="2"/><factor name="k" values="1, 3" labels="one, three"/>
      <factor name="precision" values="f32, bf16"/></sweep>)",
                                  "s.xml");
  const Sweep json = ParseSweepJson(R"({"name": "s", "topology": "t.json", "mode": "grid",
      "description": "d", "min_time": 0.2, "repetitions": 2, "base": {"batch": 2},
      "factors": [{"name": "k", "values": [1, 3], "labels": ["one", "three"]},
                  {"name": "precision", "values": ["f32", "bf16"]}]})",
                                    "s.json");
  EXPECT_EQ(xml.ToJson(), json.ToJson());
  EXPECT_EQ(SweepPoints(xml, TestTopology()).size(), 4u);
  EXPECT_EQ(xml.factors[0].LabelOf("3"), "three");
  // Hostile XML gets the topology reader's checks: nesting, unknown attributes.
  auto xml_error = [](const std::string& text) {
    try {
      ParseSweepXml(text, "s.xml");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  std::string deep = "<sweep>";
  for (int i = 0; i < 100; ++i) deep += "<a>";
  EXPECT_EQ(xml_error(deep), "s.xml: XML nested deeper than 64 levels");
  EXPECT_EQ(xml_error(R"(<sweep name="s" topology="t.json"><factor name="k" value="1"/></sweep>)"),
            "s.xml: field 'value': unknown attribute of <factor>");
}

}  // namespace
}  // namespace ntpb::testing
