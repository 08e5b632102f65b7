/* modtensor shim: TF_Status (= TSL_Status), natively in C.
 *
 * A status is an error code, a message and optional key/value payloads. The TF_*
 * functions are the TSL_* ones under TensorFlow's public names; both are exported (the
 * TSL_* declarations in xla/tsl/c/tsl_status.h carry no export macro, hence MT_EXPORT). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mt_internal.h"

char* MT_Strdup(const char* text) {
  if (text == NULL) return NULL;
  size_t n = strlen(text);
  char* copy = (char*)malloc(n + 1);
  if (copy == NULL) abort();
  memcpy(copy, text, n + 1);
  return copy;
}

static void clear_payloads(TSL_Status* s) {
  MT_Payload* p = s->payloads;
  while (p != NULL) {
    MT_Payload* next = p->next;
    free(p->key);
    free(p->value);
    free(p);
    p = next;
  }
  s->payloads = NULL;
}

MT_EXPORT TSL_Status* TSL_NewStatus(void) {
  TSL_Status* s = (TSL_Status*)MT_CacheAlloc(MT_CACHE_STATUS, sizeof(TSL_Status)); /* kernels make one per call */
  s->code = TSL_OK;
  s->message = NULL;
  s->payloads = NULL;
  return s;
}

MT_EXPORT void TSL_DeleteStatus(TSL_Status* s) {
  if (s == NULL) return;
  free(s->message);
  clear_payloads(s);
  MT_CacheFree(MT_CACHE_STATUS, s);
}

MT_EXPORT void TSL_SetStatus(TSL_Status* s, TSL_Code code, const char* msg) {
  if (s == NULL) return;
  char* copy = (code == TSL_OK || msg == NULL) ? NULL : MT_Strdup(msg);
  free(s->message);
  s->message = copy;
  s->code = code;
  if (code == TSL_OK) clear_payloads(s);
}

MT_EXPORT void TSL_SetPayload(TSL_Status* s, const char* key, const char* value) {
  if (s == NULL || s->code == TSL_OK || key == NULL) return;
  for (MT_Payload* p = s->payloads; p != NULL; p = p->next) {
    if (strcmp(p->key, key) == 0) {
      char* copy = MT_Strdup(value ? value : "");
      free(p->value);
      p->value = copy;
      return;
    }
  }
  MT_Payload* p = (MT_Payload*)malloc(sizeof(MT_Payload));
  if (p == NULL) abort();
  p->key = MT_Strdup(key);
  p->value = MT_Strdup(value ? value : "");
  p->next = NULL;
  MT_Payload** tail = &s->payloads; /* keep insertion order */
  while (*tail != NULL) tail = &(*tail)->next;
  *tail = p;
}

MT_EXPORT void TSL_ForEachPayload(const TSL_Status* s, TSL_PayloadVisitor visitor, void* capture) {
  if (s == NULL || visitor == NULL) return;
  for (const MT_Payload* p = s->payloads; p != NULL; p = p->next) visitor(p->key, p->value, capture);
}

