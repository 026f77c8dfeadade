// Counter sources: what is measured in each region (marker, layer, whole net) besides time.
//
// Sources are sampled at region boundaries (step boundaries of the executable) and report
// cumulative values; a region's counts are the difference between its end and start samples,
// so nested markers cost no extra reads. One file per source in src/instrument/.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ntpb {

// Analytic cost of one executed step; the sde source publishes it as PAPI software events.
struct StepCounts {
  int64_t flops = 0;
  int64_t bytes_read = 0;
  int64_t bytes_written = 0;
};

class CounterSource {
 public:
  virtual ~CounterSource() = default;
  virtual std::string name() const = 0;
  // Metric names, in the order Read() writes them (e.g. "page_faults", "PAPI_TOT_CYC").
  virtual const std::vector<std::string>& metrics() const = 0;
  // Called around the timed loop.
  virtual void Start() {}
  virtual void Stop() {}
  // Cumulative values since Start(), one per metric.
  virtual void Read(double* values) = 0;
  // After each executed step (only sources that count analytic work use it).
  virtual void OnStep(const StepCounts&) {}
  virtual bool wants_steps() const { return false; }
};

// What a counter request could not get, and why (reported once per process).
struct CounterNote {
  std::string what;    // event or source name
  std::string reason;  // e.g. "component perf_event: no hardware PMU (virtual machine)"
};

// The sources one benchmark measures with. Built from a request such as
// {"sde", "perf", "rusage", "memory", "PAPI_TOT_CYC", "perf::TASK-CLOCK"}: source names, and PAPI
// event names (presets PAPI_* or native names with "::").
class CounterSet {
 public:
  // Unknown source or misspelled event: throws ntpb::Error naming it. An event that exists but
  // cannot be counted here is left out with a note (printed once per process, on stderr).
  static std::unique_ptr<CounterSet> Create(const std::vector<std::string>& request);

  const std::vector<std::string>& metrics() const { return metrics_; }
  const std::vector<CounterNote>& notes() const { return notes_; }
  bool empty() const { return sources_.empty(); }
  bool wants_steps() const { return wants_steps_; }

  void Start();
  void Stop();
  void Read(double* values);
  void OnStep(const StepCounts& counts) {
    for (CounterSource* s : step_sources_) s->OnStep(counts);
  }

 private:
  std::vector<std::unique_ptr<CounterSource>> sources_;
  std::vector<CounterSource*> step_sources_;
  std::vector<std::string> metrics_;
  std::vector<CounterNote> notes_;
  bool wants_steps_ = false;
};

// Splits "sde,perf,PAPI_TOT_CYC" (the --ntpb_counters / $NTPB_COUNTERS syntax).
std::vector<std::string> ParseCounterList(const std::string& text);
// Why `item` names neither a counter source nor a PAPI event ("unknown counter source ..."), or
// "" when it does. CounterSet::Create and the CLI's option check use the same words.
std::string UnknownCounterProblem(const std::string& item);

// Prints "ntpbench: <what>: <reason>" on stderr the first time this `what` is seen in the
// process; returns whether it printed.
bool WarnOnce(const std::string& what, const std::string& reason);

// Heap allocations made by this process so far (operator new), for the memory source and for
// Google Benchmark's MemoryManager.
struct AllocationCounts {
  int64_t count = 0;
  int64_t bytes = 0;
};
AllocationCounts CurrentAllocations();

// The "memory" source's metrics, per region: heap allocations and bytes allocated. The
// network's pair becomes the results model's memory signature.
inline constexpr const char* kAllocationsMetric = "allocs";
inline constexpr const char* kAllocatedBytesMetric = "alloc_bytes";

}  // namespace ntpb
