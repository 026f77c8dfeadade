// One vector register of floats (and of 32-bit integers) for the ISA the including file is
// compiled for (the build's -march), for ntpbench's own streaming kernels (recurrent_stream.cc,
// weight_only_dense.cc). GCC's vector extensions keep such values in registers; a type wider
// than the ISA's registers does not: 64-byte vectors on an AVX2 CPU put every accumulator on the
// stack (each FMA loaded and stored it), and the streamed recurrence ran at ~3 GFLOP/s per core,
// a quarter of ONNX Runtime's on a Zen 3 VM.
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
