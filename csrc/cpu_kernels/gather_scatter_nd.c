/* GatherNd, ScatterNd, TensorScatterUpdate and TensorScatterAdd: slices addressed by the last dimension of an
 * index tensor. Gathers and updates copy bytes (every fixed-size dtype); the adds run in the element type (float32,
 * float64, int32, int64; integers wrap as TF's do) in index order, so duplicates sum as TF's CPU loop sums them and
 * a later duplicate update wins. Checks and messages are the numpy kernels' (kernels/cpu/indexing.py), TF's text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtk.h"

#define MAX_DIMS 16

static void dims_str(const int64_t* dims, int n, char* buf, size_t len) {
  size_t used = (size_t)snprintf(buf, len, "[");
  for (int i = 0; i < n && used < len; ++i) used += (size_t)snprintf(buf + used, len - used, i ? ",%lld" : "%lld", (long long)dims[i]);
  if (used < len) snprintf(buf + used, len - used, "]");
}

static int tensor_dims(const TF_Tensor* t, int64_t* dims) {
  int n = TF_NumDims(t);
  for (int i = 0; i < n && i < MAX_DIMS; ++i) dims[i] = TF_Dim(t, i);
  return n;
}

static int64_t product(const int64_t* dims, int from, int to) {
  int64_t p = 1;
  for (int i = from; i < to; ++i) p *= dims[i];
  return p;
}

/* The offset (in slices of dims[r:]) of each of the `rows` index rows of `indices` into the first r of `dims`:
 * -1 with ctx failed by TF's message for the first row out of range (GatherNd's names a vector of indices without a
 * position, as TF's does). */
static int row_offsets(TF_OpKernelContext* ctx, const TF_Tensor* indices, const int64_t* dims, int r, int gather,
                       int ndims, int64_t rows, int64_t* out) {
  const char* what = gather ? "param shape" : "shape";
  const void* data = TF_TensorData(indices);
  TF_DataType type = TF_TensorType(indices);
  for (int64_t i = 0; i < rows; ++i) {
    int64_t offset = 0;
    for (int j = 0; j < r; ++j) {
      int64_t v = mtk_int_at(data, type, i * r + j);
      if (v < 0 || v >= dims[j]) {
        char where[256] = "", value[512] = "", shape[256];
        int nd = TF_NumDims(indices);
        size_t used = 0;
        int64_t rest = i;
        int64_t pos[MAX_DIMS];
        for (int d = nd - 2; d >= 0; --d) {
          pos[d] = rest % TF_Dim(indices, d);
          rest /= TF_Dim(indices, d);
        }
        for (int d = 0; d + 1 < nd && used < sizeof where; ++d)
          used += (size_t)snprintf(where + used, sizeof where - used, d ? ",%lld" : "%lld", (long long)pos[d]);
        used = 0;
        for (int k = 0; k < r && used < sizeof value; ++k)
          used += (size_t)snprintf(value + used, sizeof value - used, k ? ", %lld" : "%lld",
                                   (long long)mtk_int_at(data, type, i * r + k));
        dims_str(dims, ndims, shape, sizeof shape);
        if (nd == 1 && gather)
          mtk_fail(ctx, TF_INVALID_ARGUMENT, "indices = [%s] does not index into %s %s", value, what, shape);
        else
          mtk_fail(ctx, TF_INVALID_ARGUMENT, "indices[%s] = [%s] does not index into %s %s", where, value, what, shape);
        return -1;
      }
      offset = offset * dims[j] + v;
    }
    out[i] = offset;
  }
  return 0;
}

/* ------------------------------------------------------------------ GatherNd */

static void* nd_create(TF_OpKernelConstruction* ctx) {
  (void)ctx;
  return calloc(1, 1);
}

static void nd_destroy(void* p) { free(p); }

