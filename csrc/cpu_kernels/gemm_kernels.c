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

#ifdef MTK_X86
/* How far ahead (in floats of the packed B panel) the AVX-512 kernels prefetch: 16 depth steps. The weights of a
 * layer are read from memory once per row tile; the prefetch keeps that stream ahead of the FMAs. */
#ifndef MTK_PREFETCH_B
#define MTK_PREFETCH_B (16 * 32)
#endif
/* The last panel of a product whose width is not a multiple of 32 often holds 16 or fewer real columns (N = 44 ->
 * 32 + 12): these variants run one accumulator per row over the first 16 columns of the (32-wide) packed panel, half
 * the FMAs of the full block for the same result. */
__attribute__((target("avx512f"))) static inline void store16(__m512* acc, float* restrict c, int64_t ldc,
                                                              int accumulate, int m, int n) {
  __mmask16 k0 = (__mmask16)(n >= 16 ? 0xFFFF : (1u << n) - 1);
  for (int i = 0; i < m; ++i) {
    float* out = c + i * ldc;
    __m512 r0 = acc[i];
    if (accumulate) r0 = _mm512_add_ps(r0, _mm512_maskz_loadu_ps(k0, out));
    _mm512_mask_storeu_ps(out, k0, r0);
  }
}

__attribute__((target("avx512f"))) static void ukr_avx512_n16(int64_t kc, const float* restrict a,
                                                               const float* restrict b, float* restrict c, int64_t ldc,
                                                               int accumulate, int m, int n) {
  __m512 acc[12];
#pragma GCC unroll 12
  for (int i = 0; i < 12; ++i) acc[i] = _mm512_setzero_ps();
  for (int64_t p = 0; p < kc; ++p) {
    __m512 b0 = _mm512_loadu_ps(b);
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) acc[i] = _mm512_fmadd_ps(_mm512_set1_ps(a[i]), b0, acc[i]);
    a += 12;
    b += 32;
  }
  store16(acc, c, ldc, accumulate, m, n);
}

__attribute__((target("avx512f"))) static void ukr_avx512_rows_n16(int64_t kc, const float* restrict a, int64_t lda,
                                                                    const float* restrict b, float* restrict c,
                                                                    int64_t ldc, int accumulate, int m, int n) {
  const float* row[12];
  for (int i = 0; i < 12; ++i) row[i] = a + (i < m ? i : m - 1) * lda;
  __m512 acc[12];
#pragma GCC unroll 12
  for (int i = 0; i < 12; ++i) acc[i] = _mm512_setzero_ps();
  for (int64_t p = 0; p < kc; ++p) {
    __m512 b0 = _mm512_loadu_ps(b);
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) acc[i] = _mm512_fmadd_ps(_mm512_set1_ps(row[i][p]), b0, acc[i]);
    b += 32;
  }
  store16(acc, c, ldc, accumulate, m, n);
}

__attribute__((target("avx512f"))) static void ukr_avx512_indirect_n16(int64_t ntaps, int64_t depth,
                                                                        const float* const* ptrs,
                                                                        const float* restrict b, float* restrict c,
                                                                        int64_t ldc, int accumulate, int m, int n) {
  __m512 acc[12];
#pragma GCC unroll 12
  for (int i = 0; i < 12; ++i) acc[i] = _mm512_setzero_ps();
  for (int64_t t = 0; t < ntaps; ++t) {
    const float* row[12];
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) row[i] = ptrs[t * 12 + i];
    for (int64_t p = 0; p < depth; ++p) {
      __m512 b0 = _mm512_loadu_ps(b);
#pragma GCC unroll 12
      for (int i = 0; i < 12; ++i) acc[i] = _mm512_fmadd_ps(_mm512_set1_ps(row[i][p]), b0, acc[i]);
      b += 32;
    }
  }
  store16(acc, c, ldc, accumulate, m, n);
}

