/* Depthwise convolution (depth multiplier 1), NHWC: the hot loop of DepthwiseConv2dNative /
 * _FusedDepthwiseConv2dNative.
 *
 * With AVX-512: padded tiles over the pool (mtk_depthwise_fast, below), or for 256 channels and more the input
 * read in place. Elsewhere a portable row loop the compiler vectorizes (mtk_depthwise_row), bounds checked per
 * tap. */
#include <string.h>

#include "mtk.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define DW_X86 1
#define MAX_TAPS 64
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
/* ---------------------------------------------------------------- AVX-512: padded tiles
 *
 * A task takes one image, a group of up to 64 channels and a band of output rows. It first copies the input rows
 * the band reads into a tile with the padding written out as zeros and the channels padded to a multiple of 16
 * ([rows][pad + W + pad][16k]), so that every output pixel then takes the same path: no bounds checks, no masked
 * loads, however small the image (a 7x7 map under a 7x7 filter has no interior pixel at all). The taps' weights
 * of a 16-channel vector stay in registers while the row's pixels are swept 8 at a time, one load and one FMA per
 * tap and pixel. */
#define TILE_BYTES (160 * 1024)
#define GROUP_CHANNELS 64

typedef struct {
  const mtk_dw_job* j;
  int64_t cb, groups, band, bands, wp, pl;
  int failed;
} DwPlan;

__attribute__((target("avx512f"))) static inline __m512 dw_act(__m512 v, int act) {
  if (act == MTK_ACT_RELU) return _mm512_max_ps(v, _mm512_setzero_ps());
  if (act == MTK_ACT_RELU6) return _mm512_min_ps(_mm512_max_ps(v, _mm512_setzero_ps()), _mm512_set1_ps(6.0f));
  return v;
}

#define DW_BLOCK(NP)                                                                                    \
  do {                                                                                                  \
    __m512 acc[NP];                                                                                     \
    for (int u = 0; u < (NP); ++u) acc[u] = start;                                                      \
    const float* base = row + ox * step;                                                                \
    for (int64_t t = 0; t < ntaps; ++t) {                                                               \
      const float* px = base + toff[t];                                                                 \
      const __m512 wt = wv[t];                                                                          \
      for (int u = 0; u < (NP); ++u) acc[u] = _mm512_fmadd_ps(_mm512_load_ps(px + u * step), wt, acc[u]); \
    }                                                                                                   \
    for (int u = 0; u < (NP); ++u) _mm512_mask_storeu_ps(out + (ox + u) * c, mask, dw_act(acc[u], act)); \
  } while (0)

/* A row of output pixels with a KW-wide filter at stride S (dilation 1): blocks of NP pixels, where each filter
 * row loads the (NP - 1) * S + KW input vectors its pixels read once and multiplies them with its KW weights, so
 * one load serves several taps (0.4-0.6 loads per FMA instead of 1-2); the block's accumulators stay in registers
 * and are stored with the activation. `cbp` is the distance between neighbouring pixels and between taps' weights
 * (the tile's padded channels, or the tensor's own channels when it reads the input in place); loads are masked to
 * the vector's channels. */
#define DW_BLOCK_FN(KW, S, NP)                                                                                    \
  __attribute__((target("avx512f"), always_inline)) static inline void dw_b##KW##s##S##n##NP(                    \
      const float* base, const float* wt, int64_t kh, int64_t rstride, int64_t cbp, __m512 start, int act,        \
      __mmask16 mask, float* out, int64_t ostride) {                                                              \
    __m512 acc[NP];                                                                                               \
    _Pragma("GCC unroll 8") for (int u = 0; u < (NP); ++u) acc[u] = start;                                        \
    for (int64_t ky = 0; ky < kh; ++ky) {                                                                         \
      const float* rp = base + ky * rstride;                                                                      \
      const float* wr = wt + ky * (KW) * cbp;                                                                     \
      __m512 xv[((NP) - 1) * (S) + (KW)];                                                                         \
      _Pragma("GCC unroll 32") for (int i = 0; i < ((NP) - 1) * (S) + (KW); ++i) xv[i] =                          \
          _mm512_maskz_loadu_ps(mask, rp + i * cbp);                                                              \
      _Pragma("GCC unroll 8") for (int q = 0; q < (KW); ++q) {                                                    \
        const __m512 w = _mm512_maskz_loadu_ps(mask, wr + q * cbp);                                               \
        _Pragma("GCC unroll 8") for (int u = 0; u < (NP); ++u) acc[u] = _mm512_fmadd_ps(xv[u * (S) + q], w,       \
                                                                                        acc[u]);                  \
      }                                                                                                           \
    }                                                                                                             \
    _Pragma("GCC unroll 8") for (int u = 0; u < (NP); ++u)                                                        \
        _mm512_mask_storeu_ps(out + u * ostride, mask, dw_act(acc[u], act));                                      \
  }

