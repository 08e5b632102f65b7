/* A deliberately broken kernel (writes one element past its buffer): the control that shows the
 * AddressSanitizer run of tests/plugin/test_asan.py really instruments plugin code. The buffer holds 5
 * floats (20 bytes, not a multiple of ASan's 8-byte granule), so the stray write lands in the unused tail
 * of its own heap chunk: reported, without overwriting the header of whichever chunk comes next (a 16-byte
 * buffer's overflow did, and freeing that neighbour later made a second, spurious report). */
#include <stdlib.h>

#include "tensorflow/c/kernels.h"
#include "tensorflow/c/ops.h"

static void free_memory(void* data, size_t len, void* arg) {
  (void)len, (void)arg;
  free(data);
}

static void compute(void* state, TF_OpKernelContext* ctx) {
  (void)state;
  TF_Status* s = TF_NewStatus();
  int64_t dims[1] = {5};
  float* data = (float*)malloc(5 * sizeof(float));
  for (int i = 0; i <= 5; ++i) data[i] = (float)i; /* the bug */
  TF_Tensor* y = TF_NewTensor(TF_FLOAT, dims, 1, data, 5 * sizeof(float), free_memory, NULL);
  TF_SetOutput(ctx, 0, y, s);
  TF_DeleteTensor(y);
  TF_DeleteStatus(s);
}

void TF_InitKernel(void) {
  TF_Status* s = TF_NewStatus();
  TF_OpDefinitionBuilder* op = TF_NewOpDefinitionBuilder("MtOverflow");
  TF_OpDefinitionBuilderAddOutput(op, "y: float");
  TF_RegisterOpDefinition(op, s);
  TF_RegisterKernelBuilder("MtOverflowKernel", TF_NewKernelBuilder("MtOverflow", "CPU", NULL, compute, NULL), s);
  TF_DeleteStatus(s);
}
