/* modtensor shim: TF_OpKernelConstruction, what a kernel's create function sees.
 *
 * Attribute values come from the runtime as serialized AttrValue protos and are
 * checked and converted here with TensorFlow's rules and messages; tensor attrs
 * are converted by the runtime (it owns the TensorProto decoding). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "attr_reader.h"
#include "mt_internal.h"

typedef struct Attr {
  TF_Buffer* buffer;
  MT_AttrValue value;
} Attr;

/* Fetch attr `name`. `missing_as_invalid`: report a missing attr as TensorFlow's
 * list getters do (InvalidArgument "Operation 'n' has no attr named 'x'.")
 * instead of the runtime's NotFound. Returns 0 on success. */
static int fetch_attr(TF_OpKernelConstruction* ctx, const char* name, Attr* out, int missing_as_invalid,
                      TF_Status* status) {
  TF_SetStatus(status, TF_OK, "");
  out->buffer = NULL;
  const MT_Callbacks* cb = MT_GetCallbacks();
  if (cb == NULL) {
    MT_NoRuntime(status, "TF_OpKernelConstruction_GetAttr*");
    return -1;
  }
  out->buffer = cb->construction_attr(ctx, name, status);
  if (out->buffer == NULL) {
    if (TF_GetCode(status) == TF_OK) TF_SetStatus(status, TF_INTERNAL, "the runtime returned no attr value");
    if (missing_as_invalid && TF_GetCode(status) == TF_NOT_FOUND) {
      MT_SetStatusf(status, TF_INVALID_ARGUMENT, "Operation '%.*s' has no attr named '%s'.", (int)ctx->name_len,
                    ctx->name, name);
    }
    return -1;
  }
  if (MT_ParseAttrValue(out->buffer->data, out->buffer->length, &out->value) != 0) {
    MT_SetStatusf(status, TF_INTERNAL, "attr '%s': malformed AttrValue from the runtime", name);
    TF_DeleteBuffer(out->buffer);
    out->buffer = NULL;
    return -1;
  }
  return 0;
}

static void release_attr(Attr* attr) {
  TF_DeleteBuffer(attr->buffer);
  attr->buffer = NULL;
}

static int expect_kind(const Attr* attr, int value_case, const char* expected, const char* name, TF_Status* status) {
  if (attr->value.value_case == value_case) return 0;
  MT_SetStatusf(status, TF_INVALID_ARGUMENT, "AttrValue had value with type '%s' when '%s' expected\n\t for attr '%s'",
                MT_AttrKindName(&attr->value), expected, name);
  return -1;
}

/* For list getters: the value must be a list whose elements (if any) are of `field`. */
static int expect_list(const Attr* attr, int field, const char* expected, const char* name, TF_Status* status) {
  if (attr->value.value_case != MT_ATTR_LIST) {
    MT_SetStatusf(status, TF_INVALID_ARGUMENT, "Value for '%s' is not a list.", name);
    return -1;
  }
  const char* kind = MT_AttrKindName(&attr->value);
  if (strcmp(kind, "list") != 0 && strcmp(kind, expected) != 0) {
    MT_SetStatusf(status, TF_INVALID_ARGUMENT, "AttrValue had value with type '%s' when '%s' expected\n\t for attr '%s'",
                  kind, expected, name);
    return -1;
  }
  (void)field;
  return 0;
}

/* ---- scalars ---- */

void TF_OpKernelConstruction_GetAttrType(TF_OpKernelConstruction* ctx, const char* attr_name, TF_DataType* val,
                                         TF_Status* status) {
  Attr a;
  if (fetch_attr(ctx, attr_name, &a, 0, status) != 0) return;
  if (expect_kind(&a, MT_ATTR_TYPE, "type", attr_name, status) == 0) *val = (TF_DataType)a.value.varint;
  release_attr(&a);
}

void TF_OpKernelConstruction_GetAttrInt32(TF_OpKernelConstruction* ctx, const char* attr_name, int32_t* val,
                                          TF_Status* status) {
  Attr a;
  if (fetch_attr(ctx, attr_name, &a, 0, status) != 0) return;
  if (expect_kind(&a, MT_ATTR_I, "int", attr_name, status) == 0) {
    int64_t v = (int64_t)a.value.varint;
    if (v < INT32_MIN || v > INT32_MAX) {
      MT_SetStatusf(status, TF_INVALID_ARGUMENT, "Attr %s has value %lld out of range for an int32", attr_name,
                    (long long)v);
    } else {
      *val = (int32_t)v;
    }
  }
  release_attr(&a);
}

