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

/* Convolutions with a filter larger than 1x1 (or strided) run without a patch matrix: the indirect micro-kernel reads,
 * for each output pixel of its block, the input under every filter tap in place, the block of C in registers over all
 * of them. This saves writing and re-reading the KH * KW times larger patch matrix.
 *
 * Without dilation along W, a tap is a filter row: the KW pixels it covers are KW * C contiguous floats of NHWC input
 * (so small C, the RGB stems' 3 channels, still makes long runs). With dilation along W, a tap is one filter pixel.
 *
 * Padding is never multiplied. The output pixels are grouped into classes by which filter rows [ky0, ky1) and filter
 * columns [kx0, kx1) fall inside the input for them (the pixels of the first output row miss the top filter rows,
 * those of the first column the left ones, and so on; every interior pixel has the whole filter), and a block of up to
 * MR pixels is always taken from one class: it runs only its class's taps, each read in place, with B's rows for them
 * (on an 8x8 map a sixth of a 3x3 filter's taps lie in the padding, on 17x17 a tenth of a 1x7 one's; oneDNN skips
 * them too). The tap ranges change monotonically across the map, so a class is a box [oy0, oy1) x [ox0, ox1) of every
 * image, its pixels numbered in raster order through the batch. The blocks are ordered by their first pixel, and the
 * tasks' shares of them are cut by work (a border block runs fewer taps, and one of a thin class's blocks holds a
 * pixel of each of 12 images: by count, the first task would get every class's first block). */
typedef struct {
  int64_t oy0, oy1, ox0, ox1; /* the output pixels of the class, in every image */
  int64_t ky0, ky1, kx0, kx1; /* the filter taps inside the input for them */
  int64_t ntaps, depth;       /* runs the micro-kernel reads: filter rows of (kx1 - kx0) * C, or pixels of C */
  int64_t boff;               /* its taps' offsets into a packed B panel start at plan.boff[boff] */
} ConvClass;

typedef struct {
  int64_t cls, count; /* the block's class, and pixels (1..MR) */
  int64_t q0;         /* its first pixel's number within the class */
  int64_t first;      /* that pixel's index in the output */
} ConvBlock;

typedef struct {
  ConvClass* classes;
  ConvBlock* blocks;
  int64_t* boff;
  int64_t* work; /* work[u]: the multiply-adds of the blocks before block u, per output column; work[nblocks]: all */
  int64_t nblocks, max_taps;
} ConvPlan;

/* The filter taps [lo, hi) of one axis that fall inside the input for output position o (lo == hi: none). */
static void tap_range(const mtk_axis* a, int64_t in, int64_t k, int64_t o, int64_t* lo, int64_t* hi) {
  const int64_t i0 = o * a->stride - a->pad_before, d = a->dilation;
  int64_t l = i0 >= 0 ? 0 : (-i0 + d - 1) / d;
  int64_t h = in - i0 <= 0 ? 0 : (in - i0 + d - 1) / d;
  if (h > k) h = k;
  if (l > h) l = h;
  *lo = l;
  *hi = h;
}

/* Cuts [0, out) into runs of positions with the same tap range: starts[i] .. starts[i + 1]; returns the count. */
static int64_t tap_segments(const mtk_axis* a, int64_t in, int64_t k, int64_t out, int64_t* starts, int64_t* lo,
                            int64_t* hi) {
  int64_t n = 0, pl = -1, ph = -1;
  for (int64_t o = 0; o < out; ++o) {
    int64_t l, h;
    tap_range(a, in, k, o, &l, &h);
    if (l != pl || h != ph) {
      starts[n] = o;
      lo[n] = l;
      hi[n] = h;
      ++n;
      pl = l;
      ph = h;
    }
  }
  starts[n] = out;
  return n;
}

static void conv_plan_free(ConvPlan* p) {
  free(p->classes);
  free(p->blocks);
  free(p->boff);
  free(p->work);
  memset(p, 0, sizeof *p);
}

