/* modtensor bridge: the shim's callback table, implemented over the Python runtime.
 *
 * Every callback may run on any thread (kernels run without the GIL), so each
 * takes the GIL with PyGILState_Ensure. Python errors become TF_Status errors
 * with the OpError's code and message (hooks.error_status). */
#include <string.h>

#include "bridge.h"

#define WITH_GIL_BEGIN PyGILState_STATE gil_state_ = PyGILState_Ensure();
#define WITH_GIL_END PyGILState_Release(gil_state_);

static PyObject* shape_tuple(const int64_t* dims, int num_dims, TF_Status* status) {
  if (num_dims < 0 || (num_dims > 0 && dims == NULL)) {
    MT_SetStatusf(status, TF_INVALID_ARGUMENT, "invalid shape: %d dimensions", num_dims);
    return NULL;
  }
  PyObject* shape = PyTuple_New(num_dims);
  if (shape == NULL) {
    mt_status_from_exception(status);
    return NULL;
  }
  for (int i = 0; i < num_dims; ++i) {
    if (dims[i] < 0) {
      Py_DECREF(shape);
      MT_SetStatusf(status, TF_INVALID_ARGUMENT, "Dimension %lld must be >= 0", (long long)dims[i]);
      return NULL;
    }
    PyTuple_SET_ITEM(shape, i, PyLong_FromLongLong(dims[i]));
  }
  return shape;
}

static TF_Buffer* buffer_from_bytes(PyObject* bytes, TF_Status* status) {
  char* data;
  Py_ssize_t len;
  if (PyBytes_AsStringAndSize(bytes, &data, &len) < 0) {
    mt_status_from_exception(status);
    return NULL;
  }
  return TF_NewBufferFromString(data, (size_t)len);
}

/* Replace the object a handle holds with `obj` (a new reference, stolen). */
static void set_object(void** slot, PyObject* obj) {
  PyObject* old = (PyObject*)*slot;
  *slot = obj;
  Py_XDECREF(old);
}

static PyObject* handle_object(void* obj) { return obj == NULL ? Py_None : (PyObject*)obj; }

static void set_output_tensor(TF_OpKernelContext* ctx, int index, TF_Tensor* t) {
  TF_Tensor* handle = MT_NewTensorOnBuffer(t->dtype, t->dims, t->num_dims, t->buffer);
  TF_Tensor* old = __atomic_exchange_n(&ctx->outputs[index], handle, __ATOMIC_ACQ_REL);
  TF_DeleteTensor(old);
}

/* ---------------------------------------------------------------- registration */

static PyObject* string_list(const MT_StringList* list) {
  PyObject* result = PyList_New(list->count);
  if (result == NULL) return NULL;
  for (int i = 0; i < list->count; ++i) {
    PyObject* item = PyUnicode_DecodeUTF8(list->items[i], (Py_ssize_t)strlen(list->items[i]), "replace");
    if (item == NULL) {
      Py_DECREF(result);
      return NULL;
    }
    PyList_SET_ITEM(result, i, item);
  }
  return result;
}

static void cb_register_op(TF_OpDefinitionBuilder* b, TF_Status* status) {
  WITH_GIL_BEGIN
  PyObject* shape_fn = b->shape_fn ? PyLong_FromVoidPtr((void*)b->shape_fn) : Py_NewRef(Py_None);
  PyObject* info = Py_BuildValue(
      "{s:s,s:N,s:N,s:N,s:O,s:O,s:O,s:O,s:i,s:i,s:s,s:N}", "name", b->name, "attrs", string_list(&b->attrs),
      "inputs", string_list(&b->inputs), "outputs", string_list(&b->outputs), "is_commutative",
      b->is_commutative ? Py_True : Py_False, "is_aggregate", b->is_aggregate ? Py_True : Py_False, "is_stateful",
      b->is_stateful ? Py_True : Py_False, "allows_uninitialized_input",
      b->allows_uninitialized_input ? Py_True : Py_False, "deprecation_calls", b->has_deprecation,
      "deprecation_version", b->deprecation_version, "deprecation_explanation",
      b->deprecation_explanation ? b->deprecation_explanation : "", "shape_fn", shape_fn);
  TF_DeleteOpDefinitionBuilder(b);
  if (info == NULL) {
    mt_status_from_exception(status);
  } else {
    PyObject* r = mt_call_hook(HOOK_REGISTER_OP, PyTuple_Pack(1, info), status);
    Py_XDECREF(r);
    Py_DECREF(info);
  }
  WITH_GIL_END
}

static void destroy_builder_capsule(PyObject* capsule) {
  TF_KernelBuilder* b = (TF_KernelBuilder*)PyCapsule_GetPointer(capsule, "modtensor.TF_KernelBuilder");
  if (b != NULL) TF_DeleteKernelBuilder(b);
}

