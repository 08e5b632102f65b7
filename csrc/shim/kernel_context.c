/* modtensor shim: TF_OpKernelContext, what a kernel's compute function sees.
 *
 * The bridge fills the context with the inputs' data pointers, shapes and types
 * before calling compute, so TF_NumInputs, TF_GetInput, TF_SetOutput, the
 * type queries and TF_GetOpKernelName never leave C. Allocation goes to the
 * runtime's allocator through the callback table. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mt_internal.h"

/* ---- failures, deferred work, asynchronous completion ---- */

void MT_ContextFail(TF_OpKernelContext* ctx, TF_Code code, const char* message) {
  if (code == TF_OK) return;
  while (atomic_flag_test_and_set_explicit(&ctx->failure_lock, memory_order_acquire)) {
  }
  if (ctx->failure == NULL) { /* the first failure wins, as in TensorFlow */
    ctx->failure = TF_NewStatus();
    TF_SetStatus(ctx->failure, code, message);
  }
  atomic_flag_clear_explicit(&ctx->failure_lock, memory_order_release);
}

void TF_OpKernelContext_Failure(TF_OpKernelContext* ctx, TF_Status* status) {
  MT_ContextFail(ctx, TF_GetCode(status), TF_Message(status));
}

static pthread_mutex_t g_deferred_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_deferred_cond = PTHREAD_COND_INITIALIZER;

void TF_IncNumDeferredOps(TF_OpKernelContext* context) { atomic_fetch_add(&context->deferred_ops, 1); }

void TF_DecNumDeferredOps(TF_OpKernelContext* context) {
  pthread_mutex_lock(&g_deferred_mutex);
  atomic_fetch_sub(&context->deferred_ops, 1);
  pthread_cond_broadcast(&g_deferred_cond);
  pthread_mutex_unlock(&g_deferred_mutex);
}

void MT_ContextWaitDeferred(TF_OpKernelContext* ctx) {
  if (atomic_load(&ctx->deferred_ops) <= 0) return;
  pthread_mutex_lock(&g_deferred_mutex);
  while (atomic_load(&ctx->deferred_ops) > 0) pthread_cond_wait(&g_deferred_cond, &g_deferred_mutex);
  pthread_mutex_unlock(&g_deferred_mutex);
}

void TF_RunAsyncOpKernelDoneCallback(TF_AsyncOpKernelDoneCallback* done) {
  if (done->on_done != NULL) { /* started by MT_StartKernelAsync: the runtime finishes the node */
    done->on_done(done->arg);
    return;
  }
  pthread_mutex_lock(&done->mutex);
  done->done = 1;
  pthread_cond_broadcast(&done->cond);
  pthread_mutex_unlock(&done->mutex);
}

void MT_RunKernel(TF_OpKernelContext* ctx) {
  const MT_Kernel* k = ctx->kernel;
  const TF_KernelBuilder* b = k->builder;
  if (b->compute_async != NULL) {
    struct TF_AsyncOpKernelDoneCallback done;
    memset(&done, 0, sizeof done);
    pthread_mutex_init(&done.mutex, NULL);
    pthread_cond_init(&done.cond, NULL);
    b->compute_async(k->state, ctx, &done);
    pthread_mutex_lock(&done.mutex);
    while (!done.done) pthread_cond_wait(&done.cond, &done.mutex);
    pthread_mutex_unlock(&done.mutex);
    pthread_cond_destroy(&done.cond);
    pthread_mutex_destroy(&done.mutex);
  } else if (b->compute != NULL) {
    b->compute(k->state, ctx);
  }
  MT_ContextWaitDeferred(ctx);
}

void MT_StartKernelAsync(TF_OpKernelContext* ctx, struct TF_AsyncOpKernelDoneCallback* done) {
  const MT_Kernel* k = ctx->kernel;
  k->builder->compute_async(k->state, ctx, done);
}

/* ---- inputs ---- */

int TF_NumInputs(TF_OpKernelContext* ctx) { return ctx->num_inputs; }

int TF_NumOutputs(TF_OpKernelContext* ctx) { return ctx->num_outputs; }

