/* modtensor: TensorFlow-compatible C API headers (Apache-2.0, see the modtensor LICENSE).
 *
 * The StreamExecutor C API: how a device plugin describes its platform,
 * devices, memory, streams, events and timers.
 *
 * Loading: modtensor calls the plugin's SE_InitPlugin with a
 * SE_PlatformRegistrationParams whose struct_size and version fields it has
 * set; the plugin fills `platform`, `platform_fns` and the two destroy
 * callbacks. SE_ structs are filled by modtensor, SP_ structs by the plugin
 * (into memory modtensor provides). Every struct starts with `struct_size`,
 * which both sides set to the *_STRUCT_SIZE macro they were compiled with; a
 * reader treats members beyond a smaller struct_size as absent. `ext` members
 * are free for the plugin in SP_ structs and reserved in SE_ structs. */
#ifndef MODTENSOR_INCLUDE_TENSORFLOW_C_EXPERIMENTAL_STREAM_EXECUTOR_STREAM_EXECUTOR_H_
#define MODTENSOR_INCLUDE_TENSORFLOW_C_EXPERIMENTAL_STREAM_EXECUTOR_STREAM_EXECUTOR_H_

#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api_macros.h"
#include "tensorflow/c/tf_status.h"

/* Version of this API (semantic versioning). */
#define SE_MAJOR 0
#define SE_MINOR 0
#define SE_PATCH 1

