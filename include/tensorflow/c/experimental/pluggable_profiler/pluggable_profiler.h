/* modtensor: TensorFlow-compatible C API headers (Apache-2.0, see the modtensor LICENSE).
 *
 * The Profiler C API: a plugin that traces its device. modtensor calls the
 * plugin's TF_InitProfiler with a TF_ProfilerRegistrationParams; the plugin
 * fills `profiler`, `profiler_fns` and the destroy callbacks. Collected data
 * is a serialized XSpace proto. */
#ifndef MODTENSOR_INCLUDE_TENSORFLOW_C_EXPERIMENTAL_PLUGGABLE_PROFILER_PLUGGABLE_PROFILER_H_
#define MODTENSOR_INCLUDE_TENSORFLOW_C_EXPERIMENTAL_PLUGGABLE_PROFILER_PLUGGABLE_PROFILER_H_

#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api_macros.h"
#include "tensorflow/c/tf_status.h"

/* Version of this API (semantic versioning). */
#define TP_MAJOR 0
#define TP_MINOR 0
#define TP_PATCH 1

#ifdef __cplusplus
extern "C" {
#endif

/* The profiler (filled by the plugin). */
typedef struct TP_Profiler {
  size_t struct_size;
  void* ext;               /* the plugin's own data */
  const char* device_type; /* device type it traces */
} TP_Profiler;

#define TP_PROFILER_STRUCT_SIZE TF_OFFSET_OF_END(TP_Profiler, device_type)

/* Tracing callbacks (filled by the plugin). collect_data_xspace is called
 * twice: with buffer NULL to ask for *size_in_bytes, then with a buffer of
 * that size to receive the serialized XSpace. */
typedef struct TP_ProfilerFns {
  size_t struct_size;
  void* ext; /* reserved */
  void (*start)(const TP_Profiler* profiler, TF_Status* status);
  void (*stop)(const TP_Profiler* profiler, TF_Status* status);
  void (*collect_data_xspace)(const TP_Profiler* profiler, uint8_t* buffer, size_t* size_in_bytes,
                              TF_Status* status);
} TP_ProfilerFns;

#define TP_PROFILER_FNS_STRUCT_SIZE TF_OFFSET_OF_END(TP_ProfilerFns, collect_data_xspace)

typedef struct TF_ProfilerRegistrationParams {
  size_t struct_size;
  void* ext; /* reserved */
  /* Profiler C API version (TP_MAJOR, TP_MINOR, TP_PATCH). */
  int32_t major_version;
  int32_t minor_version;
  int32_t patch_version;
  TP_Profiler* profiler;        /* to fill */
  TP_ProfilerFns* profiler_fns; /* to fill */
  void (*destroy_profiler)(TP_Profiler* profiler);              /* set by the plugin */
  void (*destroy_profiler_fns)(TP_ProfilerFns* profiler_fns);   /* set by the plugin */
} TF_ProfilerRegistrationParams;

#define TF_PROFILER_REGISTRATION_PARAMS_STRUCT_SIZE \
  TF_OFFSET_OF_END(TF_ProfilerRegistrationParams, destroy_profiler_fns)

/* Entry point a profiler plugin defines (and exports). */
void TF_InitProfiler(TF_ProfilerRegistrationParams* params, TF_Status* status);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MODTENSOR_INCLUDE_TENSORFLOW_C_EXPERIMENTAL_PLUGGABLE_PROFILER_PLUGGABLE_PROFILER_H_ */
