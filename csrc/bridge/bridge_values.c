/* modtensor bridge: numpy arrays <-> TF_Tensor, without copying.
 *
 * Ownership: a buffer over a numpy array holds a reference to the array and
 * drops it (taking the GIL) when the buffer's last TF_Tensor goes. An array over
 * plugin memory holds a capsule that owns a buffer reference. Inputs are
 * borrowed for the duration of a call; if the plugin keeps a handle beyond it,
 * the input's buffer adopts a reference to the array (mt_release_input). An output the shim allocated and
 * only the output's handle holds becomes a HostBlock's: the array over it is then the memory's only user, as
 * one numpy allocated would be (Device.buffer_is_exclusive), and may be forwarded to a later kernel. */
#include <string.h>

#include "bridge.h"

/* ---- HostBlock: host memory a kernel's output handed over (MT_BufferReleaseMemory), freed with the object. */

typedef struct {
  PyObject_HEAD
  void* data;
  size_t len;
} HostBlockObject;

static void HostBlock_dealloc(HostBlockObject* self) {
  MT_HostFree(self->data, self->len);
  Py_TYPE(self)->tp_free((PyObject*)self);
}

PyTypeObject MT_HostBlockType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "modtensor.plugin.native._bridge.HostBlock",
    .tp_basicsize = sizeof(HostBlockObject),
    .tp_dealloc = (destructor)HostBlock_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Host memory a native kernel's output handed over; the base of the arrays over it.",
};

/* The base object for an array over `buf`'s memory: a HostBlock owning the memory when the buffer gives it up,
 * else a capsule holding a buffer reference. New reference or NULL. */
static PyObject* buffer_base(MT_Buffer* buf);

void mt_release_python_owner(void* data, size_t len, void* arg) {
  (void)data;
  (void)len;
  if (arg == NULL || !Py_IsInitialized()) return;
  PyGILState_STATE gil = PyGILState_Ensure();
  Py_DECREF((PyObject*)arg);
  PyGILState_Release(gil);
}

/* String input arrays: TF_TString views into the array's bytes objects, freed here. */
static void release_string_input(void* data, size_t len, void* arg) {
  free(data);
  mt_release_python_owner(NULL, len, arg);
}

static TF_Tensor* tensor_from_device_buffer(PyObject* value, TF_DataType dtype, TF_Status* status);

TF_Tensor* mt_tensor_from_array(PyObject* array, TF_DataType dtype, TF_Status* status) {
  if (!PyArray_Check(array)) {
    TF_Tensor* t = tensor_from_device_buffer(array, dtype, status);
    if (t != NULL || TF_GetCode(status) != TF_OK) return t;
    MT_SetStatusf(status, TF_INTERNAL, "the allocator returned a %s, not a numpy array",
                  Py_TYPE(array)->tp_name);
    return NULL;
  }
  PyArrayObject* a = (PyArrayObject*)array;
  if (!PyArray_IS_C_CONTIGUOUS(a)) {
    TF_SetStatus(status, TF_INTERNAL, "the allocator returned a non-contiguous array");
    return NULL;
  }
  Py_INCREF(array);
  MT_Buffer* buf = MT_NewBuffer(PyArray_DATA(a), (size_t)PyArray_NBYTES(a), mt_release_python_owner, array);
  int nd = PyArray_NDIM(a);
  int64_t dims[NPY_MAXDIMS];
  for (int i = 0; i < nd; ++i) dims[i] = (int64_t)PyArray_DIMS(a)[i];
  TF_Tensor* t = MT_NewTensorOnBuffer(dtype, dims, nd, buf);
  MT_BufferUnref(buf);
  return t;
}


/* ------------------------------------------------------------------ pluggable device buffers
 * A value of a pluggable device (modtensor.runtime.pluggable_device.DeviceBuffer) is
 * not an array: it has `device_address` (int), `nbytes` and `shape`. Its TF_Tensor's
 * data pointer is the device address; an output on its memory maps back to it (or a
 * view of it through `_view(shape, dtype, offset)`). */

int mt_device_buffer_info(PyObject* value, void** address, size_t* nbytes) {
  PyObject* a = PyObject_GetAttr(value, mt_str_device_address);
  if (a == NULL) {
    PyErr_Clear();
    return 0;
  }
  PyObject* n = PyObject_GetAttr(value, mt_str_nbytes);
  if (n == NULL) {
    Py_DECREF(a);
    return -1;
  }
  *address = PyLong_AsVoidPtr(a);
  *nbytes = (size_t)PyLong_AsSize_t(n);
  Py_DECREF(a);
  Py_DECREF(n);
  return PyErr_Occurred() ? -1 : 1;
}

