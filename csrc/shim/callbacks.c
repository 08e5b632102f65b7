/* modtensor shim: the runtime's callback table.
 *
 * The bridge installs it once when modtensor loads the shim. Without it (a C
 * program that links the shim alone) runtime-backed calls fail cleanly. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "mt_internal.h"

static MT_Callbacks g_callbacks;
static _Atomic(const MT_Callbacks*) g_installed = NULL;

void MT_SetCallbacks(const MT_Callbacks* callbacks) {
  if (callbacks == NULL) {
    atomic_store(&g_installed, NULL);
    return;
  }
  memset(&g_callbacks, 0, sizeof g_callbacks);
  size_t n = callbacks->struct_size < sizeof g_callbacks ? callbacks->struct_size : sizeof g_callbacks;
  memcpy(&g_callbacks, callbacks, n);
  atomic_store(&g_installed, &g_callbacks);
}

const MT_Callbacks* MT_GetCallbacks(void) { return atomic_load(&g_installed); }

int MT_InternalVersion(void) { return MT_INTERNAL_VERSION; }

void MT_NoRuntime(TF_Status* status, const char* function) {
  MT_SetStatusf(status, TF_FAILED_PRECONDITION,
                "%s needs the modtensor runtime, which is not attached to this library: load plugins through "
                "modtensor (modtensor.load_library) rather than calling the shim from a standalone program",
                function);
}
