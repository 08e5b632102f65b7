/* modtensor._plan_runner: the executor's straight-line plan loop in C (runtime/executor.py, "the plan").
 *
 * A Plan holds, per node of a compiled partition, how to call its kernel directly (a Python
 * callable taking the input values: a FunctionKernel's prepared call), which value slots it
 * reads, which of them this node is the last reader of, where its output goes, which outputs
 * nobody reads, and the numpy dtype its output must have. Plan.run(values, start) runs such
 * nodes one after another on the list of value slots and returns the index of the first node it
 * does not run itself (a kernel needing a context, a transfer, an output of the wrong dtype): the
 * Python executor runs that one and calls run again. A kernel's exception propagates with
 * Plan.failed_at set to its node, which the executor names in the error. Nothing here is specific
 * to a device: it only calls Python callables, in the executor's order, holding the GIL. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

typedef struct {
  int direct;               /* 1: run here; 0: the executor runs it */
  PyObject* call;           /* the kernel's direct call (owned), or NULL */
  PyArray_Descr* expected;  /* the output dtype (owned), or NULL when not checked */
  Py_ssize_t n_in;
  Py_ssize_t* in;           /* input slots */
  Py_ssize_t n_take;
  Py_ssize_t* take;         /* slots this node reads last: cleared after the call */
  Py_ssize_t out;           /* output slot */
  Py_ssize_t n_drop;
  Py_ssize_t* drop;         /* output slots nobody reads: cleared after the call */
} Step;

typedef struct {
  PyObject_HEAD
  Py_ssize_t n;
  Step* steps;
  Py_ssize_t failed_at;
} PlanObject;

static void free_steps(PlanObject* self) {
  if (self->steps == NULL) return;
  for (Py_ssize_t i = 0; i < self->n; ++i) {
    Step* s = &self->steps[i];
    Py_XDECREF(s->call);
    Py_XDECREF(s->expected);
    PyMem_Free(s->in);
    PyMem_Free(s->take);
    PyMem_Free(s->drop);
  }
  PyMem_Free(self->steps);
  self->steps = NULL;
}

static void Plan_dealloc(PlanObject* self) {
  free_steps(self);
  Py_TYPE(self)->tp_free((PyObject*)self);
}

static int slots(PyObject* seq, Py_ssize_t* count, Py_ssize_t** out) {
  PyObject* fast = PySequence_Fast(seq, "expected a sequence of slot indices");
  if (fast == NULL) return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  Py_ssize_t* values = (Py_ssize_t*)PyMem_Calloc((size_t)(n > 0 ? n : 1), sizeof(Py_ssize_t));
  if (values == NULL) {
    Py_DECREF(fast);
    PyErr_NoMemory();
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    values[i] = PyLong_AsSsize_t(PySequence_Fast_GET_ITEM(fast, i));
    if (values[i] < 0 && PyErr_Occurred()) {
      PyMem_Free(values);
      Py_DECREF(fast);
      return -1;
    }
  }
  Py_DECREF(fast);
  *count = n;
  *out = values;
  return 0;
}

/* Plan(steps): steps is a sequence of (call or None, expected numpy dtype or None, in_slots, take, out_slot, drop). */
static int Plan_init(PlanObject* self, PyObject* args, PyObject* kwargs) {
  PyObject* steps;
  static char* keywords[] = {"steps", NULL};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O", keywords, &steps)) return -1;
  PyObject* fast = PySequence_Fast(steps, "steps must be a sequence");
  if (fast == NULL) return -1;
  free_steps(self);
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  self->steps = (Step*)PyMem_Calloc((size_t)(n > 0 ? n : 1), sizeof(Step));
  if (self->steps == NULL) {
    Py_DECREF(fast);
    PyErr_NoMemory();
    return -1;
  }
  self->n = n;
  self->failed_at = -1;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *call, *expected, *in, *take, *drop;
    Py_ssize_t out;
    if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, i), "OOOOnO", &call, &expected, &in, &take, &out, &drop)) {
      Py_DECREF(fast);
      return -1;
    }
    Step* s = &self->steps[i];
    s->out = out;
    if (slots(in, &s->n_in, &s->in) < 0 || slots(take, &s->n_take, &s->take) < 0 ||
        slots(drop, &s->n_drop, &s->drop) < 0) {
      Py_DECREF(fast);
      return -1;
    }
    if (call != Py_None) {
      s->direct = 1;
      s->call = Py_NewRef(call);
    }
    if (expected != Py_None) {
      PyArray_Descr* descr = NULL;
      if (!PyArray_DescrConverter(expected, &descr)) {
        Py_DECREF(fast);
        return -1;
      }
      s->expected = descr;
    }
  }
  Py_DECREF(fast);
  return 0;
}

