/* modtensor bridge: the segment runner (segment_api.h), a straight run of built-in native kernels without the GIL.
 *
 * With the GIL, the values the segment reads from the plan's slots (externals) become tensors over their arrays
 * (mt_fill_input); externals nothing reads after the segment are moved out of their slots, so a step may write
 * into one whose array had no other reference. Then, without the GIL, each step runs on C tensors: outputs come
 * from the shim's allocator (the plain host allocator needs no Python), a value a step reads last may become its
 * output's memory, and a value's tensor goes as soon as its last reader ran. With the GIL again, the outputs
 * read after the segment become arrays (taking the shim's memory over, or the external's own array when a step
 * forwarded it), and an external's buffer that a kernel still holds adopts its array, as after any call. */
#include <string.h>

#include "bridge.h"

typedef struct {
  TF_Tensor** out;          /* per step: its output while it has readers left */
  TF_Tensor** ext_t;        /* per external: its tensor while it has readers left */
  MT_Input* ext;            /* per external: the input record over its array; `buffer` NULL once the buffer went */
  PyObject** held;          /* per external: the reference the segment holds (moved out of its slot, or new) */
  unsigned char* exclusive; /* per external: moved out, and its array the only user of its memory */
  TF_DataType* ext_dtype;   /* per external: the input type the first step reading it declares */
  int plain_allocators;
} SegmentState;

static int kernel_eligible(PyObject* kernel, PyObject* expected) {
  if (!PyObject_TypeCheck(kernel, &MT_KernelType)) return 0;
  MT_KernelObject* self = (MT_KernelObject*)kernel;
  const MT_Kernel* k = &self->k;
  if (self->host_device == NULL || !self->unaligned_ok || k->num_outputs != 1 || k->num_inputs > 64 ||
      k->builder->compute_async != NULL) {
    return 0;
  }
  for (int i = 0; i <= k->num_inputs; ++i) {
    TF_DataType t = i < k->num_inputs ? k->input_types[i] : k->output_types[0];
    if ((unsigned)t >= MT_NUM_DTYPES || mt_descr[t] == NULL || PyDataType_REFCHK(mt_descr[t])) return 0;
  }
  if (expected == NULL || expected == Py_None) return 1;
  PyArray_Descr* descr = NULL;
  if (!PyArray_DescrConverter(expected, &descr)) {
    PyErr_Clear();
    return 0;
  }
  int same = PyArray_EquivTypes(descr, mt_descr[k->output_types[0]]);
  Py_DECREF(descr);
  return same;
}

/* The plain-allocator bits (MT_Call.plain_allocators) every step's device has; -1 with an exception. */
static int plain_allocators(const MT_Segment* seg) {
  PyObject* seen = NULL;
  int plain = 3;
  for (Py_ssize_t i = 0; i < seg->n_steps && plain != 0; ++i) {
    PyObject* device = ((MT_KernelObject*)seg->steps[i].kernel)->host_device;
    if (device == seen) continue;
    seen = device;
    int a = mt_host_allocator_plain(device, 0);
    int h = a < 0 ? -1 : mt_host_allocator_plain(device, 1);
    if (h < 0) return -1;
    plain &= a | h << 1;
  }
  return plain;
}

/* Per external, the input type the first step reading it declares (every external has a reader), in one pass
 * over the steps. */
static void external_dtypes(const MT_Segment* seg, TF_DataType* types) {
  for (Py_ssize_t e = 0; e < seg->n_ext; ++e) types[e] = (TF_DataType)0; /* no TF_DataType is 0 */
  for (Py_ssize_t i = 0; i < seg->n_steps; ++i) {
    const MT_SegmentStep* s = &seg->steps[i];
    for (Py_ssize_t k = 0; k < s->n_in; ++k) {
      Py_ssize_t a = s->arg[k];
      if (a < 0 && types[-1 - a] == 0) types[-1 - a] = ((MT_KernelObject*)s->kernel)->k.input_types[k];
    }
  }
}

/* The deallocator of an external's buffer while the segment runs: the memory is the array's, the record learns
 * the buffer went (from any thread; the segment then no longer looks at it). */
static void external_buffer_gone(void* data, size_t len, void* arg) {
  (void)data;
  (void)len;
  ((MT_Input*)arg)->buffer = NULL;
}

/* The externals into tensors. MT_SEGMENT_DECLINED when one is not an exact numpy array (nothing moved),
 * MT_SEGMENT_FAILED with an exception, else MT_SEGMENT_RAN; `*filled` externals need releasing either way. */
