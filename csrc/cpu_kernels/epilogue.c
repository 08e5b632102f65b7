/* Fused epilogues (TF's fused_ops after a contraction) and the activations.
 *
 * A contraction kernel computes a block of output rows and runs the epilogue on
 * them while they are still in cache: bias or folded batch norm, a residual add,
 * an activation, in TensorFlow's order. exp, erf and tanh are vectorizable
 * polynomials (within 2 ulp of expf; within 4e-7 of erf; tanh is the rational
 * approximation TF's Eigen kernels use for float, a few ulp from tanhf); Elu is
 * exp(x) - 1 for x < 0, as TF's kernel computes it. libm's scalar calls were 40x
 * slower than the vectorized loops. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtk.h"
#include "mtk_math.h"

static int activation_code(const char* name, int allow_gelu) {
  if (strcmp(name, "Relu") == 0) return MTK_ACT_RELU;
  if (strcmp(name, "Relu6") == 0) return MTK_ACT_RELU6;
  if (strcmp(name, "Elu") == 0) return MTK_ACT_ELU;
  if (strcmp(name, "LeakyRelu") == 0) return MTK_ACT_LEAKY_RELU;
  if (strcmp(name, "Sigmoid") == 0) return MTK_ACT_SIGMOID;
  if (strcmp(name, "Tanh") == 0) return MTK_ACT_TANH;
  if (strcmp(name, "_MklSwish") == 0) return MTK_ACT_SWISH; /* x * sigmoid(x), TF's oneDNN name */
  if (allow_gelu && strcmp(name, "GeluExact") == 0) return MTK_ACT_GELU_EXACT;
  if (allow_gelu && strcmp(name, "GeluApproximate") == 0) return MTK_ACT_GELU_APPROX;
  return -1;
}

int mtk_parse_fused_ops(TF_OpKernelConstruction* ctx, const char* op, int allow_add, int allow_bn, int allow_gelu,
                        mtk_epilogue* ep, char* error, size_t error_len) {
  memset(ep, 0, sizeof *ep);
  TF_Status* s = TF_NewStatus();
  int32_t count = 0, total = 0;
  TF_OpKernelConstruction_GetAttrSize(ctx, "fused_ops", &count, &total, s);
  if (TF_GetCode(s) != TF_OK || count < 0 || count > 8 || total < 0 || total > 1024) {
    TF_DeleteStatus(s);
    snprintf(error, error_len, "%s: cannot read attr 'fused_ops'", op);
    return -1;
  }
  char* names[8] = {0};
  size_t lengths[8] = {0};
  char storage[1024 + 8];
  if (count > 0) TF_OpKernelConstruction_GetAttrStringList(ctx, "fused_ops", names, lengths, count, storage,
                                                            sizeof storage, s);
  int ok = TF_GetCode(s) == TF_OK;
  TF_DeleteStatus(s);
  if (!ok) {
    snprintf(error, error_len, "%s: cannot read attr 'fused_ops'", op);
    return -1;
  }
  char list[512] = "";
  char name[8][64];
  for (int i = 0; i < count; ++i) {
    size_t n = lengths[i] < 63 ? lengths[i] : 63;
    memcpy(name[i], names[i], n);
    name[i][n] = '\0';
    strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
    strncat(list, name[i], sizeof list - strlen(list) - 1);
  }
  int i = 0;
  if (i < count && strcmp(name[i], "BiasAdd") == 0) {
    ep->has_bias = 1;
    ep->num_args = 1;
    ++i;
  } else if (allow_bn && i < count && strcmp(name[i], "FusedBatchNorm") == 0) {
    ep->has_bn = 1;
    ep->num_args = 4;
    ++i;
  } else {
    goto unsupported;
  }
  if (allow_add && i < count && strcmp(name[i], "Add") == 0 && ep->has_bias) {
    ep->has_add = 1;
    ep->num_args += 1;
    ++i;
  }
  if (i < count) {
    int act = activation_code(name[i], allow_gelu);
    if (act < 0) goto unsupported;
    ep->activation = act;
    ++i;
  }
  if (i != count) goto unsupported;
  return 0;
unsupported:
  snprintf(error, error_len, "%s: fused_ops [%s] is not supported on CPU", op, list);
  return -1;
}

