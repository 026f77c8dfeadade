// The roofline bound, the recurrent weights' traffic, and the machine peaks cache file.
#include "ntpbench/roofline.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "ntpbench/error.h"
#include "ntpbench/json_format.h"
#include "tests/test_util.h"

namespace ntpb::testing {
namespace {

MachinePeaks Peaks() {
  MachinePeaks p;
  p.machine_class = "test-class";
  p.machine = "a test machine";
  p.threads = 2;
  p.measured = "2026-11-21T00:00:00Z";
  p.peak_gflops = {{"f32", 500}, {"i8", 2000}};
  p.kernels = {{"f32", "brg:avx512_core"}, {"i8", "brg:avx512_core_vnni"}};
  p.unmeasured = {{"bf16", "no kernel"}};
  p.bandwidth_gbs = 50;
  p.cache_bytes = 32 << 20;
  p.cache_bandwidth_gbs = 200;
  Ceiling read;
  read.unit = "GB/s";
  read.what = "read 256MiB";
  read.best = 50;
  read.spread = 0.08;
  read.runs = 6;
  read.history = {48, 50};
  p.ceilings["read.dram"] = read;
  return p;
}

MachinePeaks WithL2() {
  MachinePeaks p = Peaks();
  p.l2_bytes = 1 << 20;  // 1 MiB per core, 2 threads: 1 MiB in half of both
  p.l2_bandwidth_gbs = 400;
  return p;
}

TEST(Roofline, ComputeBoundWorkIsBoundByThePeak) {
  Cost c;
  c.flops = 1'000'000'000;             // 1 GFLOP at 500 GFLOP/s: 2 ms
  c.weight_traffic_bytes = 1'000'000;  // 1 MB at 50 GB/s: 0.02 ms
  const RooflineBound b = Roofline(c, Precision::kF32, Peaks());
  EXPECT_DOUBLE_EQ(b.ms, 2.0);
  EXPECT_FALSE(b.memory_bound);
  EXPECT_DOUBLE_EQ(Roofline(c, Precision::kI8, Peaks()).ms, 0.5);  // its own peak
}

TEST(Roofline, MemoryBoundWorkIsBoundByTheBandwidth) {
  Cost c;
  c.flops = 1'000'000;
  c.weight_traffic_bytes = 80'000'000;
  c.input_bytes = 10'000'000;
  c.output_bytes = 10'000'000;  // 100 MB at 50 GB/s: 2 ms
  const RooflineBound b = Roofline(c, Precision::kF32, Peaks());
  EXPECT_DOUBLE_EQ(b.ms, 2.0);
  EXPECT_TRUE(b.memory_bound);
}

TEST(Roofline, AWorkingSetInHalfTheLastLevelCacheIsBoundByItsBandwidth) {
  Cost c;
  c.flops = 1'000'000;
  c.weight_traffic_bytes = 10'000'000;  // 10 MB: 0.2 ms from memory, 0.05 ms from the cache
  EXPECT_DOUBLE_EQ(Roofline(c, Precision::kF32, Peaks(), 16 << 20).ms, 0.05);
  EXPECT_TRUE(Roofline(c, Precision::kF32, Peaks(), 16 << 20).from_cache);
  // Larger than half the cache, or unknown: memory.
  EXPECT_DOUBLE_EQ(Roofline(c, Precision::kF32, Peaks(), (16 << 20) + 1).ms, 0.2);
  EXPECT_FALSE(Roofline(c, Precision::kF32, Peaks(), (16 << 20) + 1).from_cache);
  EXPECT_DOUBLE_EQ(Roofline(c, Precision::kF32, Peaks()).ms, 0.2);
  // Compute-bound work is bound by the peak either way.
  c.flops = 1'000'000'000;
  const RooflineBound b = Roofline(c, Precision::kF32, Peaks(), 1 << 20);
  EXPECT_DOUBLE_EQ(b.ms, 2.0);
  EXPECT_FALSE(b.memory_bound || b.from_cache);
  // A cache file from before the cache was measured: memory only.
  MachinePeaks old = Peaks();
  old.cache_bytes = 0;
  old.cache_bandwidth_gbs = 0;
  c.flops = 1'000'000;
  EXPECT_DOUBLE_EQ(Roofline(c, Precision::kF32, old, 1 << 20).ms, 0.2);
}

TEST(Roofline, ThePlateauHoldsWhatIsReadBetweenTwoReadsOfTheSameBytes) {
  const MachinePeaks p = WithL2();
  EXPECT_EQ(LevelFor(1 << 20, p), MemoryLevel::kL2) << "half of each of the 2 threads' L2s";
  EXPECT_EQ(LevelFor((1 << 20) + 1, p), MemoryLevel::kLastLevelCache);
  EXPECT_EQ(LevelFor(16 << 20, p), MemoryLevel::kLastLevelCache);
  EXPECT_EQ(LevelFor((16 << 20) + 1, p), MemoryLevel::kMemory);
  EXPECT_EQ(LevelFor(0, p), MemoryLevel::kMemory) << "unknown: memory";
  EXPECT_EQ(LevelFor(1 << 20, Peaks()), MemoryLevel::kLastLevelCache) << "no L2 measured";
  Cost c;
  c.flops = 100'000;
  c.weight_bytes = 800'000;
  c.weight_traffic_bytes = 800'000;  // 0.8 MB at 400 GB/s: 0.002 ms
  const RooflineBound l2 = Roofline(c, Precision::kF32, p, 900'000);
  EXPECT_DOUBLE_EQ(l2.ms, 0.002);
  EXPECT_EQ(l2.level, MemoryLevel::kL2);
  EXPECT_TRUE(l2.from_cache);
  EXPECT_STREQ(MemoryLevelName(l2.level), "l2");
  // A recurrent layer re-reads its weights every step: its weights, not the inference's
  // working set, decide. 20 MB of recurrent weights read 100 times: from memory, though the
  // weights of a smaller layer would stay in the last-level cache between steps.
  Cost rnn;
  rnn.flops = 1'000'000;
  rnn.weight_bytes = 20'000'000;
  rnn.weight_traffic_bytes = 2'000'000'000;  // 2 GB at 50 GB/s: 40 ms
  EXPECT_DOUBLE_EQ(Roofline(rnn, Precision::kF32, p, 25'000'000).ms, 40.0);
  rnn.weight_bytes = 8'000'000;
  rnn.weight_traffic_bytes = 800'000'000;  // in the last-level cache: 0.8 GB at 200 GB/s
  const RooflineBound cached = Roofline(rnn, Precision::kF32, p, 100'000'000);
  EXPECT_DOUBLE_EQ(cached.ms, 4.0) << "the whole inference's 100 MB do not fit; its weights do";
  EXPECT_EQ(cached.level, MemoryLevel::kLastLevelCache);
}

TEST(Ceilings, TwoMeasurementsThatAgreeAreKeptAndOnesThatDoNotAreUnreliable) {
  Ceiling c;
  c.best = 40;
  c.history = {40};
  EXPECT_FALSE(c.Unreliable()) << "one measurement: nothing to disagree with";
  EXPECT_EQ(c.Kept(), 40);
  Ceiling next;
  next.best = 42;
  next = ContinueHistory(c, next);
  EXPECT_EQ(next.history, (std::vector<double>{40, 42}));
  EXPECT_FALSE(next.Unreliable());
  EXPECT_EQ(next.Kept(), 42) << "the higher of two that agree";
  // A busy minute: 75 after 42 (the 36-75 GB/s a shared VM showed in half an hour).
  Ceiling outlier;
  outlier.best = 75;
  outlier = ContinueHistory(next, outlier);
  EXPECT_TRUE(outlier.Unreliable());
  EXPECT_EQ(outlier.Kept(), 42) << "the best consistent figure, not the outlier";
  // Then 36 and 39: they agree; the best consistent is still 42 (40, 42 agree).
  Ceiling low;
  low.best = 36;
  low = ContinueHistory(outlier, low);
  Ceiling again;
  again.best = 39;
  again = ContinueHistory(low, again);
  EXPECT_EQ(again.history, (std::vector<double>{42, 75, 36, 39})) << "the last 4";
  EXPECT_FALSE(again.Unreliable());
  EXPECT_EQ(again.Kept(), 39) << "40 dropped out of the history: 36 and 39 are the pair left";
  // Nothing agrees: the latest.
  Ceiling wild;
  wild.history = {10, 20, 40};
  wild.best = 40;
  EXPECT_EQ(wild.Kept(), 40);
  EXPECT_TRUE(wild.Unreliable());
  // The boundary: exactly 10% apart agrees.
  Ceiling edge;
  edge.history = {90, 100};
  EXPECT_FALSE(edge.Unreliable());
}

// What no machine can show is named, and only that: a cache read below the memory behind it
// (a busy machine measured a 2-core L2 read at 4 GB/s beside 31 GB/s from DRAM), a GEMM above
// the register-only peak (but for one on AMX tiles).
TEST(Ceilings, ImpossibleOrderingsAreNamed) {
  auto ceiling = [](double best) {
    Ceiling c;
    c.best = best;
    c.history = {best};
    return c;
  };
  MachinePeaks p;
  p.ceilings["read.l2"] = ceiling(102);
  p.ceilings["read.l3"] = ceiling(60);
  p.ceilings["read.dram"] = ceiling(31);
  p.ceilings["gemm.f32"] = ceiling(180);
  p.ceilings["register.f32"] = ceiling(200);
  EXPECT_TRUE(p.Impossible().empty());
  p.ceilings["read.l3"] = ceiling(33);  // within the 10% leeway of DRAM's 31: noise, not absurd
  EXPECT_TRUE(p.Impossible().empty());
  p.ceilings["read.l2"] = ceiling(4.0);
  const std::vector<std::string> busy = p.Impossible();
  ASSERT_EQ(busy.size(), 2u);
  EXPECT_EQ(busy[0],
            "read.l2 4.0 GB/s below read.l3 33.0 GB/s: a cache cannot be slower than "
            "the memory behind it");
  EXPECT_NE(busy[1].find("read.l2 4.0 GB/s below read.dram 31.0 GB/s"), std::string::npos);
  p.ceilings["read.l2"] = ceiling(102);
  // A GEMM at its instruction's rate, measured a little above the loop (noise): not absurd.
  p.ceilings["gemm.f32"] = ceiling(215);
  EXPECT_TRUE(p.Impossible().empty());
  p.ceilings["gemm.f32"] = ceiling(260);
  ASSERT_EQ(p.Impossible().size(), 1u);
  EXPECT_NE(p.Impossible()[0].find("gemm.f32 260.0 GFLOP/s above register.f32 200.0 GFLOP/s"),
            std::string::npos);
  p.ceilings["gemm.f32"] = ceiling(180);
  // On AMX tiles a GEMM outruns the vector dot product the register loop times (an Intel Xeon
  // guest: bf16 2104 GFLOP/s against vdpbf16ps's 239): no bound, so not absurd.
  p.ceilings["register.bf16"] = ceiling(239);
  p.ceilings["gemm.bf16"] = ceiling(2104);
  p.ceilings["gemm.bf16"].what = "oneDNN 2048^3 brgconv_1x1:avx512_core_amx_bf16 conv";
  EXPECT_TRUE(p.Impossible().empty());
  p.ceilings["gemm.bf16"].what = "oneDNN 2048^3 brg:avx512_core_bf16";
  ASSERT_EQ(p.Impossible().size(), 1u);
  EXPECT_NE(p.Impossible()[0].find("gemm.bf16 2104.0 GFLOP/s above register.bf16"),
            std::string::npos);
}

TEST(Roofline, NoBoundWithoutAPeakForThePrecision) {
  Cost c;
  c.flops = 100;
  EXPECT_EQ(Roofline(c, Precision::kBf16, Peaks()).ms, 0.0);
}

TEST(Roofline, RecurrentWeightsAreReadAtEveryStep) {
  // lstm, C 3, H 5, T 4: w_x 3x20, w_h 5x20 (read 4 times), bias 20.
  const ResolvedTopology t = Resolve(SingleLayer("lstm", {{1, 4, 3}}, {{"units", 5}}), {});
  const Cost c = LayerCost(t.layers[0], Precision::kF32);
  EXPECT_EQ(c.weight_bytes, 4 * (60 + 100 + 20));
  EXPECT_EQ(c.weight_traffic_bytes, 4 * (60 + 4 * 100 + 20));
  EXPECT_EQ(c.reread_tensor_bytes, 4 * 100) << "w_h, the one tensor read more than once";
  // Other ops read each weight once.
  const ResolvedTopology d = Resolve(SingleLayer("dense", {{2, 7}}, {{"units", 5}}), {});
  const Cost dc = LayerCost(d.layers[0], Precision::kF32);
  EXPECT_EQ(dc.weight_traffic_bytes, dc.weight_bytes);
  EXPECT_EQ(dc.reread_tensor_bytes, 0);
  // Summed (a fused step, a marker, the total): the largest part's.
  Cost sum = dc;
  sum += c;
  EXPECT_EQ(sum.reread_tensor_bytes, 4 * 100);
  // Bidirectional: two w_h of 5x20, each its own tensor.
  const ResolvedTopology bi =
      Resolve(SingleLayer("lstm", {{1, 4, 3}}, {{"units", 5}, {"direction", "bidirectional"}}), {});
  EXPECT_EQ(LayerCost(bi.layers[0], Precision::kF32).reread_tensor_bytes, 4 * 100);
}

TEST(Roofline, ReReadTensorsBeyondTheCacheFindHalfOfItServedAtEveryPass) {
  // 50 GB/s memory, a 32 MiB last-level cache read at 200 GB/s. Two 64 MiB recurrent tensors
  // (a bidirectional LSTM's w_h at H 2048 f32) read at each of 100 steps, with 64 MiB read once
  // (w_x): of each pass after the first, 16 MiB come from the cache.
  const MachinePeaks p = Peaks();
  const int64_t mib = 1 << 20;
  Cost rnn;
  rnn.flops = 1'000'000;
  rnn.weight_bytes = 2 * 64 * mib + 64 * mib;
  rnn.weight_traffic_bytes = 2 * 100 * 64 * mib + 64 * mib;
  rnn.reread_tensor_bytes = 64 * mib;
  const double reread = 2.0 * 99 * 64 * mib, cached = reread / 4;
  const double expected_ms =
      ((static_cast<double>(rnn.weight_traffic_bytes) - cached) / 50e9 + cached / 200e9) * 1e3;
  const RooflineBound b = Roofline(rnn, Precision::kF32, p, 300 * mib);
  EXPECT_NEAR(b.ms, expected_ms, 1e-9);
  EXPECT_EQ(b.level, MemoryLevel::kMemory);
  EXPECT_LT(b.ms, static_cast<double>(rnn.weight_traffic_bytes) / 50e9 * 1e3);
  // Without the re-read tensor's size the weights decide, all from memory (as before).
  rnn.reread_tensor_bytes = 0;
  EXPECT_DOUBLE_EQ(Roofline(rnn, Precision::kF32, p, 300 * mib).ms,
                   static_cast<double>(rnn.weight_traffic_bytes) / 50e9 * 1e3);
  // A re-read tensor within half the cache: the cache's bandwidth for all of it, though the
  // layer's weights together would not fit.
  rnn.reread_tensor_bytes = 8 * mib;
  const RooflineBound small = Roofline(rnn, Precision::kF32, p, 300 * mib);
  EXPECT_EQ(small.level, MemoryLevel::kLastLevelCache);
  EXPECT_DOUBLE_EQ(small.ms, static_cast<double>(rnn.weight_traffic_bytes) / 200e9 * 1e3);
}

TEST(Roofline, AnEmbeddingReadsOnlyTheRowsItsIdsPick) {
  // 6 ids into a 100 x 8 table: at most 6 rows read; 300 ids: the whole table at most.
  const ResolvedTopology few =
      Resolve(SingleLayer("embedding", {{2, 3}}, {{"vocab", 100}, {"dim", 8}}), {});
  const Cost c = LayerCost(few.layers[0], Precision::kF32);
  EXPECT_EQ(c.params, 800);
  EXPECT_EQ(c.weight_bytes, 4 * 800);
  EXPECT_EQ(c.weight_traffic_bytes, 4 * 6 * 8);
  const ResolvedTopology many =
      Resolve(SingleLayer("embedding", {{3, 100}}, {{"vocab", 100}, {"dim", 8}}), {});
  EXPECT_EQ(LayerCost(many.layers[0], Precision::kBf16).weight_traffic_bytes, 2 * 800);
}

std::string TempPath(const std::string& name) {
  return TestDir() + "/ntpb_roofline_" + std::to_string(getpid()) + "_" + name;
}

TEST(MachinePeaksFile, RoundTripsThroughTheCache) {
  const std::string path = TempPath("nested/dir/peaks.json");
  WriteMachinePeaks(Peaks(), path);
  const std::optional<MachinePeaks> back = ReadMachinePeaks(path);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->ToJson(), Peaks().ToJson());
  ASSERT_EQ(back->ceilings.count("read.dram"), 1u);
  EXPECT_EQ(back->ceilings.at("read.dram").history, (std::vector<double>{48, 50}));
  EXPECT_EQ(back->ceilings.at("read.dram").spread, 0.08);
  // The weight-only precisions compute in f32: their peak is f32's, by their own names.
  for (Precision p : {Precision::kW8, Precision::kW4}) {
    ASSERT_EQ(back->peak_gflops.count(PrecisionName(p)), 1u) << PrecisionName(p);
    EXPECT_EQ(back->peak_gflops.at(PrecisionName(p)), back->peak_gflops.at("f32"));
  }
  // A file from before ceilings had spreads (version 2) is measured again, not misread.
  nlohmann::json old = Peaks().ToJson();
  old["version"] = 2;
  std::ofstream(path) << old.dump();
  EXPECT_FALSE(ReadMachinePeaks(path).has_value());
  EXPECT_FALSE(ReadMachinePeaks(TempPath("absent.json")).has_value());
  // One from the version before this one is measured again too (its read figures were wrong on
  // AVX2), while a run file that holds it still reads: it is what that run was judged by.
  for (int previous = 3; previous < Peaks().ToJson()["version"].get<int>(); ++previous) {
    old["version"] = previous;
    std::ofstream(path) << old.dump();
    EXPECT_FALSE(ReadMachinePeaks(path).has_value()) << previous;
    EXPECT_EQ(MachinePeaks::FromJson(old, "run.json").bandwidth_gbs, 50.0) << previous;
  }
  old["version"] = 2;
  EXPECT_THROW(MachinePeaks::FromJson(old, "run.json"), Error);
}

TEST(MachinePeaksFile, TheCacheIsTheOneTheReadsShow) {
  constexpr int64_t kMiB = int64_t{1} << 20;
  // A Zen 5 VM: hwloc reports 508 MiB; 32 MiB reads 2.5x as fast as memory, 64 MiB does not
  // (1.6x, but an edge: 0.63x the 32 MiB read).
  const std::vector<std::pair<int64_t, double>> vm = {
      {kMiB, 444},      {2 * kMiB, 300},  {4 * kMiB, 181},  {8 * kMiB, 190}, {16 * kMiB, 197},
      {32 * kMiB, 185}, {64 * kMiB, 117}, {128 * kMiB, 80}, {256 * kMiB, 74}};
  EXPECT_EQ(CacheSeenByReads(508 * kMiB, vm, 74), 32 * kMiB);
  // Another guest of that class, its two threads in two complexes: 64 MiB read from their two
  // L3s at 2.1x memory, 128 MiB at memory's rate. ResNet-50's 98 MB do not stay cached there.
  std::vector<std::pair<int64_t, double>> split = vm;
  split[6].second = 110;
  split[8].second = 51.5;
  EXPECT_EQ(CacheSeenByReads(508 * kMiB, split, 51.5), 64 * kMiB);
  // Reads that agree with the reported size keep it (a 32 MiB L3, 16 or 32 MiB fits).
  EXPECT_EQ(CacheSeenByReads(32 * kMiB, vm, 74), 32 * kMiB);
  EXPECT_EQ(CacheSeenByReads(64 * kMiB, vm, 74), 64 * kMiB);
  EXPECT_EQ(CacheSeenByReads(24 * kMiB, vm, 74), 24 * kMiB);
  // An Intel Xeon guest with AMX (hwloc: 480 MiB): its L3 plateau reads 1.85x memory from 8 to
  // 64 MiB; 4 MiB is the two cores' L2s.
  const std::vector<std::pair<int64_t, double>> xeon = {
      {kMiB, 355},     {2 * kMiB, 352},   {4 * kMiB, 134},    {8 * kMiB, 58.5},  {16 * kMiB, 57.3},
      {32 * kMiB, 56}, {64 * kMiB, 57.3}, {128 * kMiB, 39.3}, {256 * kMiB, 30.5}};
  EXPECT_EQ(CacheSeenByReads(480 * kMiB, xeon, 31), 64 * kMiB);
  // No size read at cache speed: nothing to correct.
  EXPECT_EQ(CacheSeenByReads(508 * kMiB, {{kMiB, 80}, {256 * kMiB, 74}}, 74), 508 * kMiB);
}

TEST(MachinePeaksFile, CorruptFilesAreErrorsNamingFileAndField) {
  const std::string path = TempPath("corrupt.json");
  auto expect_error = [&](const std::string& content, const std::string& field) {
    std::ofstream(path) << content;
    try {
      ReadMachinePeaks(path);
      ADD_FAILURE() << "accepted: " << content;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  };
  expect_error("{\"schema\": \"ntpbench.machine", "JSON");
  expect_error("[]", "schema");
  nlohmann::json j = Peaks().ToJson();
  j["version"] = 99;
  expect_error(j.dump(), "version");
  j = Peaks().ToJson();
  j["bandwidth_gbs"] = 0;
  expect_error(j.dump(), "bandwidth_gbs");
  j = Peaks().ToJson();
  j["peak_gflops"]["f32"] = -1;
  expect_error(j.dump(), "peak_gflops.f32");
  j = Peaks().ToJson();
  j.erase("threads");
  expect_error(j.dump(), "threads");
  j = Peaks().ToJson();
  j["cache_bandwidth_gbs"] = -1;
  expect_error(j.dump(), "cache_bandwidth_gbs");
  j = Peaks().ToJson();
  j["ceilings"]["read.dram"]["best"] = 0;
  expect_error(j.dump(), "ceilings.read.dram.best");
  j = Peaks().ToJson();
  j["ceilings"]["read.dram"]["history"] = {40, -1};
  expect_error(j.dump(), "ceilings.read.dram.history");
  j = Peaks().ToJson();
  j["ceilings"]["read.dram"].erase("unit");
  expect_error(j.dump(), "ceilings.read.dram");
  j = Peaks().ToJson();
  j["ceilings"] = 3;
  expect_error(j.dump(), "ceilings");
  std::remove(path.c_str());
}

TEST(MachinePeaksFile, FilesWithoutTheCacheFieldsStillRead) {
  const std::string path = TempPath("before_cache.json");
  nlohmann::json j = Peaks().ToJson();
  j.erase("cache_bytes");
  j.erase("cache_bandwidth_gbs");
  std::ofstream(path) << j.dump();
  const std::optional<MachinePeaks> back = ReadMachinePeaks(path);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->cache_bytes, 0);
  EXPECT_EQ(back->cache_bandwidth_gbs, 0.0);
  EXPECT_EQ(back->bandwidth_gbs, 50.0);
  std::remove(path.c_str());
}

TEST(MachinePeaksFile, CacheFolderFollowsTheEnvironment) {
  MachineClass m;
  m.cpu = "cpu";
  m.cores = 2;
  setenv("NTPB_CACHE_DIR", "/tmp/ntpb-cache-test", 1);
  EXPECT_EQ(MachinePeaksPath(m, 2), "/tmp/ntpb-cache-test/machine/" + m.id() + "-2t.json");
  unsetenv("NTPB_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
  EXPECT_EQ(MachinePeaksPath(m, 1), "/tmp/xdg/ntpbench/machine/" + m.id() + "-1t.json");
  unsetenv("XDG_CACHE_HOME");
}

}  // namespace
}  // namespace ntpb::testing
