// How OpenMP threads wait at a barrier, chosen for a shared machine. libgomp (the OpenMP of
// Debian's GCC and oneDNN) spins 300,000 times before it sleeps. Beside a busy neighbour on the
// same cores, a thread spinning for a descheduled one burns its core's slice, and the
// descheduled one waits a whole scheduler slice to run: on a 2-core AMD EPYC VM (Zen 5) beside
// `stress-ng --cpu 2`, an mlp's p99 went from 1.3-1.5 ms to 32 ms. A bounded spin
// (GOMP_SPINCOUNT=10000, tens of microseconds) gives the core back soon: p99 9.2-9.4 ms there,
// ResNet-50's time 92-110 ms instead of 121-210 ms, and the same times as the default on the
// quiet machine within its noise (README, "A busy machine"). OMP_WAIT_POLICY=passive was 15-20%
// slower on the quiet machine. The numbers of a busy machine are still not true: the run says
// so (results.h, JudgeInterference); the policy only keeps them from being far off.
#pragma once

#include <string>

namespace ntpb::bench {

// libgomp reads its settings once, when it loads, so the policy is set by running this program
// again with GOMP_SPINCOUNT in its environment (an exec: the same process id and arguments),
// unless the user set GOMP_SPINCOUNT or OMP_WAIT_POLICY, or NTPB_OPENMP_WAIT=keep. Returns only
// when nothing was to be done or the exec failed.
void ApplyOpenMpWaitPolicy(char** argv);

// What this process runs with, for the run's context: "GOMP_SPINCOUNT=10000 (ntpbench)",
// "OMP_WAIT_POLICY=passive (environment)", or "libgomp default".
std::string OpenMpWaitPolicy();

}  // namespace ntpb::bench