static void cb_register_kernel(const char* name, const char* kernel_def, TF_KernelBuilder* b, TF_Status* status) {
  WITH_GIL_BEGIN
  PyObject* capsule = PyCapsule_New(b, "modtensor.TF_KernelBuilder", destroy_builder_capsule);
  if (capsule == NULL) {
    TF_DeleteKernelBuilder(b);
    mt_status_from_exception(status);
  } else {
    PyObject* def = kernel_def ? PyBytes_FromString(kernel_def) : Py_NewRef(Py_None);
    PyObject* r = mt_call_hook(HOOK_REGISTER_KERNEL, Py_BuildValue("(sNO)", name, def, capsule), status);
    Py_XDECREF(r);
    Py_DECREF(capsule); /* the registration keeps its own reference when it succeeded */
  }
  WITH_GIL_END
}

/* ---------------------------------------------------------------- construction */

static TF_Buffer* cb_construction_attr(TF_OpKernelConstruction* ctx, const char* name, TF_Status* status) {
  TF_Buffer* result = NULL;
  WITH_GIL_BEGIN
  PyObject* r = mt_call_hook(HOOK_CONSTRUCTION_ATTR, Py_BuildValue("(Os)", (PyObject*)ctx->py, name), status);
  if (r != NULL) {
    result = buffer_from_bytes(r, status);
    Py_DECREF(r);
  }
  WITH_GIL_END
  return result;
}

static TF_Buffer* cb_construction_node_def(TF_OpKernelConstruction* ctx, TF_Status* status) {
  TF_Buffer* result = NULL;
  WITH_GIL_BEGIN
  PyObject* r = mt_call_hook(HOOK_CONSTRUCTION_NODE_DEF, PyTuple_Pack(1, (PyObject*)ctx->py), status);
  if (r != NULL) {
    result = buffer_from_bytes(r, status);
    Py_DECREF(r);
  }
  WITH_GIL_END
  return result;
}

/* A tensor owned by the caller from a hook's (array, TF_DataType) pair; strings are copied out of the views. */
static TF_Tensor* tensor_from_pair(PyObject* pair, TF_Status* status) {
  PyObject* array = PyTuple_GET_ITEM(pair, 0);
  TF_DataType dtype = (TF_DataType)PyLong_AsLong(PyTuple_GET_ITEM(pair, 1));
  if (dtype != TF_STRING) return mt_tensor_from_array(array, dtype, status);
  MT_Input in;
  memset(&in, 0, sizeof in);
  PyObject* keep = NULL;
  if (mt_fill_input(&in, array, TF_STRING, &keep, 1) < 0) {
    mt_status_from_exception(status);
    Py_XDECREF(keep);
    return NULL;
  }
  int64_t count = MT_NumElements(in.dims, in.num_dims);
  MT_Buffer* buf = MT_AllocateBuffer(TF_STRING, (size_t)count * sizeof(TF_TString));
  TF_TString* dst = (TF_TString*)buf->data;
  const TF_TString* src = (const TF_TString*)in.data;
  for (int64_t j = 0; j < count; ++j) {
    TF_TString_Copy(&dst[j], TF_TString_GetDataPointer(&src[j]), TF_TString_GetSize(&src[j]));
  }
  TF_Tensor* t = MT_NewTensorOnBuffer(TF_STRING, in.dims, in.num_dims, buf);
  MT_BufferUnref(buf);
  mt_release_input(&in);
  Py_XDECREF(keep);
  return t;
}

/* The hook returns a list of (array, TF_DataType) pairs. */
static void cb_construction_attr_tensors(TF_OpKernelConstruction* ctx, const char* name, TF_Tensor** vals,
                                         int max_vals, TF_Status* status) {
  WITH_GIL_BEGIN
  PyObject* r = mt_call_hook(HOOK_CONSTRUCTION_ATTR_TENSORS,
                             Py_BuildValue("(OsO)", (PyObject*)ctx->py, name, max_vals < 0 ? Py_False : Py_True),
                             status);
  if (r != NULL) {
    Py_ssize_t n = PyList_Check(r) ? PyList_GET_SIZE(r) : 0;
    Py_ssize_t limit = max_vals < 0 ? 1 : max_vals;
    for (Py_ssize_t i = 0; i < n && i < limit; ++i) {
      TF_Tensor* t = tensor_from_pair(PyList_GET_ITEM(r, i), status);
      if (t == NULL) break;
      vals[i] = t;
    }
    Py_DECREF(r);
  }
  WITH_GIL_END
}

/* ---------------------------------------------------------------- c_api.h: registries and protos */

static TF_Buffer* cb_registry_query(int what, const char* name, TF_Status* status) {
  TF_Buffer* result = NULL;
  WITH_GIL_BEGIN
  PyObject* r = mt_call_hook(HOOK_REGISTRY_QUERY, Py_BuildValue("(iz)", what, name), status);
  if (r != NULL) {
    result = buffer_from_bytes(r, status);
    Py_DECREF(r);
  }
  WITH_GIL_END
  return result;
}

