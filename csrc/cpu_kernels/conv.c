/* Conv2D, _FusedConv2D, DepthwiseConv2dNative and _FusedDepthwiseConv2dNative (float32).
 *
 * Convolution is im2col + GEMM, tiled over output rows: each task builds the patch
 * rows of one tile in thread-local scratch (a 1x1 stride-1 unpadded filter reads
 * the input directly), multiplies them with the [KH*KW*C, OC] filter and runs the
 * fused epilogue on the tile while it is in cache. When there are too few rows to
 * keep every thread busy (late layers at batch 1) the patch matrix is built once and
 * the output channels are split instead. Grouped convolution runs one GEMM per
 * group on the same tile. Ungrouped filters larger than 1x1 (or strided) whose filter
 * rows hold at least 8 floats run as an implicit GEMM instead (no patch matrix; see
 * below). Depthwise convolution is direct: per output pixel, the
 * taps accumulate into a register block of channels. NCHW is transposed to NHWC and
 * back around the NHWC code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtk.h"

enum { KIND_CONV, KIND_FUSED_CONV, KIND_DEPTHWISE, KIND_FUSED_DEPTHWISE };

/* Floats per tap from which a convolution runs as an implicit GEMM (fewer: im2col, whose rows are longer). */
#ifndef MTK_INDIRECT_MIN_DEPTH
#define MTK_INDIRECT_MIN_DEPTH 8
#endif

typedef struct {
  int kind;
  const char* op;
  int const_weights;        /* the filter is a Const (attr set by the graph optimizer): keep it packed */
  mtk_weights_cache cache;
  mtk_window_attrs win;
  mtk_epilogue ep;
  int fused_error;
  char fused_message[320];
} Conv;

static void* conv_create_kind(TF_OpKernelConstruction* ctx, int kind, const char* op) {
  Conv* k = (Conv*)calloc(1, sizeof(Conv));
  if (k == NULL) return NULL;
  k->kind = kind;
  k->op = op;
  mtk_weights_cache_init(&k->cache);
  k->const_weights = mtk_attr_flag(ctx, "_modtensor_const_weights");
  if (mtk_window_attrs_read(ctx, &k->win) < 0) return k;
  if (kind == KIND_FUSED_CONV || kind == KIND_FUSED_DEPTHWISE) {
    char format[16] = "HWIO";
    if (kind == KIND_FUSED_CONV && mtk_attr_string(ctx, "filter_format", format, sizeof format) < 0) return k;
    if (strcmp(format, "HWIO") != 0) {
      k->fused_error = 1;
      snprintf(k->fused_message, sizeof k->fused_message,
               "%s with filter_format %s is not supported on CPU; use HWIO", op, format);
      return k;
    }
    if (mtk_parse_fused_ops(ctx, op, kind == KIND_FUSED_CONV, kind == KIND_FUSED_CONV, 0, &k->ep, k->fused_message,
                            sizeof k->fused_message) < 0) {
      k->fused_error = 1;
      return k;
    }
    TF_Status* s = TF_NewStatus();
    TF_OpKernelConstruction_GetAttrFloat(ctx, "epsilon", &k->ep.epsilon, s);
    TF_OpKernelConstruction_GetAttrFloat(ctx, "leakyrelu_alpha", &k->ep.alpha, s);
    int64_t num_args = 0;
    TF_OpKernelConstruction_GetAttrInt64(ctx, "num_args", &num_args, s);
    if (TF_GetCode(s) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s);
    TF_DeleteStatus(s);
    if (num_args != k->ep.num_args) {
      k->fused_error = 1;
      snprintf(k->fused_message, sizeof k->fused_message, "%s: fused_ops need %d args, num_args is %lld", op,
               k->ep.num_args, (long long)num_args);
    }
  }
  return k;
}

static void* conv_create(TF_OpKernelConstruction* c) { return conv_create_kind(c, KIND_CONV, "Conv2D"); }
static void* fused_conv_create(TF_OpKernelConstruction* c) {
  return conv_create_kind(c, KIND_FUSED_CONV, "_FusedConv2D");
}
static void* depthwise_create(TF_OpKernelConstruction* c) {
  return conv_create_kind(c, KIND_DEPTHWISE, "DepthwiseConv2dNative");
}
static void* fused_depthwise_create(TF_OpKernelConstruction* c) {
  return conv_create_kind(c, KIND_FUSED_DEPTHWISE, "_FusedDepthwiseConv2dNative");
}
static void conv_destroy(void* p) {
  Conv* k = (Conv*)p;
  if (k == NULL) return;
  mtk_weights_cache_destroy(&k->cache);
  free(k);
}

