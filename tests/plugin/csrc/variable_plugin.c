/* A test plugin that reads and updates resource variables through the variable functions of
 * TensorFlow's kernels_experimental.h, as production CPU plugins do. It includes only
 * TensorFlow's C headers (it also builds against a TensorFlow wheel's and loads into TF with
 * tf.load_op_library, which is how the golden results were recorded).
 *
 * Ops (float32 variables):
 *   MtVarScaleAdd(resource, value) -> copies   var = 2 * var + value, in place, under the variable's lock
 *                                              (TF_MaybeLockVariableInputMutexesInOrder +
 *                                              TF_GetInputTensorFromVariable); `copies` counts the copyFunc
 *                                              calls the runtime asked for (copy-on-write of a shared value)
 *   MtVarAssign(resource, value)               TF_AssignVariable (attr validate_shape)
 *   MtVarUpdate(resource, value)               TF_AssignUpdateVariable with an updateFunc doing var += value
 *                                              (attr subtract: var -= value)
 *   MtVarSum(resource) -> sum, handle          a sparse read (TF_GetInputTensorFromVariable, sparse=true) and
 *                                              the serialized ResourceHandleProto of the input */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorflow/c/kernels.h"
#include "tensorflow/c/kernels_experimental.h"
#include "tensorflow/c/ops.h"
#include "tensorflow/c/tf_tensor.h"
#include "tensorflow/c/tf_tstring.h"

static int g_copies; /* updated with GCC's __atomic builtins (the file also builds as C++ for TF) */

/* copyFunc: the runtime hands a fresh buffer to fill from the shared one (host memory on CPU). */
static void copy_tensor(TF_OpKernelContext* ctx, TF_Tensor* source, TF_Tensor* dest) {
  (void)ctx;
  size_t n = TF_TensorByteSize(source);
  if (TF_TensorByteSize(dest) < n) n = TF_TensorByteSize(dest);
  memcpy(TF_TensorData(dest), TF_TensorData(source), n);
  __atomic_fetch_add(&g_copies, 1, __ATOMIC_SEQ_CST);
}

static int64_t num_elements(const TF_Tensor* t) { return TF_TensorElementCount(t); }

static void fail(TF_OpKernelContext* ctx, TF_Status* s) {
  if (TF_GetCode(s) != TF_OK) TF_OpKernelContext_Failure(ctx, s);
}

static void set_int_output(TF_OpKernelContext* ctx, int index, int32_t value, TF_Status* s) {
  TF_Tensor* out = TF_AllocateOutput(ctx, index, TF_INT32, NULL, 0, sizeof(int32_t), s);
  if (TF_GetCode(s) == TF_OK) *(int32_t*)TF_TensorData(out) = value;
  TF_DeleteTensor(out);
}

/* ---------------------------------------------------------------- MtVarScaleAdd */

static void scale_add_compute(void* state, TF_OpKernelContext* ctx) {
  (void)state;
  TF_Status* s = TF_NewStatus();
  int before = __atomic_load_n(&g_copies, __ATOMIC_SEQ_CST);
  const int inputs[1] = {0};
  TF_VariableInputLockHolder* holder = NULL;
  TF_MaybeLockVariableInputMutexesInOrder(ctx, true, false, inputs, 1, copy_tensor, &holder, s);
  if (TF_GetCode(s) != TF_OK) {
    fail(ctx, s);
    TF_DeleteStatus(s);
    return;
  }
  TF_Tensor* var = NULL;
  TF_Tensor* value = NULL;
  TF_GetInputTensorFromVariable(ctx, 0, true, false, false, copy_tensor, &var, s);
  if (TF_GetCode(s) == TF_OK) TF_GetInput(ctx, 1, &value, s);
  if (TF_GetCode(s) == TF_OK && num_elements(var) != num_elements(value)) {
    TF_SetStatus(s, TF_INVALID_ARGUMENT, "MtVarScaleAdd: the value must have as many elements as the variable");
  }
  if (TF_GetCode(s) == TF_OK) {
    float* v = (float*)TF_TensorData(var);
    const float* x = (const float*)TF_TensorData(value);
    for (int64_t i = 0; i < num_elements(var); ++i) v[i] = 2.0f * v[i] + x[i];
    set_int_output(ctx, 0, __atomic_load_n(&g_copies, __ATOMIC_SEQ_CST) - before, s);
  }
  fail(ctx, s);
  TF_DeleteTensor(var);
  TF_DeleteTensor(value);
  TF_ReleaseVariableInputLockHolder(holder);
  TF_DeleteStatus(s);
}

