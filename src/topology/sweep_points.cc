// A sweep's points: checked against the topology, then one factor at a time, a grid, or a list.
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <iterator>
#include <set>

#include "ntpbench/error.h"
#include "ntpbench/precision.h"
#include "ntpbench/sweep.h"
#include "src/common/format_number.h"

namespace ntpb {
namespace {

constexpr std::size_t kMaxPoints = 10000;  // run one after another: more is a mistake
constexpr long long kMaxThreads = 4096;    // as `run --threads`

bool IsRunSetting(const std::string& name) {
  return std::find(std::begin(kSweepRunSettings), std::end(kSweepRunSettings), name) !=
         std::end(kSweepRunSettings);
}

class PointMaker {
 public:
  PointMaker(const Sweep& s, const Topology& t, const std::vector<SweepSetting>& settings)
      : s_(s), t_(t), settings_(settings) {}

  std::vector<SweepPoint> Make() {
    for (const auto& [name, value] : s_.base) CheckSetting(name, value, "base." + name);
    for (size_t i = 0; i < s_.factors.size(); ++i) {
      const SweepFactor& f = s_.factors[i];
      const std::string where = "factors[" + std::to_string(i) + "]";
      for (size_t v = 0; v < f.values.size(); ++v) {
        CheckSetting(f.name, f.values[v], where + ".values[" + std::to_string(v) + "]");
      }
    }
    for (size_t i = 0; i < s_.points.size(); ++i) {
      for (const auto& [name, value] : s_.points[i]) {
        CheckSetting(name, value, "points[" + std::to_string(i) + "]." + name);
      }
    }
    std::vector<SweepPoint> points;
    switch (s_.mode) {
      case SweepMode::kOneAtATime:
        points.push_back(Point({}, ""));
        for (const SweepFactor& f : s_.factors) {
          for (const std::string& v : f.values) {
            if (v == BaseValue(f.name)) continue;  // that is the base point
            points.push_back(Point({{f.name, v}}, f.name));
          }
        }
        break;
      case SweepMode::kGrid: {
        double count = 1;
        for (const SweepFactor& f : s_.factors) count *= f.values.size();
        if (count > kMaxPoints) TooMany(count);
        std::vector<size_t> index(s_.factors.size(), 0);
        for (;;) {
          std::map<std::string, std::string> chosen;
          for (size_t i = 0; i < s_.factors.size(); ++i) {
            chosen[s_.factors[i].name] = s_.factors[i].values[index[i]];
          }
          points.push_back(Point(chosen, ""));
          size_t k = s_.factors.size();
          while (k > 0 && ++index[k - 1] == s_.factors[k - 1].values.size()) index[--k] = 0;
          if (k == 0) break;
        }
        break;
      }
      case SweepMode::kPoints:
        for (const auto& p : s_.points) points.push_back(Point(p, ""));
        break;
    }
    if (points.size() > kMaxPoints) TooMany(static_cast<double>(points.size()));
    const std::string base_id = Point({}, "").id;
    for (SweepPoint& p : points) p.base = p.id == base_id;
    std::set<std::string> ids;
    for (const SweepPoint& p : points) {
      if (!ids.insert(p.id).second) {
        throw Error(s_.file, "", "points", "the point " + p.id + " is listed twice");
      }
    }
    return points;
  }

 private:
  [[noreturn]] void TooMany(double count) const {
    throw Error(s_.file, "", "factors",
                "the sweep has " +
                    (count < 1e15 ? std::to_string(static_cast<long long>(count))
                                  : FormatNumber("%.3g", count)) +
                    " points; at most " + std::to_string(kMaxPoints) +
                    " (one-at-a-time needs far fewer than a grid)");
  }

  const SweepSetting* Further(const std::string& name) const {
    for (const SweepSetting& s : settings_) {
      if (s.name == name) return &s;
    }
    return nullptr;
  }

  // Every setting a run needs: the topology's defaults are the params' base values.
  std::string BaseValue(const std::string& name) const {
    auto it = s_.base.find(name);
    if (it != s_.base.end()) return it->second;
    if (Further(name)) {  // the run's default is not known here: the factor's first value
      for (const SweepFactor& f : s_.factors) {
        if (f.name == name && !f.values.empty()) return f.values.front();
      }
      return "";
    }
    if (name == "backend") return "eigen";
    if (name == "precision") return "f32";
    if (name == "batch") return "1";
    if (name == "threads") return "0";
    auto p = t_.params.find(name);
    return p == t_.params.end() ? "" : std::to_string(p->second);
  }

  SweepPoint Point(const std::map<std::string, std::string>& chosen, const std::string& varied) {
    SweepPoint p;
    p.varied = varied;
    for (const char* setting : kSweepRunSettings) p.settings[setting] = BaseValue(setting);
    for (const auto& [name, value] : s_.base) p.settings[name] = value;
    for (const SweepFactor& f : s_.factors) p.settings[f.name] = BaseValue(f.name);
    for (const auto& [name, value] : chosen) p.settings[name] = value;
    for (const SweepFactor& f : s_.factors) {
      p.id += (p.id.empty() ? "" : ",") + f.name + "=" + p.settings[f.name];
    }
    return p;
  }

  void CheckSetting(const std::string& name, const std::string& value,
                    const std::string& field) const {
    if (const SweepSetting* further = Further(name)) {
      try {
        further->check(value, field);
      } catch (const Error& e) {
        throw Error(s_.file, "", field, e.message());
      }
      return;
    }
    if (!IsRunSetting(name) && !t_.params.count(name) && name != "T") {
      std::string known = "backend, precision, batch, threads";
      for (const SweepSetting& s : settings_) known += ", " + s.name;
      for (const auto& p : t_.params) known += ", " + p.first;
      throw Error(s_.file, "", field,
                  "'" + name + "' is neither a run setting nor a param of " + t_.name + " (" +
                      t_.file + "; settings: " + known + ")");
    }
    if (name == "backend") return;  // the runner knows the backends
    if (name == "precision") {
      try {
        ParsePrecision(value, field);
      } catch (const Error& e) {
        throw Error(s_.file, "", field, e.message());
      }
      return;
    }
    char* end = nullptr;
    errno = 0;
    const long long n = std::strtoll(value.c_str(), &end, 10);
    const bool positive_only = name == "batch" || name == "T";
    if (value.empty() || *end != '\0' || errno == ERANGE || (positive_only && n <= 0) ||
        (name == "threads" && (n < 0 || n > kMaxThreads))) {
      throw Error(
          s_.file, "", field,
          "'" + name + "' takes " +
              (name == "threads"
                   ? "a thread count from 0 (one per core) to " + std::to_string(kMaxThreads)
               : positive_only ? "a positive integer"
                               : "an integer") +
              (errno == ERANGE ? " (this one is past 64 bits)" : "") + ", got '" + value + "'");
    }
  }

  const Sweep& s_;
  const Topology& t_;
  const std::vector<SweepSetting>& settings_;
};

}  // namespace

std::vector<SweepPoint> SweepPoints(const Sweep& sweep, const Topology& topology,
                                    const std::vector<SweepSetting>& settings) {
  return PointMaker(sweep, topology, settings).Make();
}

}  // namespace ntpb
