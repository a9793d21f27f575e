// Lint fixture: the test for demo.ok.
TEST(demo_ok, Exists) {}
