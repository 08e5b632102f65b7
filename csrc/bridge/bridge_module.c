/* modtensor bridge: the module, its functions and the Python hook table. */
#define MT_BRIDGE_DEFINES_NUMPY_API
#include "bridge.h"

PyObject* mt_hooks[HOOK_COUNT];
PyArray_Descr* mt_descr[MT_NUM_DTYPES];
PyObject* mt_str_inputs;
PyObject* mt_str_outputs;
PyObject* mt_str_step_id;
PyObject* mt_str_allocate_output;
PyObject* mt_str_device;
PyObject* mt_str_allocator;
PyObject* mt_str_host_allocator;
PyObject* mt_str_collect_stats;
PyObject* mt_str_device_address;
PyObject* mt_str_nbytes;
PyObject* mt_str_shape;
PyObject* mt_str_view;
PyObject* mt_cpu_allocator_type;

static const char* const kHookNames[HOOK_COUNT] = {
    [HOOK_REGISTER_OP] = "register_op",
    [HOOK_REGISTER_KERNEL] = "register_kernel",
    [HOOK_CONSTRUCTION_ATTR] = "construction_attr",
    [HOOK_CONSTRUCTION_NODE_DEF] = "construction_node_def",
    [HOOK_CONSTRUCTION_ATTR_TENSORS] = "construction_attr_tensors",
    [HOOK_ALLOCATE_TEMP] = "allocate_temp",
    [HOOK_FORWARD_OR_ALLOCATE] = "forward_or_allocate",
    [HOOK_CONTEXT_BUFFER] = "context_buffer",
    [HOOK_ERROR_STATUS] = "error_status",
    [HOOK_MAKE_ERROR] = "make_error",
    [HOOK_KERNEL_FAILURE] = "kernel_failure",
    [HOOK_STRINGS_AS_OBJECTS] = "strings_as_objects",
    [HOOK_SHAPE_NUM_INPUTS] = "shape_num_inputs",
    [HOOK_SHAPE_INPUT] = "shape_input",
    [HOOK_SHAPE_SET_OUTPUT] = "shape_set_output",
    [HOOK_SHAPE_MAKE] = "shape_make",
    [HOOK_SHAPE_ATTR] = "shape_attr",
    [HOOK_SHAPE_RANK] = "shape_rank",
    [HOOK_SHAPE_WITH_RANK] = "shape_with_rank",
    [HOOK_SHAPE_DIM] = "shape_dim",
    [HOOK_DIM_VALUE] = "dim_value",
    [HOOK_SHAPE_SUBSHAPE] = "shape_subshape",
    [HOOK_SHAPE_CONCATENATE] = "shape_concatenate",
    [HOOK_SHAPE_SET_UNKNOWN] = "shape_set_unknown",
    [HOOK_VARIABLE_OP] = "variable_op",
    [HOOK_VARIABLE_LOCK] = "variable_lock",
    [HOOK_REGISTRY_QUERY] = "registry_query",
    [HOOK_TENSOR_FROM_PROTO] = "tensor_from_proto",
};

/* The pending exception as one object (PyErr_GetRaisedException on 3.12+). */
static PyObject* take_exception(void) {
#if PY_VERSION_HEX >= 0x030C0000
  return PyErr_GetRaisedException();
#else
  PyObject *type, *value, *traceback;
  PyErr_Fetch(&type, &value, &traceback);
  if (type == NULL) return NULL;
  PyErr_NormalizeException(&type, &value, &traceback);
  if (value != NULL && traceback != NULL) PyException_SetTraceback(value, traceback);
  Py_XDECREF(type);
  Py_XDECREF(traceback);
  return value;
#endif
}

