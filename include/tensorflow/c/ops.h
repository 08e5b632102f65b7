/* modtensor: TensorFlow-compatible C API headers (Apache-2.0, see the modtensor LICENSE).
 *
 * Defining ops from a plugin: build an op definition from TensorFlow-style
 * spec strings, attach a shape function, and register it. In modtensor the
 * definition lands in the same OpRegistry as the Python-defined ops, and the
 * shape function runs in the same shape inference.
 *
 *   TF_OpDefinitionBuilder* b = TF_NewOpDefinitionBuilder("MyOp");
 *   TF_OpDefinitionBuilderAddInput(b, "x: T");
 *   TF_OpDefinitionBuilderAddOutput(b, "y: T");
 *   TF_OpDefinitionBuilderAddAttr(b, "T: {float, int32}");
 *   TF_OpDefinitionBuilderSetShapeInferenceFunction(b, &my_shape_fn);
 *   TF_RegisterOpDefinition(b, status);  // consumes b
 */
#ifndef MODTENSOR_INCLUDE_TENSORFLOW_C_OPS_H_
#define MODTENSOR_INCLUDE_TENSORFLOW_C_OPS_H_

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "tensorflow/c/c_api_macros.h"
#include "tensorflow/c/tf_datatype.h"
#include "tensorflow/c/tf_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque handles. Shape and dimension handles are created empty by
 * TF_NewShapeHandle/TF_NewDimensionHandle and filled by the context calls;
 * they belong to the caller and are freed with TF_Delete*Handle. */
typedef struct TF_DimensionHandle TF_DimensionHandle;
typedef struct TF_OpDefinitionBuilder TF_OpDefinitionBuilder;
typedef struct TF_ShapeHandle TF_ShapeHandle;
typedef struct TF_ShapeInferenceContext TF_ShapeInferenceContext;

/* Start defining op `op_name`. Pass the builder to TF_RegisterOpDefinition,
 * or free it with TF_DeleteOpDefinitionBuilder. */
TF_CAPI_EXPORT extern TF_OpDefinitionBuilder* TF_NewOpDefinitionBuilder(const char* op_name);

/* Register the op and free `builder` (also on error). Errors: a malformed
 * spec, an op of that name already registered. */
TF_CAPI_EXPORT extern void TF_RegisterOpDefinition(TF_OpDefinitionBuilder* builder, TF_Status* status);

/* Free a builder that was not registered. */
TF_CAPI_EXPORT extern void TF_DeleteOpDefinitionBuilder(TF_OpDefinitionBuilder* builder);

/* Spec strings, as in TensorFlow's REGISTER_OP: attrs "name: type [= default]"
 * (e.g. "T: {float, int32} = DT_FLOAT", "N: int >= 1"), inputs and outputs
 * "name: [N *] type" (e.g. "x: T", "values: N * int32", "ref: Ref(T)"). */
TF_CAPI_EXPORT extern void TF_OpDefinitionBuilderAddAttr(TF_OpDefinitionBuilder* builder, const char* attr_spec);
TF_CAPI_EXPORT extern void TF_OpDefinitionBuilderAddInput(TF_OpDefinitionBuilder* builder, const char* input_spec);
TF_CAPI_EXPORT extern void TF_OpDefinitionBuilderAddOutput(TF_OpDefinitionBuilder* builder, const char* output_spec);

/* Op properties (OpDef.is_commutative, is_aggregate, is_stateful,
 * allows_uninitialized_input); all default to false. */
TF_CAPI_EXPORT extern void TF_OpDefinitionBuilderSetIsCommutative(TF_OpDefinitionBuilder* builder, bool is_commutative);
TF_CAPI_EXPORT extern void TF_OpDefinitionBuilderSetIsAggregate(TF_OpDefinitionBuilder* builder, bool is_aggregate);
TF_CAPI_EXPORT extern void TF_OpDefinitionBuilderSetIsStateful(TF_OpDefinitionBuilder* builder, bool is_stateful);
TF_CAPI_EXPORT extern void TF_OpDefinitionBuilderSetAllowsUninitializedInput(TF_OpDefinitionBuilder* builder,
                                                                             bool allows_uninitialized_input);

/* Mark the op deprecated from GraphDef version `version` on. */
TF_CAPI_EXPORT extern void TF_OpDefinitionBuilderDeprecated(TF_OpDefinitionBuilder* builder, int version,
                                                            const char* explanation);

/* The op's shape function: called with a context describing the node's
 * inputs; it sets every output with TF_ShapeInferenceContextSetOutput or
 * reports an error through `status`. */
TF_CAPI_EXPORT extern void TF_OpDefinitionBuilderSetShapeInferenceFunction(
    TF_OpDefinitionBuilder* builder, void (*shape_inference_func)(TF_ShapeInferenceContext* ctx, TF_Status* status));

/* Number of inputs of the node being inferred. */
TF_CAPI_EXPORT extern int64_t TF_ShapeInferenceContextNumInputs(TF_ShapeInferenceContext* ctx);

