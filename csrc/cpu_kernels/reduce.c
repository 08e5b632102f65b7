/* Reductions (Sum, Mean, Max, Min, Prod) and Softmax / LogSoftmax (float32).
 *
 * A reduction's dimensions are first brought to a canonical form: size-1 dimensions dropped (they do not move any
 * element), neighbours of the same kind (kept / reduced) merged. The common forms then run as contiguous passes:
 * [K, R] (each output reduces a contiguous row), [R, K] and [K, R, K] (rows of the kept inner dimension accumulate
 * into the output row); any other form walks its reduced elements with strides. Sums and products accumulate in
 * double (float32 sums of long rows drift), Max/Min propagate NaN as TF's CPU kernels; Mean divides the sum by the
 * count. Softmax works on the last dimension, one row per task: max, exp(x - max), times 1 / sum. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtk.h"
#include "mtk_math.h"

#define MAX_RANK 16

enum { R_SUM, R_MEAN, R_MAX, R_MIN, R_PROD };

typedef struct {
  int op;
  int keep_dims;
  int log; /* LogSoftmax */
} Reduce;

typedef struct {
  const float* x;
  float* y;
  int op;
  int64_t outer, red, inner; /* [outer, red, inner] for the contiguous forms */
  double scale;              /* Mean: 1 / count applied as a division by count */
  int64_t count;
  /* the general form */
  int nk, nr;
  int64_t kdims[MAX_RANK], kstr[MAX_RANK], rdims[MAX_RANK], rstr[MAX_RANK];
} RedJob;

static inline float finish(int op, double acc, int64_t count) {
  if (op == R_MEAN) return (float)acc / (float)count;
  return (float)acc;
}

static inline double identity(int op) {
  if (op == R_PROD) return 1.0;
  if (op == R_MAX) return -INFINITY;
  if (op == R_MIN) return INFINITY;
  return 0.0;
}

MTK_HOT static double sum_row(const float* x, int64_t n) {
  double acc[8] = {0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int l = 0; l < 8; ++l) acc[l] += (double)x[i + l];
  double s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
  for (; i < n; ++i) s += (double)x[i];
  return s;
}

MTK_HOT static float max_row(const float* x, int64_t n, int is_max) {
  float acc[16];
  for (int l = 0; l < 16; ++l) acc[l] = is_max ? -INFINITY : INFINITY;
  int64_t i = 0;
  int nan = 0;
  for (; i + 16 <= n; i += 16)
    for (int l = 0; l < 16; ++l) {
      float v = x[i + l];
      nan |= v != v;
      acc[l] = is_max ? (v > acc[l] ? v : acc[l]) : (v < acc[l] ? v : acc[l]);
    }
  float m = is_max ? -INFINITY : INFINITY;
  for (int l = 0; l < 16; ++l) m = is_max ? (acc[l] > m ? acc[l] : m) : (acc[l] < m ? acc[l] : m);
  for (; i < n; ++i) {
    float v = x[i];
    nan |= v != v;
    m = is_max ? (v > m ? v : m) : (v < m ? v : m);
  }
  return nan ? NAN : m;
}

static float reduce_row(int op, const float* x, int64_t n, int64_t count) {
  switch (op) {
    case R_SUM:
    case R_MEAN: return finish(op, sum_row(x, n), count);
    case R_MAX: return max_row(x, n, 1);
    case R_MIN: return max_row(x, n, 0);
    default: {
      double p = 1.0;
      for (int64_t i = 0; i < n; ++i) p *= (double)x[i];
      return (float)p;
    }
  }
}

/* [outer, red]: one output per row */
static void rows_task(void* p, int64_t begin, int64_t end) {
  RedJob* j = (RedJob*)p;
  for (int64_t r = begin; r < end; ++r) j->y[r] = reduce_row(j->op, j->x + r * j->red, j->red, j->count);
}

MTK_HOT static void acc_add(double* restrict acc, const float* restrict x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) acc[i] += (double)x[i];
}
MTK_HOT static void acc_mul(double* restrict acc, const float* restrict x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) acc[i] *= (double)x[i];
}
MTK_HOT static void acc_max(float* restrict acc, const float* restrict x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) acc[i] = (x[i] > acc[i] || x[i] != x[i]) ? x[i] : acc[i];
}
MTK_HOT static void acc_min(float* restrict acc, const float* restrict x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) acc[i] = (x[i] < acc[i] || x[i] != x[i]) ? x[i] : acc[i];
}