/* The hook returns one (array, TF_DataType) pair. */
static TF_Tensor* cb_tensor_from_proto(const void* proto, size_t proto_len, TF_Status* status) {
  TF_Tensor* result = NULL;
  WITH_GIL_BEGIN
  PyObject* r = mt_call_hook(HOOK_TENSOR_FROM_PROTO,
                             Py_BuildValue("(y#)", proto == NULL ? "" : (const char*)proto, (Py_ssize_t)proto_len),
                             status);
  if (r != NULL) {
    result = tensor_from_pair(r, status);
    Py_DECREF(r);
  }
  WITH_GIL_END
  return result;
}

/* ---------------------------------------------------------------- kernel calls */

static TF_Tensor* allocate_strings(TF_OpKernelContext* ctx, int what, int index, const int64_t* dims, int num_dims,
                                   TF_Status* status) {
  for (int i = 0; i < num_dims; ++i) {
    if (dims[i] < 0) {
      MT_SetStatusf(status, TF_INVALID_ARGUMENT, "Dimension %lld must be >= 0", (long long)dims[i]);
      return NULL;
    }
  }
  int64_t n = MT_NumElements(dims, num_dims);
  MT_Buffer* buf = MT_AllocateBuffer(TF_STRING, (size_t)n * sizeof(TF_TString));
  if (buf == NULL) {
    TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "out of memory allocating a string tensor");
    return NULL;
  }
  TF_Tensor* t = MT_NewTensorOnBuffer(TF_STRING, dims, num_dims, buf);
  MT_BufferUnref(buf);
  if (what == MT_ALLOC_OUTPUT) set_output_tensor(ctx, index, t);
  return t;
}

/* An aligned np.empty in C when the device's allocator is the runtime's plain numpy allocator
 * without statistics (what CPUAllocator.allocate would do); NULL without an error
 * when that does not apply. As OpKernelContext.allocate_output, sets the output. */
static PyObject* fast_host_empty(TF_OpKernelContext* ctx, int what, int index, TF_DataType dtype,
                                 const int64_t* dims, int num_dims) {
  PyArray_Descr* descr = (unsigned)dtype < MT_NUM_DTYPES ? mt_descr[dtype] : NULL;
  if (!ctx->kernel->is_cpu || mt_cpu_allocator_type == NULL || descr == NULL || num_dims > NPY_MAXDIMS) return NULL;
  PyObject* device = PyObject_GetAttr((PyObject*)ctx->py, mt_str_device);
  PyObject* allocator = device ? PyObject_GetAttr(device, mt_str_allocator) : NULL;
  Py_XDECREF(device);
  int plain = 0;
  if (allocator != NULL && (PyObject*)Py_TYPE(allocator) == mt_cpu_allocator_type) {
    PyObject* stats = PyObject_GetAttr(allocator, mt_str_collect_stats);
    plain = stats != NULL && !PyObject_IsTrue(stats);
    Py_XDECREF(stats);
  }
  Py_XDECREF(allocator);
  PyErr_Clear();
  if (!plain) return NULL;
  npy_intp shape[NPY_MAXDIMS];
  for (int i = 0; i < num_dims; ++i) shape[i] = (npy_intp)dims[i];
  Py_INCREF(descr);
  PyObject* array = mt_aligned_empty(num_dims, shape, descr); /* what CPUAllocator.allocate does: 64-byte aligned */
  if (array == NULL || what != MT_ALLOC_OUTPUT) return array;
  PyObject* outputs = PyObject_GetAttr((PyObject*)ctx->py, mt_str_outputs);
  if (outputs == NULL || !PyList_Check(outputs) || PyList_SetItem(outputs, index, Py_NewRef(array)) < 0) {
    Py_XDECREF(outputs);
    Py_DECREF(array);
    return NULL;
  }
  Py_DECREF(outputs);
  return array;
}

/* ---- the host fast path (Kernel.enable_host_fast_path): allocation and forwarding in C, as
 * OpKernelContext.allocate_output / allocate_temp / forward_input would do them on a host CPU device. */

int mt_host_allocator_plain(PyObject* device, int on_host) {
  PyObject* allocator = PyObject_GetAttr(device, on_host ? mt_str_host_allocator : mt_str_allocator);
  if (allocator == NULL) return -1;
  int plain = 0;
  if (mt_cpu_allocator_type != NULL && (PyObject*)Py_TYPE(allocator) == mt_cpu_allocator_type) {
    PyObject* stats = PyObject_GetAttr(allocator, mt_str_collect_stats);
    plain = stats == NULL ? -1 : !PyObject_IsTrue(stats);
    Py_XDECREF(stats);
  }
  Py_DECREF(allocator);
  return plain;
}

/* A new array for an allocation on the host fast path: np.empty on TensorFlow's 64-byte alignment when the
 * device's allocator is `plain` (mt_host_allocator_plain), else the allocator's own allocate(shape, dtype). GIL
 * held; NULL with a Python error. */
