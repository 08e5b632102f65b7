/* The SP_StreamExecutor of the demo device: memory, streams, events, timers, copies,
 * fills and host callbacks. Every entry point that takes device memory checks that it
 * lies inside a live allocation of that device's arena and reports TF_INVALID_ARGUMENT
 * otherwise, so a host pointer passed as a device pointer never gets read or written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo_device.h"

static DemoDevice* dev_of(const SP_Device* device) { return (DemoDevice*)device->device_handle; }

static int check_device_range(DemoDevice* d, const void* ptr, uint64_t size, const char* what, TF_Status* status) {
  if (ptr != NULL && demo_arena_contains(&d->arena, ptr, size)) return 1;
  char msg[256];
  snprintf(msg, sizeof(msg),
           "demo_device: %s: %p (%llu bytes) is not device memory of " DEMO_DEVICE_TYPE_NAME
           ":%d (a host pointer or memory of another device was passed as a device pointer)",
           what, ptr, (unsigned long long)size, d->ordinal);
  TF_SetStatus(status, TF_INVALID_ARGUMENT, msg);
  return 0;
}

/* A copy's destination may be memory of any live device of the platform (a peer copy). */
static int check_peer_range(DemoDevice* d, const void* ptr, uint64_t size, const char* what, TF_Status* status) {
  for (int i = 0; i < DEMO_DEVICE_COUNT; ++i) {
    DemoDevice* peer = demo_devices[i];
    if (peer != NULL && peer != d && ptr != NULL && demo_arena_contains(&peer->arena, ptr, size)) return 1;
  }
  return check_device_range(d, ptr, size, what, status);
}

static int check_stream(DemoDevice* d, SP_Stream stream, const char* what, TF_Status* status) {
  if (demo_stream_valid(stream) && stream->device == d) return 1;
  char msg[160];
  snprintf(msg, sizeof(msg), "demo_device: %s: not a stream of " DEMO_DEVICE_TYPE_NAME ":%d", what, d->ordinal);
  TF_SetStatus(status, TF_INVALID_ARGUMENT, msg);
  return 0;
}

/* ---- memory ---- */

static void se_allocate(const SP_Device* device, uint64_t size, int64_t memory_space, SP_DeviceMemoryBase* mem) {
  mem->struct_size = SP_DEVICE_MEMORY_BASE_STRUCT_SIZE;
  mem->opaque = memory_space == 0 ? demo_arena_allocate(&dev_of(device)->arena, size) : NULL;
  mem->size = mem->opaque != NULL ? size : 0;
  mem->payload = 0;
}

typedef struct BlockFree {
  DemoDevice* device;
  void* ptr;
} BlockFree;

static void free_block(void* arg) {
  BlockFree* f = arg;
  if (!demo_arena_free(&f->device->arena, f->ptr))
    fprintf(stderr, "demo_device: deallocate of %p, which is not a live allocation of " DEMO_DEVICE_TYPE_NAME ":%d\n",
            f->ptr, f->device->ordinal);
  free(f);
}

static void se_deallocate(const SP_Device* device, SP_DeviceMemoryBase* memory) {
  if (memory == NULL || memory->opaque == NULL) return;
  DemoDevice* d = dev_of(device);
  BlockFree* f = malloc(sizeof(*f));
  if (f == NULL) { /* cannot defer: wait for the device, then free */
    TF_Status* status = TF_NewStatus();
    demo_device_synchronize(d, status);
    TF_DeleteStatus(status);
    demo_arena_free(&d->arena, memory->opaque);
  } else {
    f->device = d;
    f->ptr = memory->opaque;
    /* Work already enqueued may still use this memory, as on a GPU: the block goes back to
     * the arena once the streams busy now have drained up to this point. Never blocks, so
     * it is safe from a host callback running on one of the streams. */
    demo_device_defer(d, free_block, f);
  }
  memory->opaque = NULL;
  memory->size = 0;
}

static void* se_host_memory_allocate(const SP_Device* device, uint64_t size) {
  (void)device;
  void* p = NULL;
  return posix_memalign(&p, DEMO_ALIGNMENT, size == 0 ? 1 : size) == 0 ? p : NULL;
}

static void se_host_memory_deallocate(const SP_Device* device, void* mem) {
  (void)device;
  free(mem);
}

static TF_Bool se_get_allocator_stats(const SP_Device* device, SP_AllocatorStats* stats) {
  SP_AllocatorStats full;
  memset(&full, 0, sizeof(full));
  demo_arena_stats(&dev_of(device)->arena, &full);
  size_t size = stats->struct_size;
  if (size > SP_ALLOCATORSTATS_STRUCT_SIZE) size = SP_ALLOCATORSTATS_STRUCT_SIZE;
  if (size <= sizeof(size_t)) return 0;
  /* Fill only the members the caller's struct has. */
  memcpy((char*)stats + sizeof(size_t), (char*)&full + sizeof(size_t), size - sizeof(size_t));
  return 1;
}