void TF_OpKernelConstruction_GetAttrInt64(TF_OpKernelConstruction* ctx, const char* attr_name, int64_t* val,
                                          TF_Status* status) {
  Attr a;
  if (fetch_attr(ctx, attr_name, &a, 0, status) != 0) return;
  if (expect_kind(&a, MT_ATTR_I, "int", attr_name, status) == 0) *val = (int64_t)a.value.varint;
  release_attr(&a);
}

void TF_OpKernelConstruction_GetAttrFloat(TF_OpKernelConstruction* ctx, const char* attr_name, float* val,
                                          TF_Status* status) {
  Attr a;
  if (fetch_attr(ctx, attr_name, &a, 0, status) != 0) return;
  if (expect_kind(&a, MT_ATTR_F, "float", attr_name, status) == 0) *val = a.value.f;
  release_attr(&a);
}

void TF_OpKernelConstruction_GetAttrBool(TF_OpKernelConstruction* ctx, const char* attr_name, TF_Bool* val,
                                         TF_Status* status) {
  Attr a;
  if (fetch_attr(ctx, attr_name, &a, 0, status) != 0) return;
  if (expect_kind(&a, MT_ATTR_B, "bool", attr_name, status) == 0) *val = a.value.varint != 0;
  release_attr(&a);
}

void TF_OpKernelConstruction_GetAttrString(TF_OpKernelConstruction* ctx, const char* attr_name, char* val,
                                           size_t max_length, TF_Status* status) {
  Attr a;
  if (fetch_attr(ctx, attr_name, &a, 0, status) != 0) return;
  if (expect_kind(&a, MT_ATTR_S, "string", attr_name, status) == 0 && max_length > 0) {
    size_t n = a.value.bytes.len < max_length ? a.value.bytes.len : max_length;
    if (n > 0) memcpy(val, a.value.bytes.data, n);
  }
  release_attr(&a);
}

void TF_OpKernelConstruction_GetAttrTensor(TF_OpKernelConstruction* ctx, const char* attr_name, TF_Tensor** val,
                                           TF_Status* status) {
  TF_SetStatus(status, TF_OK, "");
  *val = NULL;
  const MT_Callbacks* cb = MT_GetCallbacks();
  if (cb == NULL) {
    MT_NoRuntime(status, "TF_OpKernelConstruction_GetAttrTensor");
    return;
  }
  cb->construction_attr_tensors(ctx, attr_name, val, -1, status);
}

/* ---- lists ---- */

#define DEFINE_INT_LIST_GETTER(func, c_type, field, expected)                                                    \
  void TF_OpKernelConstruction_GetAttr##func##List(TF_OpKernelConstruction* ctx, const char* attr_name,        \
                                                   c_type* vals, int max_vals, TF_Status* status) {            \
    Attr a;                                                                                                    \
    if (fetch_attr(ctx, attr_name, &a, 1, status) != 0) return;                                               \
    if (expect_list(&a, field, expected, attr_name, status) == 0 && max_vals > 0) {                            \
      int64_t* tmp = (int64_t*)malloc(sizeof(int64_t) * (size_t)max_vals);                                     \
      if (tmp == NULL) abort();                                                                                \
      int n = MT_ListVarints(a.value.bytes, field, tmp, max_vals);                                             \
      for (int i = 0; i < n; ++i) vals[i] = (c_type)tmp[i];                                                    \
      free(tmp);                                                                                               \
    }                                                                                                          \
    release_attr(&a);                                                                                          \
  }

DEFINE_INT_LIST_GETTER(Type, TF_DataType, MT_LIST_TYPE, "list(type)")
DEFINE_INT_LIST_GETTER(Int32, int32_t, MT_LIST_I, "list(int)")
DEFINE_INT_LIST_GETTER(Int64, int64_t, MT_LIST_I, "list(int)")

void TF_OpKernelConstruction_GetAttrBoolList(TF_OpKernelConstruction* ctx, const char* attr_name, TF_Bool* vals,
                                             int max_vals, TF_Status* status) {
  Attr a;
  if (fetch_attr(ctx, attr_name, &a, 1, status) != 0) return;
  if (expect_list(&a, MT_LIST_B, "list(bool)", attr_name, status) == 0 && max_vals > 0) {
    int64_t* tmp = (int64_t*)malloc(sizeof(int64_t) * (size_t)max_vals);
    if (tmp == NULL) abort();
    int n = MT_ListVarints(a.value.bytes, MT_LIST_B, tmp, max_vals);
    for (int i = 0; i < n; ++i) vals[i] = tmp[i] != 0;
    free(tmp);
  }
  release_attr(&a);
}

