/* modtensor shim: host memory for tensors, with large blocks kept for reuse (as TF's CPU allocator keeps them).
 *
 * glibc serves blocks over 32 MiB (and, once its heap shrinks, smaller ones) with a fresh mmap, so every run of
 * a model at batch 8 paid a page fault per 4 KiB of each large activation when the kernel first wrote it: tens
 * of thousands of faults per layer, more time than the layer's arithmetic on a VM. Blocks of at least
 * MT_HOST_CACHE_MIN bytes are therefore rounded up to a size class (an eighth of a power of two: at most 12.5 %
 * more) and, when freed, kept in a small cache up to a byte limit (MODTENSOR_HOST_CACHE_MB, default 2048; 0
 * turns it off); an allocation takes a cached block of its class. The memory a process keeps is then about its
 * peak working set, as with TF's BFC allocator. AddressSanitizer builds bypass the cache, so a use after free
 * is still reported.
 *
 * Blocks of MT_HOST_HUGE_MIN bytes and more start on a 2 MiB boundary and are marked for transparent huge pages
 * (MADV_HUGEPAGE, as numpy marks its large arrays; the kernels' default THP mode is "madvise"): a single core
 * streams ~1.5x the bytes per second out of huge pages here (an 88 MB read: 19 -> 30 GB/s), since 4 KiB pages
 * miss the TLB and stop the hardware prefetchers at every page boundary, and a batch-8 activation is tens of
 * megabytes that memory-bound kernels (pooling, depthwise, elementwise) read once. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "mt_internal.h"

#define MT_HOST_HUGE_MIN (4u << 20)
#define MT_HUGE_PAGE (2u << 20)

#define MT_HOST_CACHE_MIN (256u << 10)
#define MT_HOST_CACHE_SLOTS 128

#if defined(__SANITIZE_ADDRESS__)
#define MT_HOST_CACHE_DISABLED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MT_HOST_CACHE_DISABLED 1
#endif
#endif

typedef struct {
  void* data;
  size_t size;
} Block;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t g_fork_once = PTHREAD_ONCE_INIT;
static Block g_blocks[MT_HOST_CACHE_SLOTS]; /* oldest first */
static int g_count;
static size_t g_cached_bytes;
static size_t g_limit = (size_t)-1; /* (size_t)-1: not read from the environment yet */

/* A fork while another thread holds the lock must not leave the child's copy locked: the lock is taken around
 * fork and released on both sides. */
static void fork_prepare(void) { pthread_mutex_lock(&g_lock); }
static void fork_release(void) { pthread_mutex_unlock(&g_lock); }
static void register_fork_handlers(void) { pthread_atfork(fork_prepare, fork_release, fork_release); }

static void cache_lock(void) {
  pthread_once(&g_fork_once, register_fork_handlers);
  pthread_mutex_lock(&g_lock);
}

/* The byte limit of the cache; g_lock held. */
static size_t cache_limit(void) {
  if (g_limit == (size_t)-1) {
    const char* text = getenv("MODTENSOR_HOST_CACHE_MB");
    long mb = text != NULL && *text != '\0' ? strtol(text, NULL, 10) : 2048;
    g_limit = mb > 0 ? (size_t)mb << 20 : 0;
  }
  return g_limit;
}

size_t MT_HostBlockSize(size_t len) {
  size_t size = (len + MT_ALIGNMENT - 1) / MT_ALIGNMENT * MT_ALIGNMENT;
  if (size == 0) return MT_ALIGNMENT;
  if (size < MT_HOST_CACHE_MIN) return size;
  size_t top = (size_t)1 << (63 - __builtin_clzll((unsigned long long)size)); /* highest power of two <= size */
  size_t step = top / 8;
  return (size + step - 1) / step * step;
}

void* MT_HostAllocate(size_t len) {
  size_t size = MT_HostBlockSize(len);
#ifndef MT_HOST_CACHE_DISABLED
  if (size >= MT_HOST_CACHE_MIN) {
    void* found = NULL;
    cache_lock();
    for (int i = g_count - 1; i >= 0; --i) { /* the most recently freed block of the class: warm in cache */
      if (g_blocks[i].size == size) {
        found = g_blocks[i].data;
        g_cached_bytes -= size;
        memmove(&g_blocks[i], &g_blocks[i + 1], sizeof(Block) * (size_t)(g_count - i - 1));
        --g_count;
        break;
      }
    }
    pthread_mutex_unlock(&g_lock);
    if (found != NULL) return found;
  }
#endif
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (size >= MT_HOST_HUGE_MIN) {
    void* data = NULL;
    if (posix_memalign(&data, MT_HUGE_PAGE, size) != 0) return NULL;
    madvise(data, size / MT_HUGE_PAGE * MT_HUGE_PAGE, MADV_HUGEPAGE); /* advice only: a refusal changes nothing */
    return data;
  }
#endif
  return aligned_alloc(MT_ALIGNMENT, size);
}

void MT_HostFree(void* data, size_t len) {
  if (data == NULL) return;
  size_t size = MT_HostBlockSize(len);
#ifndef MT_HOST_CACHE_DISABLED
  if (size >= MT_HOST_CACHE_MIN) {
    Block evicted[MT_HOST_CACHE_SLOTS];
    int n_evicted = 0;
    cache_lock();
    size_t limit = cache_limit();
    if (size > limit) {
      pthread_mutex_unlock(&g_lock);
      free(data);
      return;
    }
    while (g_count > 0 && (g_count == MT_HOST_CACHE_SLOTS || g_cached_bytes + size > limit)) {
      evicted[n_evicted++] = g_blocks[0]; /* the oldest go first */
      g_cached_bytes -= g_blocks[0].size;
      memmove(&g_blocks[0], &g_blocks[1], sizeof(Block) * (size_t)(g_count - 1));
      --g_count;
    }
    g_blocks[g_count].data = data;
    g_blocks[g_count].size = size;
    ++g_count;
    g_cached_bytes += size;
    pthread_mutex_unlock(&g_lock);
    for (int i = 0; i < n_evicted; ++i) free(evicted[i].data);
    return;
  }
#endif
  free(data);
}

size_t MT_HostCachedBytes(void) {
  cache_lock();
  size_t bytes = g_cached_bytes;
  pthread_mutex_unlock(&g_lock);
  return bytes;
}

void MT_HostCacheClear(void) {
  cache_lock();
  Block blocks[MT_HOST_CACHE_SLOTS];
  int n = g_count;
  memcpy(blocks, g_blocks, sizeof(Block) * (size_t)n);
  g_count = 0;
  g_cached_bytes = 0;
  pthread_mutex_unlock(&g_lock);
  for (int i = 0; i < n; ++i) free(blocks[i].data);
}
