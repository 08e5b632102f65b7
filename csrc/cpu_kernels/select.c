/* SelectV2 (float32 values, a bool condition): out = cond ? then : else, the three operands broadcast together as
 * numpy/TF do. The output is walked as rows of its last dimension, each row one pass over contiguous or broadcast
 * (stride 0) operands; rows spread over the pool. */
#include <stdlib.h>
#include <string.h>

#include "mtk.h"

#define MAX_RANK 8

typedef struct {
  const unsigned char* c;
  const float *t, *e;
  float* y;
  int rank;
  int64_t dims[MAX_RANK];
  int64_t cs[MAX_RANK], ts[MAX_RANK], es[MAX_RANK];
} SelJob;

MTK_HOT static void select_row(float* restrict y, const unsigned char* c, int64_t cstep, const float* t, int64_t tstep,
                               const float* e, int64_t estep, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = c[i * cstep] ? t[i * tstep] : e[i * estep];
}

static void select_rows(void* p, int64_t begin, int64_t end) {
  SelJob* j = (SelJob*)p;
  const int last = j->rank - 1;
  const int64_t n = j->dims[last];
  for (int64_t r = begin; r < end; ++r) {
    int64_t rem = r, co = 0, to = 0, eo = 0;
    for (int d = last - 1; d >= 0; --d) {
      int64_t i = rem % j->dims[d];
      rem /= j->dims[d];
      co += i * j->cs[d];
      to += i * j->ts[d];
      eo += i * j->es[d];
    }
    select_row(j->y + r * n, j->c + co, j->cs[last], j->t + to, j->ts[last], j->e + eo, j->es[last], n);
  }
}

static void* select_create(TF_OpKernelConstruction* c) {
  (void)c;
  return calloc(1, 1);
}
static void select_destroy(void* p) { free(p); }

static void select_compute(void* state, TF_OpKernelContext* ctx) {
  (void)state;
  TF_Status* s = TF_NewStatus();
  TF_Tensor *in[3] = {NULL, NULL, NULL}, *y = NULL;
  char sh[3][128];
  for (int i = 0; i < 3 && TF_GetCode(s) == TF_OK; ++i) TF_GetInput(ctx, i, &in[i], s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    goto done;
  }
  int rank = 0;
  for (int i = 0; i < 3; ++i)
    if (TF_NumDims(in[i]) > rank) rank = TF_NumDims(in[i]);
  if (rank > MAX_RANK) {
    mtk_fail(ctx, TF_UNIMPLEMENTED, "SelectV2 of rank %d is not supported by the native kernel", rank);
    goto done;
  }
  SelJob j;
  memset(&j, 0, sizeof j);
  int64_t od[MAX_RANK], strides[3][MAX_RANK], total = 1;
  for (int d = 0; d < rank; ++d) {
    od[d] = 1;
    for (int i = 0; i < 3; ++i) {
      int a = d - (rank - TF_NumDims(in[i]));
      int64_t n = a >= 0 ? TF_Dim(in[i], a) : 1;
      if (n != 1 && od[d] != 1 && n != od[d]) {
        for (int q = 0; q < 3; ++q) mtk_shape_str(in[q], sh[q], sizeof sh[q]);
        mtk_fail(ctx, TF_INVALID_ARGUMENT, "condition %s, then %s, and else %s must be broadcastable", sh[0], sh[1],
                 sh[2]);
        goto done;
      }
      if (n != 1) od[d] = n;
    }
  }
  for (int i = 0; i < 3; ++i) {
    int64_t st = 1;
    for (int d = rank - 1; d >= 0; --d) {
      int a = d - (rank - TF_NumDims(in[i]));
      int64_t n = a >= 0 ? TF_Dim(in[i], a) : 1;
      strides[i][d] = n == 1 ? 0 : st;
      st *= n;
    }
  }
  for (int d = 0; d < rank; ++d) total *= od[d];
  y = TF_AllocateOutput(ctx, 0, TF_FLOAT, od, rank, (size_t)total * sizeof(float), s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    goto done;
  }
  if (total == 0) goto done;
  j.c = (const unsigned char*)TF_TensorData(in[0]);
  j.t = (const float*)TF_TensorData(in[1]);
  j.e = (const float*)TF_TensorData(in[2]);
  j.y = (float*)TF_TensorData(y);
  if (rank == 0) {
    j.y[0] = j.c[0] ? j.t[0] : j.e[0];
    goto done;
  }
  j.rank = rank;
  for (int d = 0; d < rank; ++d) {
    j.dims[d] = od[d];
    j.cs[d] = strides[0][d];
    j.ts[d] = strides[1][d];
    j.es[d] = strides[2][d];
  }
  mtk_parallel_for(total / od[rank - 1], 1 + 16384 / (od[rank - 1] + 1), select_rows, &j);
done:
  for (int i = 0; i < 3; ++i) TF_DeleteTensor(in[i]);
  TF_DeleteTensor(y);
  TF_DeleteStatus(s);
}

void mtk_register_select(TF_Status* s) {
  mtk_register("MtkSelectV2", "SelectV2", select_create, select_compute, select_destroy, s);
}
