/* Host scalar kernels for the plan loop: binary elementwise kernels with a C path for 0-d operands.
 *
 * Loop counters, bounds and predicates are 0-d int32/int64/float/bool arrays on the host, and the numpy kernels
 * of their ops (kernels/cpu/elementwise.py: AddV2, Sub, Mul, Maximum, Minimum, the comparisons, LogicalAnd/Or)
 * cost ~0.5-1 us per call in Python and numpy dispatch for a nanosecond of arithmetic. A ScalarOp wraps such a
 * kernel: when both operands are exact 0-d ndarrays of one native-order dtype it supports, it computes the
 * result here (the same value numpy gives: integers wrap around, IEEE floats, comparisons of NaN false except
 * NotEqual); anything else (shapes, other dtypes, subclasses) calls the numpy kernel itself, so errors and
 * broadcasting stay the kernel's. The built-in native CPU kernels of float32 AddV2/Add/Sub/Mul get the same
 * wrapper (their C-API call costs ~1 us for a 4-byte result; the arithmetic is the same IEEE operation), with
 * their C entry point as the fallback so larger operands keep the forwarding. An arithmetic result may be written into an operand the caller gives up
 * (bit i of `given`) when nothing else references it, as the executor's ownership rule allows (docs/runtime.md). */
#include "plan.h"

#include <stddef.h>
#include <string.h>

enum {
  OP_ADD,
  OP_SUB,
  OP_MUL,
  OP_MAXIMUM,
  OP_MINIMUM,
  OP_LESS,
  OP_LESS_EQUAL,
  OP_GREATER,
  OP_GREATER_EQUAL,
  OP_EQUAL,
  OP_NOT_EQUAL,
  OP_LOGICAL_AND,
  OP_LOGICAL_OR,
  OP_COUNT
};

static const char* const kOpNames[OP_COUNT] = {
    "add",           "sub",   "mul",       "maximum",     "minimum",     "less",       "less_equal",
    "greater",       "greater_equal", "equal", "not_equal", "logical_and", "logical_or",
};

typedef struct {
  PyObject_HEAD
  int code;
  PyObject* fallback; /* the kernel: call(x, y) -> output */
  DirectCallFunction c_fallback; /* or its C entry point (a native CPU kernel), called on c_target */
  PyObject* c_target;
  vectorcallfunc vectorcall;
} ScalarOpObject;

static PyTypeObject ScalarOpType;

typedef enum { K_I32, K_I64, K_F32, K_F64, K_BOOL, K_OTHER } Kind;

static Kind kind_of(PyArrayObject* a) {
  if (PyArray_NDIM(a) != 0 || !PyArray_ISNOTSWAPPED(a)) return K_OTHER;
  switch (PyArray_TYPE(a)) {
    case NPY_INT32:
      return K_I32;
    case NPY_INT64:
      return K_I64;
    case NPY_FLOAT32:
      return K_F32;
    case NPY_FLOAT64:
      return K_F64;
    case NPY_BOOL:
      return K_BOOL;
    default:
      return K_OTHER;
  }
}

static int is_arithmetic(int code) { return code <= OP_MINIMUM; }

/* Whether `code` has a C path for operands of kind `k`. */
static int supported(int code, Kind k) {
  switch (k) {
    case K_I32:
    case K_I64:
      return code < OP_LOGICAL_AND;
    case K_F32:
    case K_F64:
      return code != OP_MAXIMUM && code != OP_MINIMUM && code < OP_LOGICAL_AND; /* NaN rules stay numpy's */
    case K_BOOL:
      return code == OP_EQUAL || code == OP_NOT_EQUAL || code == OP_LOGICAL_AND || code == OP_LOGICAL_OR;
    default:
      return 0;
  }
}

/* Operand `a` when its buffer may hold the result: given up by the caller, referenced by nobody else, and a
 * plain writeable array owning its data (no view shares it: a view would reference it). */
static int reusable(PyArrayObject* a, uint64_t given, int index) {
  return (given >> index & 1) && Py_REFCNT(a) == 1 && PyArray_BASE(a) == NULL &&
         PyArray_CHKFLAGS(a, NPY_ARRAY_OWNDATA | NPY_ARRAY_WRITEABLE);
}

#define COMPARE(code, a, b)                  \
  ((code) == OP_LESS            ? (a) < (b)  \
   : (code) == OP_LESS_EQUAL    ? (a) <= (b) \
   : (code) == OP_GREATER       ? (a) > (b)  \
   : (code) == OP_GREATER_EQUAL ? (a) >= (b) \
   : (code) == OP_EQUAL         ? (a) == (b) \
                                : (a) != (b))