#define COLUMN_BLOCK 1024
#define NARROW_COLUMNS 32 /* fewer kept columns than this: accumulate several rows per pass */
#define NARROW_LANES 64

/* The red rows of n (< NARROW_COLUMNS) columns into y: m = NARROW_LANES / n rows at a time are one contiguous run
 * of m * n elements accumulated lane by lane (a vector pass instead of one short call per row), then the m
 * partial results of each column are combined. */
static void narrow_columns(const RedJob* j, const float* x, float* y, int64_t n) {
  const int64_t m = NARROW_LANES / n, lanes = m * n;
  int64_t r = 0;
  if (j->op == R_MAX || j->op == R_MIN) {
    float facc[NARROW_LANES];
    void (*acc)(float* restrict, const float* restrict, int64_t) = j->op == R_MAX ? acc_max : acc_min;
    for (int64_t i = 0; i < lanes; ++i) facc[i] = j->op == R_MAX ? -INFINITY : INFINITY;
    for (; r + m <= j->red; r += m) acc(facc, x + r * n, lanes);
    for (; r < j->red; ++r) acc(facc, x + r * n, n);
    for (int64_t q = 1; q < m; ++q) acc(facc, facc + q * n, n);
    for (int64_t i = 0; i < n; ++i) y[i] = facc[i];
    return;
  }
  double dacc[NARROW_LANES];
  void (*acc)(double* restrict, const float* restrict, int64_t) = j->op == R_PROD ? acc_mul : acc_add;
  double init = identity(j->op);
  for (int64_t i = 0; i < lanes; ++i) dacc[i] = init;
  for (; r + m <= j->red; r += m) acc(dacc, x + r * n, lanes);
  for (; r < j->red; ++r) acc(dacc, x + r * n, n);
  for (int64_t i = 0; i < n; ++i) {
    double v = dacc[i];
    for (int64_t q = 1; q < m; ++q) v = j->op == R_PROD ? v * dacc[q * n + i] : v + dacc[q * n + i];
    y[i] = finish(j->op, v, j->count);
  }
}

/* [outer, red, inner]: task t = (outer index, block of inner columns); the red rows accumulate into it */
static void columns_task(void* p, int64_t begin, int64_t end) {
  RedJob* j = (RedJob*)p;
  int64_t blocks = (j->inner + COLUMN_BLOCK - 1) / COLUMN_BLOCK;
  double dacc[COLUMN_BLOCK];
  for (int64_t t = begin; t < end; ++t) {
    int64_t o = t / blocks, c0 = (t % blocks) * COLUMN_BLOCK;
    int64_t n = j->inner - c0 < COLUMN_BLOCK ? j->inner - c0 : COLUMN_BLOCK;
    const float* x = j->x + o * j->red * j->inner + c0;
    float* y = j->y + o * j->inner + c0;
    if (n < NARROW_COLUMNS && j->red >= 2 * (NARROW_LANES / n)) {
      narrow_columns(j, x, y, n);
      continue;
    }
    if (j->op == R_MAX || j->op == R_MIN) {
      for (int64_t i = 0; i < n; ++i) y[i] = j->op == R_MAX ? -INFINITY : INFINITY;
      for (int64_t r = 0; r < j->red; ++r) (j->op == R_MAX ? acc_max : acc_min)(y, x + r * j->inner, n);
      continue;
    }
    double init = identity(j->op);
    for (int64_t i = 0; i < n; ++i) dacc[i] = init;
    for (int64_t r = 0; r < j->red; ++r) (j->op == R_PROD ? acc_mul : acc_add)(dacc, x + r * j->inner, n);
    for (int64_t i = 0; i < n; ++i) y[i] = finish(j->op, dacc[i], j->count);
  }
}

