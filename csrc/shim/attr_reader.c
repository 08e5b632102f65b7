/* modtensor shim: protobuf wire-format reading of AttrValue and TensorShapeProto. */
#include "attr_reader.h"

#include <string.h>

typedef struct Reader {
  const uint8_t* p;
  const uint8_t* end;
} Reader;

static int read_varint(Reader* r, uint64_t* out) {
  uint64_t value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (r->p >= r->end) return -1;
    uint8_t byte = *r->p++;
    value |= (uint64_t)(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) {
      *out = value;
      return 0;
    }
  }
  return -1;
}

/* One field: its number, wire type and payload (varint value, or bytes for
 * length-delimited and fixed-size fields). */
typedef struct Field {
  uint32_t number;
  uint32_t wire;
  uint64_t varint;
  MT_Bytes bytes;
} Field;

static int next_field(Reader* r, Field* f) {
  uint64_t tag;
  if (read_varint(r, &tag) != 0) return -1;
  f->number = (uint32_t)(tag >> 3);
  f->wire = (uint32_t)(tag & 7);
  f->bytes.data = NULL;
  f->bytes.len = 0;
  switch (f->wire) {
    case 0:
      return read_varint(r, &f->varint);
    case 1:
      if (r->end - r->p < 8) return -1;
      f->bytes.data = r->p;
      f->bytes.len = 8;
      r->p += 8;
      return 0;
    case 2: {
      uint64_t len;
      if (read_varint(r, &len) != 0 || len > (uint64_t)(r->end - r->p)) return -1;
      f->bytes.data = r->p;
      f->bytes.len = (size_t)len;
      r->p += len;
      return 0;
    }
    case 5:
      if (r->end - r->p < 4) return -1;
      f->bytes.data = r->p;
      f->bytes.len = 4;
      r->p += 4;
      return 0;
    default:
      return -1;
  }
}

