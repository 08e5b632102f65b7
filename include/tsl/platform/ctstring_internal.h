/* modtensor: TensorFlow-compatible C API headers (Apache-2.0, see the modtensor LICENSE).
 *
 * TF_TString, the element type of TF_STRING tensors, and its inline helpers.
 *
 * A TF_TString is 24 bytes. The low two bits of its first byte say which of
 * four representations is in use:
 *   SMALL  (0) up to 22 bytes stored inline, NUL-terminated; byte 0 = size << 2.
 *   LARGE  (1) heap buffer (malloc), NUL-terminated; size field = size << 2 | 1.
 *   OFFSET (2) read-only bytes at `offset` bytes from the TF_TString itself
 *              (little-endian uint32 fields; size field = size << 2 | 2).
 *   VIEW   (3) read-only, unowned pointer, optionally kept alive by an owner
 *              reference; size field = size << 2 | 3.
 * Writing to an OFFSET or VIEW string first turns it into SMALL or LARGE.
 * The encoding is shared with TensorFlow, so string tensors can be handed
 * between plugins and the runtime unchanged. */
#ifndef MODTENSOR_INCLUDE_TSL_PLATFORM_CTSTRING_INTERNAL_H_
#define MODTENSOR_INCLUDE_TSL_PLATFORM_CTSTRING_INTERNAL_H_

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if (defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) || \
    defined(_WIN32)
#define TF_TSTRING_LITTLE_ENDIAN 1
#else
#error "modtensor's TF_TString helpers support little-endian targets only"
#endif

/* Byte swap of a 32-bit value (kept for source compatibility). */
static inline uint32_t TF_swap32(uint32_t host_int) {
  return ((host_int & 0xFFu) << 24) | ((host_int & 0xFF00u) << 8) | ((host_int & 0xFF0000u) >> 8) |
         ((host_int & 0xFF000000u) >> 24);
}

/* Little-endian 32-bit field to host order (the identity on supported targets). */
#define TF_le32toh(x) (x)

/* Round up to a multiple of 16. */
static inline size_t TF_align16(size_t i) { return (i + 0xF) & ~(size_t)0xF; }

static inline size_t TF_max(size_t a, size_t b) { return a > b ? a : b; }
static inline size_t TF_min(size_t a, size_t b) { return a < b ? a : b; }

typedef enum TF_TString_Type {
  TF_TSTR_SMALL = 0x00,
  TF_TSTR_LARGE = 0x01,
  TF_TSTR_OFFSET = 0x02,
  TF_TSTR_VIEW = 0x03,
  TF_TSTR_TYPE_MASK = 0x03
} TF_TString_Type;

/* Shared ownership of the bytes behind a VIEW: `ref` adds a reference,
 * `unref` drops one (returning whether it was the last); `obj` is the owner's
 * private pointer. */
struct TStringOwnerCApi;

typedef void (*tstring_owner_ref_t)(struct TStringOwnerCApi *self);
typedef bool (*tstring_owner_unref_t)(struct TStringOwnerCApi *self);

typedef struct TStringOwnerCApi {
  tstring_owner_ref_t ref;
  tstring_owner_unref_t unref;
  void *obj;
} TStringOwnerCApi;

typedef struct TF_TString_Large {
  size_t size; /* size << 2 | TF_TSTR_LARGE */
  size_t cap;  /* usable bytes, not counting the terminating NUL */
  char *ptr;
} TF_TString_Large;

typedef struct TF_TString_Offset {
  uint32_t size;   /* size << 2 | TF_TSTR_OFFSET, little-endian */
  uint32_t offset; /* from the start of this TF_TString, little-endian */
  uint32_t count;  /* reserved */
} TF_TString_Offset;

typedef struct TF_TString_View {
  size_t size; /* size << 2 | TF_TSTR_VIEW */
  const char *ptr;
  TStringOwnerCApi *owner_ref; /* NULL: the bytes are not owned */
} TF_TString_View;

typedef struct TF_TString_Raw {
  uint8_t raw[24];
} TF_TString_Raw;

typedef union TF_TString_Union {
  TF_TString_Large large;
  TF_TString_Offset offset;
  TF_TString_View view;
  TF_TString_Raw raw;
} TF_TString_Union;