/* The shape of a device buffer into dims (at most NPY_MAXDIMS); returns the rank or -1. */
static int device_buffer_dims(PyObject* value, int64_t* dims) {
  PyObject* shape = PyObject_GetAttr(value, mt_str_shape);
  if (shape == NULL) return -1;
  PyObject* fast = PySequence_Fast(shape, "a device buffer's shape must be a sequence");
  Py_DECREF(shape);
  if (fast == NULL) return -1;
  Py_ssize_t nd = PySequence_Fast_GET_SIZE(fast);
  if (nd > NPY_MAXDIMS) {
    Py_DECREF(fast);
    PyErr_Format(PyExc_ValueError, "device buffer of rank %zd exceeds %d dimensions", nd, NPY_MAXDIMS);
    return -1;
  }
  for (Py_ssize_t i = 0; i < nd; ++i) dims[i] = (int64_t)PyLong_AsLongLong(PySequence_Fast_GET_ITEM(fast, i));
  Py_DECREF(fast);
  return PyErr_Occurred() ? -1 : (int)nd;
}

/* The runtime value for an output on a device buffer's memory: the buffer itself
 * when shape and start agree, else buffer._view(shape, dtype, offset). */
PyObject* mt_device_value(PyObject* owner, const TF_Tensor* t) {
  void* address;
  size_t nbytes;
  if (mt_device_buffer_info(owner, &address, &nbytes) != 1) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "not a device buffer");
    return NULL;
  }
  int64_t dims[NPY_MAXDIMS];
  int nd = device_buffer_dims(owner, dims);
  if (nd < 0) return NULL;
  if (address == t->buffer->data && nd == t->num_dims &&
      memcmp(dims, t->dims, sizeof(int64_t) * (size_t)nd) == 0) {
    return Py_NewRef(owner);
  }
  PyObject* shape = PyTuple_New(t->num_dims);
  if (shape == NULL) return NULL;
  for (int i = 0; i < t->num_dims; ++i) PyTuple_SET_ITEM(shape, i, PyLong_FromLongLong(t->dims[i]));
  Py_ssize_t offset = (Py_ssize_t)((char*)t->buffer->data - (char*)address);
  PyObject* dtype = PyLong_FromLong((long)t->dtype);
  PyObject* off = PyLong_FromSsize_t(offset);
  PyObject* view = (dtype && off) ? PyObject_CallMethodObjArgs(owner, mt_str_view, shape, dtype, off, NULL) : NULL;
  Py_XDECREF(dtype);
  Py_XDECREF(off);
  Py_DECREF(shape);
  return view;
}

static int fill_device_input(MT_Input* in, PyObject* value, TF_DataType dtype) {
  void* address;
  size_t nbytes;
  int r = mt_device_buffer_info(value, &address, &nbytes);
  if (r <= 0) return r;
  if (dtype == TF_STRING) {
    PyErr_SetString(PyExc_TypeError, "string tensors cannot be in device memory");
    return -1;
  }
  int64_t dims[NPY_MAXDIMS];
  int nd = device_buffer_dims(value, dims);
  if (nd < 0) return -1;
  in->num_dims = nd;
  if (nd <= MT_INLINE_DIMS) {
    memcpy(in->inline_dims, dims, sizeof(int64_t) * (size_t)nd);
    in->dims = in->inline_dims;
  } else {
    int64_t* heap = (int64_t*)malloc(sizeof(int64_t) * (size_t)nd);
    if (heap == NULL) {
      PyErr_NoMemory();
      return -1;
    }
    memcpy(heap, dims, sizeof(int64_t) * (size_t)nd);
    in->dims = heap;
  }
  in->data = address;
  in->nbytes = nbytes;
  return 1;
}

/* NULL with an OK status when `value` is not a device buffer. */
static TF_Tensor* tensor_from_device_buffer(PyObject* value, TF_DataType dtype, TF_Status* status) {
  void* address;
  size_t nbytes;
  int64_t dims[NPY_MAXDIMS];
  int r = mt_device_buffer_info(value, &address, &nbytes);
  int nd = r == 1 ? device_buffer_dims(value, dims) : 0;
  if (r < 0 || nd < 0) {
    mt_status_from_exception(status);
    return NULL;
  }
  if (r == 0) return NULL;
  Py_INCREF(value);
  MT_Buffer* buf = MT_NewBuffer(address, nbytes, mt_release_python_owner, value);
  TF_Tensor* t = MT_NewTensorOnBuffer(dtype, dims, nd, buf);
  MT_BufferUnref(buf);
  return t;
}

