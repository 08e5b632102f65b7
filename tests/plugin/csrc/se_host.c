/* A StreamExecutor test plugin whose "device memory" is host memory and whose
 * streams are synchronous (work runs when it is enqueued). Build options select
 * the cases the tests need:
 *   -DSE_TYPE="X" -DSE_NAME="X"   device type and platform name (default HOSTDEV / HOSTDEV_PLATFORM; both must match [A-Z][A-Z_]*)
 *   -DSE_KERNELS                  also export TF_InitKernel with float AddV2 and Relu kernels
 *   -DSE_MISSING_MEMCPY           leave memcpy_htod unset (a required function)
 *   -DSE_SMALL_PLATFORM           report an SP_Platform too small to hold `type`
 *   -DSE_OLD_EXECUTOR             an SP_StreamExecutor from before mem_zero/memset/memset32
 *   -DSE_FAIL_INIT                SE_InitPlugin reports an error
 *   -DSE_NO_BFC                   use_bfc_allocator = 0 (the plugin's own allocator)
 *   -DSE_NO_TIMER_FNS             leave create_timer_fns/destroy_timer_fns unset (TF 2.21 does not need them)
 *   -DSE_NO_HOST_MEMORY           leave host_memory_allocate/host_memory_deallocate unset (no staging buffers)
 * se_host_memory_counts() (exported) reports the host_memory_allocate calls and the blocks still live.
 * Each device owns SE_MEMORY bytes (default 1 MiB): allocate fails beyond that. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorflow/c/experimental/stream_executor/stream_executor.h"
#include "tensorflow/c/kernels.h"

#ifndef SE_TYPE
#define SE_TYPE "HOSTDEV"
#endif
#ifndef SE_NAME
#define SE_NAME "HOSTDEV_PLATFORM"
#endif
#ifndef SE_MEMORY
#define SE_MEMORY (1 << 20)
#endif
#define NUM_DEVICES 2

typedef struct DeviceState {
  int64_t in_use;
  int64_t peak;
  int64_t num_allocs;
  int64_t largest;
} DeviceState;

static DeviceState g_devices[NUM_DEVICES];
static int g_live_streams, g_live_events, g_live_devices;

struct SP_Stream_st {
  int id;
};
struct SP_Event_st {
  int recorded;
};
struct SP_Timer_st {
  int unused;
};

static DeviceState* state(const SP_Device* d) { return &g_devices[d->ordinal]; }

/* Memory: malloc with a per-device budget; the size lives in a header before the block. */
static void se_allocate(const SP_Device* d, uint64_t size, int64_t space, SP_DeviceMemoryBase* mem) {
  (void)space;
  DeviceState* s = state(d);
  mem->opaque = NULL;
  mem->size = 0;
  if ((int64_t)size + s->in_use > SE_MEMORY) return;
  uint64_t* block = (uint64_t*)malloc(size + 16);
  if (block == NULL) return;
  block[0] = size;
  s->in_use += (int64_t)size;
  if (s->in_use > s->peak) s->peak = s->in_use;
  if ((int64_t)size > s->largest) s->largest = (int64_t)size;
  s->num_allocs++;
  mem->opaque = (char*)block + 16;
  mem->size = size;
}

static void se_deallocate(const SP_Device* d, SP_DeviceMemoryBase* mem) {
  if (mem->opaque == NULL) return;
  uint64_t* block = (uint64_t*)((char*)mem->opaque - 16);
  state(d)->in_use -= (int64_t)block[0];
  free(block);
  mem->opaque = NULL;
}

/* Host memory (staging buffers): counted so the tests can see the runtime's pool at work. */
static int64_t g_host_allocs, g_host_live;

__attribute__((visibility("default"))) void se_host_memory_counts(int64_t* allocs, int64_t* live) {
  *allocs = __atomic_load_n(&g_host_allocs, __ATOMIC_SEQ_CST);
  *live = __atomic_load_n(&g_host_live, __ATOMIC_SEQ_CST);
}

