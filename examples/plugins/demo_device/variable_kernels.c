/* float32 variable-update kernels of the demo device: AssignAddVariableOp, AssignSubVariableOp and
 * ResourceApplyGradientDescent for DEMO_DEVICE_TYPE, registered by TF_InitKernel.
 *
 * The variable bookkeeping is the runtime's (kernels_experimental.h): the kernels find the
 * variable's device buffer with TF_AssignUpdateVariable / TF_MaybeLockVariableInputMutexesInOrder +
 * TF_GetInputTensorFromVariable, and the runtime calls back into the plugin for the device work:
 * copy_on_stream when the variable's buffer is shared (copy-on-write) and update_on_stream for the
 * arithmetic. Both enqueue on the compute stream, like every kernel of this device, so the update
 * runs after the work that produced its inputs and returns before the numbers exist. The resource
 * input is host memory (HostMemory), the values are device memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo_device.h"
#include "tensorflow/c/kernels.h"
#include "tensorflow/c/kernels_experimental.h"
#include "tensorflow/c/tf_tensor.h"

enum VarOp { VAR_COPY = 0, VAR_ADD = 1, VAR_SUB = 2, VAR_SGD = 3 };

typedef struct VarJob {
  enum VarOp op;
  float* var;
  const float* value; /* source of a copy, the addend, or the gradient */
  const float* alpha; /* VAR_SGD: the learning rate, a device scalar */
  int64_t count;
} VarJob;

static void run_var_job(void* arg, TF_Status* status) {
  const VarJob* j = arg;
  (void)status;
  switch (j->op) {
    case VAR_COPY:
      memcpy(j->var, j->value, (size_t)j->count * sizeof(float));
      break;
    case VAR_ADD:
      for (int64_t i = 0; i < j->count; ++i) j->var[i] += j->value[i];
      break;
    case VAR_SUB:
      for (int64_t i = 0; i < j->count; ++i) j->var[i] -= j->value[i];
      break;
    case VAR_SGD: {
      const float alpha = *j->alpha; /* TF's ApplyGradientDescent: var -= grad * lr */
      for (int64_t i = 0; i < j->count; ++i) j->var[i] -= j->value[i] * alpha;
      break;
    }
  }
}

static void report(TF_OpKernelContext* ctx, TF_Code code, const char* message) {
  TF_Status* st = TF_NewStatus();
  TF_SetStatus(st, code, message);
  TF_OpKernelContext_Failure(ctx, st);
  TF_DeleteStatus(st);
}

/* The compute stream of the kernel's device, or NULL after reporting why not. */
static DemoStream* kernel_stream(TF_OpKernelContext* ctx) {
  TF_Status* st = TF_NewStatus();
  SP_Stream stream = TF_GetStream(ctx, st);
  int ok = TF_GetCode(st) == TF_OK && demo_stream_valid(stream);
  TF_DeleteStatus(st);
  if (!ok) {
    report(ctx, TF_INTERNAL, "demo_device: a variable kernel needs a stream of the " DEMO_DEVICE_TYPE_NAME " device");
    return NULL;
  }
  return stream;
}

static int on_stream_device(TF_OpKernelContext* ctx, DemoStream* stream, const TF_Tensor* t, const char* what) {
  size_t bytes = TF_TensorByteSize(t);
  if (bytes == 0 || demo_arena_contains(&stream->device->arena, TF_TensorData(t), bytes)) return 1;
  char msg[256];
  snprintf(msg, sizeof(msg), "demo_device: %s is not device memory of " DEMO_DEVICE_TYPE_NAME ":%d", what,
           stream->device->ordinal);
  report(ctx, TF_INVALID_ARGUMENT, msg);
  return 0;
}

/* Enqueue `op` on the kernel's stream over `var` and `value` (both device memory). */
static void enqueue(TF_OpKernelContext* ctx, enum VarOp op, TF_Tensor* var, const TF_Tensor* value,
                    const TF_Tensor* alpha) {
  DemoStream* stream = kernel_stream(ctx);
  if (stream == NULL || !on_stream_device(ctx, stream, var, "the variable") ||
      !on_stream_device(ctx, stream, value, "the update's value") ||
      (alpha != NULL && !on_stream_device(ctx, stream, alpha, "alpha"))) {
    return;
  }
  int64_t count = TF_TensorElementCount(var);
  if (count == 0) return;
  VarJob* j = calloc(1, sizeof(*j));
  if (j == NULL) {
    report(ctx, TF_RESOURCE_EXHAUSTED, "demo_device: out of host memory launching a variable update");
    return;
  }
  j->op = op;
  j->var = TF_TensorData(var);
  j->value = TF_TensorData(value);
  j->alpha = alpha != NULL ? TF_TensorData(alpha) : NULL;
  j->count = count;
  TF_Status* st = TF_NewStatus();
  if (!demo_stream_enqueue(stream, run_var_job, free, j, st)) TF_OpKernelContext_Failure(ctx, st);
  TF_DeleteStatus(st);
}