/* The row: blocks of N8 pixels (0: none), then of 4, 2 and 1; returns the pixels done (all of them). */
#define DW_ROW_FN(KW, S, N8)                                                                                      \
  DW_BLOCK_FN(KW, S, 4)                                                                                           \
  DW_BLOCK_FN(KW, S, 2)                                                                                           \
  DW_BLOCK_FN(KW, S, 1)                                                                                           \
  __attribute__((target("avx512f"))) static int64_t dw_row_k##KW##s##S(                                           \
      const float* row, const float* wt, int64_t kh, int64_t rstride, int64_t cbp, __m512 start, int act,         \
      __mmask16 mask, float* out, int64_t ostride, int64_t ow) {                                                  \
    int64_t ox = 0;                                                                                               \
    DW_ROW_WIDE_##N8(KW, S)                                                                                       \
    for (; ox + 4 <= ow; ox += 4)                                                                                 \
      dw_b##KW##s##S##n4(row + ox * (S) * cbp, wt, kh, rstride, cbp, start, act, mask, out + ox * ostride,        \
                         ostride);                                                                                \
    for (; ox + 2 <= ow; ox += 2)                                                                                 \
      dw_b##KW##s##S##n2(row + ox * (S) * cbp, wt, kh, rstride, cbp, start, act, mask, out + ox * ostride,        \
                         ostride);                                                                                \
    for (; ox < ow; ++ox)                                                                                         \
      dw_b##KW##s##S##n1(row + ox * (S) * cbp, wt, kh, rstride, cbp, start, act, mask, out + ox * ostride,        \
                         ostride);                                                                                \
    return ox;                                                                                                    \
  }
#define DW_ROW_WIDE_0(KW, S)
#define DW_ROW_WIDE_8(KW, S)                                                                                      \
  for (; ox + 8 <= ow; ox += 8)                                                                                   \
    dw_b##KW##s##S##n8(row + ox * (S) * cbp, wt, kh, rstride, cbp, start, act, mask, out + ox * ostride, ostride);

/* The same row with the loops the other way round, for the in-place path over many channels: each block of pixels
 * runs over all of the row's channel vectors before the next block starts. The block's input pixels and output
 * pixels are then read and written whole (C contiguous floats each) instead of one 64-byte line per pixel per sweep,
 * a stride of 4C bytes the prefetchers follow poorly ([8,19,19,728] on one thread 2.7 -> 1.8 ms, on two 1.2 -> 0.8;
 * [8,14,14,512] 0.58 -> 0.37; at 256 channels and fewer, no gain or a loss). `bias` (or NULL) per channel. */
#define DW_PIX_VECS(KW, S, NP)                                                                                    \
  for (int64_t v = 0; v < nv; ++v) {                                                                              \
    const int64_t left = c - v * 16;                                                                              \
    const __mmask16 mask = (__mmask16)(left >= 16 ? 0xFFFF : (1u << left) - 1);                                  \
    const __m512 start = bias != NULL ? _mm512_maskz_loadu_ps(mask, bias + v * 16) : _mm512_setzero_ps();         \
    dw_b##KW##s##S##n##NP(row + ox * (S) * c + v * 16, wt + v * 16, kh, rstride, c, start, act, mask,             \
                          out + ox * c + v * 16, c);                                                              \
  }
#define DW_PIX_FN(KW, S, N8)                                                                                      \
  __attribute__((target("avx512f"))) static void dw_pix_k##KW##s##S(const float* row, const float* wt, int64_t kh, \
                                                                    int64_t rstride, int64_t c, const float* bias,  \
                                                                    int act, float* out, int64_t npix) {            \
    const int64_t nv = (c + 15) / 16;                                                                             \
    int64_t ox = 0;                                                                                               \
    DW_PIX_WIDE_##N8(KW, S)                                                                                       \
    for (; ox + 4 <= npix; ox += 4) DW_PIX_VECS(KW, S, 4)                                                         \
    for (; ox + 2 <= npix; ox += 2) DW_PIX_VECS(KW, S, 2)                                                         \
    for (; ox < npix; ++ox) DW_PIX_VECS(KW, S, 1)                                                                 \
  }
