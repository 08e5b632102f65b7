/* MaxPool and AvgPool (float32, NHWC direct; NCHW through a transpose).
 *
 * Separable: per output row the window's rows are reduced first, then each pixel's
 * columns; rows of output pixels spread over the pool. MaxPool ignores padding and NaN (fmax, as
 * TF's CPU kernel); AvgPool divides by the number of real elements in the window.
 * MaxPool across depth (ksize over channels only) is supported with TF's rules. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mtk.h"

typedef struct {
  int is_max;
  mtk_window_attrs win;
  char padding_text[16];
} Pool;

static void* pool_create_kind(TF_OpKernelConstruction* ctx, int is_max) {
  Pool* k = (Pool*)calloc(1, sizeof(Pool));
  if (k == NULL) return NULL;
  k->is_max = is_max;
  if (mtk_window_attrs_read(ctx, &k->win) < 0) return k;
  mtk_attr_string(ctx, "padding", k->padding_text, sizeof k->padding_text);
  return k;
}
static void* max_create(TF_OpKernelConstruction* c) { return pool_create_kind(c, 1); }
static void* avg_create(TF_OpKernelConstruction* c) { return pool_create_kind(c, 0); }
static void pool_destroy(void* p) { free(p); }

typedef struct {
  const float* x;
  float* y;
  int64_t n, h, w, c, kh, kw, oh, ow;
  mtk_axis ah, aw;
  int is_max;
  int failed;
} PoolJob;

/* acc starts at -inf and never becomes NaN: a NaN tap never wins (fmax semantics, vectorizable). */
MTK_HOT static void max_into(float* restrict acc, const float* restrict x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) acc[i] = x[i] > acc[i] ? x[i] : acc[i];
}
MTK_HOT static void add_into(float* restrict acc, const float* restrict x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) acc[i] += x[i];
}
MTK_HOT static void scale(float* restrict acc, float f, int64_t n) {
  for (int64_t i = 0; i < n; ++i) acc[i] *= f;
}

MTK_HOT static void fill(float* restrict acc, float v, int64_t n) {
  for (int64_t i = 0; i < n; ++i) acc[i] = v;
}

/* The input rows [*y0, *y1) of output row oy's windows, clipped to the input. */
static void window_rows(const PoolJob* j, int64_t oy, int64_t* y0, int64_t* y1) {
  *y0 = oy * j->ah.stride - j->ah.pad_before;
  *y1 = *y0 + j->kh;
  if (*y0 < 0) *y0 = 0;
  if (*y1 > j->h) *y1 = j->h;
}

/* Separable windows: per output row, the window's input rows are first reduced into one row (W x C, in L1), then
 * each output pixel reduces its window's columns of that row: KH + KW passes per output instead of KH * KW. Max
 * never lets a NaN win in either pass, so the result is the same as the direct window's (the largest non-NaN
 * element, or -inf). */
