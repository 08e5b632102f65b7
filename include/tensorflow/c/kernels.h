/* modtensor: TensorFlow-compatible C API headers (Apache-2.0, see the modtensor LICENSE).
 *
 * Kernels from a plugin: a kernel is three functions registered for an op and
 * a device type.
 *   create(TF_OpKernelConstruction*) -> void*  once per node: read attrs,
 *                                              return the kernel's state;
 *   compute(state, TF_OpKernelContext*)        every execution: read inputs,
 *                                              allocate and set outputs;
 *   delete(state)                              when the node goes away.
 * The plugin's TF_InitKernel, called when the library is loaded, creates a
 * TF_KernelBuilder per kernel, adds type constraints and host-memory args,
 * and registers it. Errors go into the TF_Status arguments or are reported
 * with TF_OpKernelConstruction_Failure / TF_OpKernelContext_Failure. */
#ifndef MODTENSOR_INCLUDE_TENSORFLOW_C_KERNELS_H_
#define MODTENSOR_INCLUDE_TENSORFLOW_C_KERNELS_H_

#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api.h"
#include "tensorflow/c/c_api_macros.h"
#include "tensorflow/c/experimental/stream_executor/stream_executor.h"
#include "tensorflow/c/tf_buffer.h"
#include "tensorflow/c/tf_datatype.h"
#include "tensorflow/c/tf_status.h"
#include "tensorflow/c/tf_tensor.h"
#include "tensorflow/core/common_runtime/next_pluggable_device/c/tf_rendezvous_c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque handles (TF_Tensor comes from tf_tensor.h). */
typedef struct TF_KernelBuilder TF_KernelBuilder;
typedef struct TF_OpKernelConstruction TF_OpKernelConstruction;
typedef struct TF_OpKernelContext TF_OpKernelContext;

/* Completion callback of an asynchronous kernel; run it exactly once when
 * the kernel's work is done. */
typedef struct TF_AsyncOpKernelDoneCallback TF_AsyncOpKernelDoneCallback;
TF_CAPI_EXPORT extern void TF_RunAsyncOpKernelDoneCallback(TF_AsyncOpKernelDoneCallback*);

/* Entry point a kernel plugin defines (and exports): register its kernels. */
void TF_InitKernel(void);

/* A builder for a kernel of op `op_name` on device type `device_name` (e.g.
 * "CPU", "GPU", a plugin device type). `create_func` and `delete_func` may
 * be NULL. Register it with TF_RegisterKernelBuilder. */
TF_CAPI_EXPORT extern TF_KernelBuilder* TF_NewKernelBuilder(const char* op_name, const char* device_name,
                                                            void* (*create_func)(TF_OpKernelConstruction*),
                                                            void (*compute_func)(void*, TF_OpKernelContext*),
                                                            void (*delete_func)(void*));

/* Same for an asynchronous kernel: compute_async_func may return before the
 * work is done and signals completion through `done`. */
TF_CAPI_EXPORT extern TF_KernelBuilder* TF_NewAsyncKernelBuilder(
    const char* op_name, const char* device_name, void* (*create_func)(TF_OpKernelConstruction*),
    void (*compute_async_func)(void*, TF_OpKernelContext*, TF_AsyncOpKernelDoneCallback* done),
    void (*delete_func)(void*));

/* Only match nodes whose type attr `attr_name` is `type`. */
TF_CAPI_EXPORT extern void TF_KernelBuilder_TypeConstraint(TF_KernelBuilder* kernel_builder, const char* attr_name,
                                                           TF_DataType type, TF_Status* status);

/* Keep input or output `arg_name` in host memory. */
TF_CAPI_EXPORT extern void TF_KernelBuilder_HostMemory(TF_KernelBuilder* kernel_builder, const char* arg_name);

/* Preference among kernels matching the same node; higher wins. */
TF_CAPI_EXPORT extern void TF_KernelBuilder_Priority(TF_KernelBuilder* kernel_builder, int32_t priority_number);

/* Only match nodes whose `_kernel` attr equals `label`. */
TF_CAPI_EXPORT extern void TF_KernelBuilder_Label(TF_KernelBuilder* kernel_builder, const char* label);