static TF_Bool se_device_memory_usage(const SP_Device* device, int64_t* free_bytes, int64_t* total) {
  SP_AllocatorStats s;
  memset(&s, 0, sizeof(s));
  demo_arena_stats(&dev_of(device)->arena, &s);
  *total = s.bytes_limit;
  *free_bytes = s.bytes_limit - s.bytes_in_use;
  return 1;
}

/* ---- streams ---- */

static void se_create_stream(const SP_Device* device, SP_Stream* stream, TF_Status* status) {
  *stream = demo_stream_create(dev_of(device), status);
}

static void se_destroy_stream(const SP_Device* device, SP_Stream stream) {
  (void)device;
  demo_stream_destroy(stream);
}

static void se_create_stream_dependency(const SP_Device* device, SP_Stream dependent, SP_Stream other,
                                        TF_Status* status) {
  DemoDevice* d = dev_of(device);
  if (!check_stream(d, dependent, "create_stream_dependency", status) ||
      !check_stream(d, other, "create_stream_dependency", status))
    return;
  SP_Event e = demo_event_create();
  if (e == NULL) {
    TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "demo_device: out of host memory");
    return;
  }
  demo_event_record(other, e, status);
  if (TF_GetCode(status) == TF_OK) demo_event_wait_on_stream(dependent, e, status);
  demo_event_release(e); /* the queued record and wait hold their own references */
}

static void se_get_stream_status(const SP_Device* device, SP_Stream stream, TF_Status* status) {
  if (!check_stream(dev_of(device), stream, "get_stream_status", status)) return;
  demo_stream_status(stream, status);
}

/* ---- events ---- */

static void se_create_event(const SP_Device* device, SP_Event* event, TF_Status* status) {
  (void)device;
  *event = demo_event_create();
  if (*event == NULL) {
    TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "demo_device: out of host memory creating an event");
  } else {
    TF_SetStatus(status, TF_OK, "");
  }
}

static void se_destroy_event(const SP_Device* device, SP_Event event) {
  (void)device;
  if (event != NULL) demo_event_release(event);
}

static SE_EventStatus se_get_event_status(const SP_Device* device, SP_Event event) {
  (void)device;
  return demo_event_status(event);
}

static void se_record_event(const SP_Device* device, SP_Stream stream, SP_Event event, TF_Status* status) {
  if (!check_stream(dev_of(device), stream, "record_event", status)) return;
  demo_event_record(stream, event, status);
}

static void se_wait_for_event(const SP_Device* const device, SP_Stream stream, SP_Event event,
                              TF_Status* const status) {
  if (!check_stream(dev_of(device), stream, "wait_for_event", status)) return;
  demo_event_wait_on_stream(stream, event, status);
}

/* ---- timers ---- */

static void se_create_timer(const SP_Device* device, SP_Timer* timer, TF_Status* status) {
  (void)device;
  *timer = calloc(1, sizeof(**timer));
  if (*timer == NULL) {
    TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "demo_device: out of host memory creating a timer");
  } else {
    TF_SetStatus(status, TF_OK, "");
  }
}

static void se_destroy_timer(const SP_Device* device, SP_Timer timer) {
  (void)device;
  free(timer);
}

static void run_timer_start(void* arg, TF_Status* status) {
  SP_Timer t = arg;
  (void)status;
  t->start_ns = demo_now_ns();
  t->started = 1;
  t->stopped = 0;
}

static void run_timer_stop(void* arg, TF_Status* status) {
  SP_Timer t = arg;
  (void)status;
  t->stop_ns = demo_now_ns();
  t->stopped = 1;
}

static void se_start_timer(const SP_Device* device, SP_Stream stream, SP_Timer timer, TF_Status* status) {
  if (!check_stream(dev_of(device), stream, "start_timer", status)) return;
  demo_stream_enqueue(stream, run_timer_start, NULL, timer, status);
}

static void se_stop_timer(const SP_Device* device, SP_Stream stream, SP_Timer timer, TF_Status* status) {
  if (!check_stream(dev_of(device), stream, "stop_timer", status)) return;
  demo_stream_enqueue(stream, run_timer_stop, NULL, timer, status);
}

/* ---- copies and fills ---- */

typedef struct Copy {
  void* dst;
  const void* src;
  uint64_t size;
  uint32_t pattern;
  int kind; /* 0 copy, 1 byte fill, 2 32-bit fill */
} Copy;

