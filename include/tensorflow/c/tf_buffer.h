/* modtensor: TensorFlow-compatible C API headers (Apache-2.0, see the modtensor LICENSE).
 *
 * TF_Buffer: a byte range plus the function that frees it. Serialized protos
 * (NodeDef, GraphDef, OpDef, ...) cross the plugin boundary in these. */
#ifndef MODTENSOR_INCLUDE_TENSORFLOW_C_TF_BUFFER_H_
#define MODTENSOR_INCLUDE_TENSORFLOW_C_TF_BUFFER_H_

#include <stddef.h>

#include "tensorflow/c/c_api_macros.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TF_Buffer {
  const void* data;
  size_t length;
  /* Called by TF_DeleteBuffer with (data, length); NULL when the buffer does
   * not own `data`. */
  void (*data_deallocator)(void* data, size_t length);
} TF_Buffer;

/* A buffer owning a copy of `proto_len` bytes at `proto`. */
TF_CAPI_EXPORT extern TF_Buffer* TF_NewBufferFromString(const void* proto, size_t proto_len);

/* An empty buffer (data NULL, length 0) for a callee to fill. */
TF_CAPI_EXPORT extern TF_Buffer* TF_NewBuffer(void);

/* Runs the deallocator, if any, and frees the buffer itself. */
TF_CAPI_EXPORT extern void TF_DeleteBuffer(TF_Buffer*);

/* A shallow copy of the struct. */
TF_CAPI_EXPORT extern TF_Buffer TF_GetBuffer(TF_Buffer* buffer);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MODTENSOR_INCLUDE_TENSORFLOW_C_TF_BUFFER_H_ */
