/* BiasAdd and the activations as standalone kernels (float32): one vectorized pass,
 * split over the pool for large tensors, writing into the input's buffer when the
 * runtime lets the kernel forward it. */
#include <stdlib.h>
#include <string.h>

#include "mtk.h"

typedef struct {
  int act;      /* MTK_ACT_*; MTK_ACT_NONE for BiasAdd */
  float alpha;
  int nchw;
} Eltwise;

static void* create_act(TF_OpKernelConstruction* ctx, int act) {
  Eltwise* k = (Eltwise*)calloc(1, sizeof(Eltwise));
  if (k == NULL) return NULL;
  k->act = act;
  if (act == MTK_ACT_LEAKY_RELU) {
    TF_Status* s = TF_NewStatus();
    TF_OpKernelConstruction_GetAttrFloat(ctx, "alpha", &k->alpha, s);
    if (TF_GetCode(s) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s);
    TF_DeleteStatus(s);
  }
  return k;
}
static void* relu_create(TF_OpKernelConstruction* c) { return create_act(c, MTK_ACT_RELU); }
static void* relu6_create(TF_OpKernelConstruction* c) { return create_act(c, MTK_ACT_RELU6); }
static void* elu_create(TF_OpKernelConstruction* c) { return create_act(c, MTK_ACT_ELU); }
static void* leaky_create(TF_OpKernelConstruction* c) { return create_act(c, MTK_ACT_LEAKY_RELU); }
static void* sigmoid_create(TF_OpKernelConstruction* c) { return create_act(c, MTK_ACT_SIGMOID); }
static void* tanh_create(TF_OpKernelConstruction* c) { return create_act(c, MTK_ACT_TANH); }
static void* bias_create(TF_OpKernelConstruction* ctx) {
  Eltwise* k = (Eltwise*)calloc(1, sizeof(Eltwise));
  if (k == NULL) return NULL;
  char format[16] = "NHWC";
  if (mtk_attr_string(ctx, "data_format", format, sizeof format) == 0) k->nchw = format[0] == 'N' && format[1] == 'C';
  return k;
}
static void eltwise_destroy(void* p) { free(p); }

typedef struct {
  const float* x;
  float* y;
  const float* bias;
  int64_t channels, inner; /* bias: x is [outer, channels, inner] */
  int act;
  float alpha;
} EltJob;

static void act_range(void* p, int64_t begin, int64_t end) {
  EltJob* j = (EltJob*)p;
  if (j->y != j->x) memcpy(j->y + begin, j->x + begin, (size_t)(end - begin) * sizeof(float));
  mtk_activation(j->act, j->alpha, j->y + begin, end - begin);
}

MTK_HOT static void add_vec(float* restrict y, const float* x, const float* restrict b, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] + b[i];
}
MTK_HOT static void add_scalar(float* restrict y, const float* x, float b, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] + b;
}

static void bias_range(void* p, int64_t begin, int64_t end) { /* over rows of [outer*channels] */
  EltJob* j = (EltJob*)p;
  for (int64_t r = begin; r < end; ++r) {
    if (j->inner == 1) { /* NHWC: rows are pixels */
      add_vec(j->y + r * j->channels, j->x + r * j->channels, j->bias, j->channels);
    } else {
      add_scalar(j->y + r * j->inner, j->x + r * j->inner, j->bias[r % j->channels], j->inner);
    }
  }
}

static void act_compute(void* state, TF_OpKernelContext* ctx) {
  Eltwise* k = (Eltwise*)state;
  TF_Status* s = TF_NewStatus();
  TF_Tensor *x = NULL, *y = NULL;
  /* Read the input's shape and memory, drop the handle (a held one would prevent forwarding), then forward.
     The input's memory stays the runtime's for the whole call, so its data pointer outlives the handle. */
  TF_Tensor* probe = NULL;
  TF_GetInput(ctx, 0, &probe, s);
  if (TF_GetCode(s) != TF_OK) goto fail;
  int dims_n = TF_NumDims(probe);
  int64_t dims[16];
  if (dims_n > 16) {
    TF_DeleteTensor(probe);
    TF_SetStatus(s, TF_UNIMPLEMENTED, "more than 16 dimensions");
    goto fail;
  }
  for (int i = 0; i < dims_n; ++i) dims[i] = TF_Dim(probe, i);
  EltJob j;
  memset(&j, 0, sizeof j);
  j.x = (const float*)TF_TensorData(probe);
  int64_t n = TF_TensorElementCount(probe);
  TF_DeleteTensor(probe);
  int candidate = 0, forwarded = -1;
  y = TF_ForwardInputOrAllocateOutput(ctx, &candidate, 1, 0, dims, dims_n, &forwarded, s);
  if (TF_GetCode(s) != TF_OK) goto fail;
  j.y = (float*)TF_TensorData(y);
  j.act = k->act;
  j.alpha = k->alpha;
  int cheap = k->act == MTK_ACT_RELU || k->act == MTK_ACT_RELU6 || k->act == MTK_ACT_LEAKY_RELU;
  mtk_parallel_for(n, cheap ? MTK_GRAIN_CHEAP : MTK_GRAIN_MATH, act_range, &j);
  goto done;
fail:
  TF_OpKernelContext_Failure(ctx, s);
done:
  TF_DeleteTensor(x);
  TF_DeleteTensor(y);
  TF_DeleteStatus(s);
}

