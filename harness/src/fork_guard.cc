// The process-wide lock of fork_guard.h (no worker is forked while the vector loader runs).
#include "fork_guard.h"

namespace qspec::harness {

std::mutex& fork_guard() {
  static std::mutex m;
  return m;
}

}  // namespace qspec::harness