/* Bytes a SMALL string holds: the union minus its size byte and the NUL. */
enum { TF_TString_SmallCapacity = (sizeof(TF_TString_Union) - sizeof(char) - sizeof(uint8_t)) };

typedef struct TF_TString_Small {
  uint8_t size; /* size << 2 | TF_TSTR_SMALL */
  char str[TF_TString_SmallCapacity + sizeof(char)];
} TF_TString_Small;

typedef struct TF_TString {
  union {
    TF_TString_Small smll; /* not `small`: MSVC headers define that as a macro */
    TF_TString_Large large;
    TF_TString_Offset offset;
    TF_TString_View view;
    TF_TString_Raw raw;
  } u;
} TF_TString;

/* Which representation `str` uses. */
static inline TF_TString_Type TF_TString_GetType(const TF_TString *str) {
  return (TF_TString_Type)(str->u.raw.raw[0] & TF_TSTR_TYPE_MASK);
}

/* Encoded size field -> byte count. */
static inline size_t TF_TString_ToActualSizeT(size_t size) { return size >> 2; }

/* Byte count and representation -> encoded size field. */
static inline size_t TF_TString_ToInternalSizeT(size_t size, TF_TString_Type type) {
  return (size << 2) | (size_t)type;
}

/* Make `str` the empty SMALL string. Call before any other helper. */
static inline void TF_TString_Init(TF_TString *str) { memset(str->u.raw.raw, 0, sizeof(TF_TString_Raw)); }

/* Free a LARGE buffer or drop a VIEW's owner reference, leaving `str` empty. */
static inline void TF_TString_Dealloc(TF_TString *str) {
  TF_TString_Type type = TF_TString_GetType(str);
  if (type == TF_TSTR_LARGE && str->u.large.ptr != NULL) {
    free(str->u.large.ptr);
    TF_TString_Init(str);
  } else if (type == TF_TSTR_VIEW && str->u.view.owner_ref != NULL) {
    TStringOwnerCApi *owner = str->u.view.owner_ref;
    (void)owner->unref(owner);
    TF_TString_Init(str);
  }
}

/* Length in bytes. */
static inline size_t TF_TString_GetSize(const TF_TString *str) {
  switch (TF_TString_GetType(str)) {
    case TF_TSTR_SMALL:
      return (size_t)(str->u.smll.size >> 2);
    case TF_TSTR_LARGE:
      return TF_TString_ToActualSizeT(str->u.large.size);
    case TF_TSTR_OFFSET:
      return (size_t)(TF_le32toh(str->u.offset.size) >> 2);
    case TF_TSTR_VIEW:
      return TF_TString_ToActualSizeT(str->u.view.size);
    default:
      return 0;
  }
}

/* Bytes that fit without reallocating; 0 for the read-only OFFSET and VIEW. */
static inline size_t TF_TString_GetCapacity(const TF_TString *str) {
  switch (TF_TString_GetType(str)) {
    case TF_TSTR_SMALL:
      return (size_t)TF_TString_SmallCapacity;
    case TF_TSTR_LARGE:
      return str->u.large.cap;
    default:
      return 0;
  }
}

/* First byte of the contents (not necessarily NUL-terminated for VIEW/OFFSET). */
static inline const char *TF_TString_GetDataPointer(const TF_TString *str) {
  switch (TF_TString_GetType(str)) {
    case TF_TSTR_SMALL:
      return str->u.smll.str;
    case TF_TSTR_LARGE:
      return str->u.large.ptr;
    case TF_TSTR_OFFSET:
      return (const char *)str + TF_le32toh(str->u.offset.offset);
    case TF_TSTR_VIEW:
      return str->u.view.ptr;
    default:
      return NULL;
  }
}

/* Set the length to `new_size`, keeping the first min(old, new) bytes; bytes
 * beyond the old length are left uninitialized. The result is SMALL when it
 * fits, otherwise LARGE (capacity rounded to 16n - 1, shrunk when the string
 * drops below half of it). Returns the writable contents. */