/* TensorFlow's ErrnoToCode. */
static TSL_Code code_from_errno(int e) {
  switch (e) {
    case 0:
      return TSL_OK;
    case EINVAL: case ENAMETOOLONG: case E2BIG: case EDESTADDRREQ: case EDOM: case EFAULT: case EILSEQ:
    case ENOPROTOOPT: case ENOSTR: case ENOTSOCK: case ENOTTY: case EPROTOTYPE: case ESPIPE:
      return TSL_INVALID_ARGUMENT;
    case ETIMEDOUT: case ETIME:
      return TSL_DEADLINE_EXCEEDED;
    case ENODEV: case ENOENT: case ENXIO: case ESRCH:
      return TSL_NOT_FOUND;
    case EEXIST: case EADDRNOTAVAIL: case EALREADY:
      return TSL_ALREADY_EXISTS;
    case EPERM: case EACCES: case EROFS:
      return TSL_PERMISSION_DENIED;
    case ENOTEMPTY: case EISDIR: case ENOTDIR: case EADDRINUSE: case EBADF: case EBUSY: case ECHILD:
    case EISCONN: case ENOTBLK: case ENOTCONN: case EPIPE: case ESHUTDOWN: case ETXTBSY:
      return TSL_FAILED_PRECONDITION;
    case ENOSPC: case EDQUOT: case EMFILE: case EMLINK: case ENFILE: case ENOBUFS: case ENODATA: case ENOMEM:
    case ENOSR: case EUSERS:
      return TSL_RESOURCE_EXHAUSTED;
    case EFBIG: case EOVERFLOW: case ERANGE:
      return TSL_OUT_OF_RANGE;
    case ENOSYS: case ENOTSUP: case EAFNOSUPPORT: case EPFNOSUPPORT: case EPROTONOSUPPORT:
    case ESOCKTNOSUPPORT: case EXDEV:
      return TSL_UNIMPLEMENTED;
    case EAGAIN: case ECONNREFUSED: case ECONNABORTED: case ECONNRESET: case EINTR: case EHOSTDOWN:
    case EHOSTUNREACH: case ENETDOWN: case ENETRESET: case ENETUNREACH: case ENOLCK: case ENOLINK:
    case ENONET:
      return TSL_UNAVAILABLE;
    case EDEADLK: case ESTALE:
      return TSL_ABORTED;
    case ECANCELED:
      return TSL_CANCELLED;
    default:
      return TSL_UNKNOWN;
  }
}

MT_EXPORT void TSL_SetStatusFromIOError(TSL_Status* s, int error_code, const char* context) {
  if (s == NULL) return;
  TSL_Code code = code_from_errno(error_code);
  if (code == TSL_OK) {
    TSL_SetStatus(s, TSL_OK, "");
    return;
  }
  MT_SetStatusf(s, code, "%s; %s", context ? context : "", strerror(error_code));
}

MT_EXPORT TSL_Code TSL_GetCode(const TSL_Status* s) { return s == NULL ? TSL_OK : s->code; }

MT_EXPORT const char* TSL_Message(const TSL_Status* s) { return (s == NULL || s->message == NULL) ? "" : s->message; }

/* ---- TensorFlow's names ---- */

TF_Status* TF_NewStatus(void) { return TSL_NewStatus(); }
void TF_DeleteStatus(TF_Status* s) { TSL_DeleteStatus(s); }
void TF_SetStatus(TF_Status* s, TF_Code code, const char* msg) { TSL_SetStatus(s, code, msg); }
void TF_SetPayload(TF_Status* s, const char* key, const char* value) { TSL_SetPayload(s, key, value); }
void TF_ForEachPayload(const TF_Status* s, TF_PayloadVisitor visitor, void* capture) {
  TSL_ForEachPayload(s, visitor, capture);
}
void TF_SetStatusFromIOError(TF_Status* s, int error_code, const char* context) {
  TSL_SetStatusFromIOError(s, error_code, context);
}
TF_Code TF_GetCode(const TF_Status* s) { return TSL_GetCode(s); }
const char* TF_Message(const TF_Status* s) { return TSL_Message(s); }

/* ---- helpers ---- */

void MT_SetStatusf(TF_Status* s, TF_Code code, const char* fmt, ...) {
  if (s == NULL) return;
  char small[512];
  va_list args;
  va_start(args, fmt);
  int n = vsnprintf(small, sizeof small, fmt, args);
  va_end(args);
  if (n < 0) {
    TSL_SetStatus(s, code, fmt);
    return;
  }
  if ((size_t)n < sizeof small) {
    TSL_SetStatus(s, code, small);
    return;
  }
  char* big = (char*)malloc((size_t)n + 1);
  if (big == NULL) abort();
  va_start(args, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, args);
  va_end(args);
  TSL_SetStatus(s, code, big);
  free(big);
}

void MT_CopyStatus(TF_Status* dst, const TF_Status* src) {
  if (dst == NULL || dst == src) return;
  TSL_SetStatus(dst, TSL_GetCode(src), TSL_Message(src));
  if (src != NULL) {
    for (const MT_Payload* p = src->payloads; p != NULL; p = p->next) TSL_SetPayload(dst, p->key, p->value);
  }
}
