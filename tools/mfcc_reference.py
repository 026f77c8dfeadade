#!/usr/bin/python3
"""Writes tests/data/mfcc_reference.json: torchaudio's MFCC of signals the C++ test regenerates.

  /usr/bin/python3 tools/mfcc_reference.py [OUT.json]      (needs Debian's python3-torchaudio)

The parameters are the mfcc op's defaults (docs/topology-format.md): 16 kHz, 25 ms windows every
10 ms, the FFT as long as the window (n_fft = win_length = 400), a periodic Hamming window, no
centring, power spectrum, 26 HTK mel bands from 0 to 8000 Hz without normalisation,
log(mel + 1e-6), 26 orthonormal DCT-II coefficients: torchaudio.transforms.MFCC with log_mels.
The signals are formulas (tests/backends/mfcc_test.cc computes the same samples in float):
  tones: 0.5 sin(2 pi 440 t) + 0.25 sin(2 pi 1000 t), 4000 samples
  chirp: 0.5 sin(2 pi (100 t + (4000 - 100) / (2 * 0.25) t^2)), 4000 samples (100 -> 4000 Hz)
and real speech: a sentence spoken by espeak-ng (Debian's espeak-ng), resampled to 16 kHz by
torchaudio and written as 16-bit PCM to tests/data/speech_16k.wav; its MFCC is computed from the
file as read back, so both sides see the same samples.
"""
import os
import subprocess
import tempfile
import wave
import json
import math
import sys

import torch
import torchaudio

RATE = 16000
SAMPLES = 4000


def signal(name):
    t = [i / RATE for i in range(SAMPLES)]
    if name == "tones":
        return [0.5 * math.sin(2 * math.pi * 440 * x) + 0.25 * math.sin(2 * math.pi * 1000 * x)
                for x in t]
    return [0.5 * math.sin(2 * math.pi * (100 * x + (4000 - 100) / (2 * 0.25) * x * x)) for x in t]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "tests/data/mfcc_reference.json"
    mfcc = torchaudio.transforms.MFCC(
        sample_rate=RATE, n_mfcc=26, dct_type=2, norm="ortho", log_mels=True,
        melkwargs={"n_fft": 400, "win_length": 400, "hop_length": 160, "n_mels": 26,
                   "f_min": 0.0, "f_max": 8000.0, "window_fn": torch.hamming_window,
                   "center": False, "power": 2.0, "norm": None, "mel_scale": "htk"})
    cases = {}
    for name in ("tones", "chirp"):
        pcm = torch.tensor(signal(name), dtype=torch.float32).unsqueeze(0)
        features = mfcc(pcm)[0].transpose(0, 1)  # [T, 26]
        cases[name] = [[float(f"{v:.6g}") for v in row] for row in features.tolist()]
    wav = os.path.join(os.path.dirname(out), "speech_16k.wav")
    with tempfile.TemporaryDirectory() as tmp:
        spoken = os.path.join(tmp, "spoken.wav")
        subprocess.run(["espeak-ng", "-w", spoken, "-s", "150",
                        "the quick brown fox jumps over the lazy dog"], check=True)
        audio, rate = torchaudio.load(spoken)
        audio = torchaudio.functional.resample(audio.mean(0, keepdim=True), rate, RATE)
        pcm16 = (audio.clamp(-1, 1) * 32767).round().to(torch.int16)
        with wave.open(wav, "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(RATE)
            w.writeframes(pcm16.numpy().tobytes())
    with wave.open(wav, "rb") as w:
        raw = w.readframes(w.getnframes())
    read_back = torch.frombuffer(bytearray(raw), dtype=torch.int16).to(torch.float32) / 32768
    features = mfcc(read_back.unsqueeze(0))[0].transpose(0, 1)
    cases["speech"] = [[float(f"{v:.6g}") for v in row] for row in features.tolist()]
    doc = {"generator": "tools/mfcc_reference.py", "torchaudio": torchaudio.__version__,
           "sample_rate": RATE, "samples": SAMPLES, "speech_wav": "speech_16k.wav",
           "cases": cases}
    with open(out, "w") as f:
        json.dump(doc, f, indent=0)
        f.write("\n")
    print(f"wrote {out}: " + ", ".join(f"{k} {len(v)} frames" for k, v in cases.items()))


if __name__ == "__main__":
    main()