#ifndef SE_NO_HOST_MEMORY
static void* se_host_alloc(const SP_Device* d, uint64_t size) {
  (void)d;
  void* mem = malloc(size);
  if (mem != NULL) {
    __atomic_add_fetch(&g_host_allocs, 1, __ATOMIC_SEQ_CST);
    __atomic_add_fetch(&g_host_live, 1, __ATOMIC_SEQ_CST);
  }
  return mem;
}
static void se_host_free(const SP_Device* d, void* mem) {
  (void)d;
  if (mem != NULL) __atomic_sub_fetch(&g_host_live, 1, __ATOMIC_SEQ_CST);
  free(mem);
}
#endif

static TF_Bool se_stats(const SP_Device* d, SP_AllocatorStats* st) {
  DeviceState* s = state(d);
  st->num_allocs = s->num_allocs;
  st->bytes_in_use = s->in_use;
  st->peak_bytes_in_use = s->peak;
  st->largest_alloc_size = s->largest;
  st->has_bytes_limit = 1;
  st->bytes_limit = SE_MEMORY;
  return 1;
}

static TF_Bool se_usage(const SP_Device* d, int64_t* free_bytes, int64_t* total) {
  *total = SE_MEMORY;
  *free_bytes = SE_MEMORY - state(d)->in_use;
  return 1;
}

static void se_create_stream(const SP_Device* d, SP_Stream* stream, TF_Status* st) {
  (void)d;
  (void)st;
  *stream = (SP_Stream)calloc(1, sizeof(struct SP_Stream_st));
  g_live_streams++;
}
static void se_destroy_stream(const SP_Device* d, SP_Stream stream) {
  (void)d;
  free(stream);
  g_live_streams--;
}
static void se_stream_dep(const SP_Device* d, SP_Stream a, SP_Stream b, TF_Status* st) {
  (void)d, (void)a, (void)b, (void)st;
}
static void se_stream_status(const SP_Device* d, SP_Stream s, TF_Status* st) { (void)d, (void)s, (void)st; }
static void se_create_event(const SP_Device* d, SP_Event* e, TF_Status* st) {
  (void)d, (void)st;
  *e = (SP_Event)calloc(1, sizeof(struct SP_Event_st));
  g_live_events++;
}
static void se_destroy_event(const SP_Device* d, SP_Event e) {
  (void)d;
  free(e);
  g_live_events--;
}
static SE_EventStatus se_event_status(const SP_Device* d, SP_Event e) {
  (void)d;
  return e->recorded ? SE_EVENT_COMPLETE : SE_EVENT_PENDING;
}
static void se_record(const SP_Device* d, SP_Stream s, SP_Event e, TF_Status* st) {
  (void)d, (void)s, (void)st;
  e->recorded = 1;
}
static void se_wait(const SP_Device* const d, SP_Stream s, SP_Event e, TF_Status* const st) {
  (void)d, (void)s, (void)e, (void)st;
}
static void se_create_timer(const SP_Device* d, SP_Timer* t, TF_Status* st) {
  (void)d, (void)st;
  *t = (SP_Timer)calloc(1, sizeof(struct SP_Timer_st));
}
static void se_destroy_timer(const SP_Device* d, SP_Timer t) {
  (void)d;
  free(t);
}
static void se_timer_op(const SP_Device* d, SP_Stream s, SP_Timer t, TF_Status* st) { (void)d, (void)s, (void)t, (void)st; }
static void se_dtoh(const SP_Device* d, SP_Stream s, void* dst, const SP_DeviceMemoryBase* src, uint64_t n,
                    TF_Status* st) {
  (void)d, (void)s, (void)st;
  memcpy(dst, src->opaque, n);
}
static void se_htod(const SP_Device* d, SP_Stream s, SP_DeviceMemoryBase* dst, const void* src, uint64_t n,
                    TF_Status* st) {
  (void)d, (void)s, (void)st;
  memcpy(dst->opaque, src, n);
}
static void se_dtod(const SP_Device* d, SP_Stream s, SP_DeviceMemoryBase* dst, const SP_DeviceMemoryBase* src,
                    uint64_t n, TF_Status* st) {
  (void)d, (void)s, (void)st;
  memcpy(dst->opaque, src->opaque, n);
}
static void se_sync_dtoh(const SP_Device* d, void* dst, const SP_DeviceMemoryBase* src, uint64_t n, TF_Status* st) {
  se_dtoh(d, NULL, dst, src, n, st);
}
static void se_sync_htod(const SP_Device* d, SP_DeviceMemoryBase* dst, const void* src, uint64_t n, TF_Status* st) {
  se_htod(d, NULL, dst, src, n, st);
}
static void se_sync_dtod(const SP_Device* d, SP_DeviceMemoryBase* dst, const SP_DeviceMemoryBase* src, uint64_t n,
                         TF_Status* st) {
  se_dtod(d, NULL, dst, src, n, st);
}
static void se_block_event(const SP_Device* d, SP_Event e, TF_Status* st) { (void)d, (void)e, (void)st; }
static void se_block_stream(const SP_Device* d, SP_Stream s, TF_Status* st) { (void)d, (void)s, (void)st; }
static void se_sync_all(const SP_Device* d, TF_Status* st) { (void)d, (void)st; }
#ifndef SE_OLD_EXECUTOR
static void se_mem_zero(const SP_Device* d, SP_Stream s, SP_DeviceMemoryBase* m, uint64_t n, TF_Status* st) {
  (void)d, (void)s, (void)st;
  memset(m->opaque, 0, n);
}
static void se_memset(const SP_Device* d, SP_Stream s, SP_DeviceMemoryBase* m, uint8_t p, uint64_t n,
                      TF_Status* st) {
  (void)d, (void)s, (void)st;
  memset(m->opaque, p, n);
}
static void se_memset32(const SP_Device* d, SP_Stream s, SP_DeviceMemoryBase* m, uint32_t p, uint64_t n,
                        TF_Status* st) {
  (void)d, (void)s, (void)st;
  for (uint64_t i = 0; i < n / 4; ++i) ((uint32_t*)m->opaque)[i] = p;
}
#endif
static TF_Bool se_host_callback(const SP_Device* d, SP_Stream s, SE_StatusCallbackFn fn, void* arg) {
  (void)d, (void)s;
  TF_Status* st = TF_NewStatus();
  fn(arg, st);
  TF_DeleteStatus(st);
  return 1;
}

