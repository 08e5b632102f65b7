/* modtensor shim: kernels_experimental.h.
 *
 * Supported: TF_GetInputByName, TF_OpKernelConstruction_GetAttrTensorShape (in
 * kernel_construction.c), TF_IsRefInput (modtensor has no ref tensors: always
 * false). The variable and resource helpers need resource variables, which the
 * runtime does not have yet: they exist, fail with TF_UNIMPLEMENTED and say so. */
#include <stdlib.h>

#include "mt_internal.h"

#define NO_VARIABLES " is not implemented by modtensor yet: the runtime has no resource or ref variables"

static void unimplemented(TF_Status* status, const char* function) {
  MT_SetStatusf(status, TF_UNIMPLEMENTED, "%s%s", function, NO_VARIABLES);
}

void TF_AssignVariable(TF_OpKernelContext* ctx, int input_index, int value_index, bool validate_shape,
                       void (*copyFunc)(TF_OpKernelContext*, TF_Tensor*, TF_Tensor*), TF_Status* status) {
  (void)ctx, (void)input_index, (void)value_index, (void)validate_shape, (void)copyFunc;
  unimplemented(status, "TF_AssignVariable");
}

void TF_AssignRefVariable(TF_OpKernelContext* ctx, int input_ref_index, int output_ref_index, int value_index,
                          bool use_locking, bool validate_shape,
                          void (*copyFunc)(TF_OpKernelContext*, TF_Tensor*, TF_Tensor*), TF_Status* status) {
  (void)ctx, (void)input_ref_index, (void)output_ref_index, (void)value_index, (void)use_locking;
  (void)validate_shape, (void)copyFunc;
  unimplemented(status, "TF_AssignRefVariable");
}

void TF_AssignUpdateVariable(TF_OpKernelContext* ctx, int input_index, int value_index, int Op, int isVariantType,
                             void (*copyFunc)(TF_OpKernelContext*, TF_Tensor*, TF_Tensor*),
                             void (*updateFunc)(TF_OpKernelContext*, TF_Tensor*, TF_Tensor*, int),
                             TF_Status* status) {
  (void)ctx, (void)input_index, (void)value_index, (void)Op, (void)isVariantType, (void)copyFunc, (void)updateFunc;
  unimplemented(status, "TF_AssignUpdateVariable");
}

void TF_TemporaryVariable(TF_OpKernelContext* ctx, TF_DataType dtype, const int64_t* dims, int num_dims,
                          TF_StringView* var_name,
                          void (*plugin_allocator)(TF_OpKernelContext*, TF_Tensor*, TF_DataType, const int64_t*, int,
                                                   TF_Status*),
                          TF_Status* tf_status) {
  (void)ctx, (void)dtype, (void)dims, (void)num_dims, (void)var_name, (void)plugin_allocator;
  unimplemented(tf_status, "TF_TemporaryVariable");
}

void TF_DestroyTemporaryVariable(TF_OpKernelContext* ctx, const int index, TF_StringView* var_name,
                                 TF_Status* tf_status) {
  (void)ctx, (void)index, (void)var_name;
  unimplemented(tf_status, "TF_DestroyTemporaryVariable");
}

void TF_MaybeLockVariableInputMutexesInOrder(TF_OpKernelContext* ctx, bool do_lock, bool sparse,
                                             const int* const inputs, size_t len,
                                             void (*copyFunc)(TF_OpKernelContext*, TF_Tensor*, TF_Tensor*),
                                             TF_VariableInputLockHolder** lockHolder, TF_Status* status) {
  (void)ctx, (void)do_lock, (void)sparse, (void)inputs, (void)len, (void)copyFunc;
  if (lockHolder != NULL) *lockHolder = NULL;
  unimplemented(status, "TF_MaybeLockVariableInputMutexesInOrder");
}

void TF_GetInputTensorFromVariable(TF_OpKernelContext* ctx, int input, bool lock_held, bool isVariantType,
                                   bool sparse, void (*copyFunc)(TF_OpKernelContext*, TF_Tensor*, TF_Tensor*),
                                   TF_Tensor** out, TF_Status* status) {
  (void)ctx, (void)input, (void)lock_held, (void)isVariantType, (void)sparse, (void)copyFunc;
  if (out != NULL) *out = NULL;
  unimplemented(status, "TF_GetInputTensorFromVariable");
}

void TF_OpKernelContext_ForwardRefInputToRefOutput(TF_OpKernelContext* ctx, int32_t input_index,
                                                   int32_t output_index) {
  (void)input_index, (void)output_index;
  MT_ContextFail(ctx, TF_UNIMPLEMENTED, "TF_OpKernelContext_ForwardRefInputToRefOutput" NO_VARIABLES);
}

void TF_ReleaseVariableInputLockHolder(TF_VariableInputLockHolder* lockHolder) {
  (void)lockHolder; /* never handed out: TF_MaybeLockVariableInputMutexesInOrder sets it to NULL */
}

void TF_GetInputByName(TF_OpKernelContext* ctx, const char* inputName, TF_Tensor** tensor, TF_Status* status) {
  TF_InputRange_Args args;
  args.struct_size = TF_InputRange_Args_STRUCT_SIZE;
  args.priv = NULL;
  args.status = status;
  TF_InputRange(ctx, inputName, &args);
  if (TF_GetCode(status) != TF_OK) return;
  if (args.stop != args.start + 1) {
    MT_SetStatusf(status, TF_INVALID_ARGUMENT,
                  "OpKernel used list-valued input name '%s' when single-valued input was expected", inputName);
    return;
  }
  TF_GetInput(ctx, args.start, tensor, status);
}

bool TF_IsRefInput(TF_OpKernelContext* ctx, int i, TF_Status* status) {
  if (i < 0 || i >= ctx->num_inputs) {
    TF_SetStatus(status, TF_OUT_OF_RANGE, "input index out of range");
    return false;
  }
  TF_SetStatus(status, TF_OK, "");
  return false;
}

void TF_AddNVariant(TF_OpKernelContext* ctx,
                    void (*binary_add_func)(TF_OpKernelContext*, TF_Tensor*, TF_Tensor*, TF_Tensor*),
                    TF_Status* status) {
  (void)ctx, (void)binary_add_func;
  MT_SetStatusf(status, TF_UNIMPLEMENTED, "TF_AddNVariant is not implemented by modtensor yet: no variant tensors");
}

void TF_ZerosLikeVariant(TF_OpKernelContext* ctx,
                         void (*zeros_like_func)(TF_OpKernelContext*, TF_Tensor*, TF_Tensor*), TF_Status* status) {
  (void)ctx, (void)zeros_like_func;
  MT_SetStatusf(status, TF_UNIMPLEMENTED,
                "TF_ZerosLikeVariant is not implemented by modtensor yet: no variant tensors");
}
