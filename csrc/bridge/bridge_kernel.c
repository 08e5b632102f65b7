/* modtensor bridge: Kernel, one C kernel instance (a node on a device).
 *
 * Kernel(builder_capsule, construction, info) runs the plugin's create function;
 * Kernel.compute(ctx) is the per-call path: it reads ctx.inputs, fills the native
 * context with the inputs' pointers, shapes and types, calls the plugin without
 * the GIL, and stores what the plugin set into ctx.outputs. */
#include <string.h>

#include "bridge.h"

typedef struct {
  PyObject_HEAD
  MT_Kernel k;
  PyObject* builder_capsule; /* keeps the TF_KernelBuilder alive */
  PyObject* failure;         /* (code, message) of a construction failure, or None */
  int created;
} KernelObject;

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
 *        output_host_memory, requested_inputs, input_ranges, graph_def_version[, stream]);
 * stream: the device's SP_Stream as an int (0: none), what TF_GetStream returns. */
static int parse_info(MT_Kernel* k, PyObject* info) {
  PyObject *name, *device_name, *input_types, *output_types, *input_host, *output_host, *requested, *ranges;
  int device_id, is_cpu, graph_def_version;
  unsigned long long stream = 0;
  if (!PyArg_ParseTuple(info, "UUipOOOOOOi|K", &name, &device_name, &device_id, &is_cpu, &input_types,
                        &output_types, &input_host, &output_host, &requested, &ranges, &graph_def_version, &stream)) {
    return -1;
  }
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
  if (parse_info(&self->k, info) < 0) {
    Py_DECREF(self);
    return NULL;
  }
  struct TF_OpKernelConstruction c = {construction, self->k.name, self->k.name_len, NULL};
  if (builder->create != NULL) self->k.state = builder->create(&c);
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
    self->k.builder->destroy(self->k.state);
  }
  MT_KernelRelease(&self->k);
  Py_XDECREF(self->builder_capsule);
  Py_XDECREF(self->failure);
  Py_TYPE(self)->tp_free((PyObject*)self);
}

#define SMALL_ARITY 8

/* An output that is an input passed through (TF_GetInput + TF_SetOutput): the
 * input's own value when nothing changed, else a view of it. NULL if the output
 * is not on an input's buffer. */
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

static PyObject* Kernel_compute(KernelObject* self, PyObject* py_ctx) {
  MT_Kernel* k = &self->k;
  PyObject* inputs = PyObject_GetAttr(py_ctx, mt_str_inputs);
  if (inputs == NULL) return NULL;
  PyObject* outputs = PyObject_GetAttr(py_ctx, mt_str_outputs);
  if (outputs == NULL) {
    Py_DECREF(inputs);
    return NULL;
  }
  PyObject* step = PyObject_GetAttr(py_ctx, mt_str_step_id);
  int64_t step_id = step == NULL ? 0 : (int64_t)PyLong_AsLongLong(step);
  Py_XDECREF(step);
  PyObject* result = NULL;
  PyObject* keep = NULL;
  MT_Input in_small[SMALL_ARITY];
  TF_Tensor* out_small[SMALL_ARITY];
  MT_Input* in = in_small;
  TF_Tensor** out = out_small;
  int filled = 0;
  if (PyErr_Occurred()) goto done;
  if (!PyList_Check(inputs) || PyList_GET_SIZE(inputs) != k->num_inputs || !PyList_Check(outputs) ||
      PyList_GET_SIZE(outputs) != k->num_outputs) {
    PyErr_Format(PyExc_RuntimeError, "kernel '%s' expects %d inputs and %d outputs in its context", k->name,
                 k->num_inputs, k->num_outputs);
    goto done;
  }
  if (k->num_inputs > SMALL_ARITY) in = (MT_Input*)calloc((size_t)k->num_inputs, sizeof(MT_Input));
  if (k->num_outputs > SMALL_ARITY) out = (TF_Tensor**)calloc((size_t)k->num_outputs, sizeof(TF_Tensor*));
  if (in == NULL || out == NULL) {
    PyErr_NoMemory();
    goto done;
  }
  memset(out, 0, sizeof(TF_Tensor*) * (size_t)k->num_outputs);
  for (int i = 0; i < k->num_inputs; ++i) {
    memset(&in[i], 0, sizeof(MT_Input));
    if (mt_fill_input(&in[i], PyList_GET_ITEM(inputs, i), k->input_types[i], &keep) < 0) {
      filled = i + 1;
      goto done;
    }
  }
  filled = k->num_inputs;

  struct TF_OpKernelContext ctx;
  memset(&ctx, 0, sizeof ctx);
  ctx.kernel = k;
  ctx.py = py_ctx;
  ctx.num_inputs = k->num_inputs;
  ctx.num_outputs = k->num_outputs;
  ctx.inputs = in;
  ctx.outputs = out;
  ctx.step_id = step_id;
  atomic_init(&ctx.deferred_ops, 0);
  atomic_flag_clear(&ctx.failure_lock);
  ctx.failure = NULL;

  Py_BEGIN_ALLOW_THREADS
  MT_RunKernel(&ctx);
  Py_END_ALLOW_THREADS

  if (ctx.failure != NULL) {
    PyObject* r = PyObject_CallFunction(mt_hooks[HOOK_KERNEL_FAILURE], "Ois", py_ctx, (int)TF_GetCode(ctx.failure),
                                        TF_Message(ctx.failure));
    TF_DeleteStatus(ctx.failure);
    if (r == NULL) goto done;
    Py_DECREF(r);
  }
  for (int i = 0; i < k->num_outputs; ++i) {
    if (out[i] == NULL) continue;
    PyObject* value = output_from_input(out[i], in, k->num_inputs);
    if (value == NULL && !PyErr_Occurred()) value = mt_value_from_tensor(out[i]);
    if (value == NULL) goto done;
    PyObject* old = PyList_GET_ITEM(outputs, i);
    PyList_SET_ITEM(outputs, i, value);
    Py_XDECREF(old);
  }
  result = Py_NewRef(Py_None);

done:
  if (out != NULL) { /* outputs first: an input passed through then needs no adoption */
    for (int i = 0; i < k->num_outputs; ++i) TF_DeleteTensor(out[i]);
  }
  for (int i = 0; i < filled; ++i) mt_release_input(&in[i]);
  if (in != in_small) free(in);
  if (out != out_small) free(out);
  Py_XDECREF(keep);
  Py_DECREF(inputs);
  Py_DECREF(outputs);
  return result;
}

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
