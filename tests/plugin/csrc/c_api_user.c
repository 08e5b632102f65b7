/* A plugin using c_api.h / c_api_experimental.h functions as TensorFlow plugins do (ITEX does all of
   these): the host's version, the registered ops and kernels, whether an op is stateful, and a
   serialized TensorProto made into a tensor. c_api_query() runs them when asked (from the test). */
#include <stdio.h>
#include <string.h>

#include "tensorflow/c/c_api.h"
#include "tensorflow/c/c_api_experimental.h"
#include "tensorflow/c/kernels.h"

__attribute__((visibility("default"))) const char* c_api_version(void) { return TF_Version(); }

/* Sizes of the serialized OpList and of the KernelList of `op` (-1 on error, the message in `error`). */
__attribute__((visibility("default"))) long c_api_op_list_size(void) {
  TF_Buffer* ops = TF_GetAllOpList();
  long size = (long)ops->length;
  TF_DeleteBuffer(ops);
  return size;
}

__attribute__((visibility("default"))) long c_api_kernels_for(const char* op, char* error, size_t error_len) {
  TF_Status* s = TF_NewStatus();
  TF_Buffer* kernels = TF_GetRegisteredKernelsForOp(op, s);
  long size = TF_GetCode(s) == TF_OK ? (long)kernels->length : -1;
  snprintf(error, error_len, "%s", TF_Message(s));
  TF_DeleteBuffer(kernels);
  TF_DeleteStatus(s);
  return size;
}

/* 1 or 0, or -(code) on error. */
__attribute__((visibility("default"))) int c_api_is_stateful(const char* op) {
  TF_Status* s = TF_NewStatus();
  int stateful = TF_OpIsStateful(op, s);
  int result = TF_GetCode(s) == TF_OK ? stateful : -(int)TF_GetCode(s);
  TF_DeleteStatus(s);
  return result;
}

/* Parse a serialized TensorProto into a tensor; copies its float data to `out` (up to `max`) and
   returns the element count, or -(code) on error. `aligned` gets TF_TensorIsAligned. */
__attribute__((visibility("default"))) long c_api_tensor_from_proto(const void* proto, size_t len, float* out,
                                                                     long max, int* dtype, int* aligned) {
  TF_Status* s = TF_NewStatus();
  int64_t dims[1] = {1};
  TF_Tensor* t = TF_AllocateTensor(TF_INT8, dims, 1, 1); /* replaced by the parsed tensor, as in TF */
  TF_Buffer* buf = TF_NewBufferFromString(proto, len);
  TF_TensorFromProto(buf, t, s);
  long result;
  if (TF_GetCode(s) != TF_OK) {
    result = -(long)TF_GetCode(s);
  } else {
    result = (long)TF_TensorElementCount(t);
    *dtype = (int)TF_TensorType(t);
    *aligned = TF_TensorIsAligned(t);
    if (TF_TensorType(t) == TF_FLOAT) {
      const float* data = (const float*)TF_TensorData(t);
      for (long i = 0; i < result && i < max; ++i) out[i] = data[i];
    }
  }
  TF_DeleteBuffer(buf);
  TF_DeleteTensor(t);
  TF_DeleteStatus(s);
  return result;
}

void TF_InitKernel(void) {}
