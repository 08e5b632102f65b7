/* modtensor: TensorFlow-compatible C API headers (Apache-2.0, see the modtensor LICENSE).
 *
 * TF_Status: how every C API call reports success or an error to its caller,
 * and how plugins report errors back to modtensor (they surface as Python
 * exceptions of the matching class, e.g. TF_INVALID_ARGUMENT ->
 * InvalidArgumentError). */
#ifndef MODTENSOR_INCLUDE_TENSORFLOW_C_TF_STATUS_H_
#define MODTENSOR_INCLUDE_TENSORFLOW_C_TF_STATUS_H_

#include "tensorflow/c/c_api_macros.h"
#include "xla/tsl/c/tsl_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TSL_Status TF_Status;

typedef TSL_Code TF_Code;

#define TF_OK TSL_OK
#define TF_CANCELLED TSL_CANCELLED
#define TF_UNKNOWN TSL_UNKNOWN
#define TF_INVALID_ARGUMENT TSL_INVALID_ARGUMENT
#define TF_DEADLINE_EXCEEDED TSL_DEADLINE_EXCEEDED
#define TF_NOT_FOUND TSL_NOT_FOUND
#define TF_ALREADY_EXISTS TSL_ALREADY_EXISTS
#define TF_PERMISSION_DENIED TSL_PERMISSION_DENIED
#define TF_UNAUTHENTICATED TSL_UNAUTHENTICATED
#define TF_RESOURCE_EXHAUSTED TSL_RESOURCE_EXHAUSTED
#define TF_FAILED_PRECONDITION TSL_FAILED_PRECONDITION
#define TF_ABORTED TSL_ABORTED
#define TF_OUT_OF_RANGE TSL_OUT_OF_RANGE
#define TF_UNIMPLEMENTED TSL_UNIMPLEMENTED
#define TF_INTERNAL TSL_INTERNAL
#define TF_UNAVAILABLE TSL_UNAVAILABLE
#define TF_DATA_LOSS TSL_DATA_LOSS

/* A fresh status holding TF_OK. The caller owns it (TF_DeleteStatus). */
TF_CAPI_EXPORT extern TF_Status* TF_NewStatus(void);

TF_CAPI_EXPORT extern void TF_DeleteStatus(TF_Status*);

/* Store `code` and a copy of `msg`. Setting TF_OK clears the message and the
 * payloads. */
TF_CAPI_EXPORT extern void TF_SetStatus(TF_Status* s, TF_Code code, const char* msg);

/* Add or overwrite the payload `key`; has no effect on an OK status. */
TF_CAPI_EXPORT void TF_SetPayload(TF_Status* s, const char* key, const char* value);

/* Visit every payload as (key, value, capture). */
#define TF_PayloadVisitor TSL_PayloadVisitor
TF_CAPI_EXPORT extern void TF_ForEachPayload(const TF_Status* s, TF_PayloadVisitor visitor, void* capture);

/* Translate an errno value into a status code and message, prefixed by
 * `context`. */
TF_CAPI_EXPORT extern void TF_SetStatusFromIOError(TF_Status* s, int error_code, const char* context);

TF_CAPI_EXPORT extern TF_Code TF_GetCode(const TF_Status* s);

/* The message ("" when OK). Valid until `s` changes or is deleted. */
TF_CAPI_EXPORT extern const char* TF_Message(const TF_Status* s);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MODTENSOR_INCLUDE_TENSORFLOW_C_TF_STATUS_H_ */
