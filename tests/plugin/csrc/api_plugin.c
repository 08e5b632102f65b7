/* A test plugin exercising TensorFlow's kernel and op C API as a plugin uses it.
 * It includes only TensorFlow's headers (compiled against modtensor's), links
 * nothing, and reports what the API returned through string outputs, so the
 * Python tests can check every call. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorflow/c/kernels.h"
#include "tensorflow/c/kernels_experimental.h"
#include "tensorflow/c/ops.h"
#include "tensorflow/c/tf_tensor.h"
#include "tensorflow/c/tf_tstring.h"

/* ---------------------------------------------------------------- helpers */

typedef struct Text {
  char buf[8192];
  size_t len;
} Text;

static void add(Text* t, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(Text* t, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  int n = vsnprintf(t->buf + t->len, sizeof t->buf - t->len, fmt, args);
  va_end(args);
  if (n > 0) t->len += (size_t)n < sizeof t->buf - t->len ? (size_t)n : sizeof t->buf - t->len - 1;
}

static void add_status(Text* t, const char* what, TF_Status* s) {
  add(t, "%s=%d:%s;", what, (int)TF_GetCode(s), TF_Message(s));
}

/* Output `index` as a scalar string holding `text`. */
static void set_string_output(TF_OpKernelContext* ctx, int index, const char* text, size_t len) {
  TF_Status* s = TF_NewStatus();
  TF_Tensor* out = TF_AllocateOutput(ctx, index, TF_STRING, NULL, 0, sizeof(TF_TString), s);
  if (TF_GetCode(s) == TF_OK) {
    TF_TString* str = (TF_TString*)TF_TensorData(out);
    TF_TString_Copy(str, text, len);
  } else {
    TF_OpKernelContext_Failure(ctx, s);
  }
  TF_DeleteTensor(out);
  TF_DeleteStatus(s);
}

static void unchanged_shape(TF_ShapeInferenceContext* ctx, TF_Status* status) {
  TF_ShapeHandle* h = TF_NewShapeHandle();
  TF_ShapeInferenceContextGetInput(ctx, 0, h, status);
  if (TF_GetCode(status) == TF_OK) TF_ShapeInferenceContextSetOutput(ctx, 0, h, status);
  TF_DeleteShapeHandle(h);
}

static void scalar_output(TF_ShapeInferenceContext* ctx, TF_Status* status) {
  TF_ShapeHandle* h = TF_ShapeInferenceContextScalar(ctx);
  TF_ShapeInferenceContextSetOutput(ctx, 0, h, status);
  TF_DeleteShapeHandle(h);
}

static void must(TF_Status* s, const char* what) {
  if (TF_GetCode(s) != TF_OK) fprintf(stderr, "api_plugin: %s failed: %s\n", what, TF_Message(s));
}

/* ---------------------------------------------------------------- MtApiAttrs: every attribute getter */

typedef struct AttrState {
  Text text;
} AttrState;

static void* attrs_create(TF_OpKernelConstruction* ctx) {
  AttrState* st = (AttrState*)calloc(1, sizeof(AttrState));
  Text* t = &st->text;
  TF_Status* s = TF_NewStatus();
  TF_StringView name = TF_OpKernelConstruction_GetName(ctx);
  add(t, "name=%.*s;", (int)name.len, name.data);

  int64_t i64 = 0;
  TF_OpKernelConstruction_GetAttrInt64(ctx, "i", &i64, s);
  add(t, "i=%lld;", (long long)i64);
  int32_t i32 = 0;
  TF_OpKernelConstruction_GetAttrInt32(ctx, "i", &i32, s);
  add(t, "i32=%d;", i32);
  TF_OpKernelConstruction_GetAttrInt32(ctx, "big", &i32, s);
  add_status(t, "big_as_int32", s);
  float f = 0;
  TF_OpKernelConstruction_GetAttrFloat(ctx, "f", &f, s);
  add(t, "f=%g;", f);
  TF_Bool b = 0;
  TF_OpKernelConstruction_GetAttrBool(ctx, "b", &b, s);
  add(t, "b=%d;", b);
  TF_DataType dt = 0;
  TF_OpKernelConstruction_GetAttrType(ctx, "t", &dt, s);
  add(t, "t=%d;", (int)dt);

  int32_t list_size = 0, total_size = 0;
  TF_OpKernelConstruction_GetAttrSize(ctx, "s", &list_size, &total_size, s);
  char str[64] = {0};
  TF_OpKernelConstruction_GetAttrString(ctx, "s", str, (size_t)total_size < sizeof str ? (size_t)total_size : 63, s);
  add(t, "s=%s;s_size=%d,%d;", str, list_size, total_size);

  int64_t li[8];
  TF_OpKernelConstruction_GetAttrSize(ctx, "li", &list_size, &total_size, s);
  TF_OpKernelConstruction_GetAttrInt64List(ctx, "li", li, 8, s);
  add(t, "li_size=%d;li=", list_size);
  for (int k = 0; k < list_size && k < 8; ++k) add(t, "%lld,", (long long)li[k]);
  int32_t li32[2];
  TF_OpKernelConstruction_GetAttrInt32List(ctx, "li", li32, 2, s); /* max_vals cuts the list */
  add(t, ";li32=%d,%d;", li32[0], li32[1]);
  float lf[4];
  TF_OpKernelConstruction_GetAttrFloatList(ctx, "lf", lf, 4, s);
  add(t, "lf=%g,%g;", lf[0], lf[1]);
  TF_Bool lb[4];
  TF_OpKernelConstruction_GetAttrBoolList(ctx, "lb", lb, 4, s);
  add(t, "lb=%d,%d,%d;", lb[0], lb[1], lb[2]);
  TF_DataType lt[4];
  TF_OpKernelConstruction_GetAttrTypeList(ctx, "lt", lt, 4, s);
  add(t, "lt=%d,%d;", (int)lt[0], (int)lt[1]);

  TF_OpKernelConstruction_GetAttrSize(ctx, "ls", &list_size, &total_size, s);
  char* values[4];
  size_t lengths[4];
  char storage[64];
  TF_OpKernelConstruction_GetAttrStringList(ctx, "ls", values, lengths, 4, storage, sizeof storage, s);
  add(t, "ls_size=%d,%d;ls=", list_size, total_size);
  for (int k = 0; k < list_size; ++k) add(t, "%.*s,", (int)lengths[k], values[k]);
  TF_OpKernelConstruction_GetAttrStringList(ctx, "ls", values, lengths, 4, storage, 2, s);
  add_status(t, ";ls_small_storage", s);

  TF_OpKernelConstruction_GetAttrSize(ctx, "shape", &list_size, &total_size, s);
  add(t, "shape_size=%d,%d;", list_size, total_size);
  int64_t dims[4] = {0};
  TF_OpKernelConstruction_GetAttrTensorShape(ctx, "shape", dims, 2, s);
  add(t, "shape=%lld,%lld;", (long long)dims[0], (long long)dims[1]);
  TF_OpKernelConstruction_GetAttrTensorShape(ctx, "shape", dims, 3, s);
  add_status(t, "shape_wrong_rank", s);
  TF_OpKernelConstruction_GetAttrSize(ctx, "lshape", &list_size, &total_size, s);
  add(t, "lshape_size=%d,%d;", list_size, total_size);

  TF_Tensor* tensor = NULL;
  TF_OpKernelConstruction_GetAttrTensor(ctx, "tensor", &tensor, s);
  if (tensor != NULL) {
    const int32_t* v = (const int32_t*)TF_TensorData(tensor);
    add(t, "tensor=%d[%lld]:%d,%d,%d;", (int)TF_TensorType(tensor), (long long)TF_Dim(tensor, 0), v[0], v[1], v[2]);
    TF_DeleteTensor(tensor);
  }
  TF_Tensor* tensors[2] = {NULL, NULL};
  TF_OpKernelConstruction_GetAttrTensorList(ctx, "ltensor", tensors, 2, s);
  for (int k = 0; k < 2; ++k) {
    if (tensors[k] == NULL) continue;
    if (TF_TensorType(tensors[k]) == TF_STRING) {
      const TF_TString* ts = (const TF_TString*)TF_TensorData(tensors[k]);
      add(t, "ltensor%d=str:%.*s;", k, (int)TF_TString_GetSize(ts), TF_TString_GetDataPointer(ts));
    } else {
      add(t, "ltensor%d=%g;", k, *(const float*)TF_TensorData(tensors[k]));
    }
    TF_DeleteTensor(tensors[k]);
  }

  /* errors: wrong kinds, missing attrs */
  TF_OpKernelConstruction_GetAttrInt64(ctx, "s", &i64, s);
  add_status(t, "int_of_string", s);
  TF_OpKernelConstruction_GetAttrInt64(ctx, "nope", &i64, s);
  add_status(t, "missing", s);
  TF_OpKernelConstruction_GetAttrInt64List(ctx, "nope", li, 8, s);
  add_status(t, "missing_list", s);
  TF_OpKernelConstruction_GetAttrInt64List(ctx, "i", li, 8, s);
  add_status(t, "list_of_scalar", s);
  TF_OpKernelConstruction_GetAttrFloatList(ctx, "li", lf, 4, s);
  add_status(t, "floats_of_ints", s);
  add(t, "has_i=%d;has_nope=%d;", TF_OpKernelConstruction_HasAttr(ctx, "i", s),
      TF_OpKernelConstruction_HasAttr(ctx, "nope", s));
  TF_Buffer* node_def = TF_OpKernelConstruction_GetNodeDef(ctx, s);
  add(t, "node_def_bytes=%d;", node_def != NULL && node_def->length > 10);
  TF_DeleteBuffer(node_def);
  TF_Buffer* func = TF_OpKernelConstruction_GetAttrFunction(ctx, "i", s);
  add_status(t, "func_of_int", s);
  TF_DeleteBuffer(func);
  TF_DeleteStatus(s);
  return st;
}

static void attrs_compute(void* state, TF_OpKernelContext* ctx) {
  AttrState* st = (AttrState*)state;
  set_string_output(ctx, 0, st->text.buf, st->text.len);
}

static void attrs_delete(void* state) { free(state); }

/* ---------------------------------------------------------------- MtApiAdd: forwarding */

typedef struct AddState {
  TF_Bool hold;
} AddState;

static void* add_create(TF_OpKernelConstruction* ctx) {
  AddState* st = (AddState*)calloc(1, sizeof(AddState));
  TF_Status* s = TF_NewStatus();
  TF_OpKernelConstruction_GetAttrBool(ctx, "hold", &st->hold, s);
  TF_DeleteStatus(s);
  return st;
}

static void add_compute(void* state, TF_OpKernelContext* ctx) {
  AddState* st = (AddState*)state;
  TF_Status* s = TF_NewStatus();
  TF_Tensor* held = NULL;
  if (st->hold) TF_GetInput(ctx, 0, &held, s); /* a live handle: input 0 must not be forwarded */
  TF_Tensor* x = NULL;
  TF_Tensor* y = NULL;
  TF_GetInput(ctx, 1, &y, s);
  int64_t dims[8];
  int nd = TF_NumDims(y);
  for (int i = 0; i < nd; ++i) dims[i] = TF_Dim(y, i);
  int candidates[2] = {0, 1};
  int forwarded = -7;
  TF_DeleteTensor(y); /* input 1 may be forwarded once this handle is gone */
  y = NULL;
  TF_Tensor* out = TF_ForwardInputOrAllocateOutput(ctx, candidates, 2, 0, dims, nd, &forwarded, s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
  } else {
    TF_GetInput(ctx, 0, &x, s);
    TF_GetInput(ctx, 1, &y, s);
    float* o = (float*)TF_TensorData(out);
    const float* a = (const float*)TF_TensorData(x);
    const float* c = (const float*)TF_TensorData(y);
    int64_t n = TF_TensorElementCount(out);
    for (int64_t i = 0; i < n; ++i) o[i] = a[i] + c[i];
    TF_Tensor* fwd = TF_AllocateOutput(ctx, 1, TF_INT32, NULL, 0, 4, s);
    *(int32_t*)TF_TensorData(fwd) = forwarded;
    TF_DeleteTensor(fwd);
  }
  TF_DeleteTensor(held);
  TF_DeleteTensor(x);
  TF_DeleteTensor(y);
  TF_DeleteTensor(out);
  TF_DeleteStatus(s);
}

/* ---------------------------------------------------------------- MtApiInfo: the context's queries */

static void info_compute(void* state, TF_OpKernelContext* ctx) {
  (void)state;
  Text t = {{0}, 0};
  TF_Status* s = TF_NewStatus();
  add(&t, "inputs=%d;outputs=%d;", TF_NumInputs(ctx), TF_NumOutputs(ctx));
  add(&t, "in_types=");
  for (int i = 0; i < TF_NumInputs(ctx); ++i) add(&t, "%d,", (int)TF_InputDatatype(ctx, i));
  add(&t, ";out_type=%d;", (int)TF_ExpectedOutputDataType(ctx, 0));
  add(&t, "step=%lld,%lld;", (long long)TF_StepId(ctx), (long long)TF_GetStepId(ctx));
  TF_StringView name = TF_GetOpKernelName(ctx);
  add(&t, "kernel=%.*s;", (int)name.len, name.data);
  for (int i = 0; i < TF_NumInputs(ctx); ++i) {
    TF_StringView in = TF_GetOpKernelRequestedInput(ctx, (size_t)i);
    add(&t, "requested%d=%.*s;", i, (int)in.len, in.data);
  }
  add(&t, "host_in0=%d;", TF_IsHostMemoryInput(ctx, 0, s));
  add(&t, "host_out0=%d;", TF_IsHostMemoryOutput(ctx, 0, s));
  TF_IsHostMemoryInput(ctx, 99, s);
  add_status(&t, "host_in99", s);
  SP_Stream stream = TF_GetStream(ctx, s);
  add(&t, "stream_null=%d;", stream == NULL);
  add_status(&t, "stream", s);
  TF_InputRange_Args args;
  args.struct_size = TF_InputRange_Args_STRUCT_SIZE;
  args.priv = NULL;
  args.status = s;
  TF_InputRange(ctx, "x", &args);
  add(&t, "range_x=%d,%d;", args.start, args.stop);
  TF_InputRange(ctx, "nope", &args);
  add_status(&t, "range_nope", s);
  TF_Tensor* by_name = NULL;
  TF_GetInputByName(ctx, "x", &by_name, s);
  add_status(&t, "by_name_list", s);
  TF_GetInputByName(ctx, "scale", &by_name, s);
  add(&t, "by_name_scale=%g;", by_name ? *(const float*)TF_TensorData(by_name) : -1.0f);
  TF_DeleteTensor(by_name);
  TF_Tensor* bad = NULL;
  TF_GetInput(ctx, -1, &bad, s);
  add_status(&t, "input_neg", s);
  TF_StringView device = TF_GetDeviceName(ctx);
  add(&t, "device=%.*s;device_id=%d;", (int)device.len, device.data, TF_GetDeviceId(ctx));
  add(&t, "graph_def_version_pos=%d;frame=%llu;iter=%lld;", TF_GetGraphDefVersion(ctx) > 0,
      (unsigned long long)TF_GetFrameId(ctx), (long long)TF_GetIterId(ctx));
  TF_Buffer* config = TF_NewBuffer();
  TF_GetSerializedConfigProto(ctx, config, s);
  add_status(&t, "config", s);
  TF_DeleteBuffer(config);
  add(&t, "ref0=%d;", TF_IsRefInput(ctx, 0, s));
  TF_AssignRefVariable(ctx, 0, 0, 1, false, false, NULL, s); /* no ref variables in modtensor */
  add(&t, "assign_ref_variable=%d;", (int)TF_GetCode(s));
  TF_StringView container = TF_GetResourceMgrDefaultContainerName(ctx);
  add(&t, "container=%.*s;", (int)container.len, container.data);
  TF_Tensor* unset = TF_GetMutableOutput(ctx, 0, s);
  add_status(&t, "mutable_unset", s);
  TF_DeleteTensor(unset);
  set_string_output(ctx, 0, t.buf, t.len);
  TF_DeleteStatus(s);
}

/* ---------------------------------------------------------------- MtApiCheck: failures */

typedef struct CheckState {
  int64_t limit;
} CheckState;

static void* check_create(TF_OpKernelConstruction* ctx) {
  CheckState* st = (CheckState*)calloc(1, sizeof(CheckState));
  TF_Status* s = TF_NewStatus();
  TF_OpKernelConstruction_GetAttrInt64(ctx, "limit", &st->limit, s);
  if (TF_GetCode(s) == TF_OK && st->limit < 0) {
    TF_SetStatus(s, TF_INVALID_ARGUMENT, "limit must be >= 0");
    TF_OpKernelConstruction_Failure(ctx, s);
  }
  TF_DeleteStatus(s);
  return st;
}

static void check_compute(void* state, TF_OpKernelContext* ctx) {
  CheckState* st = (CheckState*)state;
  TF_Status* s = TF_NewStatus();
  TF_Tensor* x = NULL;
  TF_GetInput(ctx, 0, &x, s);
  const float* v = (const float*)TF_TensorData(x);
  for (int64_t i = 0; i < TF_TensorElementCount(x); ++i) {
    if (v[i] > (float)st->limit) {
      char msg[128];
      snprintf(msg, sizeof msg, "value %g at %lld exceeds the limit %lld", v[i], (long long)i, (long long)st->limit);
      TF_SetStatus(s, TF_OUT_OF_RANGE, msg);
      TF_OpKernelContext_Failure(ctx, s);
      break;
    }
  }
  if (TF_GetCode(s) == TF_OK) TF_SetOutput(ctx, 0, x, s);
  TF_DeleteTensor(x);
  TF_DeleteStatus(s);
}

/* ---------------------------------------------------------------- MtApiReduce: shape functions */

static void reduce_shape(TF_ShapeInferenceContext* ctx, TF_Status* status) {
  TF_ShapeHandle* x = TF_NewShapeHandle();
  TF_ShapeHandle* x1 = TF_NewShapeHandle();
  TF_ShapeHandle* prefix = TF_NewShapeHandle();
  TF_ShapeHandle* out = TF_NewShapeHandle();
  TF_ShapeHandle* k_vec = NULL;
  TF_DataType dt = 0;
  TF_ShapeInferenceContext_GetAttrType(ctx, "T", &dt, status);
  if (TF_GetCode(status) != TF_OK) goto done;
  if (dt != TF_FLOAT && dt != TF_DOUBLE) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "MtApiReduce: T must be float or double");
    goto done;
  }
  TF_ShapeInferenceContextGetInput(ctx, 0, x, status);
  if (TF_GetCode(status) != TF_OK) goto done;
  TF_ShapeInferenceContextWithRankAtLeast(ctx, x, 1, x1, status);
  if (TF_GetCode(status) != TF_OK) goto done;
  TF_ShapeInferenceContextWithRankAtMost(ctx, x1, 4, x1, status);
  if (TF_GetCode(status) != TF_OK) goto done;
  if (!TF_ShapeInferenceContextRankKnown(ctx, x1)) {
    TF_ShapeInferenceContextSetUnknownShape(ctx, status);
    goto done;
  }
  TF_ShapeInferenceContextSubshape(ctx, x1, 0, -1, prefix, status);
  if (TF_GetCode(status) != TF_OK) goto done;
  TF_DimensionHandle* last = TF_NewDimensionHandle();
  TF_ShapeInferenceContextDim(ctx, x1, -1, last);
  int64_t k = TF_DimensionHandleValueKnown(last) ? 2 * TF_DimensionHandleValue(last) : 3;
  TF_DeleteDimensionHandle(last);
  k_vec = TF_ShapeInferenceContextVectorFromSize(ctx, (size_t)k);
  TF_ShapeInferenceContextConcatenateShapes(ctx, prefix, k_vec, out, status);
  if (TF_GetCode(status) != TF_OK) goto done;
  TF_ShapeInferenceContextSetOutput(ctx, 0, out, status);
