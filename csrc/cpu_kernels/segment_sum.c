/* UnsortedSegmentSum: num_segments rows, each the sum of the data rows with that id, added in order as TF's CPU
 * kernel adds them (float32, float64; int32 and int64 wrap). Negative ids are dropped, an id at or past
 * num_segments is TF's error. Checks and messages are the numpy kernel's (kernels/cpu/segments.py). */
#include <stdlib.h>
#include <string.h>

#include "mtk.h"

static void* segment_create(TF_OpKernelConstruction* ctx) {
  (void)ctx;
  return calloc(1, 1);
}

static void segment_destroy(void* p) { free(p); }

static void segment_sum_compute(void* state, TF_OpKernelContext* ctx) {
  (void)state;
  TF_Status* s = TF_NewStatus();
  TF_Tensor *data = NULL, *ids = NULL, *num = NULL, *out = NULL;
  TF_GetInput(ctx, 0, &data, s);
  if (TF_GetCode(s) == TF_OK) TF_GetInput(ctx, 1, &ids, s);
  if (TF_GetCode(s) == TF_OK) TF_GetInput(ctx, 2, &num, s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    goto done;
  }
  char a[256], b[256];
  if (TF_NumDims(num) != 0) {
    mtk_shape_str(num, a, sizeof a);
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "num_segments should be a scalar, not shape %s", a);
    goto done;
  }
  int dn = TF_NumDims(data), in = TF_NumDims(ids);
  int starts = dn >= in;
  for (int i = 0; starts && i < in; ++i) starts = TF_Dim(data, i) == TF_Dim(ids, i);
  if (!starts) {
    mtk_shape_str(data, a, sizeof a);
    mtk_shape_str(ids, b, sizeof b);
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "data.shape = %s does not start with segment_ids.shape = %s", a, b);
    goto done;
  }
  if (dn - in > 15) {
    mtk_fail(ctx, TF_UNIMPLEMENTED, "UnsortedSegmentSum: more than 15 dimensions after the segment ids'");
    goto done;
  }
  int64_t rows = mtk_int_at(TF_TensorData(num), TF_TensorType(num), 0);
  if (rows < 0) {
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "Input num_segments == %lld must not be negative.", (long long)rows);
    goto done;
  }
  int64_t n = TF_TensorElementCount(ids);
  const void* id = TF_TensorData(ids);
  TF_DataType id_type = TF_TensorType(ids);
  for (int64_t i = 0; i < n; ++i) {
    int64_t v = mtk_int_at(id, id_type, i);
    if (v >= rows) {
      mtk_fail(ctx, TF_INVALID_ARGUMENT, "segment_ids[%lld] = %lld is out of range [0, %lld)", (long long)i,
               (long long)v, (long long)rows);
      goto done;
    }
  }
  int64_t dims[16], slice = 1;
  dims[0] = rows;
  for (int i = in; i < dn; ++i) {
    dims[1 + i - in] = TF_Dim(data, i);
    slice *= TF_Dim(data, i);
  }
  TF_DataType type = TF_TensorType(data);
  size_t esize = TF_DataTypeSize(type);
  out = TF_AllocateOutput(ctx, 0, type, dims, 1 + dn - in, esize * (size_t)(rows * slice), s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    goto done;
  }
  if (rows * slice == 0) goto done;
  memset(TF_TensorData(out), 0, esize * (size_t)(rows * slice));
#define SUM_ROWS(T, U)                                                   \
  do {                                                                   \
    T* o = (T*)TF_TensorData(out);                                       \
    const T* x = (const T*)TF_TensorData(data);                          \
    for (int64_t i = 0; i < n; ++i) {                                    \
      int64_t v = mtk_int_at(id, id_type, i);                            \
      if (v < 0) continue;                                               \
      T* d = o + v * slice;                                              \
      const T* r = x + i * slice;                                        \
      for (int64_t k = 0; k < slice; ++k) d[k] = (T)((U)d[k] + (U)r[k]); \
    }                                                                    \
  } while (0)
  switch (type) {
    case TF_FLOAT: SUM_ROWS(float, float); break;
    case TF_DOUBLE: SUM_ROWS(double, double); break;
    case TF_INT32: SUM_ROWS(int32_t, uint32_t); break;
    default: SUM_ROWS(int64_t, uint64_t); break;
  }
#undef SUM_ROWS
done:
  TF_DeleteTensor(data);
  TF_DeleteTensor(ids);
  TF_DeleteTensor(num);
  TF_DeleteTensor(out);
  TF_DeleteStatus(s);
}

void mtk_register_segment_sum(TF_Status* s) {
  static const TF_DataType values[] = {TF_FLOAT, TF_DOUBLE, TF_INT32, TF_INT64};
  static const TF_DataType index[] = {TF_INT16, TF_INT32, TF_INT64};
  static const TF_DataType count[] = {TF_INT32, TF_INT64};
  const char* attrs[] = {"T", "Tindices", "Tnumsegments"};
  for (size_t t = 0; t < 4; ++t)
    for (size_t i = 0; i < 3; ++i)
      for (size_t c = 0; c < 2 && TF_GetCode(s) == TF_OK; ++c) {
        TF_DataType types[] = {values[t], index[i], count[c]};
        mtk_register_types("UnsortedSegmentSum", segment_create, segment_sum_compute, segment_destroy, attrs, types, 3,
                           s);
      }
}
