/* A minimal stand-in for the runtime side of TensorFlow's C API, enough to drive the demo
 * device plugin from a standalone C program: TF_Status, TF_Tensor handles, kernel builders
 * and a kernel context whose outputs are allocated through the plugin's StreamExecutor
 * (as modtensor and TensorFlow do). Exported from the harness (-rdynamic) so that the
 * dlopen'ed plugin binds to it. */
#include "fake_tf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TF_Status* TF_NewStatus(void) { return calloc(1, sizeof(TF_Status)); }
void TF_DeleteStatus(TF_Status* s) { free(s); }
void TF_SetStatus(TF_Status* s, TF_Code code, const char* msg) {
  s->code = code;
  snprintf(s->msg, sizeof(s->msg), "%s", code == TF_OK ? "" : msg);
}
TF_Code TF_GetCode(const TF_Status* s) { return s->code; }
const char* TF_Message(const TF_Status* s) { return s->msg; }

/* ---- tensors: handles over buffers owned elsewhere ---- */

TF_Tensor* fake_tensor(TF_DataType dtype, const int64_t* dims, int nd, void* data, size_t len) {
  TF_Tensor* t = calloc(1, sizeof(*t));
  t->dtype = dtype;
  t->nd = nd;
  for (int i = 0; i < nd; ++i) t->dims[i] = dims[i];
  t->data = data;
  t->len = len;
  return t;
}

void TF_DeleteTensor(TF_Tensor* t) { free(t); }
TF_DataType TF_TensorType(const TF_Tensor* t) { return t->dtype; }
int TF_NumDims(const TF_Tensor* t) { return t->nd; }
int64_t TF_Dim(const TF_Tensor* t, int i) { return t->dims[i]; }
size_t TF_TensorByteSize(const TF_Tensor* t) { return t->len; }
void* TF_TensorData(const TF_Tensor* t) { return t->data; }

/* ---- kernel registration ---- */

static TF_KernelBuilder* registered[32];
static int num_registered;

TF_KernelBuilder* TF_NewKernelBuilder(const char* op, const char* device, void* (*create)(TF_OpKernelConstruction*),
                                      void (*compute)(void*, TF_OpKernelContext*), void (*destroy)(void*)) {
  TF_KernelBuilder* b = calloc(1, sizeof(*b));
  snprintf(b->op, sizeof(b->op), "%s", op);
  snprintf(b->device, sizeof(b->device), "%s", device);
  b->create = create;
  b->compute = compute;
  b->destroy = destroy;
  return b;
}

void TF_KernelBuilder_TypeConstraint(TF_KernelBuilder* b, const char* attr, TF_DataType type, TF_Status* st) {
  b->constrained_float = strcmp(attr, "T") == 0 && type == TF_FLOAT;
  TF_SetStatus(st, TF_OK, "");
}

void TF_DeleteKernelBuilder(TF_KernelBuilder* b) { free(b); }

void TF_RegisterKernelBuilder(const char* name, TF_KernelBuilder* b, TF_Status* st) {
  (void)name;
  if (num_registered == 32) {
    TF_SetStatus(st, TF_RESOURCE_EXHAUSTED, "too many kernels");
    free(b);
    return;
  }
  registered[num_registered++] = b;
  TF_SetStatus(st, TF_OK, "");
}

const TF_KernelBuilder* fake_find_kernel(const char* op, const char* device) {
  for (int i = 0; i < num_registered; ++i)
    if (strcmp(registered[i]->op, op) == 0 && strcmp(registered[i]->device, device) == 0 &&
        registered[i]->constrained_float)
      return registered[i];
  return NULL;
}

int fake_num_kernels(void) { return num_registered; }

void fake_free_kernels(void) {
  for (int i = 0; i < num_registered; ++i) free(registered[i]);
  num_registered = 0;
}

/* ---- construction: attrs from a NULL-terminated table ---- */

static const FakeAttr* find_attr(TF_OpKernelConstruction* ctx, const char* name) {
  for (const FakeAttr* a = ctx->attrs; a != NULL && a->name != NULL; ++a)
    if (strcmp(a->name, name) == 0) return a;
  return NULL;
}

static const FakeAttr* need_attr(TF_OpKernelConstruction* ctx, const char* name, int kind, TF_Status* st) {
  const FakeAttr* a = find_attr(ctx, name);
  if (a == NULL || a->kind != kind) {
    char msg[96];
    snprintf(msg, sizeof(msg), "No attr named '%s' of the requested type", name);
    TF_SetStatus(st, TF_INVALID_ARGUMENT, msg);
    return NULL;
  }
  TF_SetStatus(st, TF_OK, "");
  return a;
}

bool TF_OpKernelConstruction_HasAttr(TF_OpKernelConstruction* ctx, const char* name, TF_Status* st) {
  TF_SetStatus(st, TF_OK, "");
  return find_attr(ctx, name) != NULL;
}

void TF_OpKernelConstruction_GetAttrSize(TF_OpKernelConstruction* ctx, const char* name, int32_t* list_size,
                                         int32_t* total_size, TF_Status* st) {
  const FakeAttr* a = find_attr(ctx, name);
  if (a == NULL) {
    TF_SetStatus(st, TF_INVALID_ARGUMENT, "no such attr");
    return;
  }
  *list_size = a->kind == FAKE_INTS ? a->n : -1;
  *total_size = a->kind == FAKE_STRING ? (int32_t)strlen(a->s) : -1;
  TF_SetStatus(st, TF_OK, "");
}

void TF_OpKernelConstruction_GetAttrBool(TF_OpKernelConstruction* ctx, const char* name, TF_Bool* val,
                                         TF_Status* st) {
  const FakeAttr* a = need_attr(ctx, name, FAKE_BOOL, st);
  if (a != NULL) *val = (TF_Bool)a->b;
}

