/* _MklLayerNorm (float32): layer normalization over the last axis, the remapper's fusion of Keras's
 * LayerNormalization subgraph. Per row of the last dimension, in the row while it is in L1:
 *   pass 1  mean = sum(x) / n                 (8 float64 lanes, rounded to float32 as the Mean kernel does)
 *   pass 2  var  = sum((x - mean)^2) / n      (the same; two passes keep the variance exact for large means)
 *   pass 3  y    = (x - mean) * (rsqrt(var + epsilon) * scale) + offset
 * Rows are spread over the intra-op pool; the output may be the input's buffer (each element is read before it is
 * written). Errors are TF's texts (its oneDNN kernel's); TF's kernel takes only 2-D and 3-D inputs, this one any
 * rank >= 1, and it checks that scale/offset have the last dimension's size (TF's does not). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mtk.h"

typedef struct {
  float epsilon;
} LayerNorm;

typedef struct {
  const float* x;
  float* y;
  const float* scale;
  const float* offset;
  int64_t n;
  float epsilon;
} LayerNormJob;

MTK_HOT static double sum_lanes(const float* x, int64_t n, float shift, int square) {
  double acc[8] = {0};
  int64_t i = 0;
  if (square) {
    for (; i + 8 <= n; i += 8)
      for (int l = 0; l < 8; ++l) {
        const double d = (double)(x[i + l] - shift);
        acc[l] += d * d;
      }
  } else {
    for (; i + 8 <= n; i += 8)
      for (int l = 0; l < 8; ++l) acc[l] += (double)x[i + l];
  }
  double s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
  for (; i < n; ++i) {
    const double d = square ? (double)(x[i] - shift) : (double)x[i];
    s += square ? d * d : d;
  }
  return s;
}

MTK_HOT static void normalize_row(const float* x, float* y, const float* scale, const float* offset, int64_t n,
                                  float mean, float inv) {
  for (int64_t i = 0; i < n; ++i) {
    const float d = x[i] - mean;
    y[i] = d * (inv * scale[i]) + offset[i];
  }
}

static void layer_norm_rows(void* p, int64_t begin, int64_t end) {
  const LayerNormJob* j = (const LayerNormJob*)p;
  const int64_t n = j->n;
  const float count = (float)n;
  for (int64_t r = begin; r < end; ++r) {
    const float* x = j->x + r * n;
    const float mean = (float)sum_lanes(x, n, 0.0f, 0) / count;
    const float var = (float)sum_lanes(x, n, mean, 1) / count;
    const float inv = 1.0f / sqrtf(var + j->epsilon);
    normalize_row(x, j->y + r * n, j->scale, j->offset, n, mean, inv);
  }
}

static void layer_norm_compute(void* state, TF_OpKernelContext* ctx) {
  const LayerNorm* k = (const LayerNorm*)state;
  TF_Status* s = TF_NewStatus();
  TF_Tensor *x = NULL, *scale = NULL, *offset = NULL, *y = NULL;
  char s0[96];
  TF_GetInput(ctx, 0, &x, s);
  if (TF_GetCode(s) == TF_OK) TF_GetInput(ctx, 1, &scale, s);
  if (TF_GetCode(s) == TF_OK) TF_GetInput(ctx, 2, &offset, s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    goto done;
  }
  const int rank = TF_NumDims(x);
  if (rank < 1) {
    mtk_shape_str(x, s0, sizeof s0);
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "input must be at least 1D%s", s0);
    goto done;
  }
  if (rank > 16) {
    mtk_fail(ctx, TF_UNIMPLEMENTED, "_MklLayerNorm of rank %d is not supported by the native kernel", rank);
    goto done;
  }
  if (TF_NumDims(scale) != 1) {
    mtk_shape_str(scale, s0, sizeof s0);
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "scale must be 1D tensor%s", s0);
    goto done;
  }
  if (TF_NumDims(offset) != 1) {
    mtk_shape_str(offset, s0, sizeof s0);
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "offset must be 1D tensor%s", s0);
    goto done;
  }
  if (TF_Dim(scale, 0) != TF_Dim(offset, 0)) {
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "Number of elements in scale and shifttensors are not same.");
    goto done;
  }
  int64_t dims[16];
  for (int i = 0; i < rank; ++i) dims[i] = TF_Dim(x, i);
  const int64_t n = dims[rank - 1];
  if (TF_Dim(scale, 0) != n) {
    mtk_shape_str(x, s0, sizeof s0);
    mtk_fail(ctx, TF_INVALID_ARGUMENT,
             "scale and offset must have the size of the input's last dimension %lld, got %lld (input shape %s)",
             (long long)n, (long long)TF_Dim(scale, 0), s0);
    goto done;
  }
  LayerNormJob j;
  j.x = (const float*)TF_TensorData(x);
  j.scale = (const float*)TF_TensorData(scale);
  j.offset = (const float*)TF_TensorData(offset);
  j.n = n;
  j.epsilon = k->epsilon;
  const int64_t elems = TF_TensorElementCount(x);
  /* The handles go before forwarding (a held handle would prevent it); the memory stays the runtime's. */
  TF_DeleteTensor(x);
  x = NULL;
  int candidate = 0, forwarded = -1;
  y = TF_ForwardInputOrAllocateOutput(ctx, &candidate, 1, 0, dims, rank, &forwarded, s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    goto done;
  }
  if (elems == 0) goto done; /* no rows, or empty rows: nothing to write */
  j.y = (float*)TF_TensorData(y);
  const int64_t rows = elems / n;
  int64_t grain = 16384 / n;
  if (grain < 1) grain = 1;
  mtk_parallel_for(rows, grain, layer_norm_rows, &j);
done:
  TF_DeleteTensor(x);
  TF_DeleteTensor(scale);
  TF_DeleteTensor(offset);
  TF_DeleteTensor(y);
  TF_DeleteStatus(s);
}

static void* layer_norm_create(TF_OpKernelConstruction* ctx) {
  LayerNorm* k = (LayerNorm*)calloc(1, sizeof(LayerNorm));
  if (k == NULL) return NULL;
  k->epsilon = 0.001f;
  TF_Status* s = TF_NewStatus();
  TF_OpKernelConstruction_GetAttrFloat(ctx, "epsilon", &k->epsilon, s);
  if (TF_GetCode(s) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s);
  TF_DeleteStatus(s);
  return k;
}

static void layer_norm_destroy(void* p) { free(p); }

void mtk_register_layer_norm(TF_Status* s) {
  mtk_register("MtkMklLayerNorm", "_MklLayerNorm", layer_norm_create, layer_norm_compute, layer_norm_destroy, s);
}
