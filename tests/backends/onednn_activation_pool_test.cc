// The oneDNN backend's activation memory reuse (activation_pool.h), on small chains whose
// lifetimes can be worked out by hand.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "ntpbench/json_format.h"
#include "src/backends/onednn/activation_pool.h"

namespace ntpb::onednn {
namespace {

using dnnl::memory;

ResolvedTopology Chain(const std::string& layers, const std::string& outputs) {
  return Resolve(ParseTopologyJson(R"({"format": "ntpbench-topology", "version": 1,
      "name": "chain", "inputs": [{"name": "x", "shape": [1, 64]}], "layers": [)" +
                                       layers + R"(], "outputs": [)" + outputs + "]}",
                                   "chain.json"),
                 {});
}

const memory::desc kVector({1, 64}, memory::data_type::f32, memory::format_tag::ab);

TEST(OnednnActivationPool, ABufferIsReusedOnceItsTensorsLastReaderHasRun) {
  // a <- x; b <- a; c <- b; v = c as 8x8 (a view); d <- v; e <- d (the graph output).
  const ResolvedTopology t = Chain(R"(
      {"name": "a", "op": "relu", "inputs": ["x"]},
      {"name": "b", "op": "relu", "inputs": ["a"]},
      {"name": "c", "op": "relu", "inputs": ["b"]},
      {"name": "v", "op": "reshape", "inputs": ["c"], "shape": [1, 8, 8]},
      {"name": "d", "op": "relu", "inputs": ["v"]},
      {"name": "e", "op": "relu", "inputs": ["d"]})",
                                   R"("e")");
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  const TensorUses uses = AnalyzeTensorUses(t);
  HugePageArena arena(/*huge_pages=*/true);
  ActivationPool pool(uses, /*reuse=*/true, &arena);
  ASSERT_TRUE(pool.reusing());
  const memory a = pool.Allocate(kVector, "a", "a", 0, engine);
  const memory b = pool.Allocate(kVector, "b", "b", 1, engine);
  EXPECT_NE(b.get_data_handle(), a.get_data_handle());  // b is written while a is read
  const memory c = pool.Allocate(kVector, "c", "c", 2, engine);
  EXPECT_EQ(c.get_data_handle(), a.get_data_handle());  // a's last reader (b) has run
  pool.Share("v", c);
  // d is written while v (c's storage) is read: it takes b's buffer, not c's.
  const memory d = pool.Allocate(kVector, "d", "d", 4, engine);
  EXPECT_EQ(d.get_data_handle(), b.get_data_handle());
  const memory e = pool.Allocate(kVector, "e", "e", 5, engine);
  EXPECT_EQ(e.get_data_handle(), c.get_data_handle());  // v's last reader (d) has run
  EXPECT_EQ(pool.bytes(), 2 * 64 * 4);

  EXPECT_EQ(pool.ReusedBy("a"), "c");
  EXPECT_EQ(pool.ReusedBy("b"), "d");
  EXPECT_EQ(pool.ReusedBy("c"), "e");
  EXPECT_EQ(pool.ReusedBy("v"), "e");
  EXPECT_EQ(pool.ReusedBy("d"), "");
  EXPECT_EQ(pool.ReusedBy("e"), "");
  EXPECT_EQ(pool.ReusedBy("x"), "");  // not pooled
}

TEST(OnednnActivationPool, PrefersTheBufferReleasedLastAndNeverReusesAGraphOutput) {
  // a and b both free by the time e is written; b was released later (still in cache).
  const ResolvedTopology t = Chain(R"(
      {"name": "a", "op": "relu", "inputs": ["x"]},
      {"name": "b", "op": "relu", "inputs": ["x"]},
      {"name": "c", "op": "relu", "inputs": ["a"]},
      {"name": "d", "op": "relu", "inputs": ["b"]},
      {"name": "e", "op": "add", "inputs": ["c", "d"]},
      {"name": "f", "op": "relu", "inputs": ["e"]})",
                                   R"("c", "f")");
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  const TensorUses uses = AnalyzeTensorUses(t);
  HugePageArena arena(/*huge_pages=*/true);
  ActivationPool pool(uses, /*reuse=*/true, &arena);
  const memory a = pool.Allocate(kVector, "a", "a", 0, engine);
  const memory b = pool.Allocate(kVector, "b", "b", 1, engine);
  const memory c = pool.Allocate(kVector, "c", "c", 2, engine);  // a is still read at 2
  const memory d = pool.Allocate(kVector, "d", "d", 3, engine);  // a (read at 2) is free
  EXPECT_EQ(d.get_data_handle(), a.get_data_handle());
  const memory e = pool.Allocate(kVector, "e", "e", 4, engine);  // b (read at 3) is free
  EXPECT_EQ(e.get_data_handle(), b.get_data_handle());
  // c is a graph output: never released; d and e are still read at 4 and 5.
  const memory f = pool.Allocate(kVector, "f", "f", 5, engine);
  EXPECT_NE(f.get_data_handle(), c.get_data_handle());
  EXPECT_EQ(f.get_data_handle(), d.get_data_handle());  // d: last read at 4
  EXPECT_EQ(pool.ReusedBy("c"), "");
  // A tensor larger than every free buffer gets one of its own.
  const memory::desc wide({1, 128}, memory::data_type::f32, memory::format_tag::ab);
  const memory g = pool.Allocate(wide, "g", "g", 6, engine);
  for (const memory& m : {a, b, c}) EXPECT_NE(g.get_data_handle(), m.get_data_handle());
}

