/* Streams, events and timers of the demo device. A stream is a worker thread draining a
 * FIFO queue: enqueueing returns at once and the work runs later, in order, so the
 * runtime has to use events and stream waits exactly as it would with a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "demo_device.h"

uint64_t demo_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The stream whose worker runs on this thread (NULL on other threads): waiting for it
 * from its own work (e.g. a host callback that frees memory) would never return. */
static _Thread_local DemoStream* current_stream = NULL;

static void* worker_main(void* arg) {
  DemoStream* s = arg;
  current_stream = s;
  TF_Status* status = TF_NewStatus();
  pthread_mutex_lock(&s->mu);
  for (;;) {
    while (s->head == NULL && !s->shutdown) pthread_cond_wait(&s->cv_work, &s->mu);
    if (s->head == NULL) break; /* shutdown with an empty queue */
    DemoWork* w = s->head;
    pthread_mutex_unlock(&s->mu);
    TF_SetStatus(status, TF_OK, "");
    w->run(w->arg, status);
    if (w->cleanup != NULL) w->cleanup(w->arg);
    pthread_mutex_lock(&s->mu);
    if (TF_GetCode(status) != TF_OK && s->error_code == TF_OK) {
      s->error_code = TF_GetCode(status);
      snprintf(s->error_message, sizeof(s->error_message), "%s", TF_Message(status));
    }
    s->head = w->next;
    if (s->head == NULL) s->tail = NULL;
    free(w);
    s->completed += 1;
    pthread_cond_broadcast(&s->cv_done);
  }
  pthread_mutex_unlock(&s->mu);
  TF_DeleteStatus(status);
  return NULL;
}

static int device_add_stream(DemoDevice* d, DemoStream* s) {
  int ok = 1;
  pthread_mutex_lock(&d->mu);
  if (d->num_streams == d->cap_streams) {
    int cap = d->cap_streams ? 2 * d->cap_streams : 8;
    DemoStream** grown = realloc(d->streams, (size_t)cap * sizeof(*grown));
    if (grown == NULL) {
      ok = 0;
    } else {
      d->streams = grown;
      d->cap_streams = cap;
    }
  }
  if (ok) d->streams[d->num_streams++] = s;
  pthread_mutex_unlock(&d->mu);
  return ok;
}

static void device_remove_stream(DemoDevice* d, DemoStream* s) {
  pthread_mutex_lock(&d->mu);
  for (int i = 0; i < d->num_streams; ++i) {
    if (d->streams[i] == s) {
      d->streams[i] = d->streams[--d->num_streams];
      break;
    }
  }
  pthread_mutex_unlock(&d->mu);
}

DemoStream* demo_stream_create(DemoDevice* device, TF_Status* status) {
  DemoStream* s = calloc(1, sizeof(*s));
  if (s == NULL) {
    TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "demo_device: out of host memory creating a stream");
    return NULL;
  }
  s->magic = DEMO_STREAM_MAGIC;
  s->device = device;
  s->error_code = TF_OK;
  pthread_mutex_init(&s->mu, NULL);
  pthread_cond_init(&s->cv_work, NULL);
  pthread_cond_init(&s->cv_done, NULL);
  if (pthread_create(&s->thread, NULL, worker_main, s) != 0) {
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv_work);
    pthread_cond_destroy(&s->cv_done);
    free(s);
    TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "demo_device: cannot start a stream's worker thread");
    return NULL;
  }
  if (!device_add_stream(device, s)) {
    demo_stream_destroy(s);
    TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "demo_device: out of host memory creating a stream");
    return NULL;
  }
  TF_SetStatus(status, TF_OK, "");
  return s;
}

void demo_stream_destroy(DemoStream* s) {
  if (s == NULL) return;
  device_remove_stream(s->device, s);
  pthread_mutex_lock(&s->mu);
  s->shutdown = 1; /* the worker finishes the queued work first */
  pthread_cond_broadcast(&s->cv_work);
  pthread_mutex_unlock(&s->mu);
  pthread_join(s->thread, NULL);
  pthread_mutex_destroy(&s->mu);
  pthread_cond_destroy(&s->cv_work);
  pthread_cond_destroy(&s->cv_done);
  s->magic = 0;
  free(s);
}

