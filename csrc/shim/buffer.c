/* modtensor shim: TF_Buffer, a byte range plus the function that frees it. */
#include <stdlib.h>
#include <string.h>

#include "mt_internal.h"

static void free_bytes(void* data, size_t length) {
  (void)length;
  free(data);
}

TF_Buffer* TF_NewBuffer(void) {
  TF_Buffer* buffer = (TF_Buffer*)calloc(1, sizeof(TF_Buffer));
  if (buffer == NULL) abort();
  return buffer;
}

TF_Buffer* TF_NewBufferFromString(const void* proto, size_t proto_len) {
  TF_Buffer* buffer = TF_NewBuffer();
  void* copy = malloc(proto_len > 0 ? proto_len : 1);
  if (copy == NULL) abort();
  if (proto_len > 0) memcpy(copy, proto, proto_len);
  buffer->data = copy;
  buffer->length = proto_len;
  buffer->data_deallocator = free_bytes;
  return buffer;
}

void TF_DeleteBuffer(TF_Buffer* buffer) {
  if (buffer == NULL) return;
  if (buffer->data_deallocator != NULL) buffer->data_deallocator((void*)buffer->data, buffer->length);
  free(buffer);
}

TF_Buffer TF_GetBuffer(TF_Buffer* buffer) { return *buffer; }
