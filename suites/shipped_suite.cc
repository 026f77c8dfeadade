// The shipped suite: every shipped topology on the reference backend.
#include "ntpbench/ntpbench.h"

NTPB_TOPOLOGY_BENCHMARK(deepspeech, "topologies/deepspeech.json")
    ->Backends({"eigen"})
    ->Batches({1})
    ->Precisions({ntpb::f32})
    ->Markers({{"fc1_3", "fc1", "fc3"}, {"bilstm", "bilstm", "bilstm"}});
NTPB_TOPOLOGY_BENCHMARK(mlp, "topologies/mlp.json")->Batches({1, 64});
NTPB_TOPOLOGY_BENCHMARK(tiny_cnn, "topologies/tiny_cnn.json")->Batches({1, 8});
NTPB_TOPOLOGY_BENCHMARK(mobilenet_v2, "topologies/mobilenet_v2.json")->Batches({1});
NTPB_TOPOLOGY_BENCHMARK(resnet50, "topologies/resnet50.json")->Batches({1});
// Speech recognition end to end (NTP's case study): audio -> MFCC -> network -> CTC beam search;
// its markers (frontend, network, decoder) come from the topology.
NTPB_TOPOLOGY_BENCHMARK(deepspeech_e2e, "topologies/deepspeech_e2e.json")
    ->Backends({"eigen"})
    ->Batches({1})
    ->Precisions({ntpb::f32});
// Throughput in the gate: the mlp served offline by 2 streams at once (each its own executable
// with half the threads). Its time is the wall time per query, one over its throughput, so a
// throughput regression fails like a latency one.
NTPB_TOPOLOGY_BENCHMARK(mlp_offline, "topologies/mlp.json")
    ->Batches({64})
    ->Scenario(ntpb::Scenario::Offline())  // 1000 queries: what its p99 needs
    ->Streams({2});
