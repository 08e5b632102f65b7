/* modtensor shim: TF_KernelBuilder. A builder collects what TensorFlow's
 * KernelDefBuilder would (op, device type, type constraints, host-memory args,
 * priority, label) plus the kernel's functions; registration hands it to the
 * runtime, which files it in the one KernelRegistry. */
#include <stdlib.h>
#include <string.h>

#include "mt_internal.h"

static TF_KernelBuilder* new_builder(const char* op_name, const char* device_name,
                                     void* (*create_func)(TF_OpKernelConstruction*),
                                     void (*delete_func)(void*)) {
  TF_KernelBuilder* b = (TF_KernelBuilder*)calloc(1, sizeof(TF_KernelBuilder));
  if (b == NULL) abort();
  b->op = MT_Strdup(op_name ? op_name : "");
  b->device = MT_Strdup(device_name ? device_name : "");
  b->create = create_func;
  b->destroy = delete_func;
  b->label = MT_Strdup("");
  return b;
}

TF_KernelBuilder* TF_NewKernelBuilder(const char* op_name, const char* device_name,
                                      void* (*create_func)(TF_OpKernelConstruction*),
                                      void (*compute_func)(void*, TF_OpKernelContext*),
                                      void (*delete_func)(void*)) {
  TF_KernelBuilder* b = new_builder(op_name, device_name, create_func, delete_func);
  b->compute = compute_func;
  return b;
}

TF_KernelBuilder* TF_NewAsyncKernelBuilder(
    const char* op_name, const char* device_name, void* (*create_func)(TF_OpKernelConstruction*),
    void (*compute_async_func)(void*, TF_OpKernelContext*, TF_AsyncOpKernelDoneCallback* done),
    void (*delete_func)(void*)) {
  TF_KernelBuilder* b = new_builder(op_name, device_name, create_func, delete_func);
  b->compute_async = compute_async_func;
  return b;
}

void TF_DeleteKernelBuilder(TF_KernelBuilder* builder) {
  if (builder == NULL) return;
  free(builder->op);
  free(builder->device);
  for (int i = 0; i < builder->num_constraints; ++i) free(builder->constraints[i].attr);
  free(builder->constraints);
  MT_StringListClear(&builder->host_memory);
  free(builder->label);
  free(builder);
}

/* Any DataType value TensorFlow defines; others fail as in TensorFlow ("Unexpected type"). */
static int constraint_type_supported(TF_DataType t) { return t >= TF_FLOAT && t <= TF_FLOAT4_E2M1FN; }

void TF_KernelBuilder_TypeConstraint(TF_KernelBuilder* kernel_builder, const char* attr_name, TF_DataType type,
                                     TF_Status* status) {
  if (!constraint_type_supported(type)) {
    MT_SetStatusf(status, TF_UNIMPLEMENTED, "Unexpected type %d", (int)type);
    return;
  }
  for (int i = 0; i < kernel_builder->num_constraints; ++i) {
    if (strcmp(kernel_builder->constraints[i].attr, attr_name) == 0) {
      MT_SetStatusf(status, TF_INVALID_ARGUMENT,
                    "Kernel for op '%s': a second type constraint on attr '%s' (types %d and %d) would match no "
                    "node; register one kernel per type instead",
                    kernel_builder->op, attr_name, (int)kernel_builder->constraints[i].type, (int)type);
      return;
    }
  }
  MT_TypeConstraint* grown = (MT_TypeConstraint*)realloc(
      kernel_builder->constraints, sizeof(MT_TypeConstraint) * (size_t)(kernel_builder->num_constraints + 1));
  if (grown == NULL) abort();
  kernel_builder->constraints = grown;
  grown[kernel_builder->num_constraints].attr = MT_Strdup(attr_name);
  grown[kernel_builder->num_constraints].type = type;
  kernel_builder->num_constraints += 1;
  TF_SetStatus(status, TF_OK, "");
}

void TF_KernelBuilder_HostMemory(TF_KernelBuilder* kernel_builder, const char* arg_name) {
  MT_StringListAppend(&kernel_builder->host_memory, arg_name);
}

void TF_KernelBuilder_Priority(TF_KernelBuilder* kernel_builder, int32_t priority_number) {
  kernel_builder->priority = priority_number;
}

void TF_KernelBuilder_Label(TF_KernelBuilder* kernel_builder, const char* label) {
  free(kernel_builder->label);
  kernel_builder->label = MT_Strdup(label ? label : "");
}

void TF_RegisterKernelBuilderWithKernelDef(const char* serialized_kernel_def, const char* name,
                                           TF_KernelBuilder* builder, TF_Status* status) {
  TF_SetStatus(status, TF_OK, "");
  if (builder == NULL) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "TF_RegisterKernelBuilder: the builder is NULL");
    return;
  }
  const MT_Callbacks* cb = MT_GetCallbacks();
  if (cb == NULL || cb->register_kernel == NULL) {
    MT_NoRuntime(status, "TF_RegisterKernelBuilder");
    TF_DeleteKernelBuilder(builder);
    return;
  }
  cb->register_kernel(name ? name : "", serialized_kernel_def, builder, status); /* consumes the builder */
}

void TF_RegisterKernelBuilder(const char* kernel_name, TF_KernelBuilder* builder, TF_Status* status) {
  TF_RegisterKernelBuilderWithKernelDef(NULL, kernel_name, builder, status);
}
