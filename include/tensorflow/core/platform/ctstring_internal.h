/* modtensor: TensorFlow-compatible C API headers (Apache-2.0, see the modtensor LICENSE).
 * TensorFlow's historical path for the TF_TString internals; see tsl/platform/ctstring_internal.h. */
#ifndef MODTENSOR_INCLUDE_TENSORFLOW_CORE_PLATFORM_CTSTRING_INTERNAL_H_
#define MODTENSOR_INCLUDE_TENSORFLOW_CORE_PLATFORM_CTSTRING_INTERNAL_H_

#include "tsl/platform/ctstring_internal.h"

#endif /* MODTENSOR_INCLUDE_TENSORFLOW_CORE_PLATFORM_CTSTRING_INTERNAL_H_ */
