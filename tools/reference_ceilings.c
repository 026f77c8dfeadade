// An independent check of `ntpbench machine`, run in the same minute: a 10-chain AVX-512 FMA loop
// (each accumulator initialised differently, or GCC merges the chains into one) and a read-only
// stream over 128 MiB, 2 threads, best of 5. Not part of the build:
//   gcc -O2 -mavx512f -fopenmp tools/reference_ceilings.c -o /tmp/reference_ceilings
//   /tmp/reference_ceilings; ntpbench machine --refresh; /tmp/reference_ceilings
#define _POSIX_C_SOURCE 200809L
#include <immintrin.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
int main() {
  const long N = 50000000;
  double best = 1e9;
  float sink = 0;
  for (int r = 0; r < 5; r++) {
    double t0 = now();
#pragma omp parallel num_threads(2) reduction(+ : sink)
    {
      __m512 a = _mm512_set1_ps(1), b = _mm512_set1_ps(.9999f), c0 = _mm512_set1_ps(0),
             c1 = _mm512_set1_ps(1), c2 = _mm512_set1_ps(2), c3 = _mm512_set1_ps(3),
             c4 = _mm512_set1_ps(4), c5 = _mm512_set1_ps(5), c6 = _mm512_set1_ps(6),
             c7 = _mm512_set1_ps(7), c8 = _mm512_set1_ps(8), c9 = _mm512_set1_ps(9);
      for (long i = 0; i < N; i++) {
        c0 = _mm512_fmadd_ps(a, b, c0);
        c1 = _mm512_fmadd_ps(a, b, c1);
        c2 = _mm512_fmadd_ps(a, b, c2);
        c3 = _mm512_fmadd_ps(a, b, c3);
        c4 = _mm512_fmadd_ps(a, b, c4);
        c5 = _mm512_fmadd_ps(a, b, c5);
        c6 = _mm512_fmadd_ps(a, b, c6);
        c7 = _mm512_fmadd_ps(a, b, c7);
        c8 = _mm512_fmadd_ps(a, b, c8);
        c9 = _mm512_fmadd_ps(a, b, c9);
      }
      sink += _mm512_reduce_add_ps(_mm512_add_ps(
          _mm512_add_ps(_mm512_add_ps(c0, c1), _mm512_add_ps(c2, c3)),
          _mm512_add_ps(_mm512_add_ps(c4, c5),
                        _mm512_add_ps(_mm512_add_ps(c6, c7), _mm512_add_ps(c8, c9)))));
    }
    double t = now() - t0;
    if (t < best) best = t;
  }
  printf("reference FMA loop: %.1f GFLOP/s\n", 2.0 * N * 10 * 16 * 2 / best / 1e9);
  long n = (128L << 20) / 4;
  float* x = aligned_alloc(64, n * 4);
#pragma omp parallel for num_threads(2)
  for (long i = 0; i < n; i++) x[i] = 1;
  best = 1e9;
  for (int r = 0; r < 5; r++) {
    double t0 = now();
    __m512 s = _mm512_setzero_ps();
#pragma omp parallel num_threads(2)
    {
      int id = omp_get_thread_num();
      long c = n / 2, b = c * id;
      __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
      for (long i = b; i < b + c; i += 64) {
        a0 = _mm512_add_ps(a0, _mm512_load_ps(x + i));
        a1 = _mm512_add_ps(a1, _mm512_load_ps(x + i + 16));
        a2 = _mm512_add_ps(a2, _mm512_load_ps(x + i + 32));
        a3 = _mm512_add_ps(a3, _mm512_load_ps(x + i + 48));
      }
#pragma omp critical
      s = _mm512_add_ps(s, _mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
    }
    double t = now() - t0;
    if (t < best) best = t;
    sink += _mm512_reduce_add_ps(s);
  }
  printf("reference read stream 128 MiB: %.1f GB/s (sink %g)\n", n * 4.0 / best / 1e9,
         sink > 0 ? 1.0 : 0.0);
}