/* ---------------------------------------------------------------- platform */

static void get_device_count(const SP_Platform* p, int* count, TF_Status* st) {
  (void)p, (void)st;
  *count = NUM_DEVICES;
}

static void create_device(const SP_Platform* p, SE_CreateDeviceParams* params, TF_Status* st) {
  (void)p, (void)st;
  params->device->struct_size = SP_DEVICE_STRUCT_SIZE;
  params->device->ordinal = params->ordinal;
  params->device->hardware_name = "HostDev Test Accelerator";
  params->device->device_vendor = "modtensor tests";
  params->device->pci_bus_id = params->ordinal == 0 ? "0000:00:01.0" : "0000:00:02.0";
  g_live_devices++;
}
static void destroy_device(const SP_Platform* p, SP_Device* d) {
  (void)p, (void)d;
  g_live_devices--;
}
static void create_device_fns(const SP_Platform* p, SE_CreateDeviceFnsParams* params, TF_Status* st) {
  (void)p, (void)st;
  params->device_fns->struct_size = SP_DEVICE_FNS_STRUCT_SIZE;
}
static void destroy_device_fns(const SP_Platform* p, SP_DeviceFns* f) { (void)p, (void)f; }

static void create_stream_executor(const SP_Platform* p, SE_CreateStreamExecutorParams* params, TF_Status* st) {
  (void)p, (void)st;
  SP_StreamExecutor* se = params->stream_executor;
#ifdef SE_OLD_EXECUTOR
  se->struct_size = offsetof(SP_StreamExecutor, mem_zero);
#else
  se->struct_size = SP_STREAMEXECUTOR_STRUCT_SIZE;
#endif
  se->allocate = se_allocate;
  se->deallocate = se_deallocate;
#ifndef SE_NO_HOST_MEMORY
  se->host_memory_allocate = se_host_alloc;
  se->host_memory_deallocate = se_host_free;
#endif
  se->get_allocator_stats = se_stats;
  se->device_memory_usage = se_usage;
  se->create_stream = se_create_stream;
  se->destroy_stream = se_destroy_stream;
  se->create_stream_dependency = se_stream_dep;
  se->get_stream_status = se_stream_status;
  se->create_event = se_create_event;
  se->destroy_event = se_destroy_event;
  se->get_event_status = se_event_status;
  se->record_event = se_record;
  se->wait_for_event = se_wait;
  se->create_timer = se_create_timer;
  se->destroy_timer = se_destroy_timer;
  se->start_timer = se_timer_op;
  se->stop_timer = se_timer_op;
  se->memcpy_dtoh = se_dtoh;
#ifndef SE_MISSING_MEMCPY
  se->memcpy_htod = se_htod;
#endif
  se->memcpy_dtod = se_dtod;
  se->sync_memcpy_dtoh = se_sync_dtoh;
  se->sync_memcpy_htod = se_sync_htod;
  se->sync_memcpy_dtod = se_sync_dtod;
  se->block_host_for_event = se_block_event;
  se->block_host_until_done = se_block_stream;
  se->synchronize_all_activity = se_sync_all;
#ifndef SE_OLD_EXECUTOR
  se->mem_zero = se_mem_zero;
  se->memset = se_memset;
  se->memset32 = se_memset32;
  se->host_callback = se_host_callback;
#else
  (void)se_host_callback;
#endif
}
static void destroy_stream_executor(const SP_Platform* p, SP_StreamExecutor* se) { (void)p, (void)se; }