static void release_buffer_capsule(PyObject* capsule) {
  MT_Buffer* buf = (MT_Buffer*)PyCapsule_GetPointer(capsule, "modtensor.MT_Buffer");
  if (buf != NULL) MT_BufferUnref(buf);
}

static PyObject* buffer_base(MT_Buffer* buf) {
  size_t len = 0;
  void* memory = MT_BufferReleaseMemory(buf, &len);
  if (memory != NULL) {
    HostBlockObject* block = PyObject_New(HostBlockObject, &MT_HostBlockType);
    if (block == NULL) {
      MT_HostFree(memory, len);
      return NULL;
    }
    block->data = memory;
    block->len = len;
    return (PyObject*)block;
  }
  MT_BufferRef(buf);
  PyObject* base = PyCapsule_New(buf, "modtensor.MT_Buffer", release_buffer_capsule);
  if (base == NULL) MT_BufferUnref(buf);
  return base;
}

static PyObject* strings_from_tensor(const TF_Tensor* t) {
  npy_intp dims[NPY_MAXDIMS];
  for (int i = 0; i < t->num_dims; ++i) dims[i] = (npy_intp)t->dims[i];
  int64_t n = MT_NumElements(t->dims, t->num_dims);
  if ((size_t)n * sizeof(TF_TString) > t->buffer->len) {
    PyErr_Format(PyExc_ValueError, "string tensor of %lld elements has only %zu bytes", (long long)n,
                 t->buffer->len);
    return NULL;
  }
  PyObject* result = PyArray_SimpleNew(t->num_dims, dims, NPY_OBJECT);
  if (result == NULL) return NULL;
  PyObject** items = (PyObject**)PyArray_DATA((PyArrayObject*)result);
  const TF_TString* strings = (const TF_TString*)t->buffer->data;
  for (int64_t i = 0; i < n; ++i) {
    PyObject* b = PyBytes_FromStringAndSize(TF_TString_GetDataPointer(&strings[i]),
                                            (Py_ssize_t)TF_TString_GetSize(&strings[i]));
    if (b == NULL) {
      Py_DECREF(result);
      return NULL;
    }
    Py_XSETREF(items[i], b);
  }
  return result;
}

PyObject* mt_value_from_tensor(const TF_Tensor* t) {
  if (t->dtype == TF_STRING) return strings_from_tensor(t);
  PyArray_Descr* descr = (unsigned)t->dtype < MT_NUM_DTYPES ? mt_descr[t->dtype] : NULL;
  if (descr == NULL) {
    PyErr_Format(PyExc_TypeError, "tensors of TF_DataType %d have no numpy representation", (int)t->dtype);
    return NULL;
  }
  int64_t n = MT_NumElements(t->dims, t->num_dims);
  MT_Buffer* buf = t->buffer;
  if (n < 0 || (size_t)n * (size_t)PyDataType_ELSIZE(descr) > buf->len) {
    PyErr_Format(PyExc_ValueError, "tensor of %lld elements of %d bytes has a buffer of only %zu bytes",
                 (long long)n, (int)PyDataType_ELSIZE(descr), buf->len);
    return NULL;
  }
  npy_intp dims[NPY_MAXDIMS];
  if (t->num_dims > NPY_MAXDIMS) {
    PyErr_Format(PyExc_ValueError, "tensor of rank %d exceeds numpy's %d dimensions", t->num_dims, NPY_MAXDIMS);
    return NULL;
  }
  for (int i = 0; i < t->num_dims; ++i) dims[i] = (npy_intp)t->dims[i];
  PyObject* owner = buf->deallocator == mt_release_python_owner ? (PyObject*)buf->deallocator_arg : NULL;
  if (owner != NULL && !PyArray_Check(owner) && PyObject_HasAttr(owner, mt_str_device_address)) {
    return mt_device_value(owner, t);
  }
  if (owner != NULL && PyArray_Check(owner)) {
    PyArrayObject* a = (PyArrayObject*)owner;
    if (PyArray_DATA(a) == buf->data && PyArray_NDIM(a) == t->num_dims &&
        PyArray_EquivTypes(PyArray_DESCR(a), descr) &&
        memcmp(PyArray_DIMS(a), dims, sizeof(npy_intp) * (size_t)t->num_dims) == 0) {
      return Py_NewRef(owner); /* the runtime's own array, unchanged */
    }
  }
  if (n == 0 || buf->data == NULL) return PyArray_Zeros(t->num_dims, dims, (Py_INCREF(descr), descr), 0);
  int flags = NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_WRITEABLE;
  if (owner != NULL && PyArray_Check(owner) && !PyArray_ISWRITEABLE((PyArrayObject*)owner)) {
    flags &= ~NPY_ARRAY_WRITEABLE;
  }
  Py_INCREF(descr);
  PyObject* array = PyArray_NewFromDescr(&PyArray_Type, descr, t->num_dims, dims, NULL, buf->data, flags, NULL);
  if (array == NULL) return NULL;
  PyObject* base;
  if (owner != NULL) {
    base = Py_NewRef(owner);
  } else if ((base = buffer_base(buf)) == NULL) {
    Py_DECREF(array);
    return NULL;
  }
  if (PyArray_SetBaseObject((PyArrayObject*)array, base) < 0) { /* steals base */
    Py_DECREF(array);
    return NULL;
  }
  return array;
}