done:
  TF_DeleteShapeHandle(x);
  TF_DeleteShapeHandle(x1);
  TF_DeleteShapeHandle(prefix);
  TF_DeleteShapeHandle(out);
  TF_DeleteShapeHandle(k_vec);
}

static void rank2_shape(TF_ShapeInferenceContext* ctx, TF_Status* status) {
  TF_ShapeHandle* x = TF_NewShapeHandle();
  TF_ShapeInferenceContextGetInput(ctx, 0, x, status);
  if (TF_GetCode(status) == TF_OK) TF_ShapeInferenceContextWithRank(ctx, x, 2, x, status);
  if (TF_GetCode(status) == TF_OK) {
    TF_DimensionHandle* d = TF_NewDimensionHandle();
    TF_ShapeInferenceContextDim(ctx, x, 7, d); /* out of range: unknown, as in TensorFlow */
    if (TF_DimensionHandleValueKnown(d)) TF_SetStatus(status, TF_INTERNAL, "Dim(7) should be unknown");
    TF_DeleteDimensionHandle(d);
  }
  if (TF_GetCode(status) == TF_OK) TF_ShapeInferenceContextSetOutput(ctx, 0, x, status);
  if (TF_GetCode(status) == TF_OK) {
    TF_Status* probe = TF_NewStatus();
    TF_ShapeInferenceContextSetOutput(ctx, 5, x, probe);
    if (TF_GetCode(probe) != TF_INVALID_ARGUMENT) TF_SetStatus(status, TF_INTERNAL, "SetOutput(5) should fail");
    TF_DeleteStatus(probe);
  }
  TF_DeleteShapeHandle(x);
}