/* copyFunc: the runtime gives the variable a fresh buffer; fill it from the shared one, on the stream. */
static void copy_on_stream(TF_OpKernelContext* ctx, TF_Tensor* source, TF_Tensor* dest) {
  enqueue(ctx, VAR_COPY, dest, source, NULL);
}

/* updateFunc of TF_AssignUpdateVariable: `op` is what the kernel passed (VAR_ADD or VAR_SUB). */
static void update_on_stream(TF_OpKernelContext* ctx, TF_Tensor* var, TF_Tensor* value, int op) {
  enqueue(ctx, (enum VarOp)op, var, value, NULL);
}

typedef struct VarKernel {
  enum VarOp op;
} VarKernel;

static void* create_assign_add(TF_OpKernelConstruction* ctx) {
  (void)ctx;
  VarKernel* k = calloc(1, sizeof(*k));
  if (k != NULL) k->op = VAR_ADD;
  return k;
}

static void* create_assign_sub(TF_OpKernelConstruction* ctx) {
  (void)ctx;
  VarKernel* k = calloc(1, sizeof(*k));
  if (k != NULL) k->op = VAR_SUB;
  return k;
}

static void assign_update_compute(void* state, TF_OpKernelContext* ctx) {
  const VarKernel* k = state;
  TF_Status* st = TF_NewStatus();
  TF_AssignUpdateVariable(ctx, 0, 1, (int)k->op, 0, copy_on_stream, update_on_stream, st);
  /* failures were reported on the context (as TF's OP_REQUIRES do); the status says the same */
  TF_DeleteStatus(st);
}

static void apply_gradient_descent_compute(void* state, TF_OpKernelContext* ctx) {
  (void)state;
  TF_Status* st = TF_NewStatus();
  const int inputs[1] = {0};
  TF_VariableInputLockHolder* holder = NULL;
  TF_Tensor* var = NULL;
  TF_Tensor* alpha = NULL;
  TF_Tensor* delta = NULL;
  TF_MaybeLockVariableInputMutexesInOrder(ctx, true, false, inputs, 1, copy_on_stream, &holder, st);
  if (TF_GetCode(st) == TF_OK) TF_GetInputTensorFromVariable(ctx, 0, true, false, false, copy_on_stream, &var, st);
  if (TF_GetCode(st) == TF_OK) TF_GetInput(ctx, 1, &alpha, st);
  if (TF_GetCode(st) == TF_OK) TF_GetInput(ctx, 2, &delta, st);
  if (TF_GetCode(st) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, st);
  } else if (TF_NumDims(alpha) != 0) {
    report(ctx, TF_INVALID_ARGUMENT, "alpha is not a scalar");
  } else if (TF_TensorElementCount(var) != TF_TensorElementCount(delta) || TF_NumDims(var) != TF_NumDims(delta)) {
    report(ctx, TF_INVALID_ARGUMENT, "var and delta do not have the same shape");
  } else {
    enqueue(ctx, VAR_SGD, var, delta, alpha);
  }
  TF_DeleteTensor(var);
  TF_DeleteTensor(alpha);
  TF_DeleteTensor(delta);
  TF_ReleaseVariableInputLockHolder(holder);
  TF_DeleteStatus(st);
}

static void register_variable_kernel(const char* op, const char* type_attr, const char* host_arg,
                                     void* (*create)(TF_OpKernelConstruction*),
                                     void (*compute)(void*, TF_OpKernelContext*), TF_Status* st) {
  TF_KernelBuilder* b = TF_NewKernelBuilder(op, DEMO_DEVICE_TYPE_NAME, create, compute, free);
  TF_KernelBuilder_TypeConstraint(b, type_attr, TF_FLOAT, st);
  if (TF_GetCode(st) == TF_OK) TF_KernelBuilder_HostMemory(b, host_arg);
  if (TF_GetCode(st) != TF_OK) {
    TF_DeleteKernelBuilder(b);
  } else {
    char kernel_name[64];
    snprintf(kernel_name, sizeof(kernel_name), "DemoDevice%s", op);
    TF_RegisterKernelBuilder(kernel_name, b, st);
  }
  if (TF_GetCode(st) != TF_OK)
    fprintf(stderr, "demo_device: registering the %s kernel for " DEMO_DEVICE_TYPE_NAME " failed: %s\n", op,
            TF_Message(st));
}

static void* create_none(TF_OpKernelConstruction* ctx) {
  (void)ctx;
  return calloc(1, 1);
}

void demo_register_variable_kernels(TF_Status* st) {
  register_variable_kernel("AssignAddVariableOp", "dtype", "resource", create_assign_add, assign_update_compute, st);
  register_variable_kernel("AssignSubVariableOp", "dtype", "resource", create_assign_sub, assign_update_compute, st);
  register_variable_kernel("ResourceApplyGradientDescent", "T", "var", create_none, apply_gradient_descent_compute,
                           st);
}
