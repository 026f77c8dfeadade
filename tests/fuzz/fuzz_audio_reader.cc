// libFuzzer target: any bytes as a recording given to `run --input audio=FILE` (libsndfile reads
// WAV, FLAC, AIFF, ... by their headers). Only ntpb::Error may come out; anything else is a
// finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "ntpbench/error.h"
#include "src/cli/audio_file.h"
#include "tests/fuzz/bytes_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = ntpb::fuzz::BytesFile("ntpb_fuzz_audio", data, size);
  if (path.empty()) return 0;
  try {
    (void)ntpb::cli::ReadAudioFile(path);
  } catch (const ntpb::Error&) {
  }
  return 0;
}
