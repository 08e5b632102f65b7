/* One process-wide pool of worker threads for the native CPU kernels.
 *
 * A parallel region claims the pool with a trylock: a second op arriving while the
 * pool is busy (ops run concurrently by an inter-op executor) runs on its own thread
 * alone, so the number of busy threads never exceeds the configured count. Work is
 * split into chunks claimed through one 64-bit atomic that carries the region's
 * generation in its high half, so a late worker can never claim a chunk of a later
 * region. Idle workers spin briefly (consecutive ops follow each other within
 * microseconds) and then sleep on a condition variable. The caller, once its own chunks are done, spins briefly
 * for the workers' last ones and then sleeps until the last one finishes: on a machine busier than its cores, a
 * worker preempted inside a chunk can only finish when it gets a CPU again, and a spinning caller would hold the
 * very CPU it could run on. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "mtk.h"

#define MAX_THREADS 256
/* How long an idle worker spins for the next region before it sleeps (MODTENSOR_POOL_SPIN_US overrides it, as
 * KMP_BLOCKTIME does oneDNN's): long enough to bridge the gap between two native kernels of a model, short enough
 * that on a machine with more runnable threads than cores a spinning worker does not take CPU time from the thread
 * running the graph. */
#define DEFAULT_SPIN_NS 50000
#define WAIT_SPIN_NS 30000 /* how long the caller spins for the workers' last chunks before it sleeps */
/* Chunks per thread a region is cut into at most: small enough that a thread that starts late (woken from sleep,
 * or descheduled on a busy machine) leaves little of the region for the others to wait on. */
#define MAX_CHUNKS_PER_THREAD 16

typedef struct {
  mtk_range_fn fn;
  void* ctx;
  int64_t n;
  int64_t chunks;
} Job;

static pthread_mutex_t g_region = PTHREAD_MUTEX_INITIALIZER; /* held by the op using the pool */
static pthread_mutex_t g_sleep = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_wake = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t g_done_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_done = PTHREAD_COND_INITIALIZER;
static _Atomic int g_caller_sleeping; /* the caller waits on g_done for the region's last chunk */
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static Job g_job;
static _Atomic uint64_t g_state;     /* generation << 32 | next chunk */
static _Atomic int64_t g_completed;  /* chunks of the current generation finished */
static _Atomic int g_sleepers;
static _Atomic int g_threads = 0;    /* configured number of threads (caller included) */
static int g_started = 0;            /* workers created (guarded by g_region) */
static int64_t g_spin_ns = DEFAULT_SPIN_NS;

static int default_threads(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0) return n > MAX_THREADS ? MAX_THREADS : n;
  }
  return 1;
}

static void init_once(void) {
  const char* spin = getenv("MODTENSOR_POOL_SPIN_US");
  if (spin != NULL && *spin != '\0') {
    long long us = atoll(spin);
    g_spin_ns = us < 0 ? 0 : (us > 1000000 ? 1000000000LL : us * 1000);
  }
  const char* env = getenv("MODTENSOR_INTRA_OP_THREADS");
  int n = env != NULL ? atoi(env) : 0;
  atomic_store(&g_threads, n > 0 ? (n > MAX_THREADS ? MAX_THREADS : n) : default_threads());
}

int mtk_num_threads(void) {
  pthread_once(&g_once, init_once);
  return atomic_load(&g_threads);
}

void modtensor_cpu_kernels_set_num_threads(int n) {
  pthread_once(&g_once, init_once);
  if (n <= 0) n = default_threads();
  if (n > MAX_THREADS) n = MAX_THREADS;
  atomic_store(&g_threads, n);
}

int modtensor_cpu_kernels_get_num_threads(void) { return mtk_num_threads(); }

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/* Claims and runs chunks of generation `gen` until none is left. */
static void run_chunks(uint32_t gen) {
  for (;;) {
    uint64_t s = atomic_load_explicit(&g_state, memory_order_acquire);
    if ((uint32_t)(s >> 32) != gen) return;
    int64_t chunk = (int64_t)(uint32_t)s;
    if (chunk >= g_job.chunks) return;
    if (!atomic_compare_exchange_weak_explicit(&g_state, &s, s + 1, memory_order_acq_rel, memory_order_relaxed)) {
      continue;
    }
    int64_t begin = chunk * g_job.n / g_job.chunks, end = (chunk + 1) * g_job.n / g_job.chunks;
    g_job.fn(g_job.ctx, begin, end);
    /* seq_cst with the caller's store of g_caller_sleeping: either this sees it set, or the caller's re-check
     * under g_done_lock sees this chunk counted (no lost wake-up). */
    if (atomic_fetch_add(&g_completed, 1) + 1 == g_job.chunks && atomic_load(&g_caller_sleeping)) {
      pthread_mutex_lock(&g_done_lock);
      pthread_cond_signal(&g_done);
      pthread_mutex_unlock(&g_done_lock);
    }
  }
}