void TF_OpKernelConstruction_GetAttrString(TF_OpKernelConstruction* ctx, const char* name, char* val,
                                           size_t max_length, TF_Status* st) {
  const FakeAttr* a = need_attr(ctx, name, FAKE_STRING, st);
  if (a == NULL) return;
  size_t n = strlen(a->s);
  memcpy(val, a->s, n < max_length ? n : max_length); /* no terminating NUL, as TensorFlow */
}

void TF_OpKernelConstruction_GetAttrInt64List(TF_OpKernelConstruction* ctx, const char* name, int64_t* vals,
                                              int max_vals, TF_Status* st) {
  const FakeAttr* a = need_attr(ctx, name, FAKE_INTS, st);
  if (a == NULL) return;
  for (int i = 0; i < a->n && i < max_vals; ++i) vals[i] = a->ints[i];
}

void TF_OpKernelConstruction_Failure(TF_OpKernelConstruction* ctx, TF_Status* st) {
  ctx->failed = 1;
  TF_SetStatus(&ctx->status, TF_GetCode(st), TF_Message(st));
}

/* ---- compute ---- */

SP_Stream TF_GetStream(TF_OpKernelContext* ctx, TF_Status* st) {
  if (ctx->stream == NULL) {
    TF_SetStatus(st, TF_FAILED_PRECONDITION, "Accessing device stream is not supported for a CPU device.");
    return NULL;
  }
  TF_SetStatus(st, TF_OK, "");
  return ctx->stream;
}

void TF_GetInput(TF_OpKernelContext* ctx, int i, TF_Tensor** tensor, TF_Status* st) {
  if (i < 0 || i >= ctx->num_inputs) {
    TF_SetStatus(st, TF_OUT_OF_RANGE, "input index out of range");
    return;
  }
  const TF_Tensor* in = ctx->inputs[i];
  *tensor = fake_tensor(in->dtype, in->dims, in->nd, in->data, in->len);
  TF_SetStatus(st, TF_OK, "");
}

TF_Tensor* TF_AllocateOutput(TF_OpKernelContext* ctx, int index, TF_DataType dtype, const int64_t* dims,
                             int num_dims, size_t len, TF_Status* st) {
  if (index != 0 || ctx->output != NULL) {
    TF_SetStatus(st, TF_OUT_OF_RANGE, "output index out of range");
    return NULL;
  }
  ctx->output_mem.struct_size = SP_DEVICE_MEMORY_BASE_STRUCT_SIZE;
  ctx->se->allocate(ctx->device, len, 0, &ctx->output_mem);
  if (ctx->output_mem.opaque == NULL && len > 0) {
    TF_SetStatus(st, TF_RESOURCE_EXHAUSTED, "OOM allocating the output");
    return NULL;
  }
  ctx->output = fake_tensor(dtype, dims, num_dims, ctx->output_mem.opaque, len);
  TF_SetStatus(st, TF_OK, "");
  return fake_tensor(dtype, dims, num_dims, ctx->output_mem.opaque, len);
}

void TF_OpKernelContext_Failure(TF_OpKernelContext* ctx, TF_Status* st) {
  ctx->failed = 1;
  TF_SetStatus(&ctx->status, TF_GetCode(st), TF_Message(st));
}

/* ---- the kernels_experimental.h variable functions the plugin's variable kernels link against ----
 * This harness has no variables: the calls fail cleanly. The variable kernels run against
 * modtensor's real implementation in tests/plugin/test_demo_device_runtime.py. */

int64_t TF_TensorElementCount(const TF_Tensor* t) {
  int64_t n = 1;
  for (int i = 0; i < t->nd; ++i) n *= t->dims[i];
  return n;
}

void TF_KernelBuilder_HostMemory(TF_KernelBuilder* b, const char* arg_name) {
  (void)b, (void)arg_name;
}

void TF_AssignUpdateVariable(TF_OpKernelContext* ctx, int input_index, int value_index, int op, int variant,
                             void (*copy)(TF_OpKernelContext*, TF_Tensor*, TF_Tensor*),
                             void (*update)(TF_OpKernelContext*, TF_Tensor*, TF_Tensor*, int), TF_Status* st) {
  (void)ctx, (void)input_index, (void)value_index, (void)op, (void)variant, (void)copy, (void)update;
  TF_SetStatus(st, TF_UNIMPLEMENTED, "the harness has no variables");
}

void TF_MaybeLockVariableInputMutexesInOrder(TF_OpKernelContext* ctx, bool do_lock, bool sparse, const int* const inputs,
                                             size_t len, void (*copy)(TF_OpKernelContext*, TF_Tensor*, TF_Tensor*),
                                             TF_VariableInputLockHolder** holder, TF_Status* st) {
  (void)ctx, (void)do_lock, (void)sparse, (void)inputs, (void)len, (void)copy;
  *holder = NULL;
  TF_SetStatus(st, TF_UNIMPLEMENTED, "the harness has no variables");
}

void TF_GetInputTensorFromVariable(TF_OpKernelContext* ctx, int input, bool lock_held, bool variant, bool sparse,
                                   void (*copy)(TF_OpKernelContext*, TF_Tensor*, TF_Tensor*), TF_Tensor** out,
                                   TF_Status* st) {
  (void)ctx, (void)input, (void)lock_held, (void)variant, (void)sparse, (void)copy;
  *out = NULL;
  TF_SetStatus(st, TF_UNIMPLEMENTED, "the harness has no variables");
}

void TF_ReleaseVariableInputLockHolder(TF_VariableInputLockHolder* holder) { (void)holder; }
