/* SGEMM micro-kernels: C[m, n] (+)= A_panel * B_panel over kc, for packed panels.
 *
 * A panel: kc groups of MR floats (one per row); B panel: kc groups of NR floats. The
 * AVX-512 kernel keeps a 12x32 block of C in 24 zmm registers, the AVX2+FMA kernel a
 * 6x16 block in 12 ymm registers; a portable kernel covers everything else. The best
 * one the CPU supports is chosen once (mtk_gemm_arch). Partial blocks (m < MR or
 * n < NR) are stored through masks / a bounds check; the panels are zero-padded. */
#include <string.h>

#include "mtk.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define MTK_X86 1
#endif

/* The fused epilogue on one value of row i, column j of a block (the portable and AVX2 stores). */
static inline float post1(const mtk_post* p, int64_t i, int j, float v) {
  if (p->shift != NULL) {
    if (p->mul != NULL) v = v * p->mul[j];
    v = v + p->shift[j];
  }
  if (p->add != NULL) v = v + p->add[i * p->ld_add + j];
  if (p->act == MTK_ACT_RELU || p->act == MTK_ACT_RELU6) v = v < 0.0f ? 0.0f : v;
  if (p->act == MTK_ACT_RELU6) v = v > 6.0f ? 6.0f : v;
  return v;
}

/* Row i of a block from tmp (n values): + C when accumulating, then the fused epilogue. */
static inline void store_tmp(float* restrict out, const float* restrict tmp, int n, int accumulate,
                             const mtk_post* post, int64_t i) {
  for (int j = 0; j < n; ++j) {
    float v = accumulate ? out[j] + tmp[j] : tmp[j];
    out[j] = post != NULL ? post1(post, i, j, v) : v;
  }
}

#ifdef MTK_X86
/* How far ahead (in floats of the packed B panel) the AVX-512 kernels prefetch: 16 depth steps. The weights of a
 * layer are read from memory once per row tile; the prefetch keeps that stream ahead of the FMAs. */
#ifndef MTK_PREFETCH_B
#define MTK_PREFETCH_B (16 * 32)
#endif

/* One row of a block (up to 16 columns under mask k) stored: + C when accumulating, then the fused epilogue. */
__attribute__((target("avx512f,prfchw"))) static inline void store_row16(float* restrict out, __m512 r, __mmask16 k,
                                                                  int accumulate, const mtk_post* post, int64_t i,
                                                                  int col) {
  if (accumulate) r = _mm512_add_ps(r, _mm512_maskz_loadu_ps(k, out));
  if (post != NULL) {
    if (post->shift != NULL) {
      if (post->mul != NULL) r = _mm512_mul_ps(r, _mm512_maskz_loadu_ps(k, post->mul + col));
      r = _mm512_add_ps(r, _mm512_maskz_loadu_ps(k, post->shift + col));
    }
    if (post->add != NULL) r = _mm512_add_ps(r, _mm512_maskz_loadu_ps(k, post->add + i * post->ld_add + col));
    /* max/min return their second operand when one is NaN: NaN stays NaN, as x < 0 ? 0 : x */
    if (post->act == MTK_ACT_RELU) {
      r = _mm512_max_ps(_mm512_setzero_ps(), r);
    } else if (post->act == MTK_ACT_RELU6) {
      r = _mm512_min_ps(_mm512_set1_ps(6.0f), _mm512_max_ps(_mm512_setzero_ps(), r));
    }
  }
  _mm512_mask_storeu_ps(out, k, r);
}

/* A 12 x 32 block (n <= 32 columns real) stored row by row; row i at c + row(i) * ldc (see store_tile). */
__attribute__((target("avx512f,prfchw"))) static inline void store_block32(__m512 (*acc)[2], float* restrict c, int64_t ldc,
                                                                    const int64_t* rowidx, int accumulate, int m,
                                                                    int n, const mtk_post* post) {
  __mmask16 k0 = (__mmask16)(n >= 16 ? 0xFFFF : (1u << n) - 1);
  __mmask16 k1 = (__mmask16)(n <= 16 ? 0 : (n >= 32 ? 0xFFFF : (1u << (n - 16)) - 1));
  for (int i = 0; i < m; ++i) {
    const int64_t r = rowidx != NULL ? rowidx[i] : i;
    float* out = c + r * ldc;
    store_row16(out, acc[i][0], k0, accumulate, post, r, 0);
    if (k1) store_row16(out + 16, acc[i][1], k1, accumulate, post, r, 16);
  }
}