static inline char *TF_TString_ResizeUninitialized(TF_TString *str, size_t new_size) {
  const TF_TString_Type old_type = TF_TString_GetType(str);
  const size_t old_size = TF_TString_GetSize(str);
  const size_t keep = TF_min(new_size, old_size);
  const char *old_data = TF_TString_GetDataPointer(str);
  TStringOwnerCApi *old_owner = old_type == TF_TSTR_VIEW ? str->u.view.owner_ref : NULL;

  if (new_size <= (size_t)TF_TString_SmallCapacity) {
    if (old_type != TF_TSTR_SMALL && keep > 0) {
      /* old_data lies outside the 24 bytes about to be overwritten */
      memcpy(str->u.smll.str, old_data, keep);
    }
    str->u.smll.size = (uint8_t)((new_size << 2) | TF_TSTR_SMALL);
    str->u.smll.str[new_size] = '\0';
    if (old_type == TF_TSTR_LARGE) {
      free((void *)old_data);
    } else if (old_owner != NULL) {
      (void)old_owner->unref(old_owner);
    }
    return str->u.smll.str;
  }

  const size_t old_cap = TF_TString_GetCapacity(str);
  size_t new_cap = old_cap;
  if (new_size < old_size && new_size < old_cap / 2) {
    new_cap = TF_align16(old_cap / 2 + 1) - 1;
  } else if (new_size > old_cap) {
    new_cap = TF_align16(new_size + 1) - 1;
  }

  char *data;
  if (old_type == TF_TSTR_LARGE) {
    data = new_cap == old_cap ? str->u.large.ptr : (char *)realloc(str->u.large.ptr, new_cap + 1);
  } else {
    data = (char *)malloc(new_cap + 1);
    if (keep > 0) memcpy(data, old_data, keep);
    if (old_owner != NULL) (void)old_owner->unref(old_owner);
  }
  str->u.large.size = TF_TString_ToInternalSizeT(new_size, TF_TSTR_LARGE);
  str->u.large.cap = new_cap;
  str->u.large.ptr = data;
  data[new_size] = '\0';
  return data;
}

/* Writable contents; an OFFSET or VIEW string is first copied into owned memory. */
static inline char *TF_TString_GetMutableDataPointer(TF_TString *str) {
  switch (TF_TString_GetType(str)) {
    case TF_TSTR_SMALL:
      return str->u.smll.str;
    case TF_TSTR_LARGE:
      return str->u.large.ptr;
    case TF_TSTR_OFFSET:
    case TF_TSTR_VIEW:
      return TF_TString_ResizeUninitialized(str, TF_TString_GetSize(str));
    default:
      return NULL;
  }
}

/* Make room for at least `new_cap` bytes without changing size or contents.
 * Capacities a SMALL string already has are a no-op. */
static inline void TF_TString_Reserve(TF_TString *str, size_t new_cap) {
  const TF_TString_Type type = TF_TString_GetType(str);
  if (new_cap <= (size_t)TF_TString_SmallCapacity) return;
  if (type == TF_TSTR_LARGE && new_cap <= str->u.large.cap) return;

  const size_t size = TF_TString_GetSize(str);
  const char *old_data = TF_TString_GetDataPointer(str);
  new_cap = TF_align16(TF_max(new_cap, size) + 1) - 1;
  if (type == TF_TSTR_LARGE) {
    str->u.large.ptr = (char *)realloc(str->u.large.ptr, new_cap + 1);
  } else {
    TStringOwnerCApi *old_owner = type == TF_TSTR_VIEW ? str->u.view.owner_ref : NULL;
    char *data = (char *)malloc(new_cap + 1);
    memcpy(data, old_data, size);
    data[size] = '\0';
    if (old_owner != NULL) (void)old_owner->unref(old_owner);
    str->u.large.size = TF_TString_ToInternalSizeT(size, TF_TSTR_LARGE);
    str->u.large.ptr = data;
  }
  str->u.large.cap = new_cap;
}

/* Like TF_TString_Reserve, but grows by at least a factor of two so repeated
 * appends take amortized constant time. */
static inline void TF_TString_ReserveAmortized(TF_TString *str, size_t new_cap) {
  const size_t cap = TF_TString_GetCapacity(str);
  if (new_cap > cap) TF_TString_Reserve(str, TF_max(new_cap, 2 * cap));
}

