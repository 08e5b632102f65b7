/* Transpose (float32). The permutation is first brought to a canonical form: size-1 dimensions dropped, input
 * dimensions that stay neighbours in the output merged. What is left is a copy, a copy of contiguous rows (the
 * last dimension stays last), or, in general, a walk over the output in which the plane of the output's last
 * dimension and the dimension the input's last one lands on is copied in 16 x 16 tiles: both the reads and the
 * writes then run along contiguous memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtk.h"

#define MAX_RANK 16
#define TILE 16

typedef struct {
  const float* x;
  float* y;
  int rank;                  /* canonical */
  int64_t odims[MAX_RANK];   /* output dims */
  int64_t xstr[MAX_RANK];    /* input stride of each output dim */
  int64_t ystr[MAX_RANK];    /* output stride of each output dim */
  int a;                     /* output dim of the input's last dim */
  int64_t outer;             /* output indices over dims other than a and the last, times tiles of a */
  int64_t a_tiles;
} TransJob;

static void trans_task(void* p, int64_t begin, int64_t end) {
  TransJob* j = (TransJob*)p;
  const int last = j->rank - 1, a = j->a;
  const int64_t n_b = j->odims[last], xs_b = j->xstr[last];
  for (int64_t t = begin; t < end; ++t) {
    int64_t rem = t / j->a_tiles, ta = t % j->a_tiles;
    int64_t xo = 0, yo = 0;
    for (int d = last - 1; d >= 0; --d) {
      if (d == a) continue;
      int64_t i = rem % j->odims[d];
      rem /= j->odims[d];
      xo += i * j->xstr[d];
      yo += i * j->ystr[d];
    }
    if (a == last) { /* rows: the last dimension stays last */
      memcpy(j->y + yo, j->x + xo, (size_t)n_b * sizeof(float));
      continue;
    }
    int64_t a0 = ta * TILE, a1 = a0 + TILE < j->odims[a] ? a0 + TILE : j->odims[a];
    const int64_t ys_a = j->ystr[a];
    for (int64_t b0 = 0; b0 < n_b; b0 += TILE) {
      int64_t b1 = b0 + TILE < n_b ? b0 + TILE : n_b;
      for (int64_t ia = a0; ia < a1; ++ia) {
        const float* src = j->x + xo + ia;
        float* dst = j->y + yo + ia * ys_a;
        for (int64_t ib = b0; ib < b1; ++ib) dst[ib] = src[ib * xs_b];
      }
    }
  }
}

static void* transpose_create(TF_OpKernelConstruction* c) {
  (void)c;
  return calloc(1, 1);
}
static void transpose_destroy(void* p) { free(p); }

static void transpose_compute(void* state, TF_OpKernelContext* ctx) {
  (void)state;
  TF_Status* s = TF_NewStatus();
  TF_Tensor *x = NULL, *perm_t = NULL, *y = NULL;
  char shape[128], list[256];
  TF_GetInput(ctx, 0, &x, s);
  if (TF_GetCode(s) == TF_OK) TF_GetInput(ctx, 1, &perm_t, s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    goto done;
  }
  int rank = TF_NumDims(x);
  if (TF_NumDims(perm_t) != 1) {
    mtk_shape_str(perm_t, shape, sizeof shape);
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "perm must be a vector, not %s", shape);
    goto done;
  }
  int64_t np = TF_Dim(perm_t, 0);
  if (np != rank) {
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "transpose expects a vector of size %d. But input(1) is a vector of size %lld",
             rank, (long long)np);
    goto done;
  }
  if (rank > MAX_RANK) {
    mtk_fail(ctx, TF_UNIMPLEMENTED, "Transpose of rank %d is not supported by the native kernel", rank);
    goto done;
  }
  int64_t perm[MAX_RANK];
  for (int i = 0; i < rank; ++i) perm[i] = mtk_int_at(TF_TensorData(perm_t), TF_TensorType(perm_t), i);
  for (int i = 0; i < rank; ++i) {
    if (perm[i] < 0 || perm[i] >= rank) {
      mtk_fail(ctx, TF_INVALID_ARGUMENT, "%lld is out of range [0 .. %d)", (long long)perm[i], rank);
      goto done;
    }
  }
  for (int d = 0; d < rank; ++d) {
    int found = 0;
    for (int i = 0; i < rank; ++i) found |= perm[i] == d;
    if (!found) {
      size_t used = 0;
      list[0] = '\0';
      for (int i = 0; i < rank && used < sizeof list; ++i)
        used += (size_t)snprintf(list + used, sizeof list - used, i ? ",%lld" : "%lld", (long long)perm[i]);
      mtk_fail(ctx, TF_INVALID_ARGUMENT, "%d is missing from {%s}.", d, list);
      goto done;
    }
  }
  int64_t dims[MAX_RANK], out_dims[MAX_RANK], xstr[MAX_RANK];
  int64_t total = 1;
  for (int d = rank - 1; d >= 0; --d) {
    dims[d] = TF_Dim(x, d);
    xstr[d] = total;
    total *= dims[d];
  }
  for (int i = 0; i < rank; ++i) out_dims[i] = dims[perm[i]];
  y = TF_AllocateOutput(ctx, 0, TF_FLOAT, out_dims, rank, (size_t)total * sizeof(float), s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    goto done;
  }
  if (total == 0) goto done;
  TransJob j;
  memset(&j, 0, sizeof j);
  j.x = (const float*)TF_TensorData(x);
  j.y = (float*)TF_TensorData(y);
  /* canonical form over the output's dims: size-1 dropped, an output dim merged into the previous one when their
   * input dims are neighbours in the same order */
  int r = 0;
  int64_t cin[MAX_RANK]; /* input dim (innermost of the merged run) per canonical output dim */
  for (int i = 0; i < rank; ++i) {
    int64_t d = perm[i];
    if (dims[d] == 1) continue;
    if (r > 0 && xstr[cin[r - 1]] == dims[d] * xstr[d]) {
      j.odims[r - 1] *= dims[d];
      cin[r - 1] = d;
      j.xstr[r - 1] = xstr[d];
      continue;
    }
    j.odims[r] = dims[d];
    j.xstr[r] = xstr[d];
    cin[r] = d;
    ++r;
  }
  if (r == 0) {
    j.odims[0] = 1;
    j.xstr[0] = 1;
    r = 1;
  }
  j.rank = r;
  int64_t stride = 1;
  for (int d = r - 1; d >= 0; --d) {
    j.ystr[d] = stride;
    stride *= j.odims[d];
  }
  j.a = r - 1;
  for (int d = 0; d < r; ++d)
    if (j.xstr[d] == 1) j.a = d;
  if (r == 1) { /* a copy */
    memcpy(j.y, j.x, (size_t)total * sizeof(float));
    goto done;
  }
  int64_t others = 1;
  for (int d = 0; d < r - 1; ++d)
    if (d != j.a) others *= j.odims[d];
  j.a_tiles = j.a == r - 1 ? 1 : (j.odims[j.a] + TILE - 1) / TILE;
  int64_t tasks = others * j.a_tiles;
  int64_t per = total / tasks;
  mtk_parallel_for(tasks, 1 + 32768 / (per + 1), trans_task, &j);
done:
  TF_DeleteTensor(x);
  TF_DeleteTensor(perm_t);
  TF_DeleteTensor(y);
  TF_DeleteStatus(s);
}

void mtk_register_transpose(TF_Status* s) {
  mtk_register("MtkTranspose", "Transpose", transpose_create, transpose_compute, transpose_destroy, s);
}