/* The AVX-512 kernels are written once per A source (packed panel, rows in place, indirect taps) with the row count R
 * and the width W (in zmm columns) compile-time constants. A block of m <= 4 or m <= 8 rows (the last rows of a tile:
 * 49 = 4 * 12 + 1 rows at 7x7, 64 = 5 * 12 + 4 at 8x8) runs the FMAs of R rows, not of 12; the last panel of a product
 * whose width is not a multiple of 32 often holds 16 or fewer real columns (N = 44 -> 32 + 12): W = 1 runs one
 * accumulator per row over the first 16 columns of the (32-wide) packed panel, half the FMAs. */
#define MTK_AVX512_INLINE __attribute__((target("avx512f,prfchw"), always_inline)) static inline

/* The R x (16 * W) block in acc stored (rows below m, columns below n): the accumulators stay in registers, the
 * epilogue's per-column vectors are loaded once per block and its form decided once, not per row (a block of a
 * shallow product, K = 27 to 128, spends a tenth of its time in a per-row store loop). Row i goes to
 * c + rowidx[i] * ldc, or c + i * ldc when rowidx is NULL. */
MTK_AVX512_INLINE void store_tile(const int R, const int W, __m512 (*acc)[2], float* restrict c, int64_t ldc,
                                  const int64_t* rowidx, int accumulate, int m, int n, const mtk_post* post) {
  if (W == 1 && n > 16) n = 16;
  const __mmask16 k0 = (__mmask16)(n >= 16 ? 0xFFFF : (1u << n) - 1);
  const __mmask16 k1 = (__mmask16)(W == 1 || n <= 16 ? 0 : (n >= 32 ? 0xFFFF : (1u << (n - 16)) - 1));
  if (post != NULL && (post->add != NULL || post->mul != NULL)) { /* batch norm or a residual: per row, general */
    store_block32(acc, c, ldc, rowidx, accumulate, m, n, post);
    return;
  }
  const int act = post != NULL ? post->act : MTK_ACT_NONE;
  const int bias = post != NULL && post->shift != NULL;
  const __m512 zero = _mm512_setzero_ps(), six = _mm512_set1_ps(6.0f);
  const __m512 sh0 = bias ? _mm512_maskz_loadu_ps(k0, post->shift) : zero;
  const __m512 sh1 = bias && W == 2 ? _mm512_maskz_loadu_ps(k1, post->shift + 16) : zero;
#pragma GCC unroll 12
  for (int i = 0; i < R; ++i) {
    if (i < m) {
      float* out = c + (rowidx != NULL ? rowidx[i] : i) * ldc;
      __m512 r0 = acc[i][0], r1 = acc[i][1];
      if (accumulate) {
        r0 = _mm512_add_ps(r0, _mm512_maskz_loadu_ps(k0, out));
        if (W == 2) r1 = _mm512_add_ps(r1, _mm512_maskz_loadu_ps(k1, out + 16));
      }
      if (bias) {
        r0 = _mm512_add_ps(r0, sh0);
        if (W == 2) r1 = _mm512_add_ps(r1, sh1);
      }
      /* max/min return their second operand when one is NaN: NaN stays NaN, as x < 0 ? 0 : x */
      if (act == MTK_ACT_RELU || act == MTK_ACT_RELU6) {
        r0 = _mm512_max_ps(zero, r0);
        if (W == 2) r1 = _mm512_max_ps(zero, r1);
      }
      if (act == MTK_ACT_RELU6) {
        r0 = _mm512_min_ps(six, r0);
        if (W == 2) r1 = _mm512_min_ps(six, r1);
      }
      _mm512_mask_storeu_ps(out, k0, r0);
      if (W == 2) _mm512_mask_storeu_ps(out + 16, k1, r1);
    }
  }
}

/* The block of C this call will store, requested for writing now, and the residual the epilogue adds to it, for
 * reading: their lines arrive while the products run (a layer whose output does not stay in cache otherwise waits
 * for every line at the store; the residual's prefetch made Xception's 1x1 convolution + Add at [8,19,19,728] 2 %
 * faster on one thread). */