#define DW_PIX_WIDE_0(KW, S)
#define DW_PIX_WIDE_8(KW, S) for (; ox + 8 <= npix; ox += 8) DW_PIX_VECS(KW, S, 8)

DW_BLOCK_FN(3, 1, 8)
DW_ROW_FN(3, 1, 8)
DW_PIX_FN(3, 1, 8)
DW_BLOCK_FN(5, 1, 8)
DW_ROW_FN(5, 1, 8)
DW_PIX_FN(5, 1, 8)
DW_BLOCK_FN(7, 1, 8)
DW_ROW_FN(7, 1, 8)
DW_PIX_FN(7, 1, 8)
DW_BLOCK_FN(3, 2, 8)
DW_ROW_FN(3, 2, 8)
DW_PIX_FN(3, 2, 8)
DW_BLOCK_FN(5, 2, 8)
DW_ROW_FN(5, 2, 8)
DW_PIX_FN(5, 2, 8)
DW_ROW_FN(7, 2, 0)
DW_PIX_FN(7, 2, 0)

typedef int64_t (*dw_row_fn)(const float*, const float*, int64_t, int64_t, int64_t, __m512, int, __mmask16, float*,
                             int64_t, int64_t);
typedef void (*dw_pix_fn)(const float*, const float*, int64_t, int64_t, int64_t, const float*, int, float*, int64_t);

/* The register-blocked kernels of one (filter width, stride): a channel vector over a row, and the pixel-major
 * form of the same blocks. */
typedef struct {
  int64_t kw, sw;
  dw_row_fn row;
  dw_pix_fn pix;
} DwKernels;

static const DwKernels kDwKernels[] = {
    {3, 1, dw_row_k3s1, dw_pix_k3s1}, {5, 1, dw_row_k5s1, dw_pix_k5s1}, {7, 1, dw_row_k7s1, dw_pix_k7s1},
    {3, 2, dw_row_k3s2, dw_pix_k3s2}, {5, 2, dw_row_k5s2, dw_pix_k5s2}, {7, 2, dw_row_k7s2, dw_pix_k7s2},
};

/* The kernels for (kw, stride) without dilation along W, or NULL (the tap loop). */
static const DwKernels* dw_kernels(int64_t kw, int64_t sw, int64_t dw) {
  for (size_t i = 0; dw == 1 && i < sizeof kDwKernels / sizeof *kDwKernels; ++i) {
    if (kDwKernels[i].kw == kw && kDwKernels[i].sw == sw) return &kDwKernels[i];
  }
  return NULL;
}

