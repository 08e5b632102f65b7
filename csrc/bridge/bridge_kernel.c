/* modtensor bridge: Kernel, one C kernel instance (a node on a device).
 *
 * Kernel(builder_capsule, construction, info) runs the plugin's create function;
 * Kernel.compute(ctx) is the per-call path: it reads ctx.inputs, fills the native
 * context with the inputs' pointers, shapes and types, calls the plugin without
 * the GIL, and stores what the plugin set into ctx.outputs. */
#include <string.h>

#include "bridge.h"

typedef MT_KernelObject KernelObject;

static char* copy_utf8(PyObject* text, size_t* len) {
  Py_ssize_t n;
  const char* data = PyUnicode_AsUTF8AndSize(text, &n);
  if (data == NULL) return NULL;
  char* copy = (char*)malloc((size_t)n + 1);
  if (copy == NULL) {
    PyErr_NoMemory();
    return NULL;
  }
  memcpy(copy, data, (size_t)n + 1);
  if (len != NULL) *len = (size_t)n;
  return copy;
}

static int int_list(PyObject* seq, int** out, int* count) {
  PyObject* fast = PySequence_Fast(seq, "expected a sequence of ints");
  if (fast == NULL) return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  int* values = (int*)calloc((size_t)(n > 0 ? n : 1), sizeof(int));
  if (values == NULL) {
    Py_DECREF(fast);
    PyErr_NoMemory();
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    values[i] = (int)PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
  }
  Py_DECREF(fast);
  if (PyErr_Occurred()) {
    free(values);
    return -1;
  }
  *out = values;
  *count = (int)n;
  return 0;
}

/* info: (name, device_name, device_id, is_cpu, input_types, output_types, input_host_memory,
 *        output_host_memory, requested_inputs, input_ranges, graph_def_version[, stream[, library]]);
 * stream: the device's SP_Stream as an int (0: none), what TF_GetStream returns; library: the
 * plugin file (named by crash reports). */
