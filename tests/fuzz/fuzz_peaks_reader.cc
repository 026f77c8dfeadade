// libFuzzer target: any bytes as the machine's ceilings file (`ntpbench machine`'s cache under
// ~/.cache/ntpbench/machine/, read by every run that draws a roofline). A damaged cache is read
// as absent (measured again) or is an ntpb::Error; anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "ntpbench/error.h"
#include "ntpbench/machine_peaks.h"
#include "tests/fuzz/bytes_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = ntpb::fuzz::BytesFile("ntpb_fuzz_peaks", data, size);
  if (path.empty()) return 0;
  try {
    (void)ntpb::ReadMachinePeaks(path);
  } catch (const ntpb::Error&) {
  }
  return 0;
}
