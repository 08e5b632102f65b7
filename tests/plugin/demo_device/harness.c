/* Standalone test of the demo device plugin (examples/plugins/demo_device), driving it the
 * way a runtime does: dlopen the library, call SE_InitPlugin with registration params
 * filled like TensorFlow/modtensor fill them, create both devices, stream executors and
 * streams, and exercise memory, copies, events, callbacks, timers, errors, stress and
 * teardown; then TF_InitKernel and every kernel against TensorFlow's goldens, through the
 * fake runtime of fake_tf.c. Prints "ok <checks>" when every check passed.
 *
 * usage: harness PLUGIN.so EXPECTED_DEVICE_TYPE */
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fake_tf.h"
#include "goldens.h"

static int checks = 0, failures = 0;
#define CHECK(cond)                                                              \
  do {                                                                           \
    ++checks;                                                                    \
    if (!(cond)) {                                                               \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                                \
    }                                                                            \
  } while (0)
#define CHECK_OK(st)                                                                                      \
  do {                                                                                                    \
    ++checks;                                                                                             \
    if (TF_GetCode(st) != TF_OK) {                                                                        \
      fprintf(stderr, "%s:%d: status not OK: %d %s\n", __FILE__, __LINE__, TF_GetCode(st), TF_Message(st)); \
      ++failures;                                                                                         \
    }                                                                                                     \
  } while (0)

static SP_Platform platform;
static SP_PlatformFns pfns;
static SE_PlatformRegistrationParams reg;
static SP_Device devices[2];
static SP_DeviceFns device_fns[2];
static SP_StreamExecutor se[2];
static SP_TimerFns timer_fns;
static const char* expected_type;

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static SP_DeviceMemoryBase alloc(int d, uint64_t size) {
  SP_DeviceMemoryBase m = {SP_DEVICE_MEMORY_BASE_STRUCT_SIZE, NULL, NULL, 0, 0};
  se[d].allocate(&devices[d], size, 0, &m);
  return m;
}

static SP_DeviceMemoryBase host_as_device(void* p, uint64_t size) {
  SP_DeviceMemoryBase m = {SP_DEVICE_MEMORY_BASE_STRUCT_SIZE, NULL, p, size, 0};
  return m;
}

static SP_AllocatorStats stats_of(int d) {
  SP_AllocatorStats s;
  memset(&s, 0, sizeof(s));
  s.struct_size = SP_ALLOCATORSTATS_STRUCT_SIZE;
  CHECK(se[d].get_allocator_stats(&devices[d], &s));
  return s;
}

/* ---- a gate: a host callback that holds its stream until opened ---- */
typedef struct Gate {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int open;
} Gate;

static void gate_init(Gate* g) {
  pthread_mutex_init(&g->mu, NULL);
  pthread_cond_init(&g->cv, NULL);
  g->open = 0;
}
static void gate_wait(void* arg, TF_Status* st) {
  Gate* g = arg;
  (void)st;
  pthread_mutex_lock(&g->mu);
  while (!g->open) pthread_cond_wait(&g->cv, &g->mu);
  pthread_mutex_unlock(&g->mu);
}
static void gate_open(Gate* g) {
  pthread_mutex_lock(&g->mu);
  g->open = 1;
  pthread_cond_broadcast(&g->cv);
  pthread_mutex_unlock(&g->mu);
}
static void gate_destroy(Gate* g) {
  pthread_mutex_destroy(&g->mu);
  pthread_cond_destroy(&g->cv);
}

/* ---- platform and devices ---- */