__attribute__((target("avx512f"))) static void ukr_avx512(int64_t kc, const float* restrict a,
                                                           const float* restrict b, float* restrict c, int64_t ldc,
                                                           int accumulate, int m, int n) {
  if (n <= 16) {
    ukr_avx512_n16(kc, a, b, c, ldc, accumulate, m, n);
    return;
  }
  __m512 acc[12][2];
#pragma GCC unroll 12
  for (int i = 0; i < 12; ++i) {
    acc[i][0] = _mm512_setzero_ps();
    acc[i][1] = _mm512_setzero_ps();
  }
  for (int64_t p = 0; p < kc; ++p) {
    __m512 b0 = _mm512_loadu_ps(b);
    __m512 b1 = _mm512_loadu_ps(b + 16);
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) {
      __m512 ai = _mm512_set1_ps(a[i]);
      acc[i][0] = _mm512_fmadd_ps(ai, b0, acc[i][0]);
      acc[i][1] = _mm512_fmadd_ps(ai, b1, acc[i][1]);
    }
    a += 12;
    b += 32;
  }
  if (n == 32) {
    for (int i = 0; i < m; ++i) {
      float* row = c + i * ldc;
      __m512 r0 = acc[i][0], r1 = acc[i][1];
      if (accumulate) {
        r0 = _mm512_add_ps(r0, _mm512_loadu_ps(row));
        r1 = _mm512_add_ps(r1, _mm512_loadu_ps(row + 16));
      }
      _mm512_storeu_ps(row, r0);
      _mm512_storeu_ps(row + 16, r1);
    }
  } else {
    __mmask16 k0 = (__mmask16)(n >= 16 ? 0xFFFF : (1u << n) - 1);
    __mmask16 k1 = (__mmask16)(n <= 16 ? 0 : (n >= 32 ? 0xFFFF : (1u << (n - 16)) - 1));
    for (int i = 0; i < m; ++i) {
      float* row = c + i * ldc;
      __m512 r0 = acc[i][0], r1 = acc[i][1];
      if (accumulate) {
        r0 = _mm512_add_ps(r0, _mm512_maskz_loadu_ps(k0, row));
        r1 = _mm512_add_ps(r1, _mm512_maskz_loadu_ps(k1, row + 16));
      }
      _mm512_mask_storeu_ps(row, k0, r0);
      _mm512_mask_storeu_ps(row + 16, k1, r1);
    }
  }
}

/* The same block with A read in place (row-major, row stride lda) instead of from a packed panel: no packing of A,
 * whose rows stream through L1 (the tile was just written by im2col or is the input itself). Rows beyond m repeat
 * the last row (read, never stored). */
__attribute__((target("avx512f"))) static void ukr_avx512_rows(int64_t kc, const float* restrict a, int64_t lda,
                                                                const float* restrict b, float* restrict c,
                                                                int64_t ldc, int accumulate, int m, int n) {
  if (n <= 16) {
    ukr_avx512_rows_n16(kc, a, lda, b, c, ldc, accumulate, m, n);
    return;
  }
  const float* row[12];
  for (int i = 0; i < 12; ++i) row[i] = a + (i < m ? i : m - 1) * lda;
  __m512 acc[12][2];
#pragma GCC unroll 12
  for (int i = 0; i < 12; ++i) {
    acc[i][0] = _mm512_setzero_ps();
    acc[i][1] = _mm512_setzero_ps();
  }
  for (int64_t p = 0; p < kc; ++p) {
    __m512 b0 = _mm512_loadu_ps(b);
    __m512 b1 = _mm512_loadu_ps(b + 16);
    _mm_prefetch((const char*)(b + MTK_PREFETCH_B), _MM_HINT_T0);
    _mm_prefetch((const char*)(b + MTK_PREFETCH_B + 16), _MM_HINT_T0);
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) {
      __m512 ai = _mm512_set1_ps(row[i][p]);
      acc[i][0] = _mm512_fmadd_ps(ai, b0, acc[i][0]);
      acc[i][1] = _mm512_fmadd_ps(ai, b1, acc[i][1]);
    }
    b += 32;
  }
  __mmask16 k0 = (__mmask16)(n >= 16 ? 0xFFFF : (1u << n) - 1);
  __mmask16 k1 = (__mmask16)(n <= 16 ? 0 : (n >= 32 ? 0xFFFF : (1u << (n - 16)) - 1));
  for (int i = 0; i < m; ++i) {
    float* out = c + i * ldc;
    __m512 r0 = acc[i][0], r1 = acc[i][1];
    if (accumulate) {
      r0 = _mm512_add_ps(r0, _mm512_maskz_loadu_ps(k0, out));
      r1 = _mm512_add_ps(r1, _mm512_maskz_loadu_ps(k1, out + 16));
    }
    _mm512_mask_storeu_ps(out, k0, r0);
    _mm512_mask_storeu_ps(out + 16, k1, r1);
  }
}

/* Implicit-GEMM convolution: the depth runs over `ntaps` filter taps of `depth` channels each, and the A rows of tap t
 * are the MR pointers ptrs[t * MR + i] (an input pixel's channels, or a zero row for a tap in the padding). The
 * packed B panel holds the ntaps * depth rows in order. No patch matrix is written: the taps read the input in place,
 * and the block of C stays in registers over the whole depth. */
