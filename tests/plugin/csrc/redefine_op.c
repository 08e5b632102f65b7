/* A plugin redefining a built-in op. */
#include "tensorflow/c/ops.h"

void TF_InitKernel(void) {
  TF_Status* s = TF_NewStatus();
  TF_OpDefinitionBuilder* relu = TF_NewOpDefinitionBuilder("Relu");
  TF_OpDefinitionBuilderAddInput(relu, "x: float");
  TF_OpDefinitionBuilderAddOutput(relu, "y: float");
  TF_RegisterOpDefinition(relu, s);
  TF_DeleteStatus(s);
}
