// A layer's roofline bound from the machine's peaks (machine_peaks.h): min(peak, intensity x
// bandwidth); its "% of roofline" is the time that bound allows over the time it took.
#pragma once

#include "ntpbench/analysis.h"
#include "ntpbench/machine_peaks.h"
#include "ntpbench/precision.h"

namespace ntpb {

// Where the bytes of memory-bound work come from: the plateau whose capacity holds what is
// read between two reads of the same bytes.
enum class MemoryLevel { kL2, kLastLevelCache, kMemory };
const char* MemoryLevelName(MemoryLevel level);  // "l2", "l3", "memory"

struct RooflineBound {
  double ms = 0;              // the least time the machine needs for it; 0: no bound known
  bool memory_bound = false;  // bandwidth, not peak FLOP/s, sets the bound
  bool from_cache = false;    // ... a cache's bandwidth (the L2s' or the last-level cache's)
  MemoryLevel level = MemoryLevel::kMemory;  // the plateau of its bytes
};

// The bound of work with `cost` at `precision`: FLOPs at peak, or its memory traffic (weights as
// often as they are read, inputs, outputs) at the bandwidth, whichever takes longer. The
// bandwidth is that of the plateau (`ntpbench machine`'s read.l2, read.l3, read.dram) whose
// capacity holds what is read between two reads of the same bytes: for work that re-reads its
// weights within an inference (a recurrent layer, every step), its largest re-read tensor
// (Cost::reread_tensor_bytes; its weights where that is 0); otherwise `working_set` (the bytes
// one inference touches: weights and peak activations), which stay cached from one inference to
// the next when they fit. Re-read tensors too large for the last-level cache have half of that
// cache's capacity served from it at every pass after the first (the rest from memory).
RooflineBound Roofline(const Cost& cost, Precision precision, const MachinePeaks& peaks,
                       int64_t working_set = 0);
// What sets a bound, as tables and run files say it: "compute", or the memory level's name.
const char* BoundName(const RooflineBound& bound);
// The plateau that holds `reuse_bytes`: half of the threads' L2s, half of the last-level cache,
// else memory (and memory where a plateau was not measured or the size is unknown, 0).
MemoryLevel LevelFor(int64_t reuse_bytes, const MachinePeaks& peaks);
// Whether a working set counts as cache-resident (L2 or last-level) for Roofline.
bool FitsInCache(int64_t working_set, const MachinePeaks& peaks);

}  // namespace ntpb