static PyObject* host_allocate(PyObject* device, int on_host, int plain, PyArray_Descr* descr, const int64_t* dims,
                               int num_dims) {
  if (plain) {
    npy_intp shape[NPY_MAXDIMS];
    for (int i = 0; i < num_dims; ++i) shape[i] = (npy_intp)dims[i];
    Py_INCREF(descr);
    return mt_aligned_empty(num_dims, shape, descr);
  }
  PyObject* allocator = PyObject_GetAttr(device, on_host ? mt_str_host_allocator : mt_str_allocator);
  if (allocator == NULL) return NULL;
  PyObject* shape = PyTuple_New(num_dims);
  for (int i = 0; shape != NULL && i < num_dims; ++i) PyTuple_SET_ITEM(shape, i, PyLong_FromLongLong(dims[i]));
  PyObject* array = shape == NULL ? NULL : PyObject_CallMethod(allocator, "allocate", "OO", shape, (PyObject*)descr);
  Py_XDECREF(shape);
  Py_DECREF(allocator);
  return array;
}

/* cb_allocate on the host fast path. */
static TF_Tensor* host_fast_allocate(TF_OpKernelContext* ctx, PyObject* device, int what, int index,
                                     TF_DataType dtype, const int64_t* dims, int num_dims, int on_host,
                                     TF_Status* status) {
  PyArray_Descr* descr = (unsigned)dtype < MT_NUM_DTYPES ? mt_descr[dtype] : NULL;
  if (num_dims < 0 || num_dims > NPY_MAXDIMS || (num_dims > 0 && dims == NULL)) {
    MT_SetStatusf(status, TF_INVALID_ARGUMENT, "invalid shape: %d dimensions", num_dims);
    return NULL;
  }
  for (int i = 0; i < num_dims; ++i) {
    if (dims[i] < 0) {
      MT_SetStatusf(status, TF_INVALID_ARGUMENT, "Dimension %lld must be >= 0", (long long)dims[i]);
      return NULL;
    }
  }
  if (descr == NULL) {
    MT_SetStatusf(status, TF_INVALID_ARGUMENT, "Cannot allocate a tensor of TF_DataType %d: it has no buffer "
                  "representation", (int)dtype);
    return NULL;
  }
  if (what == MT_ALLOC_OUTPUT) on_host = ctx->kernel->output_host_memory[index];
  MT_Call* call = mt_call_of(ctx);
  int from_shim = !PyDataType_REFCHK(descr) && ctx->py == NULL && ((call->plain_allocators >> (on_host ? 1 : 0)) & 1);
  if (!from_shim) {
    TF_Tensor* t = NULL;
    WITH_GIL_BEGIN
    int plain = mt_host_allocator_plain(device, on_host);
    if (plain < 0) {
      mt_status_from_exception(status);
    } else if (plain && !PyDataType_REFCHK(descr)) {
      from_shim = 1;
    } else { /* the allocator's own, or object slots numpy must start NULL */
      PyObject* array = host_allocate(device, on_host, plain, descr, dims, num_dims);
      if (array == NULL) {
        mt_status_from_exception(status);
      } else {
        t = mt_tensor_from_array(array, dtype, status);
        Py_DECREF(array);
        if (t != NULL && what == MT_ALLOC_OUTPUT) set_output_tensor(ctx, index, t);
      }
    }
    WITH_GIL_END
    if (!from_shim) return t;
  }
  /* The plain allocator: shim memory (large blocks reused, host_memory.c), no Python; the output's array takes
     it over when the call ends (mt_value_from_tensor). */
  MT_Buffer* buf = MT_AllocateBuffer(dtype, (size_t)MT_NumElements(dims, num_dims) * PyDataType_ELSIZE(descr));
  if (buf == NULL) {
    MT_SetStatusf(status, TF_RESOURCE_EXHAUSTED, "OOM when allocating a tensor of %lld elements on the host",
                  (long long)MT_NumElements(dims, num_dims));
    return NULL;
  }
  TF_Tensor* t = MT_NewTensorOnBuffer(dtype, dims, num_dims, buf);
  MT_BufferUnref(buf);
  if (what == MT_ALLOC_OUTPUT) set_output_tensor(ctx, index, t);
  return t;
}

int mt_array_exclusive(PyObject* owner) {
  if (!PyArray_Check(owner)) return 0;
  PyArrayObject* a = (PyArrayObject*)owner;
  if (!PyArray_ISWRITEABLE(a) || !PyArray_IS_C_CONTIGUOUS(a)) return 0;
  PyObject* base = PyArray_BASE(a);
  /* An aligned allocation is a view of a raw array only it holds, an output's memory a HostBlock only its
     array holds; anything else may share. */
  return base == NULL ||
         (Py_REFCNT(base) == 1 && ((PyArray_CheckExact(base) && PyArray_BASE((PyArrayObject*)base) == NULL) ||
                                   Py_IS_TYPE(base, &MT_HostBlockType)));
}

int mt_array_forwardable(PyObject* owner, int dtype) {
  PyArray_Descr* descr = (unsigned)dtype < MT_NUM_DTYPES ? mt_descr[dtype] : NULL;
  return descr != NULL && PyArray_Check(owner) && PyArray_EquivTypes(PyArray_DESCR((PyArrayObject*)owner), descr) &&
         mt_array_exclusive(owner);
}