/* ---------------------------------------------------------------- MtApiMemory: plugin-owned buffers */

static int g_deallocations = 0;
static void count_dealloc(void* data, size_t len, void* arg) {
  (void)len;
  (void)arg;
  free(data);
  __atomic_add_fetch(&g_deallocations, 1, __ATOMIC_SEQ_CST);
}

/* For the tests (through ctypes): how often plugin memory was released. */
int mt_api_plugin_deallocations(void) { return __atomic_load_n(&g_deallocations, __ATOMIC_SEQ_CST); }

static void memory_compute(void* state, TF_OpKernelContext* ctx) {
  (void)state;
  TF_Status* s = TF_NewStatus();
  int64_t dims[1] = {4};
  /* output 0: plugin memory with a deallocator */
  float* mine = (float*)malloc(4 * sizeof(float));
  for (int i = 0; i < 4; ++i) mine[i] = (float)(i * 10);
  TF_Tensor* a = TF_NewTensor(TF_FLOAT, dims, 1, mine, 4 * sizeof(float), count_dealloc, NULL);
  TF_SetOutput(ctx, 0, a, s);
  must(s, "SetOutput 0");
  TF_DeleteTensor(a);
  /* output 1: a runtime-allocated TF_AllocateTensor, bitcast to int32 and reshaped */
  TF_Tensor* b = TF_AllocateTensor(TF_FLOAT, dims, 1, 4 * sizeof(float));
  float* bf = (float*)TF_TensorData(b);
  for (int i = 0; i < 4; ++i) bf[i] = 1.0f;
  int64_t dims22[2] = {2, 2};
  TF_Tensor* c = TF_AllocateTensor(TF_INT32, dims22, 2, 0); /* replaced by the bitcast */
  TF_TensorBitcastFrom(b, TF_INT32, c, dims22, 2, s);
  must(s, "Bitcast");
  TF_SetOutput(ctx, 1, c, s);
  TF_DeleteTensor(b);
  TF_DeleteTensor(c);
  /* temporaries */
  TF_AllocatorAttributes attrs = {TF_ALLOCATOR_ATTRIBUTES_STRUCT_SIZE, 1};
  TF_Tensor* temp = TF_AllocateTemp(ctx, TF_DOUBLE, dims, 1, &attrs, s);
  Text t = {{0}, 0};
  add_status(&t, "temp", s);
  add(&t, "temp_bytes=%zu;", temp ? TF_TensorByteSize(temp) : 0);
  TF_DeleteTensor(temp);
  TF_AllocatorAttributes unset = {0, 0};
  temp = TF_AllocateTemp(ctx, TF_FLOAT, dims, 1, &unset, s);
  add_status(&t, "temp_no_struct_size", s);
  TF_DeleteTensor(temp);
  int64_t bad_dims[1] = {4};
  TF_Tensor* too_small = TF_NewTensor(TF_FLOAT, bad_dims, 1, malloc(8), 8, count_dealloc, NULL);
  add(&t, "too_small_null=%d;", too_small == NULL);
  TF_Tensor* aligned = TF_AllocateTensor(TF_FLOAT, dims, 1, 16);
  add(&t, "aligned=%d;alignment=%zu;", TF_TensorIsAligned(aligned), TF_TensorDefaultAlignment());
  TF_Tensor* moved = TF_TensorMaybeMove(aligned);
  add(&t, "moved=%d;", moved == aligned);
  TF_DeleteTensor(aligned);
  TF_SetOutput(ctx, 7, NULL, s);
  add_status(&t, "set_output_7", s);
  set_string_output(ctx, 2, t.buf, t.len);
  TF_DeleteStatus(s);
}

