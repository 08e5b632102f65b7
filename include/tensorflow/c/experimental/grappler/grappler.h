/* modtensor: TensorFlow-compatible C API headers (Apache-2.0, see the modtensor LICENSE).
 *
 * The Graph C API: a plugin registers one graph optimizer for a device type
 * and may recommend turning built-in passes on or off.
 *
 * Loading: modtensor calls the plugin's TF_InitGraph (or TF_InitGraphPlugin,
 * the name used by the design document; both are looked up) with a
 * TP_OptimizerRegistrationParams whose struct_size and version fields it has
 * set. The plugin sets `device_type`, fills `optimizer_configs` and
 * `optimizer`, setting every struct_size to the *_STRUCT_SIZE it was compiled
 * with. The optimizer then receives serialized GraphDefs and returns
 * optimized ones. */
#ifndef MODTENSOR_INCLUDE_TENSORFLOW_C_EXPERIMENTAL_GRAPPLER_GRAPPLER_H_
#define MODTENSOR_INCLUDE_TENSORFLOW_C_EXPERIMENTAL_GRAPPLER_GRAPPLER_H_

#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api.h"
#include "tensorflow/c/c_api_macros.h"
#include "tensorflow/c/tf_buffer.h"
#include "tensorflow/c/tf_status.h"

/* Version of this API (semantic versioning). */
#define GO_MAJOR 0
#define GO_MINOR 0
#define GO_PATCH 1

