/* MatMul, _FusedMatMul and BatchMatMulV2 (float32).
 *
 * One GEMM split over the pool (rows, or columns when there are few rows); the
 * fused epilogue of _FusedMatMul (bias, an optional Add, an activation including
 * GELU) runs on each block right after its product. BatchMatMulV2 broadcasts the
 * batch dimensions and runs one GEMM per matrix pair, the pairs spread over the
 * pool (or each product split when there are fewer pairs than threads). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtk.h"

typedef struct {
  int const_weights; /* b is a Const (attr set by the graph optimizer): keep it packed */
  mtk_weights_cache cache;
  int fused, batch;
  int transpose_a, transpose_b;
  mtk_epilogue ep;
  int fused_error;
  char fused_message[320];
} MatMul;

static void* create_kind(TF_OpKernelConstruction* ctx, int fused, int batch) {
  MatMul* k = (MatMul*)calloc(1, sizeof(MatMul));
  if (k == NULL) return NULL;
  k->fused = fused;
  k->batch = batch;
  mtk_weights_cache_init(&k->cache);
  k->const_weights = !batch && mtk_attr_flag(ctx, "_modtensor_const_weights");
  TF_Status* s = TF_NewStatus();
  TF_Bool ta = 0, tb = 0;
  TF_OpKernelConstruction_GetAttrBool(ctx, batch ? "adj_x" : "transpose_a", &ta, s);
  if (TF_GetCode(s) == TF_OK) TF_OpKernelConstruction_GetAttrBool(ctx, batch ? "adj_y" : "transpose_b", &tb, s);
  k->transpose_a = ta;
  k->transpose_b = tb;
  if (TF_GetCode(s) == TF_OK && fused) {
    if (mtk_parse_fused_ops(ctx, "_FusedMatMul", 1, 0, 1, &k->ep, k->fused_message, sizeof k->fused_message) < 0) {
      k->fused_error = 1;
    } else {
      int64_t num_args = 0;
      TF_OpKernelConstruction_GetAttrFloat(ctx, "leakyrelu_alpha", &k->ep.alpha, s);
      if (TF_GetCode(s) == TF_OK) TF_OpKernelConstruction_GetAttrInt64(ctx, "num_args", &num_args, s);
      if (TF_GetCode(s) == TF_OK && num_args != k->ep.num_args) {
        k->fused_error = 1;
        snprintf(k->fused_message, sizeof k->fused_message, "_FusedMatMul: fused_ops need %d args, num_args is %lld",
                 k->ep.num_args, (long long)num_args);
      }
    }
  }
  if (TF_GetCode(s) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s);
  TF_DeleteStatus(s);
  return k;
}

static void* matmul_create(TF_OpKernelConstruction* c) { return create_kind(c, 0, 0); }
static void* fused_matmul_create(TF_OpKernelConstruction* c) { return create_kind(c, 1, 0); }
static void* batch_matmul_create(TF_OpKernelConstruction* c) { return create_kind(c, 0, 1); }
static void matmul_destroy(void* p) {
  MatMul* k = (MatMul*)p;
  if (k == NULL) return;
  mtk_weights_cache_destroy(&k->cache);
  free(k);
}

typedef struct {
  const float *a, *b;
  float* c;
  int ta, tb;
  int64_t m, n, k, lda, ldb;
  const mtk_epilogue_args* ep;
  mtk_weights_cache* cache;
} MatJob;

/* One product (with its epilogue) over the pool; -1 when out of memory. */
static int matmul_parallel(const MatJob* j) {
  mtk_gemm_desc d;
  memset(&d, 0, sizeof d);
  d.m = j->m;
  d.n = j->n;
  d.k = j->k;
  d.a = j->a;
  d.lda = j->lda;
  d.trans_a = j->ta;
  d.b = j->b;
  d.ldb = j->ldb;
  d.trans_b = j->tb;
  d.c = j->c;
  d.ldc = j->n;
  d.ep = j->ep;
  if (j->cache != NULL && j->m > 4) d.packed = mtk_weights_cache_get(j->cache, j->tb, j->k, j->n, j->b, j->ldb, 0);
  return mtk_gemm_parallel(&d);
}

