/* modtensor shim: the functions of c_api.h and c_api_experimental.h that plugins call.
 *
 * Plugins written for TensorFlow ask the host for its version, the registered ops and
 * kernels, whether an op is stateful, and turn serialized TensorProtos into tensors
 * (Intel Extension for TensorFlow does all of these). The registries live in the Python
 * runtime, so these go through the callback table; the rest of c_api.h (graphs,
 * sessions, the eager API) is declared for source compatibility but not exported. */
#include <stdlib.h>
#include <string.h>

#include "mt_internal.h"

/* The TensorFlow release whose C API the headers declare. */
#define MT_TF_VERSION "2.21.0"

const char* TF_Version(void) { return MT_TF_VERSION; }

static TF_Buffer* registry_query(int what, const char* name, TF_Status* status, const char* function) {
  const MT_Callbacks* cb = MT_GetCallbacks();
  if (cb == NULL || cb->registry_query == NULL) {
    MT_NoRuntime(status, function);
    return NULL;
  }
  TF_SetStatus(status, TF_OK, "");
  return cb->registry_query(what, name, status);
}

TF_Buffer* TF_GetAllOpList(void) {
  TF_Status* status = TF_NewStatus();
  TF_Buffer* result = registry_query(MT_QUERY_OP_LIST, NULL, status, "TF_GetAllOpList");
  if (result == NULL) result = TF_NewBuffer(); /* TensorFlow's call cannot fail: an empty OpList */
  TF_DeleteStatus(status);
  return result;
}

TF_Buffer* TF_GetAllRegisteredKernels(TF_Status* status) {
  return registry_query(MT_QUERY_KERNEL_LIST, NULL, status, "TF_GetAllRegisteredKernels");
}

TF_Buffer* TF_GetRegisteredKernelsForOp(const char* name, TF_Status* status) {
  if (name == NULL) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "TF_GetRegisteredKernelsForOp: the op name is NULL");
    return NULL;
  }
  return registry_query(MT_QUERY_KERNEL_LIST, name, status, "TF_GetRegisteredKernelsForOp");
}

int TF_OpIsStateful(const char* op_type, TF_Status* status) {
  if (op_type == NULL) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "TF_OpIsStateful: the op type is NULL");
    return 0;
  }
  TF_Buffer* answer = registry_query(MT_QUERY_OP_IS_STATEFUL, op_type, status, "TF_OpIsStateful");
  int stateful = answer != NULL && answer->length == 1 && ((const char*)answer->data)[0] == '1';
  TF_DeleteBuffer(answer);
  return stateful;
}

void TF_TensorFromProto(const TF_Buffer* from, TF_Tensor* to, TF_Status* status) {
  TF_SetStatus(status, TF_OK, "");
  if (from == NULL || to == NULL) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "TF_TensorFromProto: NULL buffer or tensor");
    return;
  }
  const MT_Callbacks* cb = MT_GetCallbacks();
  if (cb == NULL || cb->tensor_from_proto == NULL) {
    MT_NoRuntime(status, "TF_TensorFromProto");
    return;
  }
  TF_Tensor* made = cb->tensor_from_proto(from->data, from->length, status);
  if (made == NULL) {
    if (TF_GetCode(status) == TF_OK) TF_SetStatus(status, TF_INVALID_ARGUMENT, "Could not parse input proto");
    return;
  }
  /* As TensorFlow: `to` now holds the parsed tensor (its old contents are released). */
  MT_Buffer* old = to->buffer;
  if (to->dims != to->inline_dims) free(to->dims);
  to->dtype = made->dtype;
  to->num_dims = made->num_dims;
  if (made->num_dims <= MT_INLINE_DIMS) {
    to->dims = to->inline_dims;
  } else {
    to->dims = (int64_t*)malloc(sizeof(int64_t) * (size_t)made->num_dims);
    if (to->dims == NULL) abort();
  }
  if (made->num_dims > 0) memcpy(to->dims, made->dims, sizeof(int64_t) * (size_t)made->num_dims);
  to->buffer = made->buffer;
  MT_BufferRef(to->buffer);
  TF_DeleteTensor(made);
  MT_BufferUnref(old);
}

void TF_MakeInternalErrorStatus(TF_Status* status, const char* errMsg) {
  TF_SetStatus(status, TF_INTERNAL, errMsg == NULL ? "" : errMsg);
}
