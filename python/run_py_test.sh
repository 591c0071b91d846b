#!/usr/bin/env bash
# Runs one spsq Python test file with Debian's python3 (the interpreter the
# extension is built for), importing the freshly built spsq.so.
#   run_py_test.sh <path of spsq.so> <test.py> [unittest args...]
set -euo pipefail
so=$1
test_py=$2
shift 2
here=$(dirname "$0")
export PYTHONPATH="$(dirname "$so"):$here${PYTHONPATH:+:$PYTHONPATH}"
# No bytecode beside the sources, unless the caller gave it a place of its own.
if [ -z "${PYTHONPYCACHEPREFIX:-}" ]; then export PYTHONDONTWRITEBYTECODE=1; fi
# A sanitizer build of the extension needs its runtime loaded before the
# (uninstrumented) interpreter starts. CPython's own allocations are not ours
# to leak-check. The runtime's entry point appears in the extension only when
# it was built with it: one grep finds it in a tenth of nm's time, which
# counts where a testee starts a process per queue.
case "$(grep -a -o -m1 -E '__[at]san_init' "$so" || true)" in
  __asan_init)
    LD_PRELOAD=$(clang -print-file-name=libclang_rt.asan-x86_64.so)
    export LD_PRELOAD
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
    ;;
  __tsan_init)
    LD_PRELOAD=$(clang -print-file-name=libclang_rt.tsan-x86_64.so)
    export LD_PRELOAD
    ;;
esac
# -S: no site packages (the tests and testees need the standard library and
# the extension only), and a faster start.
exec /usr/bin/python3 -s -S "$test_py" "$@"
