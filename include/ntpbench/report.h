// Plain-text tables for people: the per-layer breakdown of a run and the inspect view.
#pragma once

#include <map>
#include <string>

#include "ntpbench/analysis.h"
#include "ntpbench/resolve.h"
#include "ntpbench/results.h"
#include "ntpbench/roofline.h"

namespace ntpb {

// Per-layer time, share, GFLOP/s and bytes of one benchmark run (its results model: the
// inlays a backend inserted above the layer they feed, fused layers under their step), followed
// by markers, totals and the measured counters. With the machine's peaks (roofline.h), a "roof"
// column: the share of its roofline bound each layer reached, "c" where compute sets the bound, "m"
// where memory bandwidth does.
std::string FormatRunTable(const ResolvedTopology& topology, const TopologyAnalysis& analysis,
                           const RunMeasurement& measurement, Precision precision = Precision::kF32,
                           const MachinePeaks* peaks = nullptr);

// Layers, shapes, params, FLOPs and bytes, without running anything.
std::string FormatInspectTable(const ResolvedTopology& topology, const TopologyAnalysis& analysis);

// "1.50 GiB", "12.0 KiB", "512 B".
std::string FormatBytes(double bytes);
// "16.99 G", "3.72 M", "120".
std::string FormatCount(double count);

}  // namespace ntpb
