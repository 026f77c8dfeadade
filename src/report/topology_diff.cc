#include "ntpbench/topology_diff.h"

#include <map>

#include "ntpbench/report.h"
#include "ntpbench/results.h"
#include "src/common/format_number.h"
#include "src/report/step_alignment.h"
#include "src/report/text_table.h"

namespace ntpb {

namespace {

// The topology's layers as steps, so the run comparison's alignment serves here too.
RunMeasurement AsSteps(const DiffSide& side) {
  RunMeasurement m;
  for (size_t i = 0; i < side.topology.layers.size(); ++i) {
    const ResolvedLayer& l = side.topology.layers[i];
    const Cost& c = side.analysis.layers[i].cost;
    StepMeasure s;
    s.name = l.name;
    s.op = l.op;
    s.order = static_cast<int>(i);
    s.layers = {l.name};
    if (!l.output_shapes.empty()) s.shape = ShapeToString(l.output_shapes[0]);
    s.cost = {static_cast<double>(c.flops),        static_cast<double>(c.params),
              static_cast<double>(c.weight_bytes), static_cast<double>(c.input_bytes),
              static_cast<double>(c.output_bytes), static_cast<double>(c.weight_traffic_bytes)};
    m.steps.push_back(std::move(s));
  }
  return m;
}

// Attributes that differ, "kernel [3, 3] -> [1, 1]"; "" when none.
std::string AttrChanges(const ResolvedLayer& a, const ResolvedLayer& b) {
  std::string out;
  const nlohmann::json& x = a.attrs.json();
  const nlohmann::json& y = b.attrs.json();
  std::map<std::string, int> keys;
  for (auto it = x.begin(); it != x.end(); ++it) keys[it.key()] |= 1;
  for (auto it = y.begin(); it != y.end(); ++it) keys[it.key()] |= 2;
  for (const auto& [key, where] : keys) {
    const std::string before = where & 1 ? x[key].dump() : "-";
    const std::string after = where & 2 ? y[key].dump() : "-";
    if (before != after) out += (out.empty() ? "" : "; ") + key + " " + before + " -> " + after;
  }
  return out;
}

std::string Names(const DiffSide& side, const std::vector<int>& layers) {
  std::string out;
  for (int l : layers) out += (out.empty() ? "" : " + ") + side.topology.layers[l].name;
  return out;
}

Cost SumCost(const DiffSide& side, const std::vector<int>& layers) {
  Cost c;
  for (int l : layers) c += side.analysis.layers[l].cost;
  return c;
}

}  // namespace

std::string FormatTopologyDiff(const DiffSide& a, const DiffSide& b,
                               const TopologyDiffOptions& options, int* differences) {
  const RunMeasurement ma = AsSteps(a), mb = AsSteps(b);
  const std::vector<report::AlignedSteps> rows = report::AlignSteps(ma, mb);
  std::vector<std::vector<std::string>> cells;
  std::map<std::string, int> counts;
  for (const report::AlignedSteps& r : rows) {
    std::string status, detail;
    const Cost ca = SumCost(a, r.a), cb = SumCost(b, r.b);
    if (r.b.empty()) {
      status = "removed";
    } else if (r.a.empty()) {
      status = "added";
    } else if (r.a.size() != 1 || r.b.size() != 1) {
      status = "regrouped";
    } else {
      const ResolvedLayer& la = a.topology.layers[r.a[0]];
      const ResolvedLayer& lb = b.topology.layers[r.b[0]];
      const Shape sa = la.output_shapes.empty() ? Shape{} : la.output_shapes[0];
      const Shape sb = lb.output_shapes.empty() ? Shape{} : lb.output_shapes[0];
      const std::string attrs = AttrChanges(la, lb);
      if (la.op != lb.op) {
        status = "other op";
        detail = la.op + " -> " + lb.op;
      } else if (sa != sb || ca.params != cb.params) {
        status = "resized";
        if (sa != sb) detail = ShapeToString(sa) + " -> " + ShapeToString(sb);
        if (ca.params != cb.params && attrs.find("bias") != std::string::npos) {
          detail += std::string(detail.empty() ? "" : "; ") + "bias";
        }
      } else if (!attrs.empty()) {
        status = "re-parameterised";
        detail = attrs;
      } else {
        status = "same";
      }
    }
    ++counts[status];
    if (status == "same" && !options.all) continue;
    // "9.41 k -> 9.47 k" where the sides differ, one number where they agree.
    auto pair = [&](double x, double y) {
      if (r.a.empty()) return FormatCount(y);
      if (r.b.empty() || x == y) return FormatCount(x);
      return FormatCount(x) + " -> " + FormatCount(y);
    };
    const std::string op =
        !r.a.empty() ? a.topology.layers[r.a[0]].op : b.topology.layers[r.b[0]].op;
    const bool by_shape = r.by == report::AlignedSteps::By::kOpShape;
    cells.push_back({r.a.empty() ? "-" : Names(a, r.a),
                     (r.b.empty() ? "-" : Names(b, r.b)) + (by_shape ? " *" : ""), op, status,
                     pair(static_cast<double>(ca.params), static_cast<double>(cb.params)),
                     pair(static_cast<double>(ca.flops), static_cast<double>(cb.flops)), detail});
  }
  const std::vector<std::string> header = {"A layer", "B layer", "op",          "status",
                                           "params",  "FLOPs",   "what changed"};
  std::string out = "A: " + a.label + "  (" + a.topology.name + ", " +
                    std::to_string(a.topology.layers.size()) + " layers)\nB: " + b.label + "  (" +
                    b.topology.name + ", " + std::to_string(b.topology.layers.size()) +
                    " layers)\n\n";
  if (options.markdown) {
    auto line = [](const std::vector<std::string>& row) {
      std::string l = "|";
      for (const std::string& c : row) l += " " + c + " |";
      return l + "\n";
    };
    out += line(header) + "|";
    for (size_t i = 0; i < header.size(); ++i) out += i == 4 || i == 5 ? " ---: |" : " --- |";
    out += "\n";
    for (const auto& row : cells) out += line(row);
  } else if (!cells.empty()) {
    report::TextTable table(header);
    for (auto row : cells) {
      row[0] = report::Elide(row[0], 24);
      row[1] = report::Elide(row[1], 26);
      row[6] = report::Elide(row[6], 24);
      table.Add(row);
    }
    out += table.Render({true, true, true, true, false, false, true});
  }
  const Cost& ta = a.analysis.total;
  const Cost& tb = b.analysis.total;
  report::TextTable totals({"", "A", "B", "B / A"});
  auto total_row = [&](const char* what, double x, double y, bool bytes) {
    totals.Add({what, bytes ? FormatBytes(x) : FormatCount(x),
                bytes ? FormatBytes(y) : FormatCount(y), x > 0 ? FormatNumber("%.3f", y / x) : ""});
  };
  total_row("layers", static_cast<double>(a.topology.layers.size()),
            static_cast<double>(b.topology.layers.size()), false);
  total_row("params", static_cast<double>(ta.params), static_cast<double>(tb.params), false);
  total_row("FLOPs", static_cast<double>(ta.flops), static_cast<double>(tb.flops), false);
  total_row("weights", static_cast<double>(ta.weight_bytes), static_cast<double>(tb.weight_bytes),
            true);
  total_row("activations moved", static_cast<double>(ta.input_bytes + ta.output_bytes),
            static_cast<double>(tb.input_bytes + tb.output_bytes), true);
  total_row("peak activations", static_cast<double>(a.analysis.peak_activation_bytes),
            static_cast<double>(b.analysis.peak_activation_bytes), true);
  out += "\n" + totals.Render(1);
  std::string summary;
  int differing = 0;
  for (const auto& [status, n] : counts) {
    summary += (summary.empty() ? "" : ", ") + std::to_string(n) + " " + status;
    if (status != "same") differing += n;
  }
  out += "rows: " + summary + (options.all ? "" : " (same rows hidden; --all shows them)") +
         "\n* aligned by op and output shape (the names differ)\n";
  if (differences) *differences = differing;
  return out;
}

}  // namespace ntpb
