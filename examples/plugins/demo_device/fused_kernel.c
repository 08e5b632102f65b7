/* The demo device with the fused_optimizer example built in (make WITH_FUSED_OPTIMIZER=1):
 * TF_InitGraph registers examples/plugins/fused_optimizer's optimizer for the device type, and
 * TF_InitKernel (kernels.c) also registers the op MyFusedMatMulBiasRelu with this kernel for the
 * device. As a vendor's library ships device, kernels and optimizer together, one .so then
 * exports SE_InitPlugin, TF_InitKernel and TF_InitGraph.
 *
 * The kernel works like the other demo kernels: TF_GetStream, shape checks, TF_AllocateOutput
 * (device memory), pointer checks against the stream's device, and the arithmetic
 * (Relu(a @ b + bias)) enqueued on the stream. Without DEMO_WITH_FUSED_OPTIMIZER this file
 * compiles to nothing. */
#ifdef DEMO_WITH_FUSED_OPTIMIZER

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "demo_device.h"
#include "fused_rewrite.h"
#include "tensorflow/c/kernels.h"

typedef struct FusedKernel {
  int transpose_a, transpose_b;
} FusedKernel;

/* What the stream runs: out[m,n] = max(sum_k A[m,k] B[k,n] + bias[n], 0), NaN kept as Relu keeps it. */
typedef struct FusedJob {
  const float *a, *b, *bias;
  float* out;
  int64_t m, n, k, a_sm, a_sk, b_sk, b_sn;
} FusedJob;

static void run_fused(void* arg, TF_Status* status) {
  const FusedJob* j = arg;
  (void)status;
  for (int64_t r = 0; r < j->m; ++r) {
    float* row = j->out + r * j->n;
    for (int64_t c = 0; c < j->n; ++c) row[c] = 0.0f;
    for (int64_t q = 0; q < j->k; ++q) {
      float x = j->a[r * j->a_sm + q * j->a_sk];
      const float* brow = j->b + q * j->b_sk;
      for (int64_t c = 0; c < j->n; ++c) row[c] += x * brow[c * j->b_sn];
    }
    for (int64_t c = 0; c < j->n; ++c) {
      float v = row[c] + j->bias[c];
      row[c] = v > 0.0f || isnan(v) ? v : 0.0f;
    }
  }
}

static void* fused_create(TF_OpKernelConstruction* ctx) {
  FusedKernel* k = calloc(1, sizeof(*k));
  TF_Status* st = TF_NewStatus();
  TF_Bool ta = 0, tb = 0;
  if (k == NULL) {
    TF_SetStatus(st, TF_RESOURCE_EXHAUSTED, "demo_device: out of host memory creating a kernel");
  } else {
    TF_OpKernelConstruction_GetAttrBool(ctx, "transpose_a", &ta, st);
    if (TF_GetCode(st) == TF_OK) TF_OpKernelConstruction_GetAttrBool(ctx, "transpose_b", &tb, st);
  }
  if (TF_GetCode(st) != TF_OK) {
    TF_OpKernelConstruction_Failure(ctx, st);
    free(k);
    k = NULL;
  } else {
    k->transpose_a = ta != 0;
    k->transpose_b = tb != 0;
  }
  TF_DeleteStatus(st);
  return k;
}

static void fused_delete(void* state) { free(state); }

/* Nonzero when the tensor's buffer is device memory of the stream's device (or empty). */
static int fused_on_device(DemoStream* stream, const TF_Tensor* t, const char* what, TF_Status* st) {
  size_t bytes = TF_TensorByteSize(t);
  if (bytes == 0 || demo_arena_contains(&stream->device->arena, TF_TensorData(t), bytes)) return 1;
  char msg[256];
  snprintf(msg, sizeof(msg),
           "demo_device: %s of " FUSED_OP " is not device memory of " DEMO_DEVICE_TYPE_NAME
           ":%d (a host pointer or memory of another device was passed as a device pointer)",
           what, stream->device->ordinal);
  TF_SetStatus(st, TF_INVALID_ARGUMENT, msg);
  return 0;
}

