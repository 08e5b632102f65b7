/* modtensor shim: TF_Tensor handles over reference-counted buffers, and TF_DataTypeSize.
 *
 * A TF_Tensor is a handle: element type, shape and a reference to an MT_Buffer.
 * Several handles may share one buffer (TF_GetInput hands out new handles to an
 * input's buffer); the buffer's deallocator runs when the last handle goes. The
 * bridge creates buffers over the runtime's numpy arrays, which are kept alive by
 * a reference the deallocator drops, so tensors wrap device memory without
 * copying. */
#include <stdlib.h>
#include <string.h>

#include "mt_internal.h"

size_t TF_DataTypeSize(TF_DataType dt) {
  switch (dt) {
    case TF_FLOAT: case TF_INT32: case TF_UINT32: case TF_QINT32:
      return 4;
    case TF_DOUBLE: case TF_INT64: case TF_UINT64: case TF_COMPLEX64:
      return 8;
    case TF_COMPLEX128:
      return 16;
    case TF_UINT8: case TF_INT8: case TF_BOOL: case TF_QINT8: case TF_QUINT8:
    case TF_FLOAT8_E5M2: case TF_FLOAT8_E4M3FN: case TF_FLOAT8_E4M3FNUZ: case TF_FLOAT8_E4M3B11FNUZ:
    case TF_FLOAT8_E5M2FNUZ: case TF_INT4: case TF_UINT4: case TF_INT2: case TF_UINT2: case TF_FLOAT4_E2M1FN:
      return 1;
    case TF_INT16: case TF_UINT16: case TF_QINT16: case TF_QUINT16: case TF_BFLOAT16: case TF_HALF:
      return 2;
    default: /* TF_STRING, TF_RESOURCE, TF_VARIANT and unknown values */
      return 0;
  }
}

size_t TF_TensorDefaultAlignment(void) { return MT_ALIGNMENT; }

int64_t MT_NumElements(const int64_t* dims, int num_dims) {
  int64_t n = 1;
  for (int i = 0; i < num_dims; ++i) n *= dims[i];
  return n;
}

/* ---- buffers ---- */

MT_Buffer* MT_NewBuffer(void* data, size_t len, void (*deallocator)(void*, size_t, void*), void* arg) {
  /* From the per-thread cache (a kernel call makes several buffers and tensors); fields set one by one. */
  MT_Buffer* buf = (MT_Buffer*)MT_CacheAlloc(MT_CACHE_BUFFER, sizeof(MT_Buffer));
  atomic_init(&buf->refs, 1);
  buf->data = data;
  buf->len = len;
  buf->deallocator = deallocator;
  buf->deallocator_arg = arg;
  buf->owns_memory = 0;
  buf->num_strings = 0;
  return buf;
}

void MT_BufferRef(MT_Buffer* buf) { atomic_fetch_add_explicit(&buf->refs, 1, memory_order_relaxed); }

void MT_BufferUnref(MT_Buffer* buf) {
  if (buf == NULL) return;
  if (atomic_fetch_sub_explicit(&buf->refs, 1, memory_order_acq_rel) != 1) return;
  if (buf->num_strings > 0) {
    TF_TString* strings = (TF_TString*)buf->data;
    for (int64_t i = 0; i < buf->num_strings; ++i) TF_TString_Dealloc(&strings[i]);
  }
  if (buf->deallocator != NULL) buf->deallocator(buf->data, buf->len, buf->deallocator_arg);
  MT_CacheFree(MT_CACHE_BUFFER, buf);
}

static void free_host(void* data, size_t len, void* arg) {
  (void)arg;
  MT_HostFree(data, len);
}

MT_Buffer* MT_AllocateBuffer(TF_DataType dtype, size_t len) {
  void* data = MT_HostAllocate(len);
  if (data == NULL) return NULL;
  MT_Buffer* buf = MT_NewBuffer(data, len, free_host, NULL);
  buf->owns_memory = 1;
  if (dtype == TF_STRING) {
    memset(data, 0, len); /* all-zero TF_TStrings are empty SMALL strings */
    buf->num_strings = (int64_t)(len / sizeof(TF_TString));
  }
  return buf;
}

void* MT_BufferReleaseMemory(MT_Buffer* buf, size_t* len) {
  if (atomic_load(&buf->refs) != 1 || !buf->owns_memory || buf->num_strings != 0 || buf->deallocator != free_host) {
    return NULL;
  }
  buf->deallocator = NULL;
  buf->owns_memory = 0;
  *len = buf->len;
  return buf->data;
}

/* ---- handles ---- */

static void set_dims(TF_Tensor* t, const int64_t* dims, int num_dims) {
  if (t->dims != t->inline_dims) free(t->dims);
  if (num_dims < 0) num_dims = 0;
  t->num_dims = num_dims;
  if (num_dims <= MT_INLINE_DIMS) {
    t->dims = t->inline_dims;
  } else {
    t->dims = (int64_t*)malloc(sizeof(int64_t) * (size_t)num_dims);
    if (t->dims == NULL) abort();
  }
  if (num_dims > 0) memcpy(t->dims, dims, sizeof(int64_t) * (size_t)num_dims);
}

