/* A plugin with entry points of features modtensor does not run yet: they are recorded. */
#include "tensorflow/c/experimental/pluggable_profiler/pluggable_profiler.h"
#include "tensorflow/c/experimental/stream_executor/stream_executor.h"
#include "tensorflow/c/kernels.h"
#include "tensorflow/c/ops.h"

void TF_InitProfiler(TF_ProfilerRegistrationParams* params, TF_Status* status) {
  (void)params;
  TF_SetStatus(status, TF_INTERNAL, "TF_InitProfiler must not be called yet");
}

void TF_InitKernel(void) {
  TF_Status* s = TF_NewStatus();
  TF_OpDefinitionBuilder* op = TF_NewOpDefinitionBuilder("MtRecorded");
  TF_OpDefinitionBuilderAddOutput(op, "y: float");
  TF_RegisterOpDefinition(op, s);
  TF_DeleteStatus(s);
}
