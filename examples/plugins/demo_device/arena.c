/* The device memory of one demo device: a single host allocation carved by a first-fit
 * allocator with coalescing. Block headers live outside the arena, so whatever a kernel
 * writes into device memory cannot corrupt the allocator. */
#include <stdlib.h>
#include <string.h>

#include "demo_device.h"

static uint64_t round_up(uint64_t n) { return (n + DEMO_ALIGNMENT - 1) / DEMO_ALIGNMENT * DEMO_ALIGNMENT; }

int demo_arena_init(DemoArena* arena, uint64_t size) {
  memset(arena, 0, sizeof(*arena));
  size = round_up(size);
  void* base = NULL;
  if (posix_memalign(&base, DEMO_ALIGNMENT, size) != 0) return 0;
  DemoBlock* whole = calloc(1, sizeof(DemoBlock));
  if (whole == NULL) {
    free(base);
    return 0;
  }
  whole->size = size;
  arena->base = base;
  arena->size = size;
  arena->blocks = whole;
  pthread_mutex_init(&arena->mu, NULL);
  return 1;
}

void demo_arena_destroy(DemoArena* arena) {
  DemoBlock* b = arena->blocks;
  while (b != NULL) {
    DemoBlock* next = b->next;
    free(b);
    b = next;
  }
  free(arena->base);
  pthread_mutex_destroy(&arena->mu);
  memset(arena, 0, sizeof(*arena));
}

void* demo_arena_allocate(DemoArena* arena, uint64_t size) {
  uint64_t want = round_up(size == 0 ? 1 : size);
  void* result = NULL;
  pthread_mutex_lock(&arena->mu);
  for (DemoBlock* b = arena->blocks; b != NULL; b = b->next) {
    if (b->in_use || b->size < want) continue;
    if (b->size > want) { /* split: the tail stays free */
      DemoBlock* rest = calloc(1, sizeof(DemoBlock));
      if (rest == NULL) break;
      rest->offset = b->offset + want;
      rest->size = b->size - want;
      rest->next = b->next;
      b->next = rest;
      b->size = want;
    }
    b->in_use = 1;
    arena->num_allocs += 1;
    arena->bytes_in_use += (int64_t)b->size;
    if (arena->bytes_in_use > arena->peak_bytes_in_use) arena->peak_bytes_in_use = arena->bytes_in_use;
    if ((int64_t)b->size > arena->largest_alloc_size) arena->largest_alloc_size = (int64_t)b->size;
    result = arena->base + b->offset;
    break;
  }
  pthread_mutex_unlock(&arena->mu);
  return result;
}

int demo_arena_free(DemoArena* arena, void* ptr) {
  const char* p = ptr;
  if (p < arena->base || p >= arena->base + arena->size) return 0;
  uint64_t offset = (uint64_t)(p - arena->base);
  int found = 0;
  pthread_mutex_lock(&arena->mu);
  DemoBlock* prev = NULL;
  for (DemoBlock* b = arena->blocks; b != NULL; prev = b, b = b->next) {
    if (b->offset != offset) continue;
    if (!b->in_use) break; /* double free */
    found = 1;
    b->in_use = 0;
    arena->bytes_in_use -= (int64_t)b->size;
    DemoBlock* next = b->next;
    if (next != NULL && !next->in_use) { /* merge with the following free block */
      b->size += next->size;
      b->next = next->next;
      free(next);
    }
    if (prev != NULL && !prev->in_use) { /* and with the preceding one */
      prev->size += b->size;
      prev->next = b->next;
      free(b);
    }
    break;
  }
  pthread_mutex_unlock(&arena->mu);
  return found;
}

int demo_arena_contains(DemoArena* arena, const void* ptr, uint64_t len) {
  const char* p = ptr;
  if (p < arena->base || p >= arena->base + arena->size) return 0;
  uint64_t offset = (uint64_t)(p - arena->base);
  int ok = 0;
  pthread_mutex_lock(&arena->mu);
  for (DemoBlock* b = arena->blocks; b != NULL; b = b->next) {
    if (offset < b->offset || offset >= b->offset + b->size) continue;
    ok = b->in_use && len <= b->offset + b->size - offset;
    break;
  }
  pthread_mutex_unlock(&arena->mu);
  return ok;
}

void demo_arena_stats(DemoArena* arena, SP_AllocatorStats* stats) {
  pthread_mutex_lock(&arena->mu);
  stats->num_allocs = arena->num_allocs;
  stats->bytes_in_use = arena->bytes_in_use;
  stats->peak_bytes_in_use = arena->peak_bytes_in_use;
  stats->largest_alloc_size = arena->largest_alloc_size;
  stats->has_bytes_limit = 1;
  stats->bytes_limit = (int64_t)arena->size;
  stats->bytes_reserved = 0;
  stats->peak_bytes_reserved = 0;
  stats->has_bytes_reservable_limit = 0;
  stats->bytes_reservable_limit = 0;
  pthread_mutex_unlock(&arena->mu);
  stats->largest_free_block_bytes = demo_arena_largest_free(arena);
}

int64_t demo_arena_largest_free(DemoArena* arena) {
  int64_t largest = 0;
  pthread_mutex_lock(&arena->mu);
  for (DemoBlock* b = arena->blocks; b != NULL; b = b->next)
    if (!b->in_use && (int64_t)b->size > largest) largest = (int64_t)b->size;
  pthread_mutex_unlock(&arena->mu);
  return largest;
}
