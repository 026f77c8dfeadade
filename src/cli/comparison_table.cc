#include "src/cli/comparison_table.h"

#include <cmath>

#include "src/report/text_table.h"

namespace ntpb::cli {
namespace {

// Milliseconds to the microsecond; counts and bytes exactly (a signature is compared exactly:
// 102441024 against 102441028 must not both print 1.02441e+08); anything else to 6 digits.
std::string FormatMetric(const std::string& metric, double v) {
  if (metric == "latency_ms") return FormatNumber("%.3f", v);
  if (std::isfinite(v) && v == std::floor(v) && std::abs(v) < 1e15) return FormatNumber("%.0f", v);
  return FormatNumber("%.6g", v);
}

}  // namespace

std::string ComparisonTable(const Comparison& c) {
  report::TextTable table(
      {"benchmark", "metric", "baseline", "now", "change", "p-value", "verdict", "note"});
  for (const ComparisonRow& r : c.rows) {
    table.Add(
        {r.benchmark, r.metric, FormatMetric(r.metric, r.baseline), FormatMetric(r.metric, r.now),
         std::isfinite(r.change) ? FormatNumber("%+.1f%%", 100 * r.change) : "new",
         r.p_value >= 0 ? FormatNumber("%.4f", r.p_value) : "", VerdictName(r.verdict), r.note});
  }
  std::string out =
      c.rows.empty() ? "" : table.Render({true, true, false, false, false, false, true, true});
  out += c.Summary();
  const bool judged = c.signature_judged || c.latency_judged;
  const int exit_code = c.ExitCode();
  const char* verdict = exit_code == 0   ? "PASS"
                        : exit_code == 1 ? "FAIL"
                        : !judged        ? "NOT JUDGED (nothing to compare with on this machine)"
                        : c.HasInconclusive() ? "INCONCLUSIVE"
                                              : "PASS for what was judged; the rest NOT JUDGED";
  out += std::string("verdict: ") + verdict + "\n";
  return out;
}

}  // namespace ntpb::cli
