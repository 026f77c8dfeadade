// The OpenCL backend's kernels (OpenCL C 1.2), one program per device. Shapes are kernel
// arguments, so a device builds this program once (and the disk cache keeps the binary).
// Semantics follow the Eigen reference (src/backends/eigen/): same formulas, same order of the
// gate math; sums may run in another order.

// ---- storage ---------------------------------------------------------------------------------
// Tensors and weights are ELEM in memory: float, or with STORE_HALF (f16 runs) half, read and
// written with vload_half / vstore_half_rte, which every OpenCL device has (cl_khr_fp16 is
// needed for half arithmetic only). Arithmetic is f32 either way, as the Eigen reference's f16:
// each stored value rounded to nearest even. Kernel parameters that are no tensor (taps,
// scales, tables computed on the host, token ids) stay float. The i8 kernels run in f32 runs.
#ifdef STORE_HALF
#define ELEM half
#define LD(p, i) vload_half((i), (p))
#define ST(p, i, v) vstore_half_rte((v), (i), (p))
#define LD16(p) vload_half16(0, (p))
#else
#define ELEM float
#define LD(p, i) ((p)[i])
#define ST(p, i, v) ((p)[i] = (v))
#define LD16(p) vload16(0, (p))
#endif

// ---- activations (fused into GEMM epilogues, and the unary ops) ------------------------------
// ACT_NONE, ACT_RELU, ...: defined before this source from the activation table
// (src/ops/activations.h, ActivationCodeDefines).

inline float activate(float v, int kind, float clip) {
  switch (kind) {
    case ACT_RELU:
      return fmax(v, 0.0f);
    case ACT_CLIPPED_RELU:
      return fmin(fmax(v, 0.0f), clip);
    case ACT_SIGMOID:
      return 1.0f / (1.0f + exp(-v));
    case ACT_TANH:
      return tanh(v);
    case ACT_GELU:
      return 0.5f * v * (1.0f + erf(v * 0.70710678118654752f));
    case ACT_GELU_TANH:
      return 0.5f * v * (1.0f + tanh(0.79788456080286536f * (v + 0.044715f * v * v * v)));
    default:
      return v;
  }
}

// ---- unary maps ------------------------------------------------------------------------------
#define UNARY_ACTIVATION 0  // a: activation kind, p: clip
#define UNARY_EXP 1
#define UNARY_SQRT 2
#define UNARY_POW 3  // p: exponent
#define UNARY_SQUARE 4
#define UNARY_LEAKY_RELU 5    // p: alpha
#define UNARY_HARD_SIGMOID 6  // p: alpha, q: beta
#define UNARY_HARD_SWISH 7
#define UNARY_SWISH 8
#define UNARY_FILL 9  // y = p

inline void unary_at(global const ELEM* x, global ELEM* y, int i, int op, int a, float p,
                     float q) {
  const float v = op == UNARY_FILL ? 0.0f : LD(x, i);
  float r;
  switch (op) {
    case UNARY_ACTIVATION:
      r = activate(v, a, p);
      break;
    case UNARY_EXP:
      r = exp(v);
      break;
    case UNARY_SQRT:
      r = sqrt(v);
      break;
    case UNARY_POW:
      r = pow(v, p);
      break;
    case UNARY_SQUARE:
      r = v * v;
      break;
    case UNARY_LEAKY_RELU:
      r = v > 0.0f ? v : p * v;
      break;
    case UNARY_HARD_SIGMOID:
      r = fmin(1.0f, fmax(0.0f, p * v + q));
      break;
    case UNARY_HARD_SWISH:
      r = v * fmin(1.0f, fmax(0.0f, v / 6.0f + 0.5f));
      break;
    case UNARY_SWISH:
      r = v / (1.0f + exp(-v));
      break;
    default:  // UNARY_FILL
      r = p;
      break;
  }
  ST(y, i, r);
}

// Elements per work-item of the elementwise kernels (a build option: DeviceSession's
// elementwise_chunk; Enqueuer::LaunchChunks launches n / CHUNK work-items).
#ifndef CHUNK
#define CHUNK 1
#endif

// The common ops as plain loops, chosen once per work-item (a switch per element kept PoCL from
// vectorising); the others element by element.
#define UNARY_LOOP(f)                                    \
  for (int i = i0; i < end; ++i) ST(y, i, f(LD(x, i), p, q)); \
  return;
inline float relu_of(float v, float p, float q) { return fmax(v, 0.0f); }
inline float clipped_relu_of(float v, float p, float q) { return fmin(fmax(v, 0.0f), p); }
inline float square_of(float v, float p, float q) { return v * v; }

kernel void unary(global const ELEM* x, global ELEM* y, int n, int op, int a, float p,
                  float q) {
  const int i0 = get_global_id(0) * CHUNK, end = min(i0 + CHUNK, n);
  if (op == UNARY_ACTIVATION && a == ACT_RELU) {
    UNARY_LOOP(relu_of)
  }
  if (op == UNARY_ACTIVATION && a == ACT_CLIPPED_RELU) {
    UNARY_LOOP(clipped_relu_of)
  }
  if (op == UNARY_SQUARE) {
    UNARY_LOOP(square_of)
  }
  if (op == UNARY_FILL) {
    for (int i = i0; i < end; ++i) ST(y, i, p);
    return;
  }
  for (int i = i0; i < end; ++i) unary_at(x, y, i, op, a, p, q);
}

// ---- strided maps: broadcasting binaries, where, and every data movement ---------------------
// The iteration space has `rank` axes (dims); each operand k (y, a, b, c) is addressed as
// base[k] + sum over axes of index * stride[k][axis]. Broadcasting is a stride of 0; a transpose
// permuted strides; a slice a base offset; a concat one map per input into the output.
// layout: p[0] rank, p[1..8] dims, then strides of y, a, b, c (8 each), then bases (4).
#define MAX_RANK 8
#define MAP_COPY 0  // y = a
#define MAP_ADD 1
#define MAP_SUB 2
#define MAP_MUL 3
#define MAP_DIV 4
#define MAP_EQUAL 5
#define MAP_LESS 6
#define MAP_GREATER 7
#define MAP_WHERE 8  // y = a != 0 ? b : c

