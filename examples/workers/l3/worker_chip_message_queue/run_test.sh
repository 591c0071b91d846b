#!/bin/bash
# The `bazel run` binary: both modes print the four outputs in order and exit 0,
# and every line of the transcript is whole. L3 and the L2 task print at the
# same time (two threads, or two processes); a line written in pieces lets the
# other side's line land inside it, which a reader, and the checks below,
# would misread. Thread mode runs 20 times more: a torn line is a race, seen in
# a few runs of a hundred when a line took three calls.
set -euo pipefail
bin="$1"
want="outputs (request_id, kind, aux): (0,20,0) (0,10,0) (0,11,0) (0,30,7)"
whole='^(=== .* ===|L3: .+|  L2: .+|outputs \(request_id, kind, aux\):.*|)$'
check() {  # mode, transcript
  local line
  for line in "L2 in $1 mode" "$want" "  L2: input drained; returning" \
      "L3: worker drained: 1 L2 task(s) returned, 0 failed; live RegionInstances: 0"; do
    if ! grep -qF -- "$line" <<<"$2"; then
      printf '%s\n%s mode: no line "%s" in the transcript above\n' "$2" "$1" "$line" >&2
      return 1
    fi
  done
  if grep -vE "$whole" <<<"$2" >&2; then
    echo "$1 mode: the lines above are not whole log lines" >&2
    return 1
  fi
}
for mode in thread process; do
  out="$("$bin" "$mode")"
  echo "$out"
  check "$mode" "$out"
done
for _ in $(seq 1 20); do
  out="$("$bin" thread)"
  check thread "$out"
done
if "$bin" bogus >/dev/null 2>&1; then
  echo "a bad mode argument must fail" >&2
  exit 1
fi
echo PASS