/* Any other form: each output walks its reduced elements with strides. */
static void general_task(void* p, int64_t begin, int64_t end) {
  RedJob* j = (RedJob*)p;
  int64_t rtotal = 1;
  for (int d = 0; d < j->nr; ++d) rtotal *= j->rdims[d];
  for (int64_t o = begin; o < end; ++o) {
    int64_t base = 0, rem = o;
    for (int d = j->nk - 1; d >= 0; --d) {
      base += (rem % j->kdims[d]) * j->kstr[d];
      rem /= j->kdims[d];
    }
    double acc = identity(j->op);
    float m = (float)identity(j->op);
    int nan = 0;
    for (int64_t r = 0; r < rtotal; ++r) {
      int64_t off = base, rr = r;
      for (int d = j->nr - 1; d >= 0; --d) {
        off += (rr % j->rdims[d]) * j->rstr[d];
        rr /= j->rdims[d];
      }
      float v = j->x[off];
      if (j->op == R_MAX) {
        nan |= v != v;
        m = v > m ? v : m;
      } else if (j->op == R_MIN) {
        nan |= v != v;
        m = v < m ? v : m;
      } else if (j->op == R_PROD) {
        acc *= (double)v;
      } else {
        acc += (double)v;
      }
    }
    if (j->op == R_MAX || j->op == R_MIN) {
      j->y[o] = nan ? NAN : m;
    } else {
      j->y[o] = finish(j->op, acc, j->count);
    }
  }
}

static void* reduce_create_kind(TF_OpKernelConstruction* ctx, int op) {
  Reduce* k = (Reduce*)calloc(1, sizeof(Reduce));
  if (k == NULL) return NULL;
  k->op = op;
  TF_Status* s = TF_NewStatus();
  TF_Bool keep = 0;
  TF_OpKernelConstruction_GetAttrBool(ctx, "keep_dims", &keep, s);
  if (TF_GetCode(s) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s);
  k->keep_dims = keep;
  TF_DeleteStatus(s);
  return k;
}
static void* sum_create(TF_OpKernelConstruction* c) { return reduce_create_kind(c, R_SUM); }
static void* mean_create(TF_OpKernelConstruction* c) { return reduce_create_kind(c, R_MEAN); }
static void* max_create(TF_OpKernelConstruction* c) { return reduce_create_kind(c, R_MAX); }
static void* min_create(TF_OpKernelConstruction* c) { return reduce_create_kind(c, R_MIN); }
static void* prod_create(TF_OpKernelConstruction* c) { return reduce_create_kind(c, R_PROD); }
static void reduce_destroy(void* p) { free(p); }