static void gather_nd_compute(void* state, TF_OpKernelContext* ctx) {
  (void)state;
  TF_Status* s = TF_NewStatus();
  TF_Tensor *params = NULL, *indices = NULL, *out = NULL;
  int64_t* offsets = NULL;
  TF_GetInput(ctx, 0, &params, s);
  if (TF_GetCode(s) == TF_OK) TF_GetInput(ctx, 1, &indices, s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    goto done;
  }
  int64_t pd[MAX_DIMS], id[MAX_DIMS], od[2 * MAX_DIMS];
  char a[256];
  int pn = TF_NumDims(params), in = TF_NumDims(indices);
  if (pn > MAX_DIMS || in > MAX_DIMS) {
    mtk_fail(ctx, TF_UNIMPLEMENTED, "GatherNd: more than %d dimensions", MAX_DIMS);
    goto done;
  }
  tensor_dims(params, pd);
  tensor_dims(indices, id);
  if (pn < 1 && !(in >= 1 && id[in - 1] == 0)) {
    mtk_shape_str(params, a, sizeof a);
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "params must be at least a vector%s", a);
    goto done;
  }
  if (in < 1) {
    mtk_shape_str(indices, a, sizeof a);
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "indices must be at least a vector%s", a);
    goto done;
  }
  int r = (int)id[in - 1];
  if (id[in - 1] > pn) {
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "index innermost dimension length must be <= params rank; saw: %lld vs. %d",
             (long long)id[in - 1], pn);
    goto done;
  }
  int on = 0;
  for (int i = 0; i + 1 < in; ++i) od[on++] = id[i];
  for (int i = r; i < pn; ++i) od[on++] = pd[i];
  size_t esize = TF_DataTypeSize(TF_TensorType(params));
  int64_t rows = product(id, 0, in - 1), slice = product(pd, r, pn);
  out = TF_AllocateOutput(ctx, 0, TF_TensorType(params), od, on, esize * (size_t)(rows * slice), s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    goto done;
  }
  if (rows * slice == 0) goto done;
  size_t bytes = esize * (size_t)slice;
  const char* src = (const char*)TF_TensorData(params);
  char* dst = (char*)TF_TensorData(out);
  if (r == 0) { /* every index row selects all of params */
    for (int64_t i = 0; i < rows; ++i) memcpy(dst + (size_t)i * bytes, src, bytes);
    goto done;
  }
  offsets = (int64_t*)malloc(sizeof(int64_t) * (size_t)rows);
  if (offsets == NULL) {
    mtk_fail(ctx, TF_RESOURCE_EXHAUSTED, "GatherNd: out of memory for %lld index rows", (long long)rows);
    goto done;
  }
  if (row_offsets(ctx, indices, pd, r, 1, pn, rows, offsets) != 0) goto done;
  for (int64_t i = 0; i < rows; ++i) memcpy(dst + (size_t)i * bytes, src + (size_t)offsets[i] * bytes, bytes);
done:
  free(offsets);
  TF_DeleteTensor(params);
  TF_DeleteTensor(indices);
  TF_DeleteTensor(out);
  TF_DeleteStatus(s);
}

/* ------------------------------------------------------------------ scatters */

enum { SCATTER_ND, TENSOR_SCATTER_UPDATE, TENSOR_SCATTER_ADD };

typedef struct {
  int kind;
} ScatterState;

/* dst[offsets[i]] (+)= rows of src, in index order. */
static void apply_rows(TF_DataType type, int add, char* dst, const char* src, const int64_t* offsets, int64_t rows,
                       int64_t slice) {
  size_t esize = TF_DataTypeSize(type);
  if (!add) {
    for (int64_t i = 0; i < rows; ++i)
      memcpy(dst + (size_t)(offsets[i] * slice) * esize, src + (size_t)(i * slice) * esize, (size_t)slice * esize);
    return;
  }
#define ADD_ROWS(T, U)                                                     \
  for (int64_t i = 0; i < rows; ++i) {                                     \
    T* d = (T*)dst + offsets[i] * slice;                                   \
    const T* x = (const T*)src + i * slice;                                \
    for (int64_t k = 0; k < slice; ++k) d[k] = (T)((U)d[k] + (U)x[k]);    \
  }
  switch (type) {
    case TF_FLOAT: ADD_ROWS(float, float); break;
    case TF_DOUBLE: ADD_ROWS(double, double); break;
    case TF_INT32: ADD_ROWS(int32_t, uint32_t); break; /* wraps, as TF's (and numpy's) int32 sums */
    case TF_INT64: ADD_ROWS(int64_t, uint64_t); break;
    default: break;
  }
#undef ADD_ROWS
}

