#include "src/report/svg.h"

#include <algorithm>
#include <cmath>

#include "src/common/format_number.h"
#include "src/common/printable.h"
#include "src/report/text_table.h"

namespace ntpb::report {

namespace {

std::string Num(double v) { return FormatNumber("%.1f", v); }

std::string Text(double x, double y, const std::string& text, const char* anchor = "start",
                 const char* extra = "") {
  return "<text x=\"" + Num(x) + "\" y=\"" + Num(y) + "\" text-anchor=\"" + anchor + "\"" + extra +
         ">" + Escape(text) + "</text>";
}

std::string Open(int width, int height) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width) +
         "\" height=\"" + std::to_string(height) + "\" viewBox=\"0 0 " + std::to_string(width) +
         " " + std::to_string(height) +
         "\" font-family=\"sans-serif\" font-size=\"12\"><rect width=\"100%\" height=\"100%\" "
         "fill=\"" +
         kChartBackground + "\"/>";
}

std::string Rect(double x, double y, double w, double h, const std::string& color,
                 const std::string& title) {
  return "<rect x=\"" + Num(x) + "\" y=\"" + Num(y) + "\" width=\"" + Num(std::max(w, 1.0)) +
         "\" height=\"" + Num(h) + "\" fill=\"" + color + "\">" +
         (title.empty() ? "" : "<title>" + Escape(title) + "</title>") + "</rect>";
}

constexpr double kLabelWidth = 300;

}  // namespace