/* The buffer over input `i`, made on first use (any thread). */
MT_Buffer* MT_InputBuffer(MT_Input* in) {
  MT_Buffer* buf = __atomic_load_n(&in->buffer, __ATOMIC_ACQUIRE);
  if (buf != NULL) return buf;
  MT_Buffer* fresh = MT_NewBuffer(in->data, in->nbytes, NULL, NULL);
  MT_Buffer* expected = NULL;
  if (__atomic_compare_exchange_n(&in->buffer, &expected, fresh, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    return fresh;
  }
  MT_BufferUnref(fresh);
  return expected;
}

void TF_GetInput(TF_OpKernelContext* ctx, int i, TF_Tensor** tensor, TF_Status* status) {
  if (i < 0 || i >= ctx->num_inputs) {
    TF_SetStatus(status, TF_OUT_OF_RANGE, "input index out of range");
    return;
  }
  MT_Input* in = &ctx->inputs[i];
  *tensor = MT_NewTensorOnBuffer(in->dtype, in->dims, in->num_dims, MT_InputBuffer(in));
  TF_SetStatus(status, TF_OK, "");
}

void TF_InputRange(TF_OpKernelContext* ctx, const char* name, TF_InputRange_Args* args) {
  const MT_Kernel* k = ctx->kernel;
  for (int i = 0; i < k->num_input_ranges; ++i) {
    if (strcmp(k->input_ranges[i].name, name) == 0) {
      args->start = k->input_ranges[i].start;
      args->stop = k->input_ranges[i].stop;
      TF_SetStatus(args->status, TF_OK, "");
      return;
    }
  }
  args->start = -1;
  args->stop = -1;
  MT_SetStatusf(args->status, TF_INVALID_ARGUMENT, "Unknown input name: %s", name);
}

TF_DataType TF_InputDatatype(TF_OpKernelContext* ctx, int index) {
  if (index < 0 || index >= ctx->num_inputs) return (TF_DataType)0;
  return ctx->kernel->input_types[index];
}

bool TF_IsHostMemoryInput(TF_OpKernelContext* ctx, int i, TF_Status* status) {
  if (i < 0 || i >= ctx->num_inputs) {
    TF_SetStatus(status, TF_OUT_OF_RANGE, "input index out of range");
    return false;
  }
  TF_SetStatus(status, TF_OK, "");
  return ctx->kernel->input_host_memory[i] != 0;
}

/* ---- outputs ---- */

void TF_SetOutput(TF_OpKernelContext* ctx, int i, const TF_Tensor* tensor, TF_Status* status) {
  if (i < 0 || i >= ctx->num_outputs) {
    TF_SetStatus(status, TF_OUT_OF_RANGE, "output index out of range");
    return;
  }
  if (tensor == NULL) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "TF_SetOutput: the tensor is NULL");
    return;
  }
  TF_Tensor* handle = MT_NewTensorOnBuffer(tensor->dtype, tensor->dims, tensor->num_dims, tensor->buffer);
  TF_Tensor* old = __atomic_exchange_n(&ctx->outputs[i], handle, __ATOMIC_ACQ_REL);
  TF_DeleteTensor(old);
  TF_SetStatus(status, TF_OK, "");
}

TF_Tensor* TF_GetMutableOutput(TF_OpKernelContext* ctx, int i, TF_Status* status) {
  if (i < 0 || i >= ctx->num_outputs) {
    TF_SetStatus(status, TF_OUT_OF_RANGE, "output index out of range");
    return NULL;
  }
  TF_Tensor* out = __atomic_load_n(&ctx->outputs[i], __ATOMIC_ACQUIRE);
  if (out == NULL) {
    MT_SetStatusf(status, TF_FAILED_PRECONDITION, "output %d of '%.*s' is not set yet", i,
                  (int)ctx->kernel->name_len, ctx->kernel->name);
    return NULL;
  }
  TF_SetStatus(status, TF_OK, "");
  return MT_NewTensorOnBuffer(out->dtype, out->dims, out->num_dims, out->buffer);
}

TF_DataType TF_ExpectedOutputDataType(TF_OpKernelContext* ctx, int i) {
  if (i < 0 || i >= ctx->num_outputs) return (TF_DataType)0;
  return ctx->kernel->output_types[i];
}