static void fused_compute(void* state, TF_OpKernelContext* ctx) {
  static const char* const kInputs[] = {"input a", "input b", "input bias"};
  const FusedKernel* k = state;
  TF_Status* st = TF_NewStatus();
  TF_Tensor* in[3] = {NULL, NULL, NULL};
  TF_Tensor* out = NULL;
  FusedJob* j = NULL;
  int64_t m = 0, kk = 0, n = 0;
  SP_Stream stream = TF_GetStream(ctx, st);
  if (TF_GetCode(st) != TF_OK || !demo_stream_valid(stream)) {
    TF_SetStatus(st, TF_INTERNAL, "demo_device: the " FUSED_OP " kernel needs a stream of the " DEMO_DEVICE_TYPE_NAME
                                  " device");
    goto done;
  }
  for (int i = 0; i < 3; ++i) {
    TF_GetInput(ctx, i, &in[i], st);
    if (TF_GetCode(st) != TF_OK) goto done;
    if (TF_TensorType(in[i]) != TF_FLOAT) {
      TF_SetStatus(st, TF_UNIMPLEMENTED, "demo_device: " FUSED_OP " on " DEMO_DEVICE_TYPE_NAME " supports only float32");
      goto done;
    }
    if (!fused_on_device(stream, in[i], kInputs[i], st)) goto done;
  }
  if (!fused_op_shapes(in[0], in[1], in[2], k->transpose_a, k->transpose_b, &m, &kk, &n, st)) goto done;
  int64_t dims[2] = {m, n};
  out = TF_AllocateOutput(ctx, 0, TF_FLOAT, dims, 2, (size_t)(m * n) * sizeof(float), st);
  if (TF_GetCode(st) != TF_OK || m * n == 0) goto done;
  if (!fused_on_device(stream, out, "output 0", st)) goto done;
  j = calloc(1, sizeof(*j));
  if (j == NULL) {
    TF_SetStatus(st, TF_RESOURCE_EXHAUSTED, "demo_device: out of host memory launching a kernel");
    goto done;
  }
  int64_t a1 = TF_Dim(in[0], 1), b1 = TF_Dim(in[1], 1);
  *j = (FusedJob){.a = TF_TensorData(in[0]), .b = TF_TensorData(in[1]), .bias = TF_TensorData(in[2]),
                  .out = TF_TensorData(out), .m = m, .n = n, .k = kk,
                  .a_sm = k->transpose_a ? 1 : a1, .a_sk = k->transpose_a ? a1 : 1,
                  .b_sk = k->transpose_b ? 1 : b1, .b_sn = k->transpose_b ? b1 : 1};
  demo_stream_enqueue(stream, run_fused, free, j, st); /* owns j now, freed after the run or on failure */
done:
  if (TF_GetCode(st) != TF_OK) TF_OpKernelContext_Failure(ctx, st);
  for (int i = 0; i < 3; ++i)
    if (in[i] != NULL) TF_DeleteTensor(in[i]);
  if (out != NULL) TF_DeleteTensor(out);
  TF_DeleteStatus(st);
}

void demo_register_fused_kernel(TF_Status* st) {
  fused_op_register(st);
  if (TF_GetCode(st) == TF_OK) {
    TF_KernelBuilder* b = TF_NewKernelBuilder(FUSED_OP, DEMO_DEVICE_TYPE_NAME, fused_create, fused_compute,
                                              fused_delete);
    TF_KernelBuilder_TypeConstraint(b, "T", TF_FLOAT, st);
    if (TF_GetCode(st) == TF_OK)
      TF_RegisterKernelBuilder("DemoDevice" FUSED_OP, b, st);
    else
      TF_DeleteKernelBuilder(b);
  }
  if (TF_GetCode(st) != TF_OK)
    fprintf(stderr, "demo_device: registering " FUSED_OP " for " DEMO_DEVICE_TYPE_NAME " failed: %s\n",
            TF_Message(st));
}

/* The optimizer, for this device type only: a chain is fused when its nodes are placed here. */
DEMO_EXPORT void TF_InitGraph(TP_OptimizerRegistrationParams* params, TF_Status* status) {
  fused_optimizer_register(params, DEMO_DEVICE_TYPE_NAME, 1, status);
}

#else
typedef int demo_fused_kernel_not_built; /* ISO C wants a non-empty translation unit */
#endif /* DEMO_WITH_FUSED_OPTIMIZER */