MTK_AVX512_INLINE void prefetch_c(const int R, const int W, float* c, int64_t ldc, const int64_t* rowidx, int m,
                                  const mtk_post* post) {
  const float* add = post != NULL ? post->add : NULL;
#pragma GCC unroll 12
  for (int i = 0; i < R; ++i) {
    if (i < m) {
      const int64_t r = rowidx != NULL ? rowidx[i] : i;
      __builtin_prefetch(c + r * ldc, 1, 3);
      if (W == 2) __builtin_prefetch(c + r * ldc + 16, 1, 3);
      if (add != NULL) {
        __builtin_prefetch(add + r * post->ld_add, 0, 3);
        if (W == 2) __builtin_prefetch(add + r * post->ld_add + 16, 0, 3);
      }
    }
  }
}

MTK_AVX512_INLINE void body_packed(const int R, const int W, int64_t kc, const float* restrict a,
                                   const float* restrict b, float* restrict c, int64_t ldc, int accumulate, int m,
                                   int n, const mtk_post* post) {
  prefetch_c(R, W, c, ldc, NULL, m, post);
  __m512 acc[12][2];
#pragma GCC unroll 12
  for (int i = 0; i < R; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
  for (int64_t p = 0; p < kc; ++p) {
    __m512 b0 = _mm512_loadu_ps(b);
    __m512 b1 = W == 2 ? _mm512_loadu_ps(b + 16) : b0;
#pragma GCC unroll 12
    for (int i = 0; i < R; ++i) {
      __m512 ai = _mm512_set1_ps(a[i]);
      acc[i][0] = _mm512_fmadd_ps(ai, b0, acc[i][0]);
      if (W == 2) acc[i][1] = _mm512_fmadd_ps(ai, b1, acc[i][1]);
    }
    a += 12;
    b += 32;
  }
  store_tile(R, W, acc, c, ldc, NULL, accumulate, m, n, post);
}

/* The depth loop of body_rows; PF: the next block's rows prefetched (see there). */
MTK_AVX512_INLINE void rows_loop(const int R, const int W, const int PF, int64_t kc, const float* const* row,
                                 const float* pf, const float* restrict b, __m512 (*acc)[2]) {
  for (int64_t p = 0; p < kc; ++p) {
    __m512 b0 = _mm512_loadu_ps(b);
    __m512 b1 = W == 2 ? _mm512_loadu_ps(b + 16) : b0;
    _mm_prefetch((const char*)(b + MTK_PREFETCH_B), _MM_HINT_T0);
    if (W == 2) _mm_prefetch((const char*)(b + MTK_PREFETCH_B + 16), _MM_HINT_T0);
    if (PF) _mm_prefetch((const char*)(pf + p * 16), _MM_HINT_T0);
#pragma GCC unroll 12
    for (int i = 0; i < R; ++i) {
      __m512 ai = _mm512_set1_ps(row[i][p]);
      acc[i][0] = _mm512_fmadd_ps(ai, b0, acc[i][0]);
      if (W == 2) acc[i][1] = _mm512_fmadd_ps(ai, b1, acc[i][1]);
    }
    b += 32;
  }
}

MTK_AVX512_INLINE void body_rows(const int R, const int W, int64_t kc, const float* restrict a, int64_t lda,
                                 const float* restrict b, float* restrict c, int64_t ldc, int accumulate, int m, int n,
                                 const mtk_post* post) {
  prefetch_c(R, W, c, ldc, NULL, m, post);
  const float* row[12];
#pragma GCC unroll 12
  for (int i = 0; i < R; ++i) row[i] = a + (i < m ? i : m - 1) * lda;
  __m512 acc[12][2];
#pragma GCC unroll 12
  for (int i = 0; i < R; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
  /* Rows in one depth block (lda == kc: a 1x1 layer of up to 256 channels, read in place): the next block's 12 rows
   * (the caller's next call, a tile down, 12 * kc contiguous floats) requested one line per depth step, 16 * kc
   * floats. Such a layer's input streams from memory, and its rows interleave too finely for the hardware
   * prefetcher to keep ahead. */
  if (lda == kc) {
    rows_loop(R, W, 1, kc, row, a + 12 * lda, b, acc);
  } else {
    rows_loop(R, W, 0, kc, row, NULL, b, acc);
  }
  store_tile(R, W, acc, c, ldc, NULL, accumulate, m, n, post);
}

MTK_AVX512_INLINE void body_indirect(const int R, const int W, int64_t ntaps, int64_t depth, const float* const* ptrs,
                                     const float* restrict b0p, const int64_t* boff, float* restrict c, int64_t ldc,
                                     const int64_t* rowidx, int m, int n, const mtk_post* post) {
  prefetch_c(R, W, c, ldc, rowidx, m, post);
  __m512 acc[12][2];
#pragma GCC unroll 12
  for (int i = 0; i < R; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
  for (int64_t t = 0; t < ntaps; ++t) {
    const float* row[12];
#pragma GCC unroll 12
    for (int i = 0; i < R; ++i) row[i] = ptrs[t * 12 + i];
    const float* restrict b = b0p + boff[t];
    /* short taps (a 3x3 filter's rows over 32 channels: 96 floats) end before the hardware prefetcher has caught
     * on to the rows: the next tap's rows requested now (InceptionV3's 3x3 over [8,149,149,32] -> 32, one thread:
     * 32.3-32.9 -> 30.7-30.9 ms; over [8,147,147,32] -> 64: 60.9-61.2 -> 59.9-61.0) */
    if (depth <= 128 && t + 1 < ntaps) {
#pragma GCC unroll 12
      for (int i = 0; i < R; ++i)
        for (int64_t l = 0; l < depth; l += 16) _mm_prefetch((const char*)(ptrs[(t + 1) * 12 + i] + l), _MM_HINT_T0);
    }
    /* unrolled twice, not four times: with 12 row pointers live, GCC's 4x unrolled body shuffles pointers through
     * xmm registers and runs ~7% slower (3x3 layers at 107 -> 115 GF/s on Zen 5) */
#pragma GCC unroll 2
    for (int64_t p = 0; p < depth; ++p) {
      __m512 b0 = _mm512_loadu_ps(b);
      __m512 b1 = W == 2 ? _mm512_loadu_ps(b + 16) : b0;
      _mm_prefetch((const char*)(b + MTK_PREFETCH_B), _MM_HINT_T0);
      if (W == 2) _mm_prefetch((const char*)(b + MTK_PREFETCH_B + 16), _MM_HINT_T0);
#pragma GCC unroll 12
      for (int i = 0; i < R; ++i) {
        __m512 ai = _mm512_set1_ps(row[i][p]);
        acc[i][0] = _mm512_fmadd_ps(ai, b0, acc[i][0]);
        if (W == 2) acc[i][1] = _mm512_fmadd_ps(ai, b1, acc[i][1]);
      }
      b += 32;
    }
  }
  store_tile(R, W, acc, c, ldc, rowidx, 0, m, n, post);
}

/* One kernel per (A source, R, W): the dispatchers below pick R from m and W from n. */
#define MTK_AVX512_VARIANTS(R)                                                                                         \
  __attribute__((target("avx512f,prfchw"))) static void ukr_packed_##R##_1(int64_t kc, const float* restrict a,             \
                                                                     const float* restrict b, float* restrict c,       \
                                                                     int64_t ldc, int accumulate, int m, int n,        \
                                                                     const mtk_post* post) {                           \
    body_packed(R, 1, kc, a, b, c, ldc, accumulate, m, n, post);                                                       \
  }                                                                                                                    \
  __attribute__((target("avx512f,prfchw"))) static void ukr_packed_##R##_2(int64_t kc, const float* restrict a,             \
                                                                     const float* restrict b, float* restrict c,       \
                                                                     int64_t ldc, int accumulate, int m, int n,        \
                                                                     const mtk_post* post) {                           \
    body_packed(R, 2, kc, a, b, c, ldc, accumulate, m, n, post);                                                       \
  }                                                                                                                    \
  __attribute__((target("avx512f,prfchw"))) static void ukr_rows_##R##_1(int64_t kc, const float* restrict a, int64_t lda,  \
                                                                   const float* restrict b, float* restrict c,         \
                                                                   int64_t ldc, int accumulate, int m, int n,          \
                                                                   const mtk_post* post) {                             \
    body_rows(R, 1, kc, a, lda, b, c, ldc, accumulate, m, n, post);                                                    \
  }                                                                                                                    \
  __attribute__((target("avx512f,prfchw"))) static void ukr_rows_##R##_2(int64_t kc, const float* restrict a, int64_t lda,  \
                                                                   const float* restrict b, float* restrict c,         \
                                                                   int64_t ldc, int accumulate, int m, int n,          \
                                                                   const mtk_post* post) {                             \
    body_rows(R, 2, kc, a, lda, b, c, ldc, accumulate, m, n, post);                                                    \
  }                                                                                                                    \
  __attribute__((target("avx512f,prfchw"))) static void ukr_indirect_##R##_1(                                          \
      int64_t ntaps, int64_t depth, const float* const* ptrs, const float* restrict b, const int64_t* boff,            \
      float* restrict c, int64_t ldc, const int64_t* rowidx, int m, int n, const mtk_post* post) {                     \
    body_indirect(R, 1, ntaps, depth, ptrs, b, boff, c, ldc, rowidx, m, n, post);                                      \
  }                                                                                                                    \
  __attribute__((target("avx512f,prfchw"))) static void ukr_indirect_##R##_2(                                          \
      int64_t ntaps, int64_t depth, const float* const* ptrs, const float* restrict b, const int64_t* boff,            \
      float* restrict c, int64_t ldc, const int64_t* rowidx, int m, int n, const mtk_post* post) {                     \
    body_indirect(R, 2, ntaps, depth, ptrs, b, boff, c, ldc, rowidx, m, n, post);                                      \
  }

