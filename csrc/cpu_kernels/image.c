/* ResizeBilinear, ResizeNearestNeighbor, ResizeBicubic and ResizeArea of float32 images (NHWC), with TF's
 * sampling: the source position of each output row / column is computed once, in float as TF's scalers do (legacy
 * x * scale, half-pixel centers, align corners), so the chosen source pixels and weights are TF's; bilinear
 * interpolates in float in TF's order, bicubic uses TF's 1025-entry coefficient table (Keys' a = -0.5 with
 * half-pixel centers, else -0.75), area sums the covered source cells in double. Output rows are spread over the
 * pool. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mtk.h"

enum { RS_BILINEAR, RS_NEAREST, RS_BICUBIC, RS_AREA };

typedef struct {
  int kind;
  int align_corners, half_pixel;
} Resize;

static float calc_scale(int64_t in, int64_t out, int align) {
  if (align && in > 1 && out > 1) return (float)(in - 1) / (float)(out - 1);
  return (float)in / (float)out;
}

/* ------------------------------------------------------------------ per-axis sampling tables */

typedef struct {
  int64_t lo, hi;
  float lerp;
} LinAxis;

static void bilinear_axis(LinAxis* ax, int64_t in, int64_t out, float scale, int half) {
  for (int64_t o = 0; o < out; ++o) {
    float src = half ? ((float)o + 0.5f) * scale - 0.5f : (float)o * scale;
    float fl = floorf(src);
    int64_t lo = (int64_t)fl, hi = (int64_t)ceilf(src);
    ax[o].lo = lo < 0 ? 0 : lo;
    ax[o].hi = hi < in - 1 ? hi : in - 1;
    ax[o].lerp = src - fl;
  }
}

static void nearest_axis(int64_t* idx, int64_t in, int64_t out, float scale, int align, int half) {
  for (int64_t o = 0; o < out; ++o) {
    float src = half ? ((float)o + 0.5f) * scale : (float)o * scale;
    int64_t i = align ? (int64_t)roundf(src) : (int64_t)floorf(src);
    if (i > in - 1) i = in - 1;
    if (half && i < 0) i = 0;
    idx[o] = i;
  }
}

#define TABLE 1024

static const float* cubic_table(int half) {
  static float tables[2][(TABLE + 1) * 2];
  static int ready[2];
  float* t = tables[half];
  if (!__atomic_load_n(&ready[half], __ATOMIC_ACQUIRE)) {
    double a = half ? -0.5 : -0.75;
    for (int i = 0; i <= TABLE; ++i) {
      double x = (double)i / TABLE, x1 = x + 1.0;
      t[2 * i] = (float)(((a + 2) * x - (a + 3)) * x * x + 1);
      t[2 * i + 1] = (float)(((a * x1 - 5 * a) * x1 + 8 * a) * x1 - 4 * a);
    }
    __atomic_store_n(&ready[half], 1, __ATOMIC_RELEASE);
  }
  return t;
}

typedef struct {
  int64_t idx[4];
  float w[4];
} CubicAxis;

static void bicubic_axis(CubicAxis* ax, int64_t in, int64_t out, float scale, int half) {
  const float* table = cubic_table(half);
  for (int64_t o = 0; o < out; ++o) {
    float src = half ? ((float)o + 0.5f) * scale - 0.5f : (float)o * scale;
    int64_t loc = (int64_t)floorf(src);
    float delta = src - (float)loc;
    int64_t off = (int64_t)lrintf(delta * (float)TABLE);
    float w[4] = {table[2 * off + 1], table[2 * off], table[2 * (TABLE - off)], table[2 * (TABLE - off) + 1]};
    for (int j = 0; j < 4; ++j) {
      int64_t want = loc - 1 + j, i = want < 0 ? 0 : (want > in - 1 ? in - 1 : want);
      ax[o].idx[j] = i;
      if (half && i != want) w[j] = 0.0f;
    }
    if (half) {
      float total = w[0] + w[1] + w[2] + w[3];
      if (fabsf(total) >= 1000.0f * 1.17549435e-38f) {
        float inv = 1.0f / total;
        for (int j = 0; j < 4; ++j) w[j] = w[j] * inv;
      }
    }
    for (int j = 0; j < 4; ++j) ax[o].w[j] = w[j];
  }
}

/* how much of each source cell output cell o covers, as TF's area weights: (first cell, count, weights) */
typedef struct {
  int64_t first, count;
  double* w; /* count entries */
} AreaAxis;

