#include "src/backends/common/mfcc.h"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <mutex>

namespace ntpb {

namespace {

constexpr double kPi = 3.14159265358979323846;

double HzToMel(double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); }
double MelToHz(double mel) { return 700.0 * (std::pow(10.0, mel / 2595.0) - 1.0); }

// FFTW's planner is not thread-safe; execution with a plan is.
std::mutex& PlannerMutex() {
  static std::mutex m;
  return m;
}

}  // namespace

struct MfccFrontEnd::Fft {
  float* in = nullptr;
  fftwf_complex* out = nullptr;
  fftwf_plan plan = nullptr;
  std::vector<double> power;    // per bin
  std::vector<double> log_mel;  // per mel band
};

int64_t MfccFrames(int64_t samples, int64_t window, int64_t step) {
  return samples < window || step <= 0 ? 0 : 1 + (samples - window) / step;
}

MfccFrontEnd::MfccFrontEnd(const MfccConfig& c) : config_(c), fft_(std::make_unique<Fft>()) {
  const int64_t n = c.window;
  bins_ = n / 2 + 1;
  // torch.hamming_window(n) (periodic): 0.54 - 0.46 cos(2 pi i / n).
  window_.resize(n);
  for (int64_t i = 0; i < n; ++i) {
    window_[i] = static_cast<float>(0.54 - 0.46 * std::cos(2 * kPi * i / n));
  }
  // torchaudio.functional.melscale_fbanks(norm=None, mel_scale="htk"): triangles between mel
  // points spaced evenly from low to high, over the bins' frequencies 0 .. sample_rate / 2.
  const double mel_low = HzToMel(c.low_hz), mel_high = HzToMel(c.high_hz);
  std::vector<double> edges(c.mels + 2);
  for (int64_t m = 0; m < c.mels + 2; ++m) {
    edges[m] = MelToHz(mel_low + (mel_high - mel_low) * m / (c.mels + 1));
  }
  filterbank_.assign(c.mels * bins_, 0.0);
  for (int64_t m = 0; m < c.mels; ++m) {
    for (int64_t b = 0; b < bins_; ++b) {
      const double f = static_cast<double>(c.sample_rate) / 2 * b / (bins_ - 1);
      const double down = (f - edges[m]) / (edges[m + 1] - edges[m]);
      const double up = (edges[m + 2] - f) / (edges[m + 2] - edges[m + 1]);
      filterbank_[m * bins_ + b] = std::max(0.0, std::min(down, up));
    }
  }
  // torchaudio.functional.create_dct(norm="ortho"): DCT-II, orthonormal.
  dct_.assign(c.cepstra * c.mels, 0.0);
  for (int64_t k = 0; k < c.cepstra; ++k) {
    const double scale = std::sqrt(2.0 / c.mels) * (k == 0 ? 1.0 / std::sqrt(2.0) : 1.0);
    for (int64_t m = 0; m < c.mels; ++m) {
      dct_[k * c.mels + m] = scale * std::cos(kPi / c.mels * (m + 0.5) * k);
    }
  }
  fft_->power.resize(bins_);
  fft_->log_mel.resize(c.mels);
  std::lock_guard<std::mutex> lock(PlannerMutex());
  fft_->in = fftwf_alloc_real(n);
  fft_->out = fftwf_alloc_complex(bins_);
  // FFTW_ESTIMATE: the same transform on every run and machine, planned in microseconds.
  fft_->plan = fftwf_plan_dft_r2c_1d(static_cast<int>(n), fft_->in, fft_->out, FFTW_ESTIMATE);
}

MfccFrontEnd::~MfccFrontEnd() {
  std::lock_guard<std::mutex> lock(PlannerMutex());
  if (fft_->plan) fftwf_destroy_plan(fft_->plan);
  fftwf_free(fft_->in);
  fftwf_free(fft_->out);
}

void MfccFrontEnd::Compute(const float* pcm, int64_t samples, float* out) const {
  const MfccConfig& c = config_;
  const int64_t frames = MfccFrames(samples, c.window, c.step);
  std::vector<double>& power = fft_->power;
  std::vector<double>& log_mel = fft_->log_mel;
  for (int64_t t = 0; t < frames; ++t) {
    const float* frame = pcm + t * c.step;
    for (int64_t i = 0; i < c.window; ++i) fft_->in[i] = frame[i] * window_[i];
    fftwf_execute(fft_->plan);
    for (int64_t b = 0; b < bins_; ++b) {
      const double re = fft_->out[b][0], im = fft_->out[b][1];
      power[b] = re * re + im * im;
    }
    for (int64_t m = 0; m < c.mels; ++m) {
      const double* weights = &filterbank_[m * bins_];
      double energy = 0;
      for (int64_t b = 0; b < bins_; ++b) energy += weights[b] * power[b];
      log_mel[m] = std::log(energy + 1e-6);
    }
    for (int64_t k = 0; k < c.cepstra; ++k) {
      double sum = 0;
      for (int64_t m = 0; m < c.mels; ++m) sum += dct_[k * c.mels + m] * log_mel[m];
      out[t * c.cepstra + k] = static_cast<float>(sum);
    }
  }
  if (!c.normalize || frames == 0) return;
  for (int64_t k = 0; k < c.cepstra; ++k) {
    double mean = 0, square = 0;
    for (int64_t t = 0; t < frames; ++t) mean += out[t * c.cepstra + k];
    mean /= frames;
    for (int64_t t = 0; t < frames; ++t) {
      const double d = out[t * c.cepstra + k] - mean;
      square += d * d;
    }
    const double scale = 1.0 / std::sqrt(square / frames + 1e-10);
    for (int64_t t = 0; t < frames; ++t) {
      out[t * c.cepstra + k] = static_cast<float>((out[t * c.cepstra + k] - mean) * scale);
    }
  }
}

}  // namespace ntpb