void TF_OpKernelConstruction_GetAttrFloatList(TF_OpKernelConstruction* ctx, const char* attr_name, float* vals,
                                              int max_vals, TF_Status* status) {
  Attr a;
  if (fetch_attr(ctx, attr_name, &a, 1, status) != 0) return;
  if (expect_list(&a, MT_LIST_F, "list(float)", attr_name, status) == 0 && max_vals > 0) {
    MT_ListFloats(a.value.bytes, vals, max_vals);
  }
  release_attr(&a);
}

void TF_OpKernelConstruction_GetAttrStringList(TF_OpKernelConstruction* ctx, const char* attr_name, char** values,
                                               size_t* lengths, int max_values, void* storage, size_t storage_size,
                                               TF_Status* status) {
  Attr a;
  if (fetch_attr(ctx, attr_name, &a, 0, status) != 0) return;
  if (a.value.value_case != MT_ATTR_LIST) {
    MT_SetStatusf(status, TF_INVALID_ARGUMENT, "AttrValue had value with type '%s' when 'list(string)' expected",
                  MT_AttrKindName(&a.value));
  } else if (expect_list(&a, MT_LIST_S, "list(string)", attr_name, status) == 0 && max_values > 0) {
    MT_Bytes* items = (MT_Bytes*)malloc(sizeof(MT_Bytes) * (size_t)max_values);
    if (items == NULL) abort();
    int n = MT_ListBytes(a.value.bytes, MT_LIST_S, items, max_values);
    char* p = (char*)storage;
    char* end = (char*)storage + storage_size;
    for (int i = 0; i < n; ++i) {
      values[i] = p;
      lengths[i] = items[i].len;
      if (items[i].len > (size_t)(end - p)) {
        TF_SetStatus(status, TF_INVALID_ARGUMENT, "Not enough storage to hold the requested list of strings");
        break;
      }
      if (items[i].len > 0) memcpy(p, items[i].data, items[i].len);
      p += items[i].len;
    }
    free(items);
  }
  release_attr(&a);
}

void TF_OpKernelConstruction_GetAttrTensorList(TF_OpKernelConstruction* ctx, const char* attr_name, TF_Tensor** vals,
                                               int max_values, TF_Status* status) {
  TF_SetStatus(status, TF_OK, "");
  const MT_Callbacks* cb = MT_GetCallbacks();
  if (cb == NULL) {
    MT_NoRuntime(status, "TF_OpKernelConstruction_GetAttrTensorList");
    return;
  }
  if (max_values <= 0) return;
  cb->construction_attr_tensors(ctx, attr_name, vals, max_values, status);
}

/* ---- sizes, shapes, functions, node ---- */

void TF_OpKernelConstruction_GetAttrSize(TF_OpKernelConstruction* ctx, const char* attr_name, int32_t* list_size,
                                         int32_t* total_size, TF_Status* status) {
  Attr a;
  if (fetch_attr(ctx, attr_name, &a, 1, status) != 0) {
    *list_size = -1;
    *total_size = -1;
    return;
  }
  const MT_AttrValue* v = &a.value;
  *list_size = -1;
  *total_size = -1;
  switch (v->value_case) {
    case MT_ATTR_S:
      *total_size = (int32_t)v->bytes.len;
      break;
    case MT_ATTR_SHAPE: {
      int rank = -1;
      MT_ParseShape(v->bytes, NULL, 0, &rank);
      *total_size = rank;
      break;
    }
    case MT_ATTR_LIST: {
      static const int fields[] = {MT_LIST_S, MT_LIST_I, MT_LIST_F, MT_LIST_B, MT_LIST_TYPE, MT_LIST_SHAPE,
                                   MT_LIST_TENSOR, MT_LIST_FUNC};
      *list_size = 0;
      for (size_t k = 0; k < sizeof fields / sizeof fields[0]; ++k) {
        int count = MT_ListCount(v->bytes, fields[k]);
        if (count <= 0) continue;
        *list_size = count;
        if (fields[k] == MT_LIST_S || fields[k] == MT_LIST_SHAPE) {
          MT_Bytes* items = (MT_Bytes*)malloc(sizeof(MT_Bytes) * (size_t)count);
          if (items == NULL) abort();
          MT_ListBytes(v->bytes, fields[k], items, count);
          int64_t total = 0;
          for (int i = 0; i < count; ++i) {
            if (fields[k] == MT_LIST_S) {
              total += (int64_t)items[i].len;
            } else {
              int rank = -1;
              MT_ParseShape(items[i], NULL, 0, &rank);
              total += rank < 0 ? 0 : rank;
            }
          }
          free(items);
          *total_size = (int32_t)total;
        }
        break;
      }
      break;
    }
    case MT_ATTR_NONE:
      MT_SetStatusf(status, TF_INVALID_ARGUMENT, "Attribute '%s' has no value set", attr_name);
      break;
    default: /* int, float, bool, type, tensor, func, placeholder */
      break;
  }
  release_attr(&a);
}

