/* Pad (float32, zero padding): every output row (last dimension) is either a copy of an
 * input row with zeros around it or all zeros; rows are spread over the pool. */
#include <stdlib.h>
#include <string.h>

#include "mtk.h"

#define MAX_RANK 8

typedef struct {
  const float* x;
  float* y;
  int rank;
  int64_t in_dims[MAX_RANK], out_dims[MAX_RANK], before[MAX_RANK];
  int64_t rows; /* product of the output dims but the last */
} PadJob;

static void pad_rows(void* p, int64_t begin, int64_t end) {
  PadJob* j = (PadJob*)p;
  const int last = j->rank - 1;
  const int64_t out_w = j->out_dims[last], in_w = j->in_dims[last], b = j->before[last];
  for (int64_t r = begin; r < end; ++r) {
    float* out = j->y + r * out_w;
    int64_t rem = r, in_row = 0, stride = 1, inside = 1;
    for (int d = last - 1; d >= 0; --d) {
      int64_t idx = rem % j->out_dims[d] - j->before[d];
      rem /= j->out_dims[d];
      if (idx < 0 || idx >= j->in_dims[d]) {
        inside = 0;
        break;
      }
      in_row += idx * stride;
      stride *= j->in_dims[d];
    }
    if (!inside) {
      memset(out, 0, (size_t)out_w * sizeof(float));
      continue;
    }
    memset(out, 0, (size_t)b * sizeof(float));
    memcpy(out + b, j->x + in_row * in_w, (size_t)in_w * sizeof(float));
    memset(out + b + in_w, 0, (size_t)(out_w - b - in_w) * sizeof(float));
  }
}

static void* pad_create(TF_OpKernelConstruction* ctx) {
  (void)ctx;
  return calloc(1, 1);
}
static void pad_destroy(void* p) { free(p); }

static void pad_compute(void* state, TF_OpKernelContext* ctx) {
  (void)state;
  TF_Status* s = TF_NewStatus();
  TF_Tensor *x = NULL, *pads = NULL, *y = NULL;
  char sp[64], sx[128];
  TF_GetInput(ctx, 0, &x, s);
  if (TF_GetCode(s) == TF_OK) TF_GetInput(ctx, 1, &pads, s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    goto done;
  }
  int rank = TF_NumDims(x);
  mtk_shape_str(pads, sp, sizeof sp);
  mtk_shape_str(x, sx, sizeof sx);
  if (TF_NumDims(pads) != 2 || TF_Dim(pads, 1) != 2) {
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "paddings must be a matrix with 2 columns: %s", sp);
    goto done;
  }
  if (TF_Dim(pads, 0) != rank) {
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "The first dimension of paddings must be the rank of inputs%s %s", sp, sx);
    goto done;
  }
  if (rank > MAX_RANK) {
    mtk_fail(ctx, TF_UNIMPLEMENTED, "Pad of rank %d is not supported by the native kernel (at most %d)", rank,
             MAX_RANK);
    goto done;
  }
  PadJob j;
  memset(&j, 0, sizeof j);
  j.rank = rank;
  int64_t total = 1;
  for (int d = 0; d < rank; ++d) {
    int64_t a = mtk_int_at(TF_TensorData(pads), TF_TensorType(pads), 2 * d);
    int64_t b = mtk_int_at(TF_TensorData(pads), TF_TensorType(pads), 2 * d + 1);
    if (a < 0 || b < 0) {
      mtk_fail(ctx, TF_INVALID_ARGUMENT, "Paddings must be non-negative: %lld %lld", (long long)a, (long long)b);
      goto done;
    }
    j.in_dims[d] = TF_Dim(x, d);
    j.before[d] = a;
    j.out_dims[d] = j.in_dims[d] + a + b;
    total *= j.out_dims[d];
  }
  y = TF_AllocateOutput(ctx, 0, TF_FLOAT, j.out_dims, rank, (size_t)total * sizeof(float), s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    goto done;
  }
  if (total == 0) goto done;
  j.x = (const float*)TF_TensorData(x);
  j.y = (float*)TF_TensorData(y);
  if (rank == 0) {
    j.y[0] = j.x[0];
    goto done;
  }
  int64_t in_total = TF_TensorElementCount(x);
  if (in_total == 0) { /* nothing to copy: all zeros */
    memset(j.y, 0, (size_t)total * sizeof(float));
    goto done;
  }
  j.rows = total / j.out_dims[rank - 1];
  mtk_parallel_for(j.rows, 32768 / (j.out_dims[rank - 1] + 1) + 1, pad_rows, &j);
done:
  TF_DeleteTensor(x);
  TF_DeleteTensor(pads);
  TF_DeleteTensor(y);
  TF_DeleteStatus(s);
}

void mtk_register_pad(TF_Status* s) { mtk_register("MtkPad", "Pad", pad_create, pad_compute, pad_destroy, s); }
