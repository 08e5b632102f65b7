/* ConcatV2 (float32): for every index of the dimensions before the axis, each input's
 * contiguous block is copied in turn; those outer indices are spread over the pool. */
#include <stdlib.h>
#include <string.h>

#include "mtk.h"

#define MAX_INPUTS 1024

typedef struct {
  int n;
  const float** data;
  const int64_t* inner; /* floats per outer index, per input */
  float* out;
  int64_t out_inner;
} ConcatJob;

/* Blocks up to this many floats are copied by an inline vector loop: a channel concat copies a few hundred floats per
 * pixel and input (InceptionV3's branches: 32 to 384), where a memcpy call per block costs about what it copies. */
#define INLINE_COPY 1024

MTK_HOT __attribute__((optimize("no-tree-loop-distribute-patterns"))) static void concat_rows(void* p, int64_t begin,
                                                                                            int64_t end) {
  ConcatJob* j = (ConcatJob*)p;
  for (int64_t r = begin; r < end; ++r) {
    float* restrict dst = j->out + r * j->out_inner;
    for (int i = 0; i < j->n; ++i) {
      const int64_t n = j->inner[i];
      const float* restrict src = j->data[i] + r * n;
      if (n > INLINE_COPY) {
        memcpy(dst, src, (size_t)n * sizeof(float));
      } else {
        for (int64_t k = 0; k < n; ++k) dst[k] = src[k];
      }
      dst += n;
    }
  }
}

static void* concat_create(TF_OpKernelConstruction* ctx) {
  (void)ctx;
  return calloc(1, 1);
}
static void concat_destroy(void* p) { free(p); }

static void concat_compute(void* state, TF_OpKernelContext* ctx) {
  (void)state;
  TF_Status* s = TF_NewStatus();
  int n = TF_NumInputs(ctx) - 1;
  TF_Tensor** in = (TF_Tensor**)calloc((size_t)(n > 0 ? n : 1), sizeof(TF_Tensor*));
  const float** data = (const float**)calloc((size_t)(n > 0 ? n : 1), sizeof(float*));
  int64_t* inner = (int64_t*)calloc((size_t)(n > 0 ? n : 1), sizeof(int64_t));
  TF_Tensor *axis_t = NULL, *y = NULL;
  char s0[128], si[128];
  if (in == NULL || data == NULL || inner == NULL || n > MAX_INPUTS) {
    mtk_fail(ctx, TF_RESOURCE_EXHAUSTED, "ConcatV2: too many inputs (%d)", n);
    goto done;
  }
  for (int i = 0; i < n && TF_GetCode(s) == TF_OK; ++i) TF_GetInput(ctx, i, &in[i], s);
  if (TF_GetCode(s) == TF_OK) TF_GetInput(ctx, n, &axis_t, s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    goto done;
  }
  if (TF_NumDims(axis_t) != 0) {
    mtk_shape_str(axis_t, s0, sizeof s0);
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "axis tensor should be a scalar integer, but got shape %s", s0);
    goto done;
  }
  int64_t a = mtk_int_at(TF_TensorData(axis_t), TF_TensorType(axis_t), 0);
  int rank = TF_NumDims(in[0]);
  if (rank == 0) {
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "Can't concatenate scalars (use tf.stack instead)");
    goto done;
  }
  if (a < -rank || a >= rank) {
    mtk_fail(ctx, TF_INVALID_ARGUMENT,
             "ConcatOp : Expected concatenating dimensions in the range [%d, %d), but got %lld", -rank, rank,
             (long long)a);
    goto done;
  }
  if (a < 0) a += rank;
  mtk_shape_str(in[0], s0, sizeof s0);
  int64_t dims[16];
  if (rank > 16) {
    mtk_fail(ctx, TF_UNIMPLEMENTED, "ConcatV2 of rank %d is not supported by the native kernel", rank);
    goto done;
  }
  for (int d = 0; d < rank; ++d) dims[d] = TF_Dim(in[0], d);
  dims[a] = 0;
  for (int i = 0; i < n; ++i) {
    if (TF_NumDims(in[i]) != rank) {
      mtk_shape_str(in[i], si, sizeof si);
      mtk_fail(ctx, TF_INVALID_ARGUMENT,
               "ConcatOp : Ranks of all input tensors should match: shape[0] = %s vs. shape[%d] = %s", s0, i, si);
      goto done;
    }
    for (int d = 0; d < rank; ++d) {
      if (d != a && TF_Dim(in[i], d) != TF_Dim(in[0], d)) {
        mtk_shape_str(in[i], si, sizeof si);
        mtk_fail(ctx, TF_INVALID_ARGUMENT,
                 "ConcatOp : Dimension %d in both shapes must be equal: shape[0] = %s vs. shape[%d] = %s", d, s0, i,
                 si);
        goto done;
      }
    }
    dims[a] += TF_Dim(in[i], (int)a);
  }
  int64_t outer = 1, total = 1;
  for (int d = 0; d < a; ++d) outer *= dims[d];
  for (int d = 0; d < rank; ++d) total *= dims[d];
  for (int i = 0; i < n; ++i) {
    inner[i] = 1;
    for (int d = (int)a; d < rank; ++d) inner[i] *= TF_Dim(in[i], d);
    data[i] = (const float*)TF_TensorData(in[i]);
  }
  y = TF_AllocateOutput(ctx, 0, TF_FLOAT, dims, rank, (size_t)total * sizeof(float), s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    goto done;
  }
  if (total == 0) goto done;
  ConcatJob j = {n, data, inner, (float*)TF_TensorData(y), total / (outer > 0 ? outer : 1)};
  mtk_parallel_for(outer, 65536 / (j.out_inner + 1) + 1, concat_rows, &j);
done:
  if (in != NULL)
    for (int i = 0; i < n; ++i) TF_DeleteTensor(in[i]);
  free(in);
  free(data);
  free(inner);
  TF_DeleteTensor(axis_t);
  TF_DeleteTensor(y);
  TF_DeleteStatus(s);
}

void mtk_register_concat(TF_Status* s) {
  mtk_register("MtkConcatV2", "ConcatV2", concat_create, concat_compute, concat_destroy, s);
}
