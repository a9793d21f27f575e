/* The example plugin's correct arithmetic for the testing plugins, its entry point renamed and private.
 *
 * docs/examples/example_backend/example_backend.c is compiled into the including file with its qspec_backend_create
 * renamed qspec_testing_example_create and made static, so the testing plugin exports its own entry point
 * (QSPEC_BACKEND_EXPORT is visible again afterwards). */
#include "qspec/backend.h" /* first: its QSPEC_BACKEND_EXPORT is the one redefined below */

#define qspec_backend_create qspec_testing_example_create
#undef QSPEC_BACKEND_EXPORT
#define QSPEC_BACKEND_EXPORT static
#include "example_backend.c"
#undef qspec_backend_create
#undef QSPEC_BACKEND_EXPORT
#define QSPEC_BACKEND_EXPORT __attribute__((visibility("default")))