/* The numpy kernels' update-shape check: updates.shape == indices.shape[:-1] + dims[r:]. */
static int check_updates(TF_OpKernelContext* ctx, const TF_Tensor* indices, const TF_Tensor* updates,
                         const int64_t* dims, int ndims) {
  char a[256], b[256];
  int in = TF_NumDims(indices), un = TF_NumDims(updates);
  if (in < 1) {
    mtk_shape_str(indices, a, sizeof a);
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "Indices shape must have rank at least one. Found:%s", a);
    return -1;
  }
  int64_t r = TF_Dim(indices, in - 1);
  int want = in - 1 + (r < ndims ? ndims - (int)r : 0);
  int same = un == want;
  for (int i = 0; same && i < in - 1; ++i) same = TF_Dim(updates, i) == TF_Dim(indices, i);
  for (int i = in - 1; same && i < un; ++i) same = TF_Dim(updates, i) == dims[r + i - (in - 1)];
  if (!same) {
    mtk_shape_str(indices, a, sizeof a);
    mtk_shape_str(updates, b, sizeof b);
    mtk_fail(ctx, TF_INVALID_ARGUMENT,
             "Dimensions [0,%d) of indices[shape=%s] must match dimensions [0,%lld) of updates[shape=%s]", in - 1, a,
             (long long)(un - ndims + r), b);
    return -1;
  }
  return 0;
}

static void scatter_compute(void* state, TF_OpKernelContext* ctx) {
  int kind = ((ScatterState*)state)->kind;
  TF_Status* s = TF_NewStatus();
  TF_Tensor *first = NULL, *indices = NULL, *updates = NULL, *out = NULL;
  int64_t* offsets = NULL;
  /* ScatterNd(indices, updates, shape); TensorScatter*(tensor, indices, updates) */
  TF_GetInput(ctx, 0, kind == SCATTER_ND ? &indices : &first, s);
  if (TF_GetCode(s) == TF_OK) TF_GetInput(ctx, 1, kind == SCATTER_ND ? &updates : &indices, s);
  if (TF_GetCode(s) == TF_OK) TF_GetInput(ctx, 2, kind == SCATTER_ND ? &first : &updates, s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    goto done;
  }
  if (TF_NumDims(first) > MAX_DIMS || TF_NumDims(indices) > MAX_DIMS || TF_NumDims(updates) > MAX_DIMS) {
    mtk_fail(ctx, TF_UNIMPLEMENTED, "more than %d dimensions", MAX_DIMS);
    goto done;
  }
  int64_t dims[MAX_DIMS];
  int ndims;
  char a[256], b[256];
  if (kind == SCATTER_ND) {
    if (TF_NumDims(first) != 1) {
      mtk_shape_str(first, a, sizeof a);
      mtk_fail(ctx, TF_INVALID_ARGUMENT, "Shape must be a vector%s", a);
      goto done;
    }
    ndims = (int)TF_Dim(first, 0);
    if (ndims > MAX_DIMS) {
      mtk_fail(ctx, TF_UNIMPLEMENTED, "ScatterNd: more than %d dimensions", MAX_DIMS);
      goto done;
    }
    int negative = 0;
    for (int i = 0; i < ndims; ++i) {
      dims[i] = mtk_int_at(TF_TensorData(first), TF_TensorType(first), i);
      negative |= dims[i] < 0;
    }
    if (negative) {
      dims_str(dims, ndims, a, sizeof a);
      mtk_fail(ctx, TF_INVALID_ARGUMENT, "Shape must be non-negative%s", a);
      goto done;
    }
    if (product(dims, 0, ndims) == 0 && (TF_TensorElementCount(indices) || TF_TensorElementCount(updates))) {
      mtk_fail(ctx, TF_INVALID_ARGUMENT, "Indices and updates specified for empty output shape");
      goto done;
    }
  } else {
    ndims = tensor_dims(first, dims);
  }
  if (check_updates(ctx, indices, updates, dims, ndims) != 0) goto done;
  int in = TF_NumDims(indices);
  int64_t r = TF_Dim(indices, in - 1);
  if (r > ndims) { /* TF's messages for an index deeper than the output's rank */
    dims_str(dims, ndims, a, sizeof a);
    mtk_shape_str(updates, b, sizeof b);
    if (kind == SCATTER_ND)
      mtk_fail(ctx, TF_INVALID_ARGUMENT, "Dimensions [%lld,%d) of input[shape=%s] must match dimensions [%d,%d) of "
               "updates[shape=%s]", (long long)r, ndims, a, in > 1 ? in - 1 : 1, TF_NumDims(updates), b);
    else
      mtk_fail(ctx, TF_INVALID_ARGUMENT, "Inner dimensions of output shape must match inner dimensions of updates "
               "shape. Output: %s updates: %s", a, b);
    goto done;
  }
  TF_DataType type = TF_TensorType(updates);
  size_t esize = TF_DataTypeSize(type);
  int64_t total = product(dims, 0, ndims);
  if (kind == SCATTER_ND) {
    out = TF_AllocateOutput(ctx, 0, type, dims, ndims, esize * (size_t)total, s);
    if (TF_GetCode(s) == TF_OK && total) memset(TF_TensorData(out), 0, esize * (size_t)total);
  } else {
    int candidate = 0, forwarded = -1;
    out = TF_ForwardInputOrAllocateOutput(ctx, &candidate, 1, 0, dims, ndims, &forwarded, s);
    if (TF_GetCode(s) == TF_OK && forwarded != 0 && total)
      memcpy(TF_TensorData(out), TF_TensorData(first), esize * (size_t)total);
  }
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    goto done;
  }
  int64_t rows = 1;
  for (int i = 0; i + 1 < in; ++i) rows *= TF_Dim(indices, i);
  if (TF_TensorElementCount(indices) == 0 || TF_TensorElementCount(updates) == 0) goto done;
  offsets = (int64_t*)malloc(sizeof(int64_t) * (size_t)rows);
  if (offsets == NULL) {
    mtk_fail(ctx, TF_RESOURCE_EXHAUSTED, "out of memory for %lld index rows", (long long)rows);
    goto done;
  }
  if (row_offsets(ctx, indices, dims, (int)r, 0, ndims, rows, offsets) != 0) goto done;
  apply_rows(type, kind != TENSOR_SCATTER_UPDATE, (char*)TF_TensorData(out), (const char*)TF_TensorData(updates),
             offsets, rows, product(dims, (int)r, ndims));
