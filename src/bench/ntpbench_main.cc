// main() for suites: link ntpbench::ntpbench_main and write only NTPB_TOPOLOGY_BENCHMARK lines.
#include "ntpbench/ntpbench.h"

NTPB_MAIN()