/* The classes and blocks of j's output pixels (see above) for micro-tiles of mr rows and B panels nr wide. */
static int conv_plan_build(const ConvJob* j, int mr, int nr, ConvPlan* p) {
  memset(p, 0, sizeof *p);
  const int rows_as_taps = j->aw.dilation == 1;
  int64_t* seg = (int64_t*)malloc((size_t)(3 * (j->oh + 1) + 3 * (j->ow + 1)) * sizeof(int64_t));
  if (seg == NULL) return -1;
  int64_t *ys = seg, *ylo = ys + j->oh + 1, *yhi = ylo + j->oh + 1;
  int64_t *xs = yhi + j->oh + 1, *xlo = xs + j->ow + 1, *xhi = xlo + j->ow + 1;
  const int64_t nys = tap_segments(&j->ah, j->h, j->kh, j->oh, ys, ylo, yhi);
  const int64_t nxs = tap_segments(&j->aw, j->wd, j->kw, j->ow, xs, xlo, xhi);
  const int64_t ncls = nys * nxs;
  int64_t total_taps = 0;
  p->classes = (ConvClass*)calloc((size_t)ncls, sizeof(ConvClass));
  if (p->classes == NULL) goto fail;
  for (int64_t a = 0; a < nys; ++a) {
    for (int64_t b = 0; b < nxs; ++b) {
      ConvClass* cl = &p->classes[a * nxs + b];
      cl->oy0 = ys[a];
      cl->oy1 = ys[a + 1];
      cl->ox0 = xs[b];
      cl->ox1 = xs[b + 1];
      cl->ky0 = ylo[a];
      cl->ky1 = yhi[a];
      cl->kx0 = xlo[b];
      cl->kx1 = xhi[b];
      const int64_t rows = cl->ky1 - cl->ky0, cols = cl->kx1 - cl->kx0;
      cl->ntaps = rows * cols == 0 ? 0 : rows_as_taps ? rows : rows * cols;
      cl->depth = rows_as_taps ? cols * j->c : j->c;
      cl->boff = total_taps;
      total_taps += cl->ntaps;
      if (cl->ntaps > p->max_taps) p->max_taps = cl->ntaps;
    }
  }
  p->boff = (int64_t*)malloc((size_t)(total_taps > 0 ? total_taps : 1) * sizeof(int64_t));
  if (p->boff == NULL) goto fail;
  int64_t nblocks = 0;
  for (int64_t i = 0; i < ncls; ++i) {
    const ConvClass* cl = &p->classes[i];
    int64_t* off = p->boff + cl->boff;
    for (int64_t ky = cl->ky0; ky < cl->ky1 && cl->ntaps > 0; ++ky) {
      if (rows_as_taps) {
        *off++ = (ky * j->kw + cl->kx0) * j->c * nr;
      } else {
        for (int64_t kx = cl->kx0; kx < cl->kx1; ++kx) *off++ = (ky * j->kw + kx) * j->c * nr;
      }
    }
    nblocks += (j->n * (cl->oy1 - cl->oy0) * (cl->ox1 - cl->ox0) + mr - 1) / mr;
  }
  /* the blocks of each class in order, then sorted by their first pixel's output row (a counting sort) */
  ConvBlock* unsorted = (ConvBlock*)malloc((size_t)(nblocks > 0 ? nblocks : 1) * sizeof(ConvBlock));
  p->blocks = (ConvBlock*)malloc((size_t)(nblocks > 0 ? nblocks : 1) * sizeof(ConvBlock));
  const int64_t out_rows = j->n * j->oh;
  int64_t* start = (int64_t*)calloc((size_t)(out_rows + 1), sizeof(int64_t));
  if (unsorted == NULL || p->blocks == NULL || start == NULL) {
    free(unsorted);
    free(start);
    goto fail;
  }
  ConvBlock* bl = unsorted;
  for (int64_t i = 0; i < ncls; ++i) {
    const ConvClass* cl = &p->classes[i];
    const int64_t w = cl->ox1 - cl->ox0, plane = (cl->oy1 - cl->oy0) * w, npix = j->n * plane;
    for (int64_t q = 0; q < npix; q += mr, ++bl) {
      const int64_t b = q / plane, r = q % plane, oy = cl->oy0 + r / w, ox = cl->ox0 + r % w;
      bl->cls = i;
      bl->count = npix - q < mr ? npix - q : mr;
      bl->q0 = q;
      bl->first = (b * j->oh + oy) * j->ow + ox;
      ++start[bl->first / j->ow + 1];
    }
  }
  for (int64_t r = 0; r < out_rows; ++r) start[r + 1] += start[r];
  for (int64_t i = 0; i < nblocks; ++i) p->blocks[start[unsorted[i].first / j->ow]++] = unsorted[i];
  free(unsorted);
  free(start);
  p->nblocks = nblocks;
  p->work = (int64_t*)malloc((size_t)(nblocks + 1) * sizeof(int64_t));
  if (p->work == NULL) goto fail;
  p->work[0] = 0;
  for (int64_t u = 0; u < nblocks; ++u) { /* the micro-kernel's rows (4, 8 or 12) times its depth, + the store */
    const ConvBlock* bl = &p->blocks[u];
    const ConvClass* cl = &p->classes[bl->cls];
    const int64_t rows = (bl->count + 3) / 4 * 4;
    p->work[u + 1] = p->work[u] + rows * (cl->ntaps * cl->depth + 16);
  }
  free(seg);
  return 0;
fail:
  free(seg);
  conv_plan_free(p);
  return -1;
}

