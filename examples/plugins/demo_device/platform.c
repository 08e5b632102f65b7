/* SE_InitPlugin and the platform-level callbacks of the demo device: two devices of type
 * DEMO_DEVICE_TYPE ("MY_DEVICE" by default; build with -DDEMO_DEVICE_TYPE=GPU to appear
 * as a GPU), each with its own memory arena. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo_device.h"

static uint64_t arena_bytes(void) {
  const char* env = getenv("DEMO_DEVICE_MEMORY_BYTES");
  if (env != NULL && *env != '\0') {
    char* end = NULL;
    unsigned long long v = strtoull(env, &end, 10);
    if (end != NULL && *end == '\0' && v >= 4096) return v;
  }
  return DEMO_DEFAULT_ARENA_BYTES;
}

static void get_device_count(const SP_Platform* platform, int* device_count, TF_Status* status) {
  (void)platform;
  *device_count = DEMO_DEVICE_COUNT;
  TF_SetStatus(status, TF_OK, "");
}

static void create_device(const SP_Platform* platform, SE_CreateDeviceParams* params, TF_Status* status) {
  (void)platform;
  if (params->ordinal < 0 || params->ordinal >= DEMO_DEVICE_COUNT) {
    char msg[128];
    snprintf(msg, sizeof(msg), "demo_device: no device with ordinal %d (there are %d)", (int)params->ordinal,
             DEMO_DEVICE_COUNT);
    TF_SetStatus(status, TF_INVALID_ARGUMENT, msg);
    return;
  }
  if (params->device == NULL || params->device->struct_size < SP_DEVICE_STRUCT_SIZE) {
    TF_SetStatus(status, TF_FAILED_PRECONDITION,
                 "demo_device: create_device needs an SP_Device of at least SP_DEVICE_STRUCT_SIZE bytes");
    return;
  }
  DemoDevice* d = calloc(1, sizeof(*d));
  uint64_t bytes = arena_bytes();
  if (d == NULL || !demo_arena_init(&d->arena, bytes)) {
    free(d);
    char msg[160];
    snprintf(msg, sizeof(msg), "demo_device: cannot reserve %llu bytes of memory for " DEMO_DEVICE_TYPE_NAME ":%d",
             (unsigned long long)bytes, (int)params->ordinal);
    TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, msg);
    return;
  }
  d->ordinal = params->ordinal;
  demo_devices[d->ordinal] = d;
  pthread_mutex_init(&d->mu, NULL);
  snprintf(d->hardware_name, sizeof(d->hardware_name), "Demo Device %d (host arena)", d->ordinal);
  snprintf(d->pci_bus_id, sizeof(d->pci_bus_id), "0000:%02x:00.0", 0x10 + d->ordinal);
  SP_Device* out = params->device;
  out->struct_size = SP_DEVICE_STRUCT_SIZE;
  out->ext = NULL;
  out->ordinal = params->ordinal;
  out->device_handle = d;
  out->hardware_name = d->hardware_name;
  out->device_vendor = "modtensor examples";
  out->pci_bus_id = d->pci_bus_id;
  TF_SetStatus(status, TF_OK, "");
}

DemoDevice* demo_devices[DEMO_DEVICE_COUNT];

static void destroy_device(const SP_Platform* platform, SP_Device* device) {
  (void)platform;
  DemoDevice* d = device->device_handle;
  if (d == NULL) return;
  if (d->num_streams > 0)
    fprintf(stderr, "demo_device: " DEMO_DEVICE_TYPE_NAME ":%d destroyed with %d live streams\n", d->ordinal,
            d->num_streams);
  if (d->ordinal >= 0 && d->ordinal < DEMO_DEVICE_COUNT && demo_devices[d->ordinal] == d) demo_devices[d->ordinal] = NULL;
  demo_arena_destroy(&d->arena);
  pthread_mutex_destroy(&d->mu);
  free(d->streams);
  free(d);
  device->device_handle = NULL;
}

/* Nominal figures: the "device" is the host CPU. */
static int32_t get_numa_node(const SP_Device* device) {
  (void)device;
  return 0;
}
static int64_t get_memory_bandwidth(const SP_Device* device) {
  (void)device;
  return (int64_t)10 << 30;
}
static double get_gflops(const SP_Device* device) {
  (void)device;
  return 10.0;
}

