#!/usr/bin/env bash
# The main job: certify the reference implementations and print the verdict
# tables: the L2 endpoint (MaxInflight 1, 2, 4) and the L3 queue through every
# stage at depth standard (tools/certify: suite, wrap, corpus replay, explorer,
# stress plain and under TSan, 60 s of libFuzzer per harness), then the
# runtime simulation and the Python API.
# Reports and certification packages land in bazel-certification/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
status=0
python3 tools/certify --depth standard //certifications:reference_l2_certification \
  //certifications:reference_l3_certification || status=$?
for target in //certifications:reference_runtime_certification \
              //python:module_l3_certification; do
  echo "=== certifying with ${target}"
  bazel run --ui_event_filters=-info,-stdout --noshow_progress "${target}" || status=$?
done
exit "$status"