/* ------------------------------------------------------------------ geometry */

typedef struct {
  const float* x; /* NHWC input */
  const float* w; /* [KH, KW, Cg, OC] or depthwise [KH, KW, C, M] */
  float* y;       /* NHWC output */
  int64_t n, h, wd, c, kh, kw, oc, groups, cg, per_group;
  mtk_axis ah, aw;
  int64_t oh, ow, m, k;
  int pointwise;  /* 1x1, stride 1, no padding: the input is the patch matrix */
  const mtk_epilogue_args* ep;
  mtk_weights_cache* cache; /* constant filter: its packing is kept (groups == 1) */
  int failed;
} ConvJob;

/* Patch rows [r0, r1) of group g into dst ([r1-r0, KH*KW*Cg]). */
static void im2col_rows(const ConvJob* j, int64_t g, int64_t r0, int64_t r1, float* dst) {
  const int64_t cg = j->cg, k = j->k;
  for (int64_t r = r0; r < r1; ++r) {
    int64_t b = r / (j->oh * j->ow), rem = r % (j->oh * j->ow);
    int64_t oy = rem / j->ow, ox = rem % j->ow;
    float* out = dst + (r - r0) * k;
    const float* xb = j->x + b * j->h * j->wd * j->c + g * cg;
    for (int64_t i = 0; i < j->kh; ++i) {
      int64_t iy = oy * j->ah.stride - j->ah.pad_before + i * j->ah.dilation;
      if (iy < 0 || iy >= j->h) {
        memset(out, 0, (size_t)(j->kw * cg) * sizeof(float));
        out += j->kw * cg;
        continue;
      }
      int64_t ix0 = ox * j->aw.stride - j->aw.pad_before;
      if (j->groups == 1 && j->aw.dilation == 1 && ix0 >= 0 && ix0 + j->kw <= j->wd) {
        /* the whole kernel row is inside: KW * C contiguous floats */
        memcpy(out, xb + (iy * j->wd + ix0) * j->c, (size_t)(j->kw * cg) * sizeof(float));
        out += j->kw * cg;
        continue;
      }
      for (int64_t q = 0; q < j->kw; ++q) {
        int64_t ix = ix0 + q * j->aw.dilation;
        if (ix < 0 || ix >= j->wd) {
          memset(out, 0, (size_t)cg * sizeof(float));
        } else {
          memcpy(out, xb + (iy * j->wd + ix) * j->c, (size_t)cg * sizeof(float));
        }
        out += cg;
      }
    }
  }
}

typedef struct {
  const ConvJob* j;
  int64_t g;
} ConvRows;

static void conv_rows(void* p, int64_t r0, int64_t r1, float* dst) {
  const ConvRows* r = (const ConvRows*)p;
  im2col_rows(r->j, r->g, r0, r1, dst);
}

static void epilogue_rows(void* p, int64_t begin, int64_t end) {
  ConvJob* j = (ConvJob*)p;
  mtk_epilogue_block(j->ep, j->y, j->oc, begin, end, 0, j->oc);
}

/* One product per group (all of the convolution for groups == 1), the epilogue fused into each task's block. */
static void run_conv(ConvJob* j) {
  for (int64_t g = 0; g < j->groups; ++g) {
    ConvRows rows = {j, g};
    mtk_gemm_desc d;
    memset(&d, 0, sizeof d);
    d.m = j->m;
    d.n = j->per_group;
    d.k = j->k;
    if (j->pointwise) {
      d.a = j->x + g * j->cg;
      d.lda = j->c;
    } else {
      d.rows = conv_rows;
      d.rows_ctx = &rows;
    }
    d.b = j->w + g * j->per_group;
    d.ldb = j->oc;
    d.c = j->y + g * j->per_group;
    d.ldc = j->oc;
    d.ep = j->groups == 1 ? j->ep : NULL;
    if (j->groups == 1 && j->cache != NULL) d.packed = mtk_weights_cache_get(j->cache, 0, d.k, d.n, d.b, d.ldb, 0);
    if (mtk_gemm_parallel(&d) < 0) {
      j->failed = 1;
      return;
    }
  }
  if (j->groups > 1 && j->ep != NULL) mtk_parallel_for(j->m, 64, epilogue_rows, j);
}

