/* A small plugin for the discovery tests: op MtDisco with a CPU kernel producing 7 (or DISCO_VALUE). */
#include "tensorflow/c/kernels.h"
#include "tensorflow/c/ops.h"

#ifndef DISCO_OP
#define DISCO_OP "MtDisco"
#endif
#ifndef DISCO_VALUE
#define DISCO_VALUE 7.0f
#endif

static void compute(void* state, TF_OpKernelContext* ctx) {
  (void)state;
  TF_Status* s = TF_NewStatus();
  TF_Tensor* y = TF_AllocateOutput(ctx, 0, TF_FLOAT, NULL, 0, sizeof(float), s);
  if (TF_GetCode(s) == TF_OK) *(float*)TF_TensorData(y) = DISCO_VALUE;
  TF_DeleteTensor(y);
  TF_DeleteStatus(s);
}

void TF_InitKernel(void) {
  TF_Status* s = TF_NewStatus();
  TF_OpDefinitionBuilder* op = TF_NewOpDefinitionBuilder(DISCO_OP);
  TF_OpDefinitionBuilderAddOutput(op, "y: float");
  TF_RegisterOpDefinition(op, s);
  TF_RegisterKernelBuilder(DISCO_OP "Kernel", TF_NewKernelBuilder(DISCO_OP, "CPU", NULL, compute, NULL), s);
  TF_DeleteStatus(s);
}
