// Text from files and the command line printed safely, and Google Benchmark's JSON read back
// whatever the names in it hold.
#include "src/common/printable.h"

#include <gtest/gtest.h>

#include "ntpbench/error.h"
#include "src/common/benchmark_json.h"

namespace ntpb {
namespace {

TEST(Printable, EscapesControlsAndBytesThatAreNotUtf8) {
  EXPECT_EQ(Printable("fc1"), "fc1");
  EXPECT_EQ(Printable("a\x1b[2Jb"), "a\\x1b[2Jb");          // ESC: a terminal sequence
  EXPECT_EQ(Printable(std::string("a\0b", 3)), "a\\x00b");  // NUL
  EXPECT_EQ(Printable("a\nb\x7f"), "a\\x0ab\\x7f");
  EXPECT_EQ(Printable("a\xc2\x9b"
                      "2J"),
            "a\\xc2\\x9b2J");  // U+009B, the C1 CSI
  EXPECT_EQ(Printable("a\x9b"
                      "2J"),
            "a\\x9b2J");  // a stray byte
  EXPECT_EQ(Printable("\xff\xfe"), "\\xff\\xfe");
  EXPECT_EQ(Printable("\xe2\x82"), "\\xe2\\x82");                    // cut short
  EXPECT_EQ(Printable("\xc0\xaf"), "\\xc0\\xaf");                    // overlong '/'
  EXPECT_EQ(Printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // a surrogate
  EXPECT_EQ(Printable("caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x99\x82"),  // é, 日, an emoji: kept
            "caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x99\x82");
}

// Google Benchmark writes a name as it is: an ESC, a NUL or a stray byte in a layer's name
// made the whole run file unreadable ("not written completely (disk full?)").
TEST(BenchmarkJson, ReadsNamesWithControlsAndStrayBytes) {
  const std::string name("m/fc\x1b[2J\0\xff", 10);  // ESC, NUL and a stray byte
  const std::string text = "{\"benchmarks\": [{\"name\": \"" + name +
                           "\\\"\xc3\xa9\", \"layer.fc.ms\": NaN, \"x\": -Infinity}]}";
  const nlohmann::json doc = ParseBenchmarkJson(text, "run.json");
  const nlohmann::json& b = doc["benchmarks"][0];
  EXPECT_EQ(b["name"].get<std::string>(),
            std::string("m/fc\x1b[2J\0", 9) + "\xc3\xbf\"\xc3\xa9");  // 0xff as U+00FF
  EXPECT_TRUE(b["layer.fc.ms"].is_null());
  EXPECT_TRUE(b["x"].is_null());
  // What it reads, it can write again (nlohmann::json's dump throws on bytes that are not UTF-8).
  EXPECT_NO_THROW(doc.dump());
  EXPECT_THROW(ParseBenchmarkJson("{\"benchmarks\": [", "run.json"), Error);
}

}  // namespace
}  // namespace ntpb
