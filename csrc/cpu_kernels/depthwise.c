/* Depthwise convolution rows (depth multiplier 1), NHWC: the hot loop of
 * DepthwiseConv2dNative / _FusedDepthwiseConv2dNative.
 *
 * For a block of 16 channels the filter taps are loaded into registers once and the
 * block then sweeps the output row: per output pixel one load and one FMA per valid
 * tap, one store. 3x3 and 5x5 filters get unrolled variants; edges (taps outside the
 * input) take the same code with the tap range clipped. AVX-512 when the CPU has it,
 * else a portable loop the compiler vectorizes. */
#include <string.h>

#include "mtk.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define DW_X86 1
#endif

/* Output row `oy` of image `b`: out[OW, C] (the row's memory), x the image [H, W, C], w [KH, KW, C]. */
typedef struct {
  const float* x;
  const float* w;
  float* out;
  int64_t h, wd, c, kh, kw, ow, oy;
  int64_t sh, sw, dh, dw, ph, pw;
  const float* bias; /* added in the accumulator's start value, or NULL */
  int act;           /* MTK_ACT_NONE / RELU / RELU6, applied before the store */
} DwRow;

#ifdef DW_X86
#define MAX_TAPS 64

__attribute__((target("avx512f"))) static inline __m512 dw_start(const DwRow* r, int64_t c0, __mmask16 mask) {
  return r->bias != NULL ? _mm512_maskz_loadu_ps(mask, r->bias + c0) : _mm512_setzero_ps();
}

__attribute__((target("avx512f"))) static inline __m512 dw_finish(const DwRow* r, __m512 v) {
  if (r->act == MTK_ACT_RELU) return _mm512_max_ps(v, _mm512_setzero_ps());
  if (r->act == MTK_ACT_RELU6) return _mm512_min_ps(_mm512_max_ps(v, _mm512_setzero_ps()), _mm512_set1_ps(6.0f));
  return v;
}

/* One output pixel of one 16-channel block with every bounds check (the row's edges). */
__attribute__((target("avx512f"))) static inline void dw_edge_pixel(const DwRow* r, int64_t ox, int64_t c0,
                                                                     __mmask16 mask) {
  const int64_t c = r->c;
  __m512 acc = dw_start(r, c0, mask);
  int64_t ix0 = ox * r->sw - r->pw;
  for (int64_t i = 0; i < r->kh; ++i) {
    int64_t iy = r->oy * r->sh - r->ph + i * r->dh;
    if (iy < 0 || iy >= r->h) continue;
    for (int64_t q = 0; q < r->kw; ++q) {
      int64_t ix = ix0 + q * r->dw;
      if (ix < 0 || ix >= r->wd) continue;
      acc = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask, r->x + (iy * r->wd + ix) * c + c0),
                            _mm512_maskz_loadu_ps(mask, r->w + (i * r->kw + q) * c + c0), acc);
    }
  }
  _mm512_mask_storeu_ps(r->out + ox * c + c0, mask, dw_finish(r, acc));
}

/* NP consecutive interior pixels (every tap column inside): NP independent accumulators, one load and one FMA per
 * tap and pixel, the tap's weights from a small table. */
#define DW_PIXELS(NP)                                                                                  \
  do {                                                                                                 \
    __m512 acc[NP];                                                                                    \
    for (int u = 0; u < (NP); ++u) acc[u] = start;                                                     \
    for (int t = 0; t < ntaps; ++t) {                                                                  \
      const float* p = tap_base[t] + ox * step;                                                        \
      const __m512 wt = wv[t];                                                                         \
      for (int u = 0; u < (NP); ++u) acc[u] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask, p + u * step), wt, acc[u]); \
    }                                                                                                  \
    for (int u = 0; u < (NP); ++u) _mm512_mask_storeu_ps(out + (ox + u) * c, mask, dw_finish(r, acc[u])); \
  } while (0)

