/* modtensor shim: the shape-inference C API. Contexts, shapes and dimensions are
 * the runtime's own objects (Python InferenceContext/ShapeHandle/DimensionHandle),
 * so a C shape function runs in exactly the shape inference Python ops use. */
#include <stdlib.h>
#include <string.h>

#include "attr_reader.h"
#include "mt_internal.h"

static const MT_Callbacks* callbacks_or_fail(TF_Status* status, const char* function) {
  const MT_Callbacks* cb = MT_GetCallbacks();
  if (cb == NULL) MT_NoRuntime(status, function);
  return cb;
}

TF_ShapeHandle* TF_NewShapeHandle(void) {
  TF_ShapeHandle* h = (TF_ShapeHandle*)calloc(1, sizeof(TF_ShapeHandle));
  if (h == NULL) abort();
  return h;
}

TF_DimensionHandle* TF_NewDimensionHandle(void) {
  TF_DimensionHandle* h = (TF_DimensionHandle*)calloc(1, sizeof(TF_DimensionHandle));
  if (h == NULL) abort();
  return h;
}

void TF_DeleteShapeHandle(TF_ShapeHandle* handle) {
  if (handle == NULL) return;
  const MT_Callbacks* cb = MT_GetCallbacks();
  if (handle->obj != NULL && cb != NULL) cb->release_object(handle->obj);
  free(handle);
}

void TF_DeleteDimensionHandle(TF_DimensionHandle* handle) {
  if (handle == NULL) return;
  const MT_Callbacks* cb = MT_GetCallbacks();
  if (handle->obj != NULL && cb != NULL) cb->release_object(handle->obj);
  free(handle);
}

int64_t TF_ShapeInferenceContextNumInputs(TF_ShapeInferenceContext* ctx) {
  const MT_Callbacks* cb = MT_GetCallbacks();
  return cb == NULL ? 0 : cb->shape_num_inputs(ctx);
}

void TF_ShapeInferenceContextGetInput(TF_ShapeInferenceContext* ctx, int i, TF_ShapeHandle* handle,
                                      TF_Status* status) {
  TF_SetStatus(status, TF_OK, "");
  const MT_Callbacks* cb = callbacks_or_fail(status, "TF_ShapeInferenceContextGetInput");
  if (cb == NULL) return;
  if (i < 0 || i >= cb->shape_num_inputs(ctx)) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "input index out of range");
    return;
  }
  cb->shape_input(ctx, i, handle, status);
}

void TF_ShapeInferenceContextSetOutput(TF_ShapeInferenceContext* ctx, int i, TF_ShapeHandle* handle,
                                       TF_Status* status) {
  TF_SetStatus(status, TF_OK, "");
  const MT_Callbacks* cb = callbacks_or_fail(status, "TF_ShapeInferenceContextSetOutput");
  if (cb == NULL) return;
  cb->shape_set_output(ctx, i, handle, status);
}

TF_ShapeHandle* TF_ShapeInferenceContextScalar(TF_ShapeInferenceContext* ctx) {
  TF_ShapeHandle* h = TF_NewShapeHandle();
  const MT_Callbacks* cb = MT_GetCallbacks();
  if (cb != NULL) cb->shape_make(ctx, 0, NULL, h);
  return h;
}

TF_ShapeHandle* TF_ShapeInferenceContextVectorFromSize(TF_ShapeInferenceContext* ctx, size_t size) {
  TF_ShapeHandle* h = TF_NewShapeHandle();
  const MT_Callbacks* cb = MT_GetCallbacks();
  int64_t dim = (int64_t)size;
  if (cb != NULL) cb->shape_make(ctx, 1, &dim, h);
  return h;
}

void TF_ShapeInferenceContext_GetAttrType(TF_ShapeInferenceContext* ctx, const char* attr_name, TF_DataType* val,
                                          TF_Status* status) {
  TF_SetStatus(status, TF_OK, "");
  const MT_Callbacks* cb = callbacks_or_fail(status, "TF_ShapeInferenceContext_GetAttrType");
  if (cb == NULL) return;
  TF_Buffer* buf = cb->shape_attr(ctx, attr_name, status);
  if (buf == NULL) return;
  MT_AttrValue value;
  if (MT_ParseAttrValue(buf->data, buf->length, &value) != 0) {
    MT_SetStatusf(status, TF_INTERNAL, "attr '%s': malformed AttrValue from the runtime", attr_name);
  } else if (value.value_case != MT_ATTR_TYPE) {
    MT_SetStatusf(status, TF_INVALID_ARGUMENT, "AttrValue had value with type '%s' when 'type' expected",
                  MT_AttrKindName(&value));
  } else {
    *val = (TF_DataType)value.varint;
  }
  TF_DeleteBuffer(buf);
}