/* Register the kernel under `kernel_name` and take ownership of `builder`. */
TF_CAPI_EXPORT extern void TF_RegisterKernelBuilder(const char* kernel_name, TF_KernelBuilder* builder,
                                                    TF_Status* status);

/* Register with a serialized KernelDef that supplies op, device and
 * constraints; `name` identifies the kernel. */
TF_CAPI_EXPORT extern void TF_RegisterKernelBuilderWithKernelDef(const char* serialized_kernel_def, const char* name,
                                                                 TF_KernelBuilder* builder, TF_Status* status);

/* Free a builder that was not registered. */
TF_CAPI_EXPORT extern void TF_DeleteKernelBuilder(TF_KernelBuilder* builder);

/* ---- During compute ---- */

/* The stream the kernel enqueues its work on, for devices registered through
 * the StreamExecutor C API; elsewhere (e.g. on the CPU) NULL and an error. */
TF_CAPI_EXPORT extern SP_Stream TF_GetStream(TF_OpKernelContext* ctx, TF_Status* status);

TF_CAPI_EXPORT extern int TF_NumInputs(TF_OpKernelContext* ctx);

TF_CAPI_EXPORT extern int TF_NumOutputs(TF_OpKernelContext* ctx);

/* Input `i` as a new TF_Tensor handle the caller frees with TF_DeleteTensor. */
TF_CAPI_EXPORT extern void TF_GetInput(TF_OpKernelContext* ctx, int i, TF_Tensor** tensor, TF_Status* status);

/* Arguments of TF_InputRange; set struct_size to TF_InputRange_Args_STRUCT_SIZE. */
typedef struct {
  size_t struct_size;
  void* priv;        /* reserved */
  int start;         /* result */
  int stop;          /* result */
  TF_Status* status; /* result */
} TF_InputRange_Args;

static const size_t TF_InputRange_Args_STRUCT_SIZE = TF_OFFSET_OF_END(TF_InputRange_Args, status);

/* The flat input indices [start, stop) of the op's input argument `name`. */
TF_CAPI_EXPORT extern void TF_InputRange(TF_OpKernelContext* ctx, const char* name, TF_InputRange_Args* args);

/* Element type of input `index`. */
TF_CAPI_EXPORT extern TF_DataType TF_InputDatatype(TF_OpKernelContext* ctx, int index);

/* Set output `i` to `tensor` (sharing its buffer; the caller keeps and frees
 * its handle). TF_OUT_OF_RANGE for a bad `i`, and then nothing changes. */
TF_CAPI_EXPORT extern void TF_SetOutput(TF_OpKernelContext* ctx, int i, const TF_Tensor* tensor, TF_Status* status);

/* Output `i` as a new handle the caller frees; TF_OUT_OF_RANGE for a bad `i`. */
TF_CAPI_EXPORT extern TF_Tensor* TF_GetMutableOutput(TF_OpKernelContext* ctx, int i, TF_Status* status);

/* Serialized FunctionDefLibrary of the graph the kernel runs in. */
TF_CAPI_EXPORT extern void TF_GetSerializedFunctionDefLibrary(TF_OpKernelContext* ctx,
                                                              TF_Buffer* serialized_function_def_library,
                                                              TF_Status* status);

/* Serialized ConfigProto of the session or context. */
TF_CAPI_EXPORT extern void TF_GetSerializedConfigProto(TF_OpKernelContext* ctx, TF_Buffer* serialized_config_proto,
                                                       TF_Status* status);

/* Serialized ResourceHandleProto held by resource input `i`. */
TF_CAPI_EXPORT extern void TF_GetSerializedResourceHandleProto(TF_OpKernelContext* ctx, int i,
                                                               TF_Buffer* serialized_resource_handle_proto,
                                                               TF_Status* status);

/* Fail kernel construction / the current execution with `status` (which
 * must not be TF_OK). */
TF_CAPI_EXPORT extern void TF_OpKernelConstruction_Failure(TF_OpKernelConstruction* ctx, TF_Status* status);
TF_CAPI_EXPORT extern void TF_OpKernelContext_Failure(TF_OpKernelContext* ctx, TF_Status* status);