static int fill_string_input(MT_Input* in, PyObject* value) {
  PyObject* objects = value;
  if (PyArray_TYPE((PyArrayObject*)value) != NPY_OBJECT || !PyArray_IS_C_CONTIGUOUS((PyArrayObject*)value)) {
    objects = mt_call_hook(HOOK_STRINGS_AS_OBJECTS, PyTuple_Pack(1, value), NULL);
    if (objects == NULL) return -1;
  } else {
    Py_INCREF(objects);
  }
  PyArrayObject* a = (PyArrayObject*)objects;
  npy_intp n = PyArray_SIZE(a);
  TF_TString* strings = (TF_TString*)calloc((size_t)(n > 0 ? n : 1), sizeof(TF_TString));
  if (strings == NULL) {
    Py_DECREF(objects);
    PyErr_NoMemory();
    return -1;
  }
  PyObject** items = (PyObject**)PyArray_DATA(a);
  for (npy_intp i = 0; i < n; ++i) {
    PyObject* item = items[i];
    const char* data;
    Py_ssize_t size;
    if (PyBytes_Check(item)) {
      data = PyBytes_AS_STRING(item);
      size = PyBytes_GET_SIZE(item);
    } else if (PyUnicode_Check(item)) {
      data = PyUnicode_AsUTF8AndSize(item, &size);
      if (data == NULL) {
        free(strings);
        Py_DECREF(objects);
        return -1;
      }
    } else {
      PyErr_Format(PyExc_TypeError, "string tensor element %zd is a %s, not bytes", (Py_ssize_t)i,
                   Py_TYPE(item)->tp_name);
      free(strings);
      Py_DECREF(objects);
      return -1;
    }
    TF_TString_AssignView(&strings[i], data, (size_t)size);
  }
  in->data = strings;
  in->nbytes = (size_t)n * sizeof(TF_TString);
  in->borrowed = 0;
  in->owner = objects;
  in->buffer = MT_NewBuffer(strings, in->nbytes, release_string_input, objects); /* owns `objects` */
  return 0;
}

PyObject* mt_aligned_empty(int nd, const npy_intp* dims, PyArray_Descr* descr) {
  npy_intp count = 1;
  for (int i = 0; i < nd; ++i) count *= dims[i];
  npy_intp nbytes = count * (npy_intp)PyDataType_ELSIZE(descr);
  npy_intp raw_len = nbytes + MT_ALIGNMENT;
  PyObject* raw = PyArray_SimpleNew(1, &raw_len, NPY_UINT8);
  if (raw == NULL) {
    Py_DECREF(descr);
    return NULL;
  }
  char* data = PyArray_BYTES((PyArrayObject*)raw);
  data += (MT_ALIGNMENT - (uintptr_t)data % MT_ALIGNMENT) % MT_ALIGNMENT;
  if (PyDataType_REFCHK(descr)) memset(data, 0, (size_t)nbytes); /* object slots start NULL */
  PyObject* array = PyArray_NewFromDescr(&PyArray_Type, descr, nd, (npy_intp*)dims, NULL, data, NPY_ARRAY_CARRAY, NULL);
  if (array == NULL || PyArray_SetBaseObject((PyArrayObject*)array, raw) < 0) {
    Py_XDECREF(array);
    if (array == NULL) Py_DECREF(raw);
    return NULL;
  }
  return array;
}

