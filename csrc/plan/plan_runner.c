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
 * it is called on): the built-in native CPU kernels (modtensor.plugin.native._bridge.DIRECT_CALL), or
 * this extension's host scalar ops (SCALAR_CALL, scalar_ops.c). Such a call gets the values this node
 * reads last *moved* out of their slots (the plan holds their only reference during the call and tells
 * the callee which arguments it gives up), so the kernel may write its output into an input's buffer,
 * as TensorFlow forwards an input nobody else reads.
 *
 * A Loop runs a while loop over one Plan's steps (head, predicate, body, loop variables' update) without
 * returning to Python per iteration (runtime/loop_plan.py builds it; see "loops" below). */
#define MT_PLAN_IMPORTS_ARRAY
#include "plan.h"

#include <string.h>

typedef struct {
  int direct;               /* 1: run here; 0: the executor runs it */
  PyObject* call;           /* the kernel's direct call (owned), or NULL */
  DirectCallFunction c_call; /* or a C entry point, called on `target` */
  PyObject* target;         /* (owned) */
  uint64_t given;           /* c_call: the arguments whose slot this node reads last (given up) */
  PyArray_Descr* expected;  /* the output dtype (owned), or NULL when not checked */
  Py_ssize_t n_out;         /* >0: the call returns a sequence of n_out outputs for the slots `outs` */
  Py_ssize_t* outs;
  PyArray_Descr** expecteds; /* their dtypes (owned; every one checked) */
  Py_ssize_t n_in;
  Py_ssize_t* in;           /* input slots */
  Py_ssize_t n_take;
  Py_ssize_t* take;         /* slots this node reads last: cleared after the call */
  Py_ssize_t out;           /* output slot */
  Py_ssize_t n_drop;
  Py_ssize_t* drop;         /* output slots nobody reads: cleared after the call */
  int native_kernel;        /* c_call is the native bridge's DIRECT_CALL (target a bridge Kernel) */
  /* This step starts a segment (owned): the plan's steps [this, this + span) are its steps and n_consts
     constant steps among them (no inputs, a Python call), which run first, with the GIL, into their slots. */
  MT_Segment* segment;
  Py_ssize_t span;
  Py_ssize_t n_consts;
  Py_ssize_t* consts;       /* their indices in the plan (owned) */
} Step;

typedef struct {
  PyObject_HEAD
  Py_ssize_t n;
  Step* steps;
  Py_ssize_t failed_at;
} PlanObject;

const MT_SegmentAPI* mt_segment_api_seen;

void mt_note_segment_api(PyObject* capsule) {
  const MT_SegmentAPI* api = (const MT_SegmentAPI*)PyCapsule_GetContext(capsule);
  if (api != NULL && api->version == MT_SEGMENT_API_VERSION) mt_segment_api_seen = api;
}

static void free_segment(MT_Segment* seg) {
  if (seg == NULL) return;
  for (Py_ssize_t i = 0; i < seg->n_steps; ++i) PyMem_Free(seg->steps[i].arg);
  PyMem_Free(seg->steps);
  PyMem_Free(seg->ext_slot);
  PyMem_Free(seg->ext_taken);
  PyMem_Free(seg);
}

