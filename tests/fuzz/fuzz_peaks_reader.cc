// libFuzzer target: any bytes as the machine's ceilings file (`ntpbench machine`'s cache under
// ~/.cache/ntpbench/machine/, read by every run that draws a roofline). A damaged cache is read
// as absent (measured again) or is an ntpb::Error; anything else is a finding.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "ntpbench/error.h"
#include "ntpbench/machine_peaks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The reader takes a path: the bytes go through a file of this process's own.
  static const std::string path = "/tmp/ntpb_fuzz_peaks_" + std::to_string(getpid()) + ".json";
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
  } else {
    return 0;
  }
  try {
    (void)ntpb::ReadMachinePeaks(path);
  } catch (const ntpb::Error&) {
  }
  return 0;
}