static uint64_t timer_ns(SP_Timer t) {
  (void)t;
  return 1000;
}
static void create_timer_fns(const SP_Platform* p, SP_TimerFns* fns, TF_Status* st) {
  (void)p, (void)st;
  fns->struct_size = SP_TIMER_FNS_STRUCT_SIZE;
  fns->nanoseconds = timer_ns;
}
static void destroy_timer_fns(const SP_Platform* p, SP_TimerFns* fns) { (void)p, (void)fns; }
static void destroy_platform(SP_Platform* p) { (void)p; }
static void destroy_platform_fns(SP_PlatformFns* f) { (void)f; }

/* Live plugin objects, for the teardown test: "devices streams events". */
const char* se_host_live_objects(void) {
  static char text[64];
  snprintf(text, sizeof text, "%d %d %d", g_live_devices, g_live_streams, g_live_events);
  return text;
}

void SE_InitPlugin(SE_PlatformRegistrationParams* params, TF_Status* status) {
#ifdef SE_FAIL_INIT
  (void)params;
  TF_SetStatus(status, TF_INTERNAL, "no HostDev hardware found");
  return;
#endif
  params->platform->struct_size = SP_PLATFORM_STRUCT_SIZE;
#ifdef SE_SMALL_PLATFORM
  params->platform->struct_size = offsetof(SP_Platform, type);
#endif
  params->platform->name = SE_NAME;
  params->platform->type = SE_TYPE;
#ifdef SE_NO_BFC
  params->platform->use_bfc_allocator = 0;
#else
  params->platform->use_bfc_allocator = 1;
#endif
  SP_PlatformFns* f = params->platform_fns;
  f->struct_size = SP_PLATFORM_FNS_STRUCT_SIZE;
  f->get_device_count = get_device_count;
  f->create_device = create_device;
  f->destroy_device = destroy_device;
  f->create_device_fns = create_device_fns;
  f->destroy_device_fns = destroy_device_fns;
  f->create_stream_executor = create_stream_executor;
  f->destroy_stream_executor = destroy_stream_executor;
#ifndef SE_NO_TIMER_FNS
  f->create_timer_fns = create_timer_fns;
  f->destroy_timer_fns = destroy_timer_fns;
#else
  (void)create_timer_fns, (void)destroy_timer_fns;
#endif
  params->destroy_platform = destroy_platform;
  params->destroy_platform_fns = destroy_platform_fns;
  (void)status;
}

