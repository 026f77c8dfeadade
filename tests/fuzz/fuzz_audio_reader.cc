// libFuzzer target: any bytes as a recording given to `run --input audio=FILE` (libsndfile reads
// WAV, FLAC, AIFF, ... by their headers). Only ntpb::Error may come out; anything else is a
// finding.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "ntpbench/error.h"
#include "src/cli/audio_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // libsndfile reads a path: the bytes go through a file of this process's own.
  static const std::string path = "/tmp/ntpb_fuzz_audio_" + std::to_string(getpid()) + ".wav";
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
  } else {
    return 0;
  }
  try {
    (void)ntpb::cli::ReadAudioFile(path);
  } catch (const ntpb::Error&) {
  }
  return 0;
}