int demo_stream_valid(SP_Stream stream) { return stream != NULL && stream->magic == DEMO_STREAM_MAGIC; }

int demo_stream_enqueue(DemoStream* s, DemoWorkFn run, DemoCleanupFn cleanup, void* arg, TF_Status* status) {
  DemoWork* w = calloc(1, sizeof(*w));
  if (w == NULL) {
    if (cleanup != NULL) cleanup(arg);
    TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "demo_device: out of host memory enqueueing work on a stream");
    return 0;
  }
  w->run = run;
  w->cleanup = cleanup;
  w->arg = arg;
  pthread_mutex_lock(&s->mu);
  if (s->tail != NULL) {
    s->tail->next = w;
  } else {
    s->head = w;
  }
  s->tail = w;
  s->enqueued += 1;
  pthread_cond_signal(&s->cv_work);
  pthread_mutex_unlock(&s->mu);
  TF_SetStatus(status, TF_OK, "");
  return 1;
}

static void report_stream_error(DemoStream* s, TF_Status* status) {
  /* Called with s->mu held. */
  if (s->error_code == TF_OK) {
    TF_SetStatus(status, TF_OK, "");
  } else {
    TF_SetStatus(status, s->error_code, s->error_message);
  }
}

void demo_stream_wait(DemoStream* s, TF_Status* status) {
  pthread_mutex_lock(&s->mu);
  /* On the stream's own worker, only the work before the running item can be waited for. */
  uint64_t target = s == current_stream ? s->completed : s->enqueued;
  while (s->completed < target) pthread_cond_wait(&s->cv_done, &s->mu);
  report_stream_error(s, status);
  pthread_mutex_unlock(&s->mu);
}

void demo_stream_status(DemoStream* s, TF_Status* status) {
  pthread_mutex_lock(&s->mu);
  report_stream_error(s, status);
  pthread_mutex_unlock(&s->mu);
}

void demo_device_synchronize(DemoDevice* d, TF_Status* status) {
  /* Snapshot the streams; a stream is not destroyed while its owner synchronizes. */
  pthread_mutex_lock(&d->mu);
  int n = d->num_streams;
  DemoStream** copy = n > 0 ? malloc((size_t)n * sizeof(*copy)) : NULL;
  if (n > 0 && copy == NULL) {
    pthread_mutex_unlock(&d->mu);
    TF_SetStatus(status, TF_RESOURCE_EXHAUSTED, "demo_device: out of host memory synchronizing");
    return;
  }
  if (n > 0) memcpy(copy, d->streams, (size_t)n * sizeof(*copy));
  pthread_mutex_unlock(&d->mu);
  TF_SetStatus(status, TF_OK, "");
  TF_Status* one = TF_NewStatus();
  for (int i = 0; i < n; ++i) {
    demo_stream_wait(copy[i], one);
    if (TF_GetCode(one) != TF_OK && TF_GetCode(status) == TF_OK) TF_SetStatus(status, TF_GetCode(one), TF_Message(one));
  }
  TF_DeleteStatus(one);
  free(copy);
}

/* Runs `fn(arg)` once, when the last busy stream passes its marker. */
typedef struct Deferred {
  void (*fn)(void*);
  void* arg;
  pthread_mutex_t mu;
  int remaining;
} Deferred;

static void deferred_arrive(Deferred* p) {
  pthread_mutex_lock(&p->mu);
  int last = --p->remaining == 0;
  pthread_mutex_unlock(&p->mu);
  if (!last) return;
  p->fn(p->arg);
  pthread_mutex_destroy(&p->mu);
  free(p);
}

static void run_deferred_marker(void* arg, TF_Status* status) {
  (void)status;
  deferred_arrive(arg);
}

