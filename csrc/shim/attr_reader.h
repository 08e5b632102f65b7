/* modtensor shim: a reader for serialized AttrValue / TensorShapeProto messages.
 *
 * The runtime hands attribute values to the shim as serialized AttrValue protos
 * (TensorFlow's wire format), so the typed TF_OpKernelConstruction_GetAttr*
 * getters, their checks and their error texts live in C, in one place. */
#ifndef MODTENSOR_CSRC_SHIM_ATTR_READER_H_
#define MODTENSOR_CSRC_SHIM_ATTR_READER_H_

#include <stddef.h>
#include <stdint.h>

/* AttrValue's oneof cases, numbered as its fields. */
enum {
  MT_ATTR_NONE = 0,
  MT_ATTR_LIST = 1,
  MT_ATTR_S = 2,
  MT_ATTR_I = 3,
  MT_ATTR_F = 4,
  MT_ATTR_B = 5,
  MT_ATTR_TYPE = 6,
  MT_ATTR_SHAPE = 7,
  MT_ATTR_TENSOR = 8,
  MT_ATTR_PLACEHOLDER = 9,
  MT_ATTR_FUNC = 10
};

/* Fields of AttrValue.ListValue (s=2 ... tensor=8, func=9). */
enum { MT_LIST_S = 2, MT_LIST_I = 3, MT_LIST_F = 4, MT_LIST_B = 5, MT_LIST_TYPE = 6, MT_LIST_SHAPE = 7,
       MT_LIST_TENSOR = 8, MT_LIST_FUNC = 9 };

typedef struct MT_Bytes {
  const uint8_t* data;
  size_t len;
} MT_Bytes;

typedef struct MT_AttrValue {
  int value_case;
  MT_Bytes bytes;  /* s, list, shape, tensor, placeholder, func */
  uint64_t varint; /* i, b, type */
  float f;
} MT_AttrValue;

/* Parse a serialized AttrValue; 0 on success, -1 on malformed input. */
int MT_ParseAttrValue(const void* data, size_t len, MT_AttrValue* out);

/* Number of elements of ListValue field `field` (packed or not); -1 if malformed. */
int MT_ListCount(MT_Bytes list, int field);

/* The first `max` integer elements (i, b, type) of field `field`; returns how many were written. */
int MT_ListVarints(MT_Bytes list, int field, int64_t* out, int max);

/* The first `max` float elements. */
int MT_ListFloats(MT_Bytes list, float* out, int max);

/* The first `max` length-delimited elements (s, shape, tensor, func). */
int MT_ListBytes(MT_Bytes list, int field, MT_Bytes* out, int max);

/* A TensorShapeProto: rank (-1: unknown rank) and up to `max_dims` sizes (-1: unknown). */
int MT_ParseShape(MT_Bytes shape, int64_t* dims, int max_dims, int* rank);

/* TensorFlow's name of what an AttrValue holds: "int", "list(string)", "list" for an empty list. */
const char* MT_AttrKindName(const MT_AttrValue* value);

#endif /* MODTENSOR_CSRC_SHIM_ATTR_READER_H_ */
