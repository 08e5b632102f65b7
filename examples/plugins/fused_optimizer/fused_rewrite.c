/* The device-independent part of the fused_optimizer example (see fused_rewrite.h): a small
 * protobuf codec for GraphDef, the rewrite Relu(BiasAdd(MatMul(a, b), bias)) ->
 * MyFusedMatMulBiasRelu(a, b, bias) keeping the Relu's name (so readers are unchanged), the
 * optimizer's registration, the op definition and the kernels' shape checks. Nodes are decoded
 * (name, op, inputs, device, attrs kept as raw map entries); every other field of the GraphDef
 * and of the nodes is copied through unchanged. */
#include "fused_rewrite.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tensorflow/c/ops.h"

/* ------------------------------------------------------------------ protobuf codec */

typedef struct {
  const uint8_t* p;
  size_t n;
} Bytes;

typedef struct {
  uint8_t* data;
  size_t size, cap;
} Out;

static void out_put(Out* o, const void* data, size_t n) {
  if (o->size + n > o->cap) {
    o->cap = (o->size + n) * 2 + 64;
    o->data = (uint8_t*)realloc(o->data, o->cap);
    if (o->data == NULL) abort();
  }
  memcpy(o->data + o->size, data, n);
  o->size += n;
}

static void out_varint(Out* o, uint64_t v) {
  uint8_t tmp[10];
  size_t n = 0;
  do {
    tmp[n] = (uint8_t)(v & 0x7f);
    v >>= 7;
    if (v) tmp[n] |= 0x80;
    ++n;
  } while (v);
  out_put(o, tmp, n);
}

static void out_bytes_field(Out* o, int field, const void* data, size_t n) {
  out_varint(o, ((uint64_t)field << 3) | 2);
  out_varint(o, n);
  out_put(o, data, n);
}

/* Reads a varint at *pos; returns 0 on malformed input. */
static int read_varint(Bytes b, size_t* pos, uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift < 64 && *pos < b.n; shift += 7) {
    uint8_t c = b.p[(*pos)++];
    *v |= (uint64_t)(c & 0x7f) << shift;
    if (!(c & 0x80)) return 1;
  }
  return 0;
}

/* One field: number, wire type, its payload (length-delimited: the bytes) and its whole encoding. */
typedef struct {
  int number, wire;
  Bytes payload, whole;
} Field;

static int next_field(Bytes b, size_t* pos, Field* f) {
  size_t start = *pos;
  uint64_t key, len;
  if (*pos >= b.n || !read_varint(b, pos, &key)) return 0;
  f->number = (int)(key >> 3);
  f->wire = (int)(key & 7);
  size_t body = *pos;
  switch (f->wire) {
    case 0:
      if (!read_varint(b, pos, &len)) return 0;
      break;
    case 1:
      *pos += 8;
      break;
    case 5:
      *pos += 4;
      break;
    case 2:
      if (!read_varint(b, pos, &len) || len > b.n - *pos) return 0;
      body = *pos;
      *pos += len;
      break;
    default:
      return 0;
  }
  if (*pos > b.n) return 0;
  f->payload = (Bytes){b.p + body, *pos - body};
  f->whole = (Bytes){b.p + start, *pos - start};
  return 1;
}

static int bytes_eq(Bytes b, const char* s) { return b.n == strlen(s) && memcmp(b.p, s, b.n) == 0; }

#define MAX_INPUTS 64
#define MAX_ATTRS 32

typedef struct {
  Bytes whole; /* the node's encoding */
  Bytes name, op, device;
  Bytes inputs[MAX_INPUTS];
  int num_inputs;
  Bytes attrs[MAX_ATTRS]; /* whole map-entry fields (tag included) */
  Bytes attr_keys[MAX_ATTRS];
  Bytes attr_values[MAX_ATTRS];
  int num_attrs;
  int uses;   /* data and control references by other nodes */
  int fused;  /* 1: dropped; 2: replaced by the fused node */
  int keep;   /* fetched or preserved */
} Node;

