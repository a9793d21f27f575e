// Where and when a run happened, and under which versions: what docs/CONFORMANCE.md 4.3 requires
// a conformance report to state besides the backend (the qspec version, the contract version).
#pragma once

#include <string>

namespace qspec::harness {

// The version of docs/CONFORMANCE.md ("qspec conformance contract, version N"); a test keeps
// the two equal. Bumped with the document (its change log says when).
inline constexpr int kConformanceContractVersion = 1;

struct RunProvenance {
  std::string qspec_version;  // "0.1.0"
  int contract_version = kConformanceContractVersion;
  std::string started;   // UTC, ISO 8601 ("2025-11-26T05:07:31Z")
  std::string finished;  // empty while the run goes on (a checkpoint)
  std::string hostname;
  std::string system;  // "Linux 6.1.0-18-amd64 x86_64" (uname)
  std::string cpu;     // the CPU model as the kernel names it ("" if unknown)
};

// This host, now (started), and `qspec_version`.
RunProvenance capture_provenance(const std::string& qspec_version);

// The current time, UTC, ISO 8601 to the second.
std::string utc_timestamp();

}  // namespace qspec::harness
