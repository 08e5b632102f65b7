/* modtensor: TensorFlow-compatible C API headers (Apache-2.0, see the modtensor LICENSE).
 *
 * Kinds of op attribute values. */
#ifndef MODTENSOR_INCLUDE_TENSORFLOW_C_TF_ATTRTYPE_H_
#define MODTENSOR_INCLUDE_TENSORFLOW_C_TF_ATTRTYPE_H_

#ifdef __cplusplus
extern "C" {
#endif

typedef enum TF_AttrType {
  TF_ATTR_STRING = 0,
  TF_ATTR_INT = 1,
  TF_ATTR_FLOAT = 2,
  TF_ATTR_BOOL = 3,
  TF_ATTR_TYPE = 4,
  TF_ATTR_SHAPE = 5,
  TF_ATTR_TENSOR = 6,
  TF_ATTR_PLACEHOLDER = 7,
  TF_ATTR_FUNC = 8,
} TF_AttrType;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MODTENSOR_INCLUDE_TENSORFLOW_C_TF_ATTRTYPE_H_ */
