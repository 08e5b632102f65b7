/* modtensor: TensorFlow-compatible C API headers (Apache-2.0, see the modtensor LICENSE).
 *
 * Kernel helpers for variables and resources: assigning to resource and ref
 * variables, temporary variables, locking variable inputs, reading inputs by
 * name, and AddN/ZerosLike for variant tensors. The callbacks let the plugin
 * do the device-side copy or arithmetic while the runtime handles the
 * variable bookkeeping. */
#ifndef MODTENSOR_INCLUDE_TENSORFLOW_C_KERNELS_EXPERIMENTAL_H_
#define MODTENSOR_INCLUDE_TENSORFLOW_C_KERNELS_EXPERIMENTAL_H_

#include "tensorflow/c/c_api_macros.h"
#include "tensorflow/c/kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Locks taken by TF_MaybeLockVariableInputMutexesInOrder. */
typedef struct TF_VariableInputLockHolder TF_VariableInputLockHolder;

/* Assign input `value_index` to the resource variable at input `input_index`,
 * copying with `copyFunc(ctx, source, dest)` when the buffer cannot be
 * shared. With `validate_shape` the shapes must match. */
TF_CAPI_EXPORT extern void TF_AssignVariable(TF_OpKernelContext* ctx, int input_index, int value_index,
                                             bool validate_shape,
                                             void (*copyFunc)(TF_OpKernelContext* ctx, TF_Tensor* source,
                                                              TF_Tensor* dest),
                                             TF_Status* status);

/* Assign to a ref variable (input `input_ref_index`) and forward it to output
 * `output_ref_index`. */
TF_CAPI_EXPORT extern void TF_AssignRefVariable(TF_OpKernelContext* ctx, int input_ref_index, int output_ref_index,
                                                int value_index, bool use_locking, bool validate_shape,
                                                void (*copyFunc)(TF_OpKernelContext* ctx, TF_Tensor* source,
                                                                 TF_Tensor* dest),
                                                TF_Status* status);

/* Update a resource variable in place with `updateFunc(ctx, var, value, Op)`
 * (`Op` is passed through), copying it first with `copyFunc` when shared. */
TF_CAPI_EXPORT extern void TF_AssignUpdateVariable(TF_OpKernelContext* ctx, int input_index, int value_index, int Op,
                                                   int isVariantType,
                                                   void (*copyFunc)(TF_OpKernelContext* ctx, TF_Tensor* source,
                                                                    TF_Tensor* dest),
                                                   void (*updateFunc)(TF_OpKernelContext* ctx, TF_Tensor* tensor,
                                                                      TF_Tensor* value, int Op),
                                                   TF_Status* status);

/* Create the step-local variable `var_name`, its buffer allocated through
 * `plugin_allocator`, and set it as output 0 (TemporaryVariable op). */
TF_CAPI_EXPORT extern void TF_TemporaryVariable(TF_OpKernelContext* ctx, TF_DataType dtype, const int64_t* dims,
                                                int num_dims, TF_StringView* var_name,
                                                void (*plugin_allocator)(TF_OpKernelContext*, TF_Tensor*,
                                                                         TF_DataType, const int64_t*, int,
                                                                         TF_Status*),
                                                TF_Status* tf_status);

/* Forward input `index` to output 0 and drop the temporary variable
 * `var_name` (DestroyTemporaryVariable op). */
TF_CAPI_EXPORT extern void TF_DestroyTemporaryVariable(TF_OpKernelContext* ctx, const int index,
                                                       TF_StringView* var_name, TF_Status* tf_status);

/* Lock the mutexes of the variable inputs listed in `inputs` (in a fixed
 * order, so concurrent kernels cannot deadlock) when `do_lock`; release with
 * TF_ReleaseVariableInputLockHolder. */
TF_CAPI_EXPORT extern void TF_MaybeLockVariableInputMutexesInOrder(
    TF_OpKernelContext* ctx, bool do_lock, bool sparse, const int* const inputs, size_t len,
    void (*copyFunc)(TF_OpKernelContext* ctx, TF_Tensor* source, TF_Tensor* dest),
    TF_VariableInputLockHolder** lockHolder, TF_Status* status);

/* The tensor held by the variable at input `input` (ref or resource),
 * copied with `copyFunc` first when it is shared. */
TF_CAPI_EXPORT extern void TF_GetInputTensorFromVariable(TF_OpKernelContext* ctx, int input, bool lock_held,
                                                         bool isVariantType, bool sparse,
                                                         void (*copyFunc)(TF_OpKernelContext* ctx,
                                                                          TF_Tensor* source, TF_Tensor* dest),
                                                         TF_Tensor** out, TF_Status* status);

/* Pass ref input `input_index` through as ref output `output_index`. */
TF_CAPI_EXPORT extern void TF_OpKernelContext_ForwardRefInputToRefOutput(TF_OpKernelContext* ctx,
                                                                         int32_t input_index, int32_t output_index);

/* Unlock and free. */
TF_CAPI_EXPORT extern void TF_ReleaseVariableInputLockHolder(TF_VariableInputLockHolder* lockHolder);

/* The input named `inputName` in the op definition; caller frees it. */
TF_CAPI_EXPORT extern void TF_GetInputByName(TF_OpKernelContext* ctx, const char* inputName, TF_Tensor** tensor,
                                             TF_Status* status);

/* A shape attr into `dims` (room for `num_dims` values). */
TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrTensorShape(TF_OpKernelConstruction* ctx,
                                                                      const char* attr_name, int64_t* dims,
                                                                      size_t num_dims, TF_Status* status);

/* Whether input `i` is a ref input. */
TF_CAPI_EXPORT extern bool TF_IsRefInput(TF_OpKernelContext* ctx, int i, TF_Status* status);

/* AddN over variant inputs, adding pairs with `binary_add_func`. */
TF_CAPI_EXPORT extern void TF_AddNVariant(TF_OpKernelContext* ctx,
                                          void (*binary_add_func)(TF_OpKernelContext* ctx, TF_Tensor* a,
                                                                  TF_Tensor* b, TF_Tensor* out),
                                          TF_Status* status);

/* ZerosLike for a variant input, zeroing with `zeros_like_func`. */
TF_CAPI_EXPORT extern void TF_ZerosLikeVariant(TF_OpKernelContext* ctx,
                                               void (*zeros_like_func)(TF_OpKernelContext* ctx, TF_Tensor* input,
                                                                       TF_Tensor* out),
                                               TF_Status* status);

/* Opaque; declared for source compatibility. */
typedef struct TF_CoordinationServiceAgent TF_CoordinationServiceAgent;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MODTENSOR_INCLUDE_TENSORFLOW_C_KERNELS_EXPERIMENTAL_H_ */
