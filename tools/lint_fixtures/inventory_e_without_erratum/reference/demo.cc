// Lint fixture: the reference function for demo.ok.
// spec: demo.ok
int demo_ok();