static void bias_compute(void* state, TF_OpKernelContext* ctx) {
  Eltwise* k = (Eltwise*)state;
  TF_Status* s = TF_NewStatus();
  TF_Tensor *x = NULL, *b = NULL, *y = NULL;
  char sx[128], sb[64];
  TF_GetInput(ctx, 0, &x, s);
  if (TF_GetCode(s) == TF_OK) TF_GetInput(ctx, 1, &b, s);
  if (TF_GetCode(s) != TF_OK) goto fail;
  mtk_shape_str(x, sx, sizeof sx);
  mtk_shape_str(b, sb, sizeof sb);
  int rank = TF_NumDims(x);
  if (rank < 2) {
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "Input tensor must be at least 2D: %s", sx);
    goto done;
  }
  if (TF_NumDims(b) != 1) {
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "Biases must be 1D: %s", sb);
    goto done;
  }
  int axis = k->nchw ? 1 : rank - 1;
  if (TF_Dim(x, axis) != TF_Dim(b, 0)) {
    mtk_fail(ctx, TF_INVALID_ARGUMENT,
             "Must provide as many biases as the last dimension of the input tensor: %s vs. %s", sb, sx);
    goto done;
  }
  /* Drop our handle so the runtime may forward the input. */
  TF_DeleteTensor(x);
  x = NULL;
  {
    TF_Tensor* probe = NULL;
    TF_GetInput(ctx, 0, &probe, s);
    if (TF_GetCode(s) != TF_OK) goto fail;
    int64_t dims[16];
    int nd = TF_NumDims(probe);
    for (int i = 0; i < nd && i < 16; ++i) dims[i] = TF_Dim(probe, i);
    TF_DeleteTensor(probe);
    int candidate = 0, forwarded = -1;
    y = TF_ForwardInputOrAllocateOutput(ctx, &candidate, 1, 0, dims, nd, &forwarded, s);
    if (TF_GetCode(s) != TF_OK) goto fail;
  }
  TF_GetInput(ctx, 0, &x, s);
  if (TF_GetCode(s) != TF_OK) goto fail;
  EltJob j;
  memset(&j, 0, sizeof j);
  j.x = (const float*)TF_TensorData(x);
  j.y = (float*)TF_TensorData(y);
  j.bias = (const float*)TF_TensorData(b);
  j.channels = TF_Dim(b, 0);
  int64_t total = TF_TensorElementCount(x);
  if (total == 0 || j.channels == 0) goto done;
  j.inner = 1;
  if (k->nchw)
    for (int i = 2; i < rank; ++i) j.inner *= TF_Dim(x, i);
  if (j.inner == 0) goto done;
  int64_t row_len = j.inner == 1 ? j.channels : j.inner;
  mtk_parallel_for(total / row_len, 65536 / (row_len + 1) + 1, bias_range, &j);
  goto done;
fail:
  TF_OpKernelContext_Failure(ctx, s);
done:
  TF_DeleteTensor(x);
  TF_DeleteTensor(b);
  TF_DeleteTensor(y);
  TF_DeleteStatus(s);
}

void mtk_register_eltwise(TF_Status* s) {
  mtk_register("MtkBiasAdd", "BiasAdd", bias_create, bias_compute, eltwise_destroy, s);
  if (TF_GetCode(s) == TF_OK) mtk_register("MtkRelu", "Relu", relu_create, act_compute, eltwise_destroy, s);
  if (TF_GetCode(s) == TF_OK) mtk_register("MtkRelu6", "Relu6", relu6_create, act_compute, eltwise_destroy, s);
  if (TF_GetCode(s) == TF_OK) mtk_register("MtkElu", "Elu", elu_create, act_compute, eltwise_destroy, s);
  if (TF_GetCode(s) == TF_OK) mtk_register("MtkLeakyRelu", "LeakyRelu", leaky_create, act_compute, eltwise_destroy, s);
  if (TF_GetCode(s) == TF_OK) mtk_register("MtkSigmoid", "Sigmoid", sigmoid_create, act_compute, eltwise_destroy, s);
  if (TF_GetCode(s) == TF_OK) mtk_register("MtkTanh", "Tanh", tanh_create, act_compute, eltwise_destroy, s);
}
