/* modtensor bridge: the CPython extension (modtensor.plugin.native._bridge) that
 * connects the shim to the Python runtime.
 *
 * It installs the shim's callback table (implemented here in C, calling the
 * Python hooks of modtensor.plugin.native.hooks), converts between numpy arrays
 * and TF_Tensors without copying, and runs C kernels: Kernel.compute fills the
 * native TF_OpKernelContext from the runtime's OpKernelContext, releases the GIL,
 * calls the plugin, and turns what the plugin set into the context's outputs. */
#ifndef MODTENSOR_CSRC_BRIDGE_BRIDGE_H_
#define MODTENSOR_CSRC_BRIDGE_BRIDGE_H_

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL modtensor_bridge_ARRAY_API
#ifndef MT_BRIDGE_DEFINES_NUMPY_API
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#if NPY_ABI_VERSION < 0x02000000 /* numpy 1.x headers: no accessor */
#define PyDataType_ELSIZE(descr) ((descr)->elsize)
#endif

#include "mt_internal.h"
#include "segment_api.h"

/* The Python hooks the bridge calls, by index (names in bridge_module.c). */
enum {
  HOOK_REGISTER_OP,
  HOOK_REGISTER_KERNEL,
  HOOK_CONSTRUCTION_ATTR,
  HOOK_CONSTRUCTION_NODE_DEF,
  HOOK_CONSTRUCTION_ATTR_TENSORS,
  HOOK_ALLOCATE_TEMP,
  HOOK_FORWARD_OR_ALLOCATE,
  HOOK_CONTEXT_BUFFER,
  HOOK_ERROR_STATUS,
  HOOK_MAKE_ERROR,
  HOOK_KERNEL_FAILURE,
  HOOK_STRINGS_AS_OBJECTS,
  HOOK_SHAPE_NUM_INPUTS,
  HOOK_SHAPE_INPUT,
  HOOK_SHAPE_SET_OUTPUT,
  HOOK_SHAPE_MAKE,
  HOOK_SHAPE_ATTR,
  HOOK_SHAPE_RANK,
  HOOK_SHAPE_WITH_RANK,
  HOOK_SHAPE_DIM,
  HOOK_DIM_VALUE,
  HOOK_SHAPE_SUBSHAPE,
  HOOK_SHAPE_CONCATENATE,
  HOOK_SHAPE_SET_UNKNOWN,
  HOOK_VARIABLE_OP,
  HOOK_VARIABLE_LOCK,
  HOOK_REGISTRY_QUERY,
  HOOK_TENSOR_FROM_PROTO,
  HOOK_COUNT
};

extern PyObject* mt_hooks[HOOK_COUNT];

/* numpy dtype of each TF_DataType (NULL: no array representation). */
#define MT_NUM_DTYPES 64
extern PyArray_Descr* mt_descr[MT_NUM_DTYPES];

/* Interned attribute names of the runtime's OpKernelContext. */
extern PyObject* mt_str_inputs;
extern PyObject* mt_str_outputs;
extern PyObject* mt_str_step_id;
extern PyObject* mt_str_allocate_output;
extern PyObject* mt_str_device;
extern PyObject* mt_str_allocator;
extern PyObject* mt_str_host_allocator;
extern PyObject* mt_str_collect_stats;
extern PyObject* mt_str_device_address; /* a pluggable device's buffer (DeviceBuffer) has this */
extern PyObject* mt_str_nbytes;
extern PyObject* mt_str_shape;
extern PyObject* mt_str_view;

/* The runtime's plain numpy allocator class (hooks.CPU_ALLOCATOR_TYPE): allocations
 * from it without statistics are np.empty, which the bridge does in C. */
extern PyObject* mt_cpu_allocator_type;

/* Call hook `which` with `args` (a new tuple, stolen). On a Python exception the
 * error goes into `status` (when not NULL) and NULL is returned. GIL held. */
PyObject* mt_call_hook(int which, PyObject* args, TF_Status* status);

/* Put the pending Python exception into `status` (clearing it). GIL held. */
void mt_status_from_exception(TF_Status* status);

/* Raise the OpError class of `status` as the current Python exception. GIL held. */
void mt_raise_status(const TF_Status* status);

/* A malloc'ed copy of `text` (NULL: ""); aborts on out-of-memory as the shim's own copies do. */
static inline char* mt_copy_text(const char* text) {
  if (text == NULL) text = "";
  size_t len = strlen(text) + 1;
  char* copy = (char*)malloc(len);
  if (copy == NULL) abort();
  memcpy(copy, text, len);
  return copy;
}

