#include <gtest/gtest.h>

#include <map>
#include <memory>

#include "ntpbench/error.h"
#include "ntpbench/ntpbench.h"
#include "src/bench/benchmark_config.h"
#include "src/bench/run_settings.h"

namespace ntpb::bench {
namespace {

TEST(Flags, ParsesAssignments) {
  ParamEnv env;
  ParseAssignments("n_hidden=1024,T=50", "--set", &env);
  EXPECT_EQ(env, (ParamEnv{{"n_hidden", 1024}, {"T", 50}}));
  EXPECT_THROW(ParseAssignments("n_hidden", "--set", &env), Error);
  EXPECT_THROW(ParseAssignments("n_hidden=big", "--set", &env), Error);
  EXPECT_THROW(ParseAssignments("=3", "--set", &env), Error);
  EXPECT_THROW(ParseAssignments("a=99999999999999999999", "--set", &env), Error);
}

TEST(Flags, ParsesListsWhereTheyAreAllowed) {
  // A bare value extends the list of the name before it.
  ParamEnv env;
  ParamLists lists;
  ParseAssignments("n_hidden=512,1024,2048,T=50", "--set", &env, &lists);
  EXPECT_EQ(env, (ParamEnv{{"T", 50}}));
  EXPECT_EQ(lists, (ParamLists{{"n_hidden", {512, 1024, 2048}}}));
  // Given again, one value replaces the list (the last --set wins, as for one value).
  ParseAssignments("n_hidden=256", "--set", &env, &lists);
  EXPECT_EQ(env, (ParamEnv{{"T", 50}, {"n_hidden", 256}}));
  EXPECT_TRUE(lists.empty());
  EXPECT_THROW(ParseAssignments("512,n_hidden=1", "--set", &env, &lists), Error);
  EXPECT_THROW(ParseAssignments("n_hidden=1,1", "--set", &env, &lists), Error);
  EXPECT_THROW(ParseAssignments("n_hidden=1,T=2,n_hidden=3", "--set", &env, &lists), Error);
  EXPECT_THROW(ParseAssignments("n_hidden=1,", "--set", &env, &lists), Error);
  // Where one value is taken (inspect, diff), a list is refused.
  try {
    ParseAssignments("n_hidden=1,2", "--set", &env);
    ADD_FAILURE() << "a list was taken";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'n_hidden' takes one value here, got 2"),
              std::string::npos)
        << e.what();
  }
}

TEST(Flags, StripsNtpbFlagsAndKeepsTheRest) {
  std::vector<std::string> args = {"suite", "--ntpb_set=T=7", "--benchmark_filter=x",
                                   "--ntpb_threads=1", "--ntpb_console_layers"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  const RunSettings settings = ParseNtpbFlags(&argc, argv.data());
  ASSERT_EQ(argc, 2);
  EXPECT_STREQ(argv[1], "--benchmark_filter=x");
  EXPECT_EQ(settings.sets.at("T"), 7);
  EXPECT_EQ(settings.threads, 1);
  EXPECT_TRUE(settings.console_layers);
  EXPECT_FALSE(settings.trace) << "a flag not given keeps its default";

  std::vector<std::string> bad = {"suite", "--ntpb_sett=T=7"};
  std::vector<char*> bad_argv = {bad[0].data(), bad[1].data()};
  int bad_argc = 2;
  EXPECT_THROW(ParseNtpbFlags(&bad_argc, bad_argv.data()), Error);
}

// Every flag is declared once, in the table: each one given parses, and the usage line of an
// unknown flag names them all.
TEST(Flags, EveryFlagOfTheTableParsesAndIsListed) {
  const std::map<std::string, std::string> values = {{"set", "T=3"},
                                                     {"threads", "2"},
                                                     {"seed", "7"},
                                                     {"device", "opencl:0:0"},
                                                     {"place", "default=eigen"},
                                                     {"topology_dir", "/t"},
                                                     {"counters", "rusage"},
                                                     {"scenario_seconds", "2.5"},
                                                     {"inject_slowdown", "fc1:2"}};
  std::string usage;
  try {
    std::vector<std::string> args = {"suite", "--ntpb_nope"};
    std::vector<char*> argv = {args[0].data(), args[1].data()};
    int argc = 2;
    ParseNtpbFlags(&argc, argv.data());
  } catch (const Error& e) {
    usage = e.what();
  }
  for (const RunSettingFlag& f : RunSettingFlags()) {
    const std::string flag = std::string("--ntpb_") + f.name;
    EXPECT_NE(usage.find(flag), std::string::npos) << flag << " missing from: " << usage;
    std::string arg = flag;
    if (f.value) {
      const auto v = values.find(f.name);
      if (v == values.end()) continue;  // a value that needs a real backend option
      arg += "=" + v->second;
    }
    std::vector<std::string> args = {"suite", arg};
    std::vector<char*> argv = {args[0].data(), args[1].data()};
    int argc = 2;
    try {
      ParseNtpbFlags(&argc, argv.data());
    } catch (const Error& e) {
      ADD_FAILURE() << arg << ": " << e.what();
    }
    EXPECT_EQ(argc, 1) << arg << " was not taken";
  }
  std::vector<std::string> args = {"suite", "--ntpb_threads"};
  std::vector<char*> argv = {args[0].data(), args[1].data()};
  int argc = 2;
  EXPECT_THROW(ParseNtpbFlags(&argc, argv.data()), Error) << "a value flag without its value";
}

// A backend chooses kernels by whether the weights stay cached (onednn.streamed_conv=auto): a
// benchmark plans with the cache `ntpbench machine` saw by reads at its thread count, not the
// one a VM reports (its host's); with none measured, or measured for other threads, with the
// reported one (0).
TEST(Flags, ABenchmarkPlansWithTheCacheTheReadsShowed) {
  TopologyBenchmark tb("tiny", "topologies/tiny_cnn.json");
  tb.Threads(2);
  auto settings = std::make_shared<RunSettings>();
  tb.Settings(settings);
  EXPECT_EQ(ConfigFor(tb, "onednn", Precision::kF32).last_level_cache_bytes, 0);
  settings->peaks = MachinePeaks();
  settings->peaks->threads = 2;
  settings->peaks->cache_bytes = int64_t{64} << 20;
  settings->peaks->reported_cache_bytes = int64_t{508} << 20;
  EXPECT_EQ(ConfigFor(tb, "onednn", Precision::kF32).last_level_cache_bytes, int64_t{64} << 20);
  settings->peaks->threads = 1;
  EXPECT_EQ(ConfigFor(tb, "onednn", Precision::kF32).last_level_cache_bytes, 0);
}

}  // namespace
}  // namespace ntpb::bench
