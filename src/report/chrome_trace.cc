// The Chrome trace-event format: complete events ("ph": "X") with ts and dur in microseconds,
// counter events ("C") and metadata ("M") naming processes and threads.
#include "ntpbench/chrome_trace.h"

#include <algorithm>
#include <cmath>

namespace ntpb {

namespace {

using nlohmann::json;

const char* Category(StepKind kind) {
  switch (kind) {
    case StepKind::kInlay:
      return "inlay";
    case StepKind::kFused:
      return "fused";
    default:
      return "layer";
  }
}

double Us(int64_t ns, int64_t origin) { return std::round((ns - origin) / 1e1) / 1e2; }

bool Nests(const MarkerMeasure& a, const MarkerMeasure& b) {
  const bool disjoint = a.last_step < b.first_step || b.last_step < a.first_step;
  const bool a_in_b = a.first_step >= b.first_step && a.last_step <= b.last_step;
  const bool b_in_a = b.first_step >= a.first_step && b.last_step <= a.last_step;
  return disjoint || a_in_b || b_in_a;
}

}  // namespace

json EncodeChromeTrace(const std::vector<std::pair<std::string, const RunMeasurement*>>& runs) {
  int64_t origin = INT64_MAX;
  for (const auto& [name, m] : runs) {
    for (const auto& it : m->trace.iterations) {
      if (!it.empty()) origin = std::min(origin, it.front());
    }
  }
  json events = json::array();
  int pid = 0;
  for (const auto& [name, m] : runs) {
    ++pid;
    const RunTrace& trace = m->trace;
    const int64_t tid = trace.thread_id;
    events.push_back({{"name", "process_name"},
                      {"ph", "M"},
                      {"pid", pid},
                      {"tid", tid},
                      {"args", {{"name", name}}}});
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", pid},
                      {"tid", tid},
                      {"args", {{"name", "steps (the thread that ran them)"}}}});
    // Markers that nest with each other enclose their steps; one that overlaps another gets a
    // track of its own.
    std::vector<const MarkerMeasure*> nested, apart;
    for (const MarkerMeasure& mk : m->markers) {
      if (mk.first_step < 0 || mk.last_step < mk.first_step ||
          mk.last_step >= static_cast<int>(m->steps.size())) {
        continue;
      }
      const bool nests = std::all_of(nested.begin(), nested.end(),
                                     [&](const MarkerMeasure* o) { return Nests(mk, *o); });
      (nests ? nested : apart).push_back(&mk);
    }
    // Outer markers first where they start together.
    std::stable_sort(nested.begin(), nested.end(), [](const auto* a, const auto* b) {
      return a->first_step != b->first_step ? a->first_step < b->first_step
                                            : a->last_step > b->last_step;
    });
    if (!apart.empty()) {
      events.push_back({{"name", "thread_name"},
                        {"ph", "M"},
                        {"pid", pid},
                        {"tid", tid + 1},
                        {"args", {{"name", "overlapping markers"}}}});
    }
    const size_t n = m->steps.size();
    for (size_t i = 0; i < trace.iterations.size(); ++i) {
      const std::vector<int64_t>& t = trace.iterations[i];
      if (t.size() != 2 * n || n == 0) continue;
      const double begin = Us(t.front(), origin), end = Us(t.back(), origin);
      events.push_back({{"name", "iteration " + std::to_string(i + 1)},
                        {"cat", "iteration"},
                        {"ph", "X"},
                        {"ts", begin},
                        {"dur", end - begin},
                        {"pid", pid},
                        {"tid", tid}});
      const double ms = (t.back() - t.front()) * 1e-6;
      events.push_back(
          {{"name", "iteration"},
           {"ph", "C"},
           {"ts", begin},
           {"pid", pid},
           {"args", {{"ms", ms}, {"GFLOP/s", ms > 0 ? m->net.flops / ms * 1e-6 : 0}}}});
      auto marker_event = [&](const MarkerMeasure& mk, int64_t on) {
        const double b = Us(t[2 * mk.first_step], origin), e = Us(t[2 * mk.last_step + 1], origin);
        return json{{"name", "[" + mk.name + "]"},
                    {"cat", "marker"},
                    {"ph", "X"},
                    {"ts", b},
                    {"dur", e - b},
                    {"pid", pid},
                    {"tid", on}};
      };
      size_t next_marker = 0;
      for (size_t s = 0; s < n; ++s) {
        while (next_marker < nested.size() &&
               nested[next_marker]->first_step == static_cast<int>(s)) {
          events.push_back(marker_event(*nested[next_marker++], tid));
        }
        const StepMeasure& step = m->steps[s];
        const double b = Us(t[2 * s], origin), e = Us(t[2 * s + 1], origin);
        json args = {{"op", step.kind == StepKind::kInlay ? step.inlay_op : step.op}};
        if (!step.shape.empty()) args["shape"] = step.shape;
        if (!step.kernel.empty()) args["kernel"] = step.kernel;
        if (step.layers.size() > 1) args["layers"] = step.layers;
        events.push_back({{"name", step.name},
                          {"cat", Category(step.kind)},
                          {"ph", "X"},
                          {"ts", b},
                          {"dur", e - b},
                          {"pid", pid},
                          {"tid", tid},
                          {"args", args}});
      }
      for (const MarkerMeasure* mk : apart) events.push_back(marker_event(*mk, tid + 1));
    }
  }
  return {{"traceEvents", events}, {"displayTimeUnit", "ms"}};
}

}  // namespace ntpb
