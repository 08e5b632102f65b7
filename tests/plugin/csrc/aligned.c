/* A plugin that checks what Eigen/oneDNN-based plugins check: every buffer it is handed or
   allocates is on TensorFlow's 64-byte alignment (TF_TensorIsAligned).

   MtAlignCheck(x: T, attr value: tensor) -> y: int32 (number of unaligned buffers seen among the
   input, the tensor attr, an output allocated with TF_AllocateOutput and a TF_AllocateTemp). */
#include <stdint.h>
#include <stdlib.h>

#include "tensorflow/c/kernels.h"
#include "tensorflow/c/ops.h"

typedef struct {
  int attr_unaligned;
} State;

static void* create(TF_OpKernelConstruction* ctx) {
  State* state = (State*)malloc(sizeof(State));
  TF_Status* s = TF_NewStatus();
  TF_Tensor* value = NULL;
  TF_OpKernelConstruction_GetAttrTensor(ctx, "value", &value, s);
  state->attr_unaligned = TF_GetCode(s) != TF_OK || !TF_TensorIsAligned(value);
  TF_DeleteTensor(value);
  TF_DeleteStatus(s);
  return state;
}

static void destroy(void* state) { free(state); }

static void compute(void* kernel, TF_OpKernelContext* ctx) {
  State* state = (State*)kernel;
  TF_Status* s = TF_NewStatus();
  TF_Tensor* x = NULL;
  TF_GetInput(ctx, 0, &x, s);
  int unaligned = state->attr_unaligned + (x == NULL || !TF_TensorIsAligned(x));
  int64_t dims[1] = {1000};
  TF_Tensor* temp = TF_AllocateTemp(ctx, TF_FLOAT, dims, 1, NULL, s);
  unaligned += temp == NULL || !TF_TensorIsAligned(temp);
  TF_Tensor* y = TF_AllocateOutput(ctx, 0, TF_INT32, NULL, 0, sizeof(int32_t), s);
  if (y != NULL) {
    unaligned += !TF_TensorIsAligned(y);
    *(int32_t*)TF_TensorData(y) = unaligned;
  }
  if (TF_GetCode(s) != TF_OK) TF_OpKernelContext_Failure(ctx, s);
  TF_DeleteTensor(y);
  TF_DeleteTensor(temp);
  TF_DeleteTensor(x);
  TF_DeleteStatus(s);
}

static void scalar_shape(TF_ShapeInferenceContext* ctx, TF_Status* status) {
  TF_ShapeHandle* scalar = TF_ShapeInferenceContextScalar(ctx);
  TF_ShapeInferenceContextSetOutput(ctx, 0, scalar, status);
  TF_DeleteShapeHandle(scalar);
}

void TF_InitKernel(void) {
  TF_Status* s = TF_NewStatus();
  TF_OpDefinitionBuilder* op = TF_NewOpDefinitionBuilder("MtAlignCheck");
  TF_OpDefinitionBuilderAddInput(op, "x: T");
  TF_OpDefinitionBuilderAddOutput(op, "y: int32");
  TF_OpDefinitionBuilderAddAttr(op, "T: {float, double, int32}");
  TF_OpDefinitionBuilderAddAttr(op, "value: tensor");
  TF_OpDefinitionBuilderSetShapeInferenceFunction(op, scalar_shape);
  TF_RegisterOpDefinition(op, s);
  TF_RegisterKernelBuilder("MtAlignCheck", TF_NewKernelBuilder("MtAlignCheck", "CPU", create, compute, destroy), s);
  TF_DeleteStatus(s);
}