/* ---------------------------------------------------------------- MtApiUpper: strings in and out */

static void upper_compute(void* state, TF_OpKernelContext* ctx) {
  (void)state;
  TF_Status* s = TF_NewStatus();
  TF_Tensor* x = NULL;
  TF_GetInput(ctx, 0, &x, s);
  int nd = TF_NumDims(x);
  int64_t dims[8];
  for (int i = 0; i < nd; ++i) dims[i] = TF_Dim(x, i);
  TF_Tensor* y = TF_AllocateOutput(ctx, 0, TF_STRING, dims, nd, 0, s);
  const TF_TString* in = (const TF_TString*)TF_TensorData(x);
  TF_TString* out = (TF_TString*)TF_TensorData(y);
  for (int64_t i = 0; i < TF_TensorElementCount(x); ++i) {
    size_t n = TF_StringGetSize(&in[i]);
    const char* src = TF_StringGetDataPointer(&in[i]);
    char* dst = TF_TString_ResizeUninitialized(&out[i], n);
    for (size_t j = 0; j < n; ++j) dst[j] = (src[j] >= 'a' && src[j] <= 'z') ? (char)(src[j] - 32) : src[j];
  }
  TF_DeleteTensor(x);
  TF_DeleteTensor(y);
  TF_DeleteStatus(s);
}