static void run_copy(void* arg, TF_Status* status) {
  Copy* c = arg;
  (void)status;
  if (c->kind == 0) {
    memmove(c->dst, c->src, c->size);
  } else if (c->kind == 1) {
    memset(c->dst, (int)c->pattern, c->size);
  } else {
    uint32_t* p = c->dst;
    for (uint64_t i = 0; i < c->size / 4; ++i) p[i] = c->pattern;
  }
}

static void enqueue_copy(DemoStream* s, void* dst, const void* src, uint64_t size, int kind, uint32_t pattern,
                         TF_Status* status) {
  Copy* c = malloc(sizeof(*c));
  if (c == NULL) {
    TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "demo_device: out of host memory enqueueing a copy");
    return;
  }
  c->dst = dst;
  c->src = src;
  c->size = size;
  c->kind = kind;
  c->pattern = pattern;
  demo_stream_enqueue(s, run_copy, free, c, status);
}

static int check_host(const void* ptr, uint64_t size, const char* what, TF_Status* status) {
  if (ptr != NULL || size == 0) return 1;
  char msg[128];
  snprintf(msg, sizeof(msg), "demo_device: %s: the host buffer is NULL", what);
  TF_SetStatus(status, TF_INVALID_ARGUMENT, msg);
  return 0;
}

static void se_memcpy_dtoh(const SP_Device* device, SP_Stream stream, void* host_dst,
                           const SP_DeviceMemoryBase* device_src, uint64_t size, TF_Status* status) {
  DemoDevice* d = dev_of(device);
  if (!check_stream(d, stream, "memcpy_dtoh", status) ||
      !check_device_range(d, device_src->opaque, size, "memcpy_dtoh source", status) ||
      !check_host(host_dst, size, "memcpy_dtoh", status))
    return;
  enqueue_copy(stream, host_dst, device_src->opaque, size, 0, 0, status);
}

static void se_memcpy_htod(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* device_dst,
                           const void* host_src, uint64_t size, TF_Status* status) {
  DemoDevice* d = dev_of(device);
  if (!check_stream(d, stream, "memcpy_htod", status) ||
      !check_device_range(d, device_dst->opaque, size, "memcpy_htod destination", status) ||
      !check_host(host_src, size, "memcpy_htod", status))
    return;
  enqueue_copy(stream, device_dst->opaque, host_src, size, 0, 0, status);
}

static void se_memcpy_dtod(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* device_dst,
                           const SP_DeviceMemoryBase* device_src, uint64_t size, TF_Status* status) {
  DemoDevice* d = dev_of(device);
  if (!check_stream(d, stream, "memcpy_dtod", status) ||
      !check_device_range(d, device_src->opaque, size, "memcpy_dtod source", status) ||
      !check_peer_range(d, device_dst->opaque, size, "memcpy_dtod destination", status))
    return;
  enqueue_copy(stream, device_dst->opaque, device_src->opaque, size, 0, 0, status);
}

static void se_sync_memcpy_dtoh(const SP_Device* device, void* host_dst, const SP_DeviceMemoryBase* device_src,
                                uint64_t size, TF_Status* status) {
  DemoDevice* d = dev_of(device);
  if (!check_device_range(d, device_src->opaque, size, "sync_memcpy_dtoh source", status) ||
      !check_host(host_dst, size, "sync_memcpy_dtoh", status))
    return;
  memcpy(host_dst, device_src->opaque, size);
  TF_SetStatus(status, TF_OK, "");
}

static void se_sync_memcpy_htod(const SP_Device* device, SP_DeviceMemoryBase* device_dst, const void* host_src,
                                uint64_t size, TF_Status* status) {
  DemoDevice* d = dev_of(device);
  if (!check_device_range(d, device_dst->opaque, size, "sync_memcpy_htod destination", status) ||
      !check_host(host_src, size, "sync_memcpy_htod", status))
    return;
  memcpy(device_dst->opaque, host_src, size);
  TF_SetStatus(status, TF_OK, "");
}

static void se_sync_memcpy_dtod(const SP_Device* device, SP_DeviceMemoryBase* device_dst,
                                const SP_DeviceMemoryBase* device_src, uint64_t size, TF_Status* status) {
  DemoDevice* d = dev_of(device);
  if (!check_device_range(d, device_src->opaque, size, "sync_memcpy_dtod source", status) ||
      !check_device_range(d, device_dst->opaque, size, "sync_memcpy_dtod destination", status))
    return;
  memmove(device_dst->opaque, device_src->opaque, size);
  TF_SetStatus(status, TF_OK, "");
}