MTK_AVX512_VARIANTS(4)
MTK_AVX512_VARIANTS(8)
MTK_AVX512_VARIANTS(12)

/* [R index][W - 1]: R = 4, 8, 12 for m <= 4, <= 8, <= 12. */
static const mtk_ukernel g_packed[3][2] = {
    {ukr_packed_4_1, ukr_packed_4_2}, {ukr_packed_8_1, ukr_packed_8_2}, {ukr_packed_12_1, ukr_packed_12_2}};
static const mtk_ukernel_rows g_rows[3][2] = {
    {ukr_rows_4_1, ukr_rows_4_2}, {ukr_rows_8_1, ukr_rows_8_2}, {ukr_rows_12_1, ukr_rows_12_2}};
static const mtk_ukernel_indirect g_indirect[3][2] = {{ukr_indirect_4_1, ukr_indirect_4_2},
                                                      {ukr_indirect_8_1, ukr_indirect_8_2},
                                                      {ukr_indirect_12_1, ukr_indirect_12_2}};

static void ukr_avx512(int64_t kc, const float* restrict a, const float* restrict b, float* restrict c, int64_t ldc,
                       int accumulate, int m, int n, const mtk_post* post) {
  g_packed[(m - 1) / 4][n > 16](kc, a, b, c, ldc, accumulate, m, n, post);
}