done:
  free(offsets);
  TF_DeleteTensor(first);
  TF_DeleteTensor(indices);
  TF_DeleteTensor(updates);
  TF_DeleteTensor(out);
  TF_DeleteStatus(s);
}

static void* scatter_create(TF_OpKernelConstruction* ctx, int kind) {
  (void)ctx;
  ScatterState* st = (ScatterState*)calloc(1, sizeof *st);
  if (st != NULL) st->kind = kind;
  return st;
}
static void* scatter_nd_create(TF_OpKernelConstruction* ctx) { return scatter_create(ctx, SCATTER_ND); }
static void* scatter_update_create(TF_OpKernelConstruction* ctx) { return scatter_create(ctx, TENSOR_SCATTER_UPDATE); }
static void* scatter_add_create(TF_OpKernelConstruction* ctx) { return scatter_create(ctx, TENSOR_SCATTER_ADD); }

/* The dtypes whose slices are copied as bytes, and those the adds compute in. */
static const TF_DataType COPY_TYPES[] = {TF_FLOAT,  TF_DOUBLE, TF_HALF,   TF_BFLOAT16, TF_INT8,   TF_INT16, TF_INT32,
                                         TF_INT64,  TF_UINT8,  TF_UINT16, TF_UINT32,   TF_UINT64, TF_BOOL};
static const TF_DataType ADD_TYPES[] = {TF_FLOAT, TF_DOUBLE, TF_INT32, TF_INT64};

void mtk_register_gather_scatter_nd(TF_Status* s) {
  static const TF_DataType wide[] = {TF_INT32, TF_INT64};
  static const TF_DataType gather_index[] = {TF_INT16, TF_INT32, TF_INT64};
  size_t ncopy = sizeof COPY_TYPES / sizeof *COPY_TYPES, nadd = sizeof ADD_TYPES / sizeof *ADD_TYPES;
  for (size_t t = 0; t < ncopy; ++t) {
    for (size_t i = 0; i < 3 && TF_GetCode(s) == TF_OK; ++i) {
      const char* attrs[] = {"Tparams", "Tindices"};
      TF_DataType types[] = {COPY_TYPES[t], gather_index[i]};
      mtk_register_types("GatherNd", nd_create, gather_nd_compute, nd_destroy, attrs, types, 2, s);
    }
    for (size_t i = 0; i < 2 && TF_GetCode(s) == TF_OK; ++i) {
      const char* attrs[] = {"T", "Tindices"};
      TF_DataType types[] = {COPY_TYPES[t], wide[i]};
      mtk_register_types("TensorScatterUpdate", scatter_update_create, scatter_compute, nd_destroy, attrs, types, 2, s);
    }
  }
  for (size_t t = 0; t < nadd; ++t) {
    for (size_t i = 0; i < 2 && TF_GetCode(s) == TF_OK; ++i) {
      const char* attrs[] = {"T", "Tindices"};
      TF_DataType types[] = {ADD_TYPES[t], wide[i]};
      mtk_register_types("ScatterNd", scatter_nd_create, scatter_compute, nd_destroy, attrs, types, 2, s);
      if (TF_GetCode(s) == TF_OK)
        mtk_register_types("TensorScatterAdd", scatter_add_create, scatter_compute, nd_destroy, attrs, types, 2, s);
    }
  }
}
