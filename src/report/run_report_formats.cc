// The run report formats `ntpbench run --table` offers: one line per format.
#include "ntpbench/report.h"

namespace ntpb {
namespace {

std::string Text(const RunReport& r) { return FormatRunTable(r.measurement, r.peaks, r.view); }

}  // namespace

const std::vector<RunReportFormat>& RunReportFormats() {
  static const std::vector<RunReportFormat> formats = {
      {"text", "per-layer table with shares, roofline and totals (default)", "", Text, true},
      {"csv", "one row per layer, inlay and marker; Google Benchmark's own table to stderr",
       kRunCsvHeader, FormatRunCsv, false},
  };
  return formats;
}

const RunReportFormat* FindRunReportFormat(const std::string& name) {
  for (const RunReportFormat& f : RunReportFormats()) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

}  // namespace ntpb
