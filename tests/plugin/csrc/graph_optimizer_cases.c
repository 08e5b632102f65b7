/* Graph-optimizer test plugins, one behaviour per -D flag:
 *   GOOD            a valid optimizer for TEST_GO_DEVICE (default "TEST_GO") that copies the graph and
 *                   checks the item/properties/op-def API (reports what it saw through go_probe_*)
 *   NO_OPTIMIZE     optimize_func is NULL
 *   BAD_SIZE        TP_Optimizer.struct_size is wrong
 *   BAD_MAJOR       the registration params' major version is changed
 *   NO_DEVICE       device_type is not set
 *   INIT_ERROR      TF_InitGraph reports an error status
 *   RETURNS_ERROR   optimize_func sets an error status
 *   RETURNS_GARBAGE optimize_func returns bytes that are not a GraphDef
 *   PLUGIN_NAME     export TF_InitGraphPlugin instead of TF_InitGraph */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorflow/c/experimental/grappler/grappler.h"

#ifndef TEST_GO_DEVICE
#define TEST_GO_DEVICE "TEST_GO"
#endif

int go_created = 0, go_destroyed = 0, go_calls = 0;
char go_probe[4096]; /* what the GOOD optimizer saw, as text */
unsigned char go_props[1024]; /* the serialized output properties of node "mm" */
size_t go_props_len = 0;

static int sentinel;
static void* create(void) {
  ++go_created;
  return &sentinel;
}
static void destroy(void* state) {
  if (state == &sentinel) ++go_destroyed;
}

static void append(const char* text) { strncat(go_probe, text, sizeof(go_probe) - strlen(go_probe) - 1); }

__attribute__((unused)) static void copy_out(const TF_Buffer* in, TF_Buffer* out) {
  void* data = malloc(in->length + 1);
  memcpy(data, in->data, in->length);
  out->data = data;
  out->length = in->length;
  out->data_deallocator = NULL; /* leaked on purpose: tests that no deallocator is fine */
}

__attribute__((unused)) static void probe(const TF_Buffer* in, const TF_GrapplerItem* item) {
  TF_Status* s = TF_NewStatus();
  char line[256];
  go_probe[0] = '\0';
  int count = 0;
  size_t size = 0;
  TF_GetFetchNodesListSize(item, &count, &size, s);
  char* values[16];
  size_t lengths[16];
  char storage[512];
  snprintf(line, sizeof line, "fetch %d %zu;", count, size);
  append(line);
  if (size > 0) { /* too small: TensorFlow's storage check */
    TF_GetFetchNodesList(item, values, lengths, count, storage, size - 1, s);
    snprintf(line, sizeof line, "small %d %s;", TF_GetCode(s), TF_Message(s));
    append(line);
  }
  TF_GetFetchNodesList(item, values, lengths, count < 16 ? count : 16, storage, sizeof storage, s);
  for (int i = 0; i < count && i < 16; ++i) {
    snprintf(line, sizeof line, "f=%.*s;", (int)lengths[i], values[i]);
    append(line);
  }
  TF_GetNodesToPreserveListSize(item, &count, &size, s);
  TF_GetNodesToPreserveList(item, values, lengths, count < 16 ? count : 16, storage, sizeof storage, s);
  for (int i = 0; i < count && i < 16; ++i) {
    snprintf(line, sizeof line, "p=%.*s;", (int)lengths[i], values[i]);
    append(line);
  }
  TF_GraphProperties* props = TF_NewGraphProperties(item);
  int n = -1;
  TF_GetOutputPropertiesListSize(props, "mm", &n, s);
  snprintf(line, sizeof line, "before %d;", TF_GetCode(s));
  append(line);
  TF_InferStatically(props, 1, 0, 0, 0, s);
  snprintf(line, sizeof line, "infer %d;", TF_GetCode(s));
  append(line);
  TF_GetInputPropertiesListSize(props, "mm", &n, s);
  snprintf(line, sizeof line, "mm inputs %d;", n);
  append(line);
  TF_GetOutputPropertiesListSize(props, "mm", &n, s);
  if (n == 1) {
    TF_Buffer* out = TF_NewBuffer();
    TF_GetOutputPropertiesList(props, "mm", &out, 1, s);
    snprintf(line, sizeof line, "mm out %d bytes=%zu;", TF_GetCode(s), out->length);
    append(line);
    go_props_len = out->length < sizeof go_props ? out->length : sizeof go_props;
    memcpy(go_props, out->data, go_props_len);
    TF_DeleteBuffer(out);
  }
  TF_DeleteGraphProperties(props);
  TF_FunctionLibraryDefinition* lib = TF_NewFunctionLibraryDefinition(in, s);
  TF_Buffer* def = TF_NewBuffer();
  TF_LookUpOpDef(lib, "MatMul", def, s);
  snprintf(line, sizeof line, "opdef %d %zu;", TF_GetCode(s), def->length);
  append(line);
  TF_DeleteBuffer(def);
  def = TF_NewBuffer();
  TF_LookUpOpDef(lib, "NoSuchOp", def, s);
  snprintf(line, sizeof line, "missing %d;", TF_GetCode(s));
  append(line);
  TF_DeleteBuffer(def);
  TF_DeleteFunctionLibraryDefinition(lib);
  TF_DeleteStatus(s);
}

static void optimize(void* state, const TF_Buffer* in, const TF_GrapplerItem* item, TF_Buffer* out, TF_Status* s) {
  (void)state;
  ++go_calls;
#if defined(RETURNS_ERROR)
  (void)in, (void)item, (void)out;
  TF_SetStatus(s, TF_INTERNAL, "the test optimizer failed on purpose");
#elif defined(RETURNS_GARBAGE)
  (void)in, (void)item, (void)s;
  static const char garbage[] = "\xff\xff\xff\xff not a graph";
  out->data = garbage;
  out->length = sizeof garbage - 1;
#else
  TF_SetStatus(s, TF_OK, "");
  probe(in, item);
  copy_out(in, out);
#endif
}

static void init(TP_OptimizerRegistrationParams* params, TF_Status* status) {
  TF_SetStatus(status, TF_OK, "");
  params->struct_size = TP_OPTIMIZER_REGISTRATION_PARAMS_STRUCT_SIZE;
  params->device_type = TEST_GO_DEVICE;
  params->optimizer_configs->struct_size = TP_OPTIMIZER_CONFIGS_STRUCT_SIZE;
  params->optimizer_configs->constant_folding = TF_TriState_Off;
  params->optimizer->struct_size = TP_OPTIMIZER_STRUCT_SIZE;
  params->optimizer->create_func = create;
  params->optimizer->optimize_func = optimize;
  params->optimizer->destroy_func = destroy;
#ifdef NO_OPTIMIZE
  params->optimizer->optimize_func = NULL;
#endif
#ifdef BAD_SIZE
  params->optimizer->struct_size = 8;
#endif
#ifdef BAD_MAJOR
  params->major_version = GO_MAJOR + 1;
#endif
#ifdef NO_DEVICE
  params->device_type = NULL;
#endif
#ifdef INIT_ERROR
  TF_SetStatus(status, TF_INVALID_ARGUMENT, "init refused on purpose");
#endif
}

#ifdef PLUGIN_NAME
void TF_InitGraphPlugin(TP_OptimizerRegistrationParams* params, TF_Status* status) { init(params, status); }
#else
void TF_InitGraph(TP_OptimizerRegistrationParams* params, TF_Status* status) { init(params, status); }
#endif
