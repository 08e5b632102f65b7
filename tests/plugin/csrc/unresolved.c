/* A plugin calling a function the runtime does not export: dlopen must fail cleanly. */
#include "tensorflow/c/kernels.h"

extern void TF_NoSuchFunction(void);

void TF_InitKernel(void) { TF_NoSuchFunction(); }