static int area_axis(AreaAxis* ax, double* pool, int64_t in, int64_t out, float scale) {
  int64_t used = 0;
  for (int64_t o = 0; o < out; ++o) {
    float start = (float)o * scale, end = (float)(o + 1) * scale;
    int64_t i0 = (int64_t)floorf(start), i1 = (int64_t)ceilf(end);
    ax[o].first = i0;
    ax[o].count = i1 - i0;
    ax[o].w = pool + used;
    for (int64_t i = i0; i < i1; ++i) {
      float w;
      if ((float)i < start) {
        w = (float)(i + 1) > end ? scale : (float)(i + 1) - start;
      } else {
        w = (float)(i + 1) > end ? end - (float)i : 1.0f;
      }
      ax[o].w[i - i0] = (double)w;
    }
    used += ax[o].count;
  }
  (void)in;
  return 0;
}

/* ------------------------------------------------------------------ the job */

typedef struct {
  int kind;
  const float* x;
  float* y;
  int64_t n, ih, iw, c, oh, ow;
  LinAxis *ly, *lx;
  int64_t *ny, *nx;
  CubicAxis *cy, *cx;
  AreaAxis *ay, *ax;
  double inv_area;
  int failed;
} ResizeJob;

static inline int64_t clampi(int64_t v, int64_t hi) { return v < 0 ? 0 : (v > hi ? hi : v); }

MTK_HOT static void lerp_row(float* restrict out, const float* tl, const float* tr, const float* bl, const float* br,
                             float xl, float yl, int64_t c) {
  for (int64_t k = 0; k < c; ++k) {
    float top = tl[k] + (tr[k] - tl[k]) * xl;
    float bottom = bl[k] + (br[k] - bl[k]) * xl;
    out[k] = top + (bottom - top) * yl;
  }
}

MTK_HOT static void cubic_row(float* restrict out, const float* const* v, const float* w, int64_t c) {
  for (int64_t k = 0; k < c; ++k) {
    float r = v[0][k] * w[0];
    r = r + v[1][k] * w[1];
    r = r + v[2][k] * w[2];
    r = r + v[3][k] * w[3];
    out[k] = r;
  }
}

MTK_HOT static void cubic_combine(float* restrict out, const float* r0, const float* r1, const float* r2,
                                  const float* r3, const float* w, int64_t c) {
  for (int64_t k = 0; k < c; ++k) {
    float o = r0[k] * w[0];
    o = o + r1[k] * w[1];
    o = o + r2[k] * w[2];
    o = o + r3[k] * w[3];
    out[k] = o;
  }
}

MTK_HOT static void axpy_d(double* restrict acc, const float* restrict x, double w, int64_t n) {
  for (int64_t i = 0; i < n; ++i) acc[i] += w * (double)x[i];
}

