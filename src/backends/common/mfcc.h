// The MFCC front end of a speech pipeline, as torchaudio.transforms.MFCC computes it (so that a
// model trained on its features sees the same numbers): frames of `window` samples every `step`
// (no centring padding), a periodic Hamming window, the power spectrum through FFTW (3.2x faster
// than KissFFT on 400-point real transforms here: docs/topology-format.md, Inlays),
// an HTK-scale triangular mel filterbank (no area normalisation), log(mel + 1e-6) and an
// orthonormal DCT-II. Shared by every backend's mfcc inlay: it runs on the host.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace ntpb {

struct MfccConfig {
  int64_t sample_rate = 16000;
  int64_t window = 400;  // samples per frame (25 ms); also the FFT size
  int64_t step = 160;    // samples between frames (10 ms)
  int64_t mels = 26;
  int64_t cepstra = 26;
  double low_hz = 0;
  double high_hz = 8000;
  // Each coefficient scaled to zero mean and unit variance over the utterance's frames (as
  // DeepSpeech feeds its network; it also keeps i8's per-tensor scales meaningful).
  bool normalize = false;
};

// Frames an audio of `samples` yields (0 when it is shorter than one window).
int64_t MfccFrames(int64_t samples, int64_t window, int64_t step);

class MfccFrontEnd {
 public:
  explicit MfccFrontEnd(const MfccConfig& config);
  ~MfccFrontEnd();
  MfccFrontEnd(const MfccFrontEnd&) = delete;
  MfccFrontEnd& operator=(const MfccFrontEnd&) = delete;

  // One audio's frames: out[t * cepstra + k]. Not re-entrant (one instance per step).
  void Compute(const float* pcm, int64_t samples, float* out) const;

  const std::vector<double>& filterbank() const { return filterbank_; }  // [mels][bins]

 private:
  MfccConfig config_;
  int64_t bins_ = 0;
  std::vector<float> window_;
  std::vector<double> filterbank_;  // mels x bins
  std::vector<double> dct_;         // cepstra x mels
  struct Fft;
  std::unique_ptr<Fft> fft_;
};

}  // namespace ntpb