#ifdef __cplusplus
extern "C" {
#endif

/* A plugin's wish for one built-in pass: no opinion, off, or on. */
typedef enum TF_TriState {
  TF_TriState_Default = 0,
  TF_TriState_Off,
  TF_TriState_On,
} TF_TriState;

/* The graph being optimized plus its feeds, fetches and nodes to preserve. */
typedef struct TF_GrapplerItem TF_GrapplerItem;

/* Recommended settings of the built-in passes (filled by the plugin). A pass
 * the user turned off stays off; any plugin turning a pass off disables it. */
typedef struct TP_OptimizerConfigs {
  size_t struct_size;
  void* ext; /* reserved */
  TF_TriState disable_model_pruning;
  TF_TriState implementation_selector;
  TF_TriState function_optimization;
  TF_TriState common_subgraph_elimination;
  TF_TriState arithmetic_optimization;
  TF_TriState debug_stripper;
  TF_TriState constant_folding;
  TF_TriState shape_optimization;
  TF_TriState auto_mixed_precision;
  TF_TriState auto_mixed_precision_onednn_bfloat16;
  TF_TriState auto_mixed_precision_mkl;
  TF_TriState pin_to_host_optimization;
  TF_TriState layout_optimizer;
  TF_TriState remapping;
  TF_TriState loop_optimization;
  TF_TriState dependency_optimization;
  TF_TriState auto_parallel;
  TF_TriState memory_optimization;
  TF_TriState scoped_allocator_optimization;
} TP_OptimizerConfigs;

#define TP_OPTIMIZER_CONFIGS_STRUCT_SIZE TF_OFFSET_OF_END(TP_OptimizerConfigs, scoped_allocator_optimization)

/* The optimizer (filled by the plugin). `optimize_func` is required:
 * optimize_func(state, serialized GraphDef in, item, serialized GraphDef out,
 * status). `create_func` (returning the state) and `destroy_func` are
 * optional. */
typedef struct TP_Optimizer {
  size_t struct_size;
  void* ext; /* reserved */
  void* (*create_func)(void); /* TF writes (): the same type in C++, compatible in C */
  void (*optimize_func)(void*, const TF_Buffer*, const TF_GrapplerItem*, TF_Buffer*, TF_Status*);
  void (*destroy_func)(void*);
} TP_Optimizer;

#define TP_OPTIMIZER_STRUCT_SIZE TF_OFFSET_OF_END(TP_Optimizer, destroy_func)

typedef struct TP_OptimizerRegistrationParams {
  size_t struct_size;
  void* ext; /* reserved */
  /* Graph C API version (GO_MAJOR, GO_MINOR, GO_PATCH). */
  int32_t major_version;
  int32_t minor_version;
  int32_t patch_version;
  const char* device_type;                /* set by the plugin */
  TP_OptimizerConfigs* optimizer_configs; /* to fill */
  TP_Optimizer* optimizer;                /* to fill */
} TP_OptimizerRegistrationParams;

#define TP_OPTIMIZER_REGISTRATION_PARAMS_STRUCT_SIZE TF_OFFSET_OF_END(TP_OptimizerRegistrationParams, optimizer)

/* Entry point a graph-optimizer plugin defines (and exports). */
void TF_InitGraph(TP_OptimizerRegistrationParams* params, TF_Status* status);

/* The same entry point under the name of the Graph C API design document;
 * modtensor accepts either. Declared here so a plugin defining it in C++
 * exports it unmangled. */
void TF_InitGraphPlugin(TP_OptimizerRegistrationParams* params, TF_Status* status);

/* Names of the nodes the optimizer must keep (feeds, fetches, ...): first
 * ask for the count and the bytes they need, then fetch them into
 * caller-provided arrays; values[i] points into `storage`, lengths[i] is its
 * length. Fails when `storage_size` is too small. */
TF_CAPI_EXPORT extern void TF_GetNodesToPreserveListSize(const TF_GrapplerItem* item, int* num_values,
                                                         size_t* storage_size, TF_Status* status);
TF_CAPI_EXPORT extern void TF_GetNodesToPreserveList(const TF_GrapplerItem* item, char** values, size_t* lengths,
                                                     int num_values, void* storage, size_t storage_size,
                                                     TF_Status* status);

/* Names of the fetch nodes, in the same two steps. */
TF_CAPI_EXPORT extern void TF_GetFetchNodesListSize(const TF_GrapplerItem* item, int* num_values,
                                                    size_t* storage_size, TF_Status* status);
TF_CAPI_EXPORT extern void TF_GetFetchNodesList(const TF_GrapplerItem* item, char** values, size_t* lengths,
                                                int num_values, void* storage, size_t storage_size,
                                                TF_Status* status);

/* Static shape and type information for the item's graph. */
typedef struct TF_GraphProperties TF_GraphProperties;

/* Properties of `item`'s graph; `item` must outlive them. */
TF_CAPI_EXPORT extern TF_GraphProperties* TF_NewGraphProperties(const TF_GrapplerItem* item);

TF_CAPI_EXPORT extern void TF_DeleteGraphProperties(TF_GraphProperties* graph_properties);

/* Run static inference. `assume_valid_feeds`: trust the shapes of fed nodes;
 * `aggressive_shape_inference`: also evaluate nodes to learn values; the
 * include_* flags put constant values into the input/output properties. */
TF_CAPI_EXPORT extern void TF_InferStatically(TF_GraphProperties* graph_properties, TF_Bool assume_valid_feeds,
                                              TF_Bool aggressive_shape_inference,
                                              TF_Bool include_input_tensor_values,
                                              TF_Bool include_output_tensor_values, TF_Status* s);

/* Number of inputs / outputs of node `name` with properties. */
TF_CAPI_EXPORT extern void TF_GetInputPropertiesListSize(TF_GraphProperties* graph_properties, const char* name,
                                                         int* num_values, TF_Status* status);
TF_CAPI_EXPORT extern void TF_GetOutputPropertiesListSize(TF_GraphProperties* graph_properties, const char* name,
                                                          int* num_values, TF_Status* status);

/* Each input / output's serialized OpInfo.TensorProperties into the
 * caller's `num_values` buffers (created with TF_NewBuffer). */
TF_CAPI_EXPORT extern void TF_GetInputPropertiesList(TF_GraphProperties* graph_properties, const char* name,
                                                     TF_Buffer** properties, int num_values, TF_Status* status);
TF_CAPI_EXPORT extern void TF_GetOutputPropertiesList(TF_GraphProperties* graph_properties, const char* name,
                                                      TF_Buffer** properties, int num_values, TF_Status* status);

/* The op and function definitions visible to a graph. */
typedef struct TF_FunctionLibraryDefinition TF_FunctionLibraryDefinition;

/* Definitions for the serialized GraphDef `graph_buf` (registered ops plus
 * its function library). */
TF_CAPI_EXPORT extern TF_FunctionLibraryDefinition* TF_NewFunctionLibraryDefinition(const TF_Buffer* graph_buf,
                                                                                    TF_Status* status);

TF_CAPI_EXPORT extern void TF_DeleteFunctionLibraryDefinition(TF_FunctionLibraryDefinition* fn_lib);

/* Serialized OpDef of op or function `name` into `buf`. */
TF_CAPI_EXPORT extern void TF_LookUpOpDef(TF_FunctionLibraryDefinition* fn_lib, const char* name, TF_Buffer* buf,
                                          TF_Status* s);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MODTENSOR_INCLUDE_TENSORFLOW_C_EXPERIMENTAL_GRAPPLER_GRAPPLER_H_ */