/* ---------------------------------------------------------------- MtApiAsync: asynchronous kernels */

typedef struct AsyncJob {
  TF_OpKernelContext* ctx;
  TF_AsyncOpKernelDoneCallback* done;
} AsyncJob;

static void* async_worker(void* arg) {
  AsyncJob* job = (AsyncJob*)arg;
  TF_Status* s = TF_NewStatus();
  TF_Tensor* x = NULL;
  TF_GetInput(job->ctx, 0, &x, s);
  TF_Tensor* y = TF_AllocateOutput(job->ctx, 0, TF_FLOAT, NULL, 0, 4, s);
  const float* v = (const float*)TF_TensorData(x);
  float sum = 0;
  for (int64_t i = 0; i < TF_TensorElementCount(x); ++i) sum += v[i];
  *(float*)TF_TensorData(y) = sum;
  TF_DeleteTensor(x);
  TF_DeleteTensor(y);
  TF_DeleteStatus(s);
  TF_DecNumDeferredOps(job->ctx);
  TF_RunAsyncOpKernelDoneCallback(job->done);
  free(job);
  return NULL;
}

static void async_compute(void* state, TF_OpKernelContext* ctx, TF_AsyncOpKernelDoneCallback* done) {
  (void)state;
  AsyncJob* job = (AsyncJob*)malloc(sizeof(AsyncJob));
  job->ctx = ctx;
  job->done = done;
  TF_IncNumDeferredOps(ctx);
  pthread_t thread;
  pthread_create(&thread, NULL, async_worker, job);
  pthread_detach(thread);
}