static void resize_rows(void* p, int64_t begin, int64_t end) {
  ResizeJob* j = (ResizeJob*)p;
  const int64_t c = j->c, irow = j->iw * c;
  float* tmp = NULL;
  double* dacc = NULL;
  if (j->kind == RS_BICUBIC) {
    tmp = mtk_scratch(0, (size_t)(4 * c));
    if (tmp == NULL) {
      j->failed = 1;
      return;
    }
  }
  if (j->kind == RS_AREA) {
    dacc = (double*)(void*)mtk_scratch(0, (size_t)(2 * (irow + c)));
    if (dacc == NULL) {
      j->failed = 1;
      return;
    }
  }
  for (int64_t r = begin; r < end; ++r) {
    int64_t b = r / j->oh, oy = r % j->oh;
    const float* img = j->x + b * j->ih * irow;
    float* out = j->y + r * j->ow * c;
    switch (j->kind) {
      case RS_BILINEAR: {
        const float* top = img + j->ly[oy].lo * irow;
        const float* bottom = img + j->ly[oy].hi * irow;
        for (int64_t ox = 0; ox < j->ow; ++ox) {
          const LinAxis* a = &j->lx[ox];
          lerp_row(out + ox * c, top + a->lo * c, top + a->hi * c, bottom + a->lo * c, bottom + a->hi * c, a->lerp,
                   j->ly[oy].lerp, c);
        }
        break;
      }
      case RS_NEAREST: {
        const float* row = img + j->ny[oy] * irow;
        for (int64_t ox = 0; ox < j->ow; ++ox) memcpy(out + ox * c, row + j->nx[ox] * c, (size_t)c * sizeof(float));
        break;
      }
      case RS_BICUBIC: {
        const CubicAxis* ya = &j->cy[oy];
        for (int64_t ox = 0; ox < j->ow; ++ox) {
          const CubicAxis* xa = &j->cx[ox];
          for (int i = 0; i < 4; ++i) {
            const float* row = img + ya->idx[i] * irow;
            const float* v[4] = {row + xa->idx[0] * c, row + xa->idx[1] * c, row + xa->idx[2] * c,
                                 row + xa->idx[3] * c};
            cubic_row(tmp + i * c, v, xa->w, c);
          }
          cubic_combine(out + ox * c, tmp, tmp + c, tmp + 2 * c, tmp + 3 * c, ya->w, c);
        }
        break;
      }
      default: { /* area: the covered rows summed (weighted) into one row, then each output pixel's cells */
        const AreaAxis* ya = &j->ay[oy];
        double* rowsum = dacc;
        double* pix = dacc + irow;
        memset(rowsum, 0, (size_t)irow * sizeof(double));
        for (int64_t i = 0; i < ya->count; ++i)
          axpy_d(rowsum, img + clampi(ya->first + i, j->ih - 1) * irow, ya->w[i], irow);
        for (int64_t ox = 0; ox < j->ow; ++ox) {
          const AreaAxis* xa = &j->ax[ox];
          memset(pix, 0, (size_t)c * sizeof(double));
          for (int64_t i = 0; i < xa->count; ++i) {
            const double* cell = rowsum + clampi(xa->first + i, j->iw - 1) * c;
            double w = xa->w[i];
            for (int64_t k = 0; k < c; ++k) pix[k] += w * cell[k];
          }
          for (int64_t k = 0; k < c; ++k) out[ox * c + k] = (float)(pix[k] * j->inv_area);
        }
        break;
      }
    }
  }
}

static void* resize_create_kind(TF_OpKernelConstruction* ctx, int kind) {
  Resize* k = (Resize*)calloc(1, sizeof(Resize));
  if (k == NULL) return NULL;
  k->kind = kind;
  k->align_corners = mtk_attr_flag(ctx, "align_corners");
  k->half_pixel = kind == RS_AREA ? 0 : mtk_attr_flag(ctx, "half_pixel_centers");
  return k;
}
static void* bilinear_create(TF_OpKernelConstruction* c) { return resize_create_kind(c, RS_BILINEAR); }
static void* nearest_create(TF_OpKernelConstruction* c) { return resize_create_kind(c, RS_NEAREST); }
static void* bicubic_create(TF_OpKernelConstruction* c) { return resize_create_kind(c, RS_BICUBIC); }
static void* area_create(TF_OpKernelConstruction* c) { return resize_create_kind(c, RS_AREA); }
static void resize_destroy(void* p) { free(p); }