static void create_device_fns(const SP_Platform* platform, SE_CreateDeviceFnsParams* params, TF_Status* status) {
  (void)platform;
  SP_DeviceFns* fns = params->device_fns;
  fns->struct_size = SP_DEVICE_FNS_STRUCT_SIZE;
  fns->ext = NULL;
  fns->get_numa_node = get_numa_node;
  fns->get_memory_bandwidth = get_memory_bandwidth;
  fns->get_gflops = get_gflops;
  TF_SetStatus(status, TF_OK, "");
}

static void destroy_device_fns(const SP_Platform* platform, SP_DeviceFns* device_fns) {
  (void)platform;
  (void)device_fns;
}

static void create_stream_executor(const SP_Platform* platform, SE_CreateStreamExecutorParams* params,
                                   TF_Status* status) {
  (void)platform;
  SP_StreamExecutor* se = params->stream_executor;
  se->struct_size = SP_STREAMEXECUTOR_STRUCT_SIZE;
  se->ext = NULL;
  demo_fill_stream_executor(se);
  TF_SetStatus(status, TF_OK, "");
}

static void destroy_stream_executor(const SP_Platform* platform, SP_StreamExecutor* stream_executor) {
  (void)platform;
  (void)stream_executor;
}

static uint64_t timer_nanoseconds(SP_Timer timer) {
  if (timer == NULL || !timer->started || !timer->stopped || timer->stop_ns < timer->start_ns) return 0;
  return timer->stop_ns - timer->start_ns;
}

static void create_timer_fns(const SP_Platform* platform, SP_TimerFns* timer, TF_Status* status) {
  (void)platform;
  timer->struct_size = SP_TIMER_FNS_STRUCT_SIZE;
  timer->ext = NULL;
  timer->nanoseconds = timer_nanoseconds;
  TF_SetStatus(status, TF_OK, "");
}

static void destroy_timer_fns(const SP_Platform* platform, SP_TimerFns* timer_fns) {
  (void)platform;
  (void)timer_fns;
}

static void destroy_platform(SP_Platform* platform) { (void)platform; }

static void destroy_platform_fns(SP_PlatformFns* platform_fns) { (void)platform_fns; }

DEMO_EXPORT void SE_InitPlugin(SE_PlatformRegistrationParams* params, TF_Status* status) {
  if (params->major_version != SE_MAJOR) {
    char msg[160];
    snprintf(msg, sizeof(msg), "demo_device: built for StreamExecutor C API %d.x, the runtime offers %d.%d.%d",
             SE_MAJOR, (int)params->major_version, (int)params->minor_version, (int)params->patch_version);
    TF_SetStatus(status, TF_FAILED_PRECONDITION, msg);
    return;
  }
  SP_Platform* platform = params->platform;
  platform->struct_size = SP_PLATFORM_STRUCT_SIZE;
  platform->ext = NULL;
  platform->name = DEMO_PLATFORM_NAME;
  platform->type = DEMO_DEVICE_TYPE_NAME;
  platform->supports_unified_memory = 0;
  /* The arena is the allocator: the runtime's pool would hide the plugin's own stats. */
  platform->use_bfc_allocator = 0;
  platform->force_memory_growth = 0;

  SP_PlatformFns* fns = params->platform_fns;
  fns->struct_size = SP_PLATFORM_FNS_STRUCT_SIZE;
  fns->ext = NULL;
  fns->get_device_count = get_device_count;
  fns->create_device = create_device;
  fns->destroy_device = destroy_device;
  fns->create_device_fns = create_device_fns;
  fns->destroy_device_fns = destroy_device_fns;
  fns->create_stream_executor = create_stream_executor;
  fns->destroy_stream_executor = destroy_stream_executor;
  fns->create_timer_fns = create_timer_fns;
  fns->destroy_timer_fns = destroy_timer_fns;

  params->destroy_platform = destroy_platform;
  params->destroy_platform_fns = destroy_platform_fns;
  TF_SetStatus(status, TF_OK, "");
}
