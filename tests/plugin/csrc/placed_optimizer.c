/* A CPU graph optimizer that records what TensorFlow hands a plugin optimizer: the fetch and
   preserve lists, every node's name, op and device, and whether TF_InferStatically succeeds.
   It returns the graph unchanged. placed_probe() returns the record of the last call. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorflow/c/experimental/grappler/grappler.h"

static char record[16384];

static void add(const char* text) { strncat(record, text, sizeof(record) - strlen(record) - 1); }

static uint64_t varint(const unsigned char** p, const unsigned char* end) {
  uint64_t value = 0;
  for (int shift = 0; *p < end && shift < 64; shift += 7) {
    unsigned char byte = *(*p)++;
    value |= (uint64_t)(byte & 0x7f) << shift;
    if (!(byte & 0x80)) break;
  }
  return value;
}

/* Each NodeDef (GraphDef field 1) as "name|op|device;". */
static void list_nodes(const unsigned char* p, const unsigned char* end) {
  while (p < end) {
    uint64_t key = varint(&p, end);
    uint64_t len = (key & 7) == 2 ? varint(&p, end) : 0;
    if ((key & 7) == 0) {
      varint(&p, end);
      continue;
    }
    if ((key >> 3) == 1 && (key & 7) == 2) {
      const unsigned char* q = p;
      const unsigned char* node_end = p + len;
      char name[256] = "", op[256] = "", device[256] = "";
      while (q < node_end) {
        uint64_t k = varint(&q, node_end);
        if ((k & 7) == 0) {
          varint(&q, node_end);
          continue;
        }
        uint64_t n = varint(&q, node_end);
        char* target = (k >> 3) == 1 ? name : (k >> 3) == 2 ? op : (k >> 3) == 4 ? device : NULL;
        if (target != NULL) snprintf(target, 256, "%.*s", (int)n, (const char*)q);
        q += n;
      }
      char line[800];
      snprintf(line, sizeof line, "%s|%s|%s;", name, op, device);
      add(line);
    }
    p += len;
  }
}

static void names(const char* tag, const TF_GrapplerItem* item, int fetch, TF_Status* s) {
  int count = 0;
  size_t size = 0;
  char* values[64];
  size_t lengths[64];
  char storage[4096];
  if (fetch) {
    TF_GetFetchNodesListSize(item, &count, &size, s);
    TF_GetFetchNodesList(item, values, lengths, count < 64 ? count : 64, storage, sizeof storage, s);
  } else {
    TF_GetNodesToPreserveListSize(item, &count, &size, s);
    TF_GetNodesToPreserveList(item, values, lengths, count < 64 ? count : 64, storage, sizeof storage, s);
  }
  for (int i = 0; i < count && i < 64; ++i) {
    char line[300];
    snprintf(line, sizeof line, "%s=%.*s;", tag, (int)lengths[i], values[i]);
    add(line);
  }
}

static void release(void* data, size_t length) {
  (void)length;
  free(data);
}

static void optimize(void* state, const TF_Buffer* in, const TF_GrapplerItem* item, TF_Buffer* out, TF_Status* s) {
  (void)state;
  record[0] = '\0';
  names("fetch", item, 1, s);
  names("preserve", item, 0, s);
  TF_GraphProperties* props = TF_NewGraphProperties(item);
  TF_InferStatically(props, 0, 0, 0, 0, s);
  char line[300];
  snprintf(line, sizeof line, "infer=%d;", (int)TF_GetCode(s));
  add(line);
  TF_DeleteGraphProperties(props);
  list_nodes((const unsigned char*)in->data, (const unsigned char*)in->data + in->length);
  void* copy = malloc(in->length);
  memcpy(copy, in->data, in->length);
  out->data = copy;
  out->length = in->length;
  out->data_deallocator = release;
  TF_SetStatus(s, TF_OK, "");
}

#ifdef __cplusplus
extern "C" {
#endif

__attribute__((visibility("default"))) const char* placed_probe(void) { return record; }

__attribute__((visibility("default"))) void TF_InitGraph(TP_OptimizerRegistrationParams* params, TF_Status* status) {
  params->major_version = GO_MAJOR;
  params->minor_version = GO_MINOR;
  params->patch_version = GO_PATCH;
  params->device_type = "CPU";
  params->optimizer->optimize_func = optimize;
  TF_SetStatus(status, TF_OK, "");
}

#ifdef __cplusplus
}
#endif