/* Input `c` of a call on the host fast path may become output `o` of shape `dims`: the runtime let the value go
 * (a direct call's argument with no other reference, or a value only the context's inputs list holds), the
 * kernel holds no handle to it, it is the runtime's array (or the aligned copy standing in for it), of the
 * output's memory kind and shape, and mt_array_forwardable. A direct call decided mt_array_forwardable before
 * it started, a segment step which of its values it may write (call->movable): then no Python object is
 * touched, and the GIL need not be held; otherwise it must be. */
static int host_forwardable(TF_OpKernelContext* ctx, int c, int o, const int64_t* dims, int num_dims) {
  MT_Call* call = mt_call_of(ctx);
  const MT_Kernel* k = ctx->kernel;
  if (c < 0 || c >= ctx->num_inputs) return 0;
  MT_Input* in = &ctx->inputs[c];
  MT_Buffer* buf = __atomic_load_n(&in->buffer, __ATOMIC_ACQUIRE);
  if (buf != NULL && atomic_load(&buf->refs) > 1) return 0; /* as in TensorFlow: a held input stays */
  if (in->borrowed != 1 && in->borrowed != 3 && !call->segment) return 0;
  if (k->input_host_memory[c] != k->output_host_memory[o] || in->num_dims != num_dims) return 0;
  for (int d = 0; d < num_dims; ++d) {
    if (in->dims[d] != dims[d]) return 0;
  }
  if (ctx->py == NULL) {
    return o == 0 && call->movable[c] && (!call->segment || in->dtype == k->output_types[o]);
  }
  if (call->inputs == NULL || c >= PyList_GET_SIZE(call->inputs)) return 0;
  if (Py_REFCNT(PyList_GET_ITEM(call->inputs, c)) != 1) return 0; /* the list's reference only */
  return mt_array_forwardable((PyObject*)in->owner, (int)k->output_types[o]);
}

static TF_Tensor* cb_allocate(TF_OpKernelContext* ctx, int what, int index, TF_DataType dtype, const int64_t* dims,
                              int num_dims, int on_host, TF_Status* status) {
  if (what == MT_ALLOC_OUTPUT) dtype = ctx->kernel->output_types[index]; /* TF: the output's declared type */
  if (dtype == TF_STRING) return allocate_strings(ctx, what, index, dims, num_dims, status);
  PyObject* host_device = mt_kernel_object(ctx)->host_device;
  if (host_device != NULL) {
    return host_fast_allocate(ctx, host_device, what, index, dtype, dims, num_dims, on_host, status);
  }
  TF_Tensor* t = NULL;
  WITH_GIL_BEGIN
  PyObject* shape = shape_tuple(dims, num_dims, status);
  PyObject* fast = shape != NULL ? fast_host_empty(ctx, what, index, dtype, dims, num_dims) : NULL;
  if (fast != NULL) {
    Py_DECREF(shape);
    shape = NULL;
    t = mt_tensor_from_array(fast, dtype, status);
    Py_DECREF(fast);
    if (t != NULL && what == MT_ALLOC_OUTPUT) set_output_tensor(ctx, index, t);
  } else if (PyErr_Occurred()) {
    Py_XDECREF(shape);
    shape = NULL;
    mt_status_from_exception(status);
  }
  if (shape != NULL) {
    PyObject* array;
    if (what == MT_ALLOC_OUTPUT) {
      PyObject* i = PyLong_FromLong(index);
      array = PyObject_CallMethodObjArgs((PyObject*)ctx->py, mt_str_allocate_output, i, shape, NULL);
      Py_DECREF(i);
      if (array == NULL) mt_status_from_exception(status);
    } else {
      array = mt_call_hook(HOOK_ALLOCATE_TEMP, Py_BuildValue("(OiOO)", (PyObject*)ctx->py, (int)dtype, shape,
                                                             on_host ? Py_True : Py_False),
                           status);
    }
    Py_DECREF(shape);
    if (array != NULL) {
      t = mt_tensor_from_array(array, dtype, status);
      Py_DECREF(array);
      if (t != NULL && what == MT_ALLOC_OUTPUT) set_output_tensor(ctx, index, t);
    }
  }
  WITH_GIL_END
  return t;
}