void mt_status_from_exception(TF_Status* status) {
  PyObject* exc = take_exception();
  if (exc == NULL) return;
  if (status == NULL) {
    Py_DECREF(exc);
    return;
  }
  PyObject* pair = NULL;
  if (mt_hooks[HOOK_ERROR_STATUS] != NULL) {
    pair = PyObject_CallOneArg(mt_hooks[HOOK_ERROR_STATUS], exc);
  }
  long code = TF_UNKNOWN;
  const char* message = NULL;
  if (pair != NULL && PyTuple_Check(pair) && PyTuple_GET_SIZE(pair) == 2) {
    code = PyLong_AsLong(PyTuple_GET_ITEM(pair, 0));
    message = PyUnicode_AsUTF8(PyTuple_GET_ITEM(pair, 1));
  }
  if (message == NULL || PyErr_Occurred()) {
    PyErr_Clear();
    code = TF_UNKNOWN;
    message = "a Python error occurred inside the modtensor runtime (and could not be described)";
  }
  TF_SetStatus(status, code == TF_OK ? TF_UNKNOWN : (TF_Code)code, message);
  Py_XDECREF(pair);
  Py_DECREF(exc);
}

PyObject* mt_call_hook(int which, PyObject* args, TF_Status* status) {
  if (args == NULL) {
    mt_status_from_exception(status);
    return NULL;
  }
  PyObject* hook = mt_hooks[which];
  if (hook == NULL) {
    Py_DECREF(args);
    MT_SetStatusf(status, TF_FAILED_PRECONDITION, "the modtensor bridge has no hook '%s' installed",
                  kHookNames[which]);
    return NULL;
  }
  PyObject* result = PyObject_Call(hook, args, NULL);
  Py_DECREF(args);
  if (result == NULL && status != NULL) mt_status_from_exception(status);
  return result;
}

void mt_raise_status(const TF_Status* status) {
  PyObject* exc = PyObject_CallFunction(mt_hooks[HOOK_MAKE_ERROR], "is", (int)TF_GetCode(status), TF_Message(status));
  if (exc == NULL) return;
  PyErr_SetObject((PyObject*)Py_TYPE(exc), exc);
  Py_DECREF(exc);
}

/* install(hooks, numpy_dtypes): hooks is an object with the hook functions as
 * attributes; numpy_dtypes[i] is the numpy dtype of TF_DataType i or None. */
static PyObject* bridge_install(PyObject* self, PyObject* args) {
  (void)self;
  PyObject* hooks;
  PyObject* dtypes;
  if (!PyArg_ParseTuple(args, "OO", &hooks, &dtypes)) return NULL;
  PyObject* fresh[HOOK_COUNT] = {0};
  for (int i = 0; i < HOOK_COUNT; ++i) {
    fresh[i] = PyObject_GetAttrString(hooks, kHookNames[i]);
    if (fresh[i] == NULL) {
      for (int j = 0; j < i; ++j) Py_DECREF(fresh[j]);
      return NULL;
    }
  }
  PyObject* seq = PySequence_Fast(dtypes, "numpy_dtypes must be a sequence");
  if (seq == NULL) {
    for (int j = 0; j < HOOK_COUNT; ++j) Py_DECREF(fresh[j]);
    return NULL;
  }
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  for (Py_ssize_t i = 0; i < MT_NUM_DTYPES; ++i) {
    PyArray_Descr* descr = NULL;
    if (i < n && PySequence_Fast_GET_ITEM(seq, i) != Py_None) {
      if (!PyArray_DescrConverter(PySequence_Fast_GET_ITEM(seq, i), &descr)) {
        Py_DECREF(seq);
        for (int j = 0; j < HOOK_COUNT; ++j) Py_DECREF(fresh[j]);
        return NULL;
      }
    }
    Py_XSETREF(mt_descr[i], descr);
  }
  Py_DECREF(seq);
  for (int i = 0; i < HOOK_COUNT; ++i) Py_XSETREF(mt_hooks[i], fresh[i]);
  Py_XSETREF(mt_cpu_allocator_type, PyObject_GetAttrString(hooks, "CPU_ALLOCATOR_TYPE"));
  if (mt_cpu_allocator_type == NULL) PyErr_Clear(); /* optional: allocation then always goes through Python */
  mt_install_callbacks();
  Py_RETURN_NONE;
}