/* ---------------------------------------------------------------- kernels */
#ifdef SE_KERNELS
static int g_stream_checks_failed;

/* Both kernels read their inputs at the device address the runtime passes and
 * allocate outputs on the device; they require a stream (TF_GetStream). */
static void elementwise(TF_OpKernelContext* ctx, int binary) {
  TF_Status* s = TF_NewStatus();
  SP_Stream stream = TF_GetStream(ctx, s);
  if (TF_GetCode(s) != TF_OK || stream == NULL) {
    g_stream_checks_failed++;
    TF_OpKernelContext_Failure(ctx, s);
    TF_DeleteStatus(s);
    return;
  }
  TF_Tensor *a = NULL, *b = NULL, *out = NULL;
  TF_GetInput(ctx, 0, &a, s);
  if (binary && TF_GetCode(s) == TF_OK) TF_GetInput(ctx, 1, &b, s);
  if (TF_GetCode(s) == TF_OK) {
    int64_t na = TF_TensorElementCount(a), nb = b ? TF_TensorElementCount(b) : na;
    TF_Tensor* big = nb > na ? b : a;
    int nd = TF_NumDims(big);
    int64_t dims[8];
    for (int i = 0; i < nd && i < 8; ++i) dims[i] = TF_Dim(big, i);
    int64_t n = na > nb ? na : nb;
    if (binary && na != nb && na != 1 && nb != 1) {
      TF_SetStatus(s, TF_INVALID_ARGUMENT, "HostDev AddV2 supports equal shapes or a scalar only");
    } else {
      out = TF_AllocateOutput(ctx, 0, TF_FLOAT, dims, nd, (size_t)n * sizeof(float), s);
    }
    if (TF_GetCode(s) == TF_OK) {
      const float* x = (const float*)TF_TensorData(a);
      const float* y = b ? (const float*)TF_TensorData(b) : NULL;
      float* z = (float*)TF_TensorData(out);
      for (int64_t i = 0; i < n; ++i) {
        float xi = x[na == 1 ? 0 : i];
        z[i] = binary ? xi + y[nb == 1 ? 0 : i] : (xi > 0 ? xi : 0.0f);
      }
    }
  }
  if (TF_GetCode(s) != TF_OK) TF_OpKernelContext_Failure(ctx, s);
  TF_DeleteTensor(a);
  TF_DeleteTensor(b);
  TF_DeleteTensor(out);
  TF_DeleteStatus(s);
}

static void add_compute(void* k, TF_OpKernelContext* ctx) {
  (void)k;
  elementwise(ctx, 1);
}
static void relu_compute(void* k, TF_OpKernelContext* ctx) {
  (void)k;
  elementwise(ctx, 0);
}

void TF_InitKernel(void) {
  TF_Status* s = TF_NewStatus();
  TF_KernelBuilder* b = TF_NewKernelBuilder("AddV2", SE_TYPE, NULL, add_compute, NULL);
  TF_KernelBuilder_TypeConstraint(b, "T", TF_FLOAT, s);
  TF_RegisterKernelBuilder("HostDevAddV2", b, s);
  b = TF_NewKernelBuilder("Relu", SE_TYPE, NULL, relu_compute, NULL);
  TF_KernelBuilder_TypeConstraint(b, "T", TF_FLOAT, s);
  TF_RegisterKernelBuilder("HostDevRelu", b, s);
  TF_DeleteStatus(s);
}
#endif
