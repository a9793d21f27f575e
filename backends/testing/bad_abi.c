/* A plugin built for a future ABI: it refuses every host version but 999, so loading it must
 * fail with a clear message and `qspec run` must exit 2. */
#include <string.h>

#include "qspec/backend.h"

QSPEC_BACKEND_EXPORT int qspec_backend_create(uint32_t host_abi_version, qspec_backend* out) {
  if (host_abi_version != 999u) return 1;
  memset(out, 0, sizeof *out);
  return 0;
}