/* call_entry_point(address[, library, what]): call a plugin's `void f(void)` (TF_InitKernel);
 * a crash inside it is reported as `what` of `library`. */
static PyObject* bridge_call_entry_point(PyObject* self, PyObject* args) {
  (void)self;
  PyObject* address_obj;
  const char* library = "";
  const char* what = "entry point";
  if (!PyArg_ParseTuple(args, "O|ss", &address_obj, &library, &what)) return NULL;
  void* address = PyLong_AsVoidPtr(address_obj);
  if (address == NULL) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "entry point address is NULL");
    return NULL;
  }
  void (*fn)(void) = (void (*)(void))address;
  MT_CallSite site = {library, NULL, NULL, NULL};
  MT_PushPluginCall(&site, what);
  fn();
  MT_PopPluginCall();
  if (PyErr_Occurred()) return NULL;
  Py_RETURN_NONE;
}

/* run_shape_fn(address, inference_context[, library, op]): run a plugin's shape function;
 * raises the OpError its status describes. */
static PyObject* bridge_run_shape_fn(PyObject* self, PyObject* args) {
  (void)self;
  PyObject* address_obj;
  PyObject* ctx;
  const char* library = "";
  const char* op = "";
  if (!PyArg_ParseTuple(args, "OO|ss", &address_obj, &ctx, &library, &op)) return NULL;
  void* address = PyLong_AsVoidPtr(address_obj);
  if (address == NULL) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "shape function address is NULL");
    return NULL;
  }
  void (*fn)(TF_ShapeInferenceContext*, TF_Status*) = (void (*)(TF_ShapeInferenceContext*, TF_Status*))address;
  struct TF_ShapeInferenceContext c = {ctx};
  TF_Status* status = TF_NewStatus();
  MT_CallSite site = {library, op, NULL, NULL};
  MT_PushPluginCall(&site, "shape function");
  fn(&c, status);
  MT_PopPluginCall();
  PyObject* result = NULL;
  if (PyErr_Occurred()) {
    /* a hook failed without a status to report into; keep its exception */
  } else if (TF_GetCode(status) != TF_OK) {
    mt_raise_status(status);
  } else {
    result = Py_NewRef(Py_None);
  }
  TF_DeleteStatus(status);
  return result;
}

/* ---- PluginCall: `with PluginCall(library, what, op, node, device):` around a call into plugin code
 * made from Python (ctypes), so that a crash inside it is reported naming it. */
typedef struct {
  PyObject_HEAD
  MT_CallSite site;
  char* what;
  char* strings[4]; /* owned copies: library, op, node, device */
} PluginCallObject;

static PyObject* PluginCall_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  static char* kwlist[] = {"library", "what", "op", "node", "device", NULL};
  const char *library = "", *what = "", *op = "", *node = "", *device = "";
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "ss|sss", kwlist, &library, &what, &op, &node, &device)) {
    return NULL;
  }
  PluginCallObject* self = (PluginCallObject*)type->tp_alloc(type, 0);
  if (self == NULL) return NULL;
  self->strings[0] = mt_copy_text(library);
  self->strings[1] = mt_copy_text(op);
  self->strings[2] = mt_copy_text(node);
  self->strings[3] = mt_copy_text(device);
  self->what = mt_copy_text(what);
  self->site.library = self->strings[0];
  self->site.op = self->strings[1];
  self->site.node = self->strings[2];
  self->site.device = self->strings[3];
  return (PyObject*)self;
}

static void PluginCall_dealloc(PluginCallObject* self) {
  for (int i = 0; i < 4; ++i) free(self->strings[i]);
  free(self->what);
  Py_TYPE(self)->tp_free((PyObject*)self);
}