static int parse_info(MT_Kernel* k, PyObject* info, char** library) {
  PyObject *name, *device_name, *input_types, *output_types, *input_host, *output_host, *requested, *ranges;
  int device_id, is_cpu, graph_def_version;
  unsigned long long stream = 0;
  const char* library_text = NULL;
  if (!PyArg_ParseTuple(info, "UUipOOOOOOi|Kz", &name, &device_name, &device_id, &is_cpu, &input_types,
                        &output_types, &input_host, &output_host, &requested, &ranges, &graph_def_version, &stream,
                        &library_text)) {
    return -1;
  }
  *library = mt_copy_text(library_text != NULL ? library_text : "");
  k->stream = (void*)(uintptr_t)stream;
  if ((k->name = copy_utf8(name, &k->name_len)) == NULL) return -1;
  if ((k->device_name = copy_utf8(device_name, &k->device_name_len)) == NULL) return -1;
  k->device_id = device_id;
  k->is_cpu = is_cpu;
  k->graph_def_version = graph_def_version;
  int *types = NULL, n = 0;
  if (int_list(input_types, &types, &n) < 0) return -1;
  k->num_inputs = n;
  k->input_types = (TF_DataType*)calloc((size_t)(n > 0 ? n : 1), sizeof(TF_DataType));
  for (int i = 0; i < n; ++i) k->input_types[i] = (TF_DataType)types[i];
  free(types);
  if (int_list(output_types, &types, &n) < 0) return -1;
  k->num_outputs = n;
  k->output_types = (TF_DataType*)calloc((size_t)(n > 0 ? n : 1), sizeof(TF_DataType));
  for (int i = 0; i < n; ++i) k->output_types[i] = (TF_DataType)types[i];
  free(types);
  if (int_list(input_host, &types, &n) < 0) return -1;
  k->input_host_memory = (unsigned char*)calloc((size_t)(k->num_inputs > 0 ? k->num_inputs : 1), 1);
  for (int i = 0; i < n && i < k->num_inputs; ++i) k->input_host_memory[i] = types[i] != 0;
  free(types);
  if (int_list(output_host, &types, &n) < 0) return -1;
  k->output_host_memory = (unsigned char*)calloc((size_t)(k->num_outputs > 0 ? k->num_outputs : 1), 1);
  for (int i = 0; i < n && i < k->num_outputs; ++i) k->output_host_memory[i] = types[i] != 0;
  free(types);

  PyObject* fast = PySequence_Fast(requested, "requested_inputs must be a sequence");
  if (fast == NULL) return -1;
  Py_ssize_t nr = PySequence_Fast_GET_SIZE(fast);
  k->requested_inputs = (char**)calloc((size_t)(nr > 0 ? nr : 1), sizeof(char*));
  k->requested_input_lens = (size_t*)calloc((size_t)(nr > 0 ? nr : 1), sizeof(size_t));
  for (Py_ssize_t i = 0; i < nr; ++i) {
    k->requested_inputs[i] = copy_utf8(PySequence_Fast_GET_ITEM(fast, i), &k->requested_input_lens[i]);
    if (k->requested_inputs[i] == NULL) {
      Py_DECREF(fast);
      return -1;
    }
    k->num_requested_inputs = (int)i + 1;
  }
  Py_DECREF(fast);

  fast = PySequence_Fast(ranges, "input_ranges must be a sequence");
  if (fast == NULL) return -1;
  Py_ssize_t ng = PySequence_Fast_GET_SIZE(fast);
  k->input_ranges = (MT_ArgRange*)calloc((size_t)(ng > 0 ? ng : 1), sizeof(MT_ArgRange));
  for (Py_ssize_t i = 0; i < ng; ++i) {
    PyObject* arg_name;
    int start, stop;
    if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, i), "Uii", &arg_name, &start, &stop) ||
        (k->input_ranges[i].name = copy_utf8(arg_name, NULL)) == NULL) {
      Py_DECREF(fast);
      return -1;
    }
    k->input_ranges[i].start = start;
    k->input_ranges[i].stop = stop;
    k->num_input_ranges = (int)i + 1;
  }
  Py_DECREF(fast);
  return 0;
}

static PyObject* Kernel_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  (void)kwargs;
  PyObject *capsule, *construction, *info;
  if (!PyArg_ParseTuple(args, "OOO", &capsule, &construction, &info)) return NULL;
  TF_KernelBuilder* builder = (TF_KernelBuilder*)PyCapsule_GetPointer(capsule, "modtensor.TF_KernelBuilder");
  if (builder == NULL) return NULL;
  KernelObject* self = (KernelObject*)type->tp_alloc(type, 0);
  if (self == NULL) return NULL;
  self->builder_capsule = Py_NewRef(capsule);
  self->failure = Py_NewRef(Py_None);
  self->k.builder = builder;
  if (parse_info(&self->k, info, &self->library) < 0) {
    Py_DECREF(self);
    return NULL;
  }
  self->site.library = self->library;
  self->site.op = builder->op;
  self->site.node = self->k.name;
  self->site.device = self->k.device_name;
  struct TF_OpKernelConstruction c = {construction, self->k.name, self->k.name_len, NULL};
  if (builder->create != NULL) {
    MT_PushPluginCall(&self->site, "construction (create_func) of the kernel");
    self->k.state = builder->create(&c);
    MT_PopPluginCall();
  }
  self->created = 1;
  if (PyErr_Occurred()) { /* a hook failed outside any status: keep the Python error */
    TF_DeleteStatus(c.failure);
    Py_DECREF(self);
    return NULL;
  }
  if (c.failure != NULL) {
    PyObject* failure = Py_BuildValue("(is)", (int)TF_GetCode(c.failure), TF_Message(c.failure));
    TF_DeleteStatus(c.failure);
    if (failure == NULL) {
      Py_DECREF(self);
      return NULL;
    }
    Py_SETREF(self->failure, failure);
  }
  return (PyObject*)self;
}

