/* modtensor: TensorFlow-compatible C API headers (Apache-2.0, see the modtensor LICENSE).
 *
 * Exported wrappers over the TF_TString helpers of ctstring.h, for code that
 * prefers calling the runtime to inlining the helpers. Both act on the same
 * 24-byte TF_TString layout, so they can be mixed freely. */
#ifndef MODTENSOR_INCLUDE_TENSORFLOW_C_TF_TSTRING_H_
#define MODTENSOR_INCLUDE_TENSORFLOW_C_TF_TSTRING_H_

#include "tensorflow/c/c_api_macros.h"
#include "tensorflow/c/tf_tensor.h"
#include "tensorflow/core/platform/ctstring.h"

#ifdef __cplusplus
extern "C" {
#endif

TF_CAPI_EXPORT extern void TF_StringInit(TF_TString *t);

/* Owned copy of `size` bytes. */
TF_CAPI_EXPORT extern void TF_StringCopy(TF_TString *dst, const char *src, size_t size);

/* Non-owning view of `size` bytes; `src` must outlive `dst`. */
TF_CAPI_EXPORT extern void TF_StringAssignView(TF_TString *dst, const char *src, size_t size);

TF_CAPI_EXPORT extern const char *TF_StringGetDataPointer(const TF_TString *tstr);

TF_CAPI_EXPORT extern TF_TString_Type TF_StringGetType(const TF_TString *str);

TF_CAPI_EXPORT extern size_t TF_StringGetSize(const TF_TString *tstr);

TF_CAPI_EXPORT extern size_t TF_StringGetCapacity(const TF_TString *str);

/* Release owned memory; the string is left empty. */
TF_CAPI_EXPORT extern void TF_StringDealloc(TF_TString *tstr);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MODTENSOR_INCLUDE_TENSORFLOW_C_TF_TSTRING_H_ */