__attribute__((target("avx512f"))) static void dw_tile_tasks(void* p, int64_t begin, int64_t end) {
  DwPlan* pl = (DwPlan*)p;
  const mtk_dw_job* j = pl->j;
  const int64_t c = j->c, ntaps = j->kh * j->kw, wp = pl->wp;
  const int act = j->bias_act;
  for (int64_t task = begin; task < end; ++task) {
    int64_t band = task % pl->bands, g = (task / pl->bands) % pl->groups, b = task / (pl->bands * pl->groups);
    int64_t oy0 = band * pl->band, oy1 = oy0 + pl->band < j->oh ? oy0 + pl->band : j->oh;
    int64_t c0 = g * pl->cb, cbn = c - c0 < pl->cb ? c - c0 : pl->cb, cbp = (cbn + 15) / 16 * 16;
    int64_t iy0 = oy0 * j->sh - j->ph, rows = (oy1 - 1 - oy0) * j->sh + (j->kh - 1) * j->dh + 1;
    float* tile = mtk_scratch(0, (size_t)(rows * wp * cbp));
    float* wts = mtk_scratch(1, (size_t)((ntaps + 1) * cbp));
    int64_t* toff = (int64_t*)(void*)mtk_scratch(2, (size_t)(ntaps * 2));
    if (tile == NULL || wts == NULL || toff == NULL) {
      pl->failed = 1;
      return;
    }
    /* the tile: rows iy0 .. iy0 + rows - 1 of image b, channels c0 .. c0 + cbn - 1, zero-padded */
    __mmask16 lane[GROUP_CHANNELS / 16];
    for (int v = 0; v < GROUP_CHANNELS / 16; ++v) {
      int64_t left = cbn - v * 16;
      lane[v] = (__mmask16)(left >= 16 ? 0xFFFF : (left <= 0 ? 0 : (1u << left) - 1));
    }
    const int nv = (int)(cbp / 16);
    for (int64_t ty = 0; ty < rows; ++ty) {
      int64_t iy = iy0 + ty;
      float* dst = tile + ty * wp * cbp;
      if (iy < 0 || iy >= j->h) {
        memset(dst, 0, (size_t)(wp * cbp) * sizeof(float));
        continue;
      }
      memset(dst, 0, (size_t)(pl->pl * cbp) * sizeof(float));
      const float* src = j->x + ((b * j->h + iy) * j->wd) * c + c0;
      float* d = dst + pl->pl * cbp;
      for (int64_t ix = 0; ix < j->wd; ++ix, src += c, d += cbp)
        for (int v = 0; v < nv; ++v) _mm512_store_ps(d + v * 16, _mm512_maskz_loadu_ps(lane[v], src + v * 16));
      int64_t right = wp - pl->pl - j->wd;
      if (right > 0) memset(d, 0, (size_t)(right * cbp) * sizeof(float));
    }
    /* the weights [taps][cbp] and the bias [cbp], zero-padded */
    for (int64_t t = 0; t < ntaps; ++t)
      for (int v = 0; v < nv; ++v)
        _mm512_store_ps(wts + t * cbp + v * 16, _mm512_maskz_loadu_ps(lane[v], j->w + t * c + c0 + v * 16));
    float* bias = wts + ntaps * cbp;
    for (int v = 0; v < nv; ++v)
      _mm512_store_ps(bias + v * 16,
                      j->bias != NULL ? _mm512_maskz_loadu_ps(lane[v], j->bias + c0 + v * 16) : _mm512_setzero_ps());
    for (int64_t ky = 0, t = 0; ky < j->kh; ++ky)
      for (int64_t kx = 0; kx < j->kw; ++kx, ++t) toff[t] = (ky * j->dh * wp + kx * j->dw) * cbp;
    const int64_t step = j->sw * cbp, rstride = j->dh * wp * cbp;
    const DwKernels* ks = dw_kernels(j->kw, j->sw, j->dw);
    const dw_row_fn krow = ks != NULL ? ks->row : NULL;
    __m512 wv[MAX_TAPS];
    for (int64_t oy = oy0; oy < oy1; ++oy) {
      float* yrow = j->y + ((b * j->oh + oy) * j->ow) * c;
      for (int v = 0; v < nv; ++v) {
        const __m512 start = _mm512_load_ps(bias + v * 16);
        const __mmask16 mask = lane[v];
        const float* row = tile + ((oy - oy0) * j->sh * wp) * cbp + v * 16;
        float* out = yrow + c0 + v * 16;
        int64_t ox = 0;
        if (krow != NULL) {
          ox = krow(row, wts + v * 16, j->kh, rstride, cbp, start, act, mask, out, c, j->ow);
        } else {
          for (int64_t t = 0; t < ntaps; ++t) wv[t] = _mm512_load_ps(wts + t * cbp + v * 16);
          for (; ox + 8 <= j->ow; ox += 8) DW_BLOCK(8);
          for (; ox + 4 <= j->ow; ox += 4) DW_BLOCK(4);
        }
        if (ox < j->ow) {
          for (int64_t t = 0; t < ntaps; ++t) wv[t] = _mm512_load_ps(wts + t * cbp + v * 16);
          for (; ox < j->ow; ++ox) DW_BLOCK(1);
        }
      }
      if (j->ep != NULL) mtk_epilogue_block(j->ep, yrow, c, 0, j->ow, c0, c0 + cbn);
    }
  }
}

/* Without the tile: the interior pixels of each output row (every tap inside the image) read the input in place
 * through the same register-blocked kernels (the pixel stride and the weights' tap stride are both C), the few
 * border pixels take the taps that fall inside one by one. Tasks are (image, band of output rows), all channels:
 * each writes whole output rows, and the input is read once instead of copied first. */