static void Kernel_dealloc(KernelObject* self) {
  if (self->created && self->k.builder != NULL && self->k.builder->destroy != NULL) {
    MT_PushPluginCall(&self->site, "destruction (delete_func) of the kernel");
    self->k.builder->destroy(self->k.state);
    MT_PopPluginCall();
  }
  MT_KernelRelease(&self->k);
  free(self->library);
  Py_XDECREF(self->builder_capsule);
  Py_XDECREF(self->failure);
  Py_XDECREF(self->host_device);
  Py_TYPE(self)->tp_free((PyObject*)self);
}

#define SMALL_ARITY MT_SMALL_ARITY

/* Direct calls whose inputs hold at most this many elements in all keep the GIL while the kernel runs. */
#define MT_DIRECT_GIL_ELEMENTS 4096

/* An output that is an input passed through (TF_GetInput + TF_SetOutput, or forwarded): the input's own value
 * when nothing changed, else a view of it. NULL if the output is not on an input's buffer (an exception set when
 * making the view failed). */
static PyObject* output_from_input(const TF_Tensor* t, const MT_Input* in, int num_inputs) {
  for (int j = 0; j < num_inputs; ++j) {
    if (in[j].buffer != t->buffer || in[j].borrowed == 0) continue;
    if (!PyArray_Check((PyObject*)in[j].owner)) return mt_device_value((PyObject*)in[j].owner, t);
    PyArrayObject* owner = (PyArrayObject*)in[j].owner;
    PyArray_Descr* descr = (unsigned)t->dtype < MT_NUM_DTYPES ? mt_descr[t->dtype] : NULL;
    if (descr == NULL) return NULL;
    npy_intp dims[NPY_MAXDIMS];
    if (t->num_dims > NPY_MAXDIMS) return NULL;
    for (int d = 0; d < t->num_dims; ++d) dims[d] = (npy_intp)t->dims[d];
    if (PyArray_NDIM(owner) == t->num_dims && PyArray_EquivTypes(PyArray_DESCR(owner), descr) &&
        memcmp(PyArray_DIMS(owner), dims, sizeof(npy_intp) * (size_t)t->num_dims) == 0) {
      return Py_NewRef((PyObject*)owner);
    }
    int64_t n = MT_NumElements(t->dims, t->num_dims);
    if ((size_t)n * (size_t)PyDataType_ELSIZE(descr) > in[j].nbytes) return NULL;
    Py_INCREF(descr);
    int flags = NPY_ARRAY_C_CONTIGUOUS | (PyArray_ISWRITEABLE(owner) ? NPY_ARRAY_WRITEABLE : 0);
    PyObject* view = PyArray_NewFromDescr(&PyArray_Type, descr, t->num_dims, dims, NULL, in[j].data, flags, NULL);
    if (view == NULL) return NULL;
    if (PyArray_SetBaseObject((PyArrayObject*)view, Py_NewRef((PyObject*)owner)) < 0) {
      Py_DECREF(view);
      return NULL;
    }
    return view;
  }
  return NULL;
}

PyObject* mt_output_value(const TF_Tensor* t, const MT_Input* in, int num_inputs) {
  PyObject* value = output_from_input(t, in, num_inputs);
  return value != NULL || PyErr_Occurred() ? value : mt_value_from_tensor(t);
}

typedef MT_Call KernelCall;

