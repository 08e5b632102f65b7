/* A plugin whose initialisation fails half-way: a good op, then an op with a malformed spec. */
#include "tensorflow/c/ops.h"

void TF_InitKernel(void) {
  TF_Status* s = TF_NewStatus();
  TF_OpDefinitionBuilder* good = TF_NewOpDefinitionBuilder("MtBadSpecGood");
  TF_OpDefinitionBuilderAddOutput(good, "y: float");
  TF_RegisterOpDefinition(good, s);
  TF_OpDefinitionBuilder* bad = TF_NewOpDefinitionBuilder("MtBadSpec");
  TF_OpDefinitionBuilderAddInput(bad, "x: NoSuchType");
  TF_RegisterOpDefinition(bad, s); /* the plugin ignores the error status: modtensor does not */
  TF_DeleteStatus(s);
}