static void test_init(void* lib) {
  void (*init)(SE_PlatformRegistrationParams*, TF_Status*) = (void (*)(SE_PlatformRegistrationParams*, TF_Status*))dlsym(lib, "SE_InitPlugin");
  CHECK(init != NULL);
  TF_Status* st = TF_NewStatus();
  /* A runtime of another major version is refused. */
  SP_Platform p2 = {SP_PLATFORM_STRUCT_SIZE, 0, 0, 0, 0, 0, 0};
  SP_PlatformFns f2 = {SP_PLATFORM_FNS_STRUCT_SIZE, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  SE_PlatformRegistrationParams r2 = {SE_PLATFORM_REGISTRATION_PARAMS_STRUCT_SIZE, NULL, SE_MAJOR + 1, 0, 0, &p2, &f2,
                                      NULL, NULL};
  init(&r2, st);
  CHECK(TF_GetCode(st) == TF_FAILED_PRECONDITION);

  platform.struct_size = SP_PLATFORM_STRUCT_SIZE;
  pfns.struct_size = SP_PLATFORM_FNS_STRUCT_SIZE;
  reg.struct_size = SE_PLATFORM_REGISTRATION_PARAMS_STRUCT_SIZE;
  reg.major_version = SE_MAJOR;
  reg.minor_version = SE_MINOR;
  reg.patch_version = SE_PATCH;
  reg.platform = &platform;
  reg.platform_fns = &pfns;
  init(&reg, st);
  CHECK_OK(st);
  CHECK(platform.struct_size == SP_PLATFORM_STRUCT_SIZE);
  CHECK(platform.name != NULL && strcmp(platform.name, "DEMO_DEVICE") == 0);
  CHECK(platform.type != NULL && strcmp(platform.type, expected_type) == 0);
  CHECK(!platform.supports_unified_memory);
  CHECK(pfns.struct_size == SP_PLATFORM_FNS_STRUCT_SIZE);
  CHECK(pfns.get_device_count && pfns.create_device && pfns.destroy_device && pfns.create_device_fns &&
        pfns.destroy_device_fns && pfns.create_stream_executor && pfns.destroy_stream_executor &&
        pfns.create_timer_fns && pfns.destroy_timer_fns);
  CHECK(reg.destroy_platform != NULL && reg.destroy_platform_fns != NULL);

  int count = 0;
  pfns.get_device_count(&platform, &count, st);
  CHECK_OK(st);
  CHECK(count == 2);

  for (int d = 0; d < 2; ++d) {
    devices[d].struct_size = SP_DEVICE_STRUCT_SIZE;
    SE_CreateDeviceParams dp = {SE_CREATE_DEVICE_PARAMS_STRUCT_SIZE, NULL, d, &devices[d]};
    pfns.create_device(&platform, &dp, st);
    CHECK_OK(st);
    CHECK(devices[d].struct_size == SP_DEVICE_STRUCT_SIZE && devices[d].ordinal == d);
    CHECK(devices[d].hardware_name && devices[d].device_vendor && devices[d].pci_bus_id);
    CHECK(devices[d].device_handle != NULL);

    device_fns[d].struct_size = SP_DEVICE_FNS_STRUCT_SIZE;
    SE_CreateDeviceFnsParams fp = {SE_CREATE_DEVICE_FNS_PARAMS_STRUCT_SIZE, NULL, &device_fns[d]};
    pfns.create_device_fns(&platform, &fp, st);
    CHECK_OK(st);
    CHECK(device_fns[d].struct_size == SP_DEVICE_FNS_STRUCT_SIZE);
    CHECK(device_fns[d].get_numa_node(&devices[d]) >= 0);
    CHECK(device_fns[d].get_memory_bandwidth(&devices[d]) > 0);
    CHECK(device_fns[d].get_gflops(&devices[d]) > 0.0);

    se[d].struct_size = SP_STREAMEXECUTOR_STRUCT_SIZE;
    SE_CreateStreamExecutorParams sp = {SE_CREATE_STREAM_EXECUTOR_PARAMS_STRUCT_SIZE, NULL, &se[d]};
    pfns.create_stream_executor(&platform, &sp, st);
    CHECK_OK(st);
    CHECK(se[d].struct_size == SP_STREAMEXECUTOR_STRUCT_SIZE);
    /* Every member but the unified-memory pair (the platform does not support it) is set. */
    void (**fn)(void) = (void (**)(void))((char*)&se[d] + offsetof(SP_StreamExecutor, allocate));
    void (**end)(void) = (void (**)(void))((char*)&se[d] + SP_STREAMEXECUTOR_STRUCT_SIZE);
    int missing = 0;
    for (; fn < end; ++fn)
      if (*fn == NULL) ++missing;
    CHECK(missing == 2 && se[d].unified_memory_allocate == NULL);
  }
  CHECK(strcmp(devices[0].pci_bus_id, devices[1].pci_bus_id) != 0);

  SP_Device bad = {SP_DEVICE_STRUCT_SIZE, NULL, 0, NULL, NULL, NULL, NULL};
  SE_CreateDeviceParams bp = {SE_CREATE_DEVICE_PARAMS_STRUCT_SIZE, NULL, 2, &bad};
  pfns.create_device(&platform, &bp, st);
  CHECK(TF_GetCode(st) == TF_INVALID_ARGUMENT);

  timer_fns.struct_size = SP_TIMER_FNS_STRUCT_SIZE;
  pfns.create_timer_fns(&platform, &timer_fns, st);
  CHECK_OK(st);
  CHECK(timer_fns.struct_size == SP_TIMER_FNS_STRUCT_SIZE && timer_fns.nanoseconds != NULL);
  TF_DeleteStatus(st);
}

/* ---- memory, copies, events ---- */

static void test_memory_and_copies(void) {
  TF_Status* st = TF_NewStatus();
  SP_AllocatorStats base = stats_of(0);
  CHECK(base.has_bytes_limit && base.bytes_limit > 0);
  int64_t free0 = 0, total0 = 0;
  CHECK(se[0].device_memory_usage(&devices[0], &free0, &total0));
  CHECK(total0 == base.bytes_limit && free0 == total0 - base.bytes_in_use);

  enum { N = 1 << 18 };
  SP_DeviceMemoryBase a = alloc(0, N * sizeof(float)), b = alloc(0, N * sizeof(float));
  CHECK(a.opaque != NULL && b.opaque != NULL && a.size == N * sizeof(float));
  SP_AllocatorStats s1 = stats_of(0);
  CHECK(s1.bytes_in_use >= base.bytes_in_use + 2 * (int64_t)(N * sizeof(float)));
  CHECK(s1.num_allocs == base.num_allocs + 2);
  CHECK(s1.peak_bytes_in_use >= s1.bytes_in_use && s1.largest_alloc_size >= (int64_t)(N * sizeof(float)));
  int64_t free1 = 0, total1 = 0;
  se[0].device_memory_usage(&devices[0], &free1, &total1);
  CHECK(free1 == free0 - (s1.bytes_in_use - base.bytes_in_use));

  float* src = se[0].host_memory_allocate(&devices[0], N * sizeof(float));
  float* dst = malloc(N * sizeof(float));
  for (int i = 0; i < N; ++i) src[i] = (float)i * 0.5f;
  memset(dst, 0, N * sizeof(float));

  SP_Stream s = NULL;
  se[0].create_stream(&devices[0], &s, st);
  CHECK_OK(st);
  SP_Event ev = NULL;
  se[0].create_event(&devices[0], &ev, st);
  CHECK_OK(st);
  CHECK(se[0].get_event_status(&devices[0], ev) == SE_EVENT_UNKNOWN);

  /* A gate at the head of the stream shows the work really is queued, not done inline. */
  Gate gate;
  gate_init(&gate);
  CHECK(se[0].host_callback(&devices[0], s, gate_wait, &gate));
  se[0].memcpy_htod(&devices[0], s, &a, src, N * sizeof(float), st);
  CHECK_OK(st);
  se[0].memcpy_dtod(&devices[0], s, &b, &a, N * sizeof(float), st);
  CHECK_OK(st);
  se[0].memcpy_dtoh(&devices[0], s, dst, &b, N * sizeof(float), st);
  CHECK_OK(st);
  se[0].record_event(&devices[0], s, ev, st);
  CHECK_OK(st);
  sleep_ms(20);
  CHECK(se[0].get_event_status(&devices[0], ev) == SE_EVENT_PENDING);
  CHECK(dst[N - 1] == 0.0f);
  gate_open(&gate);
  se[0].block_host_for_event(&devices[0], ev, st);
  CHECK_OK(st);
  CHECK(se[0].get_event_status(&devices[0], ev) == SE_EVENT_COMPLETE);
  CHECK(memcmp(src, dst, N * sizeof(float)) == 0);

  /* Fills. */
  uint32_t words[8];
  se[0].memset(&devices[0], s, &a, 0xAB, 16, st);
  CHECK_OK(st);
  se[0].memset32(&devices[0], s, &b, 0xDEADBEEFu, 32, st);
  CHECK_OK(st);
  se[0].memset32(&devices[0], s, &b, 1u, 6, st);
  CHECK(TF_GetCode(st) == TF_INVALID_ARGUMENT);
  se[0].block_host_until_done(&devices[0], s, st);
  CHECK_OK(st);
  se[0].sync_memcpy_dtoh(&devices[0], words, &a, 16, st);
  CHECK_OK(st);
  CHECK(words[0] == 0xABABABABu && words[3] == 0xABABABABu);
  se[0].sync_memcpy_dtoh(&devices[0], words, &b, 32, st);
  CHECK_OK(st);
  CHECK(words[0] == 0xDEADBEEFu && words[7] == 0xDEADBEEFu);
  se[0].mem_zero(&devices[0], s, &b, 32, st);
  CHECK_OK(st);
  se[0].synchronize_all_activity(&devices[0], st);
  CHECK_OK(st);
  se[0].sync_memcpy_dtoh(&devices[0], words, &b, 32, st);
  CHECK(words[0] == 0 && words[7] == 0);

  /* Synchronous copies. */
  float host4[4] = {1, 2, 3, 4}, back4[4] = {0};
  se[0].sync_memcpy_htod(&devices[0], &a, host4, sizeof(host4), st);
  CHECK_OK(st);
  se[0].sync_memcpy_dtod(&devices[0], &b, &a, sizeof(host4), st);
  CHECK_OK(st);
  se[0].sync_memcpy_dtoh(&devices[0], back4, &b, sizeof(back4), st);
  CHECK_OK(st);
  CHECK(memcmp(host4, back4, sizeof(host4)) == 0);

  /* A host pointer passed as a device pointer is refused and nothing is touched. */
  float victim[16];
  for (int i = 0; i < 16; ++i) victim[i] = 7.0f;
  SP_DeviceMemoryBase fake = host_as_device(victim, sizeof(victim));
  se[0].memcpy_htod(&devices[0], s, &fake, host4, sizeof(host4), st);
  CHECK(TF_GetCode(st) == TF_INVALID_ARGUMENT && strstr(TF_Message(st), "not device memory") != NULL);
  se[0].memcpy_dtoh(&devices[0], s, back4, &fake, sizeof(back4), st);
  CHECK(TF_GetCode(st) == TF_INVALID_ARGUMENT);
  se[0].memcpy_dtod(&devices[0], s, &a, &fake, 16, st);
  CHECK(TF_GetCode(st) == TF_INVALID_ARGUMENT);
  se[0].memset(&devices[0], s, &fake, 0, sizeof(victim), st);
  CHECK(TF_GetCode(st) == TF_INVALID_ARGUMENT);
  se[0].mem_zero(&devices[0], s, &fake, sizeof(victim), st);
  CHECK(TF_GetCode(st) == TF_INVALID_ARGUMENT);
  se[0].memset32(&devices[0], s, &fake, 0, sizeof(victim), st);
  CHECK(TF_GetCode(st) == TF_INVALID_ARGUMENT);
  se[0].sync_memcpy_htod(&devices[0], &fake, host4, sizeof(host4), st);
  CHECK(TF_GetCode(st) == TF_INVALID_ARGUMENT);
  se[0].sync_memcpy_dtoh(&devices[0], back4, &fake, sizeof(back4), st);
  CHECK(TF_GetCode(st) == TF_INVALID_ARGUMENT);
  se[0].sync_memcpy_dtod(&devices[0], &fake, &a, 16, st);
  CHECK(TF_GetCode(st) == TF_INVALID_ARGUMENT);
  se[0].block_host_until_done(&devices[0], s, st);
  CHECK_OK(st); /* refused calls never reached the stream */
  for (int i = 0; i < 16; ++i) CHECK(victim[i] == 7.0f);
  /* Past the end of an allocation, and memory of the other device. */
  se[0].memcpy_htod(&devices[0], s, &a, src, N * sizeof(float) + 64, st);
  CHECK(TF_GetCode(st) == TF_INVALID_ARGUMENT);
  SP_DeviceMemoryBase other = alloc(1, 64);
  se[0].sync_memcpy_htod(&devices[0], &other, host4, sizeof(host4), st);
  CHECK(TF_GetCode(st) == TF_INVALID_ARGUMENT);
  se[1].sync_memcpy_htod(&devices[1], &other, host4, sizeof(host4), st);
  CHECK_OK(st);
  /* A stream of the other device is refused. */
  SP_Stream other_stream = NULL;
  se[1].create_stream(&devices[1], &other_stream, st);
  se[0].memcpy_htod(&devices[0], other_stream, &a, host4, 16, st);
  CHECK(TF_GetCode(st) == TF_INVALID_ARGUMENT);
  se[1].destroy_stream(&devices[1], other_stream);
  se[1].deallocate(&devices[1], &other);

  /* Freed memory is no longer device memory. */
  SP_DeviceMemoryBase stale = a;
  se[0].deallocate(&devices[0], &a);
  CHECK(a.opaque == NULL);
  se[0].sync_memcpy_htod(&devices[0], &stale, host4, sizeof(host4), st);
  CHECK(TF_GetCode(st) == TF_INVALID_ARGUMENT);
  se[0].deallocate(&devices[0], &b);

  SP_AllocatorStats s2 = stats_of(0);
  CHECK(s2.bytes_in_use == base.bytes_in_use);
  CHECK(s2.peak_bytes_in_use >= s1.bytes_in_use);
  CHECK(s2.largest_free_block_bytes == s2.bytes_limit - s2.bytes_in_use); /* coalesced back to one block */
  /* A caller with an older, smaller SP_AllocatorStats gets only its members filled. */
  struct {
    SP_AllocatorStats s;
    char guard[8];
  } small;
  memset(&small, 0x5A, sizeof(small));
  small.s.struct_size = offsetof(SP_AllocatorStats, largest_alloc_size) + sizeof(int64_t);
  CHECK(se[0].get_allocator_stats(&devices[0], &small.s));
  CHECK(small.s.bytes_in_use == base.bytes_in_use);
  CHECK(((unsigned char*)&small.s.has_bytes_limit)[0] == 0x5A);

  /* Out of memory: allocate reports NULL. */
  SP_DeviceMemoryBase huge = alloc(0, (uint64_t)base.bytes_limit + 1);
  CHECK(huge.opaque == NULL && huge.size == 0);

  se[0].destroy_event(&devices[0], ev);
  se[0].destroy_stream(&devices[0], s);
  se[0].host_memory_deallocate(&devices[0], src);
  free(dst);
  gate_destroy(&gate);
  TF_DeleteStatus(st);
}

/* ---- host callbacks, errors, timers, dependencies ---- */

typedef struct Order {
  int seen[200];
  int n;
  pthread_t thread;
  int same_thread;
} Order;

typedef struct OrderArg {
  Order* order;
  int value;
} OrderArg;

static void record_order(void* arg, TF_Status* st) {
  OrderArg* a = arg;
  (void)st;
  if (a->order->n == 0) a->order->thread = pthread_self();
  a->order->same_thread &= pthread_equal(a->order->thread, pthread_self()) != 0;
  a->order->seen[a->order->n++] = a->value;
}

static void fail_callback(void* arg, TF_Status* st) {
  (void)arg;
  TF_SetStatus(st, TF_DATA_LOSS, "callback failed on purpose");
}

static void sleep_callback(void* arg, TF_Status* st) {
  (void)st;
  sleep_ms(*(int*)arg);
}

typedef struct FreeInCallback {
  SP_DeviceMemoryBase* mem;
  int done;
} FreeInCallback;

static void free_in_callback(void* arg, TF_Status* st) {
  FreeInCallback* f = arg;
  (void)st;
  se[1].deallocate(&devices[1], f->mem);
  f->done = 1;
}

static void test_callbacks_timers_dependencies(void) {
  TF_Status* st = TF_NewStatus();
  SP_Stream s = NULL, t = NULL;
  se[1].create_stream(&devices[1], &s, st);
  CHECK_OK(st);
  se[1].create_stream(&devices[1], &t, st);
  CHECK_OK(st);

  /* Callbacks run in order, interleaved with device work, on the stream's own thread. */
  Order order = {.n = 0, .same_thread = 1};
  OrderArg args[200];
  SP_DeviceMemoryBase m = alloc(1, 256);
  for (int i = 0; i < 200; ++i) {
    args[i].order = &order;
    args[i].value = i;
    CHECK(se[1].host_callback(&devices[1], s, record_order, &args[i]));
    se[1].memset(&devices[1], s, &m, (uint8_t)i, 256, st);
  }
  se[1].block_host_until_done(&devices[1], s, st);
  CHECK_OK(st);
  int in_order = order.n == 200;
  for (int i = 0; i < order.n; ++i) in_order &= order.seen[i] == i;
  CHECK(in_order);
  CHECK(order.same_thread && !pthread_equal(order.thread, pthread_self()));

  /* Timers measure stream time. */
  SP_Timer timer = NULL;
  se[1].create_timer(&devices[1], &timer, st);
  CHECK_OK(st);
  int ms = 30;
  se[1].start_timer(&devices[1], s, timer, st);
  CHECK_OK(st);
  se[1].host_callback(&devices[1], s, sleep_callback, &ms);
  se[1].stop_timer(&devices[1], s, timer, st);
  CHECK_OK(st);
  se[1].block_host_until_done(&devices[1], s, st);
  uint64_t ns = timer_fns.nanoseconds(timer);
  CHECK(ns >= 30000000ull && ns < 5000000000ull);
  se[1].destroy_timer(&devices[1], timer);

  /* create_stream_dependency: t waits for what s had queued. */
  Gate gate;
  gate_init(&gate);
  SP_Event ev = NULL;
  se[1].create_event(&devices[1], &ev, st);
  se[1].host_callback(&devices[1], s, gate_wait, &gate);
  se[1].create_stream_dependency(&devices[1], t, s, st);
  CHECK_OK(st);
  se[1].record_event(&devices[1], t, ev, st);
  sleep_ms(20);
  CHECK(se[1].get_event_status(&devices[1], ev) == SE_EVENT_PENDING);
  gate_open(&gate);
  se[1].block_host_for_event(&devices[1], ev, st);
  CHECK_OK(st);
  CHECK(se[1].get_event_status(&devices[1], ev) == SE_EVENT_COMPLETE);

  /* wait_for_event: the same through an explicit event. */
  Gate gate2;
  gate_init(&gate2);
  SP_Event ev2 = NULL;
  se[1].create_event(&devices[1], &ev2, st);
  se[1].host_callback(&devices[1], s, gate_wait, &gate2);
  se[1].record_event(&devices[1], s, ev2, st);
  se[1].wait_for_event(&devices[1], t, ev2, st);
  CHECK_OK(st);
  se[1].record_event(&devices[1], t, ev, st);
  sleep_ms(20);
  CHECK(se[1].get_event_status(&devices[1], ev) == SE_EVENT_PENDING);
  gate_open(&gate2);
  se[1].synchronize_all_activity(&devices[1], st);
  CHECK_OK(st);
  CHECK(se[1].get_event_status(&devices[1], ev) == SE_EVENT_COMPLETE);

  /* A failing callback makes the stream's status an error. */
  se[1].get_stream_status(&devices[1], t, st);
  CHECK_OK(st);
  se[1].host_callback(&devices[1], t, fail_callback, NULL);
  se[1].block_host_until_done(&devices[1], t, st);
  CHECK(TF_GetCode(st) == TF_DATA_LOSS && strstr(TF_Message(st), "on purpose") != NULL);
  se[1].get_stream_status(&devices[1], t, st);
  CHECK(TF_GetCode(st) == TF_DATA_LOSS);
  se[1].get_stream_status(&devices[1], s, st);
  CHECK_OK(st);

  /* deallocate defers the free past the work already queued, and never blocks (so it may
   * be called from a host callback of the stream itself). */
  SP_AllocatorStats before = stats_of(1);
  Gate gate3;
  gate_init(&gate3);
  SP_DeviceMemoryBase m2 = alloc(1, 4096);
  se[1].host_callback(&devices[1], s, gate_wait, &gate3);
  se[1].memset(&devices[1], s, &m2, 1, 4096, st);
  se[1].deallocate(&devices[1], &m2);
  CHECK(m2.opaque == NULL);
  CHECK(stats_of(1).bytes_in_use == before.bytes_in_use + 4096); /* still held for the queued memset */
  gate_open(&gate3);
  se[1].block_host_until_done(&devices[1], s, st);
  CHECK(stats_of(1).bytes_in_use == before.bytes_in_use);
  FreeInCallback fic = {&m, 0};
  CHECK(se[1].host_callback(&devices[1], s, free_in_callback, &fic));
  se[1].block_host_until_done(&devices[1], s, st);
  CHECK_OK(st);
  CHECK(fic.done && m.opaque == NULL);
  se[1].block_host_until_done(&devices[1], s, st); /* the free queued behind the callback */
  CHECK(stats_of(1).bytes_in_use == before.bytes_in_use - 256);
  gate_destroy(&gate3);

  se[1].destroy_event(&devices[1], ev);
  se[1].destroy_event(&devices[1], ev2);
  se[1].destroy_stream(&devices[1], s);
  se[1].destroy_stream(&devices[1], t);
  gate_destroy(&gate);
  gate_destroy(&gate2);
  TF_DeleteStatus(st);
}

/* ---- stress ---- */

typedef struct Check10k {
  const SP_Device* device;
  const SP_StreamExecutor* se;
  SP_DeviceMemoryBase* mem;
  uint32_t expect;
  atomic_int* good;
} Check10k;

static void check_value(void* arg, TF_Status* st) {
  Check10k* c = arg;
  uint32_t v = 0;
  c->se->sync_memcpy_dtoh(c->device, &v, c->mem, 4, st);
  if (v == c->expect) atomic_fetch_add(c->good, 1);
}

static void test_ten_thousand_ops(void) {
  enum { OPS = 10000 };
  TF_Status* st = TF_NewStatus();
  SP_Stream s = NULL;
  se[0].create_stream(&devices[0], &s, st);
  SP_DeviceMemoryBase m = alloc(0, 64);
  Check10k* cs = malloc(sizeof(Check10k) * OPS / 2);
  atomic_int good = 0;
  for (int i = 0; i < OPS / 2; ++i) { /* 5,000 fills, each checked by the callback after it */
    cs[i] = (Check10k){&devices[0], &se[0], &m, (uint32_t)i * 2654435761u, &good};
    se[0].memset32(&devices[0], s, &m, cs[i].expect, 64, st);
    se[0].host_callback(&devices[0], s, check_value, &cs[i]);
  }
  se[0].block_host_until_done(&devices[0], s, st);
  CHECK_OK(st);
  CHECK(atomic_load(&good) == OPS / 2);
  se[0].deallocate(&devices[0], &m);
  se[0].destroy_stream(&devices[0], s);
  free(cs);
  TF_DeleteStatus(st);
}

typedef struct Worker {
  int id;
  int ok;
} Worker;

static void* worker_thread(void* arg) {
  Worker* w = arg;
  int d = w->id % 2;
  TF_Status* st = TF_NewStatus();
  SP_Stream s = NULL;
  SP_Event ev = NULL;
  se[d].create_stream(&devices[d], &s, st);
  se[d].create_event(&devices[d], &ev, st);
  enum { K = 1024 };
  float in[K], out[K];
  SP_DeviceMemoryBase a = alloc(d, sizeof(in)), b = alloc(d, sizeof(in));
  int ok = a.opaque != NULL && b.opaque != NULL && TF_GetCode(st) == TF_OK;
  for (int it = 0; it < 300 && ok; ++it) {
    for (int i = 0; i < K; ++i) in[i] = (float)(w->id * 100000 + it * 10 + i);
    se[d].memcpy_htod(&devices[d], s, &a, in, sizeof(in), st);
    se[d].memcpy_dtod(&devices[d], s, &b, &a, sizeof(in), st);
    se[d].memcpy_dtoh(&devices[d], s, out, &b, sizeof(out), st);
    se[d].record_event(&devices[d], s, ev, st);
    se[d].block_host_for_event(&devices[d], ev, st);
    ok = TF_GetCode(st) == TF_OK && memcmp(in, out, sizeof(in)) == 0;
  }
  se[d].deallocate(&devices[d], &a);
  se[d].deallocate(&devices[d], &b);
  se[d].destroy_event(&devices[d], ev);
  se[d].destroy_stream(&devices[d], s);
  TF_DeleteStatus(st);
  w->ok = ok;
  return NULL;
}

static void test_four_threads(void) {
  SP_AllocatorStats b0 = stats_of(0), b1 = stats_of(1);
  pthread_t threads[4];
  Worker workers[4];
  for (int i = 0; i < 4; ++i) {
    workers[i] = (Worker){i, 0};
    pthread_create(&threads[i], NULL, worker_thread, &workers[i]);
  }
  for (int i = 0; i < 4; ++i) pthread_join(threads[i], NULL);
  for (int i = 0; i < 4; ++i) CHECK(workers[i].ok);
  CHECK(stats_of(0).bytes_in_use == b0.bytes_in_use && stats_of(1).bytes_in_use == b1.bytes_in_use);
}

/* ---- kernels ---- */

static float input_value(int64_t i, int seed) { return (float)((7 * i + seed) % 13 - 6) / 4.0f; }

static int64_t count_of(const int64_t* dims, int rank) {
  int64_t n = 1;
  for (int i = 0; i < rank; ++i) n *= dims[i];
  return n;
}

/* Runs one case on device `d` behind a gate (so the kernel must only enqueue); returns the
 * output's max abs error against the golden, or a negative value on failure. */
static double run_case(const GoldenCase* c, int d, SP_Stream s, const char* device_type) {
  const TF_KernelBuilder* k = fake_find_kernel(c->op, device_type);
  if (k == NULL) return -1.0;
  TF_Status* st = TF_NewStatus();
  FakeAttr attrs[8];
  int na = 0;
  memset(attrs, 0, sizeof(attrs));
  if (strcmp(c->op, "MatMul") == 0) {
    attrs[na++] = (FakeAttr){"transpose_a", FAKE_BOOL, c->transpose_a, NULL, 0, {0}};
    attrs[na++] = (FakeAttr){"transpose_b", FAKE_BOOL, c->transpose_b, NULL, 0, {0}};
  }
  if (c->padding[0] != '\0') {
    attrs[na++] = (FakeAttr){"padding", FAKE_STRING, 0, c->padding, 0, {0}};
    attrs[na++] = (FakeAttr){"strides", FAKE_INTS, 0, NULL, 4, {c->strides[0], c->strides[1], c->strides[2], c->strides[3]}};
    attrs[na++] = (FakeAttr){"data_format", FAKE_STRING, 0, "NHWC", 0, {0}};
  }
  if (strcmp(c->op, "MaxPool") == 0)
    attrs[na++] = (FakeAttr){"ksize", FAKE_INTS, 0, NULL, 4, {c->ksize[0], c->ksize[1], c->ksize[2], c->ksize[3]}};
  if (strcmp(c->op, "Conv2D") == 0) attrs[na++] = (FakeAttr){"dilations", FAKE_INTS, 0, NULL, 4, {1, 1, 1, 1}};
  TF_OpKernelConstruction cons = {attrs, 0, {TF_OK, ""}};
  void* state = k->create(&cons);
  if (cons.failed || state == NULL) {
    fprintf(stderr, "create %s failed: %s\n", c->op, cons.status.msg);
    TF_DeleteStatus(st);
    return -1.0;
  }
  TF_OpKernelContext ctx;
  memset(&ctx, 0, sizeof(ctx));
  ctx.stream = s;
  ctx.device = &devices[d];
  ctx.se = &se[d];
  ctx.num_inputs = c->num_inputs;
  SP_DeviceMemoryBase in_mem[2];
  float* host_in[2] = {NULL, NULL};
  for (int i = 0; i < c->num_inputs; ++i) {
    int64_t n = count_of(c->in_dims[i], c->in_rank[i]);
    host_in[i] = malloc((size_t)n * sizeof(float));
    for (int64_t j = 0; j < n; ++j) host_in[i][j] = input_value(j, 3 + 5 * i);
    in_mem[i] = alloc(d, (uint64_t)n * sizeof(float));
    se[d].sync_memcpy_htod(&devices[d], &in_mem[i], host_in[i], (uint64_t)n * sizeof(float), st);
    ctx.inputs[i] = fake_tensor(TF_FLOAT, c->in_dims[i], c->in_rank[i], in_mem[i].opaque, (size_t)n * sizeof(float));
  }
  Gate gate;
  gate_init(&gate);
  SP_Event ev = NULL;
  se[d].create_event(&devices[d], &ev, st);
  se[d].host_callback(&devices[d], s, gate_wait, &gate);
  k->compute(state, &ctx);
  double err = -1.0;
  if (ctx.failed || ctx.output == NULL) {
    fprintf(stderr, "compute %s failed: %s\n", c->op, ctx.status.msg);
    gate_open(&gate);
  } else {
    int shape_ok = ctx.output->nd == c->out_rank && count_of(ctx.output->dims, ctx.output->nd) == c->out_count;
    for (int i = 0; shape_ok && i < c->out_rank; ++i) shape_ok = ctx.output->dims[i] == c->out_dims[i];
    float* out = calloc((size_t)c->out_count + 1, sizeof(float));
    se[d].memcpy_dtoh(&devices[d], s, out, &ctx.output_mem, (uint64_t)c->out_count * sizeof(float), st);
    se[d].record_event(&devices[d], s, ev, st);
    sleep_ms(2);
    int was_pending = se[d].get_event_status(&devices[d], ev) == SE_EVENT_PENDING; /* queued behind the gate */
    gate_open(&gate);
    se[d].block_host_for_event(&devices[d], ev, st);
    if (shape_ok && was_pending && TF_GetCode(st) == TF_OK) {
      err = 0.0;
      for (int64_t i = 0; i < c->out_count; ++i) {
        double e = fabs((double)out[i] - (double)c->out[i]);
        if (!(e <= err)) err = e; /* NaN-safe max */
      }
    } else {
      fprintf(stderr, "%s %s: shape_ok=%d pending=%d status=%s\n", c->op, c->label, shape_ok, was_pending,
              TF_Message(st));
    }
    free(out);
    se[d].deallocate(&devices[d], &ctx.output_mem);
    TF_DeleteTensor(ctx.output);
  }
  for (int i = 0; i < c->num_inputs; ++i) {
    se[d].deallocate(&devices[d], &in_mem[i]);
    TF_DeleteTensor(ctx.inputs[i]);
    free(host_in[i]);
  }
  k->destroy(state);
  se[d].destroy_event(&devices[d], ev);
  gate_destroy(&gate);
  TF_DeleteStatus(st);
  return err;
}

static void test_kernels(void* lib) {
  void (*init_kernels)(void) = (void (*)(void))dlsym(lib, "TF_InitKernel");
  CHECK(init_kernels != NULL);
  init_kernels();
  CHECK(fake_num_kernels() == 11); /* the 8 below and the 3 variable updates (variable_kernels.c) */
  const char* ops[] = {"AddV2", "Mul", "Relu", "BiasAdd", "MatMul", "Conv2D", "MaxPool", "Softmax"};
  for (int i = 0; i < 8; ++i) CHECK(fake_find_kernel(ops[i], expected_type) != NULL);

  TF_Status* st = TF_NewStatus();
  SP_AllocatorStats base[2] = {stats_of(0), stats_of(1)};
  for (int d = 0; d < 2; ++d) {
    SP_Stream s = NULL;
    se[d].create_stream(&devices[d], &s, st);
    for (int i = 0; i < NUM_GOLDEN_CASES; ++i) {
      double err = run_case(&golden_cases[i], d, s, expected_type);
      ++checks;
      if (!(err >= 0.0 && err <= 1e-5)) {
        ++failures;
        fprintf(stderr, "kernel %s (%s) on device %d: max error %g\n", golden_cases[i].op, golden_cases[i].label, d,
                err);
      }
    }
    se[d].destroy_stream(&devices[d], s);
  }
  CHECK(stats_of(0).bytes_in_use == base[0].bytes_in_use && stats_of(1).bytes_in_use == base[1].bytes_in_use);

  /* Kernel errors: a host pointer as input, no stream, bad shapes. */
  const TF_KernelBuilder* add = fake_find_kernel("AddV2", expected_type);
  const TF_KernelBuilder* mm = fake_find_kernel("MatMul", expected_type);
  SP_Stream s = NULL;
  se[0].create_stream(&devices[0], &s, st);
  float host[6] = {1, 2, 3, 4, 5, 6};
  int64_t dims[2] = {2, 3};
  SP_DeviceMemoryBase dm = alloc(0, sizeof(host));
  se[0].sync_memcpy_htod(&devices[0], &dm, host, sizeof(host), st);
  TF_OpKernelConstruction cons = {NULL, 0, {TF_OK, ""}};
  void* state = add->create(&cons);
  TF_OpKernelContext ctx;
  memset(&ctx, 0, sizeof(ctx));
  ctx.stream = s;
  ctx.device = &devices[0];
  ctx.se = &se[0];
  ctx.num_inputs = 2;
  ctx.inputs[0] = fake_tensor(TF_FLOAT, dims, 2, dm.opaque, sizeof(host));
  ctx.inputs[1] = fake_tensor(TF_FLOAT, dims, 2, host, sizeof(host));
  add->compute(state, &ctx);
  CHECK(ctx.failed && ctx.status.code == TF_INVALID_ARGUMENT && strstr(ctx.status.msg, "not device memory") != NULL);
  CHECK(ctx.output == NULL);
  TF_DeleteTensor(ctx.inputs[0]);
  TF_DeleteTensor(ctx.inputs[1]);

  memset(&ctx, 0, sizeof(ctx)); /* no stream: not on a StreamExecutor device */
  ctx.device = &devices[0];
  ctx.se = &se[0];
  ctx.num_inputs = 2;
  ctx.inputs[0] = fake_tensor(TF_FLOAT, dims, 2, dm.opaque, sizeof(host));
  ctx.inputs[1] = fake_tensor(TF_FLOAT, dims, 2, dm.opaque, sizeof(host));
  add->compute(state, &ctx);
  CHECK(ctx.failed && ctx.status.code == TF_INTERNAL);
  TF_DeleteTensor(ctx.inputs[0]);
  TF_DeleteTensor(ctx.inputs[1]);

  int64_t bad_dims[1] = {4};
  memset(&ctx, 0, sizeof(ctx));
  ctx.stream = s;
  ctx.device = &devices[0];
  ctx.se = &se[0];
  ctx.num_inputs = 2;
  ctx.inputs[0] = fake_tensor(TF_FLOAT, dims, 2, dm.opaque, sizeof(host));
  ctx.inputs[1] = fake_tensor(TF_FLOAT, bad_dims, 1, dm.opaque, 4 * sizeof(float));
  add->compute(state, &ctx);
  CHECK(ctx.failed && ctx.status.code == TF_INVALID_ARGUMENT &&
        strcmp(ctx.status.msg, "Incompatible shapes: [2,3] vs. [4]") == 0);
  add->destroy(state);

  FakeAttr mm_attrs[] = {{"transpose_a", FAKE_BOOL, 0, NULL, 0, {0}}, {"transpose_b", FAKE_BOOL, 0, NULL, 0, {0}},
                         {NULL, 0, 0, NULL, 0, {0}}};
  TF_OpKernelConstruction mcons = {mm_attrs, 0, {TF_OK, ""}};
  state = mm->create(&mcons);
  CHECK(!mcons.failed && state != NULL);
  TF_DeleteTensor(ctx.inputs[1]);
  ctx.inputs[1] = fake_tensor(TF_FLOAT, dims, 2, dm.opaque, sizeof(host));
  ctx.failed = 0;
  mm->compute(state, &ctx);
  CHECK(ctx.failed && ctx.status.code == TF_INVALID_ARGUMENT &&
        strcmp(ctx.status.msg, "Matrix size-incompatible: In[0]: [2,3], In[1]: [2,3]") == 0);
  mm->destroy(state);
  TF_DeleteTensor(ctx.inputs[0]);
  TF_DeleteTensor(ctx.inputs[1]);

  /* Construction errors: NCHW and EXPLICIT padding are not implemented. */
  const TF_KernelBuilder* conv = fake_find_kernel("Conv2D", expected_type);
  FakeAttr conv_attrs[] = {{"padding", FAKE_STRING, 0, "SAME", 0, {0}},
                           {"strides", FAKE_INTS, 0, NULL, 4, {1, 1, 1, 1}},
                           {"data_format", FAKE_STRING, 0, "NCHW", 0, {0}},
                           {NULL, 0, 0, NULL, 0, {0}}};
  TF_OpKernelConstruction ccons = {conv_attrs, 0, {TF_OK, ""}};
  CHECK(conv->create(&ccons) == NULL && ccons.failed && ccons.status.code == TF_UNIMPLEMENTED);
  conv_attrs[2].s = "NHWC";
  conv_attrs[0].s = "EXPLICIT";
  ccons = (TF_OpKernelConstruction){conv_attrs, 0, {TF_OK, ""}};
  CHECK(conv->create(&ccons) == NULL && ccons.failed);

  se[0].deallocate(&devices[0], &dm);
  se[0].destroy_stream(&devices[0], s);
  TF_DeleteStatus(st);
}

/* ---- teardown ---- */

static void test_teardown(void) {
  for (int d = 0; d < 2; ++d) {
    CHECK(stats_of(d).bytes_in_use == 0);
    pfns.destroy_stream_executor(&platform, &se[d]);
    pfns.destroy_device_fns(&platform, &device_fns[d]);
    pfns.destroy_device(&platform, &devices[d]);
  }
  pfns.destroy_timer_fns(&platform, &timer_fns);
  reg.destroy_platform_fns(&pfns);
  reg.destroy_platform(&platform);
  fake_free_kernels();
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s PLUGIN.so EXPECTED_DEVICE_TYPE\n", argv[0]);
    return 2;
  }
  expected_type = argv[2];
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    fprintf(stderr, "dlopen: %s\n", dlerror());
    return 2;
  }
  test_init(lib);
  if (failures == 0) {
    test_memory_and_copies();
    test_callbacks_timers_dependencies();
    test_ten_thousand_ops();
    test_four_threads();
    test_kernels(lib);
    test_teardown();
  }
  dlclose(lib);
  if (failures != 0) {
    fprintf(stderr, "%d of %d checks failed\n", failures, checks);
    return 1;
  }
  printf("ok %d\n", checks);
  fflush(stdout);
  return 0;
}