/* Read the context's inputs into the native context. -1 with a Python error; call_end cleans up either way. */
static int call_begin(KernelObject* self, PyObject* py_ctx, KernelCall* call) {
  MT_Kernel* k = &self->k;
  call->in = call->in_small;
  call->out = call->out_small;
  call->py_ctx = Py_NewRef(py_ctx);
  call->kernel = (KernelObject*)Py_NewRef((PyObject*)self);
  if ((call->inputs = PyObject_GetAttr(py_ctx, mt_str_inputs)) == NULL) return -1;
  if ((call->outputs = PyObject_GetAttr(py_ctx, mt_str_outputs)) == NULL) return -1;
  PyObject* step = PyObject_GetAttr(py_ctx, mt_str_step_id);
  int64_t step_id = step == NULL ? 0 : (int64_t)PyLong_AsLongLong(step);
  Py_XDECREF(step);
  if (PyErr_Occurred()) return -1;
  if (!PyList_Check(call->inputs) || PyList_GET_SIZE(call->inputs) != k->num_inputs || !PyList_Check(call->outputs) ||
      PyList_GET_SIZE(call->outputs) != k->num_outputs) {
    PyErr_Format(PyExc_RuntimeError, "kernel '%s' expects %d inputs and %d outputs in its context", k->name,
                 k->num_inputs, k->num_outputs);
    return -1;
  }
  if (k->num_inputs > SMALL_ARITY) call->in = (MT_Input*)calloc((size_t)k->num_inputs, sizeof(MT_Input));
  if (k->num_outputs > SMALL_ARITY) call->out = (TF_Tensor**)calloc((size_t)k->num_outputs, sizeof(TF_Tensor*));
  if (call->in == NULL || call->out == NULL) {
    PyErr_NoMemory();
    return -1;
  }
  memset(call->out, 0, sizeof(TF_Tensor*) * (size_t)k->num_outputs);
  for (int i = 0; i < k->num_inputs; ++i) {
    memset(&call->in[i], 0, sizeof(MT_Input));
    call->filled = i + 1;
    if (mt_fill_input(&call->in[i], PyList_GET_ITEM(call->inputs, i), k->input_types[i], &call->keep,
                      !self->unaligned_ok) < 0) {
      return -1;
    }
  }
  call->filled = k->num_inputs;
  struct TF_OpKernelContext* ctx = &call->ctx;
  ctx->kernel = k;
  ctx->py = py_ctx;
  ctx->num_inputs = k->num_inputs;
  ctx->num_outputs = k->num_outputs;
  ctx->inputs = call->in;
  ctx->outputs = call->out;
  ctx->step_id = step_id;
  atomic_init(&ctx->deferred_ops, 0);
  atomic_flag_clear(&ctx->failure_lock);
  ctx->failure = NULL;
  return 0;
}

/* Report the kernel's failure and store what it set into the context's outputs. -1 with a Python error. */
static int call_collect(KernelCall* call) {
  MT_Kernel* k = &call->kernel->k;
  if (call->ctx.failure != NULL) {
    PyObject* r = PyObject_CallFunction(mt_hooks[HOOK_KERNEL_FAILURE], "Ois", call->py_ctx,
                                        (int)TF_GetCode(call->ctx.failure), TF_Message(call->ctx.failure));
    TF_DeleteStatus(call->ctx.failure);
    call->ctx.failure = NULL;
    if (r == NULL) return -1;
    Py_DECREF(r);
  }
  for (int i = 0; i < k->num_outputs; ++i) {
    if (call->out[i] == NULL) continue;
    PyObject* value = mt_output_value(call->out[i], call->in, k->num_inputs);
    if (value == NULL) return -1;
    PyObject* old = PyList_GET_ITEM(call->outputs, i);
    PyList_SET_ITEM(call->outputs, i, value);
    Py_XDECREF(old);
  }
  return 0;
}

static void call_end(KernelCall* call) {
  MT_Kernel* k = call->kernel != NULL ? &call->kernel->k : NULL;
  if (call->out != NULL && k != NULL) { /* outputs first: an input passed through then needs no adoption */
    for (int i = 0; i < k->num_outputs; ++i) TF_DeleteTensor(call->out[i]);
  }
  for (int i = 0; i < call->filled; ++i) mt_release_input(&call->in[i]);
  if (call->in != call->in_small) free(call->in);
  if (call->out != call->out_small) free(call->out);
  if (call->movable != call->movable_small) free(call->movable);
  if (call->ctx.failure != NULL) TF_DeleteStatus(call->ctx.failure);
  Py_XDECREF(call->keep);
  Py_XDECREF(call->inputs);
  Py_XDECREF(call->outputs);
  Py_XDECREF(call->py_ctx);
  Py_XDECREF(call->callback);
  Py_XDECREF((PyObject*)call->kernel);
}