TF_Tensor* MT_NewTensorOnBuffer(TF_DataType dtype, const int64_t* dims, int num_dims, MT_Buffer* buf) {
  TF_Tensor* t = (TF_Tensor*)MT_CacheAlloc(MT_CACHE_TENSOR, sizeof(TF_Tensor));
  t->dtype = dtype;
  t->dims = t->inline_dims;
  set_dims(t, dims, num_dims);
  MT_BufferRef(buf);
  t->buffer = buf;
  return t;
}

TF_Tensor* TF_NewTensor(TF_DataType dtype, const int64_t* dims, int num_dims, void* data, size_t len,
                        void (*deallocator)(void* data, size_t len, void* arg), void* deallocator_arg) {
  size_t elem_size = TF_DataTypeSize(dtype);
  if (num_dims < 0 || (num_dims > 0 && dims == NULL)) {
    if (deallocator != NULL) deallocator(data, len, deallocator_arg);
    return NULL;
  }
  int64_t n = MT_NumElements(dims, num_dims);
  if (n < 0 || (elem_size > 0 && len < elem_size * (size_t)n)) {
    /* As TensorFlow: too little memory for the shape; the memory is released. */
    if (deallocator != NULL) deallocator(data, len, deallocator_arg);
    return NULL;
  }
  MT_Buffer* buf = MT_NewBuffer(data, len, deallocator, deallocator_arg);
  TF_Tensor* t = MT_NewTensorOnBuffer(dtype, dims, num_dims, buf);
  MT_BufferUnref(buf); /* the handle holds the only reference */
  return t;
}

TF_Tensor* TF_AllocateTensor(TF_DataType dtype, const int64_t* dims, int num_dims, size_t len) {
  if (num_dims < 0 || (num_dims > 0 && dims == NULL)) return NULL;
  MT_Buffer* buf = MT_AllocateBuffer(dtype, len);
  if (buf == NULL) return NULL;
  TF_Tensor* t = MT_NewTensorOnBuffer(dtype, dims, num_dims, buf);
  MT_BufferUnref(buf);
  return t;
}

TF_Tensor* TF_TensorMaybeMove(TF_Tensor* tensor) {
  if (tensor == NULL) return NULL;
  MT_Buffer* buf = tensor->buffer;
  if (atomic_load(&buf->refs) == 1 && buf->owns_memory) return tensor;
  return NULL;
}

void TF_DeleteTensor(TF_Tensor* t) {
  if (t == NULL) return;
  MT_BufferUnref(t->buffer);
  if (t->dims != t->inline_dims) free(t->dims);
  MT_CacheFree(MT_CACHE_TENSOR, t);
}

TF_DataType TF_TensorType(const TF_Tensor* t) { return t->dtype; }

void TF_SetShape(TF_Tensor* tensor, const int64_t* dims, int num_dims) { set_dims(tensor, dims, num_dims); }

int TF_NumDims(const TF_Tensor* t) { return t->num_dims; }

int64_t TF_Dim(const TF_Tensor* tensor, int dim_index) {
  if (dim_index < 0 || dim_index >= tensor->num_dims) return -1;
  return tensor->dims[dim_index];
}

size_t TF_TensorByteSize(const TF_Tensor* t) { return t->buffer->len; }

void* TF_TensorData(const TF_Tensor* t) { return t->buffer->data; }

int64_t TF_TensorElementCount(const TF_Tensor* tensor) { return MT_NumElements(tensor->dims, tensor->num_dims); }

void TF_TensorBitcastFrom(const TF_Tensor* from, TF_DataType type, TF_Tensor* to, const int64_t* new_dims,
                          int num_new_dims, TF_Status* status) {
  TF_SetStatus(status, TF_OK, "");
  size_t in_size = TF_DataTypeSize(from->dtype);
  if (in_size == 0) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "input tensor has a zero-sized data type");
    return;
  }
  size_t out_size = TF_DataTypeSize(type);
  if (out_size == 0) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "output tensor has a zero-sized data type");
    return;
  }
  if ((size_t)MT_NumElements(new_dims, num_new_dims) * out_size !=
      (size_t)TF_TensorElementCount(from) * in_size) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "input tensor is not compatible with output shape");
    return;
  }
  set_dims(to, new_dims, num_new_dims);
  to->dtype = type;
  if (to->buffer != from->buffer) {
    MT_BufferRef(from->buffer);
    MT_BufferUnref(to->buffer);
    to->buffer = from->buffer;
  }
}

bool TF_TensorIsAligned(const TF_Tensor* t) { return ((uintptr_t)t->buffer->data % MT_ALIGNMENT) == 0; }
