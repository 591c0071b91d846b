#!/usr/bin/env bash
# Runs one spsq Python test file with Debian's python3 (the interpreter the
# extension is built for), importing the freshly built spsq.so.
#   run_py_test.sh <path of spsq.so> <test.py> [unittest args...]
set -euo pipefail
so=$1
test_py=$2
shift 2
here=$(dirname "$0")
export PYTHONPATH="$(dirname "$so"):$here"
# No bytecode beside the sources, unless the caller gave it a place of its own.
if [ -z "${PYTHONPYCACHEPREFIX:-}" ]; then export PYTHONDONTWRITEBYTECODE=1; fi
# A sanitizer build of the extension needs its runtime loaded before the
# (uninstrumented) interpreter starts. CPython's own allocations are not ours
# to leak-check. (grep reads all of nm's output: with -q, nm could die of
# SIGPIPE and fail the pipeline under pipefail.)
undefined=$(nm -D --undefined-only "$so")
if grep '__asan_init' >/dev/null <<<"$undefined"; then
  LD_PRELOAD=$(clang -print-file-name=libclang_rt.asan-x86_64.so)
  export LD_PRELOAD
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
elif grep '__tsan_init' >/dev/null <<<"$undefined"; then
  LD_PRELOAD=$(clang -print-file-name=libclang_rt.tsan-x86_64.so)
  export LD_PRELOAD
fi
exec /usr/bin/python3 -s "$test_py" "$@"