#ifdef __cplusplus
extern "C" {
#endif

/* Plugin-defined handles. */
typedef struct SP_Stream_st* SP_Stream;
typedef struct SP_Event_st* SP_Event;
typedef struct SP_Timer_st* SP_Timer;

/* Callback passed to host_callback: run it with its argument and a status. */
typedef void (*SE_StatusCallbackFn)(void* const, TF_Status* const);

/* Timer functions (filled by the plugin). */
typedef struct SP_TimerFns {
  size_t struct_size;
  void* ext; /* reserved */
  /* Elapsed time between start_timer and stop_timer. */
  uint64_t (*nanoseconds)(SP_Timer timer);
} SP_TimerFns;

#define SP_TIMER_FNS_STRUCT_SIZE TF_OFFSET_OF_END(SP_TimerFns, nanoseconds)

/* Allocator statistics reported by get_allocator_stats (filled by the plugin);
 * the has_* flags say whether the following limit is meaningful. */
typedef struct SP_AllocatorStats {
  size_t struct_size;
  int64_t num_allocs;
  int64_t bytes_in_use;
  int64_t peak_bytes_in_use;
  int64_t largest_alloc_size;
  int8_t has_bytes_limit;
  int64_t bytes_limit;
  int64_t bytes_reserved;
  int64_t peak_bytes_reserved;
  int8_t has_bytes_reservable_limit;
  int64_t bytes_reservable_limit;
  int64_t largest_free_block_bytes;
} SP_AllocatorStats;

#define SP_ALLOCATORSTATS_STRUCT_SIZE TF_OFFSET_OF_END(SP_AllocatorStats, largest_free_block_bytes)

/* State of an event, as get_event_status reports it. */
typedef enum SE_EventStatus {
  SE_EVENT_UNKNOWN,
  SE_EVENT_ERROR,
  SE_EVENT_PENDING,
  SE_EVENT_COMPLETE,
} SE_EventStatus;

/* A region of device memory. */
typedef struct SP_DeviceMemoryBase {
  size_t struct_size;
  void* ext;        /* reserved */
  void* opaque;     /* device address (meaning is the plugin's) */
  uint64_t size;    /* bytes */
  uint64_t payload; /* free for the plugin's use */
} SP_DeviceMemoryBase;

#define SP_DEVICE_MEMORY_BASE_STRUCT_SIZE TF_OFFSET_OF_END(SP_DeviceMemoryBase, payload)

/* One device of the platform (filled by the plugin in create_device). */
typedef struct SP_Device {
  size_t struct_size;
  void* ext;        /* the plugin's own data */
  int32_t ordinal;  /* index among the platform's devices */
  void* device_handle;
  /* Optional descriptions, shown by get_device_details. */
  const char* hardware_name;
  const char* device_vendor;
  const char* pci_bus_id;
} SP_Device;

#define SP_DEVICE_STRUCT_SIZE TF_OFFSET_OF_END(SP_Device, pci_bus_id)

typedef struct SE_CreateDeviceParams {
  size_t struct_size;
  void* ext;          /* reserved */
  int32_t ordinal;    /* which device to create */
  SP_Device* device;  /* to fill; its struct_size is set by modtensor */
} SE_CreateDeviceParams;

#define SE_CREATE_DEVICE_PARAMS_STRUCT_SIZE TF_OFFSET_OF_END(SE_CreateDeviceParams, device)

/* Optional device properties (filled by the plugin). */
typedef struct SP_DeviceFns {
  size_t struct_size;
  void* ext; /* reserved */
  int32_t (*get_numa_node)(const SP_Device* device);
  int64_t (*get_memory_bandwidth)(const SP_Device* device); /* bytes per second */
  double (*get_gflops)(const SP_Device* device);
} SP_DeviceFns;

#define SP_DEVICE_FNS_STRUCT_SIZE TF_OFFSET_OF_END(SP_DeviceFns, get_gflops)

typedef struct SE_CreateDeviceFnsParams {
  size_t struct_size;
  void* ext;                 /* reserved */
  SP_DeviceFns* device_fns;  /* to fill */
} SE_CreateDeviceFnsParams;

#define SE_CREATE_DEVICE_FNS_PARAMS_STRUCT_SIZE TF_OFFSET_OF_END(SE_CreateDeviceFnsParams, device_fns)

/* Everything modtensor asks a device to do (filled by the plugin). Work on a
 * stream is asynchronous: the call enqueues it and returns. */
typedef struct SP_StreamExecutor {
  size_t struct_size;
  void* ext; /* reserved */

  /* Memory. allocate fills `mem` (opaque NULL on failure); memory_space 0 is
   * the device's default memory. */
  void (*allocate)(const SP_Device* device, uint64_t size, int64_t memory_space, SP_DeviceMemoryBase* mem);
  void (*deallocate)(const SP_Device* device, SP_DeviceMemoryBase* memory);
  /* Host memory suited to fast transfers (e.g. pinned). */
  void* (*host_memory_allocate)(const SP_Device* device, uint64_t size);
  void (*host_memory_deallocate)(const SP_Device* device, void* mem);
  /* Memory reachable from host and device; only when the platform sets
   * supports_unified_memory. */
  void* (*unified_memory_allocate)(const SP_Device* device, uint64_t bytes);
  void (*unified_memory_deallocate)(const SP_Device* device, void* location);
  /* Optional; return nonzero when `stats` / `free`,`total` were filled. */
  TF_Bool (*get_allocator_stats)(const SP_Device* device, SP_AllocatorStats* stats);
  TF_Bool (*device_memory_usage)(const SP_Device* device, int64_t* free, int64_t* total);

  /* Streams. */
  void (*create_stream)(const SP_Device* device, SP_Stream* stream, TF_Status* status);
  void (*destroy_stream)(const SP_Device* device, SP_Stream stream);
  /* Work later enqueued on `dependent` waits for work already on `other`. */
  void (*create_stream_dependency)(const SP_Device* device, SP_Stream dependent, SP_Stream other,
                                   TF_Status* status);
  void (*get_stream_status)(const SP_Device* device, SP_Stream stream, TF_Status* status);

  /* Events. */
  void (*create_event)(const SP_Device* device, SP_Event* event, TF_Status* status);
  void (*destroy_event)(const SP_Device* device, SP_Event event);
  SE_EventStatus (*get_event_status)(const SP_Device* device, SP_Event event);
  /* Enqueue: the event completes when the stream reaches this point. */
  void (*record_event)(const SP_Device* device, SP_Stream stream, SP_Event event, TF_Status* status);
  /* Enqueue: later work on the stream waits for the event. */
  void (*wait_for_event)(const SP_Device* const device, SP_Stream stream, SP_Event event,
                         TF_Status* const status);

  /* Timers. */
  void (*create_timer)(const SP_Device* device, SP_Timer* timer, TF_Status* status);
  void (*destroy_timer)(const SP_Device* device, SP_Timer timer);
  void (*start_timer)(const SP_Device* device, SP_Stream stream, SP_Timer timer, TF_Status* status);
  void (*stop_timer)(const SP_Device* device, SP_Stream stream, SP_Timer timer, TF_Status* status);

  /* Copies enqueued on a stream (device to host, host to device, device to
   * device) ... */
  void (*memcpy_dtoh)(const SP_Device* device, SP_Stream stream, void* host_dst,
                      const SP_DeviceMemoryBase* device_src, uint64_t size, TF_Status* status);
  void (*memcpy_htod)(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* device_dst,
                      const void* host_src, uint64_t size, TF_Status* status);
  void (*memcpy_dtod)(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* device_dst,
                      const SP_DeviceMemoryBase* device_src, uint64_t size, TF_Status* status);
  /* ... and the same copies done before returning. */
  void (*sync_memcpy_dtoh)(const SP_Device* device, void* host_dst, const SP_DeviceMemoryBase* device_src,
                           uint64_t size, TF_Status* status);
  void (*sync_memcpy_htod)(const SP_Device* device, SP_DeviceMemoryBase* device_dst, const void* host_src,
                           uint64_t size, TF_Status* status);
  void (*sync_memcpy_dtod)(const SP_Device* device, SP_DeviceMemoryBase* device_dst,
                           const SP_DeviceMemoryBase* device_src, uint64_t size, TF_Status* status);

  /* Waiting on the host. */
  void (*block_host_for_event)(const SP_Device* device, SP_Event event, TF_Status* status);
  void (*block_host_until_done)(const SP_Device* device, SP_Stream stream, TF_Status* status);
  void (*synchronize_all_activity)(const SP_Device* device, TF_Status* status);

  /* Fills enqueued on a stream: zeros, a byte pattern, a 32-bit pattern. */
  void (*mem_zero)(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* location, uint64_t size,
                   TF_Status* status);
  void (*memset)(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* location, uint8_t pattern,
                 uint64_t size, TF_Status* status);
  void (*memset32)(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* location, uint32_t pattern,
                   uint64_t size, TF_Status* status);

  /* Enqueue a host function to run when the stream reaches this point;
   * returns nonzero when it was enqueued. */
  TF_Bool (*host_callback)(const SP_Device* device, SP_Stream stream, SE_StatusCallbackFn callback_fn,
                           void* callback_arg);
} SP_StreamExecutor;

#define SP_STREAMEXECUTOR_STRUCT_SIZE TF_OFFSET_OF_END(SP_StreamExecutor, host_callback)

typedef struct SE_CreateStreamExecutorParams {
  size_t struct_size;
  void* ext;                           /* reserved */
  SP_StreamExecutor* stream_executor;  /* to fill */
} SE_CreateStreamExecutorParams;

#define SE_CREATE_STREAM_EXECUTOR_PARAMS_STRUCT_SIZE TF_OFFSET_OF_END(SE_CreateStreamExecutorParams, stream_executor)

/* The platform (filled by the plugin in SE_InitPlugin). */
typedef struct SP_Platform {
  size_t struct_size;
  void* ext;          /* the plugin's own data */
  const char* name;   /* unique platform name */
  const char* type;   /* device type the devices appear as, e.g. "GPU" or "MY_DEVICE" */
  TF_Bool supports_unified_memory;
  TF_Bool use_bfc_allocator;   /* nonzero: modtensor pools memory from allocate */
  TF_Bool force_memory_growth; /* nonzero: never reserve device memory up front */
} SP_Platform;

#define SP_PLATFORM_STRUCT_SIZE TF_OFFSET_OF_END(SP_Platform, force_memory_growth)

/* Platform-level callbacks (filled by the plugin). Each create_* has a
 * matching destroy_* called at teardown. */
typedef struct SP_PlatformFns {
  size_t struct_size;
  void* ext; /* reserved */
  void (*get_device_count)(const SP_Platform* platform, int* device_count, TF_Status* status);
  void (*create_device)(const SP_Platform* platform, SE_CreateDeviceParams* params, TF_Status* status);
  void (*destroy_device)(const SP_Platform* platform, SP_Device* device);
  void (*create_device_fns)(const SP_Platform* platform, SE_CreateDeviceFnsParams* params, TF_Status* status);
  void (*destroy_device_fns)(const SP_Platform* platform, SP_DeviceFns* device_fns);
  void (*create_stream_executor)(const SP_Platform* platform, SE_CreateStreamExecutorParams* params,
                                 TF_Status* status);
  void (*destroy_stream_executor)(const SP_Platform* platform, SP_StreamExecutor* stream_executor);
  void (*create_timer_fns)(const SP_Platform* platform, SP_TimerFns* timer, TF_Status* status);
  void (*destroy_timer_fns)(const SP_Platform* platform, SP_TimerFns* timer_fns);
} SP_PlatformFns;

#define SP_PLATFORM_FNS_STRUCT_SIZE TF_OFFSET_OF_END(SP_PlatformFns, destroy_timer_fns)

typedef struct SE_PlatformRegistrationParams {
  size_t struct_size;
  void* ext; /* reserved */
  /* StreamExecutor C API version (SE_MAJOR, SE_MINOR, SE_PATCH). */
  int32_t major_version;
  int32_t minor_version;
  int32_t patch_version;
  SP_Platform* platform;        /* to fill */
  SP_PlatformFns* platform_fns; /* to fill */
  void (*destroy_platform)(SP_Platform* platform);             /* set by the plugin */
  void (*destroy_platform_fns)(SP_PlatformFns* platform_fns);  /* set by the plugin */
} SE_PlatformRegistrationParams;

#define SE_PLATFORM_REGISTRATION_PARAMS_STRUCT_SIZE \
  TF_OFFSET_OF_END(SE_PlatformRegistrationParams, destroy_platform_fns)

/* Entry point a device plugin defines (and exports). */
void SE_InitPlugin(SE_PlatformRegistrationParams* params, TF_Status* status);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MODTENSOR_INCLUDE_TENSORFLOW_C_EXPERIMENTAL_STREAM_EXECUTOR_STREAM_EXECUTOR_H_ */
