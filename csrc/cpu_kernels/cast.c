/* Cast to float32 from the integer and bool types: one conversion per element (C's, as TF's Eigen cast and
 * numpy's astype do it: exact for 8/16-bit integers, round to nearest even beyond 2^24), split over the pool
 * for large tensors. The casts that can truncate, saturate or drop mantissa bits (from floating point, to
 * integers) stay with the numpy kernel. An image pipeline's first op (uint8 -> float32) thereby runs with the
 * native kernels after it, in one segment. */
#include <stdint.h>
#include <stdlib.h>

#include "mtk.h"

typedef struct {
  const void* x;
  float* y;
  TF_DataType src;
} CastJob;

#define CONVERT(T)                                               \
  do {                                                           \
    const T* x = (const T*)j->x;                                 \
    for (int64_t i = begin; i < end; ++i) j->y[i] = (float)x[i]; \
  } while (0)

MTK_HOT static void cast_range(void* p, int64_t begin, int64_t end) {
  CastJob* j = (CastJob*)p;
  switch (j->src) {
    case TF_UINT8: CONVERT(uint8_t); break;
    case TF_INT8: CONVERT(int8_t); break;
    case TF_UINT16: CONVERT(uint16_t); break;
    case TF_INT16: CONVERT(int16_t); break;
    case TF_INT32: CONVERT(int32_t); break;
    case TF_INT64: CONVERT(int64_t); break;
    case TF_BOOL: { /* TF_Bool is one byte, 0 or 1 */
      const uint8_t* x = (const uint8_t*)j->x;
      for (int64_t i = begin; i < end; ++i) j->y[i] = x[i] != 0 ? 1.0f : 0.0f;
      break;
    }
    default: break;
  }
}

static void* cast_create(TF_OpKernelConstruction* ctx) {
  (void)ctx;
  return calloc(1, 1);
}

static void cast_compute(void* state, TF_OpKernelContext* ctx) {
  (void)state;
  TF_Status* s = TF_NewStatus();
  TF_Tensor *x = NULL, *y = NULL;
  TF_GetInput(ctx, 0, &x, s);
  if (TF_GetCode(s) != TF_OK) goto fail;
  int nd = TF_NumDims(x);
  int64_t dims[16];
  if (nd > 16) {
    TF_SetStatus(s, TF_UNIMPLEMENTED, "more than 16 dimensions");
    goto fail;
  }
  for (int i = 0; i < nd; ++i) dims[i] = TF_Dim(x, i);
  y = TF_AllocateOutput(ctx, 0, TF_FLOAT, dims, nd, sizeof(float) * (size_t)TF_TensorElementCount(x), s);
  if (TF_GetCode(s) != TF_OK) goto fail;
  CastJob j = {TF_TensorData(x), (float*)TF_TensorData(y), TF_TensorType(x)};
  int64_t n = TF_TensorElementCount(x);
  if (n > 0) mtk_parallel_for(n, MTK_GRAIN_CHEAP, cast_range, &j);
  goto done;
fail:
  TF_OpKernelContext_Failure(ctx, s);
done:
  TF_DeleteTensor(x);
  TF_DeleteTensor(y);
  TF_DeleteStatus(s);
}

static void cast_destroy(void* p) { free(p); }

void mtk_register_cast(TF_Status* s) {
  static const TF_DataType sources[] = {TF_UINT8, TF_INT8, TF_UINT16, TF_INT16, TF_INT32, TF_INT64, TF_BOOL};
  static const char* const attrs[] = {"SrcT", "DstT"};
  for (size_t i = 0; i < sizeof sources / sizeof *sources && TF_GetCode(s) == TF_OK; ++i) {
    TF_DataType types[] = {sources[i], TF_FLOAT};
    mtk_register_types("Cast", cast_create, cast_compute, cast_destroy, attrs, types, 2, s);
  }
}