void demo_device_defer(DemoDevice* d, void (*fn)(void*), void* arg) {
  Deferred* p = malloc(sizeof(*p));
  if (p == NULL) { /* cannot defer: wait for the device instead */
    TF_Status* status = TF_NewStatus();
    demo_device_synchronize(d, status);
    TF_DeleteStatus(status);
    fn(arg);
    return;
  }
  p->fn = fn;
  p->arg = arg;
  pthread_mutex_init(&p->mu, NULL);
  p->remaining = 1; /* held while enqueueing the markers */
  TF_Status* status = TF_NewStatus();
  /* Holding d->mu keeps the streams alive (destroy removes a stream under it first). */
  pthread_mutex_lock(&d->mu);
  for (int i = 0; i < d->num_streams; ++i) {
    DemoStream* s = d->streams[i];
    pthread_mutex_lock(&s->mu);
    int busy = s->completed < s->enqueued;
    pthread_mutex_unlock(&s->mu);
    if (!busy) continue;
    pthread_mutex_lock(&p->mu);
    p->remaining += 1;
    pthread_mutex_unlock(&p->mu);
    if (!demo_stream_enqueue(s, run_deferred_marker, NULL, p, status)) {
      pthread_mutex_lock(&p->mu);
      p->remaining -= 1; /* could not enqueue: that stream's work is not waited for */
      pthread_mutex_unlock(&p->mu);
    }
  }
  pthread_mutex_unlock(&d->mu);
  TF_DeleteStatus(status);
  deferred_arrive(p);
}

/* ---- events ---- */

SP_Event demo_event_create(void) {
  SP_Event e = calloc(1, sizeof(*e));
  if (e == NULL) return NULL;
  pthread_mutex_init(&e->mu, NULL);
  pthread_cond_init(&e->cv, NULL);
  e->state = SE_EVENT_UNKNOWN; /* never recorded */
  e->refs = 1;
  return e;
}

void demo_event_release(SP_Event e) {
  pthread_mutex_lock(&e->mu);
  int last = --e->refs == 0;
  pthread_mutex_unlock(&e->mu);
  if (!last) return;
  pthread_mutex_destroy(&e->mu);
  pthread_cond_destroy(&e->cv);
  free(e);
}

static void event_retain(SP_Event e) {
  pthread_mutex_lock(&e->mu);
  e->refs += 1;
  pthread_mutex_unlock(&e->mu);
}

static void run_record(void* arg, TF_Status* status) {
  SP_Event e = arg;
  (void)status;
  pthread_mutex_lock(&e->mu);
  e->state = SE_EVENT_COMPLETE;
  pthread_cond_broadcast(&e->cv);
  pthread_mutex_unlock(&e->mu);
}

static void release_event_arg(void* arg) { demo_event_release(arg); }

void demo_event_record(DemoStream* s, SP_Event e, TF_Status* status) {
  pthread_mutex_lock(&e->mu);
  e->state = SE_EVENT_PENDING;
  e->refs += 1;
  pthread_mutex_unlock(&e->mu);
  if (!demo_stream_enqueue(s, run_record, release_event_arg, e, status)) {
    pthread_mutex_lock(&e->mu);
    e->state = SE_EVENT_ERROR;
    pthread_cond_broadcast(&e->cv);
    pthread_mutex_unlock(&e->mu);
  }
}

static void run_wait(void* arg, TF_Status* status) {
  SP_Event e = arg;
  pthread_mutex_lock(&e->mu);
  while (e->state == SE_EVENT_PENDING) pthread_cond_wait(&e->cv, &e->mu);
  if (e->state == SE_EVENT_ERROR) TF_SetStatus(status, TF_INTERNAL, "demo_device: waited-for event failed");
  pthread_mutex_unlock(&e->mu);
}

void demo_event_wait_on_stream(DemoStream* s, SP_Event e, TF_Status* status) {
  event_retain(e);
  demo_stream_enqueue(s, run_wait, release_event_arg, e, status);
}

void demo_event_block_host(SP_Event e, TF_Status* status) {
  pthread_mutex_lock(&e->mu);
  while (e->state == SE_EVENT_PENDING) pthread_cond_wait(&e->cv, &e->mu);
  if (e->state == SE_EVENT_ERROR) {
    TF_SetStatus(status, TF_INTERNAL, "demo_device: the event failed");
  } else {
    TF_SetStatus(status, TF_OK, "");
  }
  pthread_mutex_unlock(&e->mu);
}

SE_EventStatus demo_event_status(SP_Event e) {
  pthread_mutex_lock(&e->mu);
  SE_EventStatus st = e->state;
  pthread_mutex_unlock(&e->mu);
  return st;
}