typedef struct {
  const ConvJob* j;
  const mtk_packed_b* pb;
  ConvPlan plan;
  mtk_grid grid; /* over plan.nblocks * MR rows; a task's blocks are cut by work (block_split) */
  int failed;
} IndirectJob;

/* The first block of row tile `tile` of `tiles`: where the work done before it reaches tile / tiles of the whole. */
static int64_t block_split(const ConvPlan* p, int64_t tile, int64_t tiles) {
  if (tile >= tiles) return p->nblocks;
  const int64_t goal = (int64_t)((double)p->work[p->nblocks] * (double)tile / (double)tiles);
  int64_t lo = 0, hi = p->nblocks; /* the first u with work[u] >= goal */
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (p->work[mid] < goal) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/* The epilogue the micro-kernels could not apply, over block bl's pixels (runs of consecutive ones at a time). */
static void block_epilogue(const ConvJob* j, const ConvBlock* bl, const int64_t* rowidx, int64_t c0, int64_t c1) {
  for (int64_t i = 0; i < bl->count;) {
    int64_t e = i + 1;
    while (e < bl->count && rowidx[e] == rowidx[e - 1] + 1) ++e;
    mtk_epilogue_block(j->ep, j->y, j->oc, bl->first + rowidx[i], bl->first + rowidx[e - 1] + 1, c0, c1);
    i = e;
  }
}

static void indirect_tasks(void* p, int64_t begin, int64_t end) {
  IndirectJob* ij = (IndirectJob*)p;
  const ConvJob* j = ij->j;
  const ConvPlan* plan = &ij->plan;
  const mtk_packed_b* pb = ij->pb;
  const mtk_gemm_arch* ar = pb->arch;
  const int mr = ar->mr, nr = ar->nr;
  const int rows_as_taps = j->aw.dilation == 1;
  const int64_t mt = plan->max_taps > 0 ? plan->max_taps : 1;
  /* the geometry in locals: the pointer stores could alias the job's fields */
  const int64_t h = j->h, wd = j->wd, c = j->c, sy = j->ah.stride, sx = j->aw.stride;
  const int64_t dy = j->ah.dilation, dx = j->aw.dilation, py = j->ah.pad_before, px = j->aw.pad_before;
  const int64_t oh = j->oh, ow = j->ow;
  const float* const x = j->x;
  for (int64_t t = begin; t < end; ++t) {
    int64_t r0, r1, c0, c1;
    mtk_grid_task(&ij->grid, t, &r0, &r1, &c0, &c1);
    const int64_t tile = t / ij->grid.col_blocks;
    const int64_t u0 = block_split(plan, tile, ij->grid.tiles), nb = block_split(plan, tile + 1, ij->grid.tiles) - u0;
    if (nb <= 0 || c1 <= c0) continue;
    /* ptrs[(u * mt + tap) * mr + i]: block u, pixel i; rowidx[u * mr + i]: the pixel's output index from the first */
    const float** ptrs = (const float**)(void*)mtk_scratch(3, (size_t)(nb * mt * mr) * 2);
    int64_t* rowidx = (int64_t*)(void*)mtk_scratch(2, (size_t)(nb * mr) * 2);
    if (ptrs == NULL || rowidx == NULL) {
      ij->failed = 1;
      return;
    }
    for (int64_t u = 0; u < nb; ++u) {
      const ConvBlock* bl = &plan->blocks[u0 + u];
      const ConvClass* cl = &plan->classes[bl->cls];
      const float** out = ptrs + u * mt * mr;
      int64_t* ri = rowidx + u * mr;
      const int64_t w = cl->ox1 - cl->ox0, plane = (cl->oy1 - cl->oy0) * w;
      int64_t b = bl->q0 / plane, r = bl->q0 % plane, oy = cl->oy0 + r / w, ox = cl->ox0 + r % w;
      for (int64_t i = 0; i < bl->count; ++i) {
        ri[i] = (b * oh + oy) * ow + ox - bl->first;
        const float* xb = x + b * h * wd * c;
        const int64_t iy0 = oy * sy - py, ix0 = ox * sx - px;
        const float** o = out + i;
        for (int64_t ky = cl->ky0; ky < cl->ky1 && cl->ntaps > 0; ++ky) {
          const float* xrow = xb + (iy0 + ky * dy) * wd * c;
          if (rows_as_taps) {
            *o = xrow + (ix0 + cl->kx0) * c;
            o += mr;
          } else {
            for (int64_t kx = cl->kx0; kx < cl->kx1; ++kx, o += mr) *o = xrow + (ix0 + kx * dx) * c;
          }
        }
        if (++ox == cl->ox1) {
          ox = cl->ox0;
          if (++oy == cl->oy1) {
            oy = cl->oy0;
            ++b;
          }
        }
      }
      /* rows beyond the block repeat its last pixel (read, never stored) */
      for (int64_t q = 0; q < cl->ntaps; ++q)
        for (int64_t i = bl->count; i < mr; ++i) out[q * mr + i] = out[q * mr + bl->count - 1];
    }
    mtk_post post; /* the epilogue in the micro-kernels' stores when they can apply it */
    int fused = j->ep != NULL && mtk_post_of(j->ep, 0, 0, &post);
    for (int64_t col = c0; col < c1; col += nr) {
      int n = (int)(c1 - col < nr ? c1 - col : nr);
      const float* bp = pb->data + (col / nr) * j->k * nr;
      for (int64_t u = 0; u < nb; ++u) {
        const ConvBlock* bl = &plan->blocks[u0 + u];
        const ConvClass* cl = &plan->classes[bl->cls];
        const mtk_post* pp = fused && mtk_post_of(j->ep, bl->first, col, &post) ? &post : NULL;
        ar->kernel_indirect(cl->ntaps, cl->depth, ptrs + u * mt * mr, bp, plan->boff + cl->boff,
                            j->y + bl->first * j->oc + col, j->oc, rowidx + u * mr, (int)bl->count, n, pp);
      }
    }
    if (j->ep != NULL && !fused)
      for (int64_t u = 0; u < nb; ++u) block_epilogue(j, &plan->blocks[u0 + u], rowidx + u * mr, c0, c1);
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
  if (conv_plan_build(j, pb->arch->mr, pb->arch->nr, &ij.plan) < 0) {
    j->failed = 1;
  } else {
    double flops = 2.0 * (double)j->m * (double)j->oc * (double)j->k;
    mtk_gemm_grid(ij.plan.nblocks * pb->arch->mr, j->oc, flops < 1e5 ? 1 : mtk_num_threads(), pb->arch->mc,
                  pb->arch->mr, pb->arch->nr, 1, &ij.grid);
    mtk_parallel_for(ij.grid.tiles * ij.grid.col_blocks, ij.grid.grain, indirect_tasks, &ij);
    conv_plan_free(&ij.plan);
  }
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
