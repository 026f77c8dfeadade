#include <ntpbench/ntpbench.h>

NTPB_TOPOLOGY_BENCHMARK(consumer_mlp, "topologies/mlp.json")
    ->Batches({2})
    ->Set("n_hidden", 16)
    ->Markers({{"head", "fc3", "probs"}});