/* ------------------------------------------------------------------ implicit GEMM */

/* Convolutions with a filter larger than 1x1 (or strided) run without a patch matrix: each task lists, for its output
 * rows, where the input of every filter tap starts, and the indirect micro-kernel reads those inputs in place, the
 * block of C in registers over all KH * KW * C products. This saves writing and re-reading the KH * KW times larger
 * patch matrix (and, for the layers with few output rows, building it once per column block).
 *
 * Without dilation along W, a tap is a whole filter row: the KW pixels it covers are KW * C contiguous floats of NHWC
 * input, so a row lists KH pointers (one per filter row) with a depth of KW * C each, the filter's [KH, KW * C, OC]
 * layout. A filter row that reaches past the left or right edge is copied into the task's scratch with its padding
 * zeroed; one above or below the input is a zero run. Small C (the RGB stems, C = 3: 9 or 21 floats per filter row)
 * thereby runs as an implicit GEMM too. With dilation along W, a tap is one filter pixel (depth C). */
typedef struct {
  const ConvJob* j;
  const mtk_packed_b* pb;
  mtk_grid grid;
  int64_t ntaps, depth; /* runs of `depth` floats per output row: KH of KW * C, or KH * KW of C */
  int failed;
} IndirectJob;

static void indirect_tasks(void* p, int64_t begin, int64_t end) {
  IndirectJob* ij = (IndirectJob*)p;
  const ConvJob* j = ij->j;
  const mtk_packed_b* pb = ij->pb;
  const mtk_gemm_arch* ar = pb->arch;
  const int mr = ar->mr, nr = ar->nr;
  const int64_t ntaps = ij->ntaps, depth = ij->depth, c = j->c, ohw = j->oh * j->ow;
  const int rows_as_taps = ntaps == j->kh; /* a tap is a filter row (KW * C floats) */
  for (int64_t t = begin; t < end; ++t) {
    int64_t r0, r1, c0, c1;
    mtk_grid_task(&ij->grid, t, &r0, &r1, &c0, &c1);
    if (r1 <= r0 || c1 <= c0) continue;
    int64_t tiles = (r1 - r0 + mr - 1) / mr;
    /* the output rows whose filter rows cross the left or right edge (their copies go to scratch) */
    int64_t b = r0 / ohw, rem = r0 % ohw, oy0 = rem / j->ow, ox0 = rem % j->ow;
    int64_t edges = 0;
    if (rows_as_taps) {
      for (int64_t r = r0, ox = ox0; r < r1; ++r) {
        int64_t ix0 = ox * j->aw.stride - j->aw.pad_before;
        edges += ix0 < 0 || ix0 + j->kw > j->wd;
        if (++ox == j->ow) ox = 0;
      }
    }
    float* zero = mtk_scratch(2, (size_t)(depth + edges * j->kh * depth));
    const float** ptrs = (const float**)(void*)mtk_scratch(3, (size_t)(tiles * mr * ntaps) * 2);
    if (zero == NULL || ptrs == NULL) {
      ij->failed = 1;
      return;
    }
    memset(zero, 0, (size_t)depth * sizeof(float));
    float* copies = zero + depth;
    /* ptrs[(u * ntaps + tap) * mr + i]: micro-tile u, row i; the output pixel advances along its row. The geometry
     * in locals: the pointer stores could alias the job's pointer fields. */
    const int64_t h = j->h, wd = j->wd, kh = j->kh, kw = j->kw, sy = j->ah.stride, sx = j->aw.stride;
    const int64_t dy = j->ah.dilation, dx = j->aw.dilation, py = j->ah.pad_before, px = j->aw.pad_before;
    const int64_t oh = j->oh, ow = j->ow, nrows = r1 - r0, row_step = dy * wd * c;
    const float* const x = j->x;
    int64_t oy = oy0, ox = ox0;
    const float* xb = x + b * h * wd * c;
    int64_t iy0 = oy * sy - py;
    int rows_inside = rows_as_taps && iy0 >= 0 && iy0 + (kh - 1) * dy < h;
    for (int64_t u = 0; u < tiles; ++u) {
      for (int i = 0; i < mr; ++i) {
        const float** out = ptrs + u * ntaps * mr + i;
        if (u * mr + i >= nrows) { /* beyond the tile: repeat the last row (read, never stored) */
          for (int64_t q = 0; q < ntaps; ++q) out[q * mr] = out[q * mr - 1];
          continue;
        }
        int64_t ix0 = ox * sx - px;
        int inside = ix0 >= 0 && ix0 + kw <= wd;
        if (rows_inside && inside) { /* the common case: every filter row inside */
          const float* first = xb + (iy0 * wd + ix0) * c;
          for (int64_t ky = 0; ky < kh; ++ky) out[ky * mr] = first + ky * row_step;
        } else {
          for (int64_t ky = 0; ky < kh; ++ky) {
            int64_t iy = iy0 + ky * dy;
            if (iy < 0 || iy >= h) {
              if (rows_as_taps) {
                *out = zero;
                out += mr;
              } else {
                for (int64_t kx = 0; kx < kw; ++kx, out += mr) *out = zero;
              }
              continue;
            }
            const float* xrow = xb + iy * wd * c;
            if (rows_as_taps && inside) {
              *out = xrow + ix0 * c;
              out += mr;
            } else if (rows_as_taps) { /* the filter row crosses an edge: a copy with the padding zeroed */
              for (int64_t kx = 0; kx < kw; ++kx) {
                int64_t ix = ix0 + kx;
                if (ix < 0 || ix >= wd) {
                  memset(copies + kx * c, 0, (size_t)c * sizeof(float));
                } else {
                  memcpy(copies + kx * c, xrow + ix * c, (size_t)c * sizeof(float));
                }
              }
              *out = copies;
              copies += depth;
              out += mr;
            } else {
              for (int64_t kx = 0; kx < kw; ++kx, out += mr) {
                int64_t ix = ix0 + kx * dx;
                *out = (ix < 0 || ix >= wd) ? zero : xrow + ix * c;
              }
            }
          }
        }
        if (++ox == ow) {
          ox = 0;
          if (++oy == oh) {
            oy = 0;
            ++b;
            xb = x + b * h * wd * c;
          }
          iy0 = oy * sy - py;
          rows_inside = rows_as_taps && iy0 >= 0 && iy0 + (kh - 1) * dy < h;
        }
      }
    }
    mtk_post post; /* the epilogue in the micro-kernels' stores when they can apply it */
    int fused = j->ep != NULL && mtk_post_of(j->ep, 0, 0, &post);
    for (int64_t col = c0; col < c1; col += nr) {
      int n = (int)(c1 - col < nr ? c1 - col : nr);
      const float* bp = pb->data + (col / nr) * j->k * nr;
      for (int64_t u = 0; u < tiles; ++u) {
        int64_t row = r0 + u * mr;
        int rows = (int)(r1 - row < mr ? r1 - row : mr);
        const mtk_post* pp = fused && mtk_post_of(j->ep, row, col, &post) ? &post : NULL;
        ar->kernel_indirect(ntaps, depth, ptrs + u * ntaps * mr, bp, j->y + row * j->oc + col, j->oc, 0, rows, n, pp);
      }
    }
    if (j->ep != NULL && !fused) mtk_epilogue_block(j->ep, j->y, j->oc, r0, r1, c0, c1);
  }
}

