// Lint fixture: reference tags, some of which do not tag code.
// spec: demo.ok
// spec: demo.commented_test
// spec: demo.disabled_test
// spec: demo.lying_vectors
// spec: demo.no_reason
// spec: demo.bad_reason
// spec: demo.exercised_by_nothing
int demo();
/*
// spec: demo.comment_tag
int demo_comment_tag();
*/