static float read_float(const uint8_t* p) {
  uint32_t bits = (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

int MT_ParseAttrValue(const void* data, size_t len, MT_AttrValue* out) {
  memset(out, 0, sizeof *out);
  Reader r = {(const uint8_t*)data, (const uint8_t*)data + len};
  while (r.p < r.end) {
    Field f;
    if (next_field(&r, &f) != 0) return -1;
    switch (f.number) {
      case MT_ATTR_I: case MT_ATTR_B: case MT_ATTR_TYPE:
        if (f.wire != 0) return -1;
        out->value_case = (int)f.number;
        out->varint = f.varint;
        break;
      case MT_ATTR_F:
        if (f.wire != 5) return -1;
        out->value_case = MT_ATTR_F;
        out->f = read_float(f.bytes.data);
        break;
      case MT_ATTR_LIST: case MT_ATTR_S: case MT_ATTR_SHAPE: case MT_ATTR_TENSOR: case MT_ATTR_PLACEHOLDER:
      case MT_ATTR_FUNC:
        if (f.wire != 2) return -1;
        out->value_case = (int)f.number;
        out->bytes = f.bytes;
        break;
      default:
        break; /* unknown field: ignore, as protobuf does */
    }
  }
  return 0;
}

/* Visit the elements of a repeated field: fn(element_field, arg) per element.
 * Packed numeric fields are expanded. Returns the element count or -1. */
static int for_each_element(MT_Bytes list, int field, int (*fn)(const Field* element, void* arg), void* arg) {
  Reader r = {list.data, list.data + list.len};
  int count = 0;
  while (r.p < r.end) {
    Field f;
    if (next_field(&r, &f) != 0) return -1;
    if ((int)f.number != field) continue;
    int numeric = field == MT_LIST_I || field == MT_LIST_B || field == MT_LIST_TYPE || field == MT_LIST_F;
    if (numeric && f.wire == 2) { /* packed */
      Reader pr = {f.bytes.data, f.bytes.data + f.bytes.len};
      while (pr.p < pr.end) {
        Field e = {(uint32_t)field, 0, 0, {NULL, 0}};
        if (field == MT_LIST_F) {
          if (pr.end - pr.p < 4) return -1;
          e.wire = 5;
          e.bytes.data = pr.p;
          e.bytes.len = 4;
          pr.p += 4;
        } else if (read_varint(&pr, &e.varint) != 0) {
          return -1;
        }
        if (fn != NULL && fn(&e, arg) != 0) return count;
        ++count;
      }
    } else {
      if (fn != NULL && fn(&f, arg) != 0) return count;
      ++count;
    }
  }
  return count;
}

int MT_ListCount(MT_Bytes list, int field) { return for_each_element(list, field, NULL, NULL); }

typedef struct Collect {
  void* out;
  int max;
  int n;
} Collect;

static int collect_varint(const Field* e, void* arg) {
  Collect* c = (Collect*)arg;
  if (c->n >= c->max) return 1;
  ((int64_t*)c->out)[c->n++] = (int64_t)e->varint;
  return 0;
}

static int collect_float(const Field* e, void* arg) {
  Collect* c = (Collect*)arg;
  if (c->n >= c->max) return 1;
  ((float*)c->out)[c->n++] = e->wire == 5 ? read_float(e->bytes.data) : 0.0f;
  return 0;
}

static int collect_bytes(const Field* e, void* arg) {
  Collect* c = (Collect*)arg;
  if (c->n >= c->max) return 1;
  ((MT_Bytes*)c->out)[c->n++] = e->bytes;
  return 0;
}

int MT_ListVarints(MT_Bytes list, int field, int64_t* out, int max) {
  Collect c = {out, max, 0};
  if (max <= 0) return 0;
  for_each_element(list, field, collect_varint, &c);
  return c.n;
}

int MT_ListFloats(MT_Bytes list, float* out, int max) {
  Collect c = {out, max, 0};
  if (max <= 0) return 0;
  for_each_element(list, MT_LIST_F, collect_float, &c);
  return c.n;
}

int MT_ListBytes(MT_Bytes list, int field, MT_Bytes* out, int max) {
  Collect c = {out, max, 0};
  if (max <= 0) return 0;
  for_each_element(list, field, collect_bytes, &c);
  return c.n;
}

int MT_ParseShape(MT_Bytes shape, int64_t* dims, int max_dims, int* rank) {
  Reader r = {shape.data, shape.data + shape.len};
  int n = 0;
  int unknown_rank = 0;
  while (r.p < r.end) {
    Field f;
    if (next_field(&r, &f) != 0) return -1;
    if (f.number == 2 && f.wire == 2) { /* Dim */
      int64_t size = 0;
      Reader dr = {f.bytes.data, f.bytes.data + f.bytes.len};
      while (dr.p < dr.end) {
        Field d;
        if (next_field(&dr, &d) != 0) return -1;
        if (d.number == 1 && d.wire == 0) size = (int64_t)d.varint;
      }
      if (n < max_dims) dims[n] = size;
      ++n;
    } else if (f.number == 3 && f.wire == 0) {
      unknown_rank = f.varint != 0;
    }
  }
  *rank = unknown_rank ? -1 : n;
  return 0;
}

const char* MT_AttrKindName(const MT_AttrValue* value) {
  switch (value->value_case) {
    case MT_ATTR_S: return "string";
    case MT_ATTR_I: return "int";
    case MT_ATTR_F: return "float";
    case MT_ATTR_B: return "bool";
    case MT_ATTR_TYPE: return "type";
    case MT_ATTR_SHAPE: return "shape";
    case MT_ATTR_TENSOR: return "tensor";
    case MT_ATTR_FUNC: return "func";
    case MT_ATTR_PLACEHOLDER: return "placeholder";
    case MT_ATTR_LIST: {
      static const struct { int field; const char* name; } kinds[] = {
          {MT_LIST_S, "list(string)"}, {MT_LIST_I, "list(int)"},       {MT_LIST_F, "list(float)"},
          {MT_LIST_B, "list(bool)"},   {MT_LIST_TYPE, "list(type)"},   {MT_LIST_SHAPE, "list(shape)"},
          {MT_LIST_TENSOR, "list(tensor)"}, {MT_LIST_FUNC, "list(func)"}};
      for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; ++i) {
        if (MT_ListCount(value->bytes, kinds[i].field) > 0) return kinds[i].name;
      }
      return "list";
    }
    default:
      return "<unset>";
  }
}