static void reduce_compute(void* state, TF_OpKernelContext* ctx) {
  Reduce* k = (Reduce*)state;
  TF_Status* s = TF_NewStatus();
  TF_Tensor *x = NULL, *axes = NULL, *y = NULL;
  TF_GetInput(ctx, 0, &x, s);
  if (TF_GetCode(s) == TF_OK) TF_GetInput(ctx, 1, &axes, s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    goto done;
  }
  int rank = TF_NumDims(x);
  if (rank > MAX_RANK) {
    mtk_fail(ctx, TF_UNIMPLEMENTED, "reductions of rank %d are not supported by the native kernel", rank);
    goto done;
  }
  if (TF_NumDims(axes) > 1) {
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "Invalid reduction arguments: Axes must be a scalar or a vector: %d",
             TF_NumDims(axes));
    goto done;
  }
  int reduced[MAX_RANK] = {0};
  int64_t na = TF_TensorElementCount(axes);
  for (int64_t i = 0; i < na; ++i) {
    int64_t v = mtk_int_at(TF_TensorData(axes), TF_TensorType(axes), i);
    if (v < -rank || v >= rank) {
      mtk_fail(ctx, TF_INVALID_ARGUMENT, "Invalid reduction dimension (%lld for input with %d dimension(s)",
               (long long)v, rank);
      goto done;
    }
    int a = (int)(v < 0 ? v + rank : v);
    if (reduced[a]) {
      mtk_fail(ctx, TF_INVALID_ARGUMENT, "Invalid reduction arguments: Axes contains duplicate dimension: %d", a);
      goto done;
    }
    reduced[a] = 1;
  }
  int64_t dims[MAX_RANK], out_dims[MAX_RANK];
  int out_rank = 0;
  int64_t count = 1, total = 1;
  for (int d = 0; d < rank; ++d) {
    dims[d] = TF_Dim(x, d);
    total *= dims[d];
    if (reduced[d]) {
      count *= dims[d];
      if (k->keep_dims) out_dims[out_rank++] = 1;
    } else {
      out_dims[out_rank++] = dims[d];
    }
  }
  int64_t out_total = 1;
  for (int d = 0; d < out_rank; ++d) out_total *= out_dims[d];
  y = TF_AllocateOutput(ctx, 0, TF_FLOAT, out_dims, out_rank, (size_t)out_total * sizeof(float), s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    goto done;
  }
  if (out_total == 0) goto done;
  RedJob j;
  memset(&j, 0, sizeof j);
  j.x = (const float*)TF_TensorData(x);
  j.y = (float*)TF_TensorData(y);
  j.op = k->op;
  j.count = count;
  if (total == 0) { /* reducing empty dimensions: the identity (Mean: 0 / 0) */
    float v = k->op == R_MEAN ? NAN : (float)identity(k->op);
    for (int64_t i = 0; i < out_total; ++i) j.y[i] = v;
    goto done;
  }
  /* canonical form: size-1 dimensions dropped, neighbours of one kind merged */
  int64_t gdims[MAX_RANK], gstr[MAX_RANK];
  int gkind[MAX_RANK], ng = 0;
  int64_t stride = 1, strides[MAX_RANK];
  for (int d = rank - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= dims[d];
  }
  for (int d = 0; d < rank; ++d) {
    if (dims[d] == 1) continue;
    if (ng > 0 && gkind[ng - 1] == reduced[d] && gstr[ng - 1] == dims[d] * strides[d]) {
      gdims[ng - 1] *= dims[d];
      gstr[ng - 1] = strides[d];
    } else {
      gdims[ng] = dims[d];
      gstr[ng] = strides[d];
      gkind[ng] = reduced[d];
      ++ng;
    }
  }
  int64_t cheap_grain = 1 + 65536 / (total / out_total + 1);
  if (ng == 0 || (ng == 1 && !gkind[0])) { /* nothing reduced but size-1 dimensions */
    j.outer = out_total;
    j.red = 1;
    mtk_parallel_for(out_total, 65536, rows_task, &j);
  } else if (ng == 1 || (ng == 2 && !gkind[0] && gkind[1])) { /* [R] or [K, R] */
    j.outer = ng == 1 ? 1 : gdims[0];
    j.red = ng == 1 ? gdims[0] : gdims[1];
    mtk_parallel_for(j.outer, cheap_grain, rows_task, &j);
  } else if ((ng == 2 && gkind[0] && !gkind[1]) || (ng == 3 && !gkind[0] && gkind[1] && !gkind[2])) {
    j.outer = ng == 2 ? 1 : gdims[0];
    j.red = ng == 2 ? gdims[0] : gdims[1];
    j.inner = ng == 2 ? gdims[1] : gdims[2];
    int64_t blocks = (j.inner + COLUMN_BLOCK - 1) / COLUMN_BLOCK;
    int64_t per = j.red * (j.inner < COLUMN_BLOCK ? j.inner : COLUMN_BLOCK);
    mtk_parallel_for(j.outer * blocks, 1 + 65536 / (per + 1), columns_task, &j);
  } else {
    for (int g = 0; g < ng; ++g) {
      if (gkind[g]) {
        j.rdims[j.nr] = gdims[g];
        j.rstr[j.nr++] = gstr[g];
      } else {
        j.kdims[j.nk] = gdims[g];
        j.kstr[j.nk++] = gstr[g];
      }
    }
    mtk_parallel_for(out_total, cheap_grain, general_task, &j);
  }
done:
  TF_DeleteTensor(x);
  TF_DeleteTensor(axes);
  TF_DeleteTensor(y);
  TF_DeleteStatus(s);
}

/* ------------------------------------------------------------------ Softmax, LogSoftmax */

typedef struct {
  const float* x;
  float* y;
  int64_t depth;
  int log;
} SoftJob;