static PyObject* Kernel_compute(KernelObject* self, PyObject* py_ctx) {
  KernelCall call;
  memset(&call, 0, sizeof call);
  PyObject* result = NULL;
  if (call_begin(self, py_ctx, &call) == 0) {
    Py_BEGIN_ALLOW_THREADS
    MT_PushPluginCall(&self->site, "compute of the kernel");
    MT_RunKernel(&call.ctx);
    MT_PopPluginCall();
    Py_END_ALLOW_THREADS
    if (call_collect(&call) == 0) result = Py_NewRef(Py_None);
  }
  call_end(&call);
  return result;
}

/* The plugin's done callback of an asynchronous call, on whatever thread it finished on. */
static void async_done(void* arg) {
  KernelCall* call = (KernelCall*)arg;
  PyGILState_STATE gil = PyGILState_Ensure();
  PyObject* error = NULL;
  if (call_collect(call) < 0) {
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    PyErr_NormalizeException(&type, &value, &traceback);
    error = value != NULL ? value : Py_NewRef(Py_None);
    Py_XDECREF(type);
    Py_XDECREF(traceback);
  }
  PyObject* r = PyObject_CallOneArg(call->callback, error != NULL ? error : Py_None);
  if (r == NULL) PyErr_WriteUnraisable(call->callback);
  Py_XDECREF(r);
  Py_XDECREF(error);
  call_end(call);
  PyMem_RawFree(call);
  PyGILState_Release(gil);
}

static PyObject* Kernel_compute_async(KernelObject* self, PyObject* args) {
  PyObject *py_ctx, *callback;
  if (!PyArg_ParseTuple(args, "OO", &py_ctx, &callback)) return NULL;
  if (self->k.builder->compute_async == NULL) {
    PyErr_Format(PyExc_RuntimeError, "kernel '%s' has no compute_async function", self->k.name);
    return NULL;
  }
  KernelCall* call = (KernelCall*)PyMem_RawCalloc(1, sizeof(KernelCall));
  if (call == NULL) return PyErr_NoMemory();
  if (call_begin(self, py_ctx, call) < 0) {
    call_end(call);
    PyMem_RawFree(call);
    return NULL;
  }
  call->callback = Py_NewRef(callback);
  call->done.on_done = async_done;
  call->done.arg = call;
  Py_BEGIN_ALLOW_THREADS
  MT_PushPluginCall(&self->site, "compute_async of the kernel");
  MT_StartKernelAsync(&call->ctx, &call->done); /* `call` may be gone once this returns */
  MT_PopPluginCall();
  Py_END_ALLOW_THREADS
  Py_RETURN_NONE;
}

/* enable_host_fast_path(device, unaligned_ok=False): the kernel runs on `device`, a host CPU device whose
 * values are numpy arrays and whose buffers are exclusive by the default rule (Device.buffer_is_exclusive): the
 * bridge then allocates outputs (from the device's plain numpy allocator) and forwards inputs in C, and
 * direct_call works. unaligned_ok: the kernel reads inputs at any element-aligned address (no 64-byte copy). */
static PyObject* Kernel_enable_host_fast_path(KernelObject* self, PyObject* args, PyObject* kwargs) {
  static char* keywords[] = {"device", "unaligned_ok", NULL};
  PyObject* device;
  int unaligned_ok = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|p", keywords, &device, &unaligned_ok)) return NULL;
  if (!self->k.is_cpu) {
    PyErr_Format(PyExc_ValueError, "kernel '%s' does not run on a CPU device", self->k.name);
    return NULL;
  }
  Py_XSETREF(self->host_device, Py_NewRef(device));
  self->unaligned_ok = unaligned_ok;
  Py_RETURN_NONE;
}

/* A call of `self` without an OpKernelContext on n inputs (a direct call, or a segment step when `segment`): the
 * call's fields and its context of `outputs` outputs (at most SMALL_ARITY), the input and movable arrays on the
 * heap past SMALL_ARITY (inputs zeroed). -1 when out of memory (nothing to free). */