static int take_externals(const MT_Segment* seg, PyObject* values, SegmentState* st, PyObject** keep,
                          Py_ssize_t* filled) {
  Py_ssize_t size = PyList_GET_SIZE(values);
  external_dtypes(seg, st->ext_dtype);
  for (Py_ssize_t e = 0; e < seg->n_ext; ++e) {
    Py_ssize_t slot = seg->ext_slot[e];
    if (slot < 0 || slot >= size) {
      PyErr_Format(PyExc_IndexError, "value slot %zd out of range", slot);
      return MT_SEGMENT_FAILED;
    }
    if (!PyArray_CheckExact(PyList_GET_ITEM(values, slot))) return MT_SEGMENT_DECLINED;
  }
  for (Py_ssize_t e = 0; e < seg->n_ext; ++e) {
    Py_ssize_t slot = seg->ext_slot[e];
    PyObject* value = PyList_GET_ITEM(values, slot);
    if (seg->ext_taken[e]) {
      st->held[e] = value; /* the list's reference, moved */
      PyList_SET_ITEM(values, slot, Py_NewRef(Py_None));
    } else {
      st->held[e] = Py_NewRef(value);
    }
    MT_Input* in = &st->ext[e];
    *filled = e + 1;
    if (mt_fill_input(in, value, st->ext_dtype[e], keep, 0) < 0) return MT_SEGMENT_FAILED;
    MT_Buffer* buf = MT_InputBuffer(in);
    st->ext_t[e] = MT_NewTensorOnBuffer(in->dtype, in->dims, in->num_dims, buf);
    MT_BufferUnref(buf); /* the tensor holds the buffer; `in` only points at it */
    buf->deallocator = external_buffer_gone;
    buf->deallocator_arg = in;
    int own = seg->ext_taken[e] && Py_REFCNT(value) == 1;
    st->exclusive[e] = (unsigned char)(own && (in->borrowed == 3 || (in->borrowed == 1 && mt_array_exclusive(value))));
  }
  return MT_SEGMENT_RAN;
}

/* One step's inputs: each value's tensor as a kernel input, and which of them the step may write. */
static void step_inputs(const MT_SegmentStep* s, SegmentState* st, MT_Input* inputs, const MT_Input** args,
                        unsigned char* fwd) {
  for (Py_ssize_t k = 0; k < s->n_in; ++k) {
    Py_ssize_t a = s->arg[k];
    int last = (s->last >> k) & 1;
    for (Py_ssize_t j = 0; last && j < s->n_in; ++j) last = j == k || s->arg[j] != a; /* x op x: neither */
    const TF_Tensor* t = a < 0 ? st->ext_t[-1 - a] : st->out[a];
    MT_Input* in = &inputs[k];
    in->dtype = t->dtype;
    in->num_dims = t->num_dims;
    in->dims = t->dims;
    in->data = t->buffer->data;
    in->nbytes = (size_t)MT_NumElements(t->dims, t->num_dims) * TF_DataTypeSize(t->dtype);
    in->buffer = t->buffer;
    in->owner = NULL;
    in->borrowed = 0;
    args[k] = in;
    fwd[k] = (unsigned char)(last && (a >= 0 || st->exclusive[-1 - a]));
  }
}

/* Run the steps; returns the index of a failed step (its status in *failure) or n_steps. No GIL. */
static Py_ssize_t run_steps(const MT_Segment* seg, SegmentState* st, TF_Status** failure) {
  MT_Input small_inputs[MT_SMALL_ARITY];
  const MT_Input* small_args[MT_SMALL_ARITY];
  unsigned char small_fwd[MT_SMALL_ARITY];
  for (Py_ssize_t i = 0; i < seg->n_steps; ++i) {
    const MT_SegmentStep* s = &seg->steps[i];
    MT_Input* inputs = small_inputs;
    const MT_Input** args = small_args;
    unsigned char* fwd = small_fwd;
    if (s->n_in > MT_SMALL_ARITY) {
      inputs = (MT_Input*)malloc(sizeof(MT_Input) * (size_t)s->n_in);
      args = (const MT_Input**)malloc(sizeof(MT_Input*) * (size_t)s->n_in);
      fwd = (unsigned char*)malloc((size_t)s->n_in);
      if (inputs == NULL || args == NULL || fwd == NULL) {
        free(inputs);
        free((void*)args);
        free(fwd);
        *failure = TF_NewStatus();
        TF_SetStatus(*failure, TF_RESOURCE_EXHAUSTED, "out of memory running native kernels");
        return i;
      }
    }
    step_inputs(s, st, inputs, args, fwd);
    TF_Tensor* out = mt_segment_call((MT_KernelObject*)s->kernel, args, fwd, st->plain_allocators, failure);
    if (inputs != small_inputs) {
      free(inputs);
      free((void*)args);
      free(fwd);
    }
    if (out == NULL) return i;
    for (Py_ssize_t k = 0; k < s->n_in; ++k) { /* the values read last here go now */
      if (!((s->last >> k) & 1)) continue;
      Py_ssize_t a = s->arg[k];
      TF_Tensor** slot = a < 0 ? &st->ext_t[-1 - a] : &st->out[a];
      TF_DeleteTensor(*slot);
      *slot = NULL;
    }
    if (s->out_use == MT_OUT_NONE) {
      TF_DeleteTensor(out);
    } else {
      st->out[i] = out;
    }
  }
  return seg->n_steps;
}

