// The "all conventions" mode: run a library against every convention's vectors, not just its own.
//
// Normally an adapter claims only the (op, convention) pairs the library implements, and the
// harness runs only those vectors. For the conformance tables (docs/third-party.md) we also want
// to know how far a library is from every OTHER convention: with QSPEC_ADAPTER_ALL_CONVENTIONS=1
// in the environment, supports() claims every convention of each op the library implements, and
// run() computes the library's one native behaviour after translating the requested convention's
// parameters into the library's own (requant_params.h says how, as a user porting a model would).
// The harness then reports, per failure, which convention the library's results actually match.
#pragma once

namespace qspec::thirdparty {

inline constexpr const char* kAllConventionsEnv = "QSPEC_ADAPTER_ALL_CONVENTIONS";

// True when the environment variable is set to a non-empty value other than "0".
bool all_conventions_mode();

}  // namespace qspec::thirdparty
