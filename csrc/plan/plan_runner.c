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
 * to a device: it only calls Python callables, in the executor's order, holding the GIL.
 *
 * A step may instead name a C entry point (a capsule holding a DirectCall function, with the object
 * it is called on): the built-in native CPU kernels (modtensor.plugin.native._bridge.DIRECT_CALL).
 * Such a call gets the values this node reads last *moved* out of their slots (the plan holds their
 * only reference during the call and tells the callee which arguments it gives up), so the kernel
 * may write its output into an input's buffer, as TensorFlow forwards an input nobody else reads. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

/* A C entry point: call(target, args, nargs, given) -> output (new reference) or NULL with an exception; bit i
 * of `given`: argument i is given up by the caller (csrc/bridge/bridge.h, MT_DirectCallFunction). */
typedef PyObject* (*DirectCallFunction)(PyObject* target, PyObject* const* args, Py_ssize_t nargs, uint64_t given);
#define DIRECT_CALL_CAPSULE "modtensor.plugin.native._bridge.DIRECT_CALL"

typedef struct {
  int direct;               /* 1: run here; 0: the executor runs it */
  PyObject* call;           /* the kernel's direct call (owned), or NULL */
  DirectCallFunction c_call; /* or a C entry point, called on `target` */
  PyObject* target;         /* (owned) */
  uint64_t given;           /* c_call: the arguments whose slot this node reads last (given up) */
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
    Py_XDECREF(s->target);
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

/* Plan(steps): steps is a sequence of (call or None, expected numpy dtype or None, in_slots, take, out_slot, drop
 * [, (capsule, target) or None]); a (capsule, target) pair runs the capsule's DirectCall on target instead of
 * call. */
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
    PyObject *call, *expected, *in, *take, *drop, *native = Py_None;
    Py_ssize_t out;
    if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, i), "OOOOnO|O", &call, &expected, &in, &take, &out, &drop,
                          &native)) {
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
    if (native != Py_None) {
      PyObject *capsule, *target;
      if (!PyArg_ParseTuple(native, "OO", &capsule, &target)) {
        Py_DECREF(fast);
        return -1;
      }
      s->c_call = (DirectCallFunction)PyCapsule_GetPointer(capsule, DIRECT_CALL_CAPSULE);
      if (s->c_call == NULL) {
        Py_DECREF(fast);
        return -1;
      }
      s->direct = 1;
      s->target = Py_NewRef(target);
      for (Py_ssize_t k = 0; k < s->n_in && k < 64; ++k) { /* arguments read from a slot this node reads last */
        for (Py_ssize_t t = 0; t < s->n_take; ++t) {
          if (s->take[t] == s->in[k]) s->given |= (uint64_t)1 << k;
        }
      }
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

/* Take the values of `s`'s last-read slots out of the list into `moved` (the plan then holds their only
 * reference from the list's side). -1 with an exception when a slot is out of range. */
static int move_out(const Step* s, PyObject* values, PyObject** moved) {
  Py_ssize_t size = PyList_GET_SIZE(values);
  for (Py_ssize_t k = 0; k < s->n_take; ++k) {
    Py_ssize_t slot = s->take[k];
    if (slot < 0 || slot >= size) {
      for (Py_ssize_t j = 0; j < k; ++j) { /* put back what was moved */
        PyObject* none = PyList_GET_ITEM(values, s->take[j]);
        PyList_SET_ITEM(values, s->take[j], moved[j]);
        Py_DECREF(none);
      }
      PyErr_Format(PyExc_IndexError, "value slot %zd out of range", slot);
      return -1;
    }
    moved[k] = PyList_GET_ITEM(values, slot);
    PyList_SET_ITEM(values, slot, Py_NewRef(Py_None));
  }
  return 0;
}

/* Undo move_out (restore = 1: the values go back into their slots) or drop the moved references. */
static void settle_moved(const Step* s, PyObject* values, PyObject** moved, int restore) {
  for (Py_ssize_t k = 0; k < s->n_take; ++k) {
    if (restore) {
      PyObject* none = PyList_GET_ITEM(values, s->take[k]);
      PyList_SET_ITEM(values, s->take[k], moved[k]);
      Py_DECREF(none);
    } else {
      Py_DECREF(moved[k]);
    }
  }
}

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
  PyObject* small[2 * SMALL];
  for (; i < self->n; ++i) {
    Step* s = &self->steps[i];
    if (!s->direct) break;
    PyObject** argv = small; /* the arguments, then (C entry points) the values moved out of their slots */
    if (s->n_in > SMALL) {
      argv = (PyObject**)PyMem_Malloc(sizeof(PyObject*) * 2 * (size_t)s->n_in);
      if (argv == NULL) return PyErr_NoMemory();
    }
    PyObject** moved = argv + (s->n_in > SMALL ? s->n_in : SMALL);
    for (Py_ssize_t k = 0; k < s->n_in; ++k) {
      Py_ssize_t slot = s->in[k];
      if (slot < 0 || slot >= size) {
        if (argv != small) PyMem_Free(argv);
        PyErr_Format(PyExc_IndexError, "value slot %zd out of range", slot);
        self->failed_at = i;
        return NULL;
      }
      argv[k] = PyList_GET_ITEM(values, slot); /* borrowed: the list (or `moved`) keeps them during the call */
    }
    PyObject* out;
    int moving = s->c_call != NULL && s->n_take > 0;
    if (moving && move_out(s, values, moved) < 0) {
      if (argv != small) PyMem_Free(argv);
      self->failed_at = i;
      return NULL;
    }
    if (s->c_call != NULL) {
      out = s->c_call(s->target, argv, s->n_in, s->given);
    } else {
      out = PyObject_Vectorcall(s->call, argv, (size_t)s->n_in, NULL);
    }
    if (out != NULL && !PyArray_CheckExact(out)) {
      PyObject* array = PyArray_FromAny(out, NULL, 0, 0, 0, NULL);
      Py_DECREF(out);
      out = array;
    }
    int wrong_dtype = out != NULL && s->expected != NULL && PyArray_DESCR((PyArrayObject*)out) != s->expected &&
                      !PyArray_EquivTypes(PyArray_DESCR((PyArrayObject*)out), s->expected);
    if (moving) settle_moved(s, values, moved, wrong_dtype); /* the executor reruns a wrong one with its inputs */
    if (argv != small) PyMem_Free(argv);
    if (out == NULL) {
      self->failed_at = i;
      return NULL;
    }
    if (wrong_dtype) {
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