/* ---------------------------------------------------------------- MtVarAssign */

typedef struct AssignState {
  unsigned char validate_shape;
} AssignState;

static void* assign_create(TF_OpKernelConstruction* ctx) {
  AssignState* st = (AssignState*)calloc(1, sizeof *st);
  TF_Status* s = TF_NewStatus();
  TF_OpKernelConstruction_GetAttrBool(ctx, "validate_shape", &st->validate_shape, s);
  if (TF_GetCode(s) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s);
  TF_DeleteStatus(s);
  return st;
}

static void assign_compute(void* state, TF_OpKernelContext* ctx) {
  AssignState* st = (AssignState*)state;
  TF_Status* s = TF_NewStatus();
  TF_AssignVariable(ctx, 0, 1, st->validate_shape != 0, copy_tensor, s);
  fail(ctx, s);
  TF_DeleteStatus(s);
}

/* ---------------------------------------------------------------- MtVarUpdate */

enum { kAdd = 1, kSub = 2 };

typedef struct UpdateState {
  unsigned char subtract;
} UpdateState;

static void* update_create(TF_OpKernelConstruction* ctx) {
  UpdateState* st = (UpdateState*)calloc(1, sizeof *st);
  TF_Status* s = TF_NewStatus();
  TF_OpKernelConstruction_GetAttrBool(ctx, "subtract", &st->subtract, s);
  if (TF_GetCode(s) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s);
  TF_DeleteStatus(s);
  return st;
}

static void update_func(TF_OpKernelContext* ctx, TF_Tensor* tensor, TF_Tensor* value, int op) {
  (void)ctx;
  float* v = (float*)TF_TensorData(tensor);
  const float* x = (const float*)TF_TensorData(value);
  for (int64_t i = 0; i < num_elements(tensor); ++i) v[i] = op == kSub ? v[i] - x[i] : v[i] + x[i];
}

static void update_compute(void* state, TF_OpKernelContext* ctx) {
  UpdateState* st = (UpdateState*)state;
  TF_Status* s = TF_NewStatus();
  TF_AssignUpdateVariable(ctx, 0, 1, st->subtract ? kSub : kAdd, 0, copy_tensor, update_func, s);
  fail(ctx, s);
  TF_DeleteStatus(s);
}

/* ---------------------------------------------------------------- MtVarSum */

static void sum_compute(void* state, TF_OpKernelContext* ctx) {
  (void)state;
  TF_Status* s = TF_NewStatus();
  const int inputs[1] = {0};
  TF_VariableInputLockHolder* holder = NULL;
  TF_MaybeLockVariableInputMutexesInOrder(ctx, false, true, inputs, 1, copy_tensor, &holder, s);
  TF_Tensor* var = NULL;
  if (TF_GetCode(s) == TF_OK) TF_GetInputTensorFromVariable(ctx, 0, true, false, true, copy_tensor, &var, s);
  if (TF_GetCode(s) == TF_OK) {
    double total = 0;
    const float* v = (const float*)TF_TensorData(var);
    for (int64_t i = 0; i < num_elements(var); ++i) total += v[i];
    TF_Tensor* out = TF_AllocateOutput(ctx, 0, TF_FLOAT, NULL, 0, sizeof(float), s);
    if (TF_GetCode(s) == TF_OK) *(float*)TF_TensorData(out) = (float)total;
    TF_DeleteTensor(out);
  }
  if (TF_GetCode(s) == TF_OK) {
    TF_Buffer* proto = TF_NewBuffer();
    TF_GetSerializedResourceHandleProto(ctx, 0, proto, s);
    if (TF_GetCode(s) == TF_OK) {
      TF_Tensor* out = TF_AllocateOutput(ctx, 1, TF_STRING, NULL, 0, sizeof(TF_TString), s);
      if (TF_GetCode(s) == TF_OK) {
        TF_TString* text = (TF_TString*)TF_TensorData(out);
        TF_TString_Init(text);
        TF_TString_Copy(text, (const char*)proto->data, proto->length);
      }
      TF_DeleteTensor(out);
    }
    TF_DeleteBuffer(proto);
  }
  fail(ctx, s);
  TF_DeleteTensor(var);
  TF_ReleaseVariableInputLockHolder(holder);
  TF_DeleteStatus(s);
}