/* Whether the implicit GEMM runs a convolution: filter rows (or, with dilation along W, filter pixels) of at least
 * MTK_INDIRECT_MIN_DEPTH floats; shorter runs go through im2col, whose rows are longer. */
static int indirect_ok(const ConvJob* j) {
  int64_t depth = j->aw.dilation == 1 ? j->kw * j->c : j->c;
  return j->groups == 1 && !j->pointwise && depth >= MTK_INDIRECT_MIN_DEPTH;
}

static void run_conv_indirect(ConvJob* j) {
  mtk_packed_b own;
  const mtk_packed_b* pb = NULL;
  /* one depth block: the kernel keeps the block of C in registers over all of K */
  if (j->cache != NULL) pb = mtk_weights_cache_get(j->cache, 0, j->k, j->oc, j->w, j->oc, j->k);
  if (pb == NULL) {
    if (mtk_pack_b_depth(&own, 0, j->k, j->oc, j->w, j->oc, j->k) < 0) {
      j->failed = 1;
      return;
    }
    pb = &own;
  }
  IndirectJob ij;
  memset(&ij, 0, sizeof ij);
  ij.j = j;
  ij.pb = pb;
  ij.ntaps = j->aw.dilation == 1 ? j->kh : j->kh * j->kw;
  ij.depth = j->aw.dilation == 1 ? j->kw * j->c : j->c;
  double flops = 2.0 * (double)j->m * (double)j->oc * (double)j->k;
  mtk_gemm_grid(j->m, j->oc, flops < 1e5 ? 1 : mtk_num_threads(), pb->arch->mc, pb->arch->mr, pb->arch->nr, 1,
                &ij.grid);
  mtk_parallel_for(ij.grid.tiles * ij.grid.col_blocks, ij.grid.grain, indirect_tasks, &ij);
  if (pb == &own) mtk_packed_b_free(&own);
  if (ij.failed) j->failed = 1;
}

