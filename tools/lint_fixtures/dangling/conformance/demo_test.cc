// Lint fixture: the test for demo.ok (built into a GoogleTest binary the lint lists).
#include <gtest/gtest.h>

TEST(demo_ok, Exists) { SUCCEED(); }
