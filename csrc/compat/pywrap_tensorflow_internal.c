/* modtensor: a library named `_pywrap_tensorflow_internal.so`, for binary TensorFlow plugins.
 *
 * Plugins built against a TensorFlow wheel (Intel Extension for TensorFlow, for one) list
 * TensorFlow's Python extension `_pywrap_tensorflow_internal.so` as a NEEDED library, while
 * the only symbols they take from "TensorFlow" are the C API's. modtensor loads this library
 * (its soname is that name, and it depends on libmodtensor_framework.so, the C API) before any
 * plugin, so the dynamic linker finds the name already loaded and the plugin's TF_* calls
 * resolve to modtensor's shim. It defines no TF_* symbol of its own. */
#include "tensorflow/c/c_api.h"

/* The TensorFlow version whose C API the shim provides (a probe for tools). */
__attribute__((visibility("default"))) const char* MT_CompatTensorFlowVersion(void) { return TF_Version(); }
