// DeepSpeech batch 1 twice in one process: time only, and with a marker on every layer
// measuring every counter source. Run with random interleaving so both see the same machine:
//   build/marker_overhead_suite --benchmark_repetitions=8 \
//       --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true
// Target: the counted run's median within 2% of the plain one.
#include "ntpbench/ntpbench.h"

NTPB_TOPOLOGY_BENCHMARK(deepspeech_time_only, "topologies/deepspeech.json");

NTPB_TOPOLOGY_BENCHMARK(deepspeech_markers_all_counters, "topologies/deepspeech.json")
    ->Markers({{"m_fc1", "fc1", "fc1"},
               {"m_fc2", "fc2", "fc2"},
               {"m_fc3", "fc3", "fc3"},
               {"m_bilstm", "bilstm", "bilstm"},
               {"m_fc5", "fc5", "fc5"},
               {"m_fc6", "fc6", "fc6"},
               {"m_probs", "probs", "probs"}})
    ->Counters({"sde", "perf", "rusage", "memory"});
