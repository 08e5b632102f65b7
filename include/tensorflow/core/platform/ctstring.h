/* modtensor: TensorFlow-compatible C API headers (Apache-2.0, see the modtensor LICENSE).
 * TensorFlow's historical path for the TF_TString API; see tsl/platform/ctstring.h. */
#ifndef MODTENSOR_INCLUDE_TENSORFLOW_CORE_PLATFORM_CTSTRING_H_
#define MODTENSOR_INCLUDE_TENSORFLOW_CORE_PLATFORM_CTSTRING_H_

#include "tsl/platform/ctstring.h"

#endif /* MODTENSOR_INCLUDE_TENSORFLOW_CORE_PLATFORM_CTSTRING_H_ */
