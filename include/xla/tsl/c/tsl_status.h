/* modtensor: TensorFlow-compatible C API headers (Apache-2.0, see the modtensor LICENSE).
 *
 * The status object and error codes underneath TF_Status/TF_Code. TensorFlow's
 * tf_status.h aliases these names, so C++ code sees `TF_Status` as
 * `struct TSL_Status` and `TF_Code` as `TSL_Code`; modtensor keeps the same
 * spelling so the types (and C++ name mangling) are identical. */
#ifndef MODTENSOR_INCLUDE_XLA_TSL_C_TSL_STATUS_H_
#define MODTENSOR_INCLUDE_XLA_TSL_C_TSL_STATUS_H_

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque: an error code plus a message (and optional key/value payloads). */
typedef struct TSL_Status TSL_Status;

/* Canonical error codes; the numbers are those of the gRPC/absl status codes. */
typedef enum TSL_Code {
  TSL_OK = 0,
  TSL_CANCELLED = 1,
  TSL_UNKNOWN = 2,
  TSL_INVALID_ARGUMENT = 3,
  TSL_DEADLINE_EXCEEDED = 4,
  TSL_NOT_FOUND = 5,
  TSL_ALREADY_EXISTS = 6,
  TSL_PERMISSION_DENIED = 7,
  TSL_UNAUTHENTICATED = 16,
  TSL_RESOURCE_EXHAUSTED = 8,
  TSL_FAILED_PRECONDITION = 9,
  TSL_ABORTED = 10,
  TSL_OUT_OF_RANGE = 11,
  TSL_UNIMPLEMENTED = 12,
  TSL_INTERNAL = 13,
  TSL_UNAVAILABLE = 14,
  TSL_DATA_LOSS = 15,
} TSL_Code;

/* New status, code TSL_OK. Free with TSL_DeleteStatus. */
extern TSL_Status* TSL_NewStatus(void);

extern void TSL_DeleteStatus(TSL_Status*);

/* Set code and message (copied). A TSL_OK code clears the message. */
extern void TSL_SetStatus(TSL_Status* s, TSL_Code code, const char* msg);

/* Attach (or replace) a key/value payload; ignored while the status is OK. */
extern void TSL_SetPayload(TSL_Status* s, const char* key, const char* value);

/* Called once per payload by TSL_ForEachPayload. */
typedef void (*TSL_PayloadVisitor)(const char* key, const char* value, void* capture);
extern void TSL_ForEachPayload(const TSL_Status* s, TSL_PayloadVisitor visitor, void* capture);

/* Set the status from an errno value, with `context` prefixed to the message. */
extern void TSL_SetStatusFromIOError(TSL_Status* s, int error_code, const char* context);

extern TSL_Code TSL_GetCode(const TSL_Status* s);

/* The message; valid until the status is next modified or deleted. */
extern const char* TSL_Message(const TSL_Status* s);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MODTENSOR_INCLUDE_XLA_TSL_C_TSL_STATUS_H_ */