/* ------------------------------------------------------------------ depthwise */

static void depthwise_rows(void* p, int64_t begin, int64_t end) {
  ConvJob* j = (ConvJob*)p;
  const int64_t c = j->c, mult = j->per_group, oc = j->oc;
  for (int64_t r = begin; r < end; ++r) { /* r = b * OH + oy */
    int64_t b = r / j->oh, oy = r % j->oh;
    float* yrow = j->y + r * j->ow * oc;
    const float* xb = j->x + b * j->h * j->wd * c;
    int in_kernel = 0; /* the epilogue applied inside the row kernel: bias and Relu/Relu6 */
    if (mult == 1) {
      const mtk_epilogue_args* ep = j->ep;
      in_kernel = ep != NULL && ep->mul == NULL && ep->addend == NULL &&
                  (ep->ep->activation == MTK_ACT_NONE || ep->ep->activation == MTK_ACT_RELU ||
                   ep->ep->activation == MTK_ACT_RELU6);
      mtk_depthwise_row(xb, j->w, yrow, j->h, j->wd, c, j->kh, j->kw, j->ow, oy, j->ah.stride, j->aw.stride,
                        j->ah.dilation, j->aw.dilation, j->ah.pad_before, j->aw.pad_before,
                        in_kernel ? ep->shift : NULL, in_kernel ? ep->ep->activation : MTK_ACT_NONE);
    } else {
      for (int64_t ox = 0; ox < j->ow; ++ox) {
        float* out = yrow + ox * oc;
        memset(out, 0, (size_t)oc * sizeof(float));
        for (int64_t i = 0; i < j->kh; ++i) {
          int64_t iy = oy * j->ah.stride - j->ah.pad_before + i * j->ah.dilation;
          if (iy < 0 || iy >= j->h) continue;
          for (int64_t q = 0; q < j->kw; ++q) {
            int64_t ix = ox * j->aw.stride - j->aw.pad_before + q * j->aw.dilation;
            if (ix < 0 || ix >= j->wd) continue;
            const float* xin = xb + (iy * j->wd + ix) * c;
            const float* w = j->w + (i * j->kw + q) * oc;
            for (int64_t ch = 0; ch < c; ++ch)
              for (int64_t m = 0; m < mult; ++m) out[ch * mult + m] += xin[ch] * w[ch * mult + m];
          }
        }
      }
    }
    if (j->ep != NULL && !in_kernel) mtk_epilogue_block(j->ep, yrow, oc, 0, j->ow, 0, oc);
  }
}

/* ------------------------------------------------------------------ compute */

