#!/bin/sh
# The spsq module's testee: Debian's python3 on spsq_module_testee.py with the
# freshly built spsq.so. Paths are found from this script's place in a
# runfiles tree, or in its own runfiles when run directly. The harness starts
# a process per queue, thousands in a certification, so this script forks
# nothing: a plain build execs python3 itself; an instrumented build (the
# BUILD rule sets SPSQ_PRELOAD=1) goes through python/run_py_test.sh, which
# preloads the sanitizer runtime the extension needs.
set -eu
case $0 in */*) root=${0%/*}/.. ;; *) root=.. ;; esac
if [ -d "$0.runfiles/spsq_harness" ]; then root="$0.runfiles/spsq_harness"; fi
# One process per queue: bytecode compiled once per test run, outside the tree.
export PYTHONPYCACHEPREFIX="${TEST_TMPDIR:-${TMPDIR:-/tmp}}/spsq_testee_pycache"
# The testee library (testee/python) beside the module.
export PYTHONPATH="$root/testee/python"
SPSQ_PRELOAD=0
if [ "$SPSQ_PRELOAD" = 1 ]; then
  exec "$root/python/run_py_test.sh" "$root/python/spsq.so" \
    "$root/python/spsq_module_testee.py" "$@"
fi
PYTHONPATH="$root/python:$PYTHONPATH" exec /usr/bin/python3 -s -S \
  "$root/python/spsq_module_testee.py" "$@"