void TF_OpKernelConstruction_GetAttrTensorShape(TF_OpKernelConstruction* ctx, const char* attr_name, int64_t* dims,
                                                size_t num_dims, TF_Status* status) {
  Attr a;
  if (fetch_attr(ctx, attr_name, &a, 0, status) != 0) return;
  if (expect_kind(&a, MT_ATTR_SHAPE, "shape", attr_name, status) == 0) {
    int rank = -1;
    int64_t small[64];
    int64_t* buf = small;
    MT_ParseShape(a.value.bytes, NULL, 0, &rank);
    if (rank > 64) {
      buf = (int64_t*)malloc(sizeof(int64_t) * (size_t)rank);
      if (buf == NULL) abort();
    }
    MT_ParseShape(a.value.bytes, buf, rank < 0 ? 0 : rank, &rank);
    int partial = rank < 0;
    for (int i = 0; i < rank; ++i) partial |= buf[i] < 0;
    if (partial) {
      MT_SetStatusf(status, TF_INVALID_ARGUMENT, "Attr '%s' is a partially known shape; a TensorShape needs every "
                    "dimension", attr_name);
    } else if ((size_t)rank != num_dims) {
      MT_SetStatusf(status, TF_INVALID_ARGUMENT, "Expected rank is %zu but actual rank is %d", num_dims, rank);
    } else {
      for (int i = 0; i < rank; ++i) dims[i] = buf[i];
    }
    if (buf != small) free(buf);
  }
  release_attr(&a);
}

TF_Buffer* TF_OpKernelConstruction_GetAttrFunction(TF_OpKernelConstruction* ctx, const char* attr_name,
                                                   TF_Status* status) {
  Attr a;
  if (fetch_attr(ctx, attr_name, &a, 0, status) != 0) return NULL;
  TF_Buffer* result = NULL;
  if (expect_kind(&a, MT_ATTR_FUNC, "func", attr_name, status) == 0) {
    result = TF_NewBufferFromString(a.value.bytes.data, a.value.bytes.len);
  }
  release_attr(&a);
  return result;
}

bool TF_OpKernelConstruction_HasAttr(TF_OpKernelConstruction* ctx, const char* attr_name, TF_Status* status) {
  TF_Status* probe = TF_NewStatus();
  Attr a;
  bool found = fetch_attr(ctx, attr_name, &a, 0, probe) == 0;
  if (found) release_attr(&a);
  TF_Code code = TF_GetCode(probe);
  if (code != TF_OK && code != TF_NOT_FOUND) {
    MT_CopyStatus(status, probe);
  } else {
    TF_SetStatus(status, TF_OK, "");
  }
  TF_DeleteStatus(probe);
  return found;
}

TF_StringView TF_OpKernelConstruction_GetName(TF_OpKernelConstruction* ctx) {
  TF_StringView view = {ctx->name, ctx->name_len};
  return view;
}

TF_Buffer* TF_OpKernelConstruction_GetNodeDef(TF_OpKernelConstruction* ctx, TF_Status* status) {
  TF_SetStatus(status, TF_OK, "");
  const MT_Callbacks* cb = MT_GetCallbacks();
  if (cb == NULL) {
    MT_NoRuntime(status, "TF_OpKernelConstruction_GetNodeDef");
    return NULL;
  }
  return cb->construction_node_def(ctx, status);
}

void TF_OpKernelConstruction_Failure(TF_OpKernelConstruction* ctx, TF_Status* status) {
  if (ctx->failure != NULL || TF_GetCode(status) == TF_OK) return; /* the first failure wins */
  ctx->failure = TF_NewStatus();
  MT_CopyStatus(ctx->failure, status);
}
