#include <map>

#include "ntpbench/precision_report.h"
#include "ntpbench/report.h"
#include "src/common/format_number.h"
#include "src/report/text_table.h"

namespace ntpb {

std::string PrecisionGroup(const std::string& name, const std::string& precision) {
  std::string group = name;
  const std::string part = "/" + precision + "/";
  if (const size_t at = group.find(part); at != std::string::npos) group.erase(at, part.size() - 1);
  const std::string tail = "/real_time";
  if (group.size() > tail.size() &&
      group.compare(group.size() - tail.size(), tail.size(), tail) == 0) {
    group.erase(group.size() - tail.size());
  }
  return group;
}

std::string RenderPrecisionTable(const std::vector<PrecisionRun>& runs) {
  std::map<std::string, std::vector<const PrecisionRun*>> groups;
  std::vector<std::string> order;
  for (const PrecisionRun& r : runs) {
    if (r.measured.setup.precision.empty() || r.measured.scenario) continue;
    const std::string g = PrecisionGroup(r.name, r.measured.setup.precision);
    if (!groups.count(g)) order.push_back(g);
    groups[g].push_back(&r);
  }
  report::TextTable table({"configuration", "precision", "p50", "speed-up", "top-1", "top-5",
                           "logits err", "outputs err", "cosine"});
  bool any = false, disturbed = false;
  // A run the machine disturbed (results.h's judgement) gets its speed-up marked, not read.
  auto unreliable = [](const RunMeasurement& m) {
    return m.interference && !JudgeInterference(*m.interference).reliable;
  };
  for (const std::string& g : order) {
    const std::vector<const PrecisionRun*>& list = groups[g];
    if (list.size() < 2) continue;
    const PrecisionRun* f32 = nullptr;
    for (const PrecisionRun* r : list) {
      if (r->measured.setup.precision == "f32") f32 = r;
    }
    if (any) table.Rule();
    any = true;
    for (const PrecisionRun* r : list) {
      const RunMeasurement& m = r->measured;
      const double ms = m.net.p50_ms;
      const std::optional<OutputAccuracy>& a = m.accuracy;
      auto percent = [](double share) {
        return share >= 0 ? FormatNumber("%.1f%%", 100 * share) : std::string("-");
      };
      const bool doubtful = unreliable(m) || (f32 && unreliable(f32->measured));
      disturbed |= doubtful;
      table.Add({g, m.setup.precision, FormatTime(ms),
                 f32 && ms > 0 && f32 != r
                     ? FormatNumber("x%.2f", f32->measured.net.p50_ms / ms) + (doubtful ? "?" : "")
                 : f32 == r ? std::string("reference") + (doubtful ? "?" : "")
                            : "-",
                 a ? percent(a->top1_agreement) : "", a ? percent(a->top5_overlap) : "",
                 a && !a->logits.empty() ? FormatNumber("%.2e", a->logits_rms_rel_err) : "",
                 a ? FormatNumber("%.2e", a->rms_rel_err) : "",
                 a ? FormatNumber("%.6f", a->cosine) : ""});
    }
  }
  if (!any) return "";
  return "\nPrecisions: speed against accuracy (p50 per iteration; speed-up over the same "
         "configuration in f32;\nerrors ||x - ref|| / ||ref|| against the Eigen f32 reference, "
         "top-1 and top-5 on the argmax of the logits)\n" +
         table.Render() +
         (disturbed ? "? the machine disturbed this run or its f32 reference (see its verdict "
                      "above): the speed-up is shown, not to be read as the precision's\n"
                    : "");
}

}  // namespace ntpb
