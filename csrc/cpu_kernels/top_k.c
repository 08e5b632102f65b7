/* TopKV2: the k largest entries of each last-axis row, largest first, equal values in index order (TF's stable
 * order; -0.0 and 0.0 are equal). NaN ranks above every number and NaNs among themselves by index, as the numpy
 * kernel orders them (TF's own order with NaN depends on its selection algorithm). Small k keeps a sorted buffer of
 * k per row, one pass over the row; larger k sorts the row's indices (a stable merge sort). Rows are split over
 * the pool. Checks and messages are the numpy kernel's (kernels/cpu/sort.py). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mtk.h"

#define BUFFER_K 32 /* k up to this: the insertion buffer */

typedef struct {
  const void* x;
  void* values;
  void* indices;
  TF_DataType type, index_type;
  int64_t n, k;
  int failed;
} TopKJob;

/* Whether a ranks before b (a at a lower index than b): greater, or NaN against a number. */
#define BEFORE_F(a, b) ((a) > (b) || ((a) != (a) && (b) == (b)))
#define BEFORE_I(a, b) ((a) > (b))

static void store_index(void* out, TF_DataType type, int64_t i, int64_t v) {
  switch (type) {
    case TF_INT16: ((int16_t*)out)[i] = (int16_t)v; break;
    case TF_INT32: ((int32_t*)out)[i] = (int32_t)v; break;
    default: ((int64_t*)out)[i] = v; break;
  }
}

/* One row: buffer insertion for small k, else a merge sort of the indices by (rank, index). `order` holds 2 * n
 * indices of scratch for the sort. */
#define TOP_K_ROW(NAME, T, BEFORE)                                                                       \
  static void NAME(const T* row, int64_t n, int64_t k, T* values, int64_t* taken, int64_t* order) {      \
    if (k <= BUFFER_K) {                                                                                 \
      int64_t have = 0;                                                                                  \
      for (int64_t j = 0; j < n; ++j) {                                                                  \
        T v = row[j];                                                                                    \
        if (have == k && !BEFORE(v, values[k - 1])) continue;                                            \
        int64_t p = have < k ? have++ : k - 1;                                                           \
        while (p > 0 && BEFORE(v, values[p - 1])) {                                                      \
          values[p] = values[p - 1];                                                                     \
          taken[p] = taken[p - 1];                                                                       \
          --p;                                                                                           \
        }                                                                                                \
        values[p] = v;                                                                                   \
        taken[p] = j;                                                                                    \
      }                                                                                                  \
      return;                                                                                            \
    }                                                                                                    \
    int64_t *src = order, *dst = order + n;                                                              \
    for (int64_t j = 0; j < n; ++j) src[j] = j;                                                          \
    for (int64_t width = 1; width < n; width *= 2) {                                                     \
      for (int64_t lo = 0; lo < n; lo += 2 * width) {                                                    \
        int64_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;     \
        int64_t a = lo, b = mid, o = lo;                                                                 \
        while (a < mid && b < hi) dst[o++] = BEFORE(row[src[b]], row[src[a]]) ? src[b++] : src[a++];     \
        while (a < mid) dst[o++] = src[a++];                                                             \
        while (b < hi) dst[o++] = src[b++];                                                              \
      }                                                                                                  \
      int64_t* t = src;                                                                                  \
      src = dst;                                                                                         \
      dst = t;                                                                                           \
    }                                                                                                    \
    for (int64_t j = 0; j < k; ++j) {                                                                    \
      taken[j] = src[j];                                                                                 \
      values[j] = row[src[j]];                                                                           \
    }                                                                                                    \
  }

TOP_K_ROW(row_f32, float, BEFORE_F)
TOP_K_ROW(row_f64, double, BEFORE_F)
TOP_K_ROW(row_i32, int32_t, BEFORE_I)
TOP_K_ROW(row_i64, int64_t, BEFORE_I)

static void top_k_rows(void* p, int64_t begin, int64_t end) {
  TopKJob* j = (TopKJob*)p;
  int64_t n = j->n, k = j->k;
  int64_t* scratch = (int64_t*)malloc(sizeof(int64_t) * (size_t)(k + (k > BUFFER_K ? 2 * n : 0)));
  if (scratch == NULL) {
    j->failed = 1;
    return;
  }
  int64_t* order = scratch + k;
  for (int64_t r = begin; r < end; ++r) {
    switch (j->type) {
      case TF_FLOAT: row_f32((const float*)j->x + r * n, n, k, (float*)j->values + r * k, scratch, order); break;
      case TF_DOUBLE: row_f64((const double*)j->x + r * n, n, k, (double*)j->values + r * k, scratch, order); break;
      case TF_INT32: row_i32((const int32_t*)j->x + r * n, n, k, (int32_t*)j->values + r * k, scratch, order); break;
      default: row_i64((const int64_t*)j->x + r * n, n, k, (int64_t*)j->values + r * k, scratch, order); break;
    }
    for (int64_t i = 0; i < k; ++i) store_index(j->indices, j->index_type, r * k + i, scratch[i]);
  }
  free(scratch);
}