bool TF_IsHostMemoryOutput(TF_OpKernelContext* ctx, int i, TF_Status* status) {
  if (i < 0 || i >= ctx->num_outputs) {
    TF_SetStatus(status, TF_OUT_OF_RANGE, "output index out of range");
    return false;
  }
  TF_SetStatus(status, TF_OK, "");
  return ctx->kernel->output_host_memory[i] != 0;
}

/* ---- allocation ---- */

static const MT_Callbacks* callbacks_or_fail(TF_Status* status, const char* function) {
  const MT_Callbacks* cb = MT_GetCallbacks();
  if (cb == NULL) MT_NoRuntime(status, function);
  return cb;
}

TF_Tensor* TF_AllocateOutput(TF_OpKernelContext* context, int index, TF_DataType dtype, const int64_t* dims,
                             int num_dims, size_t len, TF_Status* status) {
  (void)len; /* as in TensorFlow: the shape and the output's type decide the size */
  TF_SetStatus(status, TF_OK, "");
  if (index < 0 || index >= context->num_outputs) {
    TF_SetStatus(status, TF_OUT_OF_RANGE, "output index out of range");
    return NULL;
  }
  const MT_Callbacks* cb = callbacks_or_fail(status, "TF_AllocateOutput");
  if (cb == NULL) return NULL;
  return cb->allocate(context, MT_ALLOC_OUTPUT, index, dtype, dims, num_dims, 0, status);
}

TF_Tensor* TF_ForwardInputOrAllocateOutput(TF_OpKernelContext* context, const int* candidate_input_indices,
                                           int num_candidate_input_indices, int output_index,
                                           const int64_t* output_dims, int output_num_dims, int* forwarded_input,
                                           TF_Status* status) {
  TF_SetStatus(status, TF_OK, "");
  if (forwarded_input != NULL) *forwarded_input = -1;
  if (output_index < 0 || output_index >= context->num_outputs) {
    TF_SetStatus(status, TF_OUT_OF_RANGE, "output index out of range");
    return NULL;
  }
  const MT_Callbacks* cb = callbacks_or_fail(status, "TF_ForwardInputOrAllocateOutput");
  if (cb == NULL) return NULL;
  int forwarded = -1;
  TF_Tensor* t = cb->forward_or_allocate(context, candidate_input_indices, num_candidate_input_indices, output_index,
                                         output_dims, output_num_dims, &forwarded, status);
  if (forwarded_input != NULL) *forwarded_input = forwarded;
  return t;
}

TF_Tensor* TF_AllocateTemp(TF_OpKernelContext* context, TF_DataType dtype, const int64_t* dims, int num_dims,
                           TF_AllocatorAttributes* alloc_attrs, TF_Status* status) {
  TF_SetStatus(status, TF_OK, "");
  if (alloc_attrs != NULL && alloc_attrs->struct_size == 0) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT,
                 "TF_AllocatorAttributes struct size member must be set to TF_ALLOCATOR_ATTRIBUTES_STRUCT_SIZE");
    return NULL;
  }
  const MT_Callbacks* cb = callbacks_or_fail(status, "TF_AllocateTemp");
  if (cb == NULL) return NULL;
  int on_host = alloc_attrs != NULL && alloc_attrs->on_host;
  return cb->allocate(context, MT_ALLOC_TEMP, -1, dtype, dims, num_dims, on_host, status);
}

/* ---- environment ---- */

SP_Stream TF_GetStream(TF_OpKernelContext* ctx, TF_Status* status) {
  if (ctx->kernel->is_cpu) {
    TF_SetStatus(status, TF_FAILED_PRECONDITION, "Accessing device stream is not supported for a CPU device.");
    return NULL;
  }
  if (ctx->kernel->stream == NULL) {
    TF_SetStatus(status, TF_FAILED_PRECONDITION, "Accessing device stream is only supported for pluggable devices.");
    return NULL;
  }
  TF_SetStatus(status, TF_OK, "");
  return (SP_Stream)ctx->kernel->stream;
}

int64_t TF_StepId(TF_OpKernelContext* ctx) { return ctx->step_id; }

int64_t TF_GetStepId(TF_OpKernelContext* ctx) { return ctx->step_id; }

