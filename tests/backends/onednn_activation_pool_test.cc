// The oneDNN backend's activation memory reuse (activation_pool.h), on small chains whose
// lifetimes can be worked out by hand.
#include <gtest/gtest.h>

#include <cstdlib>

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
  ActivationPool pool(uses, /*reuse=*/true);
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
  EXPECT_EQ(pool.storage().size(), 2u);
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
  ActivationPool pool(uses, /*reuse=*/true);
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
  ActivationPool pool(uses, /*reuse=*/false);
  EXPECT_FALSE(pool.reusing());
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  const memory a = pool.Allocate(kVector, "a", "a", 0, engine);
  pool.Allocate(kVector, "b", "b", 1, engine);
  const memory c = pool.Allocate(kVector, "c", "c", 2, engine);
  EXPECT_NE(c.get_data_handle(), a.get_data_handle());
  EXPECT_EQ(pool.ReusedBy("a"), "");
  EXPECT_EQ(pool.bytes(), 3 * 64 * 4);
}

}  // namespace
}  // namespace ntpb::onednn