static void* top_k_create(TF_OpKernelConstruction* ctx) {
  (void)ctx;
  return calloc(1, 1);
}

static void top_k_destroy(void* p) { free(p); }

static void top_k_compute(void* state, TF_OpKernelContext* ctx) {
  (void)state;
  TF_Status* s = TF_NewStatus();
  TF_Tensor *x = NULL, *kt = NULL, *values = NULL, *indices = NULL;
  TF_GetInput(ctx, 0, &x, s);
  if (TF_GetCode(s) == TF_OK) TF_GetInput(ctx, 1, &kt, s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    goto done;
  }
  char a[256];
  if (TF_NumDims(kt) != 0) {
    mtk_shape_str(kt, a, sizeof a);
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "k must be scalar, got shape %s", a);
    goto done;
  }
  int64_t k = mtk_int_at(TF_TensorData(kt), TF_TensorType(kt), 0);
  if (k < 0) {
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "Need k >= 0, got %lld", (long long)k);
    goto done;
  }
  int nd = TF_NumDims(x);
  if (nd < 1) {
    mtk_shape_str(x, a, sizeof a);
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "input must be >= 1-D, got shape %s", a);
    goto done;
  }
  if (nd > 16) {
    mtk_fail(ctx, TF_UNIMPLEMENTED, "TopKV2: more than 16 dimensions");
    goto done;
  }
  int64_t n = TF_Dim(x, nd - 1);
  if (n < k) {
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "input must have at least k columns. Had %lld, needed %lld", (long long)n,
             (long long)k);
    goto done;
  }
  int64_t dims[16];
  for (int i = 0; i + 1 < nd; ++i) dims[i] = TF_Dim(x, i);
  dims[nd - 1] = k;
  int64_t rows = 1;
  for (int i = 0; i + 1 < nd; ++i) rows *= dims[i];
  TF_DataType type = TF_TensorType(x), index_type = TF_ExpectedOutputDataType(ctx, 1);
  values = TF_AllocateOutput(ctx, 0, type, dims, nd, TF_DataTypeSize(type) * (size_t)(rows * k), s);
  if (TF_GetCode(s) == TF_OK)
    indices = TF_AllocateOutput(ctx, 1, index_type, dims, nd, TF_DataTypeSize(index_type) * (size_t)(rows * k), s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    goto done;
  }
  if (rows * k == 0) {
    memset(TF_TensorData(values), 0, TF_DataTypeSize(type) * (size_t)(rows * k));
    memset(TF_TensorData(indices), 0, TF_DataTypeSize(index_type) * (size_t)(rows * k));
    goto done;
  }
  TopKJob j = {TF_TensorData(x), TF_TensorData(values), TF_TensorData(indices), type, index_type, n, k, 0};
  /* a row costs about n (buffer) or n log n (sort) comparisons: grain for ~20 us a chunk */
  int64_t per_row = k <= BUFFER_K ? n + 1 : 8 * n + 1;
  int64_t grain = 65536 / per_row + 1;
  mtk_parallel_for(rows, grain, top_k_rows, &j);
  if (j.failed) mtk_fail(ctx, TF_RESOURCE_EXHAUSTED, "TopKV2: out of memory for a row of %lld", (long long)n);
done:
  TF_DeleteTensor(x);
  TF_DeleteTensor(kt);
  TF_DeleteTensor(values);
  TF_DeleteTensor(indices);
  TF_DeleteStatus(s);
}

void mtk_register_top_k(TF_Status* s) {
  static const TF_DataType values[] = {TF_FLOAT, TF_DOUBLE, TF_INT32, TF_INT64};
  static const TF_DataType index[] = {TF_INT16, TF_INT32, TF_INT64};
  const char* attrs[] = {"T", "index_type"};
  for (size_t t = 0; t < 4; ++t)
    for (size_t i = 0; i < 3 && TF_GetCode(s) == TF_OK; ++i) {
      TF_DataType types[] = {values[t], index[i]};
      mtk_register_types("TopKV2", top_k_create, top_k_compute, top_k_destroy, attrs, types, 2, s);
    }
}