/* Element type output `i` must have. */
TF_CAPI_EXPORT extern TF_DataType TF_ExpectedOutputDataType(TF_OpKernelContext* ctx, int i);

/* Whether input / output `i` lives in host memory. */
TF_CAPI_EXPORT extern bool TF_IsHostMemoryInput(TF_OpKernelContext* ctx, int i, TF_Status* status);
TF_CAPI_EXPORT extern bool TF_IsHostMemoryOutput(TF_OpKernelContext* ctx, int i, TF_Status* status);

/* Identifier of the current step (one Session.run or function call). */
TF_CAPI_EXPORT extern int64_t TF_StepId(TF_OpKernelContext* ctx);

/* Serialized NodeDef of the node; the caller frees the buffer. */
TF_CAPI_EXPORT extern TF_Buffer* TF_OpKernelConstruction_GetNodeDef(TF_OpKernelConstruction* ctx, TF_Status* status);

/* Control-flow frame and iteration of the current execution. */
TF_CAPI_EXPORT extern uint64_t TF_GetFrameId(TF_OpKernelContext* ctx);
TF_CAPI_EXPORT extern int64_t TF_GetIterId(TF_OpKernelContext* ctx);

TF_CAPI_EXPORT extern int64_t TF_GetStepId(TF_OpKernelContext* ctx);

/* Index of the device the kernel runs on (e.g. 1 for "/GPU:1"). */
TF_CAPI_EXPORT extern int TF_GetDeviceId(TF_OpKernelContext* ctx);

/* Full name of that device, owned by the runtime. */
TF_CAPI_EXPORT TF_StringView TF_GetDeviceName(TF_OpKernelContext* ctx);

/* The rendezvous of the current step. */
TF_CAPI_EXPORT TF_RendezvousThunk TF_GetRendezvous(TF_OpKernelContext* ctx);

/* GraphDef version (producer) of the graph being run. */
TF_CAPI_EXPORT extern int TF_GetGraphDefVersion(TF_OpKernelContext* ctx);

/* Name of the node; owned by the kernel, valid while it lives. */
TF_CAPI_EXPORT extern TF_StringView TF_GetOpKernelName(TF_OpKernelContext* ctx);

/* Default container of the resource manager; owned by the runtime. */
TF_CAPI_EXPORT extern TF_StringView TF_GetResourceMgrDefaultContainerName(TF_OpKernelContext* ctx);

/* The node's input string `index` as written in its NodeDef ("x:1", "^c"). */
TF_CAPI_EXPORT extern TF_StringView TF_GetOpKernelRequestedInput(TF_OpKernelContext* ctx, size_t index);

/* ---- During construction: attribute values of the node ----
 * Each fails with TF_INVALID_ARGUMENT if the attr is missing or of another
 * type. List getters fill at most `max_vals` values. */

/* Sizes needed to fetch attr `attr_name`: `list_size` is the number of
 * elements of a list attr (-1 for a scalar); `total_size` is the summed byte
 * length of string values, or the summed number of dimensions of shape
 * values (-1 for a shape of unknown rank), and is unspecified for other
 * kinds. */
TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrSize(TF_OpKernelConstruction* ctx, const char* attr_name,
                                                               int32_t* list_size, int32_t* total_size,
                                                               TF_Status* status);

TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrType(TF_OpKernelConstruction* ctx, const char* attr_name,
                                                               TF_DataType* val, TF_Status* status);

TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrInt32(TF_OpKernelConstruction* ctx, const char* attr_name,
                                                                int32_t* val, TF_Status* status);

TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrInt64(TF_OpKernelConstruction* ctx, const char* attr_name,
                                                                int64_t* val, TF_Status* status);

TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrFloat(TF_OpKernelConstruction* ctx, const char* attr_name,
                                                                float* val, TF_Status* status);

TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrBool(TF_OpKernelConstruction* ctx, const char* attr_name,
                                                               TF_Bool* val, TF_Status* status);

/* Copies at most `max_length` bytes, without a terminating NUL. */
TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrString(TF_OpKernelConstruction* ctx, const char* attr_name,
                                                                 char* val, size_t max_length, TF_Status* status);