/* An aligned copy of `a` (C order), kept alive by `*keep`; NULL with an exception on failure. */
static PyArrayObject* aligned_copy(PyArrayObject* a, PyObject** keep) {
  PyArray_Descr* descr = PyArray_DESCR(a);
  Py_INCREF(descr);
  PyObject* copy = mt_aligned_empty(PyArray_NDIM(a), PyArray_DIMS(a), descr);
  if (copy == NULL) return NULL;
  if (PyArray_CopyInto((PyArrayObject*)copy, a) < 0 || (*keep == NULL && (*keep = PyList_New(0)) == NULL) ||
      PyList_Append(*keep, copy) < 0) {
    Py_DECREF(copy);
    return NULL;
  }
  Py_DECREF(copy);
  return (PyArrayObject*)copy;
}

int mt_fill_input(MT_Input* in, PyObject* value, TF_DataType dtype, PyObject** keep, int aligned) {
  in->dtype = dtype;
  in->buffer = NULL;
  in->owner = value;
  in->borrowed = 1;
  if (!PyArray_Check(value)) {
    int r = fill_device_input(in, value, dtype);
    if (r != 0) return r < 0 ? -1 : 0;
    PyObject* array = PyArray_FROM_OF(value, NPY_ARRAY_C_CONTIGUOUS);
    if (array == NULL) return -1;
    if (*keep == NULL && (*keep = PyList_New(0)) == NULL) {
      Py_DECREF(array);
      return -1;
    }
    int rc = PyList_Append(*keep, array);
    Py_DECREF(array);
    if (rc < 0) return -1;
    value = array;
    in->owner = value;
    in->borrowed = 2;
  }
  PyArrayObject* a = (PyArrayObject*)value;
  int nd = PyArray_NDIM(a);
  in->num_dims = nd;
  if (nd <= MT_INLINE_DIMS) {
    for (int i = 0; i < nd; ++i) in->inline_dims[i] = (int64_t)PyArray_DIMS(a)[i];
    in->dims = in->inline_dims;
  } else {
    int64_t* dims = (int64_t*)malloc(sizeof(int64_t) * (size_t)nd);
    if (dims == NULL) {
      PyErr_NoMemory();
      return -1;
    }
    for (int i = 0; i < nd; ++i) dims[i] = (int64_t)PyArray_DIMS(a)[i];
    in->dims = dims;
  }
  if (dtype == TF_STRING) return fill_string_input(in, value);
  /* Object arrays (resource and variant handles) hold Python objects, not data a plugin reads: never copied. */
  int objects = PyArray_TYPE(a) == NPY_OBJECT;
  int misaligned = aligned ? (uintptr_t)PyArray_DATA(a) % MT_ALIGNMENT != 0 : !PyArray_ISALIGNED(a);
  if (!objects && (!PyArray_IS_C_CONTIGUOUS(a) || (misaligned && PyArray_NBYTES(a) > 0))) {
    /* Non-contiguous, or not on TensorFlow's 64-byte alignment (a value made by numpy outside the
       runtime's allocators: a Python kernel's output, a user's array): the plugin reads a copy. Kernels that
       take any element-aligned memory (`aligned` 0: the built-in library's) read such a value in place. */
    PyArrayObject* copy = aligned_copy(a, keep);
    if (copy == NULL) return -1;
    a = copy;
    /* A copy of the runtime's own array may take its place when the runtime lets that be forwarded. */
    in->borrowed = in->borrowed == 1 ? 3 : 2;
    in->owner = (PyObject*)copy;
  }
  in->data = PyArray_DATA(a);
  in->nbytes = (size_t)PyArray_NBYTES(a);
  return 0;
}

void mt_release_input(MT_Input* in) {
  if (in->dims != in->inline_dims && in->dims != NULL) free((void*)in->dims);
  in->dims = NULL;
  MT_Buffer* buf = in->buffer;
  in->buffer = NULL;
  if (buf == NULL) return;
  if (in->borrowed && atomic_load(&buf->refs) > 1) {
    /* The plugin kept a handle to this input: the buffer now owns a reference. */
    Py_INCREF((PyObject*)in->owner);
    buf->deallocator_arg = in->owner;
    buf->deallocator = mt_release_python_owner;
  }
  MT_BufferUnref(buf);
}
