/* demo_device: an example device plugin written against TensorFlow's C API only
 * (StreamExecutor C API + kernel C API). Internal declarations shared by its files.
 *
 * Model of the "device": each device owns one host-allocated arena that stands in for
 * its memory; every device pointer must lie inside an allocation of that arena, so a
 * host pointer handed over as a device pointer is rejected. Each stream is a worker
 * thread draining a FIFO queue, which makes every enqueued operation (copies, fills,
 * events, timers, callbacks, kernels) asynchronous the way a GPU's are. */
#ifndef DEMO_DEVICE_H_
#define DEMO_DEVICE_H_

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/experimental/stream_executor/stream_executor.h"
#include "tensorflow/c/tf_status.h"

/* The device type, a bare token at build time: -DDEMO_DEVICE_TYPE=GPU registers the
 * devices as GPUs. DEMO_DEVICE_TYPE_NAME is its string. */
#ifndef DEMO_DEVICE_TYPE
#define DEMO_DEVICE_TYPE MY_DEVICE
#endif
#define DEMO_STRINGIFY_(x) #x
#define DEMO_STRINGIFY(x) DEMO_STRINGIFY_(x)
#define DEMO_DEVICE_TYPE_NAME DEMO_STRINGIFY(DEMO_DEVICE_TYPE)
#ifndef DEMO_PLATFORM_NAME
#define DEMO_PLATFORM_NAME "DEMO_DEVICE" /* TensorFlow requires [A-Z][A-Z_]* */
#endif
/* The library is built with -fvisibility=hidden; only the entry points are exported (SE_InitPlugin,
 * TF_InitKernel, and TF_InitGraph when built with the fused optimizer). */
#define DEMO_EXPORT __attribute__((visibility("default")))

#define DEMO_DEVICE_COUNT 2
/* Default arena size per device; DEMO_DEVICE_MEMORY_BYTES in the environment overrides it. */
#define DEMO_DEFAULT_ARENA_BYTES ((uint64_t)256 << 20)
#define DEMO_ALIGNMENT 64

/* ---- arena.c: the device memory of one device ---- */
typedef struct DemoBlock {
  uint64_t offset;
  uint64_t size;
  int in_use;
  struct DemoBlock* next; /* sorted by offset; blocks tile the arena */
} DemoBlock;

typedef struct DemoArena {
  pthread_mutex_t mu;
  char* base;
  uint64_t size;
  DemoBlock* blocks;
  int64_t num_allocs;
  int64_t bytes_in_use;
  int64_t peak_bytes_in_use;
  int64_t largest_alloc_size;
} DemoArena;

int demo_arena_init(DemoArena* arena, uint64_t size);
void demo_arena_destroy(DemoArena* arena);
void* demo_arena_allocate(DemoArena* arena, uint64_t size);
/* 0 when `ptr` is not the start of a live allocation. */
int demo_arena_free(DemoArena* arena, void* ptr);
/* Nonzero when [ptr, ptr + len) lies inside one live allocation. */
int demo_arena_contains(DemoArena* arena, const void* ptr, uint64_t len);
void demo_arena_stats(DemoArena* arena, SP_AllocatorStats* stats);
int64_t demo_arena_largest_free(DemoArena* arena);

/* ---- stream.c: streams (worker threads), events, timers ---- */
struct SP_Stream_st;

typedef struct DemoDevice {
  int ordinal;
  DemoArena arena;
  pthread_mutex_t mu;            /* guards `streams` */
  struct SP_Stream_st** streams;   /* live streams of this device */
  int num_streams, cap_streams;
  char hardware_name[64];
  char pci_bus_id[32];
} DemoDevice;

/* The live devices by ordinal (platform.c): memcpy_dtod may write to a peer device of the
 * platform, as TensorFlow's device-to-device copies do (source device's stream, peer destination). */
extern DemoDevice* demo_devices[DEMO_DEVICE_COUNT];

/* A unit of work on a stream: run(arg, status) on the worker thread; on error it sets
 * `status`, which becomes the stream's (sticky) status. cleanup(arg) frees the capture. */
typedef void (*DemoWorkFn)(void* arg, TF_Status* status);
typedef void (*DemoCleanupFn)(void* arg);

#define DEMO_STREAM_MAGIC 0x44454d4f53545245ull /* "DEMOSTRE" */

typedef struct DemoWork {
  DemoWorkFn run;
  DemoCleanupFn cleanup;
  void* arg;
  struct DemoWork* next;
} DemoWork;

struct SP_Stream_st {
  uint64_t magic;
  DemoDevice* device;
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv_work; /* signalled when work arrives or on shutdown */
  pthread_cond_t cv_done; /* signalled when work completes */
  DemoWork *head, *tail;
  uint64_t enqueued, completed;
  int shutdown;
  TF_Code error_code; /* first error seen on the stream (TF_OK if none) */
  char error_message[256];
};
typedef struct SP_Stream_st DemoStream;

struct SP_Event_st {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  SE_EventStatus state;
  int refs; /* the owner plus pending stream operations that use it */
};

struct SP_Timer_st {
  uint64_t start_ns, stop_ns;
  int started, stopped;
};

DemoStream* demo_stream_create(DemoDevice* device, TF_Status* status);
void demo_stream_destroy(DemoStream* stream);
/* Takes ownership of `arg` (cleanup runs after `run`, or at once on failure). */
int demo_stream_enqueue(DemoStream* stream, DemoWorkFn run, DemoCleanupFn cleanup, void* arg, TF_Status* status);
void demo_stream_wait(DemoStream* stream, TF_Status* status);
void demo_stream_status(DemoStream* stream, TF_Status* status);
void demo_device_synchronize(DemoDevice* device, TF_Status* status);
/* Runs fn(arg) once the work queued on the device's streams so far is done: at once when
 * they are idle, otherwise on the worker of the last stream to get there. Never blocks. */
void demo_device_defer(DemoDevice* device, void (*fn)(void*), void* arg);
/* Nonzero when `stream` is a live stream made by this plugin. */
int demo_stream_valid(SP_Stream stream);

SP_Event demo_event_create(void);
void demo_event_release(SP_Event event);
void demo_event_record(DemoStream* stream, SP_Event event, TF_Status* status);
void demo_event_wait_on_stream(DemoStream* stream, SP_Event event, TF_Status* status);
void demo_event_block_host(SP_Event event, TF_Status* status);
SE_EventStatus demo_event_status(SP_Event event);

uint64_t demo_now_ns(void);

/* ---- stream_executor.c ---- */
void demo_fill_stream_executor(SP_StreamExecutor* se);

#ifdef DEMO_WITH_FUSED_OPTIMIZER
/* ---- fused_kernel.c (make WITH_FUSED_OPTIMIZER=1): the fused op and its kernel for the device ---- */
void demo_register_fused_kernel(TF_Status* status);
#endif

/* ---- variable_kernels.c: AssignAddVariableOp, AssignSubVariableOp, ResourceApplyGradientDescent ---- */
void demo_register_variable_kernels(TF_Status* status);

#endif /* DEMO_DEVICE_H_ */