typedef struct {
  const mtk_dw_job* j;
  dw_row_fn krow;
  dw_pix_fn kpix; /* the interior pixels pixel-major (more than 256 channels), or NULL: krow per channel vector */
  int64_t band, bands;
} DwDirect;

__attribute__((target("avx512f"))) static void dw_direct_tasks(void* p, int64_t begin, int64_t end) {
  const DwDirect* d = (const DwDirect*)p;
  const mtk_dw_job* j = d->j;
  const int64_t c = j->c, nv = (c + 15) / 16;
  /* interior output columns: ox * sw - pw >= 0 and ox * sw - pw + kw - 1 < wd */
  int64_t lo = (j->pw + j->sw - 1) / j->sw, hi = j->wd - j->kw + j->pw < 0 ? -1 : (j->wd - j->kw + j->pw) / j->sw;
  if (hi > j->ow - 1) hi = j->ow - 1;
  if (lo > hi + 1) lo = hi + 1;
  for (int64_t task = begin; task < end; ++task) {
    int64_t b = task / d->bands, oy0 = (task % d->bands) * d->band;
    int64_t oy1 = oy0 + d->band < j->oh ? oy0 + d->band : j->oh;
    const float* xb = j->x + b * j->h * j->wd * c;
    for (int64_t oy = oy0; oy < oy1; ++oy) {
      int64_t iy0 = oy * j->sh - j->ph, ky0 = iy0 < 0 ? -iy0 : 0, ky1 = j->h - iy0 < j->kh ? j->h - iy0 : j->kh;
      float* yrow = j->y + ((b * j->oh + oy) * j->ow) * c;
      const int interior = ky1 > ky0 && hi >= lo;
      if (interior && d->kpix != NULL)
        d->kpix(xb + ((iy0 + ky0) * j->wd + lo * j->sw - j->pw) * c, j->w + ky0 * j->kw * c, ky1 - ky0, j->wd * c, c,
                j->bias, j->bias_act, yrow + lo * c, hi - lo + 1);
      for (int64_t v = 0; v < nv; ++v) {
        int64_t left = c - v * 16;
        const __mmask16 mask = (__mmask16)(left >= 16 ? 0xFFFF : (1u << left) - 1);
        const __m512 start = j->bias != NULL ? _mm512_maskz_loadu_ps(mask, j->bias + v * 16) : _mm512_setzero_ps();
        float* out = yrow + v * 16;
        if (interior && d->kpix == NULL)
          d->krow(xb + ((iy0 + ky0) * j->wd + lo * j->sw - j->pw) * c + v * 16, j->w + ky0 * j->kw * c + v * 16,
                  ky1 - ky0, j->wd * c, c, start, j->bias_act, mask, out + lo * c, c, hi - lo + 1);
        for (int64_t ox = 0; ox < j->ow; ++ox) {
          if (ox == lo && interior) {
            ox = hi;
            continue;
          }
          __m512 acc = start;
          int64_t ix0 = ox * j->sw - j->pw;
          for (int64_t ky = ky0; ky < ky1; ++ky)
            for (int64_t kx = 0; kx < j->kw; ++kx) {
              int64_t ix = ix0 + kx;
              if (ix < 0 || ix >= j->wd) continue;
              acc = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask, xb + ((iy0 + ky) * j->wd + ix) * c + v * 16),
                                    _mm512_maskz_loadu_ps(mask, j->w + (ky * j->kw + kx) * c + v * 16), acc);
            }
          _mm512_mask_storeu_ps(out + ox * c, mask, dw_act(acc, j->bias_act));
        }
      }
      if (j->ep != NULL) mtk_epilogue_block(j->ep, yrow, c, 0, j->ow, 0, c);
    }
  }
}

/* The direct path when the register-blocked kernels cover the filter, the channels are many (256 or more: the
 * tile copy then costs about as much as the taps; [8,19,19,728] 1.1-1.2 -> 0.9-1.2 ms, [8,37,37,728] 4.9 -> 4.0,
 * [8,10,10,1536] 0.66 -> 0.42) or the rows are wide (128 pixels or more, with 64 channels or more: a wide row's
 * tile holds few channels and copies its halo rows again per group; Xception's [8,147,147,128] 24.6-25.5 -> 21.6-22.5
 * ms on one thread, [8,147,147,64] 12.1 -> 11.2-11.7, where [8,74,74,128] ran 5.2 -> 5.8), and there are rows
 * enough for whole-row tasks (else the tile's channel groups share the work better). 1: done. */