/* ---- values (bridge_values.c) ---- */

/* Deallocator of buffers over Python objects: drops the reference in `arg`. */
void mt_release_python_owner(void* data, size_t len, void* arg);

/* A TF_Tensor over a C-contiguous numpy array (a reference is kept). */
TF_Tensor* mt_tensor_from_array(PyObject* array, TF_DataType dtype, TF_Status* status);

/* A numpy array for what `t` holds: the runtime's own array when `t` is a
 * whole view of it, else an array over the buffer that keeps it alive (taking the
 * memory over into a HostBlock when `t` is the only handle on shim-allocated memory:
 * call it on outputs about to be deleted); string tensors are copied into an object
 * array of bytes. New reference or NULL. */
PyObject* mt_value_from_tensor(const TF_Tensor* t);
/* The type of the base object of arrays over memory an output handed over (see mt_value_from_tensor). */
extern PyTypeObject MT_HostBlockType;
/* Pluggable device buffers: 1 and the address/size when `value` is one, 0 when not, -1 on error. */
int mt_device_buffer_info(PyObject* value, void** address, size_t* nbytes);
/* The runtime value of an output on a device buffer's memory (the buffer or a view of it). */
PyObject* mt_device_value(PyObject* owner, const TF_Tensor* t);

/* 1 when the `allocator` (on_host: `host_allocator`) of `device` is the runtime's CPU allocator without
 * statistics (allocations then need no Python call), 0 when not, -1 with a Python error. GIL held. */
int mt_host_allocator_plain(PyObject* device, int on_host);
/* 1 when the numpy array `owner` is writeable, C-contiguous and the only user of its memory (the default
 * Device.buffer_is_exclusive rule). The caller checks that nothing else references `owner`. GIL held. */
int mt_array_exclusive(PyObject* owner);
/* 1 when the runtime's value `owner` may become an output of TF_DataType `dtype` in place: a writeable
 * C-contiguous numpy array of that type that is the only user of its memory (the default
 * Device.buffer_is_exclusive rule). The caller checks that nothing else references `owner`. GIL held. */
int mt_array_forwardable(PyObject* owner, int dtype);

/* The runtime value of an output: the owner of the input in `in` whose buffer it is (or a view of it), else
 * mt_value_from_tensor's array. New reference, or NULL with an exception. GIL held. */
PyObject* mt_output_value(const TF_Tensor* t, const MT_Input* in, int num_inputs);
/* The segment runner's API (segment_api.h), the context of the DIRECT_CALL capsule. */
extern const MT_SegmentAPI mt_segment_api;

/* A new C-contiguous array of `descr` (a reference is stolen) whose data is MT_ALIGNMENT-aligned
 * (TensorFlow's 64 bytes: plugins built with Eigen/oneDNN check TF_TensorIsAligned). */
PyObject* mt_aligned_empty(int nd, const npy_intp* dims, PyArray_Descr* descr);

/* Fill `in` from runtime value `value` of type `dtype`. Temporary arrays go into
 * `*keep` (a list made on demand). `aligned`: the kernel needs TensorFlow's 64-byte alignment (else element
 * alignment will do). Returns 0, or -1 with a Python exception. */
int mt_fill_input(MT_Input* in, PyObject* value, TF_DataType dtype, PyObject** keep, int aligned);

/* After a call: drop the input's buffer; a handle the plugin kept alive adopts
 * a reference to the input's array. GIL held. */
void mt_release_input(MT_Input* in);

/* ---- the callback table (bridge_callbacks.c) ---- */
void mt_install_callbacks(void);

/* ---- the Kernel type (bridge_kernel.c) ---- */
extern PyTypeObject MT_KernelType;

/* The C entry point of direct calls, exported as the module's DIRECT_CALL capsule (named
 * MT_DIRECT_CALL_CAPSULE, holding a pointer to this function): call(kernel, args, nargs, given) runs a Kernel
 * on the host fast path without a context and returns output 0 (new reference) or NULL with the error set. Bit
 * i of `given`: the caller gives argument i up (holds the reference it passes and drops it after the call), so
 * the kernel may reuse its buffer for the output when nothing else references it. csrc/plan declares the same
 * type. */
typedef PyObject* (*MT_DirectCallFunction)(PyObject* kernel, PyObject* const* args, Py_ssize_t nargs,
                                           uint64_t given);
#define MT_DIRECT_CALL_CAPSULE "modtensor.plugin.native._bridge.DIRECT_CALL"
extern MT_DirectCallFunction mt_direct_call_function;

