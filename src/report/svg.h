// Inline SVG charts for the HTML report: horizontal bars (hot spots, grouped comparisons) and a
// log-log roofline. Plain strings, no library and nothing fetched when the page is viewed.
#pragma once

#include <string>
#include <vector>

namespace ntpb::report {

// Every chart's background: a render check finds the charts in a screenshot by it.
inline constexpr const char* kChartBackground = "#f7f7fb";

// Text made safe for HTML and SVG.
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

// The palette: the i-th series colour.
std::string SeriesColor(size_t i);

}  // namespace ntpb::report