inline void strided_map_at(global ELEM* y, global const ELEM* a, global const ELEM* b,
                           global const ELEM* c, constant int* p, int i, int op) {
  const int rank = p[0];
  int oy = p[1 + 5 * MAX_RANK + 0], oa = p[1 + 5 * MAX_RANK + 1], ob = p[1 + 5 * MAX_RANK + 2],
      oc = p[1 + 5 * MAX_RANK + 3];
  if (rank == 1) {  // one flat axis (PrepareStridedMap collapses what it can): no division
    oy += i * p[1 + MAX_RANK];
    oa += i * p[1 + 2 * MAX_RANK];
    ob += i * p[1 + 3 * MAX_RANK];
    oc += i * p[1 + 4 * MAX_RANK];
  } else {
    int rest = i;
    for (int d = rank - 1; d >= 0; --d) {
      const int dim = p[1 + d];
      const int q = rest % dim;
      rest /= dim;
      oy += q * p[1 + 1 * MAX_RANK + d];
      oa += q * p[1 + 2 * MAX_RANK + d];
      ob += q * p[1 + 3 * MAX_RANK + d];
      oc += q * p[1 + 4 * MAX_RANK + d];
    }
  }
  float r;
  switch (op) {
    case MAP_ADD:
      r = LD(a, oa) + LD(b, ob);
      break;
    case MAP_SUB:
      r = LD(a, oa) - LD(b, ob);
      break;
    case MAP_MUL:
      r = LD(a, oa) * LD(b, ob);
      break;
    case MAP_DIV:
      r = LD(a, oa) / LD(b, ob);
      break;
    case MAP_EQUAL:
      r = LD(a, oa) == LD(b, ob) ? 1.0f : 0.0f;
      break;
    case MAP_LESS:
      r = LD(a, oa) < LD(b, ob) ? 1.0f : 0.0f;
      break;
    case MAP_GREATER:
      r = LD(a, oa) > LD(b, ob) ? 1.0f : 0.0f;
      break;
    case MAP_WHERE:
      r = LD(a, oa) != 0.0f ? LD(b, ob) : LD(c, oc);
      break;
    default:  // MAP_COPY
      r = LD(a, oa);
      break;
  }
  ST(y, oy, r);
}

kernel void strided_map(global ELEM* y, global const ELEM* a, global const ELEM* b,
                        global const ELEM* c, constant int* p, int n, int op) {
  const int i0 = get_global_id(0) * CHUNK, end = min(i0 + CHUNK, n);
  if (p[0] == 1 && (op == MAP_COPY || op == MAP_ADD || op == MAP_MUL)) {
    // One flat axis (PrepareStridedMap collapses what it can), the op chosen once: plain loops.
    global ELEM* yy = y + p[1 + 5 * MAX_RANK];
    global const ELEM* aa = a + p[1 + 5 * MAX_RANK + 1];
    const int sy = p[1 + MAX_RANK], sa = p[1 + 2 * MAX_RANK], sb = p[1 + 3 * MAX_RANK];
    if (op == MAP_COPY) {
      for (int i = i0; i < end; ++i) ST(yy, i * sy, LD(aa, i * sa));
      return;
    }
    global const ELEM* bb = b + p[1 + 5 * MAX_RANK + 2];
    if (op == MAP_ADD) {
      for (int i = i0; i < end; ++i) ST(yy, i * sy, LD(aa, i * sa) + LD(bb, i * sb));
    } else {
      for (int i = i0; i < end; ++i) ST(yy, i * sy, LD(aa, i * sa) * LD(bb, i * sb));
    }
    return;
  }
  for (int i = i0; i < end; ++i) strided_map_at(y, a, b, c, p, i, op);
}

// ---- GEMM: C[m, n] = op(A)[m, k] * B[k, n] (+ bias) (activation), row-major ----------------
// Tiled: a work-group computes a TILE x TILE block of C through local memory, TILE_K columns of
// A and rows of B at a time; each work-item keeps a WPT x WPT block of C in registers (register
// blocking), rows ty + i * (TILE / WPT) and columns tx + j * (TILE / WPT), so neighbouring
// work-items read neighbouring addresses. get_global_id(2) walks a batch of products, each
// operand advancing by its own stride (0: shared).
// bias_mode 0: none, 1: one per column (dense), 2: one per row (convolution's filters).
#ifndef TILE
#define TILE 64
#endif
#ifndef WPT
#define WPT 4
#endif
#define TILE_K 16
#define RTS (TILE / WPT)