static int parse_node(Bytes b, Node* node) {
  memset(node, 0, sizeof(*node));
  node->whole = b;
  size_t pos = 0;
  Field f;
  while (pos < b.n) {
    if (!next_field(b, &pos, &f)) return 0;
    if (f.wire != 2) continue;
    if (f.number == 1) node->name = f.payload;
    if (f.number == 2) node->op = f.payload;
    if (f.number == 4) node->device = f.payload;
    if (f.number == 3) {
      if (node->num_inputs == MAX_INPUTS) return 0;
      node->inputs[node->num_inputs++] = f.payload;
    }
    if (f.number == 5) {
      if (node->num_attrs == MAX_ATTRS) return 0;
      size_t p2 = 0;
      Field e;
      Bytes key = {0}, value = {0};
      while (p2 < f.payload.n && next_field(f.payload, &p2, &e)) {
        if (e.number == 1) key = e.payload;
        if (e.number == 2) value = e.payload;
      }
      node->attr_keys[node->num_attrs] = key;
      node->attr_values[node->num_attrs] = value;
      node->attrs[node->num_attrs++] = f.whole;
    }
  }
  return node->name.n > 0;
}

static Bytes attr(const Node* node, const char* key) {
  for (int i = 0; i < node->num_attrs; ++i)
    if (bytes_eq(node->attr_keys[i], key)) return node->attr_values[i];
  return (Bytes){NULL, 0};
}

/* AttrValue{type: DT_FLOAT} is field 6, varint 1. */
static int is_float(const Node* node) {
  Bytes v = attr(node, "T");
  return v.n == 2 && v.p[0] == 0x30 && v.p[1] == 0x01;
}

/* The producer name of an input "name", "name:0" (0 for other outputs, -1 for a control input). */
static Bytes producer(Bytes input, int* port) {
  *port = 0;
  if (input.n > 0 && input.p[0] == '^') {
    *port = -1;
    return (Bytes){input.p + 1, input.n - 1};
  }
  for (size_t i = input.n; i > 0; --i) {
    if (input.p[i - 1] == ':') {
      *port = (input.n - i == 1 && input.p[i] == '0') ? 0 : 1;
      return (Bytes){input.p, i - 1};
    }
  }
  return input;
}

static int find(Node* nodes, int n, Bytes name) {
  for (int i = 0; i < n; ++i)
    if (nodes[i].name.n == name.n && memcmp(nodes[i].name.p, name.p, name.n) == 0) return i;
  return -1;
}

/* ------------------------------------------------------------------ the optimizer */

/* What TF_InitGraph registered: one optimizer per library. */
static const char* g_device_type = "CPU";
static int g_pinned_only = 0;

/* Nonzero when the device string names a device of `type`: "/device:TYPE:0", "/job:w/device:TYPE:1",
 * "/TYPE:0" (the short form), any letter case. */
static int placed_on(Bytes device, const char* type) {
  size_t len = strlen(type), i = 0;
  while (i < device.n) {
    size_t j = i;
    while (j < device.n && device.p[j] != '/') ++j;
    Bytes part = {device.p + i, j - i};
    if (part.n > 7 && strncasecmp((const char*)part.p, "device:", 7) == 0) {
      part.p += 7;
      part.n -= 7;
    }
    if (part.n > len && part.p[len] == ':' && strncasecmp((const char*)part.p, type, len) == 0) return 1;
    i = j + 1;
  }
  return 0;
}


typedef struct {
  int calls;
} State;

static void free_output(void* data, size_t length) {
  (void)length;
  free(data);
}

static int same_bytes(Bytes a, Bytes b) { return a.n == b.n && (a.n == 0 || memcmp(a.p, b.p, a.n) == 0); }

static void* create_optimizer(void) { return calloc(1, sizeof(State)); }
static void destroy_optimizer(void* state) { free(state); }

static void mark_kept(const TF_GrapplerItem* item, Node* nodes, int n, TF_Status* status) {
  int count = 0;
  size_t storage_size = 0;
  TF_GetNodesToPreserveListSize(item, &count, &storage_size, status);
  if (TF_GetCode(status) != TF_OK || count == 0) return;
  char** values = (char**)calloc((size_t)count, sizeof(char*));
  size_t* lengths = (size_t*)calloc((size_t)count, sizeof(size_t));
  char* storage = (char*)malloc(storage_size + 1);
  TF_GetNodesToPreserveList(item, values, lengths, count, storage, storage_size, status);
  for (int i = 0; TF_GetCode(status) == TF_OK && i < count; ++i) {
    int j = find(nodes, n, (Bytes){(const uint8_t*)values[i], lengths[i]});
    if (j >= 0) nodes[j].keep = 1;
  }
  free(values);
  free(lengths);
  free(storage);
}