/* dst (out_dims, contiguous) = src broadcast (right-aligned dims); 0, or -1 when it does not broadcast. */
static int broadcast_into(const float* src, const int64_t* src_dims, int src_rank, float* dst, const int64_t* out_dims,
                          int out_rank) {
  if (src_rank > out_rank || out_rank > 8) return -1;
  int64_t strides[8], stride = 1;
  for (int d = out_rank - 1; d >= 0; --d) {
    int sd = d - (out_rank - src_rank);
    int64_t n = sd >= 0 ? src_dims[sd] : 1;
    if (n != 1 && n != out_dims[d]) return -1;
    strides[d] = n == 1 ? 0 : stride;
    stride *= n;
  }
  int64_t total = 1;
  for (int d = 0; d < out_rank; ++d) total *= out_dims[d];
  int64_t index[8] = {0};
  for (int64_t i = 0; i < total; ++i) {
    int64_t offset = 0;
    for (int d = 0; d < out_rank; ++d) offset += index[d] * strides[d];
    dst[i] = src[offset];
    for (int d = out_rank - 1; d >= 0; --d) {
      if (++index[d] < out_dims[d]) break;
      index[d] = 0;
    }
  }
  return 0;
}

int mtk_epilogue_bind(TF_OpKernelContext* ctx, const mtk_epilogue* ep, int first, int64_t channels,
                      const int64_t* out_dims, int out_rank, mtk_epilogue_args* args, TF_Tensor** held,
                      TF_Status* status) {
  int64_t out_elems = 1;
  for (int d = 0; d < out_rank; ++d) out_elems *= out_dims[d];
  memset(args, 0, sizeof *args);
  args->ep = ep;
  int n_held = 0;
  const float* vec[4] = {0};
  int n_vec = ep->has_bn ? 4 : (ep->has_bias ? 1 : 0);
  for (int i = 0; i < n_vec; ++i) {
    TF_Tensor* t = NULL;
    TF_GetInput(ctx, first + i, &t, status);
    if (TF_GetCode(status) != TF_OK) return -1;
    held[n_held++] = t;
    if (TF_TensorType(t) != TF_FLOAT || TF_NumDims(t) != 1 || TF_Dim(t, 0) != channels) {
      const char* what = ep->has_bn ? (i == 0 ? "scale" : i == 1 ? "offset" : i == 2 ? "mean" : "variance") : "bias";
      mtk_fail(ctx, TF_INVALID_ARGUMENT, "%s must be a float vector of the output depth %lld, got %d dims of %lld",
               what, (long long)channels, TF_NumDims(t), (long long)(TF_NumDims(t) > 0 ? TF_Dim(t, 0) : 0));
      return -1;
    }
    vec[i] = (const float*)TF_TensorData(t);
  }
  if (ep->has_bias) {
    args->shift = vec[0];
  } else if (ep->has_bn) {
    args->owned = (float*)mtk_aligned_alloc((size_t)(2 * channels) * sizeof(float));
    if (args->owned == NULL) {
      mtk_fail(ctx, TF_RESOURCE_EXHAUSTED, "out of memory for the batch norm factors");
      return -1;
    }
    float* mul = args->owned;
    float* shift = args->owned + channels;
    for (int64_t c = 0; c < channels; ++c) {
      float f = vec[0][c] / sqrtf(vec[3][c] + ep->epsilon);
      mul[c] = f;
      shift[c] = vec[1][c] - vec[2][c] * f;
    }
    args->mul = mul;
    args->shift = shift;
  }
  if (ep->has_add) {
    TF_Tensor* t = NULL;
    TF_GetInput(ctx, first + n_vec, &t, status);
    if (TF_GetCode(status) != TF_OK) return -1;
    held[n_held++] = t;
    int same = TF_TensorType(t) == TF_FLOAT && TF_NumDims(t) == out_rank;
    for (int d = 0; same && d < out_rank; ++d) same = TF_Dim(t, d) == out_dims[d];
    if (same) {
      args->addend = (const float*)TF_TensorData(t);
    } else {
      int64_t dims[8];
      int rank = TF_NumDims(t) <= 8 ? TF_NumDims(t) : 9;
      for (int d = 0; d < rank && d < 8; ++d) dims[d] = TF_Dim(t, d);
      args->owned_addend = TF_TensorType(t) == TF_FLOAT && rank <= 8
                               ? (float*)mtk_aligned_alloc((size_t)out_elems * sizeof(float))
                               : NULL;
      if (args->owned_addend == NULL ||
          broadcast_into((const float*)TF_TensorData(t), dims, rank, args->owned_addend, out_dims, out_rank) < 0) {
        mtk_fail(ctx, TF_INVALID_ARGUMENT,
                 "the operand of the fused Add must broadcast to the output's shape (%lld elements), got %lld elements "
                 "in %d dims",
                 (long long)out_elems, (long long)TF_TensorElementCount(t), TF_NumDims(t));
        return -1;
      }
      args->addend = args->owned_addend;
    }
    args->ld_add = channels;
  }
  return 0;
}

