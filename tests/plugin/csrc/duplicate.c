/* A plugin registering the same kernel twice. */
#include "tensorflow/c/kernels.h"
#include "tensorflow/c/ops.h"

static void compute(void* state, TF_OpKernelContext* ctx) { (void)state, (void)ctx; }

void TF_InitKernel(void) {
  TF_Status* s = TF_NewStatus();
  TF_OpDefinitionBuilder* op = TF_NewOpDefinitionBuilder("MtDuplicate");
  TF_OpDefinitionBuilderAddOutput(op, "y: float");
  TF_RegisterOpDefinition(op, s);
  TF_RegisterKernelBuilder("First", TF_NewKernelBuilder("MtDuplicate", "CPU", NULL, compute, NULL), s);
  TF_RegisterKernelBuilder("Second", TF_NewKernelBuilder("MtDuplicate", "CPU", NULL, compute, NULL), s);
  TF_DeleteStatus(s);
}