static void optimize(void* state, const TF_Buffer* in, const TF_GrapplerItem* item, TF_Buffer* out,
                     TF_Status* status) {
  ((State*)state)->calls++;
  Bytes graph = {(const uint8_t*)in->data, in->length};
  int n = 0, cap = 0;
  Node* nodes = NULL;
  Out rest = {0};
  size_t pos = 0;
  Field f;
  while (pos < graph.n) {
    if (!next_field(graph, &pos, &f)) {
      TF_SetStatus(status, TF_INVALID_ARGUMENT, "fused_optimizer: malformed GraphDef");
      goto done;
    }
    if (f.number == 1 && f.wire == 2) {
      if (n == cap) {
        cap = cap ? cap * 2 : 64;
        nodes = (Node*)realloc(nodes, (size_t)cap * sizeof(Node));
        if (nodes == NULL) abort();
      }
      if (!parse_node(f.payload, &nodes[n])) {
        TF_SetStatus(status, TF_INVALID_ARGUMENT, "fused_optimizer: malformed or too large NodeDef");
        goto done;
      }
      ++n;
    } else {
      out_put(&rest, f.whole.p, f.whole.n);
    }
  }
  mark_kept(item, nodes, n, status);
  if (TF_GetCode(status) != TF_OK) goto done;
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < nodes[i].num_inputs; ++k) {
      int port;
      int j = find(nodes, n, producer(nodes[i].inputs[k], &port));
      if (j >= 0) nodes[j].uses += port == 0 ? 1 : 100; /* a control edge or another output blocks fusion */
    }
  }
  /* match Relu <- BiasAdd <- MatMul */
  int fusions = 0;
  for (int i = 0; i < n; ++i) {
    Node* relu = &nodes[i];
    if (!bytes_eq(relu->op, "Relu") || relu->num_inputs != 1 || !is_float(relu)) continue;
    int port;
    int b = find(nodes, n, producer(relu->inputs[0], &port));
    if (b < 0 || port != 0 || !bytes_eq(nodes[b].op, "BiasAdd") || nodes[b].uses != 1 || nodes[b].keep) continue;
    Bytes format = attr(&nodes[b], "data_format");
    if (format.n > 0 && !(format.n == 6 && memcmp(format.p + 2, "NHWC", 4) == 0)) continue;
    if (nodes[b].num_inputs != 2) continue;
    int m = find(nodes, n, producer(nodes[b].inputs[0], &port));
    if (m < 0 || port != 0 || !bytes_eq(nodes[m].op, "MatMul") || nodes[m].uses != 1 || nodes[m].keep) continue;
    if (!is_float(&nodes[m]) || nodes[m].num_inputs != 2 || !same_bytes(nodes[m].device, relu->device) ||
        !same_bytes(nodes[b].device, relu->device))
      continue;
    if (g_pinned_only && !placed_on(relu->device, g_device_type)) continue;
    nodes[b].fused = nodes[m].fused = 1;
    relu->fused = 2;
    /* the fused node's inputs: MatMul's two, BiasAdd's bias; attrs: MatMul's T and transposes */
    relu->inputs[0] = nodes[m].inputs[0];
    relu->inputs[1] = nodes[m].inputs[1];
    relu->inputs[2] = nodes[b].inputs[1];
    relu->num_inputs = 3;
    int kept = 0;
    for (int a = 0; a < nodes[m].num_attrs; ++a) {
      Bytes key = nodes[m].attr_keys[a];
      if (bytes_eq(key, "T") || bytes_eq(key, "transpose_a") || bytes_eq(key, "transpose_b")) {
        relu->attrs[kept] = nodes[m].attrs[a];
        relu->attr_keys[kept++] = key;
      }
    }
    relu->num_attrs = kept;
    ++fusions;
  }
  Out o = {0};
  for (int i = 0; i < n; ++i) {
    Node* node = &nodes[i];
    if (node->fused == 1) continue;
    if (node->fused == 0) {
      out_bytes_field(&o, 1, node->whole.p, node->whole.n);
      continue;
    }
    Out body = {0};
    out_bytes_field(&body, 1, node->name.p, node->name.n);
    out_bytes_field(&body, 2, FUSED_OP, strlen(FUSED_OP));
    for (int k = 0; k < node->num_inputs; ++k) out_bytes_field(&body, 3, node->inputs[k].p, node->inputs[k].n);
    if (node->device.n) out_bytes_field(&body, 4, node->device.p, node->device.n);
    for (int a = 0; a < node->num_attrs; ++a) out_put(&body, node->attrs[a].p, node->attrs[a].n);
    out_bytes_field(&o, 1, body.data, body.size);
    free(body.data);
  }
  out_put(&o, rest.data ? rest.data : (const uint8_t*)"", rest.size);
  out->data = o.data;
  out->length = o.size;
  out->data_deallocator = free_output; /* modtensor frees the bytes with TF_DeleteBuffer */
  (void)fusions;
