/* Entry point of the "throw" plugins: faulty_backend.c's backend, named after the variant. */
#include <stdint.h>

#include "qspec/backend.h"

int qspec_testing_faulty_create(uint32_t host_abi_version, qspec_backend* out);

QSPEC_BACKEND_EXPORT int qspec_backend_create(uint32_t host_abi_version, qspec_backend* out) {
  const int rc = qspec_testing_faulty_create(host_abi_version, out);
#ifdef QSPEC_THROW_CATCHABLE
  if (rc == 0) out->name = "testing.faulty.throw_caught";
#endif
  return rc;
}