void mtk_epilogue_release(mtk_epilogue_args* args) {
  free(args->owned);
  free(args->owned_addend);
  args->owned = NULL;
  args->owned_addend = NULL;
}

MTK_HOT static void act_relu(float* restrict x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] = x[i] < 0.0f ? 0.0f : x[i];
}
MTK_HOT static void act_relu6(float* restrict x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    float v = x[i] < 0.0f ? 0.0f : x[i];
    x[i] = v > 6.0f ? 6.0f : v;
  }
}
MTK_HOT static void act_leaky(float* restrict x, int64_t n, float alpha) {
  for (int64_t i = 0; i < n; ++i) x[i] = x[i] < 0.0f ? x[i] * alpha : x[i];
}
MTK_HOT static void act_sigmoid(float* restrict x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] = 1.0f / (1.0f + fast_exp(-x[i]));
}
MTK_HOT static void act_swish(float* restrict x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] = x[i] / (1.0f + fast_exp(-x[i]));
}
MTK_HOT static void act_elu(float* restrict x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] = x[i] < 0.0f ? fast_exp(x[i]) - 1.0f : x[i];
}
MTK_HOT static void act_tanh(float* restrict x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] = fast_tanh(x[i]);
}
MTK_HOT static void act_gelu_exact(float* restrict x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] = 0.5f * x[i] * (1.0f + fast_erf(x[i] * 0.70710678118654752440f));
}
MTK_HOT static void act_gelu_approx(float* restrict x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    float v = x[i];
    x[i] = 0.5f * v * (1.0f + fast_tanh(0.7978845608028654f * (v + 0.044715f * v * v * v)));
  }
}

void mtk_activation(int act, float alpha, float* x, int64_t n) {
  switch (act) {
    case MTK_ACT_RELU: act_relu(x, n); break;
    case MTK_ACT_RELU6: act_relu6(x, n); break;
    case MTK_ACT_ELU: act_elu(x, n); break;
    case MTK_ACT_LEAKY_RELU: act_leaky(x, n, alpha); break;
    case MTK_ACT_SIGMOID: act_sigmoid(x, n); break;
    case MTK_ACT_TANH: act_tanh(x, n); break;
    case MTK_ACT_GELU_EXACT: act_gelu_exact(x, n); break;
    case MTK_ACT_GELU_APPROX: act_gelu_approx(x, n); break;
    case MTK_ACT_SWISH: act_swish(x, n); break;
    default: break;
  }
}

MTK_HOT static void row_affine(float* restrict x, const float* restrict mul, const float* restrict shift, int64_t n) {
  if (mul != NULL) {
    for (int64_t j = 0; j < n; ++j) x[j] = x[j] * mul[j] + shift[j];
  } else {
    for (int64_t j = 0; j < n; ++j) x[j] += shift[j];
  }
}

MTK_HOT static void row_add(float* restrict x, const float* restrict y, int64_t n) {
  for (int64_t j = 0; j < n; ++j) x[j] += y[j];
}

int mtk_post_of(const mtk_epilogue_args* args, int64_t r, int64_t c0, mtk_post* post) {
  const mtk_epilogue* ep = args != NULL ? args->ep : NULL;
  if (ep == NULL) return 0;
  if (ep->activation != MTK_ACT_NONE && ep->activation != MTK_ACT_RELU && ep->activation != MTK_ACT_RELU6) return 0;
  post->shift = args->shift != NULL ? args->shift + c0 : NULL;
  post->mul = args->shift != NULL && args->mul != NULL ? args->mul + c0 : NULL;
  post->add = args->addend != NULL ? args->addend + r * args->ld_add + c0 : NULL;
  post->ld_add = args->ld_add;
  post->act = ep->activation;
  return 1;
}

void mtk_epilogue_block(const mtk_epilogue_args* args, float* out, int64_t ldc, int64_t r0, int64_t r1, int64_t c0,
                        int64_t c1) {
  const mtk_epilogue* ep = args->ep;
  if (ep == NULL) return;
  int64_t n = c1 - c0;
  const float* mul = args->mul != NULL ? args->mul + c0 : NULL;
  const float* shift = args->shift != NULL ? args->shift + c0 : NULL;
  for (int64_t r = r0; r < r1; ++r) {
    float* row = out + r * ldc + c0;
    if (shift != NULL) row_affine(row, mul, shift, n);
    if (args->addend != NULL) row_add(row, args->addend + r * args->ld_add + c0, n);
    if (ep->activation != MTK_ACT_NONE) mtk_activation(ep->activation, ep->alpha, row, n);
  }
}
