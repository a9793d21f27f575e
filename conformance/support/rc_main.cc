// main() for property-test binaries: a fixed RapidCheck seed unless RC_PARAMS says otherwise.
//
// CTest and a developer running the binary by hand get the same cases, so every failure is
// replayable; RapidCheck prints the seed and the shrunk counterexample (and a "reproduce"
// string) on failure. Override with RC_PARAMS="seed=N max_success=M" for sweeps.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#ifndef QSPEC_RC_DEFAULT_PARAMS
#define QSPEC_RC_DEFAULT_PARAMS "seed=20261121 max_success=200"
#endif

int main(int argc, char** argv) {
  setenv("RC_PARAMS", QSPEC_RC_DEFAULT_PARAMS, /*overwrite=*/0);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
