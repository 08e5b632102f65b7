/* modtensor.framework._crc32c: CRC-32C over any buffer (bytes, memoryview, numpy array), the GIL
 * released for large ones. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "crc32c.h"

#define RELEASE_GIL_ABOVE (64 * 1024)

static PyObject* extend(PyObject* self, PyObject* args) {
  (void)self;
  unsigned long crc;
  Py_buffer view;
  if (!PyArg_ParseTuple(args, "ky*:extend", &crc, &view)) return NULL;
  if (!PyBuffer_IsContiguous(&view, 'A')) {
    PyBuffer_Release(&view);
    PyErr_SetString(PyExc_ValueError, "crc32c: the buffer must be contiguous");
    return NULL;
  }
  uint32_t result;
  if (view.len > RELEASE_GIL_ABOVE) {
    Py_BEGIN_ALLOW_THREADS
    result = mt_crc32c_extend((uint32_t)crc, view.buf, (size_t)view.len);
    Py_END_ALLOW_THREADS
  } else {
    result = mt_crc32c_extend((uint32_t)crc, view.buf, (size_t)view.len);
  }
  PyBuffer_Release(&view);
  return PyLong_FromUnsignedLong(result);
}

static PyObject* hardware(PyObject* self, PyObject* unused) {
  (void)self;
  (void)unused;
  return PyBool_FromLong(mt_crc32c_hardware());
}

static PyMethodDef methods[] = {
    {"extend", extend, METH_VARARGS, "extend(crc, buffer) -> the CRC-32C of buffer continuing from crc."},
    {"hardware", hardware, METH_NOARGS, "hardware() -> True when the CPU's crc32 instruction is used."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_crc32c", "CRC-32C (C).", -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__crc32c(void) { return PyModule_Create(&module); }