static void matmul_compute(void* state, TF_OpKernelContext* ctx) {
  MatMul* k = (MatMul*)state;
  TF_Status* s = TF_NewStatus();
  TF_Tensor *a = NULL, *b = NULL, *c = NULL;
  TF_Tensor* held[8] = {0};
  mtk_epilogue_args ep_args;
  memset(&ep_args, 0, sizeof ep_args);
  char sa[96], sb[96];
  if (k->fused_error) {
    mtk_fail(ctx, TF_UNIMPLEMENTED, "%s", k->fused_message);
    goto done;
  }
  TF_GetInput(ctx, 0, &a, s);
  if (TF_GetCode(s) == TF_OK) TF_GetInput(ctx, 1, &b, s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    goto done;
  }
  if (TF_NumDims(a) != 2) {
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "In[0] ndims must be >= 2");
    goto done;
  }
  if (TF_NumDims(b) != 2) {
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "In[1] ndims must be >= 2");
    goto done;
  }
  MatJob j;
  memset(&j, 0, sizeof j);
  j.ta = k->transpose_a;
  j.tb = k->transpose_b;
  j.m = TF_Dim(a, j.ta ? 1 : 0);
  j.k = TF_Dim(a, j.ta ? 0 : 1);
  int64_t kb = TF_Dim(b, j.tb ? 1 : 0);
  j.n = TF_Dim(b, j.tb ? 0 : 1);
  if (j.k != kb) {
    mtk_shape_str(a, sa, sizeof sa);
    mtk_shape_str(b, sb, sizeof sb);
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "Matrix size-incompatible: In[0]: %s, In[1]: %s", sa, sb);
    goto done;
  }
  j.lda = TF_Dim(a, 1);
  j.ldb = TF_Dim(b, 1);
  int64_t dims[2] = {j.m, j.n};
  c = TF_AllocateOutput(ctx, 0, TF_FLOAT, dims, 2, (size_t)(j.m * j.n) * sizeof(float), s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    goto done;
  }
  if (k->fused) {
    if (mtk_epilogue_bind(ctx, &k->ep, 2, j.n, dims, 2, &ep_args, held, s) < 0) {
      if (TF_GetCode(s) != TF_OK) TF_OpKernelContext_Failure(ctx, s);
      goto done;
    }
    j.ep = &ep_args;
  }
  if (j.m == 0 || j.n == 0) goto done;
  j.a = (const float*)TF_TensorData(a);
  j.b = (const float*)TF_TensorData(b);
  j.c = (float*)TF_TensorData(c);
  j.cache = k->const_weights ? &k->cache : NULL;
  if (matmul_parallel(&j) < 0) mtk_fail(ctx, TF_RESOURCE_EXHAUSTED, "out of memory packing a MatMul operand");
done:
  mtk_epilogue_release(&ep_args);
  for (int i = 0; i < 8; ++i) TF_DeleteTensor(held[i]);
  TF_DeleteTensor(a);
  TF_DeleteTensor(b);
  TF_DeleteTensor(c);
  TF_DeleteStatus(s);
}

/* ------------------------------------------------------------------ BatchMatMulV2 */

#define MAX_RANK 8

typedef struct {
  const float *x, *y;
  float* z;
  int ta, tb;
  int64_t m, n, k, ldx, ldy;
  int rank;                  /* batch rank */
  int64_t out_batch[MAX_RANK], x_strides[MAX_RANK], y_strides[MAX_RANK]; /* in matrices, 0 when broadcast */
} BatchJob;

static void batch_pairs(void* p, int64_t begin, int64_t end) {
  BatchJob* j = (BatchJob*)p;
  for (int64_t i = begin; i < end; ++i) {
    int64_t rem = i, xi = 0, yi = 0;
    for (int d = j->rank - 1; d >= 0; --d) {
      int64_t idx = rem % j->out_batch[d];
      rem /= j->out_batch[d];
      xi += idx * j->x_strides[d];
      yi += idx * j->y_strides[d];
    }
    mtk_sgemm(j->ta, j->tb, j->m, j->n, j->k, j->x + xi * j->m * j->k, j->ldx, j->y + yi * j->k * j->n, j->ldy,
              j->z + i * j->m * j->n, j->n, 0);
  }
}