static int dw_direct(const mtk_dw_job* j) {
  const DwKernels* ks = dw_kernels(j->kw, j->sw, j->dw);
  const int many = j->c >= 256 || (j->wd >= 128 && j->c >= 64);
  if (ks == NULL || j->dh != 1 || !many || j->n * j->oh < 16) return 0;
  DwDirect d = {j, ks->row, j->c > 256 ? ks->pix : NULL, 1, j->oh};
  /* bands of rows: about 4 tasks per thread over the batch, whole rows each */
  int64_t want = 4 * (int64_t)mtk_num_threads();
  int64_t bands = (want + j->n - 1) / j->n;
  d.band = bands >= j->oh ? 1 : j->oh / bands;
  d.bands = (j->oh + d.band - 1) / d.band;
  double work = (double)j->n * (double)j->oh * (double)j->ow * (double)j->c * (double)(j->kh * j->kw);
  int64_t tasks = j->n * d.bands;
  mtk_parallel_for(tasks, work < 65536.0 ? tasks : 1, dw_direct_tasks, &d);
  return 1;
}

static int dw_avx512(const mtk_dw_job* j) {
  if (dw_direct(j)) return 0;
  DwPlan pl;
  memset(&pl, 0, sizeof pl);
  pl.j = j;
  pl.pl = j->pw;
  int64_t need = (j->ow - 1) * j->sw + (j->kw - 1) * j->dw + 1; /* tile columns the last pixel reads */
  pl.wp = j->pw + j->wd;
  if (need > pl.wp) pl.wp = need;
  /* Channels per group: as many (up to 64) as let a band of 8 output rows fit the tile, so the halo rows a band
   * copies again stay a small part of it (wide images with tall strided filters get 16-channel groups). */
  int64_t rows8 = 7 * j->sh + (j->kh - 1) * j->dh + 1;
  int64_t fit = TILE_BYTES / (int64_t)(rows8 * pl.wp * sizeof(float)) / 16 * 16;
  if (fit < 16) fit = 16;
  if (fit > GROUP_CHANNELS) fit = GROUP_CHANNELS;
  pl.cb = j->c < fit ? j->c : fit;
  pl.groups = (j->c + pl.cb - 1) / pl.cb;
  int64_t cbp = (pl.cb + 15) / 16 * 16;
  int64_t rows_fit = TILE_BYTES / (int64_t)(pl.wp * cbp * sizeof(float));
  int64_t band = (rows_fit - (j->kh - 1) * j->dh - 1) / j->sh + 1;
  if (band < 1) band = 1;
  if (band > j->oh) band = j->oh;
  /* enough tasks for the pool: bands shrink (re-reading the halo rows) when images x groups are too few */
  int64_t want = 4 * (int64_t)mtk_num_threads(), units = j->n * pl.groups;
  if (units * ((j->oh + band - 1) / band) < want) {
    int64_t bands = (want + units - 1) / units;
    int64_t b2 = (j->oh + bands - 1) / bands;
    if (b2 < band) band = b2 < 1 ? 1 : b2;
  }
  pl.band = band;
  pl.bands = (j->oh + band - 1) / band;
  double work = (double)j->n * (double)j->oh * (double)j->ow * (double)j->c * (double)(j->kh * j->kw);
  int64_t tasks = j->n * pl.groups * pl.bands;
  mtk_parallel_for(tasks, work < 65536.0 ? tasks : 1, dw_tile_tasks, &pl);
  return pl.failed ? -1 : 0;
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
  dw_row_generic(&r);
}

int mtk_depthwise_fast(const mtk_dw_job* j) {
#ifdef DW_X86
  static int has_avx512 = -1;
  if (has_avx512 < 0) {
    __builtin_cpu_init();
    has_avx512 = __builtin_cpu_supports("avx512f") ? 1 : 0;
  }
  if (has_avx512 && !mtk_generic_forced() && j->kh * j->kw <= MAX_TAPS) return dw_avx512(j) < 0 ? -1 : 1;
#else
  (void)j;
#endif
  return 0;
}
