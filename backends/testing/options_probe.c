/* A plugin that takes run options (ABI version 2, qspec_backend_create2) and shows the ones it
 * was given in its version string ("options: all_conventions" or "options: none"): the tests
 * check that `--all-conventions` reaches a backend through the ABI. The arithmetic is the
 * example plugin's. */
#include <stdint.h>

#include "example_private.h" /* the example plugin's arithmetic, its entry point private */
#include "qspec/backend.h"

QSPEC_BACKEND_EXPORT int qspec_backend_create2(uint32_t host_abi_version, const qspec_backend_options* options,
                                               qspec_backend* out) {
  const int rc = qspec_testing_example_create(host_abi_version, out);
  if (rc != 0) return rc;
  const int all = options->struct_size >= 8 && (options->flags & QSPEC_BACKEND_OPTION_ALL_CONVENTIONS) != 0;
  out->name = "testing.options_probe";
  out->version = all ? "options: all_conventions" : "options: none";
  return 0;
}
