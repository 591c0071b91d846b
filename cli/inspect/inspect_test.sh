#!/usr/bin/env bash
# spsq inspect on a consistent and a corrupted dump, plus usage errors.
set -u
INSPECT="$1"
MAKE_DUMP="$2"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
"$MAKE_DUMP" "$tmp/good.region" "$tmp/bad.region" || { echo "make_dump failed"; exit 1; }
source "$TEST_SRCDIR/spsq_harness/cli/cli_check.sh"
ARGS=(--depth 4 --input-arena 128 --output-arena 128)
check good-status 0 "input (L3 -> L2): tail raw 2 -> 2 (from descriptor seq), head raw 1 -> 1" \
  "$INSPECT" "$tmp/good.region" "${ARGS[@]}"
check good-stop 0 "seq 2 STOP offset 0 nbytes 0 [published, not released] valid" \
  "$INSPECT" "$tmp/good.region" "${ARGS[@]}"
check good-flags 0 "peer (L2, @320) = 0 clear" "$INSPECT" "$tmp/good.region" "${ARGS[@]}"
check bad-seq 1 "seq 7 belongs in slot 2" "$INSPECT" "$tmp/bad.region" "${ARGS[@]}"
check bad-opcode 1 "opcode 2 (STOP) not carried by this direction" "$INSPECT" "$tmp/bad.region" "${ARGS[@]}"
check bad-flag 1 "peer (L2, @320) = 1 RAISED" "$INSPECT" "$tmp/bad.region" "${ARGS[@]}"
check json 1 '"peer_abort_flag": 1' "$INSPECT" "$tmp/bad.region" "${ARGS[@]}" --json
check wrong-layout 1 "payload part has 512 bytes, the layout needs 768" \
  "$INSPECT" "$tmp/good.region" --depth 8 --input-arena 192 --output-arena 64
check no-file 2 "missing dump file" "$INSPECT" "${ARGS[@]}"
check no-depth 2 "--depth is required" "$INSPECT" "$tmp/good.region" --input-arena 128 --output-arena 128
check junk 2 "value 'x4' of --depth is not an unsigned integer" "$INSPECT" "$tmp/good.region" --depth x4
check missing 2 "cannot read" "$INSPECT" "$tmp/none.region" "${ARGS[@]}"
printf "tiny" > "$tmp/short.region"
check short 1 "fewer than the 384 counter bytes" "$INSPECT" "$tmp/short.region" "${ARGS[@]}"
if [[ $fails -ne 0 ]]; then echo "$fails checks failed"; exit 1; fi
echo "all spsq inspect checks passed"