static int contextless_call_begin(KernelCall* call, KernelObject* self, int n, int segment, int outputs) {
  call->in = call->in_small;
  call->out = call->out_small;
  call->movable = call->movable_small;
  call->filled = 0;
  call->py_ctx = call->inputs = call->outputs = call->keep = call->callback = NULL;
  call->kernel = self; /* borrowed: the caller holds the kernel for the call */
  call->gil_held = 0;
  call->segment = segment;
  call->plain_allocators = 0;
  for (int i = 0; i < outputs; ++i) call->out[i] = NULL;
  if (n > SMALL_ARITY) {
    call->in = (MT_Input*)calloc((size_t)n, sizeof(MT_Input));
    call->movable = (unsigned char*)calloc((size_t)n, 1);
    if (call->in == NULL || call->movable == NULL) {
      free(call->in);
      free(call->movable);
      call->in = call->in_small;
      call->movable = call->movable_small;
      return -1;
    }
  }
  struct TF_OpKernelContext* ctx = &call->ctx;
  ctx->kernel = &self->k;
  ctx->py = NULL;
  ctx->num_inputs = n;
  ctx->num_outputs = outputs;
  ctx->inputs = call->in;
  ctx->outputs = call->out;
  ctx->step_id = 0;
  atomic_init(&ctx->deferred_ops, 0);
  atomic_flag_clear(&ctx->failure_lock);
  ctx->failure = NULL;
  return 0;
}

/* The heap arrays contextless_call_begin made for more than SMALL_ARITY inputs, freed. */
static void contextless_call_free(KernelCall* call) {
  if (call->in != call->in_small) free(call->in);
  if (call->movable != call->movable_small) free(call->movable);
}

/* A call of a kernel on the host fast path without an OpKernelContext: the inputs are `args`, output 0 is the
 * result (a new reference; NULL with the kernel's OpError raised), or with `all` a tuple of every output (a kernel
 * of up to SMALL_ARITY outputs). Bit i of `given` says the caller gives argument i up: it holds the reference the
 * caller passed and will drop it right after the call. Such an argument whose reference count is 1 (nobody else
 * holds it) may become the output's buffer, as OpKernelContext.forward_input allows for a context's inputs (for a
 * one-output kernel). */