static TF_Tensor* cb_forward_or_allocate(TF_OpKernelContext* ctx, const int* candidates, int num_candidates,
                                         int output_index, const int64_t* dims, int num_dims, int* forwarded,
                                         TF_Status* status) {
  *forwarded = -1;
  TF_DataType dtype = ctx->kernel->output_types[output_index];
  if (dtype == TF_STRING) return allocate_strings(ctx, MT_ALLOC_OUTPUT, output_index, dims, num_dims, status);
  PyObject* host_device = mt_kernel_object(ctx)->host_device;
  if (host_device != NULL) {
    int found = -1;
    int take_gil = ctx->py != NULL && !mt_gil_held_by_call(ctx);
    PyGILState_STATE gil = take_gil ? PyGILState_Ensure() : PyGILState_LOCKED;
    for (int i = 0; found < 0 && i < num_candidates; ++i) {
      if (host_forwardable(ctx, candidates[i], output_index, dims, num_dims)) found = candidates[i];
    }
    if (take_gil) PyGILState_Release(gil);
    if (found < 0) {
      return host_fast_allocate(ctx, host_device, MT_ALLOC_OUTPUT, output_index, dtype, dims, num_dims, 1, status);
    }
    /* The output is a handle on the input's own buffer: collecting the outputs finds the input's array there
       (mt_output_value), and a handle the kernel keeps past the call makes the input adopt its array. */
    TF_Tensor* t = MT_NewTensorOnBuffer(dtype, dims, num_dims, MT_InputBuffer(&ctx->inputs[found]));
    set_output_tensor(ctx, output_index, t);
    *forwarded = found;
    return t;
  }
  TF_Tensor* t = NULL;
  WITH_GIL_BEGIN
  PyObject* shape = shape_tuple(dims, num_dims, status);
  PyObject* usable = shape ? PyList_New(0) : NULL;
  for (int i = 0; usable != NULL && i < num_candidates; ++i) {
    int c = candidates[i];
    if (c < 0 || c >= ctx->num_inputs) continue;
    /* As in TensorFlow, an input the kernel holds a handle to (TF_GetInput) is not forwarded. */
    MT_Buffer* buf = __atomic_load_n(&ctx->inputs[c].buffer, __ATOMIC_ACQUIRE);
    if (buf != NULL && atomic_load(&buf->refs) > 1) continue;
    /* Strings and conversions are not the runtime's value; a copy of one (3) stands in for it. */
    if (ctx->inputs[c].borrowed != 1 && ctx->inputs[c].borrowed != 3) continue;
    PyObject* index = PyLong_FromLong(c);
    PyList_Append(usable, index);
    Py_DECREF(index);
  }
  if (shape != NULL && usable != NULL) {
    PyObject* r = mt_call_hook(HOOK_FORWARD_OR_ALLOCATE,
                               Py_BuildValue("(OOiO)", (PyObject*)ctx->py, usable, output_index, shape), status);
    if (r != NULL) {
      PyObject* array = PyTuple_GET_ITEM(r, 0);
      int fwd = (int)PyLong_AsLong(PyTuple_GET_ITEM(r, 1));
      if (fwd >= 0 && fwd < ctx->num_inputs && ctx->inputs[fwd].borrowed == 3) {
        /* The runtime let input `fwd` go; the kernel reads an aligned copy of it: forward the copy. */
        array = (PyObject*)ctx->inputs[fwd].owner;
        PyObject* outputs = PyObject_GetAttr((PyObject*)ctx->py, mt_str_outputs);
        if (outputs == NULL || !PyList_Check(outputs) || PyList_SetItem(outputs, output_index, Py_NewRef(array)) < 0) {
          Py_XDECREF(outputs);
          mt_status_from_exception(status);
          array = NULL;
        } else {
          Py_DECREF(outputs);
        }
      }
      t = array == NULL ? NULL : mt_tensor_from_array(array, dtype, status);
      if (t != NULL) {
        set_output_tensor(ctx, output_index, t);
        *forwarded = fwd;
        if (fwd >= 0) { /* the input's memory now also is the output: keep the input's view in step */
          MT_Input* in = &ctx->inputs[fwd];
          in->data = TF_TensorData(t);
        }
      }
      Py_DECREF(r);
    }
  } else if (shape != NULL) {
    mt_status_from_exception(status);
  }
  Py_XDECREF(usable);
  Py_XDECREF(shape);
  WITH_GIL_END
  return t;
}

static void cb_context_buffer(TF_OpKernelContext* ctx, int what, int index, TF_Buffer* out, TF_Status* status) {
  if (out->data != NULL) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "Passing non-empty TF_Buffer is invalid.");
    return;
  }
  WITH_GIL_BEGIN
  PyObject* r = mt_call_hook(HOOK_CONTEXT_BUFFER, Py_BuildValue("(Oii)", (PyObject*)ctx->py, what, index), status);
  if (r != NULL) {
    TF_Buffer* b = buffer_from_bytes(r, status);
    if (b != NULL) {
      *out = *b;
      free(b); /* the struct only: `out` took over data and deallocator */
    }
    Py_DECREF(r);
  }
  WITH_GIL_END
}

/* ---------------------------------------------------------------- shape inference */

static PyObject* sic(TF_ShapeInferenceContext* ctx) { return (PyObject*)ctx->py; }

static int64_t cb_shape_num_inputs(TF_ShapeInferenceContext* ctx) {
  int64_t n = 0;
  WITH_GIL_BEGIN
  PyObject* r = mt_call_hook(HOOK_SHAPE_NUM_INPUTS, PyTuple_Pack(1, sic(ctx)), NULL);
  if (r != NULL) {
    n = PyLong_AsLongLong(r);
    Py_DECREF(r);
  }
  PyErr_Clear();
  WITH_GIL_END
  return n;
}

static void cb_shape_input(TF_ShapeInferenceContext* ctx, int i, TF_ShapeHandle* out, TF_Status* status) {
  WITH_GIL_BEGIN
  PyObject* r = mt_call_hook(HOOK_SHAPE_INPUT, Py_BuildValue("(Oi)", sic(ctx), i), status);
  if (r != NULL) set_object(&out->obj, r);
  WITH_GIL_END
}

