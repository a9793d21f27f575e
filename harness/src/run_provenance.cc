// The host, time and versions of a run (run_provenance.h).
#include "qspec/harness/run_provenance.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <ctime>
#include <fstream>

namespace qspec::harness {
namespace {

// The first "model name" line of /proc/cpuinfo (x86; some other kernels say "Model"), or "".
std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.pop_back();
    if (key != "model name" && key != "Model") continue;
    const auto start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? "" : line.substr(start);
  }
  return "";
}

}  // namespace

std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

RunProvenance capture_provenance(const std::string& qspec_version) {
  RunProvenance p;
  p.qspec_version = qspec_version;
  p.started = utc_timestamp();
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0) p.hostname = host;
  struct utsname u {};
  if (::uname(&u) == 0) p.system = std::string(u.sysname) + " " + u.release + " " + u.machine;
  p.cpu = cpu_model();
  return p;
}

}  // namespace qspec::harness
