// One vector register of floats (and of 32-bit integers) for the ISA the including file is
// compiled for (the build's -march), for ntpbench's own streaming kernels (recurrent_stream.cc,
// weight_only_dense.cc, bf16_dense.cc, the decode attention in attention.cc). GCC's vector
// extensions keep such values in registers; a type wider than the ISA's registers does not: 64-byte
// vectors on an AVX2 CPU put every accumulator on the stack (each FMA loaded and stored it), and
// the streamed recurrence ran at ~3 GFLOP/s per core, a quarter of ONNX Runtime's on a Zen 3 VM.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace ntpb::onednn {
namespace {  // each kernel file its own copy, compiled with that file's flags

#if defined(__AVX512F__)
constexpr int kLanes = 16, kRegisters = 32;
#elif defined(__AVX__)
constexpr int kLanes = 8, kRegisters = 16;
#else
constexpr int kLanes = 4, kRegisters = 16;
#endif
typedef float Floats __attribute__((vector_size(kLanes * sizeof(float)), aligned(4)));
typedef int32_t Ints __attribute__((vector_size(kLanes * sizeof(int32_t))));

// An unaligned load as one instruction (a memcpy into the vector type went through the stack).
inline Floats LoadFloats(const float* p) {
#if defined(__AVX512F__)
  return (Floats)_mm512_loadu_ps(p);
#elif defined(__AVX__)
  return (Floats)_mm256_loadu_ps(p);
#else
  return (Floats)_mm_loadu_ps(p);
#endif
}

inline void StoreFloats(float* p, Floats v) {
#if defined(__AVX512F__)
  _mm512_storeu_ps(p, (__m512)v);
#elif defined(__AVX__)
  _mm256_storeu_ps(p, (__m256)v);
#else
  _mm_storeu_ps(p, (__m128)v);
#endif
}

// The float at `p` in every lane, as one load (GCC made `Floats{} + *p` a scalar load and a
// register broadcast, a shuffle beside every few multiply-adds).
inline Floats BroadcastFloat(const float* p) {
#if defined(__AVX512F__)
  return (Floats)_mm512_set1_ps(*p);
#elif defined(__AVX__)
  return (Floats)_mm256_broadcast_ss(p);
#else
  return (Floats)_mm_load1_ps(p);
#endif
}

// The first `count` (0 < count < kLanes) floats at `p`, the other lanes zero; and storing only
// those (a row's last, partial vector: the floats after it belong to the next pixel).
inline Floats LoadFirstFloats(const float* p, int count) {
#if defined(__AVX512F__)
  return (Floats)_mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << count) - 1), p);
#elif defined(__AVX2__)
  const __m256i mask =
      _mm256_cmpgt_epi32(_mm256_set1_epi32(count), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  return (Floats)_mm256_maskload_ps(p, mask);
#else
  Floats v = {};
  for (int l = 0; l < count; ++l) v[l] = p[l];
  return v;
#endif
}

inline void StoreFirstFloats(float* p, Floats v, int count) {
#if defined(__AVX512F__)
  _mm512_mask_storeu_ps(p, static_cast<__mmask16>((1u << count) - 1), (__m512)v);
#elif defined(__AVX2__)
  const __m256i mask =
      _mm256_cmpgt_epi32(_mm256_set1_epi32(count), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  _mm256_maskstore_ps(p, mask, (__m256)v);
#else
  for (int l = 0; l < count; ++l) p[l] = v[l];
#endif
}

// kLanes bf16 values widened to f32 (a bf16 is the upper half of an f32).
inline Floats LoadBf16Floats(const uint16_t* p) {
#if defined(__AVX512F__)
  const __m512i wide = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i*)p));
  return (Floats)_mm512_castsi512_ps(_mm512_slli_epi32(wide, 16));
#elif defined(__AVX2__)
  const __m256i wide = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i*)p));
  return (Floats)_mm256_castsi256_ps(_mm256_slli_epi32(wide, 16));
#else
  Ints bits;
  for (int l = 0; l < kLanes; ++l) bits[l] = static_cast<int32_t>(uint32_t{p[l]} << 16);
  return (Floats)bits;
#endif
}

// a * b + c in one instruction where the ISA has one (ISO C++ keeps GCC from fusing them).
inline Floats MulAdd(Floats a, Floats b, Floats c) {
#if defined(__AVX512F__)
  return (Floats)_mm512_fmadd_ps((__m512)a, (__m512)b, (__m512)c);
#elif defined(__FMA__)
  return (Floats)_mm256_fmadd_ps((__m256)a, (__m256)b, (__m256)c);
#else
  return a * b + c;
#endif
}

// The sum of the lanes, halving the width each step (no _mm512_reduce_add_ps: GCC 12 warns
// where it is inlined).
inline float SumLanes(Floats v) {
#if defined(__AVX512F__)
  const __m512 z = (__m512)v;
  const __m256 y = _mm256_add_ps(_mm512_castps512_ps256(z),
                                 _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(z), 1)));
  __m128 x = _mm_add_ps(_mm256_castps256_ps128(y), _mm256_extractf128_ps(y, 1));
#elif defined(__AVX__)
  const __m256 y = (__m256)v;
  __m128 x = _mm_add_ps(_mm256_castps256_ps128(y), _mm256_extractf128_ps(y, 1));
#else
  __m128 x = (__m128)v;
#endif
  x = _mm_add_ps(x, _mm_movehl_ps(x, x));
  x = _mm_add_ss(x, _mm_shuffle_ps(x, x, 1));
  return _mm_cvtss_f32(x);
}

// Asks for the line at `p` into the L2. In asm, since GCC 12 dropped every _mm_prefetch of the
// w8 loops of weight_only_dense.cc (w8 had never prefetched); the address in a register, since a
// memory operand made GCC keep the accumulators in memory (they might alias it).
inline void PrefetchIntoL2(const void* p) {
#if defined(__x86_64__) || defined(__i386__)
  asm volatile("prefetcht1 (%0)" : : "r"(p));
#else
  __builtin_prefetch(p, 0, 2);
#endif
}

}  // namespace
}  // namespace ntpb::onednn
