// Built in place of the PAPI and SDE sources when NTPBENCH_WITH_PAPI is OFF: each asks for
// them is answered with why not, as any unavailable counter is.
#include "src/instrument/sources.h"

namespace ntpb::instrument {
namespace {

const char* const kWhy =
    "this ntpbench was built without PAPI (configure with -DNTPBENCH_WITH_PAPI=ON, libpapi-dev "
    "installed)";

}  // namespace

std::unique_ptr<CounterSource> MakeSdeSource(std::string* reason) {
  *reason = kWhy;
  return nullptr;
}

std::unique_ptr<CounterSource> MakePapiSource(const std::vector<std::string>& events,
                                              std::vector<CounterNote>* notes) {
  for (const std::string& e : events) notes->push_back({e, kWhy});
  return nullptr;
}

}  // namespace ntpb::instrument
