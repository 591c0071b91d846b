#!/usr/bin/env bash
# Runs the certification report tool from the test's runfiles (bazel test or
# bazel run). All arguments go to certify_run.
set -euo pipefail
exec certify/runner/certify_run "$@"