int64_t TF_ShapeInferenceContextRank(TF_ShapeInferenceContext* ctx, TF_ShapeHandle* handle) {
  (void)ctx;
  const MT_Callbacks* cb = MT_GetCallbacks();
  return (cb == NULL || handle == NULL) ? -1 : cb->shape_rank(handle);
}

int TF_ShapeInferenceContextRankKnown(TF_ShapeInferenceContext* ctx, TF_ShapeHandle* handle) {
  return TF_ShapeInferenceContextRank(ctx, handle) != -1;
}

static void with_rank(TF_ShapeInferenceContext* ctx, TF_ShapeHandle* handle, int64_t rank, int mode,
                      TF_ShapeHandle* result, TF_Status* status, const char* function) {
  TF_SetStatus(status, TF_OK, "");
  const MT_Callbacks* cb = callbacks_or_fail(status, function);
  if (cb == NULL) return;
  cb->shape_with_rank(ctx, handle, rank, mode, result, status);
}

void TF_ShapeInferenceContextWithRank(TF_ShapeInferenceContext* ctx, TF_ShapeHandle* handle, int64_t rank,
                                      TF_ShapeHandle* result, TF_Status* status) {
  with_rank(ctx, handle, rank, MT_RANK_EXACTLY, result, status, "TF_ShapeInferenceContextWithRank");
}

void TF_ShapeInferenceContextWithRankAtLeast(TF_ShapeInferenceContext* ctx, TF_ShapeHandle* handle, int64_t rank,
                                             TF_ShapeHandle* result, TF_Status* status) {
  with_rank(ctx, handle, rank, MT_RANK_AT_LEAST, result, status, "TF_ShapeInferenceContextWithRankAtLeast");
}

void TF_ShapeInferenceContextWithRankAtMost(TF_ShapeInferenceContext* ctx, TF_ShapeHandle* handle, int64_t rank,
                                            TF_ShapeHandle* result, TF_Status* status) {
  with_rank(ctx, handle, rank, MT_RANK_AT_MOST, result, status, "TF_ShapeInferenceContextWithRankAtMost");
}

void TF_ShapeInferenceContextDim(TF_ShapeInferenceContext* ctx, TF_ShapeHandle* shape_handle, int64_t i,
                                 TF_DimensionHandle* result) {
  const MT_Callbacks* cb = MT_GetCallbacks();
  if (cb == NULL || result == NULL) return;
  cb->shape_dim(ctx, shape_handle, i, result); /* out of range: an unknown dimension, as TF */
}

void TF_ShapeInferenceContextSubshape(TF_ShapeInferenceContext* ctx, TF_ShapeHandle* shape_handle, int64_t start,
                                      int64_t end, TF_ShapeHandle* result, TF_Status* status) {
  TF_SetStatus(status, TF_OK, "");
  const MT_Callbacks* cb = callbacks_or_fail(status, "TF_ShapeInferenceContextSubshape");
  if (cb == NULL) return;
  cb->shape_subshape(ctx, shape_handle, start, end, result, status);
}

void TF_ShapeInferenceContextSetUnknownShape(TF_ShapeInferenceContext* ctx, TF_Status* status) {
  TF_SetStatus(status, TF_OK, "");
  const MT_Callbacks* cb = callbacks_or_fail(status, "TF_ShapeInferenceContextSetUnknownShape");
  if (cb == NULL) return;
  cb->shape_set_unknown(ctx, status);
}

int TF_DimensionHandleValueKnown(TF_DimensionHandle* dim_handle) { return TF_DimensionHandleValue(dim_handle) != -1; }

int64_t TF_DimensionHandleValue(TF_DimensionHandle* dim_handle) {
  const MT_Callbacks* cb = MT_GetCallbacks();
  return (cb == NULL || dim_handle == NULL) ? -1 : cb->dim_value(dim_handle);
}

void TF_ShapeInferenceContextConcatenateShapes(TF_ShapeInferenceContext* ctx, TF_ShapeHandle* first,
                                               TF_ShapeHandle* second, TF_ShapeHandle* result, TF_Status* status) {
  TF_SetStatus(status, TF_OK, "");
  const MT_Callbacks* cb = callbacks_or_fail(status, "TF_ShapeInferenceContextConcatenateShapes");
  if (cb == NULL) return;
  cb->shape_concatenate(ctx, first, second, result, status);
}
