// A suite written the way users write one; registration_test runs it and reads its output.
#include "ntpbench/ntpbench.h"

NTPB_TOPOLOGY_BENCHMARK(tiny, "topologies/tiny_cnn.json")
    ->Backends({"eigen", "onednn", "opencl"})
    ->Batches({1, 2})
    ->Precisions({ntpb::f32, ntpb::bf16})
    ->Set("width", 4)
    ->Markers({{"tail", "conv2", "probs"}});

NTPB_TOPOLOGY_BENCHMARK(mlp_small, "topologies/mlp.json")->Set("n_hidden", 64)->Batches({4});

// One family per listed value, each named.
NTPB_TOPOLOGY_BENCHMARK(mlp_sizes, "topologies/mlp.json")->Values("n_hidden", {32, 64});

// Offline: every stream its own executable, all at once; one family per scenario.
NTPB_TOPOLOGY_BENCHMARK(mlp_offline, "topologies/mlp.json")
    ->Set("n_hidden", 32)
    ->Batches({2})
    ->Scenario(ntpb::Scenario::SingleStream())
    ->Scenario(ntpb::Scenario::Offline())
    ->Streams({1, 2});
