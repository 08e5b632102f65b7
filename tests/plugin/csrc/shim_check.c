/* A standalone C program over the shim alone (no Python, no runtime attached): the parts
 * implemented natively in C (status, buffers, tensors, strings, builders) and the
 * runtime-backed calls failing cleanly. Built and run under AddressSanitizer with leak
 * detection by tests/plugin/test_asan.py; prints "ok" when every check passed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorflow/c/kernels.h"
#include "tensorflow/c/ops.h"
#include "tensorflow/c/tf_buffer.h"
#include "tensorflow/c/tf_status.h"
#include "tensorflow/c/tf_tensor.h"
#include "tensorflow/c/tf_tstring.h"

static int failures = 0;
#define CHECK(cond)                                                 \
  do {                                                              \
    if (!(cond)) {                                                  \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                   \
    }                                                               \
  } while (0)

static int deallocated = 0;
static void dealloc(void* data, size_t len, void* arg) {
  (void)len;
  CHECK(arg == (void*)0x1234);
  free(data);
  ++deallocated;
}

static void visit(const char* key, const char* value, void* capture) {
  char* out = (char*)capture;
  strcat(out, key);
  strcat(out, "=");
  strcat(out, value);
  strcat(out, ";");
}

static void check_status(void) {
  TF_Status* s = TF_NewStatus();
  CHECK(TF_GetCode(s) == TF_OK && strcmp(TF_Message(s), "") == 0);
  TF_SetPayload(s, "ignored", "while OK");
  TF_SetStatus(s, TF_NOT_FOUND, "no such thing");
  TF_SetPayload(s, "a", "1");
  TF_SetPayload(s, "b", "2");
  TF_SetPayload(s, "a", "3");
  char seen[64] = "";
  TF_ForEachPayload(s, visit, seen);
  CHECK(strcmp(seen, "a=3;b=2;") == 0);
  CHECK(TF_GetCode(s) == TF_NOT_FOUND && strcmp(TF_Message(s), "no such thing") == 0);
  TF_SetStatusFromIOError(s, 2 /* ENOENT */, "opening x");
  CHECK(TF_GetCode(s) == TF_NOT_FOUND && strncmp(TF_Message(s), "opening x; ", 11) == 0);
  TF_SetStatus(s, TF_OK, "dropped");
  CHECK(TF_GetCode(s) == TF_OK && strcmp(TF_Message(s), "") == 0);
  seen[0] = 0;
  TF_ForEachPayload(s, visit, seen);
  CHECK(seen[0] == 0);
  TF_DeleteStatus(s);
}

static void check_buffer(void) {
  TF_Buffer* b = TF_NewBufferFromString("abc", 3);
  CHECK(b->length == 3 && memcmp(b->data, "abc", 3) == 0 && b->data_deallocator != NULL);
  TF_Buffer copy = TF_GetBuffer(b);
  CHECK(copy.data == b->data);
  TF_DeleteBuffer(b);
  TF_Buffer* empty = TF_NewBuffer();
  CHECK(empty->data == NULL && empty->length == 0);
  TF_DeleteBuffer(empty);
}

static void check_tensors(void) {
  int64_t dims[2] = {2, 3};
  float* data = (float*)malloc(6 * sizeof(float));
  TF_Tensor* t = TF_NewTensor(TF_FLOAT, dims, 2, data, 6 * sizeof(float), dealloc, (void*)0x1234);
  CHECK(t != NULL && TF_NumDims(t) == 2 && TF_Dim(t, 1) == 3 && TF_TensorElementCount(t) == 6);
  CHECK(TF_TensorByteSize(t) == 24 && TF_TensorData(t) == data && TF_TensorType(t) == TF_FLOAT);
  CHECK(TF_TensorMaybeMove(t) == NULL); /* caller-owned memory is never moved */
  int64_t flat[1] = {6};
  TF_SetShape(t, flat, 1);
  CHECK(TF_NumDims(t) == 1 && TF_Dim(t, 0) == 6);
  TF_Status* s = TF_NewStatus();
  int64_t as_bytes[1] = {24};
  TF_Tensor* view = TF_AllocateTensor(TF_UINT8, as_bytes, 1, 24);
  TF_TensorBitcastFrom(t, TF_UINT8, view, as_bytes, 1, s);
  CHECK(TF_GetCode(s) == TF_OK && TF_TensorData(view) == data);
  int64_t wrong[1] = {5};
  TF_TensorBitcastFrom(t, TF_UINT8, view, wrong, 1, s);
  CHECK(TF_GetCode(s) == TF_INVALID_ARGUMENT);
  TF_DeleteTensor(t);
  CHECK(deallocated == 0); /* the bitcast view still shares the buffer */
  TF_DeleteTensor(view);
  CHECK(deallocated == 1);
  TF_Tensor* small = TF_NewTensor(TF_FLOAT, dims, 2, malloc(8), 8, dealloc, (void*)0x1234);
  CHECK(small == NULL && deallocated == 2); /* too small: released at once, as in TensorFlow */
  int64_t many[8] = {1, 1, 1, 1, 1, 1, 1, 2}; /* more dims than fit inline */
  TF_Tensor* deep = TF_AllocateTensor(TF_DOUBLE, many, 8, 16);
  CHECK(TF_NumDims(deep) == 8 && TF_Dim(deep, 7) == 2 && TF_TensorIsAligned(deep));
  CHECK(TF_TensorMaybeMove(deep) == deep);
  TF_DeleteTensor(deep);
  CHECK(TF_DataTypeSize(TF_BFLOAT16) == 2 && TF_DataTypeSize(TF_STRING) == 0 && TF_DataTypeSize(TF_COMPLEX128) == 16);
  TF_DeleteStatus(s);
}

