/* modtensor shim: per-thread caches of the small structs every kernel call makes several of.
 *
 * A call of a native kernel makes about ten TF_Tensor handles, MT_Buffers and TF_Statuses
 * (TF_GetInput, TF_ForwardInputOrAllocateOutput, TF_NewStatus) and frees them before it
 * returns: more of one size than glibc's per-thread cache holds (7), so most went through
 * malloc's slower bins. Each thread keeps up to MT_CACHE_SIZE freed structs of each kind
 * for reuse, in a heap block its thread-local pointer (initial-exec: one %fs-relative
 * load, no __tls_get_addr call; 8 bytes of the static TLS surplus) leads to. A thread's
 * block is freed when the thread exits (a pthread key destructor); the main thread's stays
 * reachable from its thread-local storage. AddressSanitizer builds bypass the cache, so
 * every use after free is still reported. */
#include <pthread.h>
#include <stdlib.h>

#include "mt_internal.h"

#define MT_CACHE_SIZE 24

#if defined(__SANITIZE_ADDRESS__)
#define MT_CACHE_DISABLED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MT_CACHE_DISABLED 1
#endif
#endif

#ifndef MT_CACHE_DISABLED
typedef struct {
  int count[MT_CACHE_KINDS];
  void* items[MT_CACHE_KINDS][MT_CACHE_SIZE];
} MT_SmallCache;

static __thread MT_SmallCache* t_cache __attribute__((tls_model("initial-exec")));
static pthread_key_t g_cache_key;
static int g_cache_key_ok;
static pthread_once_t g_cache_once = PTHREAD_ONCE_INIT;

static void drain(void* block) {
  MT_SmallCache* cache = (MT_SmallCache*)block;
  if (cache == NULL) return;
  if (t_cache == cache) t_cache = NULL;
  for (int kind = 0; kind < MT_CACHE_KINDS; ++kind) {
    while (cache->count[kind] > 0) free(cache->items[kind][--cache->count[kind]]);
  }
  free(cache);
}

static void make_key(void) { g_cache_key_ok = pthread_key_create(&g_cache_key, drain) == 0; }

/* This thread's cache, made at its first free (NULL when the thread cannot have one). */
static MT_SmallCache* thread_cache(void) {
  pthread_once(&g_cache_once, make_key);
  if (!g_cache_key_ok) return NULL;
  MT_SmallCache* cache = (MT_SmallCache*)calloc(1, sizeof(MT_SmallCache));
  if (cache == NULL) return NULL;
  if (pthread_setspecific(g_cache_key, cache) != 0) {
    free(cache);
    return NULL;
  }
  t_cache = cache;
  return cache;
}
#endif

void* MT_CacheAlloc(int kind, size_t size) {
#ifndef MT_CACHE_DISABLED
  MT_SmallCache* cache = t_cache;
  if (cache != NULL && cache->count[kind] > 0) return cache->items[kind][--cache->count[kind]];
#else
  (void)kind;
#endif
  void* p = malloc(size);
  if (p == NULL) abort();
  return p;
}

void MT_CacheFree(int kind, void* p) {
  if (p == NULL) return;
#ifndef MT_CACHE_DISABLED
  MT_SmallCache* cache = t_cache;
  if (cache == NULL) cache = thread_cache();
  if (cache != NULL && cache->count[kind] < MT_CACHE_SIZE) {
    cache->items[kind][cache->count[kind]++] = p;
    return;
  }
#else
  (void)kind;
#endif
  free(p);
}