static PyObject* direct_call(KernelObject* self, PyObject* const* args, Py_ssize_t nargs, uint64_t given, int all) {
  MT_Kernel* k = &self->k;
  int outputs = all ? k->num_outputs : 1;
  if (self->host_device == NULL || (all ? outputs > SMALL_ARITY : k->num_outputs != 1) ||
      nargs != k->num_inputs || k->builder->compute_async != NULL) {
    PyErr_Format(PyExc_TypeError,
                 "direct_call of kernel '%s': %zd inputs given, it takes %d (and needs %s, a synchronous compute and "
                 "the host fast path)",
                 k->name, nargs, k->num_inputs, all ? "at most 8 outputs" : "one output");
    return NULL;
  }
  if (outputs > 1) given = 0; /* forwarding is decided for output 0's dtype only */
  KernelCall call;
  PyObject* result = NULL;
  int n = k->num_inputs;
  int64_t elements = 0;
  if (contextless_call_begin(&call, self, n, 0, outputs) < 0) return PyErr_NoMemory();
  for (int i = 0; i < n; ++i) {
    MT_Input* in = &call.in[i]; /* what mt_release_input reads when filling fails early (no memset: it is slow) */
    in->dims = NULL;
    in->num_dims = 0;
    in->buffer = NULL;
    in->data = NULL;
    in->nbytes = 0;
    call.filled = i + 1;
    if (mt_fill_input(in, args[i], k->input_types[i], &call.keep, !self->unaligned_ok) < 0) goto done;
    elements += MT_NumElements(call.in[i].dims, call.in[i].num_dims);
    int movable = i < 64 && ((given >> i) & 1) && Py_REFCNT(args[i]) == 1;
    for (int j = 0; movable && j < n; ++j) movable = j == i || args[j] != args[i];
    /* Decided here, with the GIL: forwarding then looks at no Python object while the kernel runs. */
    if (movable) movable = mt_array_forwardable((PyObject*)call.in[i].owner, (int)k->output_types[0]);
    call.movable[i] = (unsigned char)movable;
  }
  struct TF_OpKernelContext* ctx = &call.ctx;
  if (elements <= MT_DIRECT_GIL_ELEMENTS) {
    /* A few elements: the kernel takes less time than handing the GIL over and back, twice (its allocation
       callback takes the GIL). Direct calls are the built-in library's kernels, which call back into the
       runtime (allocation) only from the calling thread, so the callbacks find the GIL held by their own
       thread; intra-op worker threads only compute. */
    call.gil_held = 1;
    call.gil_thread = pthread_self();
    MT_PushPluginCall(&self->site, "compute of the kernel");
    MT_RunKernel(ctx);
    MT_PopPluginCall();
    call.gil_held = 0;
  } else {
    int plain = mt_host_allocator_plain(self->host_device, 0);
    int plain_host = plain < 0 ? -1 : mt_host_allocator_plain(self->host_device, 1);
    if (plain_host < 0) goto done;
    call.plain_allocators = plain | plain_host << 1;
    Py_BEGIN_ALLOW_THREADS
    MT_PushPluginCall(&self->site, "compute of the kernel");
    MT_RunKernel(ctx);
    MT_PopPluginCall();
    Py_END_ALLOW_THREADS
  }
  if (ctx->failure != NULL) {
    mt_raise_status(ctx->failure);
    TF_DeleteStatus(ctx->failure);
    ctx->failure = NULL;
    goto done;
  }
  if (PyErr_Occurred()) goto done;
  for (int o = 0; o < outputs; ++o) {
    if (call.out[o] == NULL) {
      TF_Status* status = TF_NewStatus();
      MT_SetStatusf(status, TF_INTERNAL, "Kernel '%s' did not set output %d", k->name, o);
      mt_raise_status(status);
      TF_DeleteStatus(status);
      goto done;
    }
  }
  if (all && (result = PyTuple_New(outputs)) == NULL) goto done;
  for (int o = 0; o < outputs; ++o) {
    PyObject* value = mt_output_value(call.out[o], call.in, n);
    if (value == NULL) {
      Py_CLEAR(result);
      goto done;
    }
    if (!all) {
      result = value;
      break;
    }
    PyTuple_SET_ITEM(result, o, value);
  }
done:
  for (int o = 0; o < outputs; ++o) { /* outputs first: an input passed through then needs no adoption */
    TF_DeleteTensor(call.out[o]);
    call.out[o] = NULL;
  }
  for (int i = 0; i < call.filled; ++i) mt_release_input(&call.in[i]);
  contextless_call_free(&call);
  Py_XDECREF(call.keep);
  return result;
}

TF_Tensor* mt_segment_call(MT_KernelObject* self, const MT_Input* const* args, const unsigned char* forwardable,
                           int plain_allocators, TF_Status** failure) {
  MT_Kernel* k = &self->k;
  int n = k->num_inputs;
  KernelCall call;
  if (contextless_call_begin(&call, self, n, 1, 1) < 0) {
    *failure = TF_NewStatus();
    MT_SetStatusf(*failure, TF_RESOURCE_EXHAUSTED, "out of memory calling kernel '%s'", k->name);
    return NULL;
  }
  call.plain_allocators = plain_allocators;
  for (int i = 0; i < n; ++i) {
    if (args[i]->dtype != k->input_types[i]) {
      contextless_call_free(&call);
      *failure = TF_NewStatus();
      MT_SetStatusf(*failure, TF_INVALID_ARGUMENT, "kernel '%s' expects input %d of TF_DataType %d, got %d",
                    k->name, i, (int)k->input_types[i], (int)args[i]->dtype);
      return NULL;
    }
    call.in[i] = *args[i]; /* borrowed: dims, buffer and owner stay the segment's */
    call.movable[i] = forwardable[i];
  }
  struct TF_OpKernelContext* ctx = &call.ctx;
  MT_PushPluginCall(&self->site, "compute of the kernel");
  MT_RunKernel(ctx);
  MT_PopPluginCall();
  contextless_call_free(&call);
  if (ctx->failure == NULL && call.out[0] == NULL) {
    ctx->failure = TF_NewStatus();
    MT_SetStatusf(ctx->failure, TF_INTERNAL, "Kernel '%s' did not set output 0", k->name);
  }
  if (ctx->failure != NULL) {
    TF_DeleteTensor(call.out[0]);
    *failure = ctx->failure;
    return NULL;
  }
  return call.out[0];
}

