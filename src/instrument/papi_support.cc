#include "src/instrument/papi_support.h"

#include <papi.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>

namespace ntpb::instrument {

bool EnsurePapi(std::string* reason) {
  static std::string failure;
  static std::once_flag once;
  std::call_once(once, [] {
    const int rc = PAPI_library_init(PAPI_VER_CURRENT);
    if (rc != PAPI_VER_CURRENT) {
      failure = std::string("PAPI_library_init failed: ") +
                (rc > 0 ? "version mismatch" : PAPI_strerror(rc));
    }
  });
  if (!failure.empty()) *reason = failure;
  return failure.empty();
}

PapiEventSet::~PapiEventSet() {
  if (set_ == PAPI_NULL) return;
  Stop();
  PAPI_cleanup_eventset(set_);
  PAPI_destroy_eventset(&set_);
}

int PapiEventSet::Add(int code) {
  if (set_ == PAPI_NULL) {
    const int rc = PAPI_create_eventset(&set_);
    if (rc != PAPI_OK) return rc;
  }
  const int rc = PAPI_add_event(set_, code);
  if (rc == PAPI_OK) codes_.push_back(code);
  return rc;
}

bool PapiEventSet::Start() {
  if (set_ == PAPI_NULL || running_) return running_;
  running_ = PAPI_start(set_) == PAPI_OK;
  return running_;
}

void PapiEventSet::Stop() {
  if (!running_) return;
  std::vector<long long> ignored(codes_.size());
  PAPI_stop(set_, ignored.data());
  running_ = false;
}

void PapiEventSet::Read(long long* values) {
  if (running_) PAPI_read(set_, values);
}

}  // namespace ntpb::instrument
