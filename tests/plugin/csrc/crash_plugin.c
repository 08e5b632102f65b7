/* A plugin that crashes on purpose, for the crash reports and `modtensor check`.
 *
 * Op MtCrash(x: float) -> y: float with attr how: string: the CPU kernel's compute copies x to y
 * when how is "none", dereferences NULL for "segv", and calls abort() for "abort".
 * Op MtCrashCopy(x: float) -> y: float: a kernel that works (so a check has something that passes).
 * Op MtCrashAlways(x: float) -> y: float: a kernel that always dereferences NULL (`modtensor check` meets it).
 * Op MtCrashThread(x: float) -> y: float: a kernel whose own worker thread dereferences NULL.
 * Op MtCrashHang(x: float) -> y: float: a kernel that never returns.
 * With MT_CRASH_AT_LOAD=init set in the environment, TF_InitKernel itself segfaults. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tensorflow/c/kernels.h"
#include "tensorflow/c/ops.h"

typedef struct {
  int how; /* 0 none, 1 segv, 2 abort */
} CrashState;

static void* crash_create(TF_OpKernelConstruction* ctx) {
  CrashState* state = (CrashState*)calloc(1, sizeof(CrashState));
  char how[16] = {0};
  TF_Status* s = TF_NewStatus();
  TF_OpKernelConstruction_GetAttrString(ctx, "how", how, sizeof how - 1, s);
  if (TF_GetCode(s) == TF_OK) {
    if (strcmp(how, "segv") == 0) state->how = 1;
    if (strcmp(how, "abort") == 0) state->how = 2;
  }
  TF_DeleteStatus(s);
  return state;
}

static void crash_delete(void* state) { free(state); }

static void copy_input(TF_OpKernelContext* ctx) {
  TF_Status* s = TF_NewStatus();
  TF_Tensor* x = NULL;
  TF_GetInput(ctx, 0, &x, s);
  if (TF_GetCode(s) == TF_OK) {
    TF_Tensor* y = TF_AllocateOutput(ctx, 0, TF_FLOAT, NULL, 0, TF_TensorByteSize(x), s);
    int64_t dims[8];
    int n = TF_NumDims(x);
    for (int i = 0; i < n && i < 8; ++i) dims[i] = TF_Dim(x, i);
    TF_DeleteTensor(y);
    y = TF_AllocateOutput(ctx, 0, TF_FLOAT, dims, n, TF_TensorByteSize(x), s);
    if (TF_GetCode(s) == TF_OK) memcpy(TF_TensorData(y), TF_TensorData(x), TF_TensorByteSize(x));
    TF_DeleteTensor(y);
  }
  if (TF_GetCode(s) != TF_OK) TF_OpKernelContext_Failure(ctx, s);
  TF_DeleteTensor(x);
  TF_DeleteStatus(s);
}

static void crash_compute(void* state, TF_OpKernelContext* ctx) {
  int how = ((CrashState*)state)->how;
  if (how == 1) {
    volatile int* nowhere = NULL;
    *nowhere = 42;
  } else if (how == 2) {
    abort();
  }
  copy_input(ctx);
}

static void always_compute(void* state, TF_OpKernelContext* ctx) {
  (void)state;
  (void)ctx;
  volatile int* nowhere = NULL;
  *nowhere = 7;
}

static void* crash_in_thread(void* arg) {
  (void)arg;
  volatile int* nowhere = NULL;
  *nowhere = 9;
  return NULL;
}

static void thread_compute(void* state, TF_OpKernelContext* ctx) {
  (void)state;
  (void)ctx;
  pthread_t worker;
  if (pthread_create(&worker, NULL, crash_in_thread, NULL) == 0) pthread_join(worker, NULL);
}

static void hang_compute(void* state, TF_OpKernelContext* ctx) {
  (void)state;
  (void)ctx;
  for (;;) sleep(60);
}

static void copy_compute(void* state, TF_OpKernelContext* ctx) {
  (void)state;
  copy_input(ctx);
}

static void same_shape(TF_ShapeInferenceContext* ctx, TF_Status* status) {
  TF_ShapeHandle* shape = TF_NewShapeHandle();
  TF_ShapeInferenceContextGetInput(ctx, 0, shape, status);
  if (TF_GetCode(status) == TF_OK) TF_ShapeInferenceContextSetOutput(ctx, 0, shape, status);
  TF_DeleteShapeHandle(shape);
}

static void register_op(const char* name, int with_how, TF_Status* s) {
  TF_OpDefinitionBuilder* op = TF_NewOpDefinitionBuilder(name);
  TF_OpDefinitionBuilderAddInput(op, "x: float");
  TF_OpDefinitionBuilderAddOutput(op, "y: float");
  if (with_how) TF_OpDefinitionBuilderAddAttr(op, "how: string = 'none'");
  TF_OpDefinitionBuilderSetShapeInferenceFunction(op, &same_shape);
  TF_RegisterOpDefinition(op, s);
}

void TF_InitKernel(void) {
  const char* at_load = getenv("MT_CRASH_AT_LOAD");
  if (at_load != NULL && strcmp(at_load, "init") == 0) {
    volatile int* nowhere = NULL;
    *nowhere = 1;
  }
  TF_Status* s = TF_NewStatus();
  register_op("MtCrash", 1, s);
  register_op("MtCrashCopy", 0, s);
  register_op("MtCrashAlways", 0, s);
  register_op("MtCrashThread", 0, s);
  register_op("MtCrashHang", 0, s);
  TF_KernelBuilder* crash = TF_NewKernelBuilder("MtCrash", "CPU", &crash_create, &crash_compute, &crash_delete);
  TF_RegisterKernelBuilder("MtCrashOp", crash, s);
  TF_KernelBuilder* copy = TF_NewKernelBuilder("MtCrashCopy", "CPU", NULL, &copy_compute, NULL);
  TF_RegisterKernelBuilder("MtCrashCopyOp", copy, s);
  TF_KernelBuilder* always = TF_NewKernelBuilder("MtCrashAlways", "CPU", NULL, &always_compute, NULL);
  TF_RegisterKernelBuilder("MtCrashAlwaysOp", always, s);
  TF_RegisterKernelBuilder("MtCrashThreadOp", TF_NewKernelBuilder("MtCrashThread", "CPU", NULL, &thread_compute, NULL), s);
  TF_RegisterKernelBuilder("MtCrashHangOp", TF_NewKernelBuilder("MtCrashHang", "CPU", NULL, &hang_compute, NULL), s);
  TF_DeleteStatus(s);
}
