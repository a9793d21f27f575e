// Lint fixture: one resolving tag and one dangling tag.
// spec: demo.ok
// spec: demo.no_such_clause
int demo_ok();
