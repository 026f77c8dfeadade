// ntpbench's own Software Defined Events, exported through PAPI's SDE library: any PAPI tool
// can read sde:::ntpbench::flops, ::bytes_read, ::bytes_written, ::steps while ntpbench runs.
// The runner adds each executed step's analytic counts; this source reads them back through an
// ordinary PAPI event set, so the real PAPI start/read/stop path is exercised even on machines
// without a hardware PMU.
#include <papi.h>
#include <sde_lib.h>

#include <atomic>
#include <mutex>

#include "ntpbench/counters.h"
#include "ntpbench/error.h"
#include "src/instrument/papi_support.h"
#include "src/instrument/sources.h"

namespace ntpb::instrument {
namespace {

// The exported counters: process-wide, as PAPI reads them by address.
long long g_flops = 0, g_bytes_read = 0, g_bytes_written = 0, g_steps = 0;

const char* const kNames[] = {"flops", "bytes_read", "bytes_written", "steps", "bytes_allocated"};
constexpr int kCount = 5;

// Bytes allocated through operator new so far (the allocation counter), read by PAPI on demand.
long long BytesAllocated(void*) { return static_cast<long long>(CurrentAllocations().bytes); }

void RegisterOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    papi_handle_t handle = papi_sde_init("ntpbench");
    long long* vars[] = {&g_flops, &g_bytes_read, &g_bytes_written, &g_steps};
    for (int i = 0; i < 4; ++i) {
      papi_sde_register_counter(handle, kNames[i], PAPI_SDE_RO | PAPI_SDE_DELTA, PAPI_SDE_long_long,
                                vars[i]);
    }
    papi_sde_register_counter_cb(handle, kNames[4], PAPI_SDE_RO | PAPI_SDE_DELTA,
                                 PAPI_SDE_long_long, BytesAllocated, nullptr);
  });
}

class SdeSource : public CounterSource {
 public:
  std::string name() const override { return "sde"; }
  const std::vector<std::string>& metrics() const override {
    static const std::vector<std::string> m = {"sde_flops", "sde_bytes_read", "sde_bytes_written",
                                               "sde_steps", "sde_bytes_allocated"};
    return m;
  }
  bool Init(std::string* reason) {
    RegisterOnce();
    if (!EnsurePapi(reason)) return false;
    for (const char* n : kNames) {
      int code = 0;
      const std::string event = std::string("sde:::ntpbench::") + n;
      int rc = PAPI_event_name_to_code(event.c_str(), &code);
      if (rc == PAPI_OK) rc = set_.Add(code);
      if (rc != PAPI_OK) {
        *reason = event + ": " + PAPI_strerror(rc) + " (PAPI's sde component)";
        return false;
      }
    }
    return true;
  }
  void Start() override { set_.Start(); }
  void Stop() override { set_.Stop(); }
  void Read(double* values) override {
    long long raw[kCount] = {};
    set_.Read(raw);
    for (int i = 0; i < kCount; ++i) values[i] = static_cast<double>(raw[i]);
  }
  bool wants_steps() const override { return true; }
  void OnStep(const StepCounts& c) override {
    g_flops += c.flops;
    g_bytes_read += c.bytes_read;
    g_bytes_written += c.bytes_written;
    ++g_steps;
  }

 private:
  PapiEventSet set_;
};

}  // namespace

std::unique_ptr<CounterSource> MakeSdeSource(std::string* reason) {
  auto source = std::make_unique<SdeSource>();
  if (!source->Init(reason)) return nullptr;
  return source;
}

}  // namespace ntpb::instrument