/* Set the length to `new_size`, filling any new bytes with `c`. */
static inline char *TF_TString_Resize(TF_TString *str, size_t new_size, char c) {
  const size_t old_size = TF_TString_GetSize(str);
  char *data = TF_TString_ResizeUninitialized(str, new_size);
  if (new_size > old_size) memset(data + old_size, c, new_size - old_size);
  return data;
}

/* Make `dst` a VIEW of `size` bytes at `src`, holding a reference on
 * `owner_ref` (if not NULL) for as long as the view exists. */
static inline void TF_TString_AssignViewWithOwner(TF_TString *dst, const char *src, size_t size,
                                                  TStringOwnerCApi *owner_ref) {
  if (owner_ref != NULL) owner_ref->ref(owner_ref);
  TF_TString_Dealloc(dst);
  dst->u.view.size = TF_TString_ToInternalSizeT(size, TF_TSTR_VIEW);
  dst->u.view.ptr = src;
  dst->u.view.owner_ref = owner_ref;
}

/* Make `dst` an unowned VIEW of `size` bytes at `src`; `src` must outlive it. */
static inline void TF_TString_AssignView(TF_TString *dst, const char *src, size_t size) {
  TF_TString_AssignViewWithOwner(dst, src, size, NULL);
}

/* Append `src_size` bytes; `src` must not point into `dst`. */
static inline void TF_TString_AppendN(TF_TString *dst, const char *src, size_t src_size) {
  if (src_size == 0) return;
  const size_t size = TF_TString_GetSize(dst);
  TF_TString_ReserveAmortized(dst, size + src_size);
  char *data = TF_TString_ResizeUninitialized(dst, size + src_size);
  memcpy(data + size, src, src_size);
}

static inline void TF_TString_Append(TF_TString *dst, const TF_TString *src) {
  TF_TString_AppendN(dst, TF_TString_GetDataPointer(src), TF_TString_GetSize(src));
}

/* Replace the contents of `dst` with an owned (SMALL or LARGE) copy of
 * `size` bytes at `src`. */
static inline void TF_TString_Copy(TF_TString *dst, const char *src, size_t size) {
  char *data = TF_TString_ResizeUninitialized(dst, size);
  if (size > 0) memcpy(data, src, size);
}

/* Make `dst` equal to `src`: SMALL and VIEW are copied as is (a VIEW's owner
 * gains a reference), LARGE is deep-copied, OFFSET becomes a VIEW. */
static inline void TF_TString_Assign(TF_TString *dst, const TF_TString *src) {
  if (dst == src) return;
  switch (TF_TString_GetType(src)) {
    case TF_TSTR_SMALL:
      TF_TString_Dealloc(dst);
      *dst = *src;
      return;
    case TF_TSTR_VIEW:
      TF_TString_Dealloc(dst);
      *dst = *src;
      if (dst->u.view.owner_ref != NULL) dst->u.view.owner_ref->ref(dst->u.view.owner_ref);
      return;
    case TF_TSTR_LARGE:
      TF_TString_Dealloc(dst);
      TF_TString_Copy(dst, TF_TString_GetDataPointer(src), TF_TString_GetSize(src));
      return;
    case TF_TSTR_OFFSET:
      TF_TString_AssignView(dst, TF_TString_GetDataPointer(src), TF_TString_GetSize(src));
      return;
    default:
      return;
  }
}

/* Move `src` into `dst` in constant time. A LARGE or VIEW `src` is left empty;
 * an OFFSET `src` yields a VIEW of it. */
static inline void TF_TString_Move(TF_TString *dst, TF_TString *src) {
  if (dst == src) return;
  TF_TString_Dealloc(dst);
  switch (TF_TString_GetType(src)) {
    case TF_TSTR_SMALL:
      *dst = *src;
      return;
    case TF_TSTR_LARGE:
    case TF_TSTR_VIEW:
      *dst = *src;
      TF_TString_Init(src);
      return;
    case TF_TSTR_OFFSET:
      TF_TString_AssignView(dst, TF_TString_GetDataPointer(src), TF_TString_GetSize(src));
      return;
    default:
      return;
  }
}

#endif /* MODTENSOR_INCLUDE_TSL_PLATFORM_CTSTRING_INTERNAL_H_ */