std::string Escape(const std::string& raw) {
  // Control characters (an ESC in a layer's name) and bytes that are not UTF-8 as \xNN text:
  // XML forbids them in SVG, and a page shows them as nothing. Line breaks stay.
  std::string text;
  for (size_t start = 0; start <= raw.size();) {
    const size_t end = std::min(raw.find('\n', start), raw.size());
    text += Printable(raw.substr(start, end - start)) + (end < raw.size() ? "\n" : "");
    start = end + 1;
  }
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string SeriesColor(size_t i) {
  static const char* palette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                                  "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
  return palette[i % std::size(palette)];
}

std::string BarChart(const std::vector<Bar>& bars, int width) {
  const double row = 20, top = 8;
  const int height = static_cast<int>(top * 2 + row * bars.size());
  double most = 0;
  for (const Bar& b : bars) most = std::max(most, b.value);
  const double span = width - kLabelWidth - 150;
  std::string svg = Open(width, height);
  for (size_t i = 0; i < bars.size(); ++i) {
    const Bar& b = bars[i];
    const double y = top + row * i;
    const double w = most > 0 ? span * b.value / most : 0;
    svg += Text(kLabelWidth - 6, y + 14, Elide(b.label, 46), "end");
    svg += Rect(kLabelWidth, y + 3, w, row - 6, b.color, b.title.empty() ? b.label : b.title);
    svg += Text(kLabelWidth + w + 4, y + 14, b.text);
  }
  return svg + "</svg>";
}

std::string GroupedBarChart(const std::vector<BarGroup>& groups,
                            const std::vector<std::pair<std::string, std::string>>& legend,
                            int width) {
  const double bar = 16, gap = 10, top = 26;
  double rows = 0, most = 0;
  for (const BarGroup& g : groups) {
    rows += g.bars.size();
    for (const Bar& b : g.bars) most = std::max(most, b.value);
  }
  const int height = static_cast<int>(top + rows * bar + gap * groups.size() + 8);
  const double span = width - kLabelWidth - 230;  // room for "223.8 µs (28.0 µs/sample)  x2.44"
  std::string svg = Open(width, height);
  double x = 10;
  for (const auto& [name, color] : legend) {
    svg += Rect(x, 8, 12, 12, color, name);
    svg += Text(x + 16, 18, name);
    x += 24 + 7.0 * name.size();
  }
  double y = top;
  for (const BarGroup& g : groups) {
    svg += Text(kLabelWidth - 6, y + bar * g.bars.size() / 2 + 4, Elide(g.label, 46), "end");
    for (const Bar& b : g.bars) {
      if (!b.text.empty()) {
        const double w = most > 0 ? span * b.value / most : 0;
        svg += Rect(kLabelWidth, y + 1, w, bar - 2, b.color, b.title);
        svg += Text(kLabelWidth + w + 4, y + bar - 4, b.text);
      }
      y += bar;
    }
    y += gap;
  }
  return svg + "</svg>";
}

std::string RooflineChart(const std::vector<RooflinePoint>& points,
                          const std::vector<RooflineCeiling>& ceilings, int width, int height) {
  const double left = 64, right = 16, top = 16, bottom = 44;
  // Decades that hold every point and every ceiling's knee.
  double x_lo = 1e9, x_hi = 0, y_lo = 1e9, y_hi = 0;
  for (const RooflinePoint& p : points) {
    if (p.intensity <= 0 || p.gflops <= 0) continue;
    x_lo = std::min(x_lo, p.intensity), x_hi = std::max(x_hi, p.intensity);
    y_lo = std::min(y_lo, p.gflops), y_hi = std::max(y_hi, p.gflops);
  }
  for (const RooflineCeiling& c : ceilings) y_hi = std::max(y_hi, c.gflops);
  if (x_hi <= 0) x_lo = 0.1, x_hi = 100;
  if (y_hi <= 0) y_lo = 0.1, y_hi = 100;
  if (y_lo > y_hi) y_lo = y_hi / 100;
  const double lx0 = std::floor(std::log10(x_lo)), lx1 = std::ceil(std::log10(x_hi) + 1e-9);
  const double ly0 = std::floor(std::log10(y_lo)), ly1 = std::ceil(std::log10(y_hi * 1.5));
  const double pw = width - left - right, ph = height - top - bottom;
  auto X = [&](double v) { return left + pw * (std::log10(v) - lx0) / std::max(1.0, lx1 - lx0); };
  auto Y = [&](double v) {
    return top + ph - ph * (std::log10(v) - ly0) / std::max(1.0, ly1 - ly0);
  };
  std::string svg = Open(width, height);
  for (double d = lx0; d <= lx1; ++d) {
    const double x = X(std::pow(10, d));
    svg += "<line x1=\"" + Num(x) + "\" y1=\"" + Num(top) + "\" x2=\"" + Num(x) + "\" y2=\"" +
           Num(top + ph) + "\" stroke=\"#ddd\"/>";
    svg += Text(x, top + ph + 16, FormatNumber("%g", std::pow(10, d)), "middle");
  }
  for (double d = ly0; d <= ly1; ++d) {
    const double y = Y(std::pow(10, d));
    svg += "<line x1=\"" + Num(left) + "\" y1=\"" + Num(y) + "\" x2=\"" + Num(left + pw) +
           "\" y2=\"" + Num(y) + "\" stroke=\"#ddd\"/>";
    svg += Text(left - 6, y + 4, FormatNumber("%g", std::pow(10, d)), "end");
  }
  svg += Text(left + pw / 2, height - 8, "arithmetic intensity (FLOPs per byte moved)", "middle");
  svg += Text(14, top + ph / 2, "GFLOP/s", "middle",
              (" transform=\"rotate(-90 14 " + Num(top + ph / 2) + ")\"").c_str());
  // The roof: the lowest of the ceilings at each intensity.
  const double x_min = std::pow(10, lx0), x_max = std::pow(10, lx1);
  double label_y = top + 12;
  for (const RooflineCeiling& c : ceilings) {
    std::string path;
    const int samples = 64;
    for (int i = 0; i <= samples; ++i) {
      const double xi = x_min * std::pow(x_max / x_min, static_cast<double>(i) / samples);
      double g = c.gflops > 0 ? c.gflops : c.bandwidth_gbs * xi;
      if (c.bandwidth_gbs > 0) {
        for (const RooflineCeiling& peak : ceilings) {
          if (peak.gflops > 0) g = std::min(g, peak.gflops);
        }
      }
      const double gy = std::clamp(g, std::pow(10, ly0), std::pow(10, ly1));
      path += (i ? " L" : "M") + Num(X(xi)) + " " + Num(Y(gy));
    }
    svg += "<path d=\"" + path + "\" fill=\"none\" stroke=\"" + c.color +
           "\" stroke-width=\"2\" stroke-dasharray=\"6 3\"/>";
    svg += "<text x=\"" + Num(left + 8) + "\" y=\"" + Num(label_y) + "\" fill=\"" + c.color +
           "\">" + Escape(c.label) + "</text>";
    label_y += 14;
  }
  for (const RooflinePoint& p : points) {
    if (p.intensity <= 0 || p.gflops <= 0) continue;
    svg += "<circle cx=\"" + Num(X(p.intensity)) + "\" cy=\"" + Num(Y(p.gflops)) + "\" r=\"" +
           Num(p.radius) + "\" fill=\"" + p.color + "\" fill-opacity=\"0.7\" stroke=\"#333\" " +
           "stroke-width=\"0.5\"><title>" + Escape(p.title) + "</title></circle>";
  }
  return svg + "</svg>";
}

std::string AgreementChart(const std::vector<AgreementPoint>& points, const std::string& unit,
                           double band, int width, int height) {
  const double left = 64, right = 16, top = 16, bottom = 44;
  double lo = 1e300, hi = 0;
  for (const AgreementPoint& p : points) {
    if (p.measured <= 0 || p.predicted <= 0) continue;
    lo = std::min({lo, p.measured, p.predicted});
    hi = std::max({hi, p.measured, p.predicted});
  }
  if (hi <= 0) lo = 0.1, hi = 100;
  const double l0 = std::floor(std::log10(lo)), l1 = std::ceil(std::log10(hi) + 1e-9);
  const double span = std::max(1.0, l1 - l0);
  const double pw = width - left - right, ph = height - top - bottom;
  auto X = [&](double v) { return left + pw * (std::log10(v) - l0) / span; };
  auto Y = [&](double v) { return top + ph - ph * (std::log10(v) - l0) / span; };
  std::string svg = Open(width, height);
  for (double d = l0; d <= l1; ++d) {
    const double v = std::pow(10, d);
    svg += "<line x1=\"" + Num(X(v)) + "\" y1=\"" + Num(top) + "\" x2=\"" + Num(X(v)) + "\" y2=\"" +
           Num(top + ph) + "\" stroke=\"#ddd\"/>";
    svg += "<line x1=\"" + Num(left) + "\" y1=\"" + Num(Y(v)) + "\" x2=\"" + Num(left + pw) +
           "\" y2=\"" + Num(Y(v)) + "\" stroke=\"#ddd\"/>";
    svg += Text(X(v), top + ph + 16, FormatNumber("%g", v), "middle");
    svg += Text(left - 6, Y(v) + 4, FormatNumber("%g", v), "end");
  }
  svg += Text(left + pw / 2, height - 8, "measured " + unit, "middle");
  svg += Text(14, top + ph / 2, "predicted " + unit, "middle",
              (" transform=\"rotate(-90 14 " + Num(top + ph / 2) + ")\"").c_str());
  const double a = std::pow(10, l0), b = std::pow(10, l1);
  svg += "<line x1=\"" + Num(X(a)) + "\" y1=\"" + Num(Y(a)) + "\" x2=\"" + Num(X(b)) + "\" y2=\"" +
         Num(Y(b)) + "\" stroke=\"#555\"/>";
  for (double f : {1 + band, 1 - band}) {
    svg += "<line x1=\"" + Num(X(a)) + "\" y1=\"" + Num(Y(a * f)) + "\" x2=\"" +
           Num(X(b / (f > 1 ? f : 1))) + "\" y2=\"" + Num(Y(b / (f > 1 ? f : 1) * f)) +
           "\" stroke=\"#999\" stroke-dasharray=\"5 3\"/>";
  }
  svg += Text(left + 8, top + 12, FormatNumber("dashed: +-%.0f%%", 100 * band), "start");
  for (const AgreementPoint& p : points) {
    if (p.measured <= 0 || p.predicted <= 0) continue;
    svg += "<circle cx=\"" + Num(X(p.measured)) + "\" cy=\"" + Num(Y(p.predicted)) +
           "\" r=\"4.5\" fill=\"" + p.color + "\" fill-opacity=\"0.75\" stroke=\"#333\" " +
           "stroke-width=\"0.5\"><title>" + Escape(p.title) + "</title></circle>";
  }
  return svg + "</svg>";
}

namespace {

// A round axis top above `max` and its step: 1, 2 or 5 times a power of ten, about 5 ticks.
std::pair<double, double> AxisTop(double max) {
  if (!(max > 0)) max = 1;
  const double raw = max / 5, power = std::pow(10, std::floor(std::log10(raw)));
  const double step = raw / power < 2 ? 2 * power : raw / power < 5 ? 5 * power : 10 * power;
  return {step * std::ceil(max / step), step};
}

}  // namespace

std::string ScatterChart(const std::vector<ScatterPoint>& points, const std::string& x_label,
                         const std::string& y_label, int width, int height) {
  const double left = 64, right = 90, top = 14, bottom = 40;
  const double pw = width - left - right, ph = height - top - bottom;
  double x_max = 0, y_max = 0;
  for (const ScatterPoint& p : points) x_max = std::max(x_max, p.x), y_max = std::max(y_max, p.y);
  const std::pair<double, double> x_axis = AxisTop(x_max), y_axis = AxisTop(y_max);
  const double x_top = x_axis.first, x_step = x_axis.second;
  const double y_top = y_axis.first, y_step = y_axis.second;
  auto X = [&](double v) { return left + pw * v / x_top; };
  auto Y = [&](double v) { return top + ph - ph * v / y_top; };
  std::string svg = Open(width, height);
  for (double v = 0; v <= y_top + y_step / 2; v += y_step) {
    svg += "<line x1=\"" + Num(left) + "\" y1=\"" + Num(Y(v)) + "\" x2=\"" + Num(left + pw) +
           "\" y2=\"" + Num(Y(v)) + "\" stroke=\"#ddd\"/>";
    svg += Text(left - 4, Y(v) + 4, FormatNumber("%g", v), "end");
  }
  for (double v = 0; v <= x_top + x_step / 2; v += x_step) {
    svg += "<line x1=\"" + Num(X(v)) + "\" y1=\"" + Num(top) + "\" x2=\"" + Num(X(v)) + "\" y2=\"" +
           Num(top + ph) + "\" stroke=\"#ddd\"/>";
    svg += Text(X(v), top + ph + 14, FormatNumber("%g", v), "middle");
  }
  svg += Text(left + pw / 2, height - 6, x_label, "middle");
  svg += Text(14, top + ph / 2, y_label, "middle",
              (" transform=\"rotate(-90 14 " + Num(top + ph / 2) + ")\"").c_str());
  std::vector<std::string> colors;
  for (const ScatterPoint& p : points) {
    if (std::find(colors.begin(), colors.end(), p.color) == colors.end()) colors.push_back(p.color);
  }
  for (const std::string& color : colors) {
    std::vector<const ScatterPoint*> front;
    for (const ScatterPoint& p : points) {
      if (p.front && p.color == color) front.push_back(&p);
    }
    std::sort(front.begin(), front.end(),
              [](const ScatterPoint* a, const ScatterPoint* b) { return a->x < b->x; });
    std::string path;
    for (const ScatterPoint* p : front) {
      path += (path.empty() ? "M" : " L") + Num(X(p->x)) + " " + Num(Y(p->y));
    }
    if (front.size() > 1) {
      svg += "<path d=\"" + path + "\" fill=\"none\" stroke=\"" + color +
             "\" stroke-width=\"1.5\" stroke-dasharray=\"5 3\"/>";
    }
  }
  for (const ScatterPoint& p : points) {
    svg += "<circle cx=\"" + Num(X(p.x)) + "\" cy=\"" + Num(Y(p.y)) + "\" r=\"" +
           (p.front ? "5.5" : "4") + "\" fill=\"" + p.color + "\"" +
           (p.front ? " stroke=\"#222\" stroke-width=\"1.5\"" : "") + "><title>" + Escape(p.title) +
           "</title></circle>";
    svg += Text(X(p.x) + 7, Y(p.y) + 4, p.label, "start", " font-size=\"11\"");
  }
  return svg + "</svg>";
}

std::string LineChart(const std::vector<std::string>& categories,
                      const std::vector<LineSeries>& series, const std::string& x_label,
                      const std::string& y_label, int width, int height) {
  const double left = 58, right = 12, top = 14, bottom = 40;
  const double pw = width - left - right, ph = height - top - bottom;
  double y_max = 0;
  for (const LineSeries& s : series) {
    for (double v : s.y) {
      if (std::isfinite(v)) y_max = std::max(y_max, v);
    }
  }
  const std::pair<double, double> axis = AxisTop(y_max);
  const double y_top = axis.first, step = axis.second;
  const size_t n = std::max<size_t>(categories.size(), 1);
  auto X = [&](size_t i) { return left + pw * (n == 1 ? 0.5 : static_cast<double>(i) / (n - 1)); };
  auto Y = [&](double v) { return top + ph - ph * v / y_top; };
  std::string svg = Open(width, height);
  for (double v = 0; v <= y_top + step / 2; v += step) {
    svg += "<line x1=\"" + Num(left) + "\" y1=\"" + Num(Y(v)) + "\" x2=\"" + Num(left + pw) +
           "\" y2=\"" + Num(Y(v)) + "\" stroke=\"#ddd\"/>";
    svg += Text(left - 4, Y(v) + 4, FormatNumber("%g", v), "end");
  }
  for (size_t i = 0; i < categories.size(); ++i) {
    svg += Text(X(i), top + ph + 14, categories[i], "middle");
  }
  svg += Text(left + pw / 2, height - 6, x_label, "middle");
  svg += Text(12, top + ph / 2, y_label, "middle",
              (" transform=\"rotate(-90 12 " + Num(top + ph / 2) + ")\"").c_str());
  for (const LineSeries& s : series) {
    std::string path;
    for (size_t i = 0; i < s.y.size() && i < categories.size(); ++i) {
      if (!std::isfinite(s.y[i])) continue;
      path += (path.empty() ? "M" : " L") + Num(X(i)) + " " + Num(Y(s.y[i]));
    }
    if (!path.empty()) {
      svg +=
          "<path d=\"" + path + "\" fill=\"none\" stroke=\"" + s.color + "\" stroke-width=\"2\"/>";
    }
    for (size_t i = 0; i < s.y.size() && i < categories.size(); ++i) {
      if (!std::isfinite(s.y[i])) {
        svg += Text(X(i), Y(0) - 4, "x", "middle", " fill=\"#c0392b\"");
        continue;
      }
      const bool doubtful = i < s.unreliable.size() && s.unreliable[i];
      svg += "<circle cx=\"" + Num(X(i)) + "\" cy=\"" + Num(Y(s.y[i])) +
             (doubtful ? "\" r=\"4.5\" fill=\"#fff\" stroke-dasharray=\"2 2\" stroke=\""
                       : "\" r=\"3.5\" fill=\"") +
             s.color + "\">" +
             (i < s.titles.size() ? "<title>" + Escape(s.titles[i]) + "</title>" : "") +
             "</circle>";
    }
  }
  return svg + "</svg>";
}

}  // namespace ntpb::report