/* direct_call(*inputs) -> output 0: `direct_call` for Python callers, which keep their own references to the
 * arguments (so no input is ever written). */
static PyObject* Kernel_direct_call(KernelObject* self, PyObject* const* args, Py_ssize_t nargs) {
  return direct_call(self, args, nargs, 0, 0);
}

/* direct_call_all(*inputs) -> (output 0, output 1, ...): the same for a kernel of several outputs (the executor's
 * plan calls it as it calls a numpy kernel of several outputs). */
static PyObject* Kernel_direct_call_all(KernelObject* self, PyObject* const* args, Py_ssize_t nargs) {
  return direct_call(self, args, nargs, 0, 1);
}

/* The C entry point other extensions call (the executor's C plan loop, through the DIRECT_CALL capsule): the
 * same call on `kernel` (a Kernel), with the arguments `given` up by the caller (see direct_call). */
static PyObject* mt_direct_call_api(PyObject* kernel, PyObject* const* args, Py_ssize_t nargs, uint64_t given) {
  if (!PyObject_TypeCheck(kernel, &MT_KernelType)) {
    PyErr_SetString(PyExc_TypeError, "direct call: not a modtensor bridge Kernel");
    return NULL;
  }
  return direct_call((KernelObject*)kernel, args, nargs, given, 0);
}

MT_DirectCallFunction mt_direct_call_function = mt_direct_call_api;

static PyObject* Kernel_get_failure(KernelObject* self, void* closure) {
  (void)closure;
  return Py_NewRef(self->failure);
}

static PyObject* Kernel_get_name(KernelObject* self, void* closure) {
  (void)closure;
  return PyUnicode_FromStringAndSize(self->k.name, (Py_ssize_t)self->k.name_len);
}

static PyMethodDef kKernelMethods[] = {
    {"compute", (PyCFunction)Kernel_compute, METH_O, "compute(ctx): run the C kernel on an OpKernelContext."},
    {"direct_call", (PyCFunction)(void (*)(void))Kernel_direct_call, METH_FASTCALL,
     "direct_call(*inputs) -> output 0: run a one-output kernel on the host fast path without a context."},
    {"direct_call_all", (PyCFunction)(void (*)(void))Kernel_direct_call_all, METH_FASTCALL,
     "direct_call_all(*inputs) -> tuple of outputs: direct_call for a kernel of up to 8 outputs."},
    {"enable_host_fast_path", (PyCFunction)(void (*)(void))Kernel_enable_host_fast_path,
     METH_VARARGS | METH_KEYWORDS,
     "enable_host_fast_path(device, unaligned_ok=False): allocate and forward in C for this host CPU device."},
    {"compute_async", (PyCFunction)Kernel_compute_async, METH_VARARGS,
     "compute_async(ctx, callback): start an asynchronous C kernel; callback(None or error) runs when it is done."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef kKernelGetSet[] = {
    {"failure", (getter)Kernel_get_failure, NULL, "(code, message) reported during construction, or None.", NULL},
    {"name", (getter)Kernel_get_name, NULL, "The node's name.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject MT_KernelType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "modtensor.plugin.native._bridge.Kernel",
    .tp_basicsize = sizeof(KernelObject),
    .tp_dealloc = (destructor)Kernel_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Kernel(builder_capsule, construction, info): one C kernel instance.",
    .tp_methods = kKernelMethods,
    .tp_getset = kKernelGetSet,
    .tp_new = Kernel_new,
};
