#!/bin/sh
# Runs COMMAND..., or exits 77 (the CTest tests' SKIP_RETURN_CODE) when PROGRAM is not on PATH.
#   skip_without.sh PROGRAM COMMAND...
# For the tests of the exec protocol's example clients: they need python3 or node, which
# `tools/install-deps exec` installs; a machine without them skips those tests, visibly.
program=$1
shift
if ! command -v "$program" >/dev/null 2>&1; then
  echo "QSPEC-SKIP: $program is not on PATH (tools/install-deps exec installs it)"
  exit 77
fi
exec "$@"
