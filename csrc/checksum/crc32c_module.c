/* modtensor.framework._crc32c: CRC-32C over any buffer (bytes, memoryview, numpy array), the GIL
 * released for large ones. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <pthread.h>
#include <stdlib.h>

#include "crc32c.h"

#define MAX_THREADS 8

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

typedef struct {
  Py_buffer* views;
  uint32_t* results;
  const int* owner; /* views[i] is checksummed by thread owner[i] */
  size_t count;
  int thread;
} Work;

static void* checksum_share(void* arg) {
  Work* work = (Work*)arg;
  for (size_t i = 0; i < work->count; i++) {
    if (work->owner[i] == work->thread) {
      work->results[i] = mt_crc32c_extend(0, work->views[i].buf, (size_t)work->views[i].len);
    }
  }
  return NULL;
}

/* value_many(buffers, threads) -> list of CRC-32Cs: the buffers shared out to up to `threads` threads by size
 * (largest first, each to the least loaded), computed without the GIL. */
static PyObject* value_many(PyObject* self, PyObject* args) {
  (void)self;
  PyObject* sequence;
  int threads;
  if (!PyArg_ParseTuple(args, "Oi:value_many", &sequence, &threads)) return NULL;
  PyObject* fast = PySequence_Fast(sequence, "value_many: expected a sequence of buffers");
  if (fast == NULL) return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  Py_buffer* views = PyMem_Calloc((size_t)n + 1, sizeof(Py_buffer));
  uint32_t* results = PyMem_Calloc((size_t)n + 1, sizeof(uint32_t));
  int* owner = PyMem_Calloc((size_t)n + 1, sizeof(int));
  Py_ssize_t got = 0;
  PyObject* out = NULL;
  if (views == NULL || results == NULL || owner == NULL) {
    PyErr_NoMemory();
    goto done;
  }
  for (; got < n; got++) {
    if (PyObject_GetBuffer(PySequence_Fast_GET_ITEM(fast, got), &views[got], PyBUF_ANY_CONTIGUOUS) < 0) goto done;
  }
  if (threads < 1) threads = 1;
  if (threads > MAX_THREADS) threads = MAX_THREADS;
  if (threads > n) threads = n > 0 ? (int)n : 1;
  {
    long long load[MAX_THREADS] = {0};
    for (Py_ssize_t done_count = 0; done_count < n; done_count++) { /* largest unassigned first */
      Py_ssize_t best = -1;
      for (Py_ssize_t i = 0; i < n; i++) {
        if (owner[i] == 0 && (best < 0 || views[i].len > views[best].len)) best = i;
      }
      int target = 0;
      for (int t = 1; t < threads; t++) {
        if (load[t] < load[target]) target = t;
      }
      owner[best] = target + 1; /* 0 marks "not assigned yet" */
      load[target] += views[best].len;
    }
    for (Py_ssize_t i = 0; i < n; i++) owner[i] -= 1;
    Work work[MAX_THREADS];
    pthread_t ids[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    Py_BEGIN_ALLOW_THREADS
    for (int t = 0; t < threads; t++) {
      work[t] = (Work){views, results, owner, (size_t)n, t};
      if (t > 0) started[t] = pthread_create(&ids[t], NULL, checksum_share, &work[t]) == 0;
    }
    checksum_share(&work[0]);
    for (int t = 1; t < threads; t++) {
      if (started[t]) {
        pthread_join(ids[t], NULL);
      } else {
        checksum_share(&work[t]); /* no thread: do its share here */
      }
    }
    Py_END_ALLOW_THREADS
  }
  out = PyList_New(n);
  if (out == NULL) goto done;
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject* value = PyLong_FromUnsignedLong(results[i]);
    if (value == NULL) {
      Py_CLEAR(out);
      goto done;
    }
    PyList_SET_ITEM(out, i, value);
  }
done:
  for (Py_ssize_t i = 0; i < got; i++) PyBuffer_Release(&views[i]);
  PyMem_Free(views);
  PyMem_Free(results);
  PyMem_Free(owner);
  Py_DECREF(fast);
  return out;
}

static PyObject* hardware(PyObject* self, PyObject* unused) {
  (void)self;
  (void)unused;
  return PyBool_FromLong(mt_crc32c_hardware());
}

static PyMethodDef methods[] = {
    {"extend", extend, METH_VARARGS, "extend(crc, buffer) -> the CRC-32C of buffer continuing from crc."},
    {"value_many", value_many, METH_VARARGS, "value_many(buffers, threads) -> CRC-32C of each buffer, in threads."},
    {"hardware", hardware, METH_NOARGS, "hardware() -> True when the CPU's crc32 instruction is used."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_crc32c", "CRC-32C (C).", -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__crc32c(void) { return PyModule_Create(&module); }