/* ---------------------------------------------------------------- MtApiLabel: labels and priorities */

static void label_compute_with(TF_OpKernelContext* ctx, int32_t value) {
  TF_Status* s = TF_NewStatus();
  TF_Tensor* y = TF_AllocateOutput(ctx, 0, TF_INT32, NULL, 0, 4, s);
  *(int32_t*)TF_TensorData(y) = value;
  TF_DeleteTensor(y);
  TF_DeleteStatus(s);
}
static void label_default(void* st, TF_OpKernelContext* ctx) { (void)st, label_compute_with(ctx, 1); }
static void label_special(void* st, TF_OpKernelContext* ctx) { (void)st, label_compute_with(ctx, 2); }
static void label_preferred(void* st, TF_OpKernelContext* ctx) { (void)st, label_compute_with(ctx, 3); }
static void kdef_compute(void* st, TF_OpKernelContext* ctx) { (void)st, label_compute_with(ctx, 4); }

/* ---------------------------------------------------------------- registration */

static void register_op(const char* name, const char** inputs, const char** outputs, const char** attrs,
                        void (*shape_fn)(TF_ShapeInferenceContext*, TF_Status*)) {
  TF_Status* s = TF_NewStatus();
  TF_OpDefinitionBuilder* b = TF_NewOpDefinitionBuilder(name);
  for (; inputs && *inputs; ++inputs) TF_OpDefinitionBuilderAddInput(b, *inputs);
  for (; outputs && *outputs; ++outputs) TF_OpDefinitionBuilderAddOutput(b, *outputs);
  for (; attrs && *attrs; ++attrs) TF_OpDefinitionBuilderAddAttr(b, *attrs);
  if (shape_fn) TF_OpDefinitionBuilderSetShapeInferenceFunction(b, shape_fn);
  TF_RegisterOpDefinition(b, s);
  must(s, name);
  TF_DeleteStatus(s);
}