static void* worker(void* arg) {
  int index = (int)(intptr_t)arg; /* 1-based: the caller is thread 0 */
  uint32_t seen = (uint32_t)(atomic_load(&g_state) >> 32);
  for (;;) {
    int64_t spin_start = now_ns();
    uint32_t gen;
    int polls = 0;
    while ((gen = (uint32_t)(atomic_load_explicit(&g_state, memory_order_acquire) >> 32)) == seen) {
      cpu_relax();
      if (++polls % 64 == 0 && now_ns() - spin_start > g_spin_ns) {
        pthread_mutex_lock(&g_sleep);
        atomic_fetch_add(&g_sleepers, 1);
        while ((gen = (uint32_t)(atomic_load(&g_state) >> 32)) == seen) pthread_cond_wait(&g_wake, &g_sleep);
        atomic_fetch_sub(&g_sleepers, 1);
        pthread_mutex_unlock(&g_sleep);
        break;
      }
    }
    seen = gen;
    if (index < atomic_load(&g_threads)) run_chunks(gen);
  }
  return NULL;
}

static void start_workers(int wanted) {
  while (g_started + 1 < wanted) {
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&t, &attr, worker, (void*)(intptr_t)(g_started + 1));
    pthread_attr_destroy(&attr);
    if (rc != 0) break;
    ++g_started;
  }
}

void mtk_parallel_for(int64_t n, int64_t grain, mtk_range_fn fn, void* ctx) {
  if (n <= 0) return;
  if (grain < 1) grain = 1;
  int threads = mtk_num_threads();
  int64_t chunks = (n + grain - 1) / grain;
  if (threads <= 1 || chunks <= 1 || pthread_mutex_trylock(&g_region) != 0) {
    fn(ctx, 0, n);
    return;
  }
  start_workers(threads);
  if (g_started == 0) { /* no worker could be created */
    pthread_mutex_unlock(&g_region);
    fn(ctx, 0, n);
    return;
  }
  int64_t max_chunks = (int64_t)threads * MAX_CHUNKS_PER_THREAD;
  if (chunks > max_chunks) chunks = max_chunks;
  g_job.fn = fn;
  g_job.ctx = ctx;
  g_job.n = n;
  g_job.chunks = chunks;
  atomic_store_explicit(&g_completed, 0, memory_order_relaxed);
  uint32_t gen = (uint32_t)(atomic_load(&g_state) >> 32) + 1;
  /* seq_cst: the store of the new generation must be visible before the sleeper count is read (a worker counts
   * itself a sleeper before it re-reads the generation under the lock), else a worker falling asleep just now
   * would miss this region's wake-up. */
  atomic_store_explicit(&g_state, (uint64_t)gen << 32, memory_order_seq_cst);
  if (atomic_load(&g_sleepers) > 0) {
    pthread_mutex_lock(&g_sleep);
    pthread_cond_broadcast(&g_wake);
    pthread_mutex_unlock(&g_sleep);
  }
  run_chunks(gen);
  int64_t wait_start = 0;
  int polls = 0;
  while (atomic_load_explicit(&g_completed, memory_order_acquire) < chunks) {
    cpu_relax();
    if (++polls % 64 != 0) continue;
    if (wait_start == 0) {
      wait_start = now_ns();
    } else if (now_ns() - wait_start > WAIT_SPIN_NS) { /* a worker holding a chunk is slow or preempted: sleep */
      pthread_mutex_lock(&g_done_lock);
      atomic_store(&g_caller_sleeping, 1);
      while (atomic_load(&g_completed) < chunks) pthread_cond_wait(&g_done, &g_done_lock);
      atomic_store(&g_caller_sleeping, 0);
      pthread_mutex_unlock(&g_done_lock);
    }
  }
  /* Nothing of this generation is claimable any more, whatever a late worker read. */
  atomic_store_explicit(&g_state, ((uint64_t)gen << 32) | 0xFFFFFFFFu, memory_order_release);
  pthread_mutex_unlock(&g_region);
}
