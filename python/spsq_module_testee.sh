#!/bin/sh
# The spsq module's testee: Debian's python3 on spsq_module_testee.py with the
# freshly built spsq.so, through python/run_py_test.sh (which also preloads a
# sanitizer runtime for an instrumented build). Paths are found from this
# script's place in a runfiles tree, or in its own runfiles when run directly.
set -eu
root=$(dirname "$0")/..
if [ -d "$0.runfiles/spsq_harness" ]; then root="$0.runfiles/spsq_harness"; fi
# One process per queue: bytecode compiled once per test run, outside the tree.
export PYTHONPYCACHEPREFIX="${TEST_TMPDIR:-${TMPDIR:-/tmp}}/spsq_testee_pycache"
# The testee library (testee/python) beside the module.
export PYTHONPATH="$root/testee/python"
exec "$root/python/run_py_test.sh" "$root/python/spsq.so" \
  "$root/python/spsq_module_testee.py" "$@"
