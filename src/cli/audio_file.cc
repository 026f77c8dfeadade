#include "src/cli/audio_file.h"

#include <fcntl.h>
#include <sndfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <vector>

#include "ntpbench/error.h"

namespace ntpb::cli {

Audio ReadAudioFile(const std::string& path) {
  // Opened without blocking and checked to be a regular file first: libsndfile would wait on a
  // FIFO forever and read /dev/zero as a headerless stream.
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw Error(path, "", "", std::string("cannot read: ") + std::strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    throw Error(path, "", "", "cannot read audio: not a regular file");
  }
  SF_INFO info{};
  SNDFILE* file = sf_open_fd(fd, SFM_READ, &info, SF_TRUE);
  if (!file) throw Error(path, "", "", std::string("cannot read audio: ") + sf_strerror(nullptr));
  // An hour at 384 kHz bounds what a header may claim.
  constexpr sf_count_t kMaxFrames = sf_count_t{384000} * 3600;
  if (info.channels < 1 || info.channels > 64 || info.frames <= 0 || info.frames > kMaxFrames ||
      info.samplerate <= 0) {
    sf_close(file);
    throw Error(path, "", "",
                "not a usable audio file (" + std::to_string(info.channels) + " channels, " +
                    std::to_string(info.frames) + " frames)");
  }
  Audio audio;
  audio.sample_rate = info.samplerate;
  audio.channels = info.channels;
  // Read in blocks, mixed down as they come: memory follows the samples the file holds, not
  // the count its header claims (a 42-byte header may claim billions).
  constexpr sf_count_t kBlockFrames = 1 << 16;
  std::vector<float> block(static_cast<size_t>(kBlockFrames * info.channels));
  for (sf_count_t read; audio.samples.size() < static_cast<size_t>(info.frames) &&
                        (read = sf_readf_float(file, block.data(), kBlockFrames)) > 0;) {
    for (sf_count_t i = 0; i < read; ++i) {
      double sum = 0;
      for (int c = 0; c < info.channels; ++c) sum += block[i * info.channels + c];
      if (!std::isfinite(sum)) {  // a float recording's NaN would make every feature NaN
        sf_close(file);
        throw Error(path, "", "",
                    "sample " + std::to_string(audio.samples.size()) +
                        " is not a finite number (NaN or infinity): not a usable recording");
      }
      audio.samples.push_back(static_cast<float>(sum / info.channels));
    }
  }
  sf_close(file);
  if (audio.samples.empty()) throw Error(path, "", "", "the audio file holds no samples");
  return audio;
}

}  // namespace ntpb::cli
