// User-named PAPI events (presets like PAPI_TOT_CYC, native names like perf::TASK-CLOCK), one
// event set per PAPI component. A misspelled name is an error; an event that exists but cannot
// be counted here (no hardware PMU, component disabled) is dropped with a note.
#include <papi.h>

#include <map>

#include "ntpbench/error.h"
#include "src/instrument/papi_support.h"
#include "src/instrument/sources.h"

namespace ntpb::instrument {
namespace {

// The disabled component whose native events are named `prefix::...` (perf_event's are perf::
// and perf_raw::), or null.
const PAPI_component_info_t* DisabledComponentOf(const std::string& event) {
  const size_t sep = event.find("::");
  if (sep == std::string::npos) return nullptr;
  std::string prefix = event.substr(0, sep);
  if (prefix == "perf_raw") prefix = "perf";
  for (int i = 0; i < PAPI_num_components(); ++i) {
    const PAPI_component_info_t* info = PAPI_get_component_info(i);
    if (info && info->disabled && (prefix == info->short_name || prefix == info->name)) {
      return info;
    }
  }
  return nullptr;
}

class PapiSource : public CounterSource {
 public:
  std::string name() const override { return "papi"; }
  const std::vector<std::string>& metrics() const override { return metrics_; }

  void Add(const std::string& event, std::vector<CounterNote>* notes) {
    int code = 0;
    const int rc = PAPI_event_name_to_code(event.c_str(), &code);
    if (rc != PAPI_OK) {
      // A disabled component's native events do not exist at all (perf::TASK-CLOCK where
      // perf_event is disabled): unavailable here, not misspelled.
      if (const PAPI_component_info_t* off = DisabledComponentOf(event)) {
        notes->push_back({event, std::string("component ") + off->name +
                                     " is disabled: " + off->disabled_reason});
        return;
      }
      throw Error("", "", "counters",
                  "unknown PAPI event '" + event + "' (" + PAPI_strerror(rc) +
                      "; papi_avail and papi_native_avail list the events)");
    }
    const int component = PAPI_get_event_component(code);
    const PAPI_component_info_t* info = PAPI_get_component_info(component);
    const std::string comp_name = info ? info->name : "?";
    if (info && info->disabled) {
      notes->push_back(
          {event, "component " + comp_name + " is disabled: " + info->disabled_reason});
      return;
    }
    std::unique_ptr<PapiEventSet>& set = sets_[component];
    if (!set) set = std::make_unique<PapiEventSet>();
    const int add = set->Add(code);
    if (add == PAPI_ECNFLCT) {
      throw Error("", "", "counters",
                  "PAPI event '" + event + "' cannot be counted together with the others (" +
                      PAPI_strerror(add) +
                      "): more events than the PMU can count at once; ask for fewer");
    }
    if (add != PAPI_OK) {
      std::string reason = "component " + comp_name + ": " + PAPI_strerror(add);
      if (comp_name == "perf_event") {
        const std::string pmu = HardwarePmuProblem();
        if (!pmu.empty()) reason = "component perf_event: " + pmu;
      }
      notes->push_back({event, reason});
      return;
    }
    metrics_.push_back(event);
    order_.push_back({component, set->size() - 1});
  }

  void Start() override {
    for (auto& [component, set] : sets_) {
      buffers_[component].assign(static_cast<size_t>(set->size()), 0);
      set->Start();
    }
  }
  void Stop() override {
    for (auto& [component, set] : sets_) set->Stop();
  }
  void Read(double* values) override {
    for (auto& [component, set] : sets_) set->Read(buffers_[component].data());
    for (size_t i = 0; i < order_.size(); ++i) {
      values[i] = static_cast<double>(buffers_[order_[i].first][order_[i].second]);
    }
  }

 private:
  std::vector<std::string> metrics_;
  std::map<int, std::unique_ptr<PapiEventSet>> sets_;
  std::map<int, std::vector<long long>> buffers_;  // sized by Start, reused by Read
  std::vector<std::pair<int, int>> order_;         // (component, index) of each metric
};

}  // namespace

std::unique_ptr<CounterSource> MakePapiSource(const std::vector<std::string>& events,
                                              std::vector<CounterNote>* notes) {
  std::string reason;
  if (!EnsurePapi(&reason)) {
    for (const std::string& e : events) notes->push_back({e, reason});
    return nullptr;
  }
  auto source = std::make_unique<PapiSource>();
  for (const std::string& e : events) source->Add(e, notes);
  if (source->metrics().empty()) return nullptr;
  return source;
}

}  // namespace ntpb::instrument
