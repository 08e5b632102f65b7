/* modtensor: TensorFlow-compatible C API headers (Apache-2.0, see the modtensor LICENSE).
 *
 * TF_Tensor: a dense n-dimensional array (element type, shape, buffer). In
 * modtensor a TF_Tensor handed to a kernel wraps the runtime's device buffer
 * without a copy. */
#ifndef MODTENSOR_INCLUDE_TENSORFLOW_C_TF_TENSOR_H_
#define MODTENSOR_INCLUDE_TENSORFLOW_C_TF_TENSOR_H_

#include <stdbool.h>
#include <stdint.h>

#include "tensorflow/c/c_api_macros.h"
#include "tensorflow/c/tf_datatype.h"
#include "tensorflow/c/tf_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where a temporary tensor (TF_AllocateTemp) should live. Set struct_size to
 * TF_ALLOCATOR_ATTRIBUTES_STRUCT_SIZE. */
typedef struct TF_AllocatorAttributes {
  size_t struct_size;
  TF_Bool on_host; /* nonzero: host memory even when running on a device */
} TF_AllocatorAttributes;

#define TF_ALLOCATOR_ATTRIBUTES_STRUCT_SIZE TF_OFFSET_OF_END(TF_AllocatorAttributes, on_host)

/* Opaque tensor handle. */
typedef struct TF_Tensor TF_Tensor;

/* A tensor over caller-provided memory `data` of `len` bytes. When the tensor
 * no longer needs the memory, deallocator(data, len, deallocator_arg) is
 * called (possibly from inside this call, if the memory cannot be used).
 * For TF_STRING tensors `data` holds TF_TString elements. */
TF_CAPI_EXPORT extern TF_Tensor* TF_NewTensor(TF_DataType, const int64_t* dims, int num_dims, void* data, size_t len,
                                              void (*deallocator)(void* data, size_t len, void* arg),
                                              void* deallocator_arg);

/* The alignment, in bytes, of buffers the runtime allocates. */
TF_CAPI_EXPORT extern size_t TF_TensorDefaultAlignment(void);

/* A tensor with an uninitialized, runtime-owned buffer of `len` bytes. */
TF_CAPI_EXPORT extern TF_Tensor* TF_AllocateTensor(TF_DataType, const int64_t* dims, int num_dims, size_t len);

/* When possible, delete `tensor` and return a new handle with the same
 * contents (taking over its buffer); otherwise return NULL and leave
 * `tensor` untouched. */
TF_CAPI_EXPORT extern TF_Tensor* TF_TensorMaybeMove(TF_Tensor* tensor);

/* Drop this handle; the buffer goes when its last reference does. */
TF_CAPI_EXPORT extern void TF_DeleteTensor(TF_Tensor*);

TF_CAPI_EXPORT extern TF_DataType TF_TensorType(const TF_Tensor*);

/* Reshape in place; the element count must not change. */
TF_CAPI_EXPORT extern void TF_SetShape(TF_Tensor* tensor, const int64_t* dims, int num_dims);

TF_CAPI_EXPORT extern int TF_NumDims(const TF_Tensor*);

/* Size of dimension `dim_index` (0 <= dim_index < TF_NumDims). */
TF_CAPI_EXPORT extern int64_t TF_Dim(const TF_Tensor* tensor, int dim_index);

TF_CAPI_EXPORT extern size_t TF_TensorByteSize(const TF_Tensor*);

/* Start of the buffer (device memory for tensors on a pluggable device). */
TF_CAPI_EXPORT extern void* TF_TensorData(const TF_Tensor*);

/* Product of the dimensions. */
TF_CAPI_EXPORT extern int64_t TF_TensorElementCount(const TF_Tensor* tensor);

/* Make `to` share `from`'s buffer, reinterpreted as `type` with shape
 * `new_dims`; the byte sizes must agree. */
TF_CAPI_EXPORT extern void TF_TensorBitcastFrom(const TF_Tensor* from, TF_DataType type, TF_Tensor* to,
                                                const int64_t* new_dims, int num_new_dims, TF_Status* status);

/* Whether the buffer meets TF_TensorDefaultAlignment. */
TF_CAPI_EXPORT extern bool TF_TensorIsAligned(const TF_Tensor*);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MODTENSOR_INCLUDE_TENSORFLOW_C_TF_TENSOR_H_ */
