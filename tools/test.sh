#!/usr/bin/env bash
# Runs every test: `bazel test //...` with the default toolchain (g++ 12).
# Extra arguments go to bazel test (e.g. --config=asan).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
# The repository's dependencies run one way (tools/layering.py).
python3 tools/layering.py
exec bazel test //... "$@"