#define DW_PIXELS_FULL(NP)                                                                             \
  do {                                                                                                 \
    __m512 acc[NP];                                                                                    \
    for (int u = 0; u < (NP); ++u) acc[u] = start;                                                     \
    for (int t = 0; t < ntaps; ++t) {                                                                  \
      const float* p = tap_base[t] + ox * step;                                                        \
      const __m512 wt = wv[t];                                                                         \
      for (int u = 0; u < (NP); ++u) acc[u] = _mm512_fmadd_ps(_mm512_loadu_ps(p + u * step), wt, acc[u]); \
    }                                                                                                  \
    for (int u = 0; u < (NP); ++u) _mm512_storeu_ps(out + (ox + u) * c, dw_finish(r, acc[u]));         \
  } while (0)

/* Edge pixel ox for 4 consecutive full channel blocks at once (independent accumulators). */
__attribute__((target("avx512f"))) static inline void dw_edge_pixel4(const DwRow* r, int64_t ox, int64_t c0) {
  const int64_t c = r->c;
  __m512 a0 = dw_start(r, c0, 0xFFFF), a1 = dw_start(r, c0 + 16, 0xFFFF), a2 = dw_start(r, c0 + 32, 0xFFFF),
         a3 = dw_start(r, c0 + 48, 0xFFFF);
  int64_t ix0 = ox * r->sw - r->pw;
  for (int64_t i = 0; i < r->kh; ++i) {
    int64_t iy = r->oy * r->sh - r->ph + i * r->dh;
    if (iy < 0 || iy >= r->h) continue;
    for (int64_t q = 0; q < r->kw; ++q) {
      int64_t ix = ix0 + q * r->dw;
      if (ix < 0 || ix >= r->wd) continue;
      const float* xp = r->x + (iy * r->wd + ix) * c + c0;
      const float* wp = r->w + (i * r->kw + q) * c + c0;
      a0 = _mm512_fmadd_ps(_mm512_loadu_ps(xp), _mm512_loadu_ps(wp), a0);
      a1 = _mm512_fmadd_ps(_mm512_loadu_ps(xp + 16), _mm512_loadu_ps(wp + 16), a1);
      a2 = _mm512_fmadd_ps(_mm512_loadu_ps(xp + 32), _mm512_loadu_ps(wp + 32), a2);
      a3 = _mm512_fmadd_ps(_mm512_loadu_ps(xp + 48), _mm512_loadu_ps(wp + 48), a3);
    }
  }
  float* o = r->out + ox * c + c0;
  _mm512_storeu_ps(o, dw_finish(r, a0));
  _mm512_storeu_ps(o + 16, dw_finish(r, a1));
  _mm512_storeu_ps(o + 32, dw_finish(r, a2));
  _mm512_storeu_ps(o + 48, dw_finish(r, a3));
}

