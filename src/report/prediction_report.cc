// The prediction check page (prediction_report.h).
#include "ntpbench/prediction_report.h"

#include <algorithm>
#include <cmath>

#include "ntpbench/error.h"
#include "src/common/format_number.h"
#include "src/common/statistics.h"
#include "src/report/page_style.h"
#include "src/report/svg.h"

namespace ntpb {
namespace {

std::string Percent(double v) { return FormatNumber("%+.1f%%", 100 * v); }

std::string MachineName(const PredictionCheck& c) {
  return c.machine + ", " + c.backend + " " + c.precision + ", " + std::to_string(c.threads) +
         (c.threads == 1 ? " thread" : " threads");
}

// How the machine's speed at the check compared with its calibration's, and what the predictions
// would be within without that.
std::string MachineChange(const PredictionCheck& c) {
  const double change = *c.MedianMachineChange();
  const size_t measured = c.ErrorMagnitudes().size();
  const int n = c.CountWithin(0.10, 1 + change);
  return "; against its calibration the machine ran " + Percent(change) +
         " (its probes' reference points run again, median): with the predictions scaled by "
         "that, " +
         FormatNumber("%.0f%%", 100.0 * n / measured) + " within +-10%";
}

// Within +-5, 10 and 20 %, the median and the worst error of one check.
std::string Distribution(const PredictionCheck& c) {
  std::vector<double> e, spreads;
  for (const PredictionCheckRow& r : c.rows) {
    if (const auto error = r.RelativeError()) {
      e.push_back(std::fabs(*error));
      spreads.push_back(r.measured_spread);
    }
  }
  if (e.empty()) return "nothing measured";
  auto within = [&](double bound) {
    const auto n = std::count_if(e.begin(), e.end(), [&](double v) { return v <= bound + 1e-12; });
    return FormatNumber("%.0f%%", 100.0 * n / e.size());
  };
  return std::to_string(e.size()) + " predictions: " + within(0.05) + " within +-5%, " +
         within(0.10) + " within +-10%, " + within(0.20) + " within +-20%; median |error| " +
         FormatNumber("%.1f%%", 100 * Median(e)) + ", worst " +
         FormatNumber("%.1f%%", 100 * *std::max_element(e.begin(), e.end())) +
         "; the measurements themselves varied by a median " +
         FormatNumber("%.1f%%", 100 * Median(spreads)) + " between passes" +
         (c.MedianMachineChange() ? MachineChange(c) : "");
}

}  // namespace

std::string RenderPredictionCheckHtml(const std::vector<PredictionCheck>& checks,
                                      const std::string& title) {
  if (checks.empty()) throw Error("", "", "", "no prediction check to report");
  std::string html = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>" +
                     report::Escape(title) + "</title>" + report::kPageStyle + "</head><body><h1>" +
                     report::Escape(title) + "</h1>";
  html +=
      "<p>Latency predicted from each machine's calibration (<code>ntpbench predict</code>, "
      "nothing run) against the latency measured there (<code>ntpbench predict --check"
      "</code>): the median inference of each held-out model at each batch. On the diagonal "
      "they agree.</p><div class=\"legend\">";
  std::vector<report::AgreementPoint> points;
  for (size_t i = 0; i < checks.size(); ++i) {
    const std::string color = report::SeriesColor(i);
    html += "<span style=\"background:" + color + "\"></span>" +
            report::Escape(MachineName(checks[i])) + " (" + report::Escape(checks[i].file) + ")";
    for (const PredictionCheckRow& r : checks[i].rows) {
      if (!r.measured_ms) continue;
      points.push_back({*r.measured_ms, r.predicted_ms, color,
                        r.model + " batch " + std::to_string(r.batch) + ": predicted " +
                            FormatNumber("%.3f", r.predicted_ms) + " ms, measured " +
                            FormatNumber("%.3f", *r.measured_ms) + " ms (" +
                            Percent(*r.RelativeError()) + ")"});
    }
  }
  html += "</div>" + report::AgreementChart(points, "ms", 0.10);
  for (const PredictionCheck& c : checks) {
    html += "<h2>" + report::Escape(MachineName(c)) + "</h2><p>" + report::Escape(Distribution(c)) +
            ". Calibration: <code>" + report::Escape(c.calibration) + "</code>. Measured: " +
            (c.fastest_pass ? "each model's fastest pass (its calibration kept each step's "
                              "fastest of its passes)"
                            : "each model's median pass") +
            (c.core_to_core_ns > 0 ? " of those with the cores placed as while calibrated (" +
                                         FormatNumber("%.0f", c.core_to_core_ns) +
                                         " ns core to core; \"cores apart\": none was)"
                                   : "") +
            ".</p>";
    html +=
        "<table><tr><th>model</th><th>batch</th><th>predicted ms</th><th>interval</th>"
        "<th>measured ms</th><th>spread between passes</th><th>error</th><th>dominant step "
        "(predicted)</th></tr>";
    for (const PredictionCheckRow& r : c.rows) {
      const auto error = r.RelativeError();
      const bool bad = error && std::fabs(*error) > 0.10;
      html += "<tr><td>" + report::Escape(r.model) + "</td><td>" + std::to_string(r.batch) +
              "</td><td>" + FormatNumber("%.3f", r.predicted_ms) + "</td><td>" +
              FormatNumber("%.3f", r.low_ms) + "-" + FormatNumber("%.3f", r.high_ms) + "</td><td>" +
              (r.measured_ms ? FormatNumber("%.3f", *r.measured_ms)
                             : "failed: " + report::Escape(r.failed)) +
              "</td><td>" + (r.measured_ms ? FormatNumber("%.0f%%", 100 * r.measured_spread) : "") +
              "</td><td" + (bad ? " class=\"bad\"" : "") + ">" + (error ? Percent(*error) : "") +
              (r.placed_apart ? " (cores apart)" : "") +
              (r.uncalibrated ? " (" + std::to_string(r.uncalibrated) +
                                    (r.uncalibrated == 1 ? " step" : " steps") + " uncalibrated)"
                              : "") +
              "</td><td class=\"text\">" + report::Escape(r.dominant) + "</td></tr>";
    }
    html += "</table>";
  }
  return html + "</body></html>\n";
}

}  // namespace ntpb
