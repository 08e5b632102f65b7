/* modtensor shim: kernels_experimental.h.
 *
 * Resource variables: TF_AssignVariable, TF_AssignUpdateVariable,
 * TF_GetInputTensorFromVariable, TF_MaybeLockVariableInputMutexesInOrder and
 * TF_ReleaseVariableInputLockHolder. The runtime keeps the variables (lookup,
 * creation, locks, copy-on-write decisions: MT_Callbacks.variable_op); the shim
 * hands the plugin TF_Tensors over the variables' buffers and calls the plugin's
 * copyFunc (when a shared buffer must be copied before it is written) and
 * updateFunc, as TensorFlow does. Errors go to the status and, as TF's
 * OP_REQUIRES do, to the kernel context.
 *
 * Ref variables do not exist in modtensor (TF 2's variables are resources):
 * TF_AssignRefVariable, TF_TemporaryVariable, TF_DestroyTemporaryVariable and
 * TF_OpKernelContext_ForwardRefInputToRefOutput fail with TF_UNIMPLEMENTED and
 * say so. Also supported: TF_GetInputByName, TF_OpKernelConstruction_GetAttrTensorShape
 * (in kernel_construction.c), TF_IsRefInput (always false). */
#include <stdlib.h>

#include "mt_internal.h"

#define NO_REF_VARIABLES " is not supported by modtensor: it has resource variables only (no ref variables)"

static void unimplemented(TF_Status* status, const char* function) {
  MT_SetStatusf(status, TF_UNIMPLEMENTED, "%s%s", function, NO_REF_VARIABLES);
}

struct TF_VariableInputLockHolder {
  void* lock; /* the runtime's lock holder, NULL when nothing was locked */
};

typedef void (*MT_CopyFunc)(TF_OpKernelContext*, TF_Tensor*, TF_Tensor*);

/* The callbacks, or a failure on the status and the context. */
static const MT_Callbacks* variable_callbacks(TF_OpKernelContext* ctx, TF_Status* status, const char* function) {
  const MT_Callbacks* cb = MT_GetCallbacks();
  if (cb == NULL || cb->variable_op == NULL) {
    MT_NoRuntime(status, function);
    MT_ContextFail(ctx, TF_GetCode(status), TF_Message(status));
    return NULL;
  }
  return cb;
}

/* Run the runtime's part; on success copy out[1] into out[0] with the plugin's copyFunc when asked to. */
static int variable_op(TF_OpKernelContext* ctx, const MT_Callbacks* cb, int what, int input, int value_index,
                       int flags, MT_CopyFunc copy, TF_Tensor** out, void** lock, TF_Status* status,
                       const char* function) {
  out[0] = out[1] = out[2] = NULL;
  *lock = NULL;
  TF_SetStatus(status, TF_OK, "");
  cb->variable_op(ctx, what, input, value_index, flags, out, lock, status);
  if (TF_GetCode(status) == TF_OK && out[1] != NULL) {
    if (copy == NULL) {
      MT_SetStatusf(status, TF_INVALID_ARGUMENT,
                    "%s: the variable at input %d is shared and must be copied before it changes, but copyFunc is "
                    "NULL",
                    function, input);
    } else {
      copy(ctx, out[1], out[0]);
    }
  }
  TF_DeleteTensor(out[1]);
  out[1] = NULL;
  if (TF_GetCode(status) != TF_OK) {
    MT_ContextFail(ctx, TF_GetCode(status), TF_Message(status));
    TF_DeleteTensor(out[0]);
    TF_DeleteTensor(out[2]);
    out[0] = out[2] = NULL;
    if (*lock != NULL) cb->variable_unlock(*lock);
    *lock = NULL;
    return 0;
  }
  return 1;
}

void TF_AssignVariable(TF_OpKernelContext* ctx, int input_index, int value_index, bool validate_shape,
                       void (*copyFunc)(TF_OpKernelContext*, TF_Tensor*, TF_Tensor*), TF_Status* status) {
  const MT_Callbacks* cb = variable_callbacks(ctx, status, "TF_AssignVariable");
  if (cb == NULL) return;
  TF_Tensor* out[3];
  void* lock;
  int flags = validate_shape ? MT_VARF_VALIDATE_SHAPE : 0;
  if (variable_op(ctx, cb, MT_VAR_ASSIGN, input_index, value_index, flags, copyFunc, out, &lock, status,
                  "TF_AssignVariable")) {
    TF_DeleteTensor(out[0]);
    TF_DeleteTensor(out[2]);
    if (lock != NULL) cb->variable_unlock(lock);
  }
}