static void cb_shape_set_output(TF_ShapeInferenceContext* ctx, int i, TF_ShapeHandle* shape, TF_Status* status) {
  WITH_GIL_BEGIN
  PyObject* r = mt_call_hook(HOOK_SHAPE_SET_OUTPUT,
                             Py_BuildValue("(OiO)", sic(ctx), i, handle_object(shape ? shape->obj : NULL)), status);
  Py_XDECREF(r);
  WITH_GIL_END
}

static void cb_shape_make(TF_ShapeInferenceContext* ctx, int64_t rank, const int64_t* dims, TF_ShapeHandle* out) {
  WITH_GIL_BEGIN
  PyObject* dim_tuple = PyTuple_New(rank > 0 ? (Py_ssize_t)rank : 0);
  for (int64_t i = 0; dim_tuple != NULL && i < rank; ++i) {
    PyTuple_SET_ITEM(dim_tuple, (Py_ssize_t)i, PyLong_FromLongLong(dims[i]));
  }
  PyObject* r = dim_tuple ? mt_call_hook(HOOK_SHAPE_MAKE, Py_BuildValue("(ON)", sic(ctx), dim_tuple), NULL) : NULL;
  if (r != NULL) set_object(&out->obj, r);
  PyErr_Clear();
  WITH_GIL_END
}

static TF_Buffer* cb_shape_attr(TF_ShapeInferenceContext* ctx, const char* name, TF_Status* status) {
  TF_Buffer* result = NULL;
  WITH_GIL_BEGIN
  PyObject* r = mt_call_hook(HOOK_SHAPE_ATTR, Py_BuildValue("(Os)", sic(ctx), name), status);
  if (r != NULL) {
    result = buffer_from_bytes(r, status);
    Py_DECREF(r);
  }
  WITH_GIL_END
  return result;
}

static int64_t cb_shape_rank(TF_ShapeHandle* shape) {
  int64_t rank = -1;
  WITH_GIL_BEGIN
  PyObject* r = mt_call_hook(HOOK_SHAPE_RANK, PyTuple_Pack(1, handle_object(shape->obj)), NULL);
  if (r != NULL) {
    rank = PyLong_AsLongLong(r);
    Py_DECREF(r);
  }
  PyErr_Clear();
  WITH_GIL_END
  return rank;
}

static void cb_shape_with_rank(TF_ShapeInferenceContext* ctx, TF_ShapeHandle* shape, int64_t rank, int mode,
                               TF_ShapeHandle* out, TF_Status* status) {
  WITH_GIL_BEGIN
  PyObject* r = mt_call_hook(HOOK_SHAPE_WITH_RANK,
                             Py_BuildValue("(OOLi)", sic(ctx), handle_object(shape ? shape->obj : NULL),
                                           (long long)rank, mode),
                             status);
  if (r != NULL) set_object(&out->obj, r);
  WITH_GIL_END
}

static void cb_shape_dim(TF_ShapeInferenceContext* ctx, TF_ShapeHandle* shape, int64_t i, TF_DimensionHandle* out) {
  WITH_GIL_BEGIN
  PyObject* r = mt_call_hook(
      HOOK_SHAPE_DIM, Py_BuildValue("(OOL)", sic(ctx), handle_object(shape ? shape->obj : NULL), (long long)i), NULL);
  if (r != NULL) set_object(&out->obj, r);
  PyErr_Clear();
  WITH_GIL_END
}

static int64_t cb_dim_value(TF_DimensionHandle* dim) {
  int64_t value = -1;
  WITH_GIL_BEGIN
  PyObject* r = mt_call_hook(HOOK_DIM_VALUE, PyTuple_Pack(1, handle_object(dim->obj)), NULL);
  if (r != NULL) {
    value = PyLong_AsLongLong(r);
    Py_DECREF(r);
  }
  PyErr_Clear();
  WITH_GIL_END
  return value;
}

static void cb_shape_subshape(TF_ShapeInferenceContext* ctx, TF_ShapeHandle* shape, int64_t start, int64_t end,
                              TF_ShapeHandle* out, TF_Status* status) {
  WITH_GIL_BEGIN
  PyObject* r = mt_call_hook(HOOK_SHAPE_SUBSHAPE,
                             Py_BuildValue("(OOLL)", sic(ctx), handle_object(shape ? shape->obj : NULL),
                                           (long long)start, (long long)end),
                             status);
  if (r != NULL) set_object(&out->obj, r);
  WITH_GIL_END
}

static void cb_shape_concatenate(TF_ShapeInferenceContext* ctx, TF_ShapeHandle* a, TF_ShapeHandle* b,
                                 TF_ShapeHandle* out, TF_Status* status) {
  WITH_GIL_BEGIN
  PyObject* r = mt_call_hook(HOOK_SHAPE_CONCATENATE,
                             Py_BuildValue("(OOO)", sic(ctx), handle_object(a ? a->obj : NULL),
                                           handle_object(b ? b->obj : NULL)),
                             status);
  if (r != NULL) set_object(&out->obj, r);
  WITH_GIL_END
}

