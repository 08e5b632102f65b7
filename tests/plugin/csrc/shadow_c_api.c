/* Stands in for another copy of TensorFlow's C API (e.g. TensorFlow itself) loaded globally before
 * modtensor's shim: it defines TF_NewStatus, so plugins loaded afterwards would bind to it. */
#include <stddef.h>

void* TF_NewStatus(void) { return NULL; }