static void conv_compute(void* state, TF_OpKernelContext* ctx) {
  Conv* k = (Conv*)state;
  TF_Status* s = TF_NewStatus();
  TF_Tensor *x = NULL, *w = NULL, *y = NULL;
  TF_Tensor* held[8] = {0};
  mtk_epilogue_args ep_args;
  memset(&ep_args, 0, sizeof ep_args);
  float *x_nhwc = NULL, *y_nhwc = NULL;
  int depthwise = k->kind == KIND_DEPTHWISE || k->kind == KIND_FUSED_DEPTHWISE;
  int fused = k->kind == KIND_FUSED_CONV || k->kind == KIND_FUSED_DEPTHWISE;
  char shape[128];

  if (k->fused_error) {
    mtk_fail(ctx, TF_UNIMPLEMENTED, "%s", k->fused_message);
    goto done;
  }
  TF_GetInput(ctx, 0, &x, s);
  if (TF_GetCode(s) == TF_OK) TF_GetInput(ctx, 1, &w, s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    goto done;
  }
  if (TF_NumDims(x) != 4) {
    mtk_shape_str(x, shape, sizeof shape);
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "input must be 4-dimensional%s", shape);
    goto done;
  }
  if (TF_NumDims(w) != 4) {
    mtk_shape_str(w, shape, sizeof shape);
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "filter must be 4-dimensional: %s", shape);
    goto done;
  }
  ConvJob j;
  memset(&j, 0, sizeof j);
  int nchw = k->win.nchw;
  j.n = TF_Dim(x, 0);
  j.c = TF_Dim(x, nchw ? 1 : 3);
  j.h = TF_Dim(x, nchw ? 2 : 1);
  j.wd = TF_Dim(x, nchw ? 3 : 2);
  j.kh = TF_Dim(w, 0);
  j.kw = TF_Dim(w, 1);
  int64_t f_in = TF_Dim(w, 2), f_out = TF_Dim(w, 3);
  if (depthwise) {
    if (j.c != f_in) {
      mtk_fail(ctx, TF_INVALID_ARGUMENT, "input depth must be evenly divisible by filter depth: %lld vs %lld",
               (long long)j.c, (long long)f_in);
      goto done;
    }
    j.groups = j.c;
    j.cg = 1;
    j.per_group = f_out; /* depth multiplier */
    j.oc = j.c * f_out;
  } else {
    if (f_in == 0 || j.c % f_in != 0) {
      mtk_fail(ctx, TF_INVALID_ARGUMENT, "input depth must be evenly divisible by filter depth: %lld vs %lld",
               (long long)j.c, (long long)f_in);
      goto done;
    }
    j.groups = j.c / f_in;
    if (f_out % j.groups != 0) {
      mtk_fail(ctx, TF_INVALID_ARGUMENT, "output depth must be evenly divisible by number of groups: %lld vs %lld",
               (long long)f_out, (long long)j.groups);
      goto done;
    }
    j.cg = f_in;
    j.per_group = f_out / j.groups;
    j.oc = f_out;
  }
  if (mtk_window_axes(ctx, &k->win, j.h, j.wd, j.kh, j.kw, 1, &j.ah, &j.aw) < 0) goto done;
  j.oh = j.ah.out;
  j.ow = j.aw.out;
  j.m = j.n * j.oh * j.ow;
  j.k = j.kh * j.kw * j.cg;
  int64_t dims[4] = {j.n, nchw ? j.oc : j.oh, nchw ? j.oh : j.ow, nchw ? j.ow : j.oc};
  y = TF_AllocateOutput(ctx, 0, TF_FLOAT, dims, 4, (size_t)(j.m * j.oc) * sizeof(float), s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    goto done;
  }
  if (fused) {
    if (mtk_epilogue_bind(ctx, &k->ep, 2, j.oc, dims, 4, &ep_args, held, s) < 0) {
      if (TF_GetCode(s) != TF_OK) TF_OpKernelContext_Failure(ctx, s);
      goto done;
    }
    j.ep = &ep_args;
  }
  if (j.m == 0 || j.oc == 0) goto done;
  j.w = (const float*)TF_TensorData(w);
  j.x = (const float*)TF_TensorData(x);
  j.y = (float*)TF_TensorData(y);
  if (nchw) {
    x_nhwc = (float*)mtk_aligned_alloc((size_t)(j.n * j.h * j.wd * j.c) * sizeof(float));
    y_nhwc = (float*)mtk_aligned_alloc((size_t)(j.m * j.oc) * sizeof(float));
    if (x_nhwc == NULL || y_nhwc == NULL) {
      mtk_fail(ctx, TF_RESOURCE_EXHAUSTED, "out of memory transposing an NCHW convolution");
      goto done;
    }
    mtk_nchw_to_nhwc(j.x, x_nhwc, j.n, j.c, j.h * j.wd);
    j.x = x_nhwc;
    j.y = y_nhwc;
    if (ep_args.addend != NULL) { /* the residual operand is NCHW as well */
      float* add = (float*)mtk_aligned_alloc((size_t)(j.m * j.oc) * sizeof(float));
      if (add == NULL) {
        mtk_fail(ctx, TF_RESOURCE_EXHAUSTED, "out of memory transposing an NCHW convolution");
        goto done;
      }
      mtk_nchw_to_nhwc(ep_args.addend, add, j.n, j.oc, j.oh * j.ow);
      ep_args.addend = add;
      free(ep_args.owned_addend);
      ep_args.owned_addend = add;
    }
  }
  j.cache = k->const_weights ? &k->cache : NULL;
  j.pointwise = !depthwise && j.kh == 1 && j.kw == 1 && j.ah.stride == 1 && j.aw.stride == 1 &&
                j.ah.pad_before == 0 && j.aw.pad_before == 0 && j.oh == j.h && j.ow == j.wd;
  /* A grouped Conv2D with one input channel per group is a depthwise convolution: its [KH, KW, 1, C * M] filter
   * has the memory layout of DepthwiseConv2dNative's [KH, KW, C, M] (Keras's Conv2D(groups=C), ConvNeXt). */
  if (!depthwise && j.groups > 1 && j.cg == 1) {
    depthwise = 1;
    j.pointwise = 0;
  }
  if (depthwise && j.per_group == 1) {
    const mtk_epilogue_args* ep = j.ep;
    int in_kernel = ep != NULL && ep->mul == NULL && ep->addend == NULL &&
                    (ep->ep->activation == MTK_ACT_NONE || ep->ep->activation == MTK_ACT_RELU ||
                     ep->ep->activation == MTK_ACT_RELU6);
    mtk_dw_job dj = {j.x, j.w, j.y, j.n, j.h, j.wd, j.c, j.kh, j.kw, j.oh, j.ow, j.ah.stride, j.aw.stride,
                     j.ah.dilation, j.aw.dilation, j.ah.pad_before, j.aw.pad_before,
                     in_kernel ? ep->shift : NULL, in_kernel ? ep->ep->activation : MTK_ACT_NONE,
                     in_kernel ? NULL : ep};
    int done = mtk_depthwise_fast(&dj);
    if (done < 0) j.failed = 1;
    if (done == 0) mtk_parallel_for(j.n * j.oh, 1, depthwise_rows, &j);
  } else if (depthwise) {
    mtk_parallel_for(j.n * j.oh, 1, depthwise_rows, &j);
  } else if (indirect_ok(&j)) {
    run_conv_indirect(&j);
  } else {
    run_conv(&j);
  }
  if (j.failed) {
    mtk_fail(ctx, TF_RESOURCE_EXHAUSTED, "out of memory for the patch matrix of %s", k->op);
    goto done;
  }
  if (nchw) mtk_nhwc_to_nchw(y_nhwc, (float*)TF_TensorData(y), j.n, j.oc, j.oh * j.ow);

done:
  mtk_epilogue_release(&ep_args);
  for (int i = 0; i < 8; ++i) TF_DeleteTensor(held[i]);
  free(x_nhwc);
  free(y_nhwc);
  TF_DeleteTensor(x);
  TF_DeleteTensor(w);
  TF_DeleteTensor(y);
  TF_DeleteStatus(s);
}

void mtk_register_conv(TF_Status* s) {
  mtk_register("MtkConv2D", "Conv2D", conv_create, conv_compute, conv_destroy, s);
  if (TF_GetCode(s) == TF_OK)
    mtk_register("MtkFusedConv2D", "_FusedConv2D", fused_conv_create, conv_compute, conv_destroy, s);
  if (TF_GetCode(s) == TF_OK)
    mtk_register("MtkDepthwiseConv2dNative", "DepthwiseConv2dNative", depthwise_create, conv_compute, conv_destroy,
                 s);
  if (TF_GetCode(s) == TF_OK)
    mtk_register("MtkFusedDepthwiseConv2dNative", "_FusedDepthwiseConv2dNative", fused_depthwise_create,
                 conv_compute, conv_destroy, s);
}
