#include "src/cli/audio_file.h"

#include <sndfile.h>

#include "ntpbench/error.h"

namespace ntpb::cli {

Audio ReadAudioFile(const std::string& path) {
  SF_INFO info{};
  SNDFILE* file = sf_open(path.c_str(), SFM_READ, &info);
  if (!file) throw Error(path, "", "", std::string("cannot read audio: ") + sf_strerror(nullptr));
  // An hour at 384 kHz bounds what a header may claim before anything is allocated.
  constexpr sf_count_t kMaxFrames = sf_count_t{384000} * 3600;
  if (info.channels < 1 || info.channels > 64 || info.frames <= 0 || info.frames > kMaxFrames ||
      info.samplerate <= 0) {
    sf_close(file);
    throw Error(path, "", "",
                "not a usable audio file (" + std::to_string(info.channels) + " channels, " +
                    std::to_string(info.frames) + " frames)");
  }
  std::vector<float> interleaved(static_cast<size_t>(info.frames * info.channels));
  const sf_count_t read = sf_readf_float(file, interleaved.data(), info.frames);
  sf_close(file);
  if (read <= 0) throw Error(path, "", "", "the audio file holds no samples");
  Audio audio;
  audio.sample_rate = info.samplerate;
  audio.channels = info.channels;
  audio.samples.resize(static_cast<size_t>(read));
  for (sf_count_t i = 0; i < read; ++i) {
    double sum = 0;
    for (int c = 0; c < info.channels; ++c) sum += interleaved[i * info.channels + c];
    audio.samples[i] = static_cast<float>(sum / info.channels);
  }
  return audio;
}

}  // namespace ntpb::cli