/* An empty shape handle for the calls below to fill. */
TF_CAPI_EXPORT extern TF_ShapeHandle* TF_NewShapeHandle(void);

/* Shape of input `i` into `handle`; error if `i` is out of range. */
TF_CAPI_EXPORT extern void TF_ShapeInferenceContextGetInput(TF_ShapeInferenceContext* ctx, int i,
                                                            TF_ShapeHandle* handle, TF_Status* status);

/* Set output `i` to the shape in `handle`; error if `i` is out of range. */
TF_CAPI_EXPORT extern void TF_ShapeInferenceContextSetOutput(TF_ShapeInferenceContext* ctx, int i,
                                                             TF_ShapeHandle* handle, TF_Status* status);

/* A new handle holding the scalar shape []; caller frees it. */
TF_CAPI_EXPORT extern TF_ShapeHandle* TF_ShapeInferenceContextScalar(TF_ShapeInferenceContext* ctx);

/* A new handle holding the vector shape [size]; caller frees it. */
TF_CAPI_EXPORT extern TF_ShapeHandle* TF_ShapeInferenceContextVectorFromSize(TF_ShapeInferenceContext* ctx,
                                                                             size_t size);

/* An empty dimension handle for TF_ShapeInferenceContextDim to fill. */
TF_CAPI_EXPORT extern TF_DimensionHandle* TF_NewDimensionHandle(void);

/* Value of the node's type attr `attr_name`. */
TF_CAPI_EXPORT extern void TF_ShapeInferenceContext_GetAttrType(TF_ShapeInferenceContext* ctx, const char* attr_name,
                                                                TF_DataType* val, TF_Status* status);

/* Rank of the shape in `handle` (meaningful only when the rank is known). */
TF_CAPI_EXPORT extern int64_t TF_ShapeInferenceContextRank(TF_ShapeInferenceContext* ctx, TF_ShapeHandle* handle);

/* Nonzero when the rank of `handle` is known. */
TF_CAPI_EXPORT extern int TF_ShapeInferenceContextRankKnown(TF_ShapeInferenceContext* ctx, TF_ShapeHandle* handle);

/* Merge `handle` with "any shape of rank `rank`" (exactly, at least, at
 * most) into `result`; error when the known rank contradicts it. */
TF_CAPI_EXPORT extern void TF_ShapeInferenceContextWithRank(TF_ShapeInferenceContext* ctx, TF_ShapeHandle* handle,
                                                            int64_t rank, TF_ShapeHandle* result, TF_Status* status);
TF_CAPI_EXPORT extern void TF_ShapeInferenceContextWithRankAtLeast(TF_ShapeInferenceContext* ctx,
                                                                   TF_ShapeHandle* handle, int64_t rank,
                                                                   TF_ShapeHandle* result, TF_Status* status);
TF_CAPI_EXPORT extern void TF_ShapeInferenceContextWithRankAtMost(TF_ShapeInferenceContext* ctx,
                                                                  TF_ShapeHandle* handle, int64_t rank,
                                                                  TF_ShapeHandle* result, TF_Status* status);

/* Dimension `i` of `shape_handle` into `result`; negative `i` counts from
 * the end. */
TF_CAPI_EXPORT extern void TF_ShapeInferenceContextDim(TF_ShapeInferenceContext* ctx, TF_ShapeHandle* shape_handle,
                                                       int64_t i, TF_DimensionHandle* result);

/* Dimensions [start, end) of `shape_handle` into `result` (Python-style
 * negative indices). */
TF_CAPI_EXPORT extern void TF_ShapeInferenceContextSubshape(TF_ShapeInferenceContext* ctx,
                                                            TF_ShapeHandle* shape_handle, int64_t start, int64_t end,
                                                            TF_ShapeHandle* result, TF_Status* status);

/* Set every output to an unknown shape. */
TF_CAPI_EXPORT extern void TF_ShapeInferenceContextSetUnknownShape(TF_ShapeInferenceContext* ctx, TF_Status* status);

/* Nonzero when the dimension's size is known. */
TF_CAPI_EXPORT extern int TF_DimensionHandleValueKnown(TF_DimensionHandle* dim_handle);

/* The dimension's size, or -1 when unknown. */
TF_CAPI_EXPORT extern int64_t TF_DimensionHandleValue(TF_DimensionHandle* dim_handle);

/* `first` followed by `second` into `result`. */
TF_CAPI_EXPORT extern void TF_ShapeInferenceContextConcatenateShapes(TF_ShapeInferenceContext* ctx,
                                                                     TF_ShapeHandle* first, TF_ShapeHandle* second,
                                                                     TF_ShapeHandle* result, TF_Status* status);

TF_CAPI_EXPORT extern void TF_DeleteShapeHandle(TF_ShapeHandle* handle);

TF_CAPI_EXPORT extern void TF_DeleteDimensionHandle(TF_DimensionHandle* handle);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MODTENSOR_INCLUDE_TENSORFLOW_C_OPS_H_ */
