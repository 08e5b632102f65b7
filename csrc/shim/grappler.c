/* modtensor shim: the Graph C API's item, properties and function-library objects
 * (tensorflow/c/experimental/grappler/grappler.h).
 *
 * A TF_GrapplerItem is a plain C snapshot that the Python side builds before it
 * calls a plugin's optimize_func (node names to preserve, fetch names, a token that
 * names the Python GrapplerItem). What needs the runtime (static inference, the op
 * registry) goes through two callbacks the Python side installs with
 * MT_SetGrapplerCallbacks (ctypes functions: they take the GIL themselves). Without
 * them those calls fail with TF_FAILED_PRECONDITION, as the rest of the shim does. */
#include <stdlib.h>
#include <string.h>

#include "mt_internal.h"
#include "tensorflow/c/experimental/grappler/grappler.h"

typedef struct MT_NameList {
  char** names;
  size_t* lengths;
  int count;
} MT_NameList;

struct TF_GrapplerItem {
  int64_t token; /* the Python GrapplerItem's key */
  MT_NameList preserve;
  MT_NameList fetch;
};

typedef struct MT_PropertyEntry {
  char* node;
  int is_output;
  int count;
  TF_Buffer** values;
} MT_PropertyEntry;

struct TF_GraphProperties {
  const TF_GrapplerItem* item;
  int inferred;
  MT_PropertyEntry* entries;
  size_t size;
  size_t capacity;
  size_t* index; /* open-addressing table of entry positions + 1 (0: empty), built on first lookup */
  size_t index_size;
};

struct TF_FunctionLibraryDefinition {
  void* graph;
  size_t length;
};

/* infer(token, properties, assume_valid_feeds, aggressive, include_inputs, include_outputs, status):
 * fills `properties` through MT_GraphPropertiesAdd. */
typedef void (*MT_InferFn)(int64_t, TF_GraphProperties*, int, int, int, int, TF_Status*);
/* look_up(graph bytes, length, name, out, status): the serialized OpDef of `name`. */
typedef void (*MT_LookUpOpDefFn)(const void*, size_t, const char*, TF_Buffer*, TF_Status*);

static MT_InferFn infer_callback = NULL;
static MT_LookUpOpDefFn look_up_callback = NULL;

MT_EXPORT void MT_SetGrapplerCallbacks(MT_InferFn infer, MT_LookUpOpDefFn look_up) {
  infer_callback = infer;
  look_up_callback = look_up;
}

static char* copy_bytes(const char* data, size_t length) {
  char* out = (char*)malloc(length + 1);
  if (out == NULL) abort();
  if (length > 0) memcpy(out, data, length);
  out[length] = '\0';
  return out;
}

static void fill_list(MT_NameList* list, const char* const* names, int count) {
  list->count = count > 0 ? count : 0;
  list->names = (char**)calloc((size_t)list->count + 1, sizeof(char*));
  list->lengths = (size_t*)calloc((size_t)list->count + 1, sizeof(size_t));
  if (list->names == NULL || list->lengths == NULL) abort();
  for (int i = 0; i < list->count; ++i) {
    list->lengths[i] = strlen(names[i]);
    list->names[i] = copy_bytes(names[i], list->lengths[i]);
  }
}

static void free_list(MT_NameList* list) {
  for (int i = 0; i < list->count; ++i) free(list->names[i]);
  free(list->names);
  free(list->lengths);
}

MT_EXPORT TF_GrapplerItem* MT_NewGrapplerItem(int64_t token, const char* const* preserve, int num_preserve,
                                              const char* const* fetch, int num_fetch) {
  TF_GrapplerItem* item = (TF_GrapplerItem*)calloc(1, sizeof(TF_GrapplerItem));
  if (item == NULL) abort();
  item->token = token;
  fill_list(&item->preserve, preserve, num_preserve);
  fill_list(&item->fetch, fetch, num_fetch);
  return item;
}

MT_EXPORT void MT_DeleteGrapplerItem(TF_GrapplerItem* item) {
  if (item == NULL) return;
  free_list(&item->preserve);
  free_list(&item->fetch);
  free(item);
}

static void list_size(const MT_NameList* list, int* num_values, size_t* storage_size, TF_Status* status) {
  TF_SetStatus(status, TF_OK, "");
  *num_values = list->count;
  *storage_size = 0;
  for (int i = 0; i < list->count; ++i) *storage_size += list->lengths[i];
}

/* TensorFlow's contract: values[i] points into `storage`, which must hold every name. */
static void list_values(const MT_NameList* list, char** values, size_t* lengths, int num_values, void* storage,
                        size_t storage_size, TF_Status* status) {
  TF_SetStatus(status, TF_OK, "");
  char* p = (char*)storage;
  char* end = (char*)storage + storage_size;
  for (int i = 0; i < list->count && i < num_values; ++i) {
    size_t n = list->lengths[i];
    if ((size_t)(end - p) < n) {
      TF_SetStatus(status, TF_INVALID_ARGUMENT, "Not enough storage to hold the requested list of nodes");
      return;
    }
    values[i] = p;
    lengths[i] = n;
    memcpy(p, list->names[i], n);
    p += n;
  }
}