static void check_strings(void) {
  int64_t dims[1] = {3};
  TF_Tensor* t = TF_AllocateTensor(TF_STRING, dims, 1, 3 * sizeof(TF_TString));
  TF_TString* strings = (TF_TString*)TF_TensorData(t);
  CHECK(TF_StringGetSize(&strings[0]) == 0); /* runtime-allocated strings start empty */
  TF_StringCopy(&strings[0], "short", 5);
  TF_StringCopy(&strings[1], "a string longer than twenty-two bytes", 37);
  static const char kView[] = "viewed";
  TF_StringAssignView(&strings[2], kView, 6);
  CHECK(TF_StringGetType(&strings[0]) == TF_TSTR_SMALL && TF_StringGetType(&strings[1]) == TF_TSTR_LARGE);
  CHECK(TF_StringGetType(&strings[2]) == TF_TSTR_VIEW && TF_StringGetDataPointer(&strings[2]) == kView);
  CHECK(TF_StringGetSize(&strings[1]) == 37 && TF_StringGetCapacity(&strings[1]) >= 37);
  TF_DeleteTensor(t); /* frees the LARGE string: LeakSanitizer would report it otherwise */
  TF_TString own;
  TF_StringInit(&own);
  TF_StringCopy(&own, "another long string, on the heap this time", 42);
  TF_StringDealloc(&own);
  CHECK(TF_StringGetSize(&own) == 0);
}

static void no_op_compute(void* state, TF_OpKernelContext* ctx) { (void)state, (void)ctx; }

static void check_without_runtime(void) {
  TF_Status* s = TF_NewStatus();
  TF_OpDefinitionBuilder* b = TF_NewOpDefinitionBuilder("Standalone");
  TF_OpDefinitionBuilderAddInput(b, "x: float");
  TF_OpDefinitionBuilderDeprecated(b, 3, "old");
  TF_RegisterOpDefinition(b, s); /* consumes the builder even on error */
  CHECK(TF_GetCode(s) == TF_FAILED_PRECONDITION && strstr(TF_Message(s), "modtensor runtime") != NULL);
  TF_DeleteOpDefinitionBuilder(TF_NewOpDefinitionBuilder("Unused"));
  TF_KernelBuilder* k = TF_NewKernelBuilder("Standalone", "CPU", NULL, no_op_compute, NULL);
  TF_KernelBuilder_TypeConstraint(k, "T", TF_FLOAT, s);
  CHECK(TF_GetCode(s) == TF_OK);
  TF_KernelBuilder_TypeConstraint(k, "T", TF_DOUBLE, s);
  CHECK(TF_GetCode(s) == TF_INVALID_ARGUMENT);
  TF_KernelBuilder_TypeConstraint(k, "U", (TF_DataType)999, s);
  CHECK(TF_GetCode(s) == TF_UNIMPLEMENTED);
  TF_KernelBuilder_HostMemory(k, "x");
  TF_KernelBuilder_Label(k, "l1");
  TF_KernelBuilder_Label(k, "l2");
  TF_KernelBuilder_Priority(k, 3);
  TF_RegisterKernelBuilder("Standalone", k, s); /* consumed */
  CHECK(TF_GetCode(s) == TF_FAILED_PRECONDITION);
  TF_DeleteKernelBuilder(TF_NewKernelBuilder("Unused", "CPU", NULL, no_op_compute, NULL));
  TF_ShapeHandle* h = TF_NewShapeHandle();
  TF_DimensionHandle* d = TF_NewDimensionHandle();
  CHECK(TF_DimensionHandleValue(d) == -1 && !TF_DimensionHandleValueKnown(d));
  TF_DeleteShapeHandle(h);
  TF_DeleteDimensionHandle(d);
  TF_DeleteStatus(s);
}

int main(void) {
  check_status();
  check_buffer();
  check_tensors();
  check_strings();
  check_without_runtime();
  if (failures == 0) printf("ok\n");
  return failures == 0 ? 0 : 1;
}
