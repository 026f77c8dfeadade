// A program that links ntpbench::ntpbench but not ntpbench::allocation_counter keeps the standard
// operator new: nothing counts its allocations, and asking for the memory counters says why
// instead of reporting zero allocations. Exits 0 when that holds (a CTest test runs it).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "ntpbench/counters.h"

int main() {
  const auto before = ntpb::CurrentAllocations();
  auto* grown = new std::vector<int>(1000);  // would be counted with the replacement
  const auto after = ntpb::CurrentAllocations();
  delete grown;
  if (after.count != before.count) {
    std::fprintf(stderr, "operator new was replaced without ntpbench::allocation_counter\n");
    return 1;
  }
  const std::unique_ptr<ntpb::CounterSet> set = ntpb::CounterSet::Create({"memory"});
  if (!set->empty() || set->notes().size() != 1 ||
      set->notes()[0].reason.find("ntpbench::allocation_counter") == std::string::npos) {
    std::fprintf(stderr, "the memory counters did not say they are unavailable\n");
    return 1;
  }
  std::printf("memory: %s\n", set->notes()[0].reason.c_str());
  return 0;
}
