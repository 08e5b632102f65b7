/* modtensor shim: TF_OpDefinitionBuilder. The builder only collects the spec
 * strings and flags in C; TF_RegisterOpDefinition hands it to the runtime, which
 * parses the specs with the same op-spec parser as Python ops and registers the
 * op in the one OpRegistry. */
#include <stdlib.h>
#include <string.h>

#include "mt_internal.h"

void MT_StringListAppend(MT_StringList* list, const char* text) {
  if (list->count == list->capacity) {
    int capacity = list->capacity ? list->capacity * 2 : 4;
    char** items = (char**)realloc(list->items, sizeof(char*) * (size_t)capacity);
    if (items == NULL) abort();
    list->items = items;
    list->capacity = capacity;
  }
  list->items[list->count++] = MT_Strdup(text ? text : "");
}

void MT_StringListClear(MT_StringList* list) {
  for (int i = 0; i < list->count; ++i) free(list->items[i]);
  free(list->items);
  list->items = NULL;
  list->count = list->capacity = 0;
}

TF_OpDefinitionBuilder* TF_NewOpDefinitionBuilder(const char* op_name) {
  TF_OpDefinitionBuilder* b = (TF_OpDefinitionBuilder*)calloc(1, sizeof(TF_OpDefinitionBuilder));
  if (b == NULL) abort();
  b->name = MT_Strdup(op_name ? op_name : "");
  return b;
}

void TF_DeleteOpDefinitionBuilder(TF_OpDefinitionBuilder* builder) {
  if (builder == NULL) return;
  free(builder->name);
  MT_StringListClear(&builder->attrs);
  MT_StringListClear(&builder->inputs);
  MT_StringListClear(&builder->outputs);
  free(builder->deprecation_explanation);
  free(builder);
}

void TF_RegisterOpDefinition(TF_OpDefinitionBuilder* builder, TF_Status* status) {
  TF_SetStatus(status, TF_OK, "");
  const MT_Callbacks* cb = MT_GetCallbacks();
  if (builder == NULL) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "TF_RegisterOpDefinition: the builder is NULL");
    return;
  }
  if (cb == NULL || cb->register_op == NULL) {
    MT_NoRuntime(status, "TF_RegisterOpDefinition");
    TF_DeleteOpDefinitionBuilder(builder);
    return;
  }
  cb->register_op(builder, status); /* consumes the builder */
}

void TF_OpDefinitionBuilderAddAttr(TF_OpDefinitionBuilder* builder, const char* attr_spec) {
  MT_StringListAppend(&builder->attrs, attr_spec);
}

void TF_OpDefinitionBuilderAddInput(TF_OpDefinitionBuilder* builder, const char* input_spec) {
  MT_StringListAppend(&builder->inputs, input_spec);
}

void TF_OpDefinitionBuilderAddOutput(TF_OpDefinitionBuilder* builder, const char* output_spec) {
  MT_StringListAppend(&builder->outputs, output_spec);
}

/* TensorFlow ignores the bool and always sets the flag; modtensor honours it. */
void TF_OpDefinitionBuilderSetIsCommutative(TF_OpDefinitionBuilder* builder, bool is_commutative) {
  builder->is_commutative = is_commutative;
}

void TF_OpDefinitionBuilderSetIsAggregate(TF_OpDefinitionBuilder* builder, bool is_aggregate) {
  builder->is_aggregate = is_aggregate;
}

void TF_OpDefinitionBuilderSetIsStateful(TF_OpDefinitionBuilder* builder, bool is_stateful) {
  builder->is_stateful = is_stateful;
}

void TF_OpDefinitionBuilderSetAllowsUninitializedInput(TF_OpDefinitionBuilder* builder,
                                                       bool allows_uninitialized_input) {
  builder->allows_uninitialized_input = allows_uninitialized_input;
}

void TF_OpDefinitionBuilderDeprecated(TF_OpDefinitionBuilder* builder, int version, const char* explanation) {
  free(builder->deprecation_explanation);
  builder->has_deprecation += 1; /* a second call is an error at registration, as in TF */
  builder->deprecation_version = version;
  builder->deprecation_explanation = MT_Strdup(explanation ? explanation : "");
}

void TF_OpDefinitionBuilderSetShapeInferenceFunction(TF_OpDefinitionBuilder* builder,
                                                     void (*shape_inference_func)(TF_ShapeInferenceContext* ctx,
                                                                                  TF_Status* status)) {
  builder->shape_fn = shape_inference_func;
}
