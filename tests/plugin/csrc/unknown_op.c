/* A plugin registering a kernel for an op nobody defined (accepted, as TensorFlow accepts it). */
#include "tensorflow/c/kernels.h"
#include "tensorflow/c/ops.h"

static void compute(void* state, TF_OpKernelContext* ctx) { (void)state, (void)ctx; }

void TF_InitKernel(void) {
  TF_Status* s = TF_NewStatus();
  TF_OpDefinitionBuilder* good = TF_NewOpDefinitionBuilder("MtUnknownOpGood");
  TF_OpDefinitionBuilderAddOutput(good, "y: float");
  TF_RegisterOpDefinition(good, s);
  TF_RegisterKernelBuilder("Orphan", TF_NewKernelBuilder("MtNoSuchOp", "CPU", NULL, compute, NULL), s);
  TF_DeleteStatus(s);
}
