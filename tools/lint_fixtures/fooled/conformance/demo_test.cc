// Lint fixture: tests the lint must not count (commented out, disabled) beside ones it must.
#include <gtest/gtest.h>

TEST(demo_ok, Exists) { SUCCEED(); }
// TEST(demo_commented_test, Exists) { SUCCEED(); }
TEST(demo_disabled_test, DISABLED_Exists) { SUCCEED(); }
TEST(demo_comment_tag, Exists) { SUCCEED(); }
TEST(demo_lying_vectors, Exists) { SUCCEED(); }
TEST(demo_no_reason, Exists) { SUCCEED(); }
TEST(demo_bad_reason, Exists) { SUCCEED(); }
TEST(demo_exercised_by_nothing, Exists) { SUCCEED(); }