static void register_kernel(TF_KernelBuilder* b, const char* name, const char* attr, TF_DataType type) {
  TF_Status* s = TF_NewStatus();
  if (attr != NULL) TF_KernelBuilder_TypeConstraint(b, attr, type, s);
  TF_RegisterKernelBuilder(name, b, s);
  must(s, name);
  TF_DeleteStatus(s);
}

void TF_InitKernel(void) {
  {
    const char* in[] = {"x: float", NULL};
    const char* out[] = {"report: string", NULL};
    const char* attrs[] = {"i: int", "big: int = 5000000000", "f: float", "b: bool = true", "t: type",
                           "s: string", "li: list(int)", "lf: list(float) = [0.5, 1.5]",
                           "lb: list(bool) = [true, false, true]", "lt: list(type)", "ls: list(string)",
                           "shape: shape", "lshape: list(shape)", "tensor: tensor",
                           "ltensor: list(tensor)", NULL};
    register_op("MtApiAttrs", in, out, attrs, scalar_output);
    register_kernel(TF_NewKernelBuilder("MtApiAttrs", "CPU", attrs_create, attrs_compute, attrs_delete),
                    "MtApiAttrsOp", NULL, 0);
  }
  {
    const char* in[] = {"x: float", "y: float", NULL};
    const char* out[] = {"z: float", "forwarded: int32", NULL};
    const char* attrs[] = {"hold: bool = false", NULL};
    register_op("MtApiAdd", in, out, attrs, NULL);
    register_kernel(TF_NewKernelBuilder("MtApiAdd", "CPU", add_create, add_compute, free), "MtApiAddOp", NULL, 0);
  }
  {
    const char* in[] = {"x: N * T", "scale: float", NULL};
    const char* out[] = {"report: string", NULL};
    const char* attrs[] = {"N: int >= 1", "T: {int32, float}", NULL};
    register_op("MtApiInfo", in, out, attrs, scalar_output);
    TF_KernelBuilder* b = TF_NewKernelBuilder("MtApiInfo", "CPU", NULL, info_compute, NULL);
    TF_KernelBuilder_HostMemory(b, "scale");
    register_kernel(b, "MtApiInfoOp", NULL, 0);
  }
  {
    const char* in[] = {"x: float", NULL};
    const char* out[] = {"y: float", NULL};
    const char* attrs[] = {"limit: int = 10", NULL};
    register_op("MtApiCheck", in, out, attrs, unchanged_shape);
    register_kernel(TF_NewKernelBuilder("MtApiCheck", "CPU", check_create, check_compute, free), "MtApiCheckOp",
                    NULL, 0);
  }
  {
    const char* in[] = {"x: T", NULL};
    const char* out[] = {"y: T", NULL};
    const char* attrs[] = {"T: {float, double, int32}", NULL};
    register_op("MtApiReduce", in, out, attrs, reduce_shape);
    register_op("MtApiRank2", in, out, attrs, rank2_shape);
  }
  {
    const char* out[] = {"a: float", "b: int32", "report: string", NULL};
    register_op("MtApiMemory", NULL, out, NULL, NULL);
    register_kernel(TF_NewKernelBuilder("MtApiMemory", "CPU", NULL, memory_compute, NULL), "MtApiMemoryOp", NULL, 0);
  }
  {
    const char* in[] = {"x: string", NULL};
    const char* out[] = {"y: string", NULL};
    register_op("MtApiUpper", in, out, NULL, unchanged_shape);
    register_kernel(TF_NewKernelBuilder("MtApiUpper", "CPU", NULL, upper_compute, NULL), "MtApiUpperOp", NULL, 0);
  }
  {
    const char* in[] = {"x: float", NULL};
    const char* out[] = {"sum: float", NULL};
    register_op("MtApiAsync", in, out, NULL, scalar_output);
    register_kernel(TF_NewAsyncKernelBuilder("MtApiAsync", "CPU", NULL, async_compute, NULL), "MtApiAsyncOp", NULL,
                    0);
  }
  {
    const char* out[] = {"y: int32", NULL};
    const char* attrs[] = {"T: type = DT_FLOAT", NULL};
    register_op("MtApiLabel", NULL, out, attrs, scalar_output);
    register_kernel(TF_NewKernelBuilder("MtApiLabel", "CPU", NULL, label_default, NULL), "Default", "T", TF_FLOAT);
    TF_KernelBuilder* special = TF_NewKernelBuilder("MtApiLabel", "CPU", NULL, label_special, NULL);
    TF_KernelBuilder_Label(special, "special");
    register_kernel(special, "Special", "T", TF_FLOAT);
    TF_KernelBuilder* preferred = TF_NewKernelBuilder("MtApiLabel", "CPU", NULL, label_preferred, NULL);
    TF_KernelBuilder_Priority(preferred, 5);
    register_kernel(preferred, "Preferred", "T", TF_DOUBLE);
    TF_KernelBuilder* preferred_low = TF_NewKernelBuilder("MtApiLabel", "CPU", NULL, label_default, NULL);
    register_kernel(preferred_low, "DoubleDefault", "T", TF_DOUBLE);
    /* A serialized KernelDef (op, device, constraint T in [DT_HALF], label "kd", priority 5): TF passes
     * it as a NUL-terminated string, so it must not contain zero bytes. */
    static const char kernel_def[] =
        "\x0a\x0aMtApiLabel"
        "\x12\x03" "CPU"
        "\x1a\x0a\x0a\x01T\x12\x05\x0a\x03\x32\x01\x13"
        "\x2a\x02kd"
        "\x30\x05";
    TF_Status* s = TF_NewStatus();
    TF_RegisterKernelBuilderWithKernelDef(kernel_def, "FromKernelDef",
                                          TF_NewKernelBuilder("Ignored", "Ignored", NULL, kdef_compute, NULL), s);
    must(s, "FromKernelDef");
    TF_DeleteStatus(s);
  }
}
