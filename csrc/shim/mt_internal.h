/* modtensor shim: internal definitions shared by the shim library and the Python bridge.
 *
 * The shim (libmodtensor_framework.so) implements TensorFlow's plugin C API. What
 * can be done in C is done here (statuses, buffers, tensors, strings, builders,
 * the kernel context's inputs and outputs); what needs the Python runtime
 * (registration, allocation, attribute reads, shape inference) goes through one
 * callback table, MT_Callbacks, that the bridge (a CPython extension) installs.
 * Nothing in the shim depends on Python: a C program can link it alone, and then
 * every runtime-backed call fails with TF_FAILED_PRECONDITION. */
#ifndef MODTENSOR_CSRC_SHIM_MT_INTERNAL_H_
#define MODTENSOR_CSRC_SHIM_MT_INTERNAL_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api.h"
#include "tensorflow/c/c_api_experimental.h"
#include "tensorflow/c/kernels.h"
#include "tensorflow/c/kernels_experimental.h"
#include "tensorflow/c/ops.h"
#include "tensorflow/c/tf_buffer.h"
#include "tensorflow/c/tf_datatype.h"
#include "tensorflow/c/tf_status.h"
#include "tensorflow/c/tf_tensor.h"
#include "tensorflow/c/tf_tstring.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Symbols of the shim that only the bridge uses (not part of TF's API). */
#define MT_EXPORT __attribute__((visibility("default")))

/* Version of the internal interface; the bridge refuses a shim of another version. */
#define MT_INTERNAL_VERSION 5

/* Alignment of buffers the shim allocates itself (TF_AllocateTensor), TF's value. */
#define MT_ALIGNMENT 64

/* ------------------------------------------------------------------ small-struct caches (small_cache.c) */

/* Kinds of struct the per-thread caches keep: each kind has one fixed size. */
enum { MT_CACHE_TENSOR, MT_CACHE_BUFFER, MT_CACHE_STATUS, MT_CACHE_KINDS };

/* `size` bytes (uninitialized) for a struct of `kind`, from this thread's cache or malloc; aborts when out of
 * memory. MT_CacheFree gives it back (NULL: nothing). Shim-internal. */
void* MT_CacheAlloc(int kind, size_t size);
void MT_CacheFree(int kind, void* p);

/* ------------------------------------------------------------------ status */

typedef struct MT_Payload {
  char* key;
  char* value;
  struct MT_Payload* next;
} MT_Payload;

struct TSL_Status {
  TSL_Code code;
  char* message; /* NULL when OK */
  MT_Payload* payloads;
};

