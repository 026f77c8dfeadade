// How far apart the cores this process runs on are: the one-way latency of a cache line handed
// between two threads pinned to the first two CPUs it may use (a ping-pong). On a VM the host
// places the virtual CPUs and moves them: a 2-core AMD EPYC guest (Zen 4) measured 25-32 ns in
// one placement and 170-190 ns in another, seconds to minutes apart, and a 7-layer MLP of 27 us
// took 40-43 us in the far one (each OpenMP fork and join, and each activation one core writes
// and the other reads, crosses between them). A run records it beside its time, so that a
// measurement is compared with one made in the same placement.
#pragma once

namespace ntpb::instrument {

// Nanoseconds, the best of a few short batches of round trips (a preempted batch says nothing
// about the placement); 0 where not measured: fewer than two CPUs allowed, or no batch finished
// (the second thread did not answer within 20 ms). Takes about a millisecond; never throws.
double MeasureCoreToCoreNs();

}  // namespace ntpb::instrument
