// Registers "onednn" as a built-in backend of the qspec executable: a thin loader of its plugin .so.
#include "qspec/builtin_backends.h"
#include "qspec/thirdparty/builtin_loader.h"

#include <cstdlib>

namespace {
int create_onednn(std::uint32_t host_abi_version, const qspec_backend_options* options, qspec_backend* out) {
  // oneDNN runs on OpenMP; conformance runs are single-threaded unless the user says otherwise.
  setenv("OMP_NUM_THREADS", "1", /*overwrite=*/0);
  return qspec::thirdparty::create_from_plugin("qspec_backend_onednn.so", QSPEC_PLUGIN_BUILD_PATH, QSPEC_PLUGIN_INSTALL_PATH,
                                               host_abi_version, options, out);
}
}  // namespace

QSPEC_REGISTER_BUILTIN_BACKEND("onednn", create_onednn);