__attribute__((target("avx512f"))) static void dw_row_avx512(const DwRow* r) {
  const int64_t c = r->c, ow = r->ow, kw = r->kw;
  const int64_t step = r->sw * c; /* input floats between consecutive output pixels */
  /* output columns whose taps are all inside the input */
  int64_t lo = (r->pw + r->sw - 1) / r->sw, hi = (r->wd - 1 - (kw - 1) * r->dw + r->pw);
  hi = hi < 0 ? 0 : hi / r->sw + 1;
  if (hi > ow) hi = ow;
  if (lo > hi) lo = hi;
  if (r->kh * kw > MAX_TAPS) { /* a huge filter: every pixel through the checked path */
    for (int64_t c0 = 0; c0 < c; c0 += 16) {
      __mmask16 mask = (__mmask16)(c - c0 >= 16 ? 0xFFFF : (1u << (c - c0)) - 1);
      for (int64_t ox = 0; ox < ow; ++ox) dw_edge_pixel(r, ox, c0, mask);
    }
    return;
  }
  /* edges first: 4 channel blocks at a time where they are full */
  int64_t c4 = c / 64 * 64;
  for (int64_t ox = 0; ox < ow; ox = (ox + 1 == lo && hi > lo) ? hi : ox + 1) {
    if (ox >= lo && ox < hi) continue;
    for (int64_t c0 = 0; c0 < c4; c0 += 64) dw_edge_pixel4(r, ox, c0);
    for (int64_t c0 = c4; c0 < c; c0 += 16) {
      __mmask16 mask = (__mmask16)(c - c0 >= 16 ? 0xFFFF : (1u << (c - c0)) - 1);
      dw_edge_pixel(r, ox, c0, mask);
    }
  }
  for (int64_t c0 = 0; c0 < c; c0 += 16) {
    __mmask16 mask = (__mmask16)(c - c0 >= 16 ? 0xFFFF : (1u << (c - c0)) - 1);
    const float* tap_base[MAX_TAPS];
    __m512 wv[MAX_TAPS];
    int ntaps = 0;
    for (int64_t i = 0; i < r->kh; ++i) {
      int64_t iy = r->oy * r->sh - r->ph + i * r->dh;
      if (iy < 0 || iy >= r->h) continue;
      for (int64_t q = 0; q < kw; ++q) {
        /* pixel ox reads tap_base + ox * step */
        tap_base[ntaps] = r->x + (iy * r->wd + q * r->dw - r->pw) * c + c0;
        wv[ntaps] = _mm512_maskz_loadu_ps(mask, r->w + (i * kw + q) * c + c0);
        ++ntaps;
      }
    }
    float* out = r->out + c0;
    const __m512 start = dw_start(r, c0, mask);
    int64_t ox = lo;
    if (mask == 0xFFFF) {
      for (; ox + 8 <= hi; ox += 8) DW_PIXELS_FULL(8);
      for (; ox + 4 <= hi; ox += 4) DW_PIXELS_FULL(4);
      for (; ox < hi; ++ox) DW_PIXELS_FULL(1);
    } else {
      for (; ox + 8 <= hi; ox += 8) DW_PIXELS(8);
      for (; ox + 4 <= hi; ox += 4) DW_PIXELS(4);
      for (; ox < hi; ++ox) DW_PIXELS(1);
    }
  }
}
#endif

#define GEN_BLOCK 64

MTK_HOT static void dw_block_generic(float* restrict acc, const float* restrict xin, const float* restrict w,
                                     int64_t cb) {
  for (int64_t c = 0; c < cb; ++c) acc[c] += xin[c] * w[c];
}

static void dw_row_generic(const DwRow* r) {
  const int64_t c = r->c;
  for (int64_t ox = 0; ox < r->ow; ++ox) {
    int64_t ix0 = ox * r->sw - r->pw;
    for (int64_t c0 = 0; c0 < c; c0 += GEN_BLOCK) {
      int64_t cb = c - c0 < GEN_BLOCK ? c - c0 : GEN_BLOCK;
      float acc[GEN_BLOCK];
      for (int64_t k = 0; k < cb; ++k) acc[k] = r->bias != NULL ? r->bias[c0 + k] : 0.0f;
      for (int64_t i = 0; i < r->kh; ++i) {
        int64_t iy = r->oy * r->sh - r->ph + i * r->dh;
        if (iy < 0 || iy >= r->h) continue;
        for (int64_t q = 0; q < r->kw; ++q) {
          int64_t ix = ix0 + q * r->dw;
          if (ix < 0 || ix >= r->wd) continue;
          dw_block_generic(acc, r->x + (iy * r->wd + ix) * c + c0, r->w + (i * r->kw + q) * c + c0, cb);
        }
      }
      if (r->act != MTK_ACT_NONE) mtk_activation(r->act, 0.0f, acc, cb);
      memcpy(r->out + ox * c + c0, acc, (size_t)cb * sizeof(float));
    }
  }
}

void mtk_depthwise_row(const float* x, const float* w, float* out, int64_t h, int64_t wd, int64_t c, int64_t kh,
                       int64_t kw, int64_t ow, int64_t oy, int64_t sh, int64_t sw, int64_t dh, int64_t dw, int64_t ph,
                       int64_t pw, const float* bias, int act) {
  DwRow r = {x, w, out, h, wd, c, kh, kw, ow, oy, sh, sw, dh, dw, ph, pw, bias, act};
#ifdef DW_X86
  static int has_avx512 = -1;
  if (has_avx512 < 0) {
    __builtin_cpu_init();
    has_avx512 = __builtin_cpu_supports("avx512f") ? 1 : 0;
  }
  if (has_avx512 && !mtk_generic_forced()) {
    dw_row_avx512(&r);
    return;
  }
#endif
  dw_row_generic(&r);
}
