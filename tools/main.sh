#!/usr/bin/env bash
# The main job: certify the reference endpoint and print the verdict table.
# (Until the conformance suite lands it prints the layout and binding of a
# sample queue.)
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
bazel run --ui_event_filters=-info,-stdout --noshow_progress //tools:spsq -- layout --depth 8 --input-arena 524288 --output-arena 524288
bazel run --ui_event_filters=-info,-stdout --noshow_progress //tools:spsq -- decode-binding 0x5350535100010000 0 1 0x10000 1049088 0x200000 384 8 524288 524288
