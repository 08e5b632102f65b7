/* modtensor: TensorFlow-compatible C API headers (Apache-2.0, see the modtensor LICENSE).
 *
 * The TF_TString C API: a 24-byte string with small-string optimization,
 * used as the element of TF_STRING tensors. Every helper is a static inline
 * function defined in ctstring_internal.h; the usual life cycle is
 *   TF_TString s; TF_TString_Init(&s); TF_TString_Copy(&s, "abc", 3);
 *   ... TF_TString_GetDataPointer(&s), TF_TString_GetSize(&s) ...
 *   TF_TString_Dealloc(&s); */
#ifndef MODTENSOR_INCLUDE_TSL_PLATFORM_CTSTRING_H_
#define MODTENSOR_INCLUDE_TSL_PLATFORM_CTSTRING_H_

#include <stdint.h>
#include <stdlib.h>

#include "tsl/platform/ctstring_internal.h"

#endif /* MODTENSOR_INCLUDE_TSL_PLATFORM_CTSTRING_H_ */