/* A read in place (row-major, row stride lda) instead of from a packed panel: no packing of A, whose rows stream
 * through L1 (the tile was just written by im2col or is the input itself). Rows beyond m repeat the last row (read,
 * never stored). */
static void ukr_avx512_rows(int64_t kc, const float* restrict a, int64_t lda, const float* restrict b,
                            float* restrict c, int64_t ldc, int accumulate, int m, int n, const mtk_post* post) {
  g_rows[(m - 1) / 4][n > 16](kc, a, lda, b, c, ldc, accumulate, m, n, post);
}

/* Implicit-GEMM convolution: the depth runs over `ntaps` filter taps of `depth` floats each, the A rows of tap t
 * are the MR pointers ptrs[t * MR + i] (input read in place) and its B rows start at b + boff[t]; the block of C
 * stays in registers over all the taps and its rows go where rowidx says (mtk_ukernel_indirect). */
static void ukr_avx512_indirect(int64_t ntaps, int64_t depth, const float* const* ptrs, const float* restrict b,
                                const int64_t* boff, float* restrict c, int64_t ldc, const int64_t* rowidx, int m,
                                int n, const mtk_post* post) {
  g_indirect[(m - 1) / 4][n > 16](ntaps, depth, ptrs, b, boff, c, ldc, rowidx, m, n, post);
}