__attribute__((target("avx512f"))) static void ukr_avx512_indirect(int64_t ntaps, int64_t depth,
                                                                    const float* const* ptrs, const float* restrict b,
                                                                    float* restrict c, int64_t ldc, int accumulate,
                                                                    int m, int n) {
  if (n <= 16) {
    ukr_avx512_indirect_n16(ntaps, depth, ptrs, b, c, ldc, accumulate, m, n);
    return;
  }
  __m512 acc[12][2];
#pragma GCC unroll 12
  for (int i = 0; i < 12; ++i) {
    acc[i][0] = _mm512_setzero_ps();
    acc[i][1] = _mm512_setzero_ps();
  }
  for (int64_t t = 0; t < ntaps; ++t) {
    const float* row[12];
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) row[i] = ptrs[t * 12 + i];
#pragma GCC unroll 4
    for (int64_t p = 0; p < depth; ++p) {
      __m512 b0 = _mm512_loadu_ps(b);
      __m512 b1 = _mm512_loadu_ps(b + 16);
      _mm_prefetch((const char*)(b + MTK_PREFETCH_B), _MM_HINT_T0);
      _mm_prefetch((const char*)(b + MTK_PREFETCH_B + 16), _MM_HINT_T0);
#pragma GCC unroll 12
      for (int i = 0; i < 12; ++i) {
        __m512 ai = _mm512_set1_ps(row[i][p]);
        acc[i][0] = _mm512_fmadd_ps(ai, b0, acc[i][0]);
        acc[i][1] = _mm512_fmadd_ps(ai, b1, acc[i][1]);
      }
      b += 32;
    }
  }
  __mmask16 k0 = (__mmask16)(n >= 16 ? 0xFFFF : (1u << n) - 1);
  __mmask16 k1 = (__mmask16)(n <= 16 ? 0 : (n >= 32 ? 0xFFFF : (1u << (n - 16)) - 1));
  for (int i = 0; i < m; ++i) {
    float* out = c + i * ldc;
    __m512 r0 = acc[i][0], r1 = acc[i][1];
    if (accumulate) {
      r0 = _mm512_add_ps(r0, _mm512_maskz_loadu_ps(k0, out));
      r1 = _mm512_add_ps(r1, _mm512_maskz_loadu_ps(k1, out + 16));
    }
    _mm512_mask_storeu_ps(out, k0, r0);
    _mm512_mask_storeu_ps(out + 16, k1, r1);
  }
}

__attribute__((target("avx2,fma"))) static void ukr_avx2_indirect(int64_t ntaps, int64_t depth,
                                                                   const float* const* ptrs, const float* restrict b,
                                                                   float* restrict c, int64_t ldc, int accumulate,
                                                                   int m, int n) {
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
    float* out = c + i * ldc;
    _mm256_storeu_ps(tmp, acc[i][0]);
    _mm256_storeu_ps(tmp + 8, acc[i][1]);
    for (int j = 0; j < n; ++j) out[j] = accumulate ? out[j] + tmp[j] : tmp[j];
  }
}

__attribute__((target("avx2,fma"))) static void ukr_avx2_rows(int64_t kc, const float* restrict a, int64_t lda,
                                                               const float* restrict b, float* restrict c, int64_t ldc,
                                                               int accumulate, int m, int n) {
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
    if (n == 16 && !accumulate) {
      memcpy(out, tmp, sizeof tmp);
    } else {
      for (int j = 0; j < n; ++j) out[j] = accumulate ? out[j] + tmp[j] : tmp[j];
    }
  }
}

__attribute__((target("avx2,fma"))) static void ukr_avx2(int64_t kc, const float* restrict a, const float* restrict b,
                                                          float* restrict c, int64_t ldc, int accumulate, int m,
                                                          int n) {
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
  if (n == 16) {
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
      for (int j = 0; j < n; ++j) row[j] = accumulate ? row[j] + tmp[j] : tmp[j];
    }
  }
}
#endif

#define GEN_MR 4
#define GEN_NR 16

MTK_HOT static void ukr_generic(int64_t kc, const float* restrict a, const float* restrict b, float* restrict c,
                                int64_t ldc, int accumulate, int m, int n) {
  float acc[GEN_MR][GEN_NR];
  memset(acc, 0, sizeof acc);
  for (int64_t p = 0; p < kc; ++p) {
    for (int i = 0; i < GEN_MR; ++i)
      for (int j = 0; j < GEN_NR; ++j) acc[i][j] += a[i] * b[j];
    a += GEN_MR;
    b += GEN_NR;
  }
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) c[i * ldc + j] = accumulate ? c[i * ldc + j] + acc[i][j] : acc[i][j];
}

MTK_HOT static void ukr_generic_indirect(int64_t ntaps, int64_t depth, const float* const* ptrs,
                                         const float* restrict b, float* restrict c, int64_t ldc, int accumulate, int m,
                                         int n) {
  float acc[GEN_MR][GEN_NR];
  memset(acc, 0, sizeof acc);
  for (int64_t t = 0; t < ntaps; ++t) {
    const float* const* row = ptrs + t * GEN_MR;
    for (int64_t p = 0; p < depth; ++p) {
      for (int i = 0; i < GEN_MR; ++i)
        for (int j = 0; j < GEN_NR; ++j) acc[i][j] += row[i][p] * b[j];
      b += GEN_NR;
    }
  }
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) c[i * ldc + j] = accumulate ? c[i * ldc + j] + acc[i][j] : acc[i][j];
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
    arch = (mtk_gemm_arch){12, 32, 256, 144, ukr_avx512, ukr_avx512_rows, ukr_avx512_indirect, "avx512"};
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    arch = (mtk_gemm_arch){6, 16, 256, 96, ukr_avx2, ukr_avx2_rows, ukr_avx2_indirect, "avx2"};
  }
#endif
  g_arch = arch;
  __atomic_store_n(&g_arch_ready, 1, __ATOMIC_RELEASE);
  return &g_arch;
}
