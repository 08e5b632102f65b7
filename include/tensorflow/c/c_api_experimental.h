/* modtensor: TensorFlow-compatible C API headers (Apache-2.0, see the modtensor LICENSE).
 *
 * Experimental additions to the C API, with TensorFlow 2.21's signatures. Plugins use
 * TF_OpIsStateful (exported by modtensor's shim); the rest is declared so that sources including
 * this header compile (docs/status.md lists what is exported). */
#ifndef MODTENSOR_INCLUDE_TENSORFLOW_C_C_API_EXPERIMENTAL_H_
#define MODTENSOR_INCLUDE_TENSORFLOW_C_C_API_EXPERIMENTAL_H_

#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api.h"
#include "tensorflow/c/c_api_macros.h"
#include "tensorflow/c/eager/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* XLA JIT switches (accepted and ignored by runtimes without XLA). */
TF_CAPI_EXPORT extern void TF_EnableXLACompilation(TF_SessionOptions* options, unsigned char enable);

TF_CAPI_EXPORT unsigned char TF_SetXlaEnableLazyCompilation(unsigned char enable);

TF_CAPI_EXPORT unsigned char TF_SetTfXlaCpuGlobalJit(unsigned char enable);

TF_CAPI_EXPORT void TF_SetXlaAutoJitMode(const char* mode);

TF_CAPI_EXPORT unsigned char TF_GetXlaAutoJitEnabled(void);

TF_CAPI_EXPORT void TF_SetXlaMinClusterSize(int size);

TF_CAPI_EXPORT unsigned char TF_GetXlaConstantFoldingDisabled(void);

TF_CAPI_EXPORT void TF_SetXlaConstantFoldingDisabled(unsigned char should_enable);

/* Serialized ConfigProto / RunOptions built from a few common settings. */
TF_CAPI_EXPORT extern TF_Buffer* TF_CreateConfig(unsigned char enable_xla_compilation,
                                                 unsigned char gpu_memory_allow_growth, unsigned int num_cpu_devices);

TF_CAPI_EXPORT extern TF_Buffer* TF_CreateRunOptions(unsigned char enable_full_trace);

/* Debug text of graphs and functions. */
TF_CAPI_EXPORT extern const char* TF_GraphDebugString(TF_Graph* graph, size_t* len);

TF_CAPI_EXPORT extern char* TF_FunctionDebugString(TF_Function* func, size_t* len);

/* Named tensor queues of a session. */
TF_CAPI_EXPORT extern TF_Tensor* TF_DequeueNamedTensor(TF_Session* session, int tensor_id, TF_Status* status);

TF_CAPI_EXPORT extern void TF_EnqueueNamedTensor(TF_Session* session, int tensor_id, TF_Tensor* tensor,
                                                 TF_Status* status);

/* Eager server definitions and internal-error statuses. */
TF_Buffer* TFE_GetServerDef(const char* text_proto, TF_Status* status);

TF_CAPI_EXPORT extern void TF_MakeInternalErrorStatus(TF_Status* status, const char* errMsg);

/* Reading checkpoints. */
typedef struct TF_CheckpointReader TF_CheckpointReader;

TF_CAPI_EXPORT extern TF_CheckpointReader* TF_NewCheckpointReader(const char* filename, TF_Status* status);

TF_CAPI_EXPORT extern void TF_DeleteCheckpointReader(TF_CheckpointReader* reader);

TF_CAPI_EXPORT extern int TF_CheckpointReaderHasTensor(TF_CheckpointReader* reader, const char* name);

TF_CAPI_EXPORT extern const char* TF_CheckpointReaderGetVariable(TF_CheckpointReader* reader, int index);

TF_CAPI_EXPORT extern int TF_CheckpointReaderSize(TF_CheckpointReader* reader);

TF_CAPI_EXPORT extern TF_DataType TF_CheckpointReaderGetVariableDataType(TF_CheckpointReader* reader, const char* name);

TF_CAPI_EXPORT extern void TF_CheckpointReaderGetVariableShape(TF_CheckpointReader* reader, const char* name,
                                                               int64_t* dims, int num_dims, TF_Status* status);

TF_CAPI_EXPORT extern int TF_CheckpointReaderGetVariableNumDims(TF_CheckpointReader* reader, const char* name);

TF_CAPI_EXPORT extern TF_Tensor* TF_CheckpointReaderGetTensor(TF_CheckpointReader* reader, const char* name,
                                                              TF_Status* status);

/* Attribute builders, used to ask whether an op can run on a device type. */
typedef struct TF_AttrBuilder TF_AttrBuilder;

TF_CAPI_EXPORT extern TF_AttrBuilder* TF_NewAttrBuilder(const char* op_name);