static PyObject* PluginCall_enter(PluginCallObject* self, PyObject* unused) {
  (void)unused;
  MT_PushPluginCall(&self->site, self->what);
  return Py_NewRef((PyObject*)self);
}

static PyObject* PluginCall_exit(PluginCallObject* self, PyObject* const* args, Py_ssize_t nargs) {
  (void)self;
  (void)args;
  (void)nargs;
  MT_PopPluginCall();
  Py_RETURN_FALSE;
}

static PyMethodDef kPluginCallMethods[] = {
    {"__enter__", (PyCFunction)PluginCall_enter, METH_NOARGS, "Record the call on this thread."},
    {"__exit__", (PyCFunction)(void (*)(void))PluginCall_exit, METH_FASTCALL, "Forget the call."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject MT_PluginCallType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "modtensor.plugin.native._bridge.PluginCall",
    .tp_basicsize = sizeof(PluginCallObject),
    .tp_dealloc = (destructor)PluginCall_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "PluginCall(library, what, op='', node='', device=''): a context manager recording a call into "
              "plugin code on this thread, named by the crash report of a fatal signal inside it.",
    .tp_methods = kPluginCallMethods,
    .tp_new = PluginCall_new,
};

/* install_crash_handler() -> bool: install the fatal-signal handler (True when this call installed it). */
static PyObject* bridge_install_crash_handler(PyObject* self, PyObject* unused) {
  (void)self;
  (void)unused;
  return PyBool_FromLong(MT_InstallCrashHandler());
}

/* current_plugin_call() -> (library, what, op, node, device) of this thread's innermost recorded call, or None. */
static PyObject* bridge_current_plugin_call(PyObject* self, PyObject* unused) {
  (void)self;
  (void)unused;
  const char* what = NULL;
  const MT_CallSite* site = MT_CurrentPluginCall(&what);
  if (site == NULL) Py_RETURN_NONE;
  return Py_BuildValue("(sssss)", site->library ? site->library : "", what ? what : "", site->op ? site->op : "",
                       site->node ? site->node : "", site->device ? site->device : "");
}

/* kernel_builder_info(capsule) -> dict of what a TF_KernelBuilder holds. */
static PyObject* bridge_kernel_builder_info(PyObject* self, PyObject* capsule) {
  (void)self;
  TF_KernelBuilder* b = (TF_KernelBuilder*)PyCapsule_GetPointer(capsule, "modtensor.TF_KernelBuilder");
  if (b == NULL) return NULL;
  PyObject* constraints = PyList_New(b->num_constraints);
  if (constraints == NULL) return NULL;
  for (int i = 0; i < b->num_constraints; ++i) {
    PyObject* item = Py_BuildValue("(si)", b->constraints[i].attr, (int)b->constraints[i].type);
    if (item == NULL) {
      Py_DECREF(constraints);
      return NULL;
    }
    PyList_SET_ITEM(constraints, i, item);
  }
  PyObject* host_memory = PyList_New(b->host_memory.count);
  if (host_memory == NULL) {
    Py_DECREF(constraints);
    return NULL;
  }
  for (int i = 0; i < b->host_memory.count; ++i) {
    PyList_SET_ITEM(host_memory, i, PyUnicode_FromString(b->host_memory.items[i]));
  }
  return Py_BuildValue("{s:s,s:s,s:N,s:N,s:i,s:s,s:O,s:O,s:O}", "op", b->op, "device_type", b->device, "constraints",
                       constraints, "host_memory", host_memory, "priority", (int)b->priority, "label", b->label,
                       "has_create", b->create ? Py_True : Py_False, "is_async",
                       b->compute_async ? Py_True : Py_False, "has_compute",
                       (b->compute || b->compute_async) ? Py_True : Py_False);
}

static PyObject* bridge_internal_version(PyObject* self, PyObject* unused) {
  (void)self;
  (void)unused;
  return PyLong_FromLong(MT_InternalVersion());
}

static PyMethodDef kMethods[] = {
    {"install", bridge_install, METH_VARARGS, "install(hooks, numpy_dtypes): attach the runtime to the shim."},
    {"call_entry_point", bridge_call_entry_point, METH_VARARGS,
     "call_entry_point(address[, library, what]): call a plugin's void(void) entry point at an address."},
    {"install_crash_handler", bridge_install_crash_handler, METH_NOARGS,
     "Install the fatal-signal handler that names the plugin call a crash happened in."},
    {"current_plugin_call", bridge_current_plugin_call, METH_NOARGS,
     "(library, what, op, node, device) of this thread's innermost recorded plugin call, or None."},
    {"run_shape_fn", bridge_run_shape_fn, METH_VARARGS, "Run a C shape function on an InferenceContext."},
    {"kernel_builder_info", bridge_kernel_builder_info, METH_O, "What a registered TF_KernelBuilder holds."},
    {"shim_internal_version", bridge_internal_version, METH_NOARGS, "The shim's internal interface version."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef kModule = {
    PyModuleDef_HEAD_INIT, "_bridge",
    "The C side of modtensor's native plugin bridge (see modtensor.plugin.native).", -1, kMethods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__bridge(void) {
  import_array();
  if (MT_InternalVersion() != MT_INTERNAL_VERSION) {
    PyErr_Format(PyExc_ImportError,
                 "modtensor: the loaded libmodtensor_framework.so has internal version %d, the bridge expects %d "
                 "(rebuild modtensor: pip install .)",
                 MT_InternalVersion(), MT_INTERNAL_VERSION);
    return NULL;
  }
  mt_str_inputs = PyUnicode_InternFromString("inputs");
  mt_str_outputs = PyUnicode_InternFromString("outputs");
  mt_str_step_id = PyUnicode_InternFromString("step_id");
  mt_str_allocate_output = PyUnicode_InternFromString("allocate_output");
  mt_str_device = PyUnicode_InternFromString("device");
  mt_str_allocator = PyUnicode_InternFromString("allocator");
  mt_str_host_allocator = PyUnicode_InternFromString("host_allocator");
  mt_str_collect_stats = PyUnicode_InternFromString("collect_stats");
  mt_str_device_address = PyUnicode_InternFromString("device_address");
  mt_str_nbytes = PyUnicode_InternFromString("nbytes");
  mt_str_shape = PyUnicode_InternFromString("shape");
  mt_str_view = PyUnicode_InternFromString("_view");
  if (PyType_Ready(&MT_KernelType) < 0 || PyType_Ready(&MT_PluginCallType) < 0 ||
      PyType_Ready(&MT_HostBlockType) < 0) {
    return NULL;
  }
  PyObject* m = PyModule_Create(&kModule);
  if (m == NULL) return NULL;
  PyObject* direct = PyCapsule_New((void*)mt_direct_call_function, MT_DIRECT_CALL_CAPSULE, NULL);
  if (direct != NULL && PyCapsule_SetContext(direct, (void*)&mt_segment_api) < 0) Py_CLEAR(direct);
  if (direct == NULL || PyModule_AddObjectRef(m, "Kernel", (PyObject*)&MT_KernelType) < 0 ||
      PyModule_AddObjectRef(m, "PluginCall", (PyObject*)&MT_PluginCallType) < 0 ||
      PyModule_AddObjectRef(m, "HostBlock", (PyObject*)&MT_HostBlockType) < 0 ||
      PyModule_AddIntConstant(m, "INTERNAL_VERSION", MT_INTERNAL_VERSION) < 0 ||
      PyModule_AddObjectRef(m, "DIRECT_CALL", direct) < 0) {
    Py_XDECREF(direct);
    Py_DECREF(m);
    return NULL;
  }
  Py_DECREF(direct);
  return m;
}
