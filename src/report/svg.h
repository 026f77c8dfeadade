// Inline SVG charts for the HTML report: horizontal bars (hot spots, grouped comparisons) and a
// log-log roofline. Plain strings, no library and nothing fetched when the page is viewed.
#pragma once

#include <string>
#include <vector>

namespace ntpb::report {

// Every chart's background: a render check finds the charts in a screenshot by it.
inline constexpr const char* kChartBackground = "#f7f7fb";

// Text made safe for HTML and SVG: markup characters as entities, control characters other
// than line breaks and bytes that are not UTF-8 as \xNN (Printable).
std::string Escape(const std::string& text);

struct Bar {
  std::string label;
  double value = 0;
  std::string color;
  std::string text;   // written at the bar's end ("12.3 ms  41%")
  std::string title;  // the tooltip
};

// One bar a row, longest = full width.
std::string BarChart(const std::vector<Bar>& bars, int width = 900);

// Rows of bars, one per series (colors and names in the legend).
struct BarGroup {
  std::string label;
  std::vector<Bar> bars;  // one per series; value 0 and empty text: absent
};
std::string GroupedBarChart(const std::vector<BarGroup>& groups,
                            const std::vector<std::pair<std::string, std::string>>& legend,
                            int width = 900);

struct RooflinePoint {
  double intensity = 0;  // FLOPs per byte
  double gflops = 0;     // achieved
  double radius = 4;
  std::string color;
  std::string title;
};
struct RooflineCeiling {
  std::string label;
  double gflops = 0;         // a compute ceiling (horizontal), or
  double bandwidth_gbs = 0;  // a bandwidth ceiling (slope)
  std::string color;
};
std::string RooflineChart(const std::vector<RooflinePoint>& points,
                          const std::vector<RooflineCeiling>& ceilings, int width = 700,
                          int height = 420);

// Values over categories (a sweep factor's values), one line per series, y from 0.
struct LineSeries {
  std::string name;
  std::string color;
  std::vector<double> y;            // one per category; NaN: absent (a failed point)
  std::vector<std::string> titles;  // tooltips, one per category (optional)
  // Points whose measurement was unreliable (optional, one per category): drawn hollow, dashed.
  std::vector<bool> unreliable;
};
std::string LineChart(const std::vector<std::string>& categories,
                      const std::vector<LineSeries>& series, const std::string& x_label,
                      const std::string& y_label, int width = 380, int height = 240);

// Points on linear axes from 0 (throughput against latency); the points of one color marked
// `front` are joined by a line in x order (a Pareto front per series).
struct ScatterPoint {
  double x = 0, y = 0;
  std::string color;
  std::string label;  // written beside the point ("2x1t b4")
  std::string title;  // the tooltip
  bool front = false;
};
std::string ScatterChart(const std::vector<ScatterPoint>& points, const std::string& x_label,
                         const std::string& y_label, int width = 620, int height = 360);

// Predicted against measured on log-log axes of one range: the diagonal where they agree and
// dashed lines at +-`band` (0.1: +-10%) around it.
struct AgreementPoint {
  double measured = 0, predicted = 0;
  std::string color;
  std::string title;  // the tooltip
};
std::string AgreementChart(const std::vector<AgreementPoint>& points, const std::string& unit,
                           double band, int width = 520, int height = 520);

// The palette: the i-th series colour.
std::string SeriesColor(size_t i);

}  // namespace ntpb::report
