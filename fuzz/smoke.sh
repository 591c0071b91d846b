#!/usr/bin/env bash
# Fuzz smoke for CI (.ci/run): every harness under libFuzzer for a short budget
# (ASan+UBSan build) and AFL++ in persistent mode on one harness; exits 1 on any
# crash. Works on a fresh machine: AFL++ runs with AFL_SKIP_CPUFREQ,
# AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES and AFL_NO_UI, and core_pattern is left alone.
# Scratch goes to a temp dir; the repo corpora are read, never written.
#   fuzz/smoke.sh [--time S] [--afl-time S] [--afl-harness H] [--parallel N] [HARNESS...]
# (--parallel: harnesses fuzzed at once, one process each; default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 tools/fuzz smoke "$@"