static void free_steps(PlanObject* self) {
  if (self->steps == NULL) return;
  for (Py_ssize_t i = 0; i < self->n; ++i) {
    Step* s = &self->steps[i];
    free_segment(s->segment);
    PyMem_Free(s->consts);
    Py_XDECREF(s->call);
    Py_XDECREF(s->target);
    Py_XDECREF(s->expected);
    for (Py_ssize_t k = 0; k < s->n_out && s->expecteds != NULL; ++k) Py_XDECREF(s->expecteds[k]);
    PyMem_Free(s->expecteds);
    PyMem_Free(s->outs);
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
 * call. A node of several outputs gives a tuple of out slots and a tuple of as many dtypes (its call returns a
 * sequence of that length; no C entry point). */
static int multi_outputs(Step* s, PyObject* out, PyObject* expected, PyObject* native) {
  if (native != Py_None) {
    PyErr_SetString(PyExc_ValueError, "a step of several outputs takes no C entry point");
    return -1;
  }
  if (slots(out, &s->n_out, &s->outs) < 0) return -1;
  PyObject* dtypes = PySequence_Fast(expected, "a step of several outputs needs a sequence of dtypes");
  if (dtypes == NULL) return -1;
  if (PySequence_Fast_GET_SIZE(dtypes) != s->n_out || s->n_out == 0) {
    Py_DECREF(dtypes);
    PyErr_SetString(PyExc_ValueError, "a step of several outputs needs one dtype per output slot");
    return -1;
  }
  s->expecteds = (PyArray_Descr**)PyMem_Calloc((size_t)s->n_out, sizeof(PyArray_Descr*));
  if (s->expecteds == NULL) {
    Py_DECREF(dtypes);
    PyErr_NoMemory();
    return -1;
  }
  for (Py_ssize_t k = 0; k < s->n_out; ++k) {
    if (!PyArray_DescrConverter(PySequence_Fast_GET_ITEM(dtypes, k), &s->expecteds[k])) {
      Py_DECREF(dtypes);
      return -1;
    }
  }
  Py_DECREF(dtypes);
  return 0;
}

/* ---------------------------------------------------------------------------------------------- segments
 *
 * A straight run of at least two steps that are all built-in native kernels on the host fast path (direct
 * calls of bridge Kernels, or scalar ops whose non-0-d operands go to one) is a segment: Plan.run hands it to
 * the bridge's segment runner (csrc/bridge/segment_api.h), which runs its kernels on C tensors with the GIL
 * released once for all of them. 0-d operands of such a scalar op then go to the native kernel too (the same
 * IEEE arithmetic). */

#define MIN_SEGMENT 2

/* The bridge Kernel step `s` may run as in a segment, or NULL. */
static PyObject* segment_kernel(const Step* s) {
  const MT_SegmentAPI* api = mt_segment_api_seen;
  if (api == NULL || !s->direct || s->n_out > 0 || s->c_call == NULL || s->n_in > 64) return NULL;
  PyObject* kernel = s->native_kernel ? s->target : s->c_call == mt_scalar_call ? mt_scalar_op_native_kernel(s->target)
                                                                                : NULL;
  if (kernel == NULL) return NULL;
  return api->eligible(kernel, s->expected != NULL ? (PyObject*)s->expected : NULL) ? kernel : NULL;
}

static int contains(const Py_ssize_t* slots, Py_ssize_t n, Py_ssize_t slot) {
  for (Py_ssize_t k = 0; k < n; ++k) {
    if (slots[k] == slot) return 1;
  }
  return 0;
}

/* A constant step: no inputs, a Python call (Const). A segment runs it before its kernels: nothing it does
 * depends on them. */
static int constant_step(const Step* s) { return s->direct && s->n_out == 0 && s->c_call == NULL && s->n_in == 0; }

/* The segment of the kernel steps among [first, stop), the others constant steps: 0, or -1 with an exception. */
static int make_segment(PlanObject* self, Py_ssize_t first, Py_ssize_t stop) {
  Py_ssize_t n = 0, inputs = 0, n_consts = 0;
  for (Py_ssize_t i = first; i < stop; ++i) {
    inputs += self->steps[i].n_in;
    if (constant_step(&self->steps[i])) {
      ++n_consts;
    } else {
      ++n;
    }
  }
  Py_ssize_t* consts = (Py_ssize_t*)PyMem_Calloc((size_t)(n_consts > 0 ? n_consts : 1), sizeof(Py_ssize_t));
  if (consts == NULL) {
    PyErr_NoMemory();
    return -1;
  }
  n_consts = 0;
  for (Py_ssize_t i = first; i < stop; ++i) {
    if (constant_step(&self->steps[i])) consts[n_consts++] = i;
  }
  MT_Segment* seg = (MT_Segment*)PyMem_Calloc(1, sizeof(MT_Segment));
  if (seg == NULL) {
    PyMem_Free(consts);
    PyErr_NoMemory();
    return -1;
  }
  seg->steps = (MT_SegmentStep*)PyMem_Calloc((size_t)n, sizeof(MT_SegmentStep));
  seg->ext_slot = (Py_ssize_t*)PyMem_Calloc((size_t)(inputs > 0 ? inputs : 1), sizeof(Py_ssize_t));
  seg->ext_taken = (unsigned char*)PyMem_Calloc((size_t)(inputs > 0 ? inputs : 1), 1);
  Step** kernels = (Step**)PyMem_Calloc((size_t)(n > 0 ? n : 1), sizeof(Step*));
  if (seg->steps == NULL || seg->ext_slot == NULL || seg->ext_taken == NULL || kernels == NULL) {
    PyMem_Free(kernels);
    PyMem_Free(consts);
    free_segment(seg);
    PyErr_NoMemory();
    return -1;
  }
  seg->n_steps = 0;
  for (Py_ssize_t i = first; i < stop; ++i) {
    if (!constant_step(&self->steps[i])) kernels[seg->n_steps++] = &self->steps[i];
  }
  for (Py_ssize_t t = 0; t < n; ++t) {
    const Step* s = kernels[t];
    MT_SegmentStep* g = &seg->steps[t];
    g->kernel = segment_kernel(s);
    g->n_in = s->n_in;
    g->out = s->out;
    g->arg = (Py_ssize_t*)PyMem_Calloc((size_t)(s->n_in > 0 ? s->n_in : 1), sizeof(Py_ssize_t));
    if (g->arg == NULL) {
      PyMem_Free(kernels);
      PyMem_Free(consts);
      free_segment(seg);
      PyErr_NoMemory();
      return -1;
    }
    for (Py_ssize_t k = 0; k < s->n_in; ++k) {
      Py_ssize_t slot = s->in[k], a = -1;
      for (Py_ssize_t p = 0; p < t && a < 0; ++p) {
        if (kernels[p]->out == slot) a = p;
      }
      if (a < 0) { /* a value from outside the segment */
        Py_ssize_t e = 0;
        while (e < seg->n_ext && seg->ext_slot[e] != slot) ++e;
        if (e == seg->n_ext) seg->ext_slot[seg->n_ext++] = slot;
        a = -1 - e;
      }
      g->arg[k] = a;
      if (contains(s->take, s->n_take, slot)) { /* nothing after this step reads it */
        g->last |= (uint64_t)1 << k;
        if (a < 0) seg->ext_taken[-1 - a] = 1;
      }
    }
  }
  for (Py_ssize_t t = 0; t < n; ++t) {
    const Step* s = kernels[t];
    int read_here = 0;
    for (Py_ssize_t p = t + 1; p < n && !read_here; ++p) read_here = contains(kernels[p]->take, kernels[p]->n_take, s->out);
    seg->steps[t].out_use = read_here ? MT_OUT_SEGMENT
                            : contains(s->drop, s->n_drop, s->out) ? MT_OUT_NONE
                                                                   : MT_OUT_SLOT;
  }
  PyMem_Free(kernels);
  Step* head = &self->steps[first];
  head->segment = seg;
  head->span = stop - first;
  head->n_consts = n_consts;
  head->consts = consts;
  return 0;
}

/* The plan's segments: maximal runs of steps segment_kernel accepts and constant steps, with at least
 * MIN_SEGMENT of the former, starting and ending with one. 0, or -1. */
static int build_segments(PlanObject* self) {
  Py_ssize_t i = 0;
  while (i < self->n) {
    if (segment_kernel(&self->steps[i]) == NULL) {
      ++i;
      continue;
    }
    Py_ssize_t j = i, end = i, kernels = 0;
    for (; j < self->n; ++j) {
      if (segment_kernel(&self->steps[j]) != NULL) {
        ++kernels;
        end = j + 1;
      } else if (!constant_step(&self->steps[j])) {
        break;
      }
    }
    if (kernels >= MIN_SEGMENT && make_segment(self, i, end) < 0) return -1;
    i = end;
  }
  return 0;
}

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
    PyObject *call, *expected, *in, *take, *out, *drop, *native = Py_None;
    if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, i), "OOOOOO|O", &call, &expected, &in, &take, &out, &drop,
                          &native)) {
      Py_DECREF(fast);
      return -1;
    }
    Step* s = &self->steps[i];
    if (PyTuple_Check(out)) {
      if (multi_outputs(s, out, expected, native) < 0) {
        Py_DECREF(fast);
        return -1;
      }
      expected = Py_None;
    } else {
      s->out = PyLong_AsSsize_t(out);
      if (s->out == -1 && PyErr_Occurred()) {
        Py_DECREF(fast);
        return -1;
      }
    }
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
      const char* name = PyCapsule_CheckExact(capsule) ? PyCapsule_GetName(capsule) : NULL;
      if (name != NULL && strcmp(name, SCALAR_CALL_CAPSULE) == 0) {
        s->c_call = (DirectCallFunction)PyCapsule_GetPointer(capsule, SCALAR_CALL_CAPSULE);
      } else {
        s->c_call = (DirectCallFunction)PyCapsule_GetPointer(capsule, DIRECT_CALL_CAPSULE);
        s->native_kernel = s->c_call != NULL;
        if (s->native_kernel) mt_note_segment_api(capsule);
      }
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
  return build_segments(self);
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