__attribute__((target("avx2,fma"))) static void ukr_avx2_indirect(int64_t ntaps, int64_t depth,
                                                                   const float* const* ptrs, const float* restrict b0p,
                                                                   const int64_t* boff, float* restrict c,
                                                                   int64_t ldc, const int64_t* rowidx, int m, int n,
                                                                   const mtk_post* post) {
  __m256 acc[6][2];
#pragma GCC unroll 6
  for (int i = 0; i < 6; ++i) {
    acc[i][0] = _mm256_setzero_ps();
    acc[i][1] = _mm256_setzero_ps();
  }
  for (int64_t t = 0; t < ntaps; ++t) {
    const float* row[6];
#pragma GCC unroll 6
    for (int i = 0; i < 6; ++i) row[i] = ptrs[t * 6 + i];
    const float* restrict b = b0p + boff[t];
    for (int64_t p = 0; p < depth; ++p) {
      __m256 b0 = _mm256_loadu_ps(b);
      __m256 b1 = _mm256_loadu_ps(b + 8);
#pragma GCC unroll 6
      for (int i = 0; i < 6; ++i) {
        __m256 ai = _mm256_broadcast_ss(row[i] + p);
        acc[i][0] = _mm256_fmadd_ps(ai, b0, acc[i][0]);
        acc[i][1] = _mm256_fmadd_ps(ai, b1, acc[i][1]);
      }
      b += 16;
    }
  }
  float tmp[16];
  for (int i = 0; i < m; ++i) {
    _mm256_storeu_ps(tmp, acc[i][0]);
    _mm256_storeu_ps(tmp + 8, acc[i][1]);
    store_tmp(c + rowidx[i] * ldc, tmp, n, 0, post, rowidx[i]);
  }
}

__attribute__((target("avx2,fma"))) static void ukr_avx2_rows(int64_t kc, const float* restrict a, int64_t lda,
                                                               const float* restrict b, float* restrict c, int64_t ldc,
                                                               int accumulate, int m, int n, const mtk_post* post) {
  const float* row[6];
  for (int i = 0; i < 6; ++i) row[i] = a + (i < m ? i : m - 1) * lda;
  __m256 acc[6][2];
#pragma GCC unroll 6
  for (int i = 0; i < 6; ++i) {
    acc[i][0] = _mm256_setzero_ps();
    acc[i][1] = _mm256_setzero_ps();
  }
  for (int64_t p = 0; p < kc; ++p) {
    __m256 b0 = _mm256_loadu_ps(b);
    __m256 b1 = _mm256_loadu_ps(b + 8);
#pragma GCC unroll 6
    for (int i = 0; i < 6; ++i) {
      __m256 ai = _mm256_broadcast_ss(row[i] + p);
      acc[i][0] = _mm256_fmadd_ps(ai, b0, acc[i][0]);
      acc[i][1] = _mm256_fmadd_ps(ai, b1, acc[i][1]);
    }
    b += 16;
  }
  float tmp[16];
  for (int i = 0; i < m; ++i) {
    float* out = c + i * ldc;
    _mm256_storeu_ps(tmp, acc[i][0]);
    _mm256_storeu_ps(tmp + 8, acc[i][1]);
    if (n == 16 && !accumulate && post == NULL) {
      memcpy(out, tmp, sizeof tmp);
    } else {
      store_tmp(out, tmp, n, accumulate, post, i);
    }
  }
}

