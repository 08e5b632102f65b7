/* TensorFlow's kernel registration semantics, as a third-party plugin meets them.

   TF_InitKernel registers, each time checking that TF_RegisterKernelBuilder reports TF_OK:
   - a kernel for MtSemLate, an op no library has registered yet (late_op.cc registers it later);
   - a second CPU kernel for built-in ops that have one: Elu at priority 1 (chosen over the
     built-in), Relu6 at priority -1 (the built-in stays), Relu at the same priority (lookup fails);
   - two identical kernels for MtSemDup (also registered later by late_op.cc; lookup fails).
   Each kernel fills its output with its own number, so a test sees which one ran.
   kernel_semantics_failures() returns how many registrations did not report TF_OK. */
#include <stdint.h>

#include "tensorflow/c/kernels.h"
#include "tensorflow/c/ops.h"

static int failures = 0;

static void fill(TF_OpKernelContext* ctx, float value) {
  TF_Status* s = TF_NewStatus();
  TF_Tensor* in = NULL;
  TF_GetInput(ctx, 0, &in, s);
  if (TF_GetCode(s) == TF_OK) {
    int64_t dims[8];
    int rank = TF_NumDims(in);
    for (int i = 0; i < rank && i < 8; ++i) dims[i] = TF_Dim(in, i);
    size_t n = (size_t)TF_TensorElementCount(in);
    TF_Tensor* out = TF_AllocateOutput(ctx, 0, TF_FLOAT, dims, rank, n * sizeof(float), s);
    if (TF_GetCode(s) == TF_OK) {
      float* data = (float*)TF_TensorData(out);
      for (size_t i = 0; i < n; ++i) data[i] = value;
    }
    TF_DeleteTensor(out);
  }
  if (TF_GetCode(s) != TF_OK) TF_OpKernelContext_Failure(ctx, s);
  TF_DeleteTensor(in);
  TF_DeleteStatus(s);
}

static void one(void* k, TF_OpKernelContext* ctx) { (void)k; fill(ctx, 1.0f); }
static void two(void* k, TF_OpKernelContext* ctx) { (void)k; fill(ctx, 2.0f); }
static void three(void* k, TF_OpKernelContext* ctx) { (void)k; fill(ctx, 3.0f); }

static void add_kernel(const char* name, const char* op, int32_t priority,
                       void (*compute)(void*, TF_OpKernelContext*)) {
  TF_Status* s = TF_NewStatus();
  TF_KernelBuilder* builder = TF_NewKernelBuilder(op, "CPU", NULL, compute, NULL);
  TF_KernelBuilder_TypeConstraint(builder, "T", TF_FLOAT, s);
  if (priority != 0) TF_KernelBuilder_Priority(builder, priority);
  TF_RegisterKernelBuilder(name, builder, s);
  if (TF_GetCode(s) != TF_OK) ++failures;
  TF_DeleteStatus(s);
}

#ifdef __cplusplus
extern "C" {
#endif

__attribute__((visibility("default"))) int kernel_semantics_failures(void) { return failures; }

__attribute__((visibility("default"))) void TF_InitKernel(void) {
  add_kernel("SemLate", "MtSemLate", 0, one);
  add_kernel("SemEluHigh", "Elu", 1, two);
  add_kernel("SemRelu6Low", "Relu6", -1, three);
  add_kernel("SemReluSame", "Relu", 0, three);
  add_kernel("SemDupFirst", "MtSemDup", 0, one);
  add_kernel("SemDupSecond", "MtSemDup", 0, two);
}

#ifdef __cplusplus
}
#endif