static void cb_shape_set_unknown(TF_ShapeInferenceContext* ctx, TF_Status* status) {
  WITH_GIL_BEGIN
  PyObject* r = mt_call_hook(HOOK_SHAPE_SET_UNKNOWN, PyTuple_Pack(1, sic(ctx)), status);
  Py_XDECREF(r);
  WITH_GIL_END
}

static void cb_release_object(void* obj) {
  if (obj == NULL || !Py_IsInitialized()) return;
  WITH_GIL_BEGIN
  Py_DECREF((PyObject*)obj);
  WITH_GIL_END
}

/* ---------------------------------------------------------------- variables */

/* The hook returns ((value, dtype) | None, (value, dtype) | None, (value, dtype) | None, lock | None). */
static void cb_variable_op(TF_OpKernelContext* ctx, int what, int input, int value_index, int flags, TF_Tensor** out,
                           void** lock, TF_Status* status) {
  WITH_GIL_BEGIN
  PyObject* r = mt_call_hook(HOOK_VARIABLE_OP,
                             Py_BuildValue("(Oiiii)", (PyObject*)ctx->py, what, input, value_index, flags), status);
  if (r != NULL) {
    if (!PyTuple_Check(r) || PyTuple_GET_SIZE(r) != 4) {
      TF_SetStatus(status, TF_INTERNAL, "variable_op hook: expected a 4-tuple");
    } else {
      PyObject* held = PyTuple_GET_ITEM(r, 3);
      if (held != Py_None) *lock = Py_NewRef(held);
      for (int i = 0; i < 3 && TF_GetCode(status) == TF_OK; ++i) {
        PyObject* pair = PyTuple_GET_ITEM(r, i);
        if (pair == Py_None) continue;
        TF_DataType dtype = (TF_DataType)PyLong_AsLong(PyTuple_GET_ITEM(pair, 1));
        out[i] = mt_tensor_from_array(PyTuple_GET_ITEM(pair, 0), dtype, status);
      }
    }
    Py_DECREF(r);
  }
  WITH_GIL_END
}

static void* cb_variable_lock(TF_OpKernelContext* ctx, const int* inputs, int len, TF_Status* status) {
  void* result = NULL;
  WITH_GIL_BEGIN
  PyObject* list = PyList_New(len > 0 ? len : 0);
  for (int i = 0; list != NULL && i < len; ++i) PyList_SET_ITEM(list, i, PyLong_FromLong(inputs[i]));
  PyObject* r = list ? mt_call_hook(HOOK_VARIABLE_LOCK, Py_BuildValue("(ON)", (PyObject*)ctx->py, list), status)
                     : NULL;
  if (list == NULL) mt_status_from_exception(status);
  if (r != NULL) result = r; /* the holder; its reference goes to the shim's lock holder */
  WITH_GIL_END
  return result;
}

static void cb_variable_unlock(void* lock) {
  if (lock == NULL || !Py_IsInitialized()) return;
  WITH_GIL_BEGIN
  PyObject* r = PyObject_CallMethod((PyObject*)lock, "release", NULL);
  if (r == NULL) PyErr_WriteUnraisable((PyObject*)lock);
  Py_XDECREF(r);
  Py_DECREF((PyObject*)lock);
  WITH_GIL_END
}

void mt_install_callbacks(void) {
  MT_Callbacks cb;
  memset(&cb, 0, sizeof cb);
  cb.struct_size = MT_CALLBACKS_STRUCT_SIZE;
  cb.register_op = cb_register_op;
  cb.register_kernel = cb_register_kernel;
  cb.construction_attr = cb_construction_attr;
  cb.construction_node_def = cb_construction_node_def;
  cb.construction_attr_tensors = cb_construction_attr_tensors;
  cb.allocate = cb_allocate;
  cb.forward_or_allocate = cb_forward_or_allocate;
  cb.context_buffer = cb_context_buffer;
  cb.shape_num_inputs = cb_shape_num_inputs;
  cb.shape_input = cb_shape_input;
  cb.shape_set_output = cb_shape_set_output;
  cb.shape_make = cb_shape_make;
  cb.shape_attr = cb_shape_attr;
  cb.shape_rank = cb_shape_rank;
  cb.shape_with_rank = cb_shape_with_rank;
  cb.shape_dim = cb_shape_dim;
  cb.dim_value = cb_dim_value;
  cb.shape_subshape = cb_shape_subshape;
  cb.shape_concatenate = cb_shape_concatenate;
  cb.shape_set_unknown = cb_shape_set_unknown;
  cb.release_object = cb_release_object;
  cb.variable_op = cb_variable_op;
  cb.variable_lock = cb_variable_lock;
  cb.variable_unlock = cb_variable_unlock;
  cb.registry_query = cb_registry_query;
  cb.tensor_from_proto = cb_tensor_from_proto;
  MT_SetCallbacks(&cb);
}