/* The result of `code` on two 0-d operands of kind `k` (supported), or NULL with an exception. */
static PyObject* compute(int code, Kind k, PyArrayObject* x, PyArrayObject* y, uint64_t given) {
  if (!is_arithmetic(code)) {
    npy_bool r;
    switch (k) {
      case K_I32: {
        int32_t a, b;
        memcpy(&a, PyArray_DATA(x), sizeof a);
        memcpy(&b, PyArray_DATA(y), sizeof b);
        r = (npy_bool)COMPARE(code, a, b);
        break;
      }
      case K_I64: {
        int64_t a, b;
        memcpy(&a, PyArray_DATA(x), sizeof a);
        memcpy(&b, PyArray_DATA(y), sizeof b);
        r = (npy_bool)COMPARE(code, a, b);
        break;
      }
      case K_F32: {
        float a, b;
        memcpy(&a, PyArray_DATA(x), sizeof a);
        memcpy(&b, PyArray_DATA(y), sizeof b);
        r = (npy_bool)COMPARE(code, a, b);
        break;
      }
      case K_F64: {
        double a, b;
        memcpy(&a, PyArray_DATA(x), sizeof a);
        memcpy(&b, PyArray_DATA(y), sizeof b);
        r = (npy_bool)COMPARE(code, a, b);
        break;
      }
      default: { /* bool */
        int a = *(const npy_bool*)PyArray_DATA(x) != 0, b = *(const npy_bool*)PyArray_DATA(y) != 0;
        r = (npy_bool)(code == OP_LOGICAL_AND ? (a && b) : code == OP_LOGICAL_OR ? (a || b) : COMPARE(code, a, b));
        break;
      }
    }
    PyObject* out = PyArray_SimpleNew(0, NULL, NPY_BOOL);
    if (out != NULL) *(npy_bool*)PyArray_DATA((PyArrayObject*)out) = r;
    return out;
  }
  PyArrayObject* into = reusable(x, given, 0) ? x : reusable(y, given, 1) ? y : NULL;
  PyObject* out;
  if (into != NULL) {
    out = Py_NewRef((PyObject*)into);
  } else {
    out = PyArray_SimpleNew(0, NULL, PyArray_TYPE(x));
    if (out == NULL) return NULL;
  }
  void* data = PyArray_DATA((PyArrayObject*)out);
  switch (k) {
    case K_I32: {
      int32_t a, b;
      memcpy(&a, PyArray_DATA(x), sizeof a);
      memcpy(&b, PyArray_DATA(y), sizeof b);
      uint32_t ua = (uint32_t)a, ub = (uint32_t)b; /* integers wrap around, as numpy's and TF's */
      int32_t r = code == OP_ADD ? (int32_t)(ua + ub)
                  : code == OP_SUB ? (int32_t)(ua - ub)
                  : code == OP_MUL ? (int32_t)(ua * ub)
                  : code == OP_MAXIMUM ? (a > b ? a : b)
                                       : (a < b ? a : b);
      memcpy(data, &r, sizeof r);
      break;
    }
    case K_I64: {
      int64_t a, b;
      memcpy(&a, PyArray_DATA(x), sizeof a);
      memcpy(&b, PyArray_DATA(y), sizeof b);
      uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
      int64_t r = code == OP_ADD ? (int64_t)(ua + ub)
                  : code == OP_SUB ? (int64_t)(ua - ub)
                  : code == OP_MUL ? (int64_t)(ua * ub)
                  : code == OP_MAXIMUM ? (a > b ? a : b)
                                       : (a < b ? a : b);
      memcpy(data, &r, sizeof r);
      break;
    }
    case K_F32: {
      float a, b;
      memcpy(&a, PyArray_DATA(x), sizeof a);
      memcpy(&b, PyArray_DATA(y), sizeof b);
      float r = code == OP_ADD ? a + b : code == OP_SUB ? a - b : a * b;
      memcpy(data, &r, sizeof r);
      break;
    }
    default: { /* K_F64 */
      double a, b;
      memcpy(&a, PyArray_DATA(x), sizeof a);
      memcpy(&b, PyArray_DATA(y), sizeof b);
      double r = code == OP_ADD ? a + b : code == OP_SUB ? a - b : a * b;
      memcpy(data, &r, sizeof r);
      break;
    }
  }
  return out;
}

PyObject* mt_scalar_call(PyObject* target, PyObject* const* args, Py_ssize_t nargs, uint64_t given) {
  ScalarOpObject* op = (ScalarOpObject*)target;
  if (nargs == 2 && PyArray_CheckExact(args[0]) && PyArray_CheckExact(args[1])) {
    PyArrayObject* x = (PyArrayObject*)args[0];
    PyArrayObject* y = (PyArrayObject*)args[1];
    Kind k = kind_of(x);
    if (k != K_OTHER && PyArray_TYPE(y) == PyArray_TYPE(x) && kind_of(y) == k && supported(op->code, k)) {
      return compute(op->code, k, x, y, given);
    }
  }
  if (op->c_fallback != NULL) return op->c_fallback(op->c_target, args, nargs, given);
  return PyObject_Vectorcall(op->fallback, args, (size_t)nargs, NULL);
}