#define MT_SMALL_ARITY 8

/* One C kernel instance (a node on a device). */
typedef struct MT_KernelObject {
  PyObject_HEAD
  MT_Kernel k;
  PyObject* builder_capsule; /* keeps the TF_KernelBuilder alive */
  PyObject* failure;         /* (code, message) of a construction failure, or None */
  int created;
  char* library;    /* the plugin file the kernel came from ("" when not known) */
  MT_CallSite site; /* what a crash report names: plugin, op, node, device */
  /* The host CPU device the kernel runs on, when the runtime lets the bridge allocate and forward for it in C
     (Kernel.enable_host_fast_path: numpy values, the default buffer-exclusivity rule); else NULL. */
  PyObject* host_device;
  /* The kernel reads inputs at any element-aligned address (Kernel.enable_host_fast_path's unaligned_ok: the
     built-in library's unaligned SIMD loads), so values numpy made are not copied to 64-byte alignment. */
  int unaligned_ok;
} MT_KernelObject;

/* One call of a kernel: the native context and what it borrows from the runtime. On the stack for a
 * synchronous call; on the heap (holding references) for an asynchronous one, until the plugin's done
 * callback finished it. `done` comes first: its address is the call's.
 *
 * Two kinds: a call with the runtime's OpKernelContext (`py_ctx`, ctx.py: Kernel.compute and
 * compute_async), and a direct call (Kernel.direct_call: ctx.py is NULL, the inputs are the call's
 * arguments and output 0 its result; only on a host fast-path kernel, which allocates in C). */
typedef struct MT_Call {
  struct TF_AsyncOpKernelDoneCallback done;
  struct TF_OpKernelContext ctx;
  MT_Input in_small[MT_SMALL_ARITY];
  TF_Tensor* out_small[MT_SMALL_ARITY];
  unsigned char movable_small[MT_SMALL_ARITY];
  MT_Input* in;
  TF_Tensor** out;
  int filled;
  PyObject* py_ctx;
  PyObject* inputs;  /* the context's inputs list (direct calls: NULL) */
  PyObject* outputs; /* the context's outputs list (direct calls: NULL) */
  PyObject* keep;
  PyObject* callback; /* asynchronous calls: called with None or the error once the kernel finished */
  MT_KernelObject* kernel;
  /* Direct calls: per input, 1 when the caller let the value go (its only reference is the argument), so
     its buffer may become the output. Calls with a context look at the context's inputs list instead. */
  unsigned char* movable;
  /* A direct call keeping the GIL while the kernel runs: callbacks on `gil_thread` need not take it. */
  int gil_held;
  pthread_t gil_thread;
  /* A direct call without the GIL: bit 0 (bit 1) when the device's allocator (host_allocator) is the runtime's
     plain numpy allocator, so allocations come from the shim without taking the GIL (mt_host_allocator_plain,
     checked before the call). */
  int plain_allocators;
  /* A step of a segment (mt_segment_call): its inputs are the segment's values, not the runtime's arrays, and
     `movable` says which of them the step may write into. */
  int segment;
} MT_Call;

/* The call a context belongs to: every context the bridge makes is an MT_Call's. */
static inline MT_Call* mt_call_of(TF_OpKernelContext* ctx) {
  return (MT_Call*)(void*)((char*)ctx - offsetof(MT_Call, ctx));
}

/* True when the callback runs on the thread of a direct call that holds the GIL. */
static inline int mt_gil_held_by_call(TF_OpKernelContext* ctx) {
  MT_Call* call = mt_call_of(ctx);
  return ctx->py == NULL && call->gil_held && pthread_equal(call->gil_thread, pthread_self());
}

/* The kernel object of a context's kernel. */
static inline MT_KernelObject* mt_kernel_object(TF_OpKernelContext* ctx) {
  return (MT_KernelObject*)(void*)((char*)ctx->kernel - offsetof(MT_KernelObject, k));
}

/* A step of a segment (bridge_segment.c), run without the GIL: `kernel` on the inputs `args` (borrowed; the
 * kernel's input types are taken), forwardable[i] when input i's value has no other reader, with the
 * allocators `plain_allocators` (MT_Call). Its output 0, or NULL with *failure set to the kernel's status. */
TF_Tensor* mt_segment_call(MT_KernelObject* kernel, const MT_Input* const* args, const unsigned char* forwardable,
                           int plain_allocators, TF_Status** failure);
#endif /* MODTENSOR_CSRC_BRIDGE_BRIDGE_H_ */