void TF_AssignUpdateVariable(TF_OpKernelContext* ctx, int input_index, int value_index, int Op, int isVariantType,
                             void (*copyFunc)(TF_OpKernelContext*, TF_Tensor*, TF_Tensor*),
                             void (*updateFunc)(TF_OpKernelContext*, TF_Tensor*, TF_Tensor*, int),
                             TF_Status* status) {
  const MT_Callbacks* cb = variable_callbacks(ctx, status, "TF_AssignUpdateVariable");
  if (cb == NULL) return;
  if (updateFunc == NULL) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "TF_AssignUpdateVariable: updateFunc is NULL");
    MT_ContextFail(ctx, TF_INVALID_ARGUMENT, TF_Message(status));
    return;
  }
  TF_Tensor* out[3];
  void* lock;
  int flags = isVariantType ? MT_VARF_VARIANT : 0;
  if (!variable_op(ctx, cb, MT_VAR_UPDATE, input_index, value_index, flags, copyFunc, out, &lock, status,
                   "TF_AssignUpdateVariable")) {
    return;
  }
  updateFunc(ctx, out[0], out[2], Op); /* under the variable's lock, as in TensorFlow */
  TF_DeleteTensor(out[0]);
  TF_DeleteTensor(out[2]);
  if (lock != NULL) cb->variable_unlock(lock);
}

void TF_AssignRefVariable(TF_OpKernelContext* ctx, int input_ref_index, int output_ref_index, int value_index,
                          bool use_locking, bool validate_shape,
                          void (*copyFunc)(TF_OpKernelContext*, TF_Tensor*, TF_Tensor*), TF_Status* status) {
  (void)ctx, (void)input_ref_index, (void)output_ref_index, (void)value_index, (void)use_locking;
  (void)validate_shape, (void)copyFunc;
  unimplemented(status, "TF_AssignRefVariable");
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
  if (lockHolder == NULL) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "TF_MaybeLockVariableInputMutexesInOrder: lockHolder is NULL");
    return;
  }
  *lockHolder = NULL;
  TF_SetStatus(status, TF_OK, "");
  TF_VariableInputLockHolder* holder = (TF_VariableInputLockHolder*)calloc(1, sizeof *holder);
  if (holder == NULL) {
    TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "out of memory");
    return;
  }
  if (!do_lock && !sparse) { /* as TensorFlow: nothing to lock */
    *lockHolder = holder;
    return;
  }
  const MT_Callbacks* cb = variable_callbacks(ctx, status, "TF_MaybeLockVariableInputMutexesInOrder");
  if (cb == NULL) {
    free(holder);
    return;
  }
  if (len > 0 && inputs == NULL) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "TF_MaybeLockVariableInputMutexesInOrder: inputs is NULL");
    free(holder);
    return;
  }
  if (sparse) { /* TF's EnsureSparseVariableAccess on each resource input first (may copy) */
    for (size_t i = 0; i < len; ++i) {
      if (inputs[i] < 0 || inputs[i] >= ctx->num_inputs || ctx->kernel->input_types[inputs[i]] != TF_RESOURCE) {
        continue;
      }
      TF_Tensor* out[3];
      void* lock;
      if (!variable_op(ctx, cb, MT_VAR_SPARSE_ACCESS, inputs[i], -1, MT_VARF_SPARSE, copyFunc, out, &lock, status,
                       "TF_MaybeLockVariableInputMutexesInOrder")) {
        free(holder);
        return;
      }
      TF_DeleteTensor(out[0]);
      TF_DeleteTensor(out[2]);
      if (lock != NULL) cb->variable_unlock(lock);
    }
  }
  holder->lock = cb->variable_lock(ctx, inputs, (int)len, status);
  if (TF_GetCode(status) != TF_OK) {
    MT_ContextFail(ctx, TF_GetCode(status), TF_Message(status));
    free(holder);
    return;
  }
  *lockHolder = holder;
}

void TF_GetInputTensorFromVariable(TF_OpKernelContext* ctx, int input, bool lock_held, bool isVariantType,
                                   bool sparse, void (*copyFunc)(TF_OpKernelContext*, TF_Tensor*, TF_Tensor*),
                                   TF_Tensor** out, TF_Status* status) {
  if (out == NULL) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "TF_GetInputTensorFromVariable: out is NULL");
    return;
  }
  *out = NULL;
  const MT_Callbacks* cb = variable_callbacks(ctx, status, "TF_GetInputTensorFromVariable");
  if (cb == NULL) return;
  int flags = (lock_held ? MT_VARF_LOCK_HELD : 0) | (sparse ? MT_VARF_SPARSE : 0) | (isVariantType ? MT_VARF_VARIANT : 0);
  TF_Tensor* got[3];
  void* lock;
  if (!variable_op(ctx, cb, MT_VAR_INPUT, input, -1, flags, copyFunc, got, &lock, status,
                   "TF_GetInputTensorFromVariable")) {
    return;
  }
  TF_DeleteTensor(got[2]);
  if (lock != NULL) cb->variable_unlock(lock); /* TF holds its own lock only inside the call */
  *out = got[0];
}

void TF_OpKernelContext_ForwardRefInputToRefOutput(TF_OpKernelContext* ctx, int32_t input_index,
                                                   int32_t output_index) {
  (void)input_index, (void)output_index;
  MT_ContextFail(ctx, TF_UNIMPLEMENTED, "TF_OpKernelContext_ForwardRefInputToRefOutput" NO_REF_VARIABLES);
}

void TF_ReleaseVariableInputLockHolder(TF_VariableInputLockHolder* lockHolder) {
  if (lockHolder == NULL) return;
  if (lockHolder->lock != NULL) {
    const MT_Callbacks* cb = MT_GetCallbacks();
    if (cb != NULL && cb->variable_unlock != NULL) cb->variable_unlock(lockHolder->lock);
  }
  free(lockHolder);
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
