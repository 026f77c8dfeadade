// Shared by the PAPI and SDE sources: one PAPI_library_init per process, and event sets.
#pragma once

#include <string>
#include <vector>

#include "src/instrument/pmu_probe.h"

namespace ntpb::instrument {

// Initializes PAPI once; false with the reason when it cannot.
bool EnsurePapi(std::string* reason);

// A started PAPI event set over named events of one component.
class PapiEventSet {
 public:
  PapiEventSet() = default;
  ~PapiEventSet();
  PapiEventSet(const PapiEventSet&) = delete;
  PapiEventSet& operator=(const PapiEventSet&) = delete;

  // Adds an event by code; returns the PAPI error code (PAPI_OK = 0).
  int Add(int code);
  int size() const { return static_cast<int>(codes_.size()); }
  bool Start();
  void Stop();
  // Cumulative counts since Start, one per added event.
  void Read(long long* values);

 private:
  int set_ = -1;  // PAPI_NULL
  bool running_ = false;
  std::vector<int> codes_;
};

}  // namespace ntpb::instrument