static int segment_run(const MT_Segment* seg, PyObject* values, Py_ssize_t* failed) {
  SegmentState st;
  Py_ssize_t n = seg->n_steps, n_ext = seg->n_ext, cells = n_ext > 0 ? n_ext : 1;
  int result = MT_SEGMENT_FAILED;
  PyObject* keep = NULL;
  Py_ssize_t filled = 0;
  *failed = 0;
  st.out = (TF_Tensor**)calloc((size_t)(n > 0 ? n : 1), sizeof(TF_Tensor*));
  st.ext_t = (TF_Tensor**)calloc((size_t)cells, sizeof(TF_Tensor*));
  st.ext = (MT_Input*)calloc((size_t)cells, sizeof(MT_Input));
  st.held = (PyObject**)calloc((size_t)cells, sizeof(PyObject*));
  st.exclusive = (unsigned char*)calloc((size_t)cells, 1);
  st.ext_dtype = (TF_DataType*)calloc((size_t)cells, sizeof(TF_DataType));
  if (st.out == NULL || st.ext_t == NULL || st.ext == NULL || st.held == NULL || st.exclusive == NULL ||
      st.ext_dtype == NULL) {
    PyErr_NoMemory();
    goto done;
  }
  st.plain_allocators = plain_allocators(seg);
  if (st.plain_allocators < 0) goto done;
  result = take_externals(seg, values, &st, &keep, &filled);
  if (result != MT_SEGMENT_RAN) goto done;
  TF_Status* failure = NULL;
  Py_ssize_t stop;
  Py_BEGIN_ALLOW_THREADS
  stop = run_steps(seg, &st, &failure);
  Py_END_ALLOW_THREADS
  if (stop < n) {
    *failed = stop;
    mt_raise_status(failure);
    TF_DeleteStatus(failure);
    result = MT_SEGMENT_FAILED;
    goto done;
  }
  for (Py_ssize_t i = 0; i < n; ++i) { /* the outputs read after the segment into their slots */
    const MT_SegmentStep* s = &seg->steps[i];
    if (s->out_use != MT_OUT_SLOT) continue;
    PyObject* value = mt_output_value(st.out[i], st.ext, (int)n_ext);
    if (value == NULL) {
      *failed = i;
      result = MT_SEGMENT_FAILED;
      goto done;
    }
    PyObject* old = PyList_GET_ITEM(values, s->out);
    PyList_SET_ITEM(values, s->out, value);
    Py_XDECREF(old);
  }
done:
  for (Py_ssize_t i = 0; st.out != NULL && i < n; ++i) TF_DeleteTensor(st.out[i]);
  for (Py_ssize_t e = 0; e < filled; ++e) {
    TF_DeleteTensor(st.ext_t[e]);
    MT_Input* in = &st.ext[e];
    if (in->dims != in->inline_dims) free((void*)in->dims);
    MT_Buffer* buf = in->buffer;
    if (buf != NULL) { /* a kernel kept a handle: the buffer adopts the array */
      Py_INCREF((PyObject*)in->owner);
      buf->deallocator_arg = in->owner;
      buf->deallocator = mt_release_python_owner;
    }
  }
  for (Py_ssize_t e = 0; st.held != NULL && e < n_ext; ++e) Py_XDECREF(st.held[e]);
  Py_XDECREF(keep);
  free(st.out);
  free(st.ext_t);
  free(st.ext);
  free(st.held);
  free(st.exclusive);
  free(st.ext_dtype);
  return result;
}

const MT_SegmentAPI mt_segment_api = {MT_SEGMENT_API_VERSION, kernel_eligible, segment_run};
