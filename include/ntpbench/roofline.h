// A layer's roofline bound from the machine's peaks (machine_peaks.h): min(peak, intensity x
// bandwidth); its "% of roofline" is the time that bound allows over the time it took.
#pragma once

#include "ntpbench/analysis.h"
#include "ntpbench/machine_peaks.h"
#include "ntpbench/precision.h"

namespace ntpb {

struct RooflineBound {
  double ms = 0;              // the least time the machine needs for it; 0: no bound known
  bool memory_bound = false;  // bandwidth, not peak FLOP/s, sets the bound
  bool from_cache = false;    // ... the last-level cache's bandwidth
};

// The bound of work with `cost` at `precision`: FLOPs at peak, or its memory traffic (weights as
// often as they are read, inputs, outputs) at the bandwidth, whichever takes longer. The
// bandwidth is the last-level cache's when `working_set` (the bytes one inference touches:
// weights and peak activations) fits in half of it, since those bytes then stay cached from
// one inference to the next; memory's otherwise.
RooflineBound Roofline(const Cost& cost, Precision precision, const MachinePeaks& peaks,
                       int64_t working_set = 0);
// Whether a working set counts as cache-resident for Roofline.
bool FitsInCache(int64_t working_set, const MachinePeaks& peaks);

}  // namespace ntpb