uint64_t TF_GetFrameId(TF_OpKernelContext* ctx) {
  (void)ctx;
  return 0; /* modtensor has no control-flow frames yet: every kernel runs in the root frame */
}

int64_t TF_GetIterId(TF_OpKernelContext* ctx) {
  (void)ctx;
  return 0;
}

int TF_GetDeviceId(TF_OpKernelContext* ctx) { return ctx->kernel->device_id; }

TF_StringView TF_GetDeviceName(TF_OpKernelContext* ctx) {
  TF_StringView view = {ctx->kernel->device_name, ctx->kernel->device_name_len};
  return view;
}

TF_RendezvousThunk TF_GetRendezvous(TF_OpKernelContext* ctx) {
  TF_RendezvousThunk thunk;
  memset(&thunk, 0, sizeof thunk);
  MT_ContextFail(ctx, TF_UNIMPLEMENTED,
                 "TF_GetRendezvous is not implemented by modtensor: kernels cannot send or receive tensors yet");
  return thunk;
}

int TF_GetGraphDefVersion(TF_OpKernelContext* ctx) { return ctx->kernel->graph_def_version; }

TF_StringView TF_GetOpKernelName(TF_OpKernelContext* ctx) {
  TF_StringView view = {ctx->kernel->name, ctx->kernel->name_len};
  return view;
}

TF_StringView TF_GetResourceMgrDefaultContainerName(TF_OpKernelContext* ctx) {
  (void)ctx;
  static const char kContainer[] = "localhost"; /* TF's default container of a local resource manager */
  TF_StringView view = {kContainer, sizeof kContainer - 1};
  return view;
}

TF_StringView TF_GetOpKernelRequestedInput(TF_OpKernelContext* ctx, size_t index) {
  const MT_Kernel* k = ctx->kernel;
  TF_StringView view = {"", 0};
  if (index < (size_t)k->num_requested_inputs) {
    view.data = k->requested_inputs[index];
    view.len = k->requested_input_lens[index];
  }
  return view;
}

static void context_buffer(TF_OpKernelContext* ctx, int what, int index, TF_Buffer* out, TF_Status* status,
                           const char* function) {
  TF_SetStatus(status, TF_OK, "");
  const MT_Callbacks* cb = callbacks_or_fail(status, function);
  if (cb == NULL) return;
  cb->context_buffer(ctx, what, index, out, status);
}

void TF_GetSerializedFunctionDefLibrary(TF_OpKernelContext* ctx, TF_Buffer* serialized_function_def_library,
                                        TF_Status* status) {
  context_buffer(ctx, MT_CONTEXT_FUNCTION_LIBRARY, -1, serialized_function_def_library, status,
                 "TF_GetSerializedFunctionDefLibrary");
}

void TF_GetSerializedConfigProto(TF_OpKernelContext* ctx, TF_Buffer* serialized_config_proto, TF_Status* status) {
  context_buffer(ctx, MT_CONTEXT_CONFIG_PROTO, -1, serialized_config_proto, status, "TF_GetSerializedConfigProto");
}

void TF_GetSerializedResourceHandleProto(TF_OpKernelContext* ctx, int i, TF_Buffer* serialized_resource_handle_proto,
                                         TF_Status* status) {
  if (i < 0 || i >= ctx->num_inputs) {
    TF_SetStatus(status, TF_OUT_OF_RANGE, "input index out of range");
    return;
  }
  context_buffer(ctx, MT_CONTEXT_RESOURCE_HANDLE, i, serialized_resource_handle_proto, status,
                 "TF_GetSerializedResourceHandleProto");
}

/* ---- kernel records ---- */

void MT_KernelRelease(MT_Kernel* k) {
  if (k == NULL) return;
  free(k->name);
  free(k->device_name);
  free(k->input_types);
  free(k->output_types);
  free(k->input_host_memory);
  free(k->output_host_memory);
  for (int i = 0; i < k->num_requested_inputs; ++i) free(k->requested_inputs[i]);
  free(k->requested_inputs);
  free(k->requested_input_lens);
  for (int i = 0; i < k->num_input_ranges; ++i) free(k->input_ranges[i].name);
  free(k->input_ranges);
  memset(k, 0, sizeof *k);
}
