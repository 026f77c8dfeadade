// Audio files for a topology's audio input (`ntpbench run --input audio=speech.wav`): read
// through libsndfile (WAV, FLAC, AIFF, ...), mixed down to mono, as floats in [-1, 1].
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ntpb::cli {

struct Audio {
  std::vector<float> samples;
  int64_t sample_rate = 0;
  int channels = 0;  // in the file (the samples are their mean)
};

// Throws ntpb::Error naming the file when libsndfile cannot read it or it holds nothing.
Audio ReadAudioFile(const std::string& path);

}  // namespace ntpb::cli
