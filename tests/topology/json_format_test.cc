#include "ntpbench/json_format.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "ntpbench/error.h"
#include "src/topology/op_catalog.h"
#include "tests/test_util.h"

namespace ntpb::testing {
namespace {

class ShippedTopology : public ::testing::TestWithParam<std::string> {};

TEST_P(ShippedTopology, RoundTripsExactly) {
  const Topology read = ReadTopologyJsonFile(SourcePath("topologies/" + GetParam()));
  const std::string written = WriteTopologyJson(read);
  const Topology reread = ParseTopologyJson(written, "<written>");
  EXPECT_EQ(reread, read);
  EXPECT_EQ(WriteTopologyJson(reread), written);
}

INSTANTIATE_TEST_SUITE_P(All, ShippedTopology,
                         ::testing::Values("deepspeech.json", "deepspeech_e2e.json", "mlp.json",
                                           "resnet50.json", "mobilenet_v2.json", "tiny_cnn.json",
                                           "backbone.json"));

TEST(JsonFormat, FillsDefaultsAndLeavesThemOutWhenWriting) {
  const std::string text = R"({
    "name": "t", "params": {"h": 4},
    "inputs": [{"name": "x", "shape": ["N", 8]}],
    "layers": [
      {"name": "a", "op": "dense", "units": "h"},
      {"name": "b", "op": "relu"},
      {"name": "c", "op": "add", "inputs": ["a", "b"], "outputs": ["sum"]}
    ],
    "markers": [{"name": "m", "start": "a", "end": "b"}]
  })";
  const Topology t = ParseTopologyJson(text, "t.json");
  EXPECT_EQ(t.file, "t.json");
  ASSERT_EQ(t.layers.size(), 3u);
  EXPECT_EQ(t.layers[0].inputs, std::vector<std::string>{"x"});
  EXPECT_EQ(t.layers[0].outputs, std::vector<std::string>{"a"});
  EXPECT_EQ(t.layers[1].inputs, std::vector<std::string>{"a"});
  EXPECT_EQ(t.layers[2].outputs, std::vector<std::string>{"sum"});
  EXPECT_EQ(t.outputs, std::vector<std::string>{"sum"});
  EXPECT_EQ(t.layers[0].attrs["units"], "h");
  EXPECT_EQ(t.markers, (std::vector<Marker>{{"m", "a", "b"}}));
  EXPECT_EQ(t.inputs[0].shape, (std::vector<std::string>{"N", "8"}));

  const nlohmann::json written = nlohmann::json::parse(WriteTopologyJson(t));
  EXPECT_FALSE(written["layers"][0].contains("inputs"));
  EXPECT_FALSE(written["layers"][1].contains("outputs"));
  EXPECT_EQ(written["layers"][2]["inputs"], nlohmann::json({"a", "b"}));
  EXPECT_EQ(written["inputs"][0]["shape"], nlohmann::json({"N", 8}));
  EXPECT_FALSE(written.contains("outputs"));
  EXPECT_EQ(written["version"], 1);
}

TEST(JsonFormat, WritesFilesAtomically) {
  const Topology t = ReadTopologyJsonFile(SourcePath("topologies/mlp.json"));
  const std::string path = TestDir() + "/ntpb_written_mlp.json";
  WriteTopologyJsonFile(t, path);
  EXPECT_EQ(ReadTopologyJsonFile(path), t);
  // Overwriting leaves no temporary files behind.
  WriteTopologyJsonFile(t, path);
  std::ifstream in(path);
  EXPECT_TRUE(in.good());
  // A missing folder is made (as `mkdir -p`); one that cannot be (under a file) is an error.
  const std::string nested = TestDir() + "/ntpb_new_folder/deeper/mlp.json";
  WriteTopologyJsonFile(t, nested);
  EXPECT_EQ(ReadTopologyJsonFile(nested), t);
  EXPECT_THROW(WriteTopologyJsonFile(t, path + "/x.json"), Error);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace ntpb::testing

namespace ntpb::testing {
namespace {

TEST(TopologyFormatDoc, DocumentsEveryOp) {
  std::ifstream in(SourcePath("docs/topology-format.md"));
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  for (const OpDef& op : AllOps()) {
    EXPECT_NE(doc.find("`" + op.name + "`"), std::string::npos) << op.name;
    for (const AttrDef& a : op.attrs) {
      EXPECT_NE(doc.find("`" + a.name + "`"), std::string::npos) << op.name << "." << a.name;
    }
  }
}

}  // namespace
}  // namespace ntpb::testing