static PyObject* ScalarOp_vectorcall(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  if (kwnames != NULL && PyTuple_GET_SIZE(kwnames) > 0) {
    PyErr_SetString(PyExc_TypeError, "ScalarOp takes no keyword arguments");
    return NULL;
  }
  return mt_scalar_call(self, args, PyVectorcall_NARGS(nargsf), 0); /* a Python caller gives nothing up */
}

static int ScalarOp_init(ScalarOpObject* self, PyObject* args, PyObject* kwargs) {
  int code;
  PyObject *fallback, *native = Py_None;
  static char* keywords[] = {"code", "fallback", "native", NULL};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "iO|O", keywords, &code, &fallback, &native)) return -1;
  if (code < 0 || code >= OP_COUNT) {
    PyErr_Format(PyExc_ValueError, "unknown scalar op code %d", code);
    return -1;
  }
  if (!PyCallable_Check(fallback)) {
    PyErr_SetString(PyExc_TypeError, "fallback must be callable");
    return -1;
  }
  DirectCallFunction c_fallback = NULL;
  PyObject* c_target = NULL;
  if (native != Py_None) {
    PyObject* capsule;
    if (!PyArg_ParseTuple(native, "OO", &capsule, &c_target)) return -1;
    c_fallback = (DirectCallFunction)PyCapsule_GetPointer(capsule, DIRECT_CALL_CAPSULE);
    if (c_fallback == NULL) return -1;
    mt_note_segment_api(capsule);
  }
  self->code = code;
  Py_XSETREF(self->fallback, Py_NewRef(fallback));
  Py_XSETREF(self->c_target, Py_XNewRef(c_target));
  self->c_fallback = c_fallback;
  self->vectorcall = ScalarOp_vectorcall;
  return 0;
}

PyObject* mt_scalar_op_native_kernel(PyObject* op) {
  if (!PyObject_TypeCheck(op, &ScalarOpType)) return NULL;
  ScalarOpObject* self = (ScalarOpObject*)op;
  return self->c_fallback != NULL ? self->c_target : NULL;
}

static void ScalarOp_dealloc(ScalarOpObject* self) {
  Py_XDECREF(self->fallback);
  Py_XDECREF(self->c_target);
  Py_TYPE(self)->tp_free((PyObject*)self);
}

static PyObject* ScalarOp_get_fallback(ScalarOpObject* self, void* closure) {
  (void)closure;
  return Py_NewRef(self->fallback != NULL ? self->fallback : Py_None);
}

static PyObject* ScalarOp_get_name(ScalarOpObject* self, void* closure) {
  (void)closure;
  return PyUnicode_FromString(kOpNames[self->code]);
}

static PyGetSetDef kScalarOpGetSet[] = {
    {"fallback", (getter)ScalarOp_get_fallback, NULL, "The numpy kernel called for anything but 0-d operands.",
     NULL},
    {"name", (getter)ScalarOp_get_name, NULL, "The op's name in SCALAR_OPS.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject ScalarOpType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "modtensor.runtime._plan_runner.ScalarOp",
    .tp_basicsize = sizeof(ScalarOpObject),
    .tp_dealloc = (destructor)ScalarOp_dealloc,
    .tp_vectorcall_offset = offsetof(ScalarOpObject, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "ScalarOp(code, fallback, native=None): a binary kernel with a C path for 0-d operands (SCALAR_OPS "
              "codes); other operands go to `fallback`, or to `native` = (DIRECT_CALL capsule, target).",
    .tp_getset = kScalarOpGetSet,
    .tp_init = (initproc)ScalarOp_init,
    .tp_new = PyType_GenericNew,
};

int mt_scalar_ops_add(PyObject* module) {
  if (PyType_Ready(&ScalarOpType) < 0) return -1;
  if (PyModule_AddObjectRef(module, "ScalarOp", (PyObject*)&ScalarOpType) < 0) return -1;
  PyObject* capsule = PyCapsule_New((void*)mt_scalar_call, SCALAR_CALL_CAPSULE, NULL);
  if (capsule == NULL) return -1;
  if (PyModule_AddObject(module, "SCALAR_CALL", capsule) < 0) {
    Py_DECREF(capsule);
    return -1;
  }
  PyObject* codes = PyDict_New();
  if (codes == NULL) return -1;
  for (int i = 0; i < OP_COUNT; ++i) {
    PyObject* value = PyLong_FromLong(i);
    if (value == NULL || PyDict_SetItemString(codes, kOpNames[i], value) < 0) {
      Py_XDECREF(value);
      Py_DECREF(codes);
      return -1;
    }
    Py_DECREF(value);
  }
  if (PyModule_AddObject(module, "SCALAR_OPS", codes) < 0) {
    Py_DECREF(codes);
    return -1;
  }
  return 0;
}
