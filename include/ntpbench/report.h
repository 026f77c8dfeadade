// Plain-text tables for people: the per-layer breakdown of a run and the inspect view.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ntpbench/analysis.h"
#include "ntpbench/resolve.h"
#include "ntpbench/results.h"
#include "ntpbench/roofline.h"

namespace ntpb {

// How the text table is laid out (`ntpbench run --wide --top N --sort time`, and Google
// Benchmark's --benchmark_time_unit).
struct TableView {
  bool wide = false;      // every column; else those that fit `width`, long names shortened
  int top = 0;            // only the N slowest steps, slowest first (0: every step)
  bool by_time = false;   // steps slowest first instead of in execution order
  std::string time_unit;  // "ns", "us", "ms" or "s" for every time; empty: µs below 1 ms, else ms
  size_t width = 120;     // the columns the default table fits
};

// A time in `unit` (TableView::time_unit), with its unit: "12.3 µs", "4.56 ms".
std::string FormatTime(double ms, const std::string& unit = "");

// Per-layer time, share, GFLOP/s and bytes of one benchmark run, from its results model alone
// (the steps carry their layers, ops, shapes, cost and roofline bound): the inlays a backend
// inserted above the layer they feed, fused layers under their step, followed by markers, totals
// and the measured counters. A "roof" column where the run knew the machine's ceilings: the
// share of its roofline bound each step reached, "c" where compute sets the bound, "m" where
// memory bandwidth does. `peaks` (null: none) adds the line naming the ceilings.
std::string FormatRunTable(const RunMeasurement& measurement, const MachinePeaks* peaks = nullptr,
                           const TableView& view = {});

// One benchmark run, as a report format sees it.
struct RunReport {
  const std::string& benchmark;  // Google Benchmark's run name
  const RunMeasurement& measurement;
  const MachinePeaks* peaks = nullptr;  // null: no line naming the ceilings
  TableView view = {};
};

// A way to print a run: `ntpbench run --table <name>`. The formats are listed in
// src/report/run_report_formats.cc, one line each: a new format is one file and that line.
struct RunReportFormat {
  const char* name;
  const char* summary;  // for --help
  const char* header;   // printed once before the first run ("" for none)
  std::string (*render)(const RunReport& run);
  bool heading;  // each run is introduced by its name and time per iteration
};
const std::vector<RunReportFormat>& RunReportFormats();
// The format called `name`, or null.
const RunReportFormat* FindRunReportFormat(const std::string& name);

// One CSV row per layer (its step's time; "fused" kind for the layers a step absorbed), per
// inlay step and per marker, under kRunCsvHeader: numbers in full, for a spreadsheet. FLOPs and
// bytes are each step's analytic cost (a fused step's holds the layers it absorbed).
inline constexpr const char* kRunCsvHeader =
    "benchmark,layer,op,kind,output,ms,time_share,gflops,flops,weight_bytes,output_bytes\n";
std::string FormatRunCsv(const RunReport& run);

// Layers, shapes, params, FLOPs and bytes, without running anything.
std::string FormatInspectTable(const ResolvedTopology& topology, const TopologyAnalysis& analysis);

// "1.50 GiB", "12.0 KiB", "512 B".
std::string FormatBytes(double bytes);
// "16.99 G", "3.72 M", "120".
std::string FormatCount(double count);

}  // namespace ntpb
