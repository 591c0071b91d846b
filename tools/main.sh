#!/usr/bin/env bash
# The main job: certify the reference implementations and print the verdict
# tables (L2 endpoint for MaxInflight 1, 2, 4; L3 queue; runtime simulation;
# the Python API).
# Reports and certification packages land in bazel-certification/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
for target in //conformance:reference_l2_certification \
              //conformance/l3:reference_l3_certification \
              //conformance/runtime:reference_runtime_certification \
              //python:reference_python_certification; do
  echo "=== certifying with ${target}"
  bazel run --ui_event_filters=-info,-stdout --noshow_progress "${target}"
done
