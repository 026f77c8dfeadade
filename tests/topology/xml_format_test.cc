// The NTP-style XML format: the shipped XML equals its JSON twin, every shipped topology round
// trips, and bad XML gets the same quality of error as bad JSON.
#include "ntpbench/xml_format.h"

#include <gtest/gtest.h>

#include "ntpbench/error.h"
#include "ntpbench/json_format.h"
#include "ntpbench/resolve.h"
#include "ntpbench/topology_file.h"
#include "tests/test_util.h"

namespace ntpb::testing {
namespace {

std::string ErrorOf(const std::string& xml) {
  try {
    ParseTopologyXml(xml, "t.xml");
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

class ShippedXmlTwin : public ::testing::TestWithParam<std::string> {};

TEST_P(ShippedXmlTwin, IsTheJsonTopology) {
  const std::string name = GetParam();
  const Topology xml = ReadTopologyFile(SourcePath("topologies/" + name + ".xml"));
  const Topology json = ReadTopologyFile(SourcePath("topologies/" + name + ".json"));
  EXPECT_EQ(xml, json);
  // And they resolve to the same IR: shapes, weights, FLOPs, markers.
  const ResolvedTopology a = Resolve(xml, {{"N", 2}}), b = Resolve(json, {{"N", 2}});
  EXPECT_EQ(a.shapes, b.shapes);
  ASSERT_EQ(a.layers.size(), b.layers.size());
  for (size_t i = 0; i < a.layers.size(); ++i) {
    EXPECT_EQ(a.layers[i].flops, b.layers[i].flops);
    EXPECT_EQ(a.layers[i].attrs.json(), b.layers[i].attrs.json()) << a.layers[i].name;
  }
  EXPECT_EQ(ResolveMarkers(a, xml.markers).size(), json.markers.size());
  EXPECT_FALSE(json.markers.empty());
}

INSTANTIATE_TEST_SUITE_P(DeepSpeech, ShippedXmlTwin,
                         ::testing::Values("deepspeech", "deepspeech_e2e"));

TEST(XmlFormat, EveryShippedTopologyRoundTrips) {
  for (const char* name : {"deepspeech", "deepspeech_e2e", "mlp", "tiny_cnn", "resnet50",
                           "mobilenet_v2", "backbone"}) {
    const Topology t =
        ReadTopologyJsonFile(SourcePath(std::string("topologies/") + name + ".json"));
    const Topology back = ParseTopologyXml(WriteTopologyXml(t), "round.xml");
    EXPECT_EQ(back, t) << name;
  }
}

TEST(XmlFormat, AnInputOfIntegersRoundTripsThroughBothFormats) {
  const Topology t = ParseTopologyJson(
      R"({"name": "ids", "inputs": [{"name": "ids", "shape": ["N", 8], "integers": [0, 30522]}],)"
      R"( "layers": [{"name": "tokens", "op": "embedding", "vocab": 30522, "dim": 4}]})",
      "ids.json");
  ASSERT_TRUE(t.inputs[0].integers.has_value());
  EXPECT_EQ(*t.inputs[0].integers, (IntegerBounds{"0", "30522"}));
  const std::string xml = WriteTopologyXml(t);
  EXPECT_NE(xml.find("integers=\"0, 30522\""), std::string::npos) << xml;
  EXPECT_EQ(ParseTopologyXml(xml, "ids.xml"), t);
  EXPECT_EQ(ParseTopologyJson(WriteTopologyJson(t), "back.json"), t);
  EXPECT_NE(ErrorOf("<topology name='t'><input name='x' shape='4' integers='0, '/>"
                    "</topology>")
                .find("field 'inputs.integers': expected 'low, high'"),
            std::string::npos);
}

// An lstm listing its final cell state as a second output, and a graph output of it, survive
// both writers.
TEST(XmlFormat, ALayerOfTwoOutputsRoundTripsThroughBothFormats) {
  const Topology t = ParseTopologyJson(
      R"({"name": "cell", "inputs": [{"name": "x", "shape": ["N", 5, 3]}],)"
      R"( "layers": [{"name": "l", "op": "lstm", "units": 4, "outputs": ["y", "c"]}],)"
      R"( "outputs": ["y", "c"]})",
      "cell.json");
  ASSERT_EQ(t.layers[0].outputs, (std::vector<std::string>{"y", "c"}));
  const std::string xml = WriteTopologyXml(t);
  EXPECT_NE(xml.find("outputs=\"y, c\""), std::string::npos) << xml;
  EXPECT_EQ(ParseTopologyXml(xml, "cell.xml"), t);
  EXPECT_EQ(ParseTopologyJson(WriteTopologyJson(t), "back.json"), t);
  const ResolvedTopology r = Resolve(t, {{"N", 2}});
  EXPECT_EQ(r.shapes.at("c"), (Shape{1, 2, 4}));
}

// Bounds may be expressions over the params: a token-id input follows the vocabulary it indexes.
TEST(XmlFormat, IntegerBoundsFollowTheParams) {
  const std::string json =
      R"({"name": "ids", "params": {"vocab": 50}, "inputs": [{"name": "ids", "shape": ["N", 8],)"
      R"( "integers": [0, "vocab"]}], "layers": [{"name": "tokens", "op": "embedding",)"
      R"( "vocab": "vocab", "dim": 4}]})";
  const Topology t = ParseTopologyJson(json, "ids.json");
  EXPECT_EQ(*t.inputs[0].integers, (IntegerBounds{"0", "vocab"}));
  EXPECT_EQ(ParseTopologyXml(WriteTopologyXml(t), "ids.xml"), t);
  EXPECT_EQ(ParseTopologyJson(WriteTopologyJson(t), "back.json"), t);
  EXPECT_EQ(Resolve(t, {{"vocab", 7}}).integer_inputs.at("ids"), (IntegerRange{0, 7}));
  try {
    Resolve(t, {{"vocab", 0}});
    ADD_FAILURE() << "an empty range resolved";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("field 'inputs.ids.integers': expected low < high"),
              std::string::npos)
        << e.what();
  }
}

TEST(XmlFormat, BadXmlNamesFileLayerAndField) {
  const std::string head = "<topology name='t'><input name='x' shape='N, 4'/>";
  EXPECT_NE(ErrorOf("<topology name='t'><input name='x'").find("t.xml: malformed XML"),
            std::string::npos);
  EXPECT_NE(ErrorOf("<topology name='t'>\n<input name='x' shape='1'/>\n<layer name='a' type='relu'>"
                    "</topology>")
                .find("at line 3"),
            std::string::npos)
      << ErrorOf("<topology name='t'>\n<input/>\n<layer name='a'></topology>");
  EXPECT_NE(ErrorOf("<model/>").find("expected a <topology> root element"), std::string::npos);
  EXPECT_NE(
      ErrorOf(head + "<layr name='a' type='relu'/></topology>").find("unknown element <layr>"),
      std::string::npos);
  const std::string bad_float =
      ErrorOf(head +
              "<layer name='c' type='clipped_relu'><param name='clip' value='x'/></layer>"
              "</topology>");
  EXPECT_NE(bad_float.find("t.xml"), std::string::npos);
  EXPECT_NE(bad_float.find("c"), std::string::npos);
  EXPECT_NE(bad_float.find("clip"), std::string::npos);
  EXPECT_NE(bad_float.find("expected a number"), std::string::npos);
  EXPECT_NE(ErrorOf(head + "<layer name='c' type='convolution'/></topology>").find("unknown op"),
            std::string::npos);
  EXPECT_NE(ErrorOf(head + "<layer name='d' type='dense'/></topology>")
                .find("missing required attribute"),
            std::string::npos);
  EXPECT_NE(ErrorOf(head + "<layer name='d' type='dense'><param name='units' value='4'/>"
                           "<param name='units' value='5'/></layer></topology>")
                .find("given twice"),
            std::string::npos);
  EXPECT_NE(ErrorOf(head + "<layer name='d' type='relu' color='red'/></topology>")
                .find("unknown attribute of <layer>"),
            std::string::npos);
  std::string deep = "<topology name='t'>";
  for (int i = 0; i < 10000; ++i) deep += "<a>";
  EXPECT_NE(ErrorOf(deep).find("nested deeper"), std::string::npos);
  EXPECT_NE(ErrorOf("").find("t.xml"), std::string::npos);
  // Found by fuzz_xml_reader: a byte that is not UTF-8 inside a value once crashed the reader.
  EXPECT_NE(ErrorOf(head + "<layer name='d' type='dense'><param name='units' value='\xff'/>"
                           "</layer></topology>")
                .find("not UTF-8 text: invalid byte 0xff at line 1"),
            std::string::npos);
}

}  // namespace
}  // namespace ntpb::testing