done:
  free(nodes);
  free(rest.data);
}

void fused_optimizer_register(TP_OptimizerRegistrationParams* params, const char* device_type, int pinned_only,
                              TF_Status* status) {
  TF_SetStatus(status, TF_OK, "");
  g_device_type = device_type;
  g_pinned_only = pinned_only;
  params->struct_size = TP_OPTIMIZER_REGISTRATION_PARAMS_STRUCT_SIZE;
  params->major_version = GO_MAJOR;
  params->minor_version = GO_MINOR;
  params->patch_version = GO_PATCH;
  params->device_type = device_type;
  params->optimizer_configs->struct_size = TP_OPTIMIZER_CONFIGS_STRUCT_SIZE;
  /* the built-in remapper would fuse the same pattern into _FusedMatMul before the plugin runs */
  params->optimizer_configs->remapping = TF_TriState_Off;
  params->optimizer->struct_size = TP_OPTIMIZER_STRUCT_SIZE;
  params->optimizer->create_func = create_optimizer;
  params->optimizer->optimize_func = optimize;
  params->optimizer->destroy_func = destroy_optimizer;
}

/* ------------------------------------------------------------------ the fused op */

static void unknown_shape(TF_ShapeInferenceContext* ctx, TF_Status* status) {
  TF_ShapeInferenceContextSetUnknownShape(ctx, status);
}

void fused_op_register(TF_Status* status) {
  TF_OpDefinitionBuilder* op = TF_NewOpDefinitionBuilder(FUSED_OP);
  TF_OpDefinitionBuilderAddInput(op, "a: T");
  TF_OpDefinitionBuilderAddInput(op, "b: T");
  TF_OpDefinitionBuilderAddInput(op, "bias: T");
  TF_OpDefinitionBuilderAddOutput(op, "product: T");
  TF_OpDefinitionBuilderAddAttr(op, "T: {float}");
  TF_OpDefinitionBuilderAddAttr(op, "transpose_a: bool = false");
  TF_OpDefinitionBuilderAddAttr(op, "transpose_b: bool = false");
  TF_OpDefinitionBuilderSetShapeInferenceFunction(op, &unknown_shape);
  TF_RegisterOpDefinition(op, status);
}

int fused_op_shapes(const TF_Tensor* a, const TF_Tensor* b, const TF_Tensor* bias, int transpose_a, int transpose_b,
                    int64_t* m, int64_t* k, int64_t* n, TF_Status* status) {
  if (TF_NumDims(a) != 2 || TF_NumDims(b) != 2 || TF_NumDims(bias) != 1) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, FUSED_OP ": a and b must be matrices and bias a vector");
    return 0;
  }
  int64_t ka = TF_Dim(a, transpose_a ? 0 : 1), kb = TF_Dim(b, transpose_b ? 1 : 0);
  *m = TF_Dim(a, transpose_a ? 1 : 0);
  *n = TF_Dim(b, transpose_b ? 0 : 1);
  *k = ka;
  if (ka != kb || TF_Dim(bias, 0) != *n) {
    char msg[256];
    snprintf(msg, sizeof(msg),
             FUSED_OP ": incompatible shapes: a [%lld,%lld], b [%lld,%lld], bias [%lld] "
                      "(transpose_a=%d, transpose_b=%d)",
             (long long)TF_Dim(a, 0), (long long)TF_Dim(a, 1), (long long)TF_Dim(b, 0), (long long)TF_Dim(b, 1),
             (long long)TF_Dim(bias, 0), transpose_a, transpose_b);
    TF_SetStatus(status, TF_INVALID_ARGUMENT, msg);
    return 0;
  }
  return 1;
}