__attribute__((target("avx2,fma"))) static void ukr_avx2(int64_t kc, const float* restrict a, const float* restrict b,
                                                          float* restrict c, int64_t ldc, int accumulate, int m,
                                                          int n, const mtk_post* post) {
  __m256 acc[6][2];
#pragma GCC unroll 6
  for (int i = 0; i < 6; ++i) {
    acc[i][0] = _mm256_setzero_ps();
    acc[i][1] = _mm256_setzero_ps();
  }
  for (int64_t p = 0; p < kc; ++p) {
    __m256 b0 = _mm256_loadu_ps(b);
    __m256 b1 = _mm256_loadu_ps(b + 8);
#pragma GCC unroll 6
    for (int i = 0; i < 6; ++i) {
      __m256 ai = _mm256_broadcast_ss(a + i);
      acc[i][0] = _mm256_fmadd_ps(ai, b0, acc[i][0]);
      acc[i][1] = _mm256_fmadd_ps(ai, b1, acc[i][1]);
    }
    a += 6;
    b += 16;
  }
  if (n == 16 && post == NULL) {
    for (int i = 0; i < m; ++i) {
      float* row = c + i * ldc;
      __m256 r0 = acc[i][0], r1 = acc[i][1];
      if (accumulate) {
        r0 = _mm256_add_ps(r0, _mm256_loadu_ps(row));
        r1 = _mm256_add_ps(r1, _mm256_loadu_ps(row + 8));
      }
      _mm256_storeu_ps(row, r0);
      _mm256_storeu_ps(row + 8, r1);
    }
  } else {
    float tmp[16];
    for (int i = 0; i < m; ++i) {
      float* row = c + i * ldc;
      _mm256_storeu_ps(tmp, acc[i][0]);
      _mm256_storeu_ps(tmp + 8, acc[i][1]);
      store_tmp(row, tmp, n, accumulate, post, i);
    }
  }
}
#endif

#define GEN_MR 4
#define GEN_NR 16

MTK_HOT static void ukr_generic(int64_t kc, const float* restrict a, const float* restrict b, float* restrict c,
                                int64_t ldc, int accumulate, int m, int n, const mtk_post* post) {
  float acc[GEN_MR][GEN_NR];
  memset(acc, 0, sizeof acc);
  for (int64_t p = 0; p < kc; ++p) {
    for (int i = 0; i < GEN_MR; ++i)
      for (int j = 0; j < GEN_NR; ++j) acc[i][j] += a[i] * b[j];
    a += GEN_MR;
    b += GEN_NR;
  }
  for (int i = 0; i < m; ++i) store_tmp(c + i * ldc, acc[i], n, accumulate, post, i);
}

MTK_HOT static void ukr_generic_indirect(int64_t ntaps, int64_t depth, const float* const* ptrs,
                                         const float* restrict b0p, const int64_t* boff, float* restrict c,
                                         int64_t ldc, const int64_t* rowidx, int m, int n, const mtk_post* post) {
  float acc[GEN_MR][GEN_NR];
  memset(acc, 0, sizeof acc);
  for (int64_t t = 0; t < ntaps; ++t) {
    const float* const* row = ptrs + t * GEN_MR;
    const float* restrict b = b0p + boff[t];
    for (int64_t p = 0; p < depth; ++p) {
      for (int i = 0; i < GEN_MR; ++i)
        for (int j = 0; j < GEN_NR; ++j) acc[i][j] += row[i][p] * b[j];
      b += GEN_NR;
    }
  }
  for (int i = 0; i < m; ++i) store_tmp(c + rowidx[i] * ldc, acc[i], n, 0, post, rowidx[i]);
}

static const mtk_gemm_arch g_generic = {GEN_MR, GEN_NR, 256, 64, ukr_generic, NULL, ukr_generic_indirect, "generic"};
static mtk_gemm_arch g_arch;

const mtk_gemm_arch* mtk_gemm_arch_generic(void) { return &g_generic; }

static int g_arch_ready;

const mtk_gemm_arch* mtk_gemm_arch_get(void) {
  if (__atomic_load_n(&g_arch_ready, __ATOMIC_ACQUIRE)) return &g_arch;
  mtk_gemm_arch arch = g_generic;
#ifdef MTK_X86
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) {
    /* kc 512: at batch 8 the 1x1 layers ran 3-6 % faster than with 256 (C read and written half as often) */
    arch = (mtk_gemm_arch){12, 32, 512, 144, ukr_avx512, ukr_avx512_rows, ukr_avx512_indirect, "avx512"};
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    arch = (mtk_gemm_arch){6, 16, 256, 96, ukr_avx2, ukr_avx2_rows, ukr_avx2_indirect, "avx2"};
  }
#endif
  g_arch = arch;
  __atomic_store_n(&g_arch_ready, 1, __ATOMIC_RELEASE);
  return &g_arch;
}