kernel __attribute__((reqd_work_group_size(RTS, RTS, 1))) void gemm_tiled(
    int M, int N, int K, global const ELEM* A, int a_offset, int lda, int a_batch, int trans_a,
    global const ELEM* B, int b_offset, int ldb, int b_batch, global ELEM* C, int c_offset,
    int ldc, int c_batch, global const ELEM* bias, int bias_offset, int bias_mode, int act,
    float clip) {
  const int tx = get_local_id(0), ty = get_local_id(1);
  const int n0 = get_group_id(0) * TILE, m0 = get_group_id(1) * TILE;
  const int z = get_global_id(2);
  A += a_offset + z * a_batch;
  B += b_offset + z * b_batch;
  C += c_offset + z * c_batch;
  local float As[TILE_K][TILE + 1];  // + 1: no bank conflicts on the transposed store
  local float Bs[TILE_K][TILE];
  float acc[WPT][WPT];
  for (int i = 0; i < WPT; ++i)
    for (int j = 0; j < WPT; ++j) acc[i][j] = 0.0f;
  const int lid = ty * RTS + tx;
  for (int k0 = 0; k0 < K; k0 += TILE_K) {
    for (int e = lid; e < TILE * TILE_K; e += RTS * RTS) {
      int mm, kk;
      if (trans_a) {
        kk = e / TILE;
        mm = e % TILE;
      } else {
        mm = e / TILE_K;
        kk = e % TILE_K;
      }
      const int gm = m0 + mm, gk = k0 + kk;
      As[kk][mm] =
          (gm < M && gk < K) ? (trans_a ? LD(A, gk * lda + gm) : LD(A, gm * lda + gk)) : 0.0f;
      const int kb = e / TILE, nb = e % TILE;
      const int gkb = k0 + kb, gn = n0 + nb;
      Bs[kb][nb] = (gkb < K && gn < N) ? LD(B, gkb * ldb + gn) : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < TILE_K; ++k) {
      float av[WPT], bv[WPT];
      for (int i = 0; i < WPT; ++i) av[i] = As[k][ty + i * RTS];
      for (int j = 0; j < WPT; ++j) bv[j] = Bs[k][tx + j * RTS];
      for (int i = 0; i < WPT; ++i)
        for (int j = 0; j < WPT; ++j) acc[i][j] = fma(av[i], bv[j], acc[i][j]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (int i = 0; i < WPT; ++i) {
    const int m = m0 + ty + i * RTS;
    if (m >= M) continue;
    for (int j = 0; j < WPT; ++j) {
      const int n = n0 + tx + j * RTS;
      if (n >= N) continue;
      float v = acc[i][j];
      if (bias_mode == 1) v += LD(bias, bias_offset + n);
      if (bias_mode == 2) v += LD(bias, bias_offset + m);
      ST(C, m * ldc + n, activate(v, act, clip));
    }
  }
}

// The same product for CPU devices (PoCL): no local memory and no barriers, which a CPU
// driver runs as plain loops; each work-item keeps VEC_ROWS x 16 of C in float16 registers
// (one AVX-512 register per row), reading a 16-wide row of B once per k for all its rows.
// Work-groups run along m, so the work-items of one share B's panel in cache.
// Same arguments as gemm_tiled.
#define VEC_ROWS 8
inline float a_at(global const ELEM* A, int lda, int trans_a, int m, int k) {
  return trans_a ? LD(A, k * lda + m) : LD(A, m * lda + k);
}
kernel void gemm_vec(int M, int N, int K, global const ELEM* A, int a_offset, int lda,
                     int a_batch, int trans_a, global const ELEM* B, int b_offset, int ldb,
                     int b_batch, global ELEM* C, int c_offset, int ldc, int c_batch,
                     global const ELEM* bias, int bias_offset, int bias_mode, int act,
                     float clip) {
  const int n0 = get_global_id(0) * 16, m0 = get_global_id(1) * VEC_ROWS;
  const int z = get_global_id(2);
  if (n0 >= N || m0 >= M) return;
  A += a_offset + z * a_batch;
  B += b_offset + z * b_batch;
  C += c_offset + z * c_batch;
  const int rows = min(VEC_ROWS, M - m0);
  if (n0 + 16 <= N) {
    float16 acc[VEC_ROWS];
    for (int i = 0; i < VEC_ROWS; ++i) acc[i] = (float16)(0.0f);
    if (rows == VEC_ROWS) {  // a constant trip count: the row loop unrolls into registers
      for (int k = 0; k < K; ++k) {
        const float16 b = LD16(B + k * ldb + n0);
        for (int i = 0; i < VEC_ROWS; ++i)
          acc[i] = fma((float16)(a_at(A, lda, trans_a, m0 + i, k)), b, acc[i]);
      }
    } else {
      for (int k = 0; k < K; ++k) {
        const float16 b = LD16(B + k * ldb + n0);
        for (int i = 0; i < rows; ++i)
          acc[i] = fma((float16)(a_at(A, lda, trans_a, m0 + i, k)), b, acc[i]);
      }
    }
    for (int i = 0; i < rows; ++i) {
      float v[16];
      vstore16(acc[i], 0, v);
      for (int j = 0; j < 16; ++j) {
        float r = v[j];
        if (bias_mode == 1) r += LD(bias, bias_offset + n0 + j);
        if (bias_mode == 2) r += LD(bias, bias_offset + m0 + i);
        ST(C, (m0 + i) * ldc + n0 + j, activate(r, act, clip));
      }
    }
    return;
  }
  for (int i = 0; i < rows; ++i) {  // the last columns, fewer than 16
    for (int n = n0; n < N; ++n) {
      float r = 0.0f;
      for (int k = 0; k < K; ++k) r = fma(a_at(A, lda, trans_a, m0 + i, k), LD(B, k * ldb + n), r);
      if (bias_mode == 1) r += LD(bias, bias_offset + n);
      if (bias_mode == 2) r += LD(bias, bias_offset + m0 + i);
      ST(C, (m0 + i) * ldc + n, activate(r, act, clip));
    }
  }
}

// A product whose B is constant (a dense layer's weights; a convolution's, transposed), on a CPU
// device: B packed once at build time in panels of PACKED_COLS columns,
// [N / PACKED_COLS][K][PACKED_COLS] (zero-padded); each work-item keeps VEC_ROWS x 32 of C in
// two float16 per row (16 accumulators) and reads its panel as one contiguous stream.
// gemm_vec's 16-wide column of B, read at a stride of N floats, maps every row of B (and of A,
// at a stride of K) to the same L1 set once N or K is a multiple of 1024.
// A's element (m, k) is at A[m * a_ms + k * a_ks] and C's (m, n) at C[m * c_ms + n * c_ns]:
// a dense layer's row-major A and C; a convolution's im2row columns ([pixel][row]) as A and its
// output transposed ([filter][pixel]) as C. get_global_id(2) steps over images by a_batch and
// c_batch. The bias (optional) is per column, from bias_offset.
#define PACKED_COLS 32
kernel void gemm_packed(int M, int N, int K, global const ELEM* A, int a_offset, int a_ms,
                        int a_ks, int a_batch, global const ELEM* Bp, global ELEM* C,
                        int c_offset, int c_ms, int c_ns, int c_batch, global const ELEM* bias,
                        int bias_offset, int act, float clip) {
  const int p = get_global_id(0), n0 = p * PACKED_COLS, m0 = get_global_id(1) * VEC_ROWS;
  const int z = get_global_id(2);
  if (m0 >= M) return;
  A += a_offset + z * a_batch + m0 * a_ms;
  C += c_offset + z * c_batch;
  Bp += (size_t)p * K * PACKED_COLS;
  const int rows = min(VEC_ROWS, M - m0);
  float16 lo[VEC_ROWS], hi[VEC_ROWS];
  for (int i = 0; i < VEC_ROWS; ++i) lo[i] = hi[i] = (float16)(0.0f);
  if (rows == VEC_ROWS) {  // a constant trip count: the row loop unrolls into registers
    for (int k = 0; k < K; ++k) {
      const float16 b0 = LD16(Bp + k * PACKED_COLS), b1 = LD16(Bp + k * PACKED_COLS + 16);
      for (int i = 0; i < VEC_ROWS; ++i) {
        const float16 a = (float16)(LD(A, i * a_ms + k * a_ks));
        lo[i] = fma(a, b0, lo[i]);
        hi[i] = fma(a, b1, hi[i]);
      }
    }
  } else {
    for (int k = 0; k < K; ++k) {
      const float16 b0 = LD16(Bp + k * PACKED_COLS), b1 = LD16(Bp + k * PACKED_COLS + 16);
      for (int i = 0; i < rows; ++i) {
        const float16 a = (float16)(LD(A, i * a_ms + k * a_ks));
        lo[i] = fma(a, b0, lo[i]);
        hi[i] = fma(a, b1, hi[i]);
      }
    }
  }
  const int cols = min(PACKED_COLS, N - n0);
  for (int i = 0; i < rows; ++i) {
    float v[PACKED_COLS];
    vstore16(lo[i], 0, v);
    vstore16(hi[i], 1, v);
    for (int j = 0; j < cols; ++j) {
      const float r = bias ? v[j] + LD(bias, bias_offset + n0 + j) : v[j];
      ST(C, (m0 + i) * c_ms + (n0 + j) * c_ns, activate(r, act, clip));
    }
  }
}

// A few rows (M <= SKINNY_ROWS: batch-1..8 dense layers, a recurrence's step): one work-item per
// column of C reads its column of B once for all rows, and neighbouring work-items read
// neighbouring addresses. Bound by reading B, as the product is.
#define SKINNY_ROWS 8
kernel void gemm_skinny(int M, int N, int K, global const ELEM* A, int a_offset, int lda,
                        global const ELEM* B, int b_offset, int ldb, global ELEM* C,
                        int c_offset, int ldc, global const ELEM* bias, int bias_offset,
                        int bias_mode, int act, float clip) {
  const int n = get_global_id(0);
  if (n >= N) return;
  A += a_offset;
  B += b_offset;
  C += c_offset;
  float acc[SKINNY_ROWS];
  for (int m = 0; m < SKINNY_ROWS; ++m) acc[m] = 0.0f;
  for (int k = 0; k < K; ++k) {
    const float b = LD(B, k * ldb + n);
    for (int m = 0; m < M; ++m) acc[m] = fma(LD(A, m * lda + k), b, acc[m]);
  }
  for (int m = 0; m < M; ++m) {
    float v = acc[m];
    if (bias_mode == 1) v += LD(bias, bias_offset + n);
    if (bias_mode == 2) v += LD(bias, bias_offset + m);
    ST(C, m * ldc + n, activate(v, act, clip));
  }
}

// gemm_skinny for GPUs: a work-item per column left a decode step's 768-column layer with 768
// work-items, each reading all of K in turn (1.31 ms for 768 x 3072 on an H100). Here a
// work-group takes get_local_size(0) neighbouring columns (32, or 16 or 8 where N leaves too few
// groups for the device: a warp then reads 4 rows' 32-byte pieces) and splits K over
// get_local_size(1) slices (a power of two; the group at most SPLIT_GROUP, its sums 16 KB at 512).
// Each slice issues SPLIT_UNROLL rows' loads before it uses them, so that many reads are in
// flight. The rows' sums stay in registers (a loop of constant trip count: private arrays
// indexed by a variable live in memory on NVIDIA's compiler); the slices are summed in local
// memory, pairwise. Same arguments as gemm_skinny.
#ifndef SPLIT_GROUP  // set by the host (DeviceSession)
#define SPLIT_GROUP 512
#endif
#ifndef SPLIT_UNROLL
#define SPLIT_UNROLL 8
#endif
kernel void gemm_skinny_split(int M, int N, int K, global const ELEM* A, int a_offset, int lda,
                              global const ELEM* B, int b_offset, int ldb, global ELEM* C,
                              int c_offset, int ldc, global const ELEM* bias, int bias_offset,
                              int bias_mode, int act, float clip) {
  local float part[SKINNY_ROWS * SPLIT_GROUP];
  const int col = get_local_id(0), cols = get_local_size(0);
  const int slice = get_local_id(1), slices = get_local_size(1);
  const int n = get_group_id(0) * cols + col;
  A += a_offset;
  B += b_offset;
  C += c_offset;
  float acc[SKINNY_ROWS];
#pragma unroll
  for (int m = 0; m < SKINNY_ROWS; ++m) acc[m] = 0.0f;
  if (n < N) {
    const int step = slices * SPLIT_UNROLL;
    int k0 = slice * SPLIT_UNROLL;
    for (; k0 + SPLIT_UNROLL <= K; k0 += step) {
      float b[SPLIT_UNROLL];
#pragma unroll
      for (int j = 0; j < SPLIT_UNROLL; ++j) b[j] = LD(B, (k0 + j) * ldb + n);
#pragma unroll
      for (int m = 0; m < SKINNY_ROWS; ++m) {
        if (m < M) {
#pragma unroll
          for (int j = 0; j < SPLIT_UNROLL; ++j) {
            acc[m] = fma(LD(A, m * lda + k0 + j), b[j], acc[m]);
          }
        }
      }
    }
    for (int k = k0; k < min(K, k0 + SPLIT_UNROLL); ++k) {  // this slice's share of the last rows
      const float b = LD(B, k * ldb + n);
#pragma unroll
      for (int m = 0; m < SKINNY_ROWS; ++m) {
        if (m < M) acc[m] = fma(LD(A, m * lda + k), b, acc[m]);
      }
    }
  }
  // Every row's sums first, then one pairwise pass for all rows: a barrier inside a loop inside
  // the row loop took PoCL's compiler (LLVM 15) over 15 minutes.
  const int size = cols * slices, me = slice * cols + col;
#pragma unroll
  for (int m = 0; m < SKINNY_ROWS; ++m) {
    if (m < M) part[m * size + me] = acc[m];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int reach = slices / 2; reach > 0; reach /= 2) {
    if (slice < reach) {
#pragma unroll
      for (int m = 0; m < SKINNY_ROWS; ++m) {
        if (m < M) part[m * size + me] += part[m * size + me + reach * cols];
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (slice == 0 && n < N) {
#pragma unroll
    for (int m = 0; m < SKINNY_ROWS; ++m) {
      if (m < M) {
        float v = part[m * size + col];
        if (bias_mode == 1) v += LD(bias, bias_offset + n);
        if (bias_mode == 2) v += LD(bias, bias_offset + m);
        ST(C, m * ldc + n, activate(v, act, clip));
      }
    }
  }
}

// Which element of the images (from their start) the column entry (image, row r, pixel o) of
// im2col / im2row reads; -1 for padding. g: c, h, w, oh, ow, kh, kw, sh, sw, dh, dw, pt, pl.
inline int im2col_source(int image, int r, int o, int image_stride, constant int* g) {
  const int h = g[1], w = g[2], ow = g[4], kh = g[5], kw = g[6];
  const int ox = o % ow, oy = o / ow;
  const int kx = r % kw, ky = (r / kw) % kh, ch = r / (kw * kh);
  const int iy = oy * g[7] - g[11] + ky * g[9];
  const int ix = ox * g[8] - g[12] + kx * g[10];
  return (iy >= 0 && iy < h && ix >= 0 && ix < w) ? image * image_stride + (ch * h + iy) * w + ix
                                                  : -1;
}

// im2row's body for either element type: work-item (image, pixel) writes that pixel's row of
// channels * kh * kw columns, its coordinates computed once and the (channel, ky, kx) walk free
// of divisions (one work-item per element, dividing for every one, ran a 3x3 convolution's
// im2row slower than its GEMM on PoCL's CPU device). `zero`: the padding's value; load and
// store: LD and ST, or RAW_LD and RAW_ST for bytes.
#define RAW_LD(p, i) ((p)[i])
#define RAW_ST(p, i, v) ((p)[i] = (v))
#define IM2ROW_BODY(zero, load, store)                                                 \
  const int h = g[1], w = g[2], ow = g[4], kh = g[5], kw = g[6], plane = g[3] * ow;  \
  const int i = get_global_id(0);                                                    \
  if (i >= images * plane) return;                                                   \
  const int o = i % plane, y0 = (o / ow) * g[7] - g[11], x0 = (o % ow) * g[8] - g[12]; \
  const int src0 = x_offset + (i / plane) * image_stride;                            \
  int dst = i * channels * kh * kw;                                                  \
  for (int ch = 0; ch < channels; ++ch) {                                            \
    for (int ky = 0; ky < kh; ++ky) {                                                \
      const int iy = y0 + ky * g[9];                                                 \
      const bool row_in = iy >= 0 && iy < h;                                         \
      for (int kx = 0; kx < kw; ++kx, ++dst) {                                       \
        const int ix = x0 + kx * g[10];                                              \
        const bool inside = row_in && ix >= 0 && ix < w;                             \
        store(cols, dst, inside ? load(x, src0 + (ch * h + iy) * w + ix) : zero);    \
      }                                                                              \
    }                                                                                \
  }

// ---- i8: dense and conv2d on 8-bit integers ---------------------------------------------------
// An activation is quantized per tensor to u8 (a tensor never negative in the calibration run)
// or s8; the weights to s8 per output channel (src/backends/common/quantization.h). Products
// are summed exactly in 32-bit integers and dequantized by one scale per output channel.
// u8 and s8 activations share each kernel: their bytes are read as uchar and sign-extended
// with (v ^ flip) - flip, flip 128 for s8 and 0 for u8 (a uniform value, cheaper than a second
// copy of every kernel).

// CHUNK elements per work-item, as the other elementwise kernels; the signedness chosen once.
kernel void quantize(global const ELEM* x, global uchar* q, float scale, int is_signed, int n) {
  const int i0 = get_global_id(0) * CHUNK, end = min(i0 + CHUNK, n);
  if (is_signed) {
    for (int i = i0; i < end; ++i) {
      q[i] = (uchar)(char)clamp(rint(LD(x, i) * scale), -127.0f, 127.0f);
    }
  } else {
    for (int i = i0; i < end; ++i) q[i] = (uchar)clamp(rint(LD(x, i) * scale), 0.0f, 255.0f);
  }
}

// im2row of quantized bytes (as im2row; padding is 0 in u8 and s8 alike).
kernel void im2row_i8(global const uchar* x, int x_offset, int image_stride, int channels,
                      constant int* g, global uchar* cols, int images) {
  IM2ROW_BODY((uchar)0, RAW_LD, RAW_ST)
}

// gemm_packed on 8-bit integers: A the u8/s8 activations (strides as gemm_packed's: a dense
// layer's input, a convolution's im2row columns), Bp the s8 weights packed as gemm_packed's;
// VEC_ROWS x 32 of C per work-item in two int16 per row; scales per column, the bias (optional)
// per column from bias_offset.
kernel void gemm_i8_packed(int M, int N, int K, global const uchar* A, int a_offset, int a_ms,
                           int a_ks, int a_batch, int a_signed, global const char* Bp,
                           global float* C, int c_offset, int c_ms, int c_ns, int c_batch,
                           global const float* scales, global const float* bias, int bias_offset,
                           int act, float clip) {
  const int p = get_global_id(0), n0 = p * PACKED_COLS, m0 = get_global_id(1) * VEC_ROWS;
  const int z = get_global_id(2);
  if (m0 >= M) return;
  A += a_offset + z * a_batch + m0 * a_ms;
  C += c_offset + z * c_batch;
  Bp += (size_t)p * K * PACKED_COLS;
  const int flip = a_signed ? 128 : 0;
  const int rows = min(VEC_ROWS, M - m0);
  int16 lo[VEC_ROWS], hi[VEC_ROWS];
  for (int i = 0; i < VEC_ROWS; ++i) lo[i] = hi[i] = (int16)(0);
  if (rows == VEC_ROWS) {  // a constant trip count: the row loop unrolls into registers
    for (int k = 0; k < K; ++k) {
      const int16 b0 = convert_int16(vload16(0, Bp + k * PACKED_COLS)),
                  b1 = convert_int16(vload16(1, Bp + k * PACKED_COLS));
      for (int i = 0; i < VEC_ROWS; ++i) {
        const int a = ((int)A[i * a_ms + k * a_ks] ^ flip) - flip;
        lo[i] += a * b0;
        hi[i] += a * b1;
      }
    }
  } else {
    for (int k = 0; k < K; ++k) {
      const int16 b0 = convert_int16(vload16(0, Bp + k * PACKED_COLS)),
                  b1 = convert_int16(vload16(1, Bp + k * PACKED_COLS));
      for (int i = 0; i < rows; ++i) {
        const int a = ((int)A[i * a_ms + k * a_ks] ^ flip) - flip;
        lo[i] += a * b0;
        hi[i] += a * b1;
      }
    }
  }
  const int cols = min(PACKED_COLS, N - n0);
  for (int i = 0; i < rows; ++i) {
    int v[PACKED_COLS];
    vstore16(lo[i], 0, v);
    vstore16(hi[i], 1, v);
    for (int j = 0; j < cols; ++j) {
      const float r = (float)v[j] * scales[n0 + j] + (bias ? bias[bias_offset + n0 + j] : 0.0f);
      C[(m0 + i) * c_ms + (n0 + j) * c_ns] = activate(r, act, clip);
    }
  }
}

// Depthwise on 8-bit integers: as depthwise_conv, dequantized per filter.
kernel void depthwise_conv_i8(global const uchar* x, int x_signed, global const char* wt,
                              global const float* scales, global const float* bias, int has_bias,
                              global float* y, constant int* g, int filters, int mult, int total,
                              int act, float clip) {
  const int i = get_global_id(0);
  if (i >= total) return;
  const int c = g[0], h = g[1], w = g[2], oh = g[3], ow = g[4], kh = g[5], kw = g[6];
  const int ox = i % ow, oy = (i / ow) % oh, f = (i / (ow * oh)) % filters,
            n = i / (ow * oh * filters);
  const int flip = x_signed ? 128 : 0;
  global const uchar* image = x + (n * c + f / mult) * h * w;
  global const char* k = wt + f * kh * kw;
  int acc = 0;
  for (int ky = 0; ky < kh; ++ky) {
    const int iy = oy * g[7] - g[11] + ky * g[9];
    if (iy < 0 || iy >= h) continue;
    for (int kx = 0; kx < kw; ++kx) {
      const int ix = ox * g[8] - g[12] + kx * g[10];
      if (ix >= 0 && ix < w) acc += (int)k[ky * kw + kx] * (((int)image[iy * w + ix] ^ flip) - flip);
    }
  }
  y[i] = activate((float)acc * scales[f] + (has_bias ? bias[f] : 0.0f), act, clip);
}

// ---- convolution helpers --------------------------------------------------------------------
// g: c, h, w, oh, ow, kh, kw, sh, sw, dh, dw, pt, pl (13 ints).
// im2col of `images` images, each channels x h x w from x + x_offset + image * image_stride, into
// cols [image][channel * kh * kw][oh * ow].
kernel void im2col(global const ELEM* x, int x_offset, int image_stride, int channels,
                   constant int* g, global ELEM* cols, int images) {
  const int plane = g[3] * g[4], rows = channels * g[5] * g[6];
  const int i = get_global_id(0);
  if (i >= images * rows * plane) return;
  const int from = im2col_source(i / (plane * rows), (i / plane) % rows, i % plane, image_stride, g);
  ST(cols, i, from >= 0 ? LD(x, x_offset + from) : 0.0f);
}

// The same columns transposed, [image][oh * ow][channel * kh * kw] (im2row): A of gemm_packed,
// whose B is the convolution's weights.
kernel void im2row(global const ELEM* x, int x_offset, int image_stride, int channels,
                   constant int* g, global ELEM* cols, int images) {
  IM2ROW_BODY(0.0f, LD, ST)
}

// Depthwise (one input channel per group, `mult` filters each): one work-item per output.
kernel void depthwise_conv(global const ELEM* x, global const ELEM* wt, global const ELEM* bias,
                           int has_bias, global ELEM* y, constant int* g, int filters, int mult,
                           int total, int act, float clip) {
  const int i = get_global_id(0);
  if (i >= total) return;
  const int c = g[0], h = g[1], w = g[2], oh = g[3], ow = g[4], kh = g[5], kw = g[6];
  const int ox = i % ow, oy = (i / ow) % oh, f = (i / (ow * oh)) % filters,
            n = i / (ow * oh * filters);
  global const ELEM* image = x + (n * c + f / mult) * h * w;
  global const ELEM* k = wt + f * kh * kw;
  float acc = has_bias ? LD(bias, f) : 0.0f;
  for (int ky = 0; ky < kh; ++ky) {
    const int iy = oy * g[7] - g[11] + ky * g[9];
    if (iy < 0 || iy >= h) continue;
    for (int kx = 0; kx < kw; ++kx) {
      const int ix = ox * g[8] - g[12] + kx * g[10];
      if (ix >= 0 && ix < w) acc = fma(LD(k, ky * kw + kx), LD(image, iy * w + ix), acc);
    }
  }
  ST(y, i, activate(acc, act, clip));
}

// conv_transpose's col2im as a gather (no atomics): each output pixel of `filters` filters sums
// the (ky, kx) columns whose input pixel lands on it. t: h, w, oh, ow, kh, kw, sh, sw, dh, dw,
// pt, pl.
kernel void col2im(global const ELEM* cols, global ELEM* y, int y_offset,
                   global const ELEM* bias, int has_bias, int bias_offset, constant int* t,
                   int filters) {
  const int h = t[0], w = t[1], oh = t[2], ow = t[3], kh = t[4], kw = t[5];
  const int i = get_global_id(0);
  if (i >= filters * oh * ow) return;
  const int ox = i % ow, oy = (i / ow) % oh, f = i / (ow * oh);
  float acc = has_bias ? LD(bias, bias_offset + f) : 0.0f;
  for (int ky = 0; ky < kh; ++ky) {
    const int ny = oy + t[10] - ky * t[8];
    if (ny < 0 || ny % t[6] != 0) continue;
    const int iy = ny / t[6];
    if (iy >= h) continue;
    for (int kx = 0; kx < kw; ++kx) {
      const int nx = ox + t[11] - kx * t[9];
      if (nx < 0 || nx % t[7] != 0) continue;
      const int ix = nx / t[7];
      if (ix >= w) continue;
      acc += LD(cols, ((f * kh + ky) * kw + kx) * h * w + iy * w + ix);
    }
  }
  ST(y, y_offset + i, acc);
}

// ---- pooling, normalization, softmax, reduction ---------------------------------------------
// q: h, w, oh, ow, kh, kw, sh, sw, pt, pl.
kernel void window_pool(global const ELEM* x, global ELEM* y, constant int* q, int total,
                        int is_max, int include_pad) {
  const int i = get_global_id(0);
  if (i >= total) return;
  const int h = q[0], w = q[1], oh = q[2], ow = q[3];
  const int ox = i % ow, oy = (i / ow) % oh, plane = i / (ow * oh);
  const int y0 = oy * q[6] - q[8], x0 = ox * q[7] - q[9];
  const int ya = max(y0, 0), yb = min(y0 + q[4], h), xa = max(x0, 0), xb = min(x0 + q[5], w);
  global const ELEM* image = x + plane * h * w;
  float acc = is_max ? -INFINITY : 0.0f;
  for (int iy = ya; iy < yb; ++iy)
    for (int ix = xa; ix < xb; ++ix)
      acc = is_max ? fmax(acc, LD(image, iy * w + ix)) : acc + LD(image, iy * w + ix);
  if (!is_max) acc /= (float)(include_pad ? q[4] * q[5] : (yb - ya) * (xb - xa));
  ST(y, i, acc);
}

// One work-group per plane: a tree sum in local memory (LOCAL_SIZE work-items).
#ifndef LOCAL_SIZE
#define LOCAL_SIZE 64
#endif
// The sum of every work-item's `acc` over a work-group of `size` (a power of two), a tree in
// local memory `part` (`size` floats); every work-item must call it. Leaves `part` free for the
// next sum.
float group_sum_of(local float* part, float acc, int size) {
  const int l = get_local_id(0);
  part[l] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = size / 2; s > 0; s >>= 1) {
    if (l < s) part[l] += part[l + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const float sum = part[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  return sum;
}

float group_sum(local float* part, float acc) { return group_sum_of(part, acc, LOCAL_SIZE); }

// The largest of every work-item's `v` over the work-group, as group_sum.
float group_max(local float* part, float v) {
  const int l = get_local_id(0);
  part[l] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = LOCAL_SIZE / 2; s > 0; s >>= 1) {
    if (l < s) part[l] = fmax(part[l], part[l + s]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const float top = part[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  return top;
}

kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1))) void plane_mean(
    global const ELEM* x, global ELEM* y, int area) {
  local float part[LOCAL_SIZE];
  const int plane = get_group_id(0), l = get_local_id(0);
  float acc = 0.0f;
  for (int i = l; i < area; i += LOCAL_SIZE) acc += LD(x, plane * area + i);
  const float sum = group_sum(part, acc);
  if (l == 0) ST(y, plane, sum / (float)area);
}

kernel void batchnorm(global const ELEM* x, global ELEM* y, global const float* scale,
                      global const float* shift, int channels, int inner, int total) {
  const int i0 = get_global_id(0) * CHUNK, end = min(i0 + CHUNK, total);
  int ch = (i0 / inner) % channels;
  // Runs of one channel: plain loops, which PoCL vectorises.
  for (int i = i0, run_end = min(end, i0 + inner - i0 % inner); i < end;
       run_end = min(end, i + inner)) {
    const float s = scale[ch], t = shift[ch];
    for (; i < run_end; ++i) ST(y, i, LD(x, i) * s + t);
    ch = ch + 1 == channels ? 0 : ch + 1;
  }
}

#ifndef NORM_LOCAL
#define NORM_LOCAL 64
#endif
// A row norm's work-item's share of sum((x - center)^2) (squares) or sum(x) over a row of `c`:
// four loads in flight at a time, since one row is one work-group and a decode step has one row
// (a GPU otherwise waits out each load's latency in turn).
float row_part(global const ELEM* in, int c, float center, int squares) {
  const int l = get_local_id(0);
  float acc = 0.0f;
  int i = l;
  for (; i + 3 * NORM_LOCAL < c; i += 4 * NORM_LOCAL) {
    const float a = LD(in, i) - center, b = LD(in, i + NORM_LOCAL) - center;
    const float d = LD(in, i + 2 * NORM_LOCAL) - center, e = LD(in, i + 3 * NORM_LOCAL) - center;
    acc += squares ? (a * a + b * b) + (d * d + e * e) : (a + b) + (d + e);
  }
  for (; i < c; i += NORM_LOCAL) {
    const float a = LD(in, i) - center;
    acc += squares ? a * a : a;
  }
  return acc;
}

// One work-group per row: mean, then variance, each a tree sum in local memory.
kernel __attribute__((reqd_work_group_size(NORM_LOCAL, 1, 1))) void layernorm(
    global const ELEM* x, global ELEM* y, global const ELEM* gamma, global const ELEM* beta,
    float eps, int c) {
  local float part[NORM_LOCAL];
  const int row = get_group_id(0), l = get_local_id(0);
  global const ELEM* in = x + row * c;
  const float mean = group_sum_of(part, row_part(in, c, 0.0f, 0), NORM_LOCAL) / (float)c;
  const float var = group_sum_of(part, row_part(in, c, mean, 1), NORM_LOCAL) / (float)c;
  const float inv = 1.0f / sqrt(var + eps);
  for (int i = l; i < c; i += NORM_LOCAL)
    ST(y, row * c + i, (LD(in, i) - mean) * inv * LD(gamma, i) + LD(beta, i));
}

// One work-item per (outer, inner) line of `len` elements `inner` apart.
kernel void softmax(global const ELEM* x, global ELEM* y, int len, int inner, int lines) {
  const int i = get_global_id(0);
  if (i >= lines) return;
  const int base = (i / inner) * len * inner + i % inner;
  float top = -INFINITY;
  for (int k = 0; k < len; ++k) top = fmax(top, LD(x, base + k * inner));
  float sum = 0.0f;
  for (int k = 0; k < len; ++k) {
    const float e = exp(LD(x, base + k * inner) - top);
    ST(y, base + k * inner, e);
    sum += e;
  }
  for (int k = 0; k < len; ++k) ST(y, base + k * inner, LD(y, base + k * inner) / sum);
}

// One work-item per output element. p: kept rank, kept dims, kept strides (in the input),
// reduced rank, reduced dims, reduced strides (MAX_RANK each after the rank).
#define REDUCE_SUM 0
#define REDUCE_MEAN 1
#define REDUCE_MAX 2
kernel void reduce(global const ELEM* x, global ELEM* y, constant int* p, int outputs,
                   int count, int how) {
  const int o = get_global_id(0);
  if (o >= outputs) return;
  const int kept = p[0];
  int rest = o, base = 0;
  for (int d = kept - 1; d >= 0; --d) {
    base += (rest % p[1 + d]) * p[1 + MAX_RANK + d];
    rest /= p[1 + d];
  }
  constant int* r = p + 1 + 2 * MAX_RANK;
  const int reduced = r[0];
  float acc = how == REDUCE_MAX ? -INFINITY : 0.0f;
  for (int j = 0; j < count; ++j) {
    int rj = j, off = base;
    for (int d = reduced - 1; d >= 0; --d) {
      off += (rj % r[1 + d]) * r[1 + MAX_RANK + d];
      rj /= r[1 + d];
    }
    acc = how == REDUCE_MAX ? fmax(acc, LD(x, off)) : acc + LD(x, off);
  }
  ST(y, o, how == REDUCE_MEAN ? acc * (1.0f / (float)count) : acc);
}

// ---- resize, embedding, context window ------------------------------------------------------
// Taps per output row and column (resize_taps.h): lo, hi as ints, weight as float.
kernel void resize(global const ELEM* x, global ELEM* y, global const int* ty_idx,
                   global const float* ty_w, global const int* tx_idx, global const float* tx_w,
                   int h, int w, int oh, int ow, int linear, int total) {
  const int i = get_global_id(0);
  if (i >= total) return;
  const int ox = i % ow, oy = (i / ow) % oh, plane = i / (ow * oh);
  global const ELEM* r0 = x + plane * h * w + ty_idx[2 * oy] * w;
  global const ELEM* r1 = x + plane * h * w + ty_idx[2 * oy + 1] * w;
  const int lo = tx_idx[2 * ox], hi = tx_idx[2 * ox + 1];
  if (!linear) {
    ST(y, i, LD(r0, lo));
    return;
  }
  const float top = LD(r0, lo) + tx_w[ox] * (LD(r0, hi) - LD(r0, lo));
  const float bottom = LD(r1, lo) + tx_w[ox] * (LD(r1, hi) - LD(r1, lo));
  ST(y, i, top + ty_w[oy] * (bottom - top));
}

// An id that is no integer in [-vocab, vocab) writes its position + 1 to *bad (the host names
// it after the run) and a zero row. Token ids beyond what f16 holds exactly (2048) stay float in
// f16 runs (embedding); ids stored as the tensors are (embedding_stored_ids) are read as ELEM.
#define EMBEDDING_BODY(id_at)                                      \
  const int i = get_global_id(0);                                  \
  if (i >= total) return;                                          \
  const int pos = i / dim, col = i % dim;                          \
  const float v = id_at;                                           \
  if (!(v >= -(float)vocab && v < (float)vocab) || v != trunc(v)) { \
    if (col == 0) atomic_cmpxchg(bad, 0, pos + 1);                 \
    ST(y, i, 0.0f);                                                \
    return;                                                        \
  }                                                                \
  const int row = v < 0.0f ? (int)v + vocab : (int)v;              \
  ST(y, i, LD(table, row * dim + col));

kernel void embedding(global const float* ids, global const ELEM* table, global ELEM* y,
                      int vocab, int dim, int total, global int* bad) {
  EMBEDDING_BODY(ids[pos])
}

kernel void embedding_stored_ids(global const ELEM* ids, global const ELEM* table, global ELEM* y,
                                 int vocab, int dim, int total, global int* bad) {
  EMBEDDING_BODY(LD(ids, pos))
}

kernel void context_window(global const ELEM* x, global ELEM* y, int steps, int features,
                           int context, int total) {
  const int i = get_global_id(0);
  if (i >= total) return;
  const int f = i % features, r = i / features;
  const int slot = r % (2 * context + 1), nt = r / (2 * context + 1);
  const int t = nt % steps, n = nt / steps;
  const int source = t + slot - context;
  ST(y, i, (source >= 0 && source < steps) ? LD(x, (n * steps + source) * features + f) : 0.0f);
}

// ---- recurrent gates (recurrent_gates.h's math) ---------------------------------------------
// hg [N, 4H]: h * W_h of this step; xg: the input projection of all steps [N, T, 4H] with bias.
// Gates i, f, g, o. One work-item per (n, j); writes the state into y [N, T, dirs * H].
inline float sigmoid(float v) { return 1.0f / (1.0f + exp(-v)); }

kernel void lstm_gates(global const ELEM* hg, global const ELEM* xg, global ELEM* state,
                       global ELEM* cell, global ELEM* y, int n_rows, int h, int t, int steps,
                       int y_width, int y_offset) {
  const int i = get_global_id(0);
  if (i >= n_rows * h) return;
  const int n = i / h, j = i % h;
  global const ELEM* r = hg + n * 4 * h;
  global const ELEM* xt = xg + (n * steps + t) * 4 * h;
  const float gi = sigmoid(LD(r, j) + LD(xt, j));
  const float gf = sigmoid(LD(r, h + j) + LD(xt, h + j));
  const float gg = tanh(LD(r, 2 * h + j) + LD(xt, 2 * h + j));
  const float go = sigmoid(LD(r, 3 * h + j) + LD(xt, 3 * h + j));
  const float c = gf * LD(cell, i) + gi * gg;
  ST(cell, i, c);
  const float s = go * tanh(c);
  ST(state, i, s);
  ST(y, (n * steps + t) * y_width + y_offset + j, s);
}

// Linear-before-reset GRU: gates r, z, n; hg [N, 3H] without bias_hn.
kernel void gru_gates(global const ELEM* hg, global const ELEM* xg, global ELEM* state,
                      global const ELEM* bias_hn, global ELEM* y, int n_rows, int h, int t,
                      int steps, int y_width, int y_offset) {
  const int i = get_global_id(0);
  if (i >= n_rows * h) return;
  const int n = i / h, j = i % h;
  global const ELEM* r = hg + n * 3 * h;
  global const ELEM* xt = xg + (n * steps + t) * 3 * h;
  const float gr = sigmoid(LD(r, j) + LD(xt, j));
  const float gz = sigmoid(LD(r, h + j) + LD(xt, h + j));
  const float gn = tanh(LD(xt, 2 * h + j) + gr * (LD(r, 2 * h + j) + LD(bias_hn, j)));
  const float s = (1.0f - gz) * gn + gz * LD(state, i);
  ST(state, i, s);
  ST(y, (n * steps + t) * y_width + y_offset + j, s);
}

// One work-group per row: the mean square as a tree sum in local memory, then x / rms * gamma.
kernel __attribute__((reqd_work_group_size(NORM_LOCAL, 1, 1))) void rms_norm(
    global const ELEM* x, global ELEM* y, global const ELEM* gamma, float eps, int c) {
  local float part[NORM_LOCAL];
  const int row = get_group_id(0), l = get_local_id(0);
  global const ELEM* in = x + row * c;
  const float mean_square = group_sum_of(part, row_part(in, c, 0.0f, 1), NORM_LOCAL) / (float)c;
  const float inv = 1.0f / sqrt(mean_square + eps);
  for (int i = l; i < c; i += NORM_LOCAL) ST(y, row * c + i, LD(in, i) * inv * LD(gamma, i));
}

// One work-item per output element: act(gate) * value, the gate the first half of each row.
kernel void swiglu(global const ELEM* x, global ELEM* y, int f, int total, int gelu) {
  const int o = get_global_id(0);
  if (o >= total) return;
  const int row = o / f, i = o % f;
  const float z = LD(x, row * 2 * f + i);
  const float act =
      gelu ? 0.5f * z * (1.0f + erf(z * 0.70710678118654752f)) : z / (1.0f + exp(-z));
  ST(y, o, act * LD(x, row * 2 * f + f + i));
}

// One work-item per pair of features of one head at one position: p = {rows, heads, head size,
// interleaved}; cos and sin [rows, D/2].
// `first`: the table's row of the first position (the offset, moved by a run's position shift).
kernel void rotary(global const ELEM* x, global ELEM* y, global const float* cosines,
                   global const float* sines, constant int* p, int pairs, int first) {
  const int o = get_global_id(0);
  if (o >= pairs) return;
  const int rows = p[0], heads = p[1], d = p[2], pairs_per_head = d / 2;
  const int j = o % pairs_per_head, head = o / pairs_per_head, pos = first + head / heads % rows;
  const int base = head * d;
  const int i0 = p[3] ? base + 2 * j : base + j;
  const int i1 = p[3] ? i0 + 1 : i0 + pairs_per_head;
  const float c = cosines[pos * pairs_per_head + j], s = sines[pos * pairs_per_head + j];
  const float a = LD(x, i0), b = LD(x, i1);
  ST(y, i0, a * c - b * s);
  ST(y, i1, b * c + a * s);
}

// One work-item per (item, head, query): the keys it sees in one pass with a running maximum
// (online softmax), the weighted values summed in private memory. p = {batch, queries, keys,
// heads, kv heads, head size, value size, causal, masked}; `shift` (<= 0) leaves the last keys
// of a cache out, where a run's position is earlier than resolved. A query that sees no key gives
// zeros.
#define ATTENTION_MAX_VALUE 256
kernel void attention(global const ELEM* q, global const ELEM* k, global const ELEM* v,
                      global const ELEM* mask, global ELEM* y, constant int* p, float scale,
                      int shift) {
  const int batch = p[0], sq = p[1], sk = p[2], heads = p[3], kv_heads = p[4], d = p[5],
            dv = p[6];
  const int item = get_global_id(0);
  if (item >= batch * heads * sq) return;
  const int i = item % sq, h = item / sq % heads, n = item / (sq * heads);
  const int kvh = h / (heads / kv_heads);
  const int last = (p[7] ? sk - sq + i : sk - 1) + shift;
  global const ELEM* qrow = q + (n * sq + i) * heads * d + h * d;
  float acc[ATTENTION_MAX_VALUE];
  for (int e = 0; e < dv; ++e) acc[e] = 0.0f;
  float top = -INFINITY, sum = 0.0f;
  for (int j = 0; j <= last; ++j) {
    if (p[8] && LD(mask, n * sk + j) == 0.0f) continue;
    global const ELEM* krow = k + (n * sk + j) * kv_heads * d + kvh * d;
    float s = 0.0f;
    for (int e = 0; e < d; ++e) s += LD(qrow, e) * LD(krow, e);
    s *= scale;
    if (s > top) {
      const float shrink = exp(top - s);  // 0 for the first key seen
      sum *= shrink;
      for (int e = 0; e < dv; ++e) acc[e] *= shrink;
      top = s;
    }
    const float w = exp(s - top);
    sum += w;
    global const ELEM* vrow = v + (n * sk + j) * kv_heads * dv + kvh * dv;
    for (int e = 0; e < dv; ++e) acc[e] += w * LD(vrow, e);
  }
  global ELEM* out = y + (n * sq + i) * heads * dv + h * dv;
  const float inv = sum > 0.0f ? 1.0f / sum : 0.0f;
  for (int e = 0; e < dv; ++e) ST(out, e, acc[e] * inv);
}

// The same attention with one work-group per (item, head, query), for GPUs, where a work-item per
// query leaves most of the device idle (a decode step has batch x heads queries). The work-items
// split the keys: each scores its keys into local memory, the group takes the maximum and the
// sum, then each work-item sums the weighted values of its output features over every key
// (neighbouring work-items read neighbouring features). Keys at most ATTENTION_LOCAL_KEYS, a
// query head at most ATTENTION_MAX_HEAD features (the host falls back to `attention` beyond).
#define ATTENTION_LOCAL_KEYS 4096
#define ATTENTION_MAX_HEAD 256
kernel __attribute__((reqd_work_group_size(LOCAL_SIZE, 1, 1))) void attention_group(
    global const ELEM* q, global const ELEM* k, global const ELEM* v, global const ELEM* mask,
    global ELEM* y, constant int* p, float scale, int shift) {
  local float part[LOCAL_SIZE];
  local float w[ATTENTION_LOCAL_KEYS];
  local float qs[ATTENTION_MAX_HEAD];
  const int sq = p[1], sk = p[2], heads = p[3], kv_heads = p[4], d = p[5], dv = p[6];
  const int item = get_group_id(0), l = get_local_id(0);
  const int i = item % sq, h = item / sq % heads, n = item / (sq * heads);
  const int kvh = h / (heads / kv_heads);
  const int last = (p[7] ? sk - sq + i : sk - 1) + shift;
  global const ELEM* qrow = q + (n * sq + i) * heads * d + h * d;
  for (int e = l; e < d; e += LOCAL_SIZE) qs[e] = LD(qrow, e);
  barrier(CLK_LOCAL_MEM_FENCE);
  float top = -INFINITY;
  for (int j = l; j <= last; j += LOCAL_SIZE) {
    float s = -INFINITY;  // a masked key weighs nothing
    if (!(p[8] && LD(mask, n * sk + j) == 0.0f)) {
      global const ELEM* krow = k + (n * sk + j) * kv_heads * d + kvh * d;
      float dot = 0.0f;
      for (int e = 0; e < d; ++e) dot += qs[e] * LD(krow, e);
      s = dot * scale;
    }
    w[j] = s;
    top = fmax(top, s);
  }
  top = group_max(part, top);
  float sum = 0.0f;
  for (int j = l; j <= last; j += LOCAL_SIZE) {
    const float e = w[j] == -INFINITY ? 0.0f : exp(w[j] - top);
    w[j] = e;
    sum += e;
  }
  sum = group_sum(part, sum);  // its barriers make every weight visible to every work-item
  const float inv = sum > 0.0f ? 1.0f / sum : 0.0f;  // a query that sees no key gives zeros
  global const ELEM* values = v + n * sk * kv_heads * dv + kvh * dv;
  global ELEM* out = y + (n * sq + i) * heads * dv + h * dv;
  for (int e = l; e < dv; e += LOCAL_SIZE) {
    float acc = 0.0f;
    for (int j = 0; j <= last; ++j) acc += w[j] * LD(values, j * kv_heads * dv + e);
    ST(out, e, acc * inv);
  }
}
