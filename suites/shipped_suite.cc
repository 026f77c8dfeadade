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
