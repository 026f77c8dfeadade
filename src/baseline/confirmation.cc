#include "src/baseline/confirmation.h"

#include <algorithm>

#include "src/common/format_number.h"

namespace ntpb {

Comparison Confirm(const Comparison& first,
                   const std::function<Comparison(const std::set<std::string>&)>& measure_again) {
  std::set<std::string> doubtful;
  for (const ComparisonRow& r : first.rows) {
    const bool latency = r.metric == "latency_ms" || r.metric == "drift";
    if (latency && (r.verdict == Verdict::kRegression || r.verdict == Verdict::kInconclusive)) {
      doubtful.insert(r.benchmark);
    }
  }
  if (doubtful.empty()) return first;
  const Comparison second = measure_again(doubtful);
  Comparison out = first;
  for (ComparisonRow& row : out.rows) {
    if (!doubtful.count(row.benchmark) || (row.metric != "latency_ms" && row.metric != "drift"))
      continue;
    for (const ComparisonRow& again_row : second.rows) {
      if (again_row.benchmark != row.benchmark || again_row.metric != row.metric) continue;
      const std::string first_note =
          std::string(" [first run ") + VerdictName(row.verdict) +
          (row.metric == "drift" ? "" : " at ") +
          (row.metric == "drift" ? "" : FormatNumber("%+.1f%%", 100 * row.change)) + "]";
      row = again_row;
      row.note += first_note;
    }
  }
  return out;
}

void Append(RunResults* into, const RunResults& more) {
  if (into->benchmarks.empty()) {
    *into = more;
    return;
  }
  for (const auto& [name, r] : more.benchmarks) {
    auto& t = into->benchmarks[name].real_time_ms;
    t.insert(t.end(), r.real_time_ms.begin(), r.real_time_ms.end());
    auto& p99 = into->benchmarks[name].p99_ms;
    p99.insert(p99.end(), r.p99_ms.begin(), r.p99_ms.end());
  }
  into->peak_rss_bytes = std::max(into->peak_rss_bytes, more.peak_rss_bytes);
}

}  // namespace ntpb