void TF_GetNodesToPreserveListSize(const TF_GrapplerItem* item, int* num_values, size_t* storage_size,
                                   TF_Status* status) {
  list_size(&item->preserve, num_values, storage_size, status);
}

void TF_GetNodesToPreserveList(const TF_GrapplerItem* item, char** values, size_t* lengths, int num_values,
                               void* storage, size_t storage_size, TF_Status* status) {
  list_values(&item->preserve, values, lengths, num_values, storage, storage_size, status);
}

void TF_GetFetchNodesListSize(const TF_GrapplerItem* item, int* num_values, size_t* storage_size, TF_Status* status) {
  list_size(&item->fetch, num_values, storage_size, status);
}

void TF_GetFetchNodesList(const TF_GrapplerItem* item, char** values, size_t* lengths, int num_values, void* storage,
                          size_t storage_size, TF_Status* status) {
  list_values(&item->fetch, values, lengths, num_values, storage, storage_size, status);
}

/* The Python side's way to fill a caller's TF_Buffer with a copy of `data`. */
MT_EXPORT void MT_SetBufferBytes(TF_Buffer* buf, const void* data, size_t length) {
  TF_Buffer* tmp = TF_NewBufferFromString(data, length);
  buf->data = tmp->data;
  buf->length = tmp->length;
  buf->data_deallocator = tmp->data_deallocator;
  free(tmp);
}

/* ------------------------------------------------------------------ graph properties */

TF_GraphProperties* TF_NewGraphProperties(const TF_GrapplerItem* item) {
  TF_GraphProperties* props = (TF_GraphProperties*)calloc(1, sizeof(TF_GraphProperties));
  if (props == NULL) abort();
  props->item = item;
  return props;
}

static void clear_properties(TF_GraphProperties* props) {
  for (size_t i = 0; i < props->size; ++i) {
    MT_PropertyEntry* e = &props->entries[i];
    for (int j = 0; j < e->count; ++j) TF_DeleteBuffer(e->values[j]);
    free(e->values);
    free(e->node);
  }
  free(props->entries);
  free(props->index);
  props->index = NULL;
  props->index_size = 0;
  props->entries = NULL;
  props->size = props->capacity = 0;
  props->inferred = 0;
}

void TF_DeleteGraphProperties(TF_GraphProperties* graph_properties) {
  if (graph_properties == NULL) return;
  clear_properties(graph_properties);
  free(graph_properties);
}

/* The Python side adds one node's input (is_output 0) or output (1) properties: `count`
 * serialized OpInfo.TensorProperties. */
MT_EXPORT void MT_GraphPropertiesAdd(TF_GraphProperties* props, const char* node, int is_output, int count,
                                     const char* const* data, const size_t* lengths) {
  free(props->index); /* rebuilt on the next lookup */
  props->index = NULL;
  if (props->size == props->capacity) {
    size_t capacity = props->capacity ? props->capacity * 2 : 64;
    MT_PropertyEntry* grown = (MT_PropertyEntry*)realloc(props->entries, capacity * sizeof(MT_PropertyEntry));
    if (grown == NULL) abort();
    props->entries = grown;
    props->capacity = capacity;
  }
  MT_PropertyEntry* e = &props->entries[props->size++];
  e->node = copy_bytes(node, strlen(node));
  e->is_output = is_output;
  e->count = count;
  e->values = (TF_Buffer**)calloc((size_t)count + 1, sizeof(TF_Buffer*));
  if (e->values == NULL) abort();
  for (int i = 0; i < count; ++i) e->values[i] = TF_NewBufferFromString(data[i], lengths[i]);
}

void TF_InferStatically(TF_GraphProperties* graph_properties, TF_Bool assume_valid_feeds,
                        TF_Bool aggressive_shape_inference, TF_Bool include_input_tensor_values,
                        TF_Bool include_output_tensor_values, TF_Status* s) {
  TF_SetStatus(s, TF_OK, "");
  if (infer_callback == NULL) {
    MT_NoRuntime(s, "TF_InferStatically");
    return;
  }
  clear_properties(graph_properties);
  infer_callback(graph_properties->item->token, graph_properties, assume_valid_feeds != 0,
                 aggressive_shape_inference != 0, include_input_tensor_values != 0,
                 include_output_tensor_values != 0, s);
  graph_properties->inferred = TF_GetCode(s) == TF_OK;
}

static size_t hash_key(const char* name, int is_output) {
  size_t h = 1469598103934665603ull ^ (size_t)is_output;
  for (const unsigned char* p = (const unsigned char*)name; *p; ++p) h = (h ^ *p) * 1099511628211ull;
  return h;
}