static void resize_compute(void* state, TF_OpKernelContext* ctx) {
  Resize* k = (Resize*)state;
  TF_Status* s = TF_NewStatus();
  TF_Tensor *x = NULL, *size = NULL, *y = NULL;
  void* tables = NULL;
  char shape[128];
  TF_GetInput(ctx, 0, &x, s);
  if (TF_GetCode(s) == TF_OK) TF_GetInput(ctx, 1, &size, s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    goto done;
  }
  if (k->half_pixel && k->align_corners) {
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "If half_pixel_centers is True, align_corners must be False.");
    goto done;
  }
  if (TF_NumDims(x) != 4) {
    mtk_shape_str(x, shape, sizeof shape);
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "input must be 4-dimensional%s", shape);
    goto done;
  }
  if (TF_NumDims(size) != 1) {
    mtk_shape_str(size, shape, sizeof shape);
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "shape_t must be 1-dimensional%s", shape);
    goto done;
  }
  if (TF_Dim(size, 0) != 2) {
    mtk_shape_str(size, shape, sizeof shape);
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "shape_t must have two elements%s", shape);
    goto done;
  }
  ResizeJob j;
  memset(&j, 0, sizeof j);
  j.kind = k->kind;
  const int32_t* sz = (const int32_t*)TF_TensorData(size);
  j.oh = sz[0];
  j.ow = sz[1];
  if (j.oh <= 0 || j.ow <= 0) {
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "output dimensions must be positive");
    goto done;
  }
  j.n = TF_Dim(x, 0);
  j.ih = TF_Dim(x, 1);
  j.iw = TF_Dim(x, 2);
  j.c = TF_Dim(x, 3);
  if (j.c <= 0) {
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "image must have at least one channel");
    goto done;
  }
  if (j.ih <= 0 || j.iw <= 0) {
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "input image must be of non-zero size");
    goto done;
  }
  int64_t dims[4] = {j.n, j.oh, j.ow, j.c};
  int64_t total = j.n * j.oh * j.ow * j.c;
  y = TF_AllocateOutput(ctx, 0, TF_FLOAT, dims, 4, (size_t)total * sizeof(float), s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    goto done;
  }
  if (total == 0) goto done;
  j.x = (const float*)TF_TensorData(x);
  j.y = (float*)TF_TensorData(y);
  float hs = calc_scale(j.ih, j.oh, k->align_corners), ws = calc_scale(j.iw, j.ow, k->align_corners);
  size_t bytes;
  switch (k->kind) {
    case RS_BILINEAR:
      bytes = (size_t)(j.oh + j.ow) * sizeof(LinAxis);
      break;
    case RS_NEAREST:
      bytes = (size_t)(j.oh + j.ow) * sizeof(int64_t);
      break;
    case RS_BICUBIC:
      bytes = (size_t)(j.oh + j.ow) * sizeof(CubicAxis);
      break;
    default: /* an output cell covers at most ceil(scale) + 1 source cells */
      bytes = (size_t)(j.oh + j.ow) * sizeof(AreaAxis) +
              (size_t)((double)j.oh * (ceil((double)hs) + 2) + (double)j.ow * (ceil((double)ws) + 2)) * sizeof(double);
      break;
  }
  tables = malloc(bytes);
  if (tables == NULL) goto oom;
  switch (k->kind) {
    case RS_BILINEAR:
      j.ly = (LinAxis*)tables;
      j.lx = j.ly + j.oh;
      bilinear_axis(j.ly, j.ih, j.oh, hs, k->half_pixel);
      bilinear_axis(j.lx, j.iw, j.ow, ws, k->half_pixel);
      break;
    case RS_NEAREST:
      j.ny = (int64_t*)tables;
      j.nx = j.ny + j.oh;
      nearest_axis(j.ny, j.ih, j.oh, hs, k->align_corners, k->half_pixel);
      nearest_axis(j.nx, j.iw, j.ow, ws, k->align_corners, k->half_pixel);
      break;
    case RS_BICUBIC:
      j.cy = (CubicAxis*)tables;
      j.cx = j.cy + j.oh;
      bicubic_axis(j.cy, j.ih, j.oh, hs, k->half_pixel);
      bicubic_axis(j.cx, j.iw, j.ow, ws, k->half_pixel);
      break;
    default: {
      j.ay = (AreaAxis*)tables;
      j.ax = j.ay + j.oh;
      double* pool = (double*)(j.ax + j.ow);
      area_axis(j.ay, pool, j.ih, j.oh, hs);
      int64_t used = 0;
      for (int64_t o = 0; o < j.oh; ++o) used += j.ay[o].count;
      area_axis(j.ax, pool + used, j.iw, j.ow, ws);
      j.inv_area = 1.0 / ((double)hs * (double)ws);
      break;
    }
  }
  int64_t per_row = j.ow * j.c * (k->kind == RS_BICUBIC ? 20 : 4);
  mtk_parallel_for(j.n * j.oh, 1 + 32768 / (per_row + 1), resize_rows, &j);
  if (j.failed) goto oom;
  goto done;
oom:
  mtk_fail(ctx, TF_RESOURCE_EXHAUSTED, "out of memory resizing an image");
done:
  free(tables);
  TF_DeleteTensor(x);
  TF_DeleteTensor(size);
  TF_DeleteTensor(y);
  TF_DeleteStatus(s);
}

void mtk_register_image(TF_Status* s) {
  mtk_register("MtkResizeBilinear", "ResizeBilinear", bilinear_create, resize_compute, resize_destroy, s);
  if (TF_GetCode(s) == TF_OK)
    mtk_register("MtkResizeNearestNeighbor", "ResizeNearestNeighbor", nearest_create, resize_compute, resize_destroy,
                 s);
  if (TF_GetCode(s) == TF_OK)
    mtk_register("MtkResizeBicubic", "ResizeBicubic", bicubic_create, resize_compute, resize_destroy, s);
  if (TF_GetCode(s) == TF_OK)
    mtk_register("MtkResizeArea", "ResizeArea", area_create, resize_compute, resize_destroy, s);
}
