/* modtensor: TensorFlow-compatible C API headers (Apache-2.0, see the modtensor LICENSE).
 *
 * Macros shared by every header of the plugin C API: symbol visibility, the
 * one-byte boolean the API uses, and the helper that computes a struct's
 * `struct_size` (the byte just past a given member), which is how caller and
 * plugin tell each other which version of a struct they were compiled with. */
#ifndef MODTENSOR_INCLUDE_TENSORFLOW_C_C_API_MACROS_H_
#define MODTENSOR_INCLUDE_TENSORFLOW_C_C_API_MACROS_H_

#include <stddef.h>

/* TF_CAPI_EXPORT marks functions the runtime (modtensor's shim library)
 * exports. Builds of the library itself define TF_COMPILE_LIBRARY on Windows;
 * TF_CAPI_WEAK makes the declarations weak so a plugin may probe for them. */
#ifdef SWIG
#define TF_CAPI_EXPORT
#else
#if defined(_WIN32)
#ifdef TF_COMPILE_LIBRARY
#define TF_CAPI_EXPORT __declspec(dllexport)
#else
#define TF_CAPI_EXPORT __declspec(dllimport)
#endif /* TF_COMPILE_LIBRARY */
#else
#ifdef TF_CAPI_WEAK
#define TF_CAPI_EXPORT __attribute__((visibility("default"))) __attribute__((weak))
#else
#define TF_CAPI_EXPORT __attribute__((visibility("default")))
#endif /* TF_CAPI_WEAK */
#endif /* _WIN32 */
#endif /* SWIG */

/* The C API's boolean: one byte, 0 is false. */
#ifndef TF_Bool
#define TF_Bool unsigned char
#endif

/* Size of TYPE up to and including MEMBER. Structs passed across the plugin
 * boundary store this in `struct_size`; a newer reader can then tell which
 * trailing members an older writer knew about. */
#ifndef TF_OFFSET_OF_END
#define TF_OFFSET_OF_END(TYPE, MEMBER) (offsetof(TYPE, MEMBER) + sizeof(((TYPE *)0)->MEMBER))
#endif

#endif /* MODTENSOR_INCLUDE_TENSORFLOW_C_C_API_MACROS_H_ */