static void build_index(TF_GraphProperties* props) {
  size_t n = 16;
  while (n < props->size * 2) n *= 2;
  props->index = (size_t*)calloc(n, sizeof(size_t));
  if (props->index == NULL) abort();
  props->index_size = n;
  for (size_t i = 0; i < props->size; ++i) {
    size_t slot = hash_key(props->entries[i].node, props->entries[i].is_output) & (n - 1);
    while (props->index[slot] != 0) slot = (slot + 1) & (n - 1);
    props->index[slot] = i + 1;
  }
}

static const MT_PropertyEntry* find_entry(TF_GraphProperties* props, const char* name, int is_output) {
  if (props->index == NULL) build_index(props);
  size_t mask = props->index_size - 1;
  for (size_t slot = hash_key(name, is_output) & mask; props->index[slot] != 0; slot = (slot + 1) & mask) {
    const MT_PropertyEntry* e = &props->entries[props->index[slot] - 1];
    if (e->is_output == is_output && strcmp(e->node, name) == 0) return e;
  }
  return NULL;
}

static void properties_size(TF_GraphProperties* props, const char* name, int is_output, int* num_values,
                            TF_Status* status) {
  TF_SetStatus(status, TF_OK, "");
  if (!props->inferred) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "Graph properties are unknown: call TF_InferStatically first.");
    return;
  }
  const MT_PropertyEntry* e = find_entry(props, name, is_output);
  *num_values = e == NULL ? 0 : e->count; /* TensorFlow: a node without properties has none */
}

static void properties_list(TF_GraphProperties* props, const char* name, int is_output, TF_Buffer** out,
                            int num_values, TF_Status* status) {
  TF_SetStatus(status, TF_OK, "");
  if (!props->inferred) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "Graph properties are unknown: call TF_InferStatically first.");
    return;
  }
  const MT_PropertyEntry* e = find_entry(props, name, is_output);
  int available = e == NULL ? 0 : e->count;
  if (num_values > available) {
    MT_SetStatusf(status, TF_INVALID_ARGUMENT, "Node '%s' has %d %s properties; %d were requested", name, available,
                  is_output ? "output" : "input", num_values);
    return;
  }
  for (int i = 0; i < num_values; ++i) {
    TF_Buffer* dst = out[i];
    if (dst->data != NULL) {
      TF_SetStatus(status, TF_INVALID_ARGUMENT, "Passing non-empty TF_Buffer is invalid.");
      return;
    }
    MT_SetBufferBytes(dst, e->values[i]->data, e->values[i]->length);
  }
}

void TF_GetInputPropertiesListSize(TF_GraphProperties* graph_properties, const char* name, int* num_values,
                                   TF_Status* status) {
  properties_size(graph_properties, name, 0, num_values, status);
}

void TF_GetOutputPropertiesListSize(TF_GraphProperties* graph_properties, const char* name, int* num_values,
                                    TF_Status* status) {
  properties_size(graph_properties, name, 1, num_values, status);
}

void TF_GetInputPropertiesList(TF_GraphProperties* graph_properties, const char* name, TF_Buffer** properties,
                               int num_values, TF_Status* status) {
  properties_list(graph_properties, name, 0, properties, num_values, status);
}

void TF_GetOutputPropertiesList(TF_GraphProperties* graph_properties, const char* name, TF_Buffer** properties,
                                int num_values, TF_Status* status) {
  properties_list(graph_properties, name, 1, properties, num_values, status);
}

/* ------------------------------------------------------------------ function library */

TF_FunctionLibraryDefinition* TF_NewFunctionLibraryDefinition(const TF_Buffer* graph_buf, TF_Status* status) {
  TF_SetStatus(status, TF_OK, "");
  TF_FunctionLibraryDefinition* lib = (TF_FunctionLibraryDefinition*)calloc(1, sizeof(*lib));
  if (lib == NULL) abort();
  lib->length = graph_buf == NULL ? 0 : graph_buf->length;
  lib->graph = malloc(lib->length > 0 ? lib->length : 1);
  if (lib->graph == NULL) abort();
  if (lib->length > 0) memcpy(lib->graph, graph_buf->data, lib->length);
  return lib;
}

void TF_DeleteFunctionLibraryDefinition(TF_FunctionLibraryDefinition* fn_lib) {
  if (fn_lib == NULL) return;
  free(fn_lib->graph);
  free(fn_lib);
}

void TF_LookUpOpDef(TF_FunctionLibraryDefinition* fn_lib, const char* name, TF_Buffer* buf, TF_Status* s) {
  TF_SetStatus(s, TF_OK, "");
  if (buf->data != NULL) {
    TF_SetStatus(s, TF_INVALID_ARGUMENT, "Passing non-empty TF_Buffer is invalid.");
    return;
  }
  if (look_up_callback == NULL) {
    MT_NoRuntime(s, "TF_LookUpOpDef");
    return;
  }
  look_up_callback(fn_lib->graph, fn_lib->length, name, buf, s);
}