static int set_slot(PyObject* values, Py_ssize_t slot, PyObject* value) {
  if (slot < 0 || slot >= PyList_GET_SIZE(values)) {
    Py_DECREF(value);
    PyErr_Format(PyExc_IndexError, "value slot %zd out of range", slot);
    return -1;
  }
  PyObject* old = PyList_GET_ITEM(values, slot);
  PyList_SET_ITEM(values, slot, value);
  Py_XDECREF(old);
  return 0;
}

#define SMALL 8

/* run(values, start) -> index of the first node not run here (len(steps) when all ran). */
static PyObject* Plan_run(PlanObject* self, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 2 || !PyList_Check(args[0])) {
    PyErr_SetString(PyExc_TypeError, "run(values: list, start: int)");
    return NULL;
  }
  PyObject* values = args[0];
  Py_ssize_t i = PyLong_AsSsize_t(args[1]);
  if (i < 0 && PyErr_Occurred()) return NULL;
  Py_ssize_t size = PyList_GET_SIZE(values);
  PyObject* small[SMALL];
  for (; i < self->n; ++i) {
    Step* s = &self->steps[i];
    if (!s->direct) break;
    PyObject** argv = small;
    if (s->n_in > SMALL) {
      argv = (PyObject**)PyMem_Malloc(sizeof(PyObject*) * (size_t)s->n_in);
      if (argv == NULL) return PyErr_NoMemory();
    }
    for (Py_ssize_t k = 0; k < s->n_in; ++k) {
      Py_ssize_t slot = s->in[k];
      if (slot < 0 || slot >= size) {
        if (argv != small) PyMem_Free(argv);
        PyErr_Format(PyExc_IndexError, "value slot %zd out of range", slot);
        self->failed_at = i;
        return NULL;
      }
      argv[k] = PyList_GET_ITEM(values, slot); /* borrowed: the list keeps them during the call */
    }
    PyObject* out = PyObject_Vectorcall(s->call, argv, (size_t)s->n_in, NULL);
    if (argv != small) PyMem_Free(argv);
    if (out == NULL) {
      self->failed_at = i;
      return NULL;
    }
    if (!PyArray_CheckExact(out)) {
      PyObject* array = PyArray_FromAny(out, NULL, 0, 0, 0, NULL);
      Py_DECREF(out);
      if (array == NULL) {
        self->failed_at = i;
        return NULL;
      }
      out = array;
    }
    if (s->expected != NULL && PyArray_DESCR((PyArrayObject*)out) != s->expected &&
        !PyArray_EquivTypes(PyArray_DESCR((PyArrayObject*)out), s->expected)) {
      Py_DECREF(out); /* the executor runs it again itself and reports the wrong dtype */
      break;
    }
    for (Py_ssize_t k = 0; k < s->n_take; ++k) {
      if (set_slot(values, s->take[k], Py_NewRef(Py_None)) < 0) {
        Py_DECREF(out);
        self->failed_at = i;
        return NULL;
      }
    }
    if (set_slot(values, s->out, out) < 0) {
      self->failed_at = i;
      return NULL;
    }
    for (Py_ssize_t k = 0; k < s->n_drop; ++k) {
      if (set_slot(values, s->drop[k], Py_NewRef(Py_None)) < 0) {
        self->failed_at = i;
        return NULL;
      }
    }
  }
  return PyLong_FromSsize_t(i);
}

static PyObject* Plan_get_failed_at(PlanObject* self, void* closure) {
  (void)closure;
  return PyLong_FromSsize_t(self->failed_at);
}

static PyMethodDef kPlanMethods[] = {
    {"run", (PyCFunction)(void (*)(void))Plan_run, METH_FASTCALL,
     "run(values, start) -> index of the first node the executor must run itself (len when all ran)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef kPlanGetSet[] = {
    {"failed_at", (getter)Plan_get_failed_at, NULL, "The node whose kernel raised in the last run, or -1.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject PlanType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "modtensor.runtime._plan_runner.Plan",
    .tp_basicsize = sizeof(PlanObject),
    .tp_dealloc = (destructor)Plan_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Plan(steps): the direct-call nodes of an executor's plan, run in C.",
    .tp_methods = kPlanMethods,
    .tp_getset = kPlanGetSet,
    .tp_init = (initproc)Plan_init,
    .tp_new = PyType_GenericNew,
};

static struct PyModuleDef kModule = {
    PyModuleDef_HEAD_INIT, "_plan_runner", "The executor's straight-line plan loop in C.", -1, NULL, NULL, NULL, NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__plan_runner(void) {
  import_array();
  if (PyType_Ready(&PlanType) < 0) return NULL;
  PyObject* module = PyModule_Create(&kModule);
  if (module == NULL) return NULL;
  if (PyModule_AddObjectRef(module, "Plan", (PyObject*)&PlanType) < 0) {
    Py_DECREF(module);
    return NULL;
  }
  return module;
}