static void batch_matmul_compute(void* state, TF_OpKernelContext* ctx) {
  MatMul* k = (MatMul*)state;
  TF_Status* s = TF_NewStatus();
  TF_Tensor *x = NULL, *y = NULL, *z = NULL;
  char sx[128], sy[128];
  TF_GetInput(ctx, 0, &x, s);
  if (TF_GetCode(s) == TF_OK) TF_GetInput(ctx, 1, &y, s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    goto done;
  }
  int rx = TF_NumDims(x), ry = TF_NumDims(y);
  if (rx < 2) {
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "In[0] ndims must be >= 2: %d", rx);
    goto done;
  }
  if (ry < 2) {
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "In[1] ndims must be >= 2: %d", ry);
    goto done;
  }
  mtk_shape_str(x, sx, sizeof sx);
  mtk_shape_str(y, sy, sizeof sy);
  int rank = (rx > ry ? rx : ry) - 2;
  if (rank > MAX_RANK) {
    mtk_fail(ctx, TF_UNIMPLEMENTED, "BatchMatMulV2 supports at most %d batch dimensions", MAX_RANK);
    goto done;
  }
  BatchJob j;
  memset(&j, 0, sizeof j);
  j.rank = rank;
  int64_t xb[MAX_RANK], yb[MAX_RANK];
  for (int d = 0; d < rank; ++d) {
    int dx = d - (rank - (rx - 2)), dy = d - (rank - (ry - 2));
    xb[d] = dx >= 0 ? TF_Dim(x, dx) : 1;
    yb[d] = dy >= 0 ? TF_Dim(y, dy) : 1;
    if (xb[d] != yb[d] && xb[d] != 1 && yb[d] != 1) {
      mtk_fail(ctx, TF_INVALID_ARGUMENT, "In[0] and In[1] must have compatible batch dimensions: %s vs. %s", sx, sy);
      goto done;
    }
    j.out_batch[d] = xb[d] == 1 ? yb[d] : xb[d];
  }
  int64_t sxs = 1, sys = 1;
  for (int d = rank - 1; d >= 0; --d) {
    j.x_strides[d] = xb[d] == 1 ? 0 : sxs;
    j.y_strides[d] = yb[d] == 1 ? 0 : sys;
    sxs *= xb[d];
    sys *= yb[d];
  }
  j.ta = k->transpose_a;
  j.tb = k->transpose_b;
  int64_t x0 = TF_Dim(x, rx - 2), x1 = TF_Dim(x, rx - 1), y0 = TF_Dim(y, ry - 2), y1 = TF_Dim(y, ry - 1);
  j.m = j.ta ? x1 : x0;
  j.k = j.ta ? x0 : x1;
  j.n = j.tb ? y0 : y1;
  if ((j.tb ? y1 : y0) != j.k) {
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "Matrix size-incompatible: In[0]: %s, In[1]: %s %d %d", sx, sy, j.ta, j.tb);
    goto done;
  }
  j.ldx = x1;
  j.ldy = y1;
  int64_t dims[MAX_RANK + 2];
  int64_t pairs = 1;
  for (int d = 0; d < rank; ++d) {
    dims[d] = j.out_batch[d];
    pairs *= j.out_batch[d];
  }
  dims[rank] = j.m;
  dims[rank + 1] = j.n;
  z = TF_AllocateOutput(ctx, 0, TF_FLOAT, dims, rank + 2, (size_t)(pairs * j.m * j.n) * sizeof(float), s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    goto done;
  }
  if (pairs == 0 || j.m == 0 || j.n == 0) goto done;
  j.x = (const float*)TF_TensorData(x);
  j.y = (const float*)TF_TensorData(y);
  j.z = (float*)TF_TensorData(z);
  if (pairs == 1) {
    MatJob one;
    memset(&one, 0, sizeof one);
    one.a = j.x;
    one.b = j.y;
    one.c = j.z;
    one.ta = j.ta;
    one.tb = j.tb;
    one.m = j.m;
    one.n = j.n;
    one.k = j.k;
    one.lda = j.ldx;
    one.ldb = j.ldy;
    if (matmul_parallel(&one) < 0) mtk_fail(ctx, TF_RESOURCE_EXHAUSTED, "out of memory packing a MatMul operand");
  } else {
    double flops = 2.0 * (double)j.m * (double)j.n * (double)j.k;
    int64_t grain = flops > 2e5 ? 1 : (int64_t)(2e5 / (flops + 1.0)) + 1;
    mtk_parallel_for(pairs, grain, batch_pairs, &j);
  }
done:
  TF_DeleteTensor(x);
  TF_DeleteTensor(y);
  TF_DeleteTensor(z);
  TF_DeleteStatus(s);
}

void mtk_register_matmul(TF_Status* s) {
  mtk_register("MtkMatMul", "MatMul", matmul_create, matmul_compute, matmul_destroy, s);
  if (TF_GetCode(s) == TF_OK)
    mtk_register("MtkFusedMatMul", "_FusedMatMul", fused_matmul_create, matmul_compute, matmul_destroy, s);
  if (TF_GetCode(s) == TF_OK)
    mtk_register("MtkBatchMatMulV2", "BatchMatMulV2", batch_matmul_create, batch_matmul_compute, matmul_destroy, s);
}