static void se_mem_zero(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* location, uint64_t size,
                        TF_Status* status) {
  DemoDevice* d = dev_of(device);
  if (!check_stream(d, stream, "mem_zero", status) ||
      !check_device_range(d, location->opaque, size, "mem_zero", status))
    return;
  enqueue_copy(stream, location->opaque, NULL, size, 1, 0, status);
}

static void se_memset(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* location, uint8_t pattern,
                      uint64_t size, TF_Status* status) {
  DemoDevice* d = dev_of(device);
  if (!check_stream(d, stream, "memset", status) || !check_device_range(d, location->opaque, size, "memset", status))
    return;
  enqueue_copy(stream, location->opaque, NULL, size, 1, pattern, status);
}

static void se_memset32(const SP_Device* device, SP_Stream stream, SP_DeviceMemoryBase* location, uint32_t pattern,
                        uint64_t size, TF_Status* status) {
  DemoDevice* d = dev_of(device);
  if (!check_stream(d, stream, "memset32", status) ||
      !check_device_range(d, location->opaque, size, "memset32", status))
    return;
  if (size % 4 != 0) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "demo_device: memset32: size must be a multiple of 4 bytes");
    return;
  }
  enqueue_copy(stream, location->opaque, NULL, size, 2, pattern, status);
}

/* ---- waiting ---- */

static void se_block_host_for_event(const SP_Device* device, SP_Event event, TF_Status* status) {
  (void)device;
  demo_event_block_host(event, status);
}

static void se_block_host_until_done(const SP_Device* device, SP_Stream stream, TF_Status* status) {
  if (!check_stream(dev_of(device), stream, "block_host_until_done", status)) return;
  demo_stream_wait(stream, status);
}

static void se_synchronize_all_activity(const SP_Device* device, TF_Status* status) {
  demo_device_synchronize(dev_of(device), status);
}

/* ---- host callbacks ---- */

typedef struct Callback {
  SE_StatusCallbackFn fn;
  void* arg;
} Callback;

static void run_callback(void* arg, TF_Status* status) {
  Callback* cb = arg;
  cb->fn(cb->arg, status); /* an error it reports becomes the stream's status */
}

static TF_Bool se_host_callback(const SP_Device* device, SP_Stream stream, SE_StatusCallbackFn callback_fn,
                                void* callback_arg) {
  DemoDevice* d = dev_of(device);
  if (callback_fn == NULL || !demo_stream_valid(stream) || stream->device != d) return 0;
  Callback* cb = malloc(sizeof(*cb));
  if (cb == NULL) return 0;
  cb->fn = callback_fn;
  cb->arg = callback_arg;
  TF_Status* status = TF_NewStatus();
  int ok = demo_stream_enqueue(stream, run_callback, free, cb, status);
  TF_DeleteStatus(status);
  return (TF_Bool)ok;
}

void demo_fill_stream_executor(SP_StreamExecutor* se) {
  se->allocate = se_allocate;
  se->deallocate = se_deallocate;
  se->host_memory_allocate = se_host_memory_allocate;
  se->host_memory_deallocate = se_host_memory_deallocate;
  se->unified_memory_allocate = NULL; /* supports_unified_memory is 0 */
  se->unified_memory_deallocate = NULL;
  se->get_allocator_stats = se_get_allocator_stats;
  se->device_memory_usage = se_device_memory_usage;
  se->create_stream = se_create_stream;
  se->destroy_stream = se_destroy_stream;
  se->create_stream_dependency = se_create_stream_dependency;
  se->get_stream_status = se_get_stream_status;
  se->create_event = se_create_event;
  se->destroy_event = se_destroy_event;
  se->get_event_status = se_get_event_status;
  se->record_event = se_record_event;
  se->wait_for_event = se_wait_for_event;
  se->create_timer = se_create_timer;
  se->destroy_timer = se_destroy_timer;
  se->start_timer = se_start_timer;
  se->stop_timer = se_stop_timer;
  se->memcpy_dtoh = se_memcpy_dtoh;
  se->memcpy_htod = se_memcpy_htod;
  se->memcpy_dtod = se_memcpy_dtod;
  se->sync_memcpy_dtoh = se_sync_memcpy_dtoh;
  se->sync_memcpy_htod = se_sync_memcpy_htod;
  se->sync_memcpy_dtod = se_sync_memcpy_dtod;
  se->block_host_for_event = se_block_host_for_event;
  se->block_host_until_done = se_block_host_until_done;
  se->synchronize_all_activity = se_synchronize_all_activity;
  se->mem_zero = se_mem_zero;
  se->memset = se_memset;
  se->memset32 = se_memset32;
  se->host_callback = se_host_callback;
}
