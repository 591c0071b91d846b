#!/bin/bash
# The `bazel run` binary: both modes print the four outputs in order and exit 0.
set -euo pipefail
bin="$1"
want="outputs (request_id, kind, aux): (0,20,0) (0,10,0) (0,11,0) (0,30,7)"
for mode in thread process; do
  out="$("$bin" "$mode")"
  echo "$out"
  grep -qF "L2 in $mode mode" <<<"$out"
  grep -qF "$want" <<<"$out"
  grep -qF "L2: input drained; returning" <<<"$out"
  grep -qF "L3: worker drained: 1 L2 task(s) returned, 0 failed; live RegionInstances: 0" <<<"$out"
done
if "$bin" bogus >/dev/null 2>&1; then
  echo "a bad mode argument must fail" >&2
  exit 1
fi
echo PASS