/* A new tensor the caller frees. */
TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrTensor(TF_OpKernelConstruction* ctx, const char* attr_name,
                                                                 TF_Tensor** val, TF_Status* status);

TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrTypeList(TF_OpKernelConstruction* ctx,
                                                                   const char* attr_name, TF_DataType* vals,
                                                                   int max_vals, TF_Status* status);

TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrInt32List(TF_OpKernelConstruction* ctx,
                                                                    const char* attr_name, int32_t* vals,
                                                                    int max_vals, TF_Status* status);

TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrInt64List(TF_OpKernelConstruction* ctx,
                                                                    const char* attr_name, int64_t* vals,
                                                                    int max_vals, TF_Status* status);

TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrFloatList(TF_OpKernelConstruction* ctx,
                                                                    const char* attr_name, float* vals,
                                                                    int max_vals, TF_Status* status);

TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrBoolList(TF_OpKernelConstruction* ctx,
                                                                   const char* attr_name, TF_Bool* vals,
                                                                   int max_vals, TF_Status* status);

/* values[i] points into `storage` (at least the total_size reported by
 * TF_OpKernelConstruction_GetAttrSize) and lengths[i] is its length; fails
 * when `storage_size` is too small. */
TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrStringList(TF_OpKernelConstruction* ctx,
                                                                     const char* attr_name, char** values,
                                                                     size_t* lengths, int max_values, void* storage,
                                                                     size_t storage_size, TF_Status* status);

/* New tensors the caller frees. */
TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrTensorList(TF_OpKernelConstruction* ctx,
                                                                     const char* attr_name, TF_Tensor** vals,
                                                                     int max_values, TF_Status* status);

/* Serialized NameAttrList of a func attr; the caller frees the buffer. */
TF_CAPI_EXPORT extern TF_Buffer* TF_OpKernelConstruction_GetAttrFunction(TF_OpKernelConstruction* ctx,
                                                                         const char* attr_name, TF_Status* status);

TF_CAPI_EXPORT extern bool TF_OpKernelConstruction_HasAttr(TF_OpKernelConstruction* ctx, const char* attr_name,
                                                           TF_Status* status);

/* Name of the node being constructed; owned by the runtime. */
TF_CAPI_EXPORT extern TF_StringView TF_OpKernelConstruction_GetName(TF_OpKernelConstruction* ctx);

/* ---- Allocation during compute ---- */

/* Allocate output `index` with the given shape; `len` must equal the byte
 * size of that shape. Returns a handle the caller frees. */
TF_CAPI_EXPORT TF_Tensor* TF_AllocateOutput(TF_OpKernelContext* context, int index, TF_DataType dtype,
                                            const int64_t* dims, int num_dims, size_t len, TF_Status* status);

/* Reuse the buffer of one of the candidate inputs for output `output_index`
 * when that input is not referenced elsewhere and has the output's type and
 * size (its index goes to *forwarded_input), otherwise allocate it
 * (*forwarded_input = -1). Returns a handle the caller frees. */
TF_CAPI_EXPORT TF_Tensor* TF_ForwardInputOrAllocateOutput(TF_OpKernelContext* context,
                                                          const int* candidate_input_indices,
                                                          int num_candidate_input_indices, int output_index,
                                                          const int64_t* output_dims, int output_num_dims,
                                                          int* forwarded_input, TF_Status* status);

/* Scratch tensor for the duration of the compute call; `alloc_attrs` may
 * ask for host memory. Returns a handle the caller frees. */
TF_CAPI_EXPORT extern TF_Tensor* TF_AllocateTemp(TF_OpKernelContext* context, TF_DataType dtype, const int64_t* dims,
                                                 int num_dims, TF_AllocatorAttributes* alloc_attrs,
                                                 TF_Status* status);

/* Count work the kernel finishes after returning (e.g. on another thread),
 * so the step does not end before it. */
TF_CAPI_EXPORT extern void TF_IncNumDeferredOps(TF_OpKernelContext* context);
TF_CAPI_EXPORT extern void TF_DecNumDeferredOps(TF_OpKernelContext* context);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MODTENSOR_INCLUDE_TENSORFLOW_C_KERNELS_H_ */
