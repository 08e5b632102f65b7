/* A graph-optimizer plugin (tensorflow/c/experimental/grappler/grappler.h) with the op and
 * kernel its rewrite needs, for the CPU device type.
 *
 * TF_InitGraph registers an optimizer for "CPU" that rewrites
 *     Relu(BiasAdd(MatMul(a, b), bias))   (float, NHWC BiasAdd, MatMul and BiasAdd used only there)
 * into one node MyFusedMatMulBiasRelu(a, b, bias) that keeps the Relu's name (so readers are
 * unchanged), and recommends turning the built-in `remapping` pass off (it would otherwise
 * fuse the same pattern into _FusedMatMul first). TF_InitKernel registers the op and its CPU
 * kernel. The rewrite, its GraphDef codec and the op definition are in fused_rewrite.c, which
 * examples/plugins/demo_device builds into the device plugin with a device kernel instead.
 *
 * Build: gcc -shared -fPIC -O2 fused_optimizer.c fused_rewrite.c -o fused_optimizer.so $(python -c
 *   "import modtensor.sysconfig as s; print(' '.join(s.get_compile_flags()))") */
#include <stdint.h>
#include <stdlib.h>

#include "fused_rewrite.h"
#include "tensorflow/c/kernels.h"

void TF_InitGraph(TP_OptimizerRegistrationParams* params, TF_Status* status) {
  fused_optimizer_register(params, "CPU", 0, status);
}

/* ------------------------------------------------------------------ the CPU kernel */

typedef struct {
  TF_Bool transpose_a, transpose_b;
} Kernel;

static void* kernel_create(TF_OpKernelConstruction* ctx) {
  Kernel* k = (Kernel*)calloc(1, sizeof(Kernel));
  TF_Status* s = TF_NewStatus();
  TF_OpKernelConstruction_GetAttrBool(ctx, "transpose_a", &k->transpose_a, s);
  if (TF_GetCode(s) == TF_OK) TF_OpKernelConstruction_GetAttrBool(ctx, "transpose_b", &k->transpose_b, s);
  if (TF_GetCode(s) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s);
  TF_DeleteStatus(s);
  return k;
}

static void kernel_delete(void* k) { free(k); }

static void kernel_compute(void* kernel, TF_OpKernelContext* ctx) {
  const Kernel* k = (const Kernel*)kernel;
  TF_Status* s = TF_NewStatus();
  TF_Tensor *a = NULL, *b = NULL, *bias = NULL, *y = NULL;
  int64_t m, ka, n;
  TF_GetInput(ctx, 0, &a, s);
  if (TF_GetCode(s) == TF_OK) TF_GetInput(ctx, 1, &b, s);
  if (TF_GetCode(s) == TF_OK) TF_GetInput(ctx, 2, &bias, s);
  if (TF_GetCode(s) != TF_OK) goto fail;
  if (!fused_op_shapes(a, b, bias, k->transpose_a, k->transpose_b, &m, &ka, &n, s)) goto fail;
  int64_t dims[2] = {m, n};
  y = TF_AllocateOutput(ctx, 0, TF_FLOAT, dims, 2, (size_t)(m * n) * sizeof(float), s);
  if (TF_GetCode(s) != TF_OK) goto fail;
  const float* pa = (const float*)TF_TensorData(a);
  const float* pb = (const float*)TF_TensorData(b);
  const float* pc = (const float*)TF_TensorData(bias);
  float* py = (float*)TF_TensorData(y);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int64_t t = 0; t < ka; ++t) {
        float x = k->transpose_a ? pa[t * m + i] : pa[i * ka + t];
        float w = k->transpose_b ? pb[j * ka + t] : pb[t * n + j];
        acc += x * w;
      }
      acc += pc[j];
      py[i * n + j] = acc > 0.0f ? acc : 0.0f;
    }
  }
fail:
  if (TF_GetCode(s) != TF_OK) TF_OpKernelContext_Failure(ctx, s);
  TF_DeleteTensor(a);
  TF_DeleteTensor(b);
  TF_DeleteTensor(bias);
  TF_DeleteTensor(y);
  TF_DeleteStatus(s);
}

void TF_InitKernel(void) {
  TF_Status* s = TF_NewStatus();
  fused_op_register(s);
  TF_KernelBuilder* builder = TF_NewKernelBuilder(FUSED_OP, "CPU", &kernel_create, &kernel_compute, &kernel_delete);
  TF_KernelBuilder_TypeConstraint(builder, "T", TF_FLOAT, s);
  TF_RegisterKernelBuilder(FUSED_OP "Op", builder, s);
  TF_DeleteStatus(s);
}