/* Run step `s` on `values` (of `size` slots): 0 when it ran, 1 when the executor must run it (not a direct call,
 * or its output has the wrong dtype: then nothing changed), -1 with an exception when its kernel failed. */
/* The values of `s`'s input slots into argv (borrowed references); -1 with an exception for a slot out of range. */
static int gather_args(const Step* s, PyObject* values, Py_ssize_t size, PyObject** argv) {
  for (Py_ssize_t k = 0; k < s->n_in; ++k) {
    Py_ssize_t slot = s->in[k];
    if (slot < 0 || slot >= size) {
      PyErr_Format(PyExc_IndexError, "value slot %zd out of range", slot);
      return -1;
    }
    argv[k] = PyList_GET_ITEM(values, slot);
  }
  return 0;
}

static int run_multi(const Step* s, PyObject* values, Py_ssize_t size);

static int run_step(const Step* s, PyObject* values, Py_ssize_t size) {
  if (!s->direct) return 1;
  if (s->n_out > 0) return run_multi(s, values, size);
  PyObject* small[2 * SMALL];
  PyObject** argv = small; /* the arguments, then (C entry points) the values moved out of their slots */
  if (s->n_in > SMALL) {
    argv = (PyObject**)PyMem_Malloc(sizeof(PyObject*) * 2 * (size_t)s->n_in);
    if (argv == NULL) {
      PyErr_NoMemory();
      return -1;
    }
  }
  PyObject** moved = argv + (s->n_in > SMALL ? s->n_in : SMALL);
  if (gather_args(s, values, size, argv) < 0) { /* borrowed: the list (or `moved`) keeps them during the call */
    if (argv != small) PyMem_Free(argv);
    return -1;
  }
  PyObject* out;
  int moving = s->c_call != NULL && s->n_take > 0;
  if (moving && move_out(s, values, moved) < 0) {
    if (argv != small) PyMem_Free(argv);
    return -1;
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
  if (out == NULL) return -1;
  if (wrong_dtype) {
    Py_DECREF(out); /* the executor runs it again itself and reports the wrong dtype */
    return 1;
  }
  for (Py_ssize_t k = 0; k < s->n_take; ++k) {
    if (set_slot(values, s->take[k], Py_NewRef(Py_None)) < 0) {
      Py_DECREF(out);
      return -1;
    }
  }
  if (set_slot(values, s->out, out) < 0) return -1;
  for (Py_ssize_t k = 0; k < s->n_drop; ++k) {
    if (set_slot(values, s->drop[k], Py_NewRef(Py_None)) < 0) return -1;
  }
  return 0;
}

/* A step of several outputs (a Python call returning a sequence): 0 when it ran, 1 when its result is not n_out
 * arrays of the expected dtypes (nothing changed: the executor runs it again and reports), -1 on an exception. */
static int run_multi(const Step* s, PyObject* values, Py_ssize_t size) {
  PyObject* small[SMALL];
  PyObject** argv = small;
  if (s->n_in > SMALL) {
    argv = (PyObject**)PyMem_Malloc(sizeof(PyObject*) * (size_t)s->n_in);
    if (argv == NULL) {
      PyErr_NoMemory();
      return -1;
    }
  }
  if (gather_args(s, values, size, argv) < 0) {
    if (argv != small) PyMem_Free(argv);
    return -1;
  }
  PyObject* result = PyObject_Vectorcall(s->call, argv, (size_t)s->n_in, NULL);
  if (argv != small) PyMem_Free(argv);
  if (result == NULL) return -1;
  PyObject* seq = PySequence_Fast(result, "");
  Py_DECREF(result);
  if (seq == NULL) {
    PyErr_Clear();
    return 1;
  }
  if (PySequence_Fast_GET_SIZE(seq) != s->n_out) {
    Py_DECREF(seq);
    return 1;
  }
  PyObject* outs[SMALL];
  PyObject** arrays = outs;
  if (s->n_out > SMALL) {
    arrays = (PyObject**)PyMem_Calloc((size_t)s->n_out, sizeof(PyObject*));
    if (arrays == NULL) {
      Py_DECREF(seq);
      PyErr_NoMemory();
      return -1;
    }
  }
  int status = 0;
  Py_ssize_t made = 0;
  for (; made < s->n_out; ++made) {
    PyObject* item = PySequence_Fast_GET_ITEM(seq, made);
    PyObject* array = PyArray_CheckExact(item) ? Py_NewRef(item) : PyArray_FromAny(item, NULL, 0, 0, 0, NULL);
    if (array == NULL) {
      status = -1;
      break;
    }
    arrays[made] = array;
    PyArray_Descr* have = PyArray_DESCR((PyArrayObject*)array);
    if (have != s->expecteds[made] && !PyArray_EquivTypes(have, s->expecteds[made])) {
      status = 1;
      ++made;
      break;
    }
  }
  Py_DECREF(seq);
  if (status == 0) {
    for (Py_ssize_t k = 0; k < s->n_take && status == 0; ++k) {
      if (set_slot(values, s->take[k], Py_NewRef(Py_None)) < 0) status = -1;
    }
    for (Py_ssize_t k = 0; k < s->n_out; ++k) { /* set_slot steals each array, also on failure */
      if (status == 0) {
        if (set_slot(values, s->outs[k], arrays[k]) < 0) status = -1;
      } else {
        Py_DECREF(arrays[k]);
      }
    }
    made = 0;
    for (Py_ssize_t k = 0; k < s->n_drop && status == 0; ++k) {
      if (set_slot(values, s->drop[k], Py_NewRef(Py_None)) < 0) status = -1;
    }
  }
  for (Py_ssize_t k = 0; k < made; ++k) Py_DECREF(arrays[k]);
  if (arrays != outs) PyMem_Free(arrays);
  return status;
}

/* The plan index of kernel step `t` of the segment starting at `first`. */
static Py_ssize_t segment_step_index(const PlanObject* self, Py_ssize_t first, Py_ssize_t t) {
  for (Py_ssize_t i = first; i < self->n; ++i) {
    if (!constant_step(&self->steps[i]) && t-- == 0) return i;
  }
  return first;
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
  for (; i < self->n; ++i) {
    const Step* head = &self->steps[i];
    if (head->segment != NULL) {
      int ran = 0;
      for (Py_ssize_t c = 0; c < head->n_consts && ran == 0; ++c) {
        ran = run_step(&self->steps[head->consts[c]], values, size);
        if (ran < 0) self->failed_at = head->consts[c];
      }
      if (ran < 0) return NULL;
      Py_ssize_t failed = 0;
      int r = ran == 0 ? mt_segment_api_seen->run(head->segment, values, &failed) : MT_SEGMENT_DECLINED;
      if (r == MT_SEGMENT_FAILED) {
        self->failed_at = segment_step_index(self, i, failed);
        return NULL;
      }
      if (r == MT_SEGMENT_RAN) {
        i += head->span - 1;
        continue;
      }
      /* declined: the steps one by one (a constant step that already ran runs again: it has no effects) */
    }
    int ran = run_step(&self->steps[i], values, size);
    if (ran < 0) {
      self->failed_at = i;
      return NULL;
    }
    if (ran > 0) break;
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

/* segments -> ((first, span, kernels), ...): the plan's segments, for tests and debugging. */
static PyObject* Plan_get_segments(PlanObject* self, void* closure) {
  (void)closure;
  PyObject* list = PyList_New(0);
  for (Py_ssize_t i = 0; list != NULL && i < self->n; ++i) {
    const Step* s = &self->steps[i];
    if (s->segment == NULL) continue;
    PyObject* item = Py_BuildValue("(nnn)", i, s->span, s->segment->n_steps);
    if (item == NULL || PyList_Append(list, item) < 0) Py_CLEAR(list);
    Py_XDECREF(item);
  }
  if (list == NULL) return NULL;
  PyObject* result = PyList_AsTuple(list);
  Py_DECREF(list);
  return result;
}

static PyGetSetDef kPlanGetSet[] = {
    {"failed_at", (getter)Plan_get_failed_at, NULL, "The node whose kernel raised in the last run, or -1.", NULL},
    {"segments", (getter)Plan_get_segments, NULL,
     "((first step, steps spanned, native kernels), ...): the runs of native kernels run without the GIL.", NULL},
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

/* ------------------------------------------------------------------------------------------------ loops
 *
 * Loop(plan, head_end, pred, next_dst, next_src) runs a while loop whose steps are `plan`'s: the head
 * (steps [0, head_end): the loop's condition), then, while the predicate slot holds true, the body (the other
 * steps) and the loop variables' update (slot next_dst[k] <- the value of slot next_src[k], all read before
 * any is written). Positions within an iteration: p < head_end is head step p, head_end the predicate, then
 * body step p - 1, and n + 1 (n steps) the update; Loop.run(values, state, cancellation) starts at
 * state = [position, iteration] and returns, with state updated, one of
 *
 *   LOOP_DONE       the predicate was false (the loop variables hold the results);
 *   LOOP_STEP       the step at `position` must be run by the caller (not a direct call, or a wrong dtype);
 *                   it continues at position + 1;
 *   LOOP_PRED       the predicate is not a 0-d bool array: the caller decides (continue at head_end + 1);
 *   LOOP_CANCELLED  `cancellation._cancelled` was true at the top of an iteration.
 *
 * A kernel's exception propagates with state naming its position and iteration. Every 32 iterations the loop
 * lets other threads take the GIL (its C steps never hand it over themselves) and checks for signals. */

enum { LOOP_DONE = 0, LOOP_STEP = 1, LOOP_PRED = 2, LOOP_CANCELLED = 3 };
#define LOOP_YIELD_EVERY 32

typedef struct {
  PyObject_HEAD
  PlanObject* plan;
  Py_ssize_t head_end;
  Py_ssize_t pred;
  Py_ssize_t n_next;
  Py_ssize_t* next_dst;
  Py_ssize_t* next_src;
} LoopObject;

static PyObject* g_cancelled_name; /* "_cancelled", interned */

static void Loop_clear_fields(LoopObject* self) {
  Py_CLEAR(self->plan);
  PyMem_Free(self->next_dst);
  PyMem_Free(self->next_src);
  self->next_dst = self->next_src = NULL;
  self->n_next = 0;
}

static void Loop_dealloc(LoopObject* self) {
  Loop_clear_fields(self);
  Py_TYPE(self)->tp_free((PyObject*)self);
}

static int Loop_init(LoopObject* self, PyObject* args, PyObject* kwargs) {
  PyObject *plan, *dst, *src;
  Py_ssize_t head_end, pred;
  static char* keywords[] = {"plan", "head_end", "pred", "next_dst", "next_src", NULL};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!nnOO", keywords, &PlanType, &plan, &head_end, &pred, &dst,
                                   &src)) {
    return -1;
  }
  Loop_clear_fields(self);
  PlanObject* p = (PlanObject*)plan;
  if (head_end < 0 || head_end > p->n || pred < 0) {
    PyErr_SetString(PyExc_ValueError, "Loop: head_end must be within the plan and pred a slot");
    return -1;
  }
  Py_ssize_t n_dst, n_src;
  if (slots(dst, &n_dst, &self->next_dst) < 0 || slots(src, &n_src, &self->next_src) < 0) return -1;
  if (n_dst != n_src) {
    PyErr_SetString(PyExc_ValueError, "Loop: next_dst and next_src differ in length");
    return -1;
  }
  for (Py_ssize_t k = 0; k < n_dst; ++k) {
    if (self->next_dst[k] < 0 || self->next_src[k] < 0) {
      PyErr_SetString(PyExc_ValueError, "Loop: negative slot");
      return -1;
    }
  }
  self->n_next = n_dst;
  self->plan = (PlanObject*)Py_NewRef(plan);
  self->head_end = head_end;
  self->pred = pred;
  return 0;
}

/* The loop variables' update: every source read, then every destination written (the old values dropped last:
 * a destructor may run any code). -1 with an exception when out of memory. */
static int update(const LoopObject* self, PyObject* values) {
  PyObject* small[2 * SMALL];
  Py_ssize_t n = self->n_next;
  PyObject** moving = n > SMALL ? (PyObject**)PyMem_Malloc(sizeof(PyObject*) * 2 * (size_t)n) : small;
  if (moving == NULL) {
    PyErr_NoMemory();
    return -1;
  }
  PyObject** old = moving + (n > SMALL ? n : SMALL);
  for (Py_ssize_t k = 0; k < n; ++k) moving[k] = Py_NewRef(PyList_GET_ITEM(values, self->next_src[k]));
  for (Py_ssize_t k = 0; k < n; ++k) {
    old[k] = PyList_GET_ITEM(values, self->next_dst[k]);
    PyList_SET_ITEM(values, self->next_dst[k], moving[k]); /* steals */
  }
  for (Py_ssize_t k = 0; k < n; ++k) Py_XDECREF(old[k]);
  if (moving != small) PyMem_Free(moving);
  return 0;
}

static int write_state(PyObject* state, Py_ssize_t position, Py_ssize_t iteration) {
  PyObject* p = PyLong_FromSsize_t(position);
  PyObject* i = PyLong_FromSsize_t(iteration);
  if (p == NULL || i == NULL) {
    Py_XDECREF(p);
    Py_XDECREF(i);
    return -1;
  }
  Py_SETREF(PyList_GET_ITEM(state, 0), p);
  Py_SETREF(PyList_GET_ITEM(state, 1), i);
  return 0;
}

/* run(values, state, cancellation) -> LOOP_DONE | LOOP_STEP | LOOP_PRED | LOOP_CANCELLED (see above). */
static PyObject* Loop_run(LoopObject* self, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 3 || !PyList_CheckExact(args[0]) || !PyList_CheckExact(args[1]) || PyList_GET_SIZE(args[1]) != 2) {
    PyErr_SetString(PyExc_TypeError, "run(values: list, state: [position, iteration], cancellation)");
    return NULL;
  }
  PyObject* values = args[0];
  PyObject* state = args[1];
  PyObject* cancellation = args[2] == Py_None ? NULL : args[2];
  Py_ssize_t position = PyLong_AsSsize_t(PyList_GET_ITEM(state, 0));
  if (position == -1 && PyErr_Occurred()) return NULL;
  Py_ssize_t iteration = PyLong_AsSsize_t(PyList_GET_ITEM(state, 1));
  if (iteration == -1 && PyErr_Occurred()) return NULL;
  PlanObject* plan = self->plan;
  Py_ssize_t size = PyList_GET_SIZE(values);
  Py_ssize_t head_end = self->head_end, n = plan->n;
  if (position < 0 || position > n + 1 || self->pred >= size) {
    PyErr_SetString(PyExc_IndexError, "Loop.run: position or predicate slot out of range");
    return NULL;
  }
  for (Py_ssize_t k = 0; k < self->n_next; ++k) {
    if (self->next_dst[k] >= size || self->next_src[k] >= size) {
      PyErr_Format(PyExc_IndexError, "value slot %zd out of range", self->next_dst[k] >= size ? self->next_dst[k]
                                                                                            : self->next_src[k]);
      return NULL;
    }
  }
  int status;
  Py_ssize_t since_yield = 0;
  for (;;) {
    if (position == 0) { /* the top of an iteration */
      if (cancellation != NULL) {
        PyObject* flag = PyObject_GetAttr(cancellation, g_cancelled_name);
        int cancelled = flag == NULL ? -1 : PyObject_IsTrue(flag);
        Py_XDECREF(flag);
        if (cancelled < 0) goto fail;
        if (cancelled) {
          status = LOOP_CANCELLED;
          break;
        }
      }
      if (++since_yield >= LOOP_YIELD_EVERY) {
        since_yield = 0;
        Py_BEGIN_ALLOW_THREADS Py_END_ALLOW_THREADS
        if (PyErr_CheckSignals() < 0) goto fail;
      }
    }
    if (position == head_end) { /* the predicate */
      PyObject* pred = PyList_GET_ITEM(values, self->pred);
      if (!PyArray_CheckExact(pred) || PyArray_NDIM((PyArrayObject*)pred) != 0 ||
          PyArray_TYPE((PyArrayObject*)pred) != NPY_BOOL) {
        status = LOOP_PRED;
        break;
      }
      if (!*(const npy_bool*)PyArray_DATA((PyArrayObject*)pred)) {
        status = LOOP_DONE;
        break;
      }
      ++position;
      continue;
    }
    if (position == n + 1) { /* the loop variables' update */
      if (update(self, values) < 0) goto fail;
      ++iteration;
      position = 0;
      continue;
    }
    Py_ssize_t index = position < head_end ? position : position - 1;
    int ran = run_step(&plan->steps[index], values, size);
    if (ran < 0) goto fail;
    if (ran > 0) {
      status = LOOP_STEP;
      break;
    }
    ++position;
  }
  if (write_state(state, position, iteration) < 0) return NULL;
  return PyLong_FromLong(status);
fail:
  {
    PyObject *type, *value, *traceback; /* keep the kernel's exception while the state is written */
    PyErr_Fetch(&type, &value, &traceback);
    int written = write_state(state, position, iteration);
    if (written < 0) {
      Py_XDECREF(type);
      Py_XDECREF(value);
      Py_XDECREF(traceback);
      return NULL;
    }
    PyErr_Restore(type, value, traceback);
  }
  return NULL;
}

static PyMethodDef kLoopMethods[] = {
    {"run", (PyCFunction)(void (*)(void))Loop_run, METH_FASTCALL,
     "run(values, state, cancellation) -> LOOP_DONE, LOOP_STEP, LOOP_PRED or LOOP_CANCELLED; state is "
     "[position, iteration], updated."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject LoopType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "modtensor.runtime._plan_runner.Loop",
    .tp_basicsize = sizeof(LoopObject),
    .tp_dealloc = (destructor)Loop_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Loop(plan, head_end, pred, next_dst, next_src): a while loop over a plan's steps, run in C.",
    .tp_methods = kLoopMethods,
    .tp_init = (initproc)Loop_init,
    .tp_new = PyType_GenericNew,
};

static struct PyModuleDef kModule = {
    PyModuleDef_HEAD_INIT, "_plan_runner", "The executor's straight-line plan loop in C.", -1, NULL, NULL, NULL, NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__plan_runner(void) {
  import_array();
  if (PyType_Ready(&PlanType) < 0 || PyType_Ready(&LoopType) < 0) return NULL;
  g_cancelled_name = PyUnicode_InternFromString("_cancelled");
  if (g_cancelled_name == NULL) return NULL;
  PyObject* module = PyModule_Create(&kModule);
  if (module == NULL) return NULL;
  if (PyModule_AddObjectRef(module, "Plan", (PyObject*)&PlanType) < 0 ||
      PyModule_AddObjectRef(module, "Loop", (PyObject*)&LoopType) < 0 ||
      PyModule_AddIntConstant(module, "LOOP_DONE", LOOP_DONE) < 0 ||
      PyModule_AddIntConstant(module, "LOOP_STEP", LOOP_STEP) < 0 ||
      PyModule_AddIntConstant(module, "LOOP_PRED", LOOP_PRED) < 0 ||
      PyModule_AddIntConstant(module, "LOOP_CANCELLED", LOOP_CANCELLED) < 0 || mt_scalar_ops_add(module) < 0) {
    Py_DECREF(module);
    return NULL;
  }
  return module;
}