TEST(OnednnActivationPool, TurnedOffEveryTensorKeepsItsOwnMemory) {
  const ResolvedTopology t = Chain(R"(
      {"name": "a", "op": "relu", "inputs": ["x"]},
      {"name": "b", "op": "relu", "inputs": ["a"]},
      {"name": "c", "op": "relu", "inputs": ["b"]})",
                                   R"("c")");
  const TensorUses uses = AnalyzeTensorUses(t);
  HugePageArena arena(/*huge_pages=*/true);
  ActivationPool pool(uses, /*reuse=*/false, &arena);
  EXPECT_FALSE(pool.reusing());
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  const memory a = pool.Allocate(kVector, "a", "a", 0, engine);
  pool.Allocate(kVector, "b", "b", 1, engine);
  const memory c = pool.Allocate(kVector, "c", "c", 2, engine);
  EXPECT_NE(c.get_data_handle(), a.get_data_handle());
  EXPECT_EQ(pool.ReusedBy("a"), "");
  EXPECT_EQ(pool.bytes(), 3 * 64 * 4);
}

// The arena (huge_page_arena.h): 64-byte aligned pieces that never overlap, small ones packed
// into one 32 MiB block on a 2 MiB boundary, a large one in a block of its own; the blocks are
// marked for huge pages where the kernel has transparent huge pages (smaps' THPeligible).
bool ThpEligible(const void* p) {
  const auto at = reinterpret_cast<uintptr_t>(p);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t from = 0, to = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &from, &to) == 2 && line.find(':') > line.find('-')) {
      inside = from <= at && at < to;
    } else if (inside && line.rfind("THPeligible:", 0) == 0) {
      return line.find('1') != std::string::npos;
    }
  }
  return false;
}

TEST(OnednnHugePageArena, PacksAlignedPiecesIntoMarkedBlocks) {
  HugePageArena arena(/*huge_pages=*/true);
  char* a = static_cast<char*>(arena.Allocate(100));
  char* b = static_cast<char*>(arena.Allocate(1));
  char* c = static_cast<char*>(arena.Allocate(4096));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % HugePageArena::kPage, 0u);  // a block's start
  EXPECT_EQ(b, a + 128);
  EXPECT_EQ(c, b + 64);
  EXPECT_EQ(arena.reserved(), HugePageArena::kBlock);
  char* large = static_cast<char*>(arena.Allocate(HugePageArena::kBlock));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(large) % HugePageArena::kPage, 0u);
  EXPECT_EQ(arena.reserved(), 2 * HugePageArena::kBlock);
  EXPECT_EQ(arena.Allocate(64), c + 4096);  // the first block goes on
  std::memset(large, 1, HugePageArena::kBlock);
  std::ifstream mode_file("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string mode;
  std::getline(mode_file, mode);
  if (mode.find("[madvise]") == std::string::npos && mode.find("[always]") == std::string::npos) {
    GTEST_SKIP() << "transparent huge pages are off here (" << mode << ")";
  }
  EXPECT_TRUE(ThpEligible(a));
  EXPECT_TRUE(ThpEligible(large));
}

}  // namespace
}  // namespace ntpb::onednn