TF_CAPI_EXPORT extern void TF_DeleteAttrBuilder(TF_AttrBuilder* builder);

TF_CAPI_EXPORT extern void TF_AttrBuilderSetType(TF_AttrBuilder* builder, const char* attr_name, TF_DataType value);

TF_CAPI_EXPORT extern void TF_AttrBuilderSetTypeList(TF_AttrBuilder* builder, const char* attr_name,
                                                     const TF_DataType* values, int num_values);

TF_CAPI_EXPORT extern void TF_AttrBuilderCheckCanRunOnDevice(TF_AttrBuilder* builder, const char* device_type,
                                                             TF_Status* status);

TF_CAPI_EXPORT extern const char* TF_GetNumberAttrForOpListInput(const char* op_name, int input_index,
                                                                 TF_Status* status);

/* Whether an op type is stateful (registered with SetIsStateful). */
TF_CAPI_EXPORT extern int TF_OpIsStateful(const char* op_type, TF_Status* status);

/* Process helpers. */
TF_CAPI_EXPORT void TF_InitMain(const char* usage, int* argc, char*** argv);

TF_CAPI_EXPORT int TF_PickUnusedPortOrDie(void);

/* Eager helpers: scalar handles and collective ops. */
TF_CAPI_EXPORT extern TFE_TensorHandle* TFE_NewTensorHandleFromScalar(TF_DataType data_type, void* data, size_t len,
                                                                      TF_Status* status);

TF_CAPI_EXPORT extern void TFE_EnableCollectiveOps(TFE_Context* ctx, const void* proto, size_t proto_len,
                                                   TF_Status* status);

TF_CAPI_EXPORT extern void TFE_AbortCollectiveOps(TFE_Context* ctx, TF_Status* status);

TF_CAPI_EXPORT extern void TFE_CollectiveOpsCheckPeerHealth(TFE_Context* ctx, const char* task, int64_t timeout_in_ms,
                                                            TF_Status* status);

struct TF_ShapeAndType {
  int num_dims;
  int64_t* dims;
  TF_DataType dtype;
};

/* Shapes and dtypes for shape inference of eager ops. */
typedef struct TF_ShapeAndType TF_ShapeAndType;

struct TF_ShapeAndTypeList {
  int num_items;
  TF_ShapeAndType* items;
};

typedef struct TF_ShapeAndTypeList TF_ShapeAndTypeList;

TF_CAPI_EXPORT extern TF_ShapeAndTypeList* TF_NewShapeAndTypeList(int num_shapes);

TF_CAPI_EXPORT extern void TF_ShapeAndTypeListSetShape(TF_ShapeAndTypeList* shape_list, int index, const int64_t* dims,
                                                       int num_dims);

TF_CAPI_EXPORT extern void TF_ShapeAndTypeListSetUnknownShape(TF_ShapeAndTypeList* shape_list, int index);

TF_CAPI_EXPORT extern void TF_ShapeAndTypeListSetDtype(TF_ShapeAndTypeList* shape_list, int index, TF_DataType dtype);

TF_CAPI_EXPORT extern void TF_DeleteShapeAndTypeList(TF_ShapeAndTypeList* shape_list);

TF_CAPI_EXPORT extern void TF_DeleteShapeAndTypeListArray(TF_ShapeAndTypeList** shape_list_array, int num_items);

TF_CAPI_EXPORT extern void TFE_InferShapes(TFE_Op* op, TF_ShapeAndTypeList* input_shapes, TF_Tensor** input_tensors,
                                           TF_ShapeAndTypeList* input_tensor_as_shapes,
                                           TF_ShapeAndTypeList** input_resource_shapes_and_types,
                                           TF_ShapeAndTypeList** output_shapes,
                                           TF_ShapeAndTypeList*** output_resource_shapes_and_types, TF_Status* status);

/* Graph import option. */
TF_CAPI_EXPORT extern void TF_ImportGraphDefOptionsSetValidateColocationConstraints(TF_ImportGraphDefOptions* opts,
                                                                                    unsigned char enable);

/* Loading a pluggable-device library (SE_InitPlugin, TF_InitKernel, TF_InitGraph). */
TF_CAPI_EXPORT extern TF_Library* TF_LoadPluggableDeviceLibrary(const char* library_filename, TF_Status* status);

TF_CAPI_EXPORT extern void TF_DeletePluggableDeviceLibraryHandle(TF_Library* lib_handle);

/* Removing a function from a graph's library. */
TF_CAPI_EXPORT extern void TF_GraphRemoveFunction(TF_Graph* g, const char* func_name, TF_Status* status);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MODTENSOR_INCLUDE_TENSORFLOW_C_C_API_EXPERIMENTAL_H_ */
