// Registers "armnn" as a built-in backend of the qspec executable: a thin loader of its plugin .so.
#include "qspec/builtin_backends.h"
#include "qspec/thirdparty/builtin_loader.h"

namespace {
int create_armnn(std::uint32_t host_abi_version, const qspec_backend_options* options, qspec_backend* out) {
  return qspec::thirdparty::create_from_plugin("qspec_backend_armnn.so", QSPEC_PLUGIN_BUILD_PATH,
                                               QSPEC_PLUGIN_INSTALL_PATH, host_abi_version, options, out);
}
}  // namespace

QSPEC_REGISTER_BUILTIN_BACKEND("armnn", create_armnn);