/* Set `s` to `code` with a printf-formatted message. */
MT_EXPORT void MT_SetStatusf(TF_Status* s, TF_Code code, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Copy code and message of `src` into `dst`. */
MT_EXPORT void MT_CopyStatus(TF_Status* dst, const TF_Status* src);

/* ------------------------------------------------------------------ buffers and tensors */

/* Reference-counted memory behind one or more TF_Tensor handles. `deallocator`
 * (may be NULL: memory not owned) runs when the last reference goes. */
typedef struct MT_Buffer {
  atomic_long refs;
  void* data;
  size_t len;
  void (*deallocator)(void* data, size_t len, void* arg);
  void* deallocator_arg;
  int owns_memory;     /* allocated by the shim for this buffer: may be moved or forwarded */
  int64_t num_strings; /* TF_TString elements to release before the memory goes (shim-allocated strings) */
} MT_Buffer;

/* A new buffer holding one reference. */
MT_EXPORT MT_Buffer* MT_NewBuffer(void* data, size_t len, void (*deallocator)(void*, size_t, void*), void* arg);
MT_EXPORT void MT_BufferRef(MT_Buffer* buf);
MT_EXPORT void MT_BufferUnref(MT_Buffer* buf);
/* Shim-owned, MT_ALIGNMENT-aligned memory of `len` bytes; TF_STRING elements start empty. */
MT_EXPORT MT_Buffer* MT_AllocateBuffer(TF_DataType dtype, size_t len);
/* The memory of a shim-allocated buffer only one handle holds, given up: the caller frees it with
 * MT_HostFree(memory, *len) once nothing uses it, and the buffer's last unref no longer does. NULL (nothing
 * changed) when the buffer is shared, holds strings or is not MT_AllocateBuffer's. */
MT_EXPORT void* MT_BufferReleaseMemory(MT_Buffer* buf, size_t* len);

/* Host memory for tensor data (host_memory.c): MT_ALIGNMENT-aligned, large blocks reused from a cache. */
MT_EXPORT void* MT_HostAllocate(size_t len);
MT_EXPORT void MT_HostFree(void* data, size_t len); /* `len` as allocated */
/* The size of the block MT_HostAllocate(len) gives. */
MT_EXPORT size_t MT_HostBlockSize(size_t len);
/* Bytes of freed blocks kept for reuse; MT_HostCacheClear frees them. */
MT_EXPORT size_t MT_HostCachedBytes(void);
MT_EXPORT void MT_HostCacheClear(void);

#define MT_INLINE_DIMS 6

struct TF_Tensor {
  TF_DataType dtype;
  int num_dims;
  int64_t* dims; /* inline_dims or heap */
  int64_t inline_dims[MT_INLINE_DIMS];
  MT_Buffer* buffer; /* never NULL */
};

/* A new handle over `buf` (taking a new reference to it). */
MT_EXPORT TF_Tensor* MT_NewTensorOnBuffer(TF_DataType dtype, const int64_t* dims, int num_dims, MT_Buffer* buf);

/* Product of `dims` (1 for a scalar). */
MT_EXPORT int64_t MT_NumElements(const int64_t* dims, int num_dims);

/* ------------------------------------------------------------------ builders */

typedef struct MT_StringList {
  char** items;
  int count;
  int capacity;
} MT_StringList;

MT_EXPORT void MT_StringListAppend(MT_StringList* list, const char* text);
MT_EXPORT void MT_StringListClear(MT_StringList* list);

struct TF_OpDefinitionBuilder {
  char* name;
  MT_StringList attrs;
  MT_StringList inputs;
  MT_StringList outputs;
  int is_commutative;
  int is_aggregate;
  int is_stateful;
  int allows_uninitialized_input;
  int has_deprecation;
  int deprecation_version;
  char* deprecation_explanation;
  void (*shape_fn)(TF_ShapeInferenceContext* ctx, TF_Status* status);
};

typedef struct MT_TypeConstraint {
  char* attr;
  TF_DataType type;
} MT_TypeConstraint;

struct TF_KernelBuilder {
  char* op;
  char* device;
  void* (*create)(TF_OpKernelConstruction*);
  void (*compute)(void*, TF_OpKernelContext*);
  void (*compute_async)(void*, TF_OpKernelContext*, TF_AsyncOpKernelDoneCallback*);
  void (*destroy)(void*);
  MT_TypeConstraint* constraints;
  int num_constraints;
  MT_StringList host_memory;
  int32_t priority;
  char* label;
};

/* ------------------------------------------------------------------ shape inference */

/* Handles hold a runtime object (a Python ShapeHandle/DimensionHandle owned by
 * the bridge); NULL means "not set" (TF's default-constructed handle). */
struct TF_ShapeHandle {
  void* obj;
};
struct TF_DimensionHandle {
  void* obj;
};
struct TF_ShapeInferenceContext {
  void* py; /* the runtime's InferenceContext (borrowed) */
};

/* ------------------------------------------------------------------ kernels */

struct TF_OpKernelConstruction {
  void* py; /* the runtime's OpKernelConstruction (borrowed) */
  const char* name;
  size_t name_len;
  TF_Status* failure; /* first failure reported, or NULL */
};

typedef struct MT_ArgRange {
  char* name;
  int start;
  int stop;
} MT_ArgRange;

/* What a kernel instance knows about its node, filled once at construction. */
typedef struct MT_Kernel {
  TF_KernelBuilder* builder; /* kept alive by the registration */
  void* state;               /* create()'s result */
  char* name;
  size_t name_len;
  char* device_name;
  size_t device_name_len;
  int device_id;
  int num_inputs;
  int num_outputs;
  TF_DataType* input_types;
  TF_DataType* output_types;
  unsigned char* input_host_memory;
  unsigned char* output_host_memory;
  char** requested_inputs;
  size_t* requested_input_lens;
  int num_requested_inputs;
  MT_ArgRange* input_ranges;
  int num_input_ranges;
  int graph_def_version;
  int is_cpu;    /* TF_GetStream: no device context */
  void* stream;  /* SP_Stream of a pluggable device, or NULL */
} MT_Kernel;

/* MT_Kernel members allocated by MT_KernelInit's caller are released by this. */
MT_EXPORT void MT_KernelRelease(MT_Kernel* kernel);

/* One input of a kernel call: a view of the runtime's value. */
typedef struct MT_Input {
  TF_DataType dtype;
  int num_dims;
  const int64_t* dims; /* inline_dims or memory the bridge owns for the call (shapes can change under it) */
  int64_t inline_dims[MT_INLINE_DIMS];
  void* data;
  size_t nbytes;
  MT_Buffer* buffer; /* created on the first TF_GetInput */
  void* owner;       /* the runtime's value (borrowed for the call) */
  int borrowed;      /* 1: memory of the runtime's value `owner`; 2: of a temporary copy; 3: of an aligned or
                        contiguous copy `owner` of a runtime value (forwarded in its place); 0: owned by `buffer`.
                        The bridge adopts `owner` when a handle to a borrowed buffer outlives the call. */
} MT_Input;

/* The buffer over an input's memory (TF_GetInput's), made on its first use from any thread; borrowed. */
MT_EXPORT MT_Buffer* MT_InputBuffer(MT_Input* in);

struct TF_OpKernelContext {
  MT_Kernel* kernel;
  void* py; /* the runtime's OpKernelContext (borrowed) */
  int num_inputs;
  int num_outputs;
  MT_Input* inputs;
  TF_Tensor** outputs; /* what the kernel set, NULL when unset */
  int64_t step_id;
  atomic_int deferred_ops;
  atomic_flag failure_lock;
  TF_Status* failure;
};

/* Record the first failure of a call or construction (thread-safe for calls). */
MT_EXPORT void MT_ContextFail(TF_OpKernelContext* ctx, TF_Code code, const char* message);

/* Wait until TF_DecNumDeferredOps brought the deferred count back to zero. */
MT_EXPORT void MT_ContextWaitDeferred(TF_OpKernelContext* ctx);

/* Call a kernel: compute (or compute_async, waiting for its done callback),
 * then wait for deferred work. The caller filled `ctx`. */
MT_EXPORT void MT_RunKernel(TF_OpKernelContext* ctx);

/* An asynchronous kernel's completion. With `on_done` set, TF_RunAsyncOpKernelDoneCallback
 * calls on_done(arg) (on whatever thread the plugin finishes on); otherwise it wakes a
 * waiter on mutex/cond (MT_RunKernel's synchronous use). */
struct TF_AsyncOpKernelDoneCallback {
  pthread_mutex_t mutex;
  pthread_cond_t cond;
  int done;
  void (*on_done)(void* arg);
  void* arg;
};

/* Start an asynchronous kernel (compute_async) and return; `done` (heap-allocated by the
 * caller, with on_done set) reports its completion. The caller filled `ctx`, which must
 * stay alive until on_done ran. */
MT_EXPORT void MT_StartKernelAsync(TF_OpKernelContext* ctx, struct TF_AsyncOpKernelDoneCallback* done);

/* ------------------------------------------------------------------ the callback table */

enum { MT_ALLOC_OUTPUT = 0, MT_ALLOC_TEMP = 1 };
/* What MT_Callbacks.variable_op does (the runtime's part of the variable functions of kernels_experimental.h). */
enum { MT_VAR_ASSIGN = 0, MT_VAR_UPDATE = 1, MT_VAR_INPUT = 2, MT_VAR_SPARSE_ACCESS = 3 };
enum { MT_VARF_LOCK_HELD = 1, MT_VARF_SPARSE = 2, MT_VARF_VALIDATE_SHAPE = 4, MT_VARF_VARIANT = 8 };
enum { MT_RANK_EXACTLY = 0, MT_RANK_AT_LEAST = 1, MT_RANK_AT_MOST = 2 };
enum { MT_CONTEXT_FUNCTION_LIBRARY = 0, MT_CONTEXT_CONFIG_PROTO = 1, MT_CONTEXT_RESOURCE_HANDLE = 2 };
/* Questions c_api.h's registry functions ask (registry_query's `what`). */
enum { MT_QUERY_OP_LIST = 0, MT_QUERY_KERNEL_LIST = 1, MT_QUERY_OP_IS_STATEFUL = 2 };

/* Everything the shim asks of the runtime. Every call sets `status` on error.
 * Functions returning a TF_Buffer* or TF_Tensor* return a new object the shim
 * frees. Shape and dimension objects are released with release_object. */
typedef struct MT_Callbacks {
  size_t struct_size;

  /* Registration; both consume the builder, also on error. */
  void (*register_op)(TF_OpDefinitionBuilder* builder, TF_Status* status);
  void (*register_kernel)(const char* name, const char* serialized_kernel_def, TF_KernelBuilder* builder,
                          TF_Status* status);

  /* Kernel construction: a serialized AttrValue (NotFound when absent), the
   * serialized NodeDef, and tensor attrs converted by the runtime (max_vals < 0:
   * a scalar `tensor` attr, written to vals[0]). */
  TF_Buffer* (*construction_attr)(TF_OpKernelConstruction* ctx, const char* attr_name, TF_Status* status);
  TF_Buffer* (*construction_node_def)(TF_OpKernelConstruction* ctx, TF_Status* status);
  void (*construction_attr_tensors)(TF_OpKernelConstruction* ctx, const char* attr_name, TF_Tensor** vals,
                                    int max_vals, TF_Status* status);

  /* Kernel calls. allocate: MT_ALLOC_OUTPUT sets output `index` as TF_AllocateOutput does. */
  TF_Tensor* (*allocate)(TF_OpKernelContext* ctx, int what, int index, TF_DataType dtype, const int64_t* dims,
                         int num_dims, int on_host, TF_Status* status);
  TF_Tensor* (*forward_or_allocate)(TF_OpKernelContext* ctx, const int* candidates, int num_candidates,
                                    int output_index, const int64_t* dims, int num_dims, int* forwarded,
                                    TF_Status* status);
  void (*context_buffer)(TF_OpKernelContext* ctx, int what, int index, TF_Buffer* out, TF_Status* status);

  /* Shape inference. Results replace the object held by `out`. */
  int64_t (*shape_num_inputs)(TF_ShapeInferenceContext* ctx);
  void (*shape_input)(TF_ShapeInferenceContext* ctx, int i, TF_ShapeHandle* out, TF_Status* status);
  void (*shape_set_output)(TF_ShapeInferenceContext* ctx, int i, TF_ShapeHandle* shape, TF_Status* status);
  void (*shape_make)(TF_ShapeInferenceContext* ctx, int64_t rank, const int64_t* dims, TF_ShapeHandle* out);
  TF_Buffer* (*shape_attr)(TF_ShapeInferenceContext* ctx, const char* attr_name, TF_Status* status);
  int64_t (*shape_rank)(TF_ShapeHandle* shape); /* -1 when unknown */
  void (*shape_with_rank)(TF_ShapeInferenceContext* ctx, TF_ShapeHandle* shape, int64_t rank, int mode,
                          TF_ShapeHandle* out, TF_Status* status);
  void (*shape_dim)(TF_ShapeInferenceContext* ctx, TF_ShapeHandle* shape, int64_t i, TF_DimensionHandle* out);
  int64_t (*dim_value)(TF_DimensionHandle* dim); /* -1 when unknown */
  void (*shape_subshape)(TF_ShapeInferenceContext* ctx, TF_ShapeHandle* shape, int64_t start, int64_t end,
                         TF_ShapeHandle* out, TF_Status* status);
  void (*shape_concatenate)(TF_ShapeInferenceContext* ctx, TF_ShapeHandle* a, TF_ShapeHandle* b,
                            TF_ShapeHandle* out, TF_Status* status);
  void (*shape_set_unknown)(TF_ShapeInferenceContext* ctx, TF_Status* status);
  void (*release_object)(void* obj);

  /* Variables. variable_op (what = MT_VAR_*, flags = MT_VARF_*) looks up the variable at resource input
   * `input` and does the runtime's bookkeeping; it sets out[0] to the tensor of the variable's value the
   * plugin works on, out[1] (or NULL) to a tensor the shim must first copy into out[0] with the plugin's
   * copyFunc (copy-on-write), out[2] (MT_VAR_UPDATE) to the value input. *lock gets the variable lock the
   * call took, or NULL; the shim releases it with variable_unlock when the plugin is done. variable_lock
   * takes the locks of the variables at the resource inputs listed, in a fixed order. */
  void (*variable_op)(TF_OpKernelContext* ctx, int what, int input, int value_index, int flags, TF_Tensor** out,
                      void** lock, TF_Status* status);
  void* (*variable_lock)(TF_OpKernelContext* ctx, const int* inputs, int len, TF_Status* status);
  void (*variable_unlock)(void* lock);
  /* c_api.h: the registries (MT_QUERY_*: a serialized OpList; a serialized KernelList of op `name`,
   * or of every op when `name` is NULL; "1" or "0" for whether op `name` is stateful), and a
   * serialized TensorProto made into a new tensor. */
  TF_Buffer* (*registry_query)(int what, const char* name, TF_Status* status);
  TF_Tensor* (*tensor_from_proto)(const void* proto, size_t proto_len, TF_Status* status);
} MT_Callbacks;

#define MT_CALLBACKS_STRUCT_SIZE TF_OFFSET_OF_END(MT_Callbacks, tensor_from_proto)

/* Install the runtime's callbacks (copied); NULL detaches. */
MT_EXPORT void MT_SetCallbacks(const MT_Callbacks* callbacks);

/* The installed callbacks, or NULL when no runtime is attached. */
MT_EXPORT const MT_Callbacks* MT_GetCallbacks(void);

/* MT_INTERNAL_VERSION of this shim. */
MT_EXPORT int MT_InternalVersion(void);

/* ------------------------------------------------------------------ crash reports (crash_report.c) */

/* Where a call into plugin code goes: the plugin file, and for kernels the op, node and device.
 * The caller keeps the strings alive while the call is recorded; empty or NULL fields are omitted. */
typedef struct MT_CallSite {
  const char* library;
  const char* op;
  const char* node;
  const char* device;
} MT_CallSite;

/* Record (push) / forget (pop) the plugin call this thread is about to make / has made; `what`
 * names the call ("compute", "TF_InitKernel", "memcpy_htod", ...). Nested calls stack up. */
MT_EXPORT void MT_PushPluginCall(const MT_CallSite* site, const char* what);
MT_EXPORT void MT_PopPluginCall(void);
/* The innermost recorded call of this thread (and its `what`), or NULL; for tests and tools. */
MT_EXPORT const MT_CallSite* MT_CurrentPluginCall(const char** what);
MT_EXPORT int MT_PluginCallDepth(void);
/* Install the fatal-signal handler (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT) that prints the
 * recorded plugin call before handing the signal to the previous handler. Returns 1 when it was
 * installed by this call, 0 when it already was. */
MT_EXPORT int MT_InstallCrashHandler(void);

/* Sets `status` to the error every runtime-backed call returns without a runtime. */
void MT_NoRuntime(TF_Status* status, const char* function);

/* strdup that never returns NULL for a non-NULL input (aborts on out-of-memory). */
char* MT_Strdup(const char* text);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MODTENSOR_CSRC_SHIM_MT_INTERNAL_H_ */