static void pool_rows(void* p, int64_t begin, int64_t end) {
  PoolJob* j = (PoolJob*)p;
  const int64_t c = j->c, rowlen = j->w * c;
  float* buf = mtk_scratch(0, (size_t)rowlen);
  if (buf == NULL) {
    j->failed = 1;
    return;
  }
  for (int64_t r = begin; r < end; ++r) {
    int64_t b = r / j->oh, oy = r % j->oh;
    const float* xb = j->x + b * j->h * rowlen;
    int64_t y0, y1;
    window_rows(j, oy, &y0, &y1);
    if (j->is_max) {
      fill(buf, -INFINITY, rowlen);
      for (int64_t iy = y0; iy < y1; ++iy) max_into(buf, xb + iy * rowlen, rowlen);
    } else {
      fill(buf, 0.0f, rowlen);
      for (int64_t iy = y0; iy < y1; ++iy) add_into(buf, xb + iy * rowlen, rowlen);
    }
    for (int64_t ox = 0; ox < j->ow; ++ox) {
      float* out = j->y + (r * j->ow + ox) * c;
      int64_t x0 = ox * j->aw.stride - j->aw.pad_before, x1 = x0 + j->kw;
      if (x0 < 0) x0 = 0;
      if (x1 > j->w) x1 = j->w;
      if (x1 <= x0 || y1 <= y0) {
        fill(out, j->is_max ? -INFINITY : 0.0f, c);
        continue;
      }
      memcpy(out, buf + x0 * c, (size_t)c * sizeof(float));
      if (j->is_max) {
        for (int64_t ix = x0 + 1; ix < x1; ++ix) max_into(out, buf + ix * c, c);
      } else {
        for (int64_t ix = x0 + 1; ix < x1; ++ix) add_into(out, buf + ix * c, c);
        scale(out, 1.0f / (float)((y1 - y0) * (x1 - x0)), c);
      }
    }
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
/* NV channel vectors of one output pixel (the last one under `last`): the window's taps reduced into NV
 * accumulators side by side, so that NV reductions are in flight instead of one chain of dependent adds or maxes
 * at a time. */
__attribute__((target("avx512f"), always_inline)) static inline void pool_vectors(
    const int NV, int is_max, const float* first, int64_t rows, int64_t cols, int64_t rowlen, int64_t c, __m512 init,
    __m512 inv, __mmask16 last, float* out) {
  __m512 acc[4];
  __mmask16 mask[4];
  for (int u = 0; u < NV; ++u) {
    acc[u] = init;
    mask[u] = u == NV - 1 ? last : (__mmask16)0xFFFF;
  }
  for (int64_t iy = 0; iy < rows; ++iy) {
    const float* px = first + iy * rowlen;
    for (int64_t ix = 0; ix < cols; ++ix, px += c) {
      for (int u = 0; u < NV; ++u) {
        const __m512 xv = _mm512_maskz_loadu_ps(mask[u], px + u * 16);
        acc[u] = is_max ? _mm512_max_ps(xv, acc[u]) : _mm512_add_ps(acc[u], xv);
      }
    }
  }
  for (int u = 0; u < NV; ++u)
    _mm512_mask_storeu_ps(out + u * 16, mask[u], is_max ? acc[u] : _mm512_mul_ps(acc[u], inv));
}

/* With AVX-512: each output pixel reduces its window straight from the input, four of the pixel's channel vectors
 * at a time, the accumulators in registers (one load per tap, one store per vector), and the input rows the next
 * output row adds are requested while this row runs. The prefetch made the windows 1.3-1.5x faster (Inception's
 * 3x3 average pools, Xception's 3x3 stride-2 max pools); reducing four vectors side by side instead of one chain of
 * dependent adds at a time made 3x3 average pools another 1.2-1.5x faster ([8,35,35,192] on one thread 1.07-1.12
 * -> 0.69-0.76 ms, [8,17,17,768] 1.02-1.05 -> 0.75). A NaN never wins a max (_mm512_max_ps returns its second
 * operand, the accumulator, when the first is NaN). */
__attribute__((target("avx512f"))) static void pool_rows_avx512(void* p, int64_t begin, int64_t end) {
  PoolJob* j = (PoolJob*)p;
  const int64_t c = j->c, nv = (c + 15) / 16, rowlen = j->w * c;
  const __mmask16 tail = (__mmask16)(c % 16 == 0 ? 0xFFFF : (1u << (c % 16)) - 1);
  const __m512 init = _mm512_set1_ps(j->is_max ? -INFINITY : 0.0f);
  for (int64_t r = begin; r < end; ++r) {
    int64_t b = r / j->oh, oy = r % j->oh;
    const float* xb = j->x + b * j->h * rowlen;
    int64_t y0, y1;
    window_rows(j, oy, &y0, &y1);
    /* the input rows the next output row adds (same image): requested while this row runs, a few lines per pixel */
    int64_t p0 = y1, p1 = y1, next0;
    if (oy + 1 < j->oh) window_rows(j, oy + 1, &next0, &p1);
    const int64_t pf_lines = p1 > p0 ? (p1 - p0) * ((j->aw.stride * c + 15) / 16) : 0;
    for (int64_t ox = 0; ox < j->ow; ++ox) {
      float* out = j->y + (r * j->ow + ox) * c;
      int64_t x0 = ox * j->aw.stride - j->aw.pad_before, x1 = x0 + j->kw;
      if (pf_lines > 0 && x0 >= 0 && x0 + j->aw.stride <= j->w) {
        const int64_t per_row = (j->aw.stride * c + 15) / 16;
        for (int64_t q = 0; q < pf_lines; ++q)
          _mm_prefetch((const char*)(xb + ((p0 + q / per_row) * j->w + x0) * c + (q % per_row) * 16), _MM_HINT_T0);
      }
      if (x0 < 0) x0 = 0;
      if (x1 > j->w) x1 = j->w;
      const int64_t taps = (y1 - y0) * (x1 - x0);
      const __m512 inv = _mm512_set1_ps(taps > 0 ? 1.0f / (float)taps : 0.0f);
      const float* first = xb + (y0 * j->w + x0) * c;
      int64_t v = 0;
      for (; v + 4 <= nv; v += 4)
        pool_vectors(4, j->is_max, first + v * 16, y1 - y0, x1 - x0, rowlen, c, init, inv, nv - v == 4 ? tail : 0xFFFF,
                     out + v * 16);
      if (nv - v == 3)
        pool_vectors(3, j->is_max, first + v * 16, y1 - y0, x1 - x0, rowlen, c, init, inv, tail, out + v * 16);
      if (nv - v == 2)
        pool_vectors(2, j->is_max, first + v * 16, y1 - y0, x1 - x0, rowlen, c, init, inv, tail, out + v * 16);
      if (nv - v == 1)
        pool_vectors(1, j->is_max, first + v * 16, y1 - y0, x1 - x0, rowlen, c, init, inv, tail, out + v * 16);
    }
  }
}

static int pool_has_avx512(void) {
  static int has = -1;
  if (has < 0) {
    __builtin_cpu_init();
    has = __builtin_cpu_supports("avx512f") ? 1 : 0;
  }
  return has && !mtk_generic_forced();
}
#else
static int pool_has_avx512(void) { return 0; }
#define pool_rows_avx512 pool_rows
#endif

static void pool_compute(void* state, TF_OpKernelContext* ctx) {
  Pool* k = (Pool*)state;
  TF_Status* s = TF_NewStatus();
  TF_Tensor *x = NULL, *y = NULL;
  float *x_nhwc = NULL, *y_nhwc = NULL;
  const mtk_window_attrs* w = &k->win;
  TF_GetInput(ctx, 0, &x, s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    goto done;
  }
  if (TF_NumDims(x) != 4) {
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "Input must be 4 or 5-dimensional");
    goto done;
  }
  if (w->error_code != TF_OK) {
    mtk_fail(ctx, w->error_code, "%s", w->error);
    goto done;
  }
  if (!k->is_max && w->padding == MTK_PAD_EXPLICIT) {
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "AvgPool supports SAME and VALID padding, got '%s'", k->padding_text);
    goto done;
  }
  if (w->n_ksize != 4) {
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "Sliding window ksize field must specify 4 dimensions");
    goto done;
  }
  if (w->n_strides != 4) {
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "Sliding window stride field must specify 4 dimensions");
    goto done;
  }
  if (w->ksize[0] != 1 || w->strides[0] != 1) {
    mtk_fail(ctx, TF_UNIMPLEMENTED, "Pooling is not yet supported on the batch dimension.");
    goto done;
  }
  int nchw = w->nchw;
  int hi = nchw ? 2 : 1, wi = nchw ? 3 : 2, ci = nchw ? 1 : 3;
  PoolJob j;
  memset(&j, 0, sizeof j);
  j.is_max = k->is_max;
  j.n = TF_Dim(x, 0);
  j.h = TF_Dim(x, hi);
  j.w = TF_Dim(x, wi);
  j.c = TF_Dim(x, ci);
  j.kh = w->ksize[hi];
  j.kw = w->ksize[wi];
  int64_t depth_k = w->ksize[ci], depth_s = w->strides[ci];
  const float* xin = (const float*)TF_TensorData(x);
  if (nchw) {
    x_nhwc = (float*)mtk_aligned_alloc((size_t)(j.n * j.h * j.w * j.c) * sizeof(float));
    if (x_nhwc == NULL) goto oom;
    mtk_nchw_to_nhwc(xin, x_nhwc, j.n, j.c, j.h * j.w);
    xin = x_nhwc;
  }
  if (depth_k != 1) {
    if (!k->is_max) {
      mtk_fail(ctx, TF_UNIMPLEMENTED, "Non-spatial pooling is not yet supported.");
      goto done;
    }
    if (j.kh != 1 || j.kw != 1 || w->strides[hi] != 1 || w->strides[wi] != 1) {
      mtk_fail(ctx, TF_UNIMPLEMENTED,
               "MaxPooling supports exactly one of pooling across depth or pooling across width/height.");
      goto done;
    }
    if (depth_k <= 0 || j.c % depth_k != 0) {
      mtk_fail(ctx, TF_UNIMPLEMENTED, "Depthwise max pooling requires the depth window to evenly divide the input depth");
      goto done;
    }
    if (depth_s != depth_k) {
      mtk_fail(ctx, TF_UNIMPLEMENTED, "Depthwise max pooling requires the depth window to equal the depth stride");
      goto done;
    }
    int64_t oc = j.c / depth_k, pixels = j.n * j.h * j.w;
    int64_t dims[4] = {j.n, nchw ? oc : j.h, nchw ? j.h : j.w, nchw ? j.w : oc};
    y = TF_AllocateOutput(ctx, 0, TF_FLOAT, dims, 4, (size_t)(pixels * oc) * sizeof(float), s);
    if (TF_GetCode(s) != TF_OK) {
      TF_OpKernelContext_Failure(ctx, s);
      goto done;
    }
    float* out = (float*)TF_TensorData(y);
    if (nchw) {
      y_nhwc = (float*)mtk_aligned_alloc((size_t)(pixels * oc) * sizeof(float));
      if (y_nhwc == NULL) goto oom;
      out = y_nhwc;
    }
    for (int64_t p = 0; p < pixels; ++p) /* np.max over the depth window: NaN propagates */
      for (int64_t o = 0; o < oc; ++o) {
        const float* v = xin + p * j.c + o * depth_k;
        float m = v[0];
        for (int64_t d = 1; d < depth_k; ++d) m = (isnan(m) || v[d] > m || isnan(v[d])) ? (isnan(m) ? m : v[d]) : m;
        out[p * oc + o] = m;
      }
    if (nchw) mtk_nhwc_to_nchw(y_nhwc, (float*)TF_TensorData(y), j.n, oc, j.h * j.w);
    goto done;
  }
  int64_t ph[2] = {0, 0}, pw[2] = {0, 0};
  if (w->padding == MTK_PAD_EXPLICIT) {
    if (w->n_explicit != 8) {
      mtk_fail(ctx, TF_INVALID_ARGUMENT, "explicit_paddings attribute must contain 8 values, but got: %d",
               w->n_explicit);
      goto done;
    }
    if (w->explicit_pad[0] || w->explicit_pad[1] || w->explicit_pad[2 * ci] || w->explicit_pad[2 * ci + 1]) {
      mtk_fail(ctx, TF_INVALID_ARGUMENT, "Nonzero explicit padding in the batch or depth dimensions is not supported");
      goto done;
    }
    ph[0] = w->explicit_pad[2 * hi];
    ph[1] = w->explicit_pad[2 * hi + 1];
    pw[0] = w->explicit_pad[2 * wi];
    pw[1] = w->explicit_pad[2 * wi + 1];
  }
  char error[320];
  if (mtk_axis_init(&j.ah, j.h, j.kh, w->strides[hi], 1, w->padding, ph[0], ph[1], error, sizeof error) < 0 ||
      mtk_axis_init(&j.aw, j.w, j.kw, w->strides[wi], 1, w->padding, pw[0], pw[1], error, sizeof error) < 0) {
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "%s", error);
    goto done;
  }
  j.oh = j.ah.out;
  j.ow = j.aw.out;
  int64_t total = j.n * j.oh * j.ow * j.c;
  int64_t dims[4] = {j.n, nchw ? j.c : j.oh, nchw ? j.oh : j.ow, nchw ? j.ow : j.c};
  y = TF_AllocateOutput(ctx, 0, TF_FLOAT, dims, 4, (size_t)total * sizeof(float), s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    goto done;
  }
  if (total == 0) goto done;
  j.x = xin;
  j.y = (float*)TF_TensorData(y);
  if (nchw) {
    y_nhwc = (float*)mtk_aligned_alloc((size_t)total * sizeof(float));
    if (y_nhwc == NULL) goto oom;
    j.y = y_nhwc;
  }
  int64_t work = j.ow * j.c * j.kh * j.kw;
  mtk_parallel_for(j.n * j.oh, work > 16384 ? 1 : 16384 / (work + 1) + 1,
                   pool_has_avx512() ? pool_rows_avx512 : pool_rows, &j);
  if (j.failed) goto oom;
  if (nchw) mtk_nhwc_to_nchw(y_nhwc, (float*)TF_TensorData(y), j.n, j.c, j.oh * j.ow);
  goto done;
oom:
  mtk_fail(ctx, TF_RESOURCE_EXHAUSTED, "out of memory for a pooling");
done:
  free(x_nhwc);
  free(y_nhwc);
  TF_DeleteTensor(x);
  TF_DeleteTensor(y);
  TF_DeleteStatus(s);
}

void mtk_register_pooling(TF_Status* s) {
  mtk_register("MtkMaxPool", "MaxPool", max_create, pool_compute, pool_destroy, s);
  if (TF_GetCode(s) == TF_OK) mtk_register("MtkAvgPool", "AvgPool", avg_create, pool_compute, pool_destroy, s);
}