MTK_HOT static void softmax_row(const float* x, float* y, int64_t n, int log) {
  float m = -INFINITY;
  for (int64_t i = 0; i < n; ++i) m = x[i] > m ? x[i] : m;
  float acc[16] = {0};
  int64_t i = 0;
  if (log) {
    for (; i + 16 <= n; i += 16)
      for (int l = 0; l < 16; ++l) acc[l] += fast_exp(x[i + l] - m);
    for (; i < n; ++i) acc[0] += fast_exp(x[i] - m);
  } else {
    for (; i + 16 <= n; i += 16)
      for (int l = 0; l < 16; ++l) {
        float e = fast_exp(x[i + l] - m);
        y[i + l] = e;
        acc[l] += e;
      }
    for (; i < n; ++i) {
      float e = fast_exp(x[i] - m);
      y[i] = e;
      acc[0] += e;
    }
  }
  float sum = 0.0f;
  for (int l = 0; l < 16; ++l) sum += acc[l];
  if (log) {
    float ls = fast_log(sum);
    for (int64_t q = 0; q < n; ++q) y[q] = (x[q] - m) - ls;
  } else {
    float inv = 1.0f / sum;
    for (int64_t q = 0; q < n; ++q) y[q] = y[q] * inv;
  }
}

static void softmax_task(void* p, int64_t begin, int64_t end) {
  SoftJob* j = (SoftJob*)p;
  for (int64_t r = begin; r < end; ++r) softmax_row(j->x + r * j->depth, j->y + r * j->depth, j->depth, j->log);
}

static void* softmax_create(TF_OpKernelConstruction* c) {
  (void)c;
  return calloc(1, sizeof(Reduce));
}
static void* log_softmax_create(TF_OpKernelConstruction* c) {
  (void)c;
  Reduce* k = (Reduce*)calloc(1, sizeof(Reduce));
  if (k != NULL) k->log = 1;
  return k;
}

static void softmax_compute(void* state, TF_OpKernelContext* ctx) {
  Reduce* k = (Reduce*)state;
  TF_Status* s = TF_NewStatus();
  TF_Tensor *probe = NULL, *y = NULL;
  char shape[128];
  TF_GetInput(ctx, 0, &probe, s);
  if (TF_GetCode(s) != TF_OK) goto fail;
  int nd = TF_NumDims(probe);
  if (nd < 1) {
    mtk_shape_str(probe, shape, sizeof shape);
    TF_DeleteTensor(probe);
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "logits must have >= 1 dimension, got %s", shape);
    goto done;
  }
  if (nd > MAX_RANK) {
    TF_DeleteTensor(probe);
    TF_SetStatus(s, TF_UNIMPLEMENTED, "more than 16 dimensions");
    goto fail;
  }
  int64_t dims[MAX_RANK];
  for (int i = 0; i < nd; ++i) dims[i] = TF_Dim(probe, i);
  SoftJob j;
  j.x = (const float*)TF_TensorData(probe);
  j.depth = dims[nd - 1];
  j.log = k->log;
  int64_t n = TF_TensorElementCount(probe);
  TF_DeleteTensor(probe);
  int candidate = 0, forwarded = -1;
  y = TF_ForwardInputOrAllocateOutput(ctx, &candidate, 1, 0, dims, nd, &forwarded, s);
  if (TF_GetCode(s) != TF_OK) goto fail;
  j.y = (float*)TF_TensorData(y);
  if (n > 0 && j.depth > 0) mtk_parallel_for(n / j.depth, 1 + 16384 / (j.depth + 1), softmax_task, &j);
  goto done;
fail:
  TF_OpKernelContext_Failure(ctx, s);
done:
  TF_DeleteTensor(y);
  TF_DeleteStatus(s);
}

void mtk_register_reduce(TF_Status* s) {
  static const struct {
    const char *kernel, *op;
    void* (*create)(TF_OpKernelConstruction*);
    void (*compute)(void*, TF_OpKernelContext*);
  } ops[] = {
      {"MtkSum", "Sum", sum_create, reduce_compute},
      {"MtkMean", "Mean", mean_create, reduce_compute},
      {"MtkMax", "Max", max_create, reduce_compute},
      {"MtkMin", "Min", min_create, reduce_compute},
      {"MtkProd", "Prod", prod_create, reduce_compute},
      {"MtkSoftmax", "Softmax", softmax_create, softmax_compute},
      {"MtkLogSoftmax", "LogSoftmax", log_softmax_create, softmax_compute},
  };
  for (size_t i = 0; i < sizeof ops / sizeof *ops && TF_GetCode(s) == TF_OK; ++i) {
    mtk_register(ops[i].kernel, ops[i].op, ops[i].create, ops[i].compute, reduce_destroy, s);
  }
}
