/* A plugin as built against the ABI version-1 header (before run options): the example plugin's
 * correct arithmetic behind a qspec_backend_create that, as version 1 requires, refuses every
 * host version but 1 and reports version 1. qspec must keep loading it, and say clearly that
 * it cannot be asked for all conventions (backend.h, "Version 2"). */
#include <stdint.h>

#include "example_private.h" /* the example plugin's arithmetic, its entry point private */
#include "qspec/backend.h"

QSPEC_BACKEND_EXPORT int qspec_backend_create(uint32_t host_abi_version, qspec_backend* out) {
  if (host_abi_version != 1u) return 1; /* a version-1 backend refuses every other host version */
  const int rc = qspec_testing_example_create(QSPEC_BACKEND_ABI_VERSION, out);
  if (rc != 0) return rc;
  out->abi_version = 1u;
  out->name = "testing.abi_v1";
  out->version = "1 (built for ABI version 1)";
  return 0;
}
