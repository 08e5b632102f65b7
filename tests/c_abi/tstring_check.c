/* Checks of the inline TF_TString helpers (tsl/platform/ctstring.h), run by
 * test_c_headers.py against modtensor's include/. The expected values are
 * TensorFlow's encoding: the same program passes against TensorFlow 2.21's
 * own headers (-I <tensorflow>/include). Prints "ok" or the failed checks. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "tensorflow/core/platform/ctstring.h"

static int failures = 0;

#define CHECK(cond)                                          \
  do {                                                       \
    if (!(cond)) {                                           \
      printf("FAIL line %d: %s\n", __LINE__, #cond);         \
      failures++;                                            \
    }                                                        \
  } while (0)

typedef struct CountingOwner {
  TStringOwnerCApi api;
  int refs;
} CountingOwner;

static void owner_ref(TStringOwnerCApi *self) { ((CountingOwner *)self)->refs++; }
static bool owner_unref(TStringOwnerCApi *self) { return --((CountingOwner *)self)->refs == 0; }

typedef struct OffsetBlob {
  TF_TString head;
  char bytes[8];
} OffsetBlob;

static int same(const TF_TString *s, const char *text) {
  size_t n = strlen(text);
  return TF_TString_GetSize(s) == n && memcmp(TF_TString_GetDataPointer(s), text, n) == 0;
}

int main(void) {
  CHECK(sizeof(TF_TString) == 24);
  CHECK(TF_TString_SmallCapacity == 22);

  /* Init: empty SMALL, all bytes zero. */
  TF_TString s;
  memset(&s, 0xAB, sizeof(s));
  TF_TString_Init(&s);
  for (size_t i = 0; i < sizeof(s); ++i) CHECK(s.u.raw.raw[i] == 0);
  CHECK(TF_TString_GetType(&s) == TF_TSTR_SMALL);
  CHECK(TF_TString_GetSize(&s) == 0);
  CHECK(TF_TString_GetCapacity(&s) == 22);

  /* SMALL: first byte is size << 2, contents inline and NUL-terminated. */
  TF_TString_Copy(&s, "abc", 3);
  CHECK(s.u.raw.raw[0] == (3 << 2));
  CHECK(memcmp(s.u.raw.raw + 1, "abc", 4) == 0);
  CHECK(same(&s, "abc"));
  TF_TString_Copy(&s, "0123456789012345678901", 22);
  CHECK(TF_TString_GetType(&s) == TF_TSTR_SMALL);
  CHECK(TF_TString_GetDataPointer(&s)[22] == '\0');

  /* LARGE: size field size << 2 | 1, capacity 16n - 1. */
  TF_TString_Copy(&s, "01234567890123456789012", 23);
  CHECK(TF_TString_GetType(&s) == TF_TSTR_LARGE);
  CHECK(s.u.large.size == ((size_t)23 << 2 | 1));
  CHECK(TF_TString_GetCapacity(&s) == 31);
  CHECK(TF_TString_GetDataPointer(&s)[23] == '\0');
  TF_TString_Resize(&s, 40, 'x');
  CHECK(TF_TString_GetSize(&s) == 40);
  CHECK(TF_TString_GetCapacity(&s) == 47);
  CHECK(TF_TString_GetDataPointer(&s)[39] == 'x' && TF_TString_GetDataPointer(&s)[22] == '2');
  TF_TString_Resize(&s, 30, 0);
  CHECK(TF_TString_GetCapacity(&s) == 47);
  TF_TString_Resize(&s, 5, 0); /* back to SMALL, keeping the prefix */
  CHECK(TF_TString_GetType(&s) == TF_TSTR_SMALL);
  CHECK(same(&s, "01234"));
  TF_TString_Reserve(&s, 100);
  CHECK(TF_TString_GetType(&s) == TF_TSTR_LARGE);
  CHECK(TF_TString_GetCapacity(&s) == 111);
  CHECK(same(&s, "01234"));
  TF_TString_Resize(&s, 24, 'y');
  TF_TString_Resize(&s, 23, 0); /* below half the capacity: shrinks */
  CHECK(TF_TString_GetCapacity(&s) == 63);
  TF_TString_Dealloc(&s);
  CHECK(TF_TString_GetType(&s) == TF_TSTR_SMALL && TF_TString_GetSize(&s) == 0);

  /* Append grows amortized (at least doubling). */
  TF_TString a;
  TF_TString_Init(&a);
  for (int i = 0; i < 10; ++i) TF_TString_AppendN(&a, "abcde", 5);
  CHECK(TF_TString_GetSize(&a) == 50);
  CHECK(TF_TString_GetCapacity(&a) == 95); /* 22 -> 47 -> 95 */
  CHECK(memcmp(TF_TString_GetDataPointer(&a) + 45, "abcde", 5) == 0);

  /* VIEW: unowned pointer, size << 2 | 3, capacity 0; writing copies. */
  static const char text[] = "a view of some external bytes";
  TF_TString v;
  TF_TString_Init(&v);
  TF_TString_AssignView(&v, text, 6);
  CHECK(TF_TString_GetType(&v) == TF_TSTR_VIEW);
  CHECK(v.u.view.size == ((size_t)6 << 2 | 3));
  CHECK(TF_TString_GetDataPointer(&v) == text);
  CHECK(TF_TString_GetCapacity(&v) == 0);
  char *w = TF_TString_GetMutableDataPointer(&v);
  CHECK(TF_TString_GetType(&v) == TF_TSTR_SMALL && w != text && same(&v, "a view"));

  /* Views with an owner hold a reference while they live. */
  CountingOwner owner = {{owner_ref, owner_unref, NULL}, 1};
  TF_TString_AssignViewWithOwner(&v, text, 29, &owner.api);
  CHECK(owner.refs == 2);
  TF_TString copy;
  TF_TString_Init(&copy);
  TF_TString_Assign(&copy, &v);
  CHECK(owner.refs == 3 && TF_TString_GetType(&copy) == TF_TSTR_VIEW);
  TF_TString_Dealloc(&copy);
  CHECK(owner.refs == 2);
  TF_TString_Append(&v, &a); /* becomes LARGE, drops the reference */
  CHECK(owner.refs == 1 && TF_TString_GetType(&v) == TF_TSTR_LARGE && TF_TString_GetSize(&v) == 79);

  /* Assign deep-copies LARGE; Move steals it and empties the source. */
  TF_TString b;
  TF_TString_Init(&b);
  TF_TString_Assign(&b, &v);
  CHECK(TF_TString_GetType(&b) == TF_TSTR_LARGE && TF_TString_GetDataPointer(&b) != TF_TString_GetDataPointer(&v));
  CHECK(TF_TString_GetSize(&b) == 79 && memcmp(TF_TString_GetDataPointer(&b), text, 29) == 0);
  const char *moved = TF_TString_GetDataPointer(&v);
  TF_TString c;
  TF_TString_Init(&c);
  TF_TString_Move(&c, &v);
  CHECK(TF_TString_GetDataPointer(&c) == moved && TF_TString_GetSize(&v) == 0);

  /* OFFSET: bytes at a little-endian offset from the struct; assigning gives a VIEW. */
  OffsetBlob blob;
  blob.head.u.offset.size = (5u << 2) | TF_TSTR_OFFSET;
  blob.head.u.offset.offset = (uint32_t)offsetof(OffsetBlob, bytes);
  blob.head.u.offset.count = 0;
  memcpy(blob.bytes, "hello", 5);
  CHECK(TF_TString_GetType(&blob.head) == TF_TSTR_OFFSET);
  CHECK(TF_TString_GetSize(&blob.head) == 5 && TF_TString_GetDataPointer(&blob.head) == blob.bytes);
  TF_TString o;
  TF_TString_Init(&o);
  TF_TString_Assign(&o, &blob.head);
  CHECK(TF_TString_GetType(&o) == TF_TSTR_VIEW && TF_TString_GetDataPointer(&o) == blob.bytes);

  TF_TString_Dealloc(&a);
  TF_TString_Dealloc(&b);
  TF_TString_Dealloc(&c);
  TF_TString_Dealloc(&o);
  if (failures == 0) printf("ok\n");
  return failures == 0 ? 0 : 1;
}