/* ---------------------------------------------------------------- registration */

static void scalar_output(TF_ShapeInferenceContext* ctx, int count, TF_Status* status) {
  TF_ShapeHandle* h = TF_ShapeInferenceContextScalar(ctx);
  for (int i = 0; i < count && TF_GetCode(status) == TF_OK; ++i) TF_ShapeInferenceContextSetOutput(ctx, i, h, status);
  TF_DeleteShapeHandle(h);
}

static void one_scalar(TF_ShapeInferenceContext* ctx, TF_Status* status) { scalar_output(ctx, 1, status); }

static void two_scalars(TF_ShapeInferenceContext* ctx, TF_Status* status) { scalar_output(ctx, 2, status); }

static void register_op(const char* name, const char** inputs, const char** outputs, const char* attr,
                        void (*shape_fn)(TF_ShapeInferenceContext*, TF_Status*)) {
  TF_Status* s = TF_NewStatus();
  TF_OpDefinitionBuilder* b = TF_NewOpDefinitionBuilder(name);
  for (; *inputs; ++inputs) TF_OpDefinitionBuilderAddInput(b, *inputs);
  for (; outputs && *outputs; ++outputs) TF_OpDefinitionBuilderAddOutput(b, *outputs);
  if (attr != NULL) TF_OpDefinitionBuilderAddAttr(b, attr);
  TF_OpDefinitionBuilderSetIsStateful(b, true);
  if (shape_fn != NULL) TF_OpDefinitionBuilderSetShapeInferenceFunction(b, shape_fn);
  TF_RegisterOpDefinition(b, s);
  if (TF_GetCode(s) != TF_OK) fprintf(stderr, "variable_plugin: registering %s: %s\n", name, TF_Message(s));
  TF_DeleteStatus(s);
}

static void register_kernel(TF_KernelBuilder* b, const char* name) {
  TF_Status* s = TF_NewStatus();
  TF_RegisterKernelBuilder(name, b, s);
  if (TF_GetCode(s) != TF_OK) fprintf(stderr, "variable_plugin: registering %s: %s\n", name, TF_Message(s));
  TF_DeleteStatus(s);
}

void TF_InitKernel(void) {
  const char* rv[] = {"resource: resource", "value: float", NULL};
  const char* r[] = {"resource: resource", NULL};
  const char* copies[] = {"copies: int32", NULL};
  const char* sum[] = {"sum: float", "handle: string", NULL};
  register_op("MtVarScaleAdd", rv, copies, NULL, one_scalar);
  register_op("MtVarAssign", rv, NULL, "validate_shape: bool = false", NULL);
  register_op("MtVarUpdate", rv, NULL, "subtract: bool = false", NULL);
  register_op("MtVarSum", r, sum, NULL, two_scalars);
  register_kernel(TF_NewKernelBuilder("MtVarScaleAdd", "CPU", NULL, scale_add_compute, NULL), "MtVarScaleAddOp");
  register_kernel(TF_NewKernelBuilder("MtVarAssign", "CPU", assign_create, assign_compute, free), "MtVarAssignOp");
  register_kernel(TF_NewKernelBuilder("MtVarUpdate", "CPU", update_create, update_compute, free), "MtVarUpdateOp");
  register_kernel(TF_NewKernelBuilder("MtVarSum", "CPU", NULL, sum_compute, NULL), "MtVarSumOp");
}
