#!/usr/bin/env bash
# The spsq CLI: layout output, binding decode verdicts, usage errors (exit 2).
set -u
SPSQ="$TEST_SRCDIR/spsq_harness/cli/spsq"
source "$TEST_SRCDIR/spsq_harness/cli/cli_check.sh"
MV=0x5350535100010000
check golden-layout 0 '"output_arena_offset": 384, "output_arena_bytes": 192, "payload_bytes": 576' \
  "$SPSQ" layout --depth 4 --input-arena 128 --output-arena 192 --json
check text-layout 0 'input_arena_offset' "$SPSQ" layout --depth 8 --input-arena 192 --output-arena 64
check bad-depth 1 'depth is not a power of two' "$SPSQ" layout --depth 3 --input-arena 64 --output-arena 64
check bad-arena 1 'input arena is not a multiple of 64' "$SPSQ" layout --depth 1 --input-arena 65 --output-arena 64
check missing-flag 2 '--output-arena is required' "$SPSQ" layout --depth 1 --input-arena 64
check junk-number 2 "value '12x' is not" "$SPSQ" layout --depth 12x --input-arena 64 --output-arena 64
check negative 2 "is not an unsigned" "$SPSQ" layout --depth -1 --input-arena 64 --output-arena 64
check unknown-cmd 2 "unknown command 'frob'" "$SPSQ" frob
check no-cmd 2 "missing command" "$SPSQ"
check good-binding 0 'binding ok' "$SPSQ" decode-binding $MV 0 7 4096 576 8192 384 4 128 192
check wrong-count 1 'wrong scalar count (need exactly 10), got 9' "$SPSQ" decode-binding $MV 0 7 4096 576 8192 384 4 128
check bad-magic 1 'bad magic' "$SPSQ" decode-binding 0x5350535200010000 0 7 4096 576 8192 384 4 128 192
check wrong-major 1 'major' "$SPSQ" decode-binding 0x5350535100020000 0 7 4096 576 8192 384 4 128 192
check wrong-minor 1 'minor' "$SPSQ" decode-binding 0x5350535100010001 0 7 4096 576 8192 384 4 128 192
check zero-txn 1 'transaction_id is zero' "$SPSQ" decode-binding $MV 0 0 4096 576 8192 384 4 128 192
check layout-mismatch 1 'payload_bytes 577, layout needs 576' "$SPSQ" decode-binding $MV 0 7 4096 577 8192 384 4 128 192
check bad-scalar 2 "scalar 3 'zz' is not" "$SPSQ" decode-binding $MV 0 7 zz 576 8192 384 4 128 192
check inspect-usage 2 "" "$SPSQ" inspect
check help-lists-inspect 0 "spsq inspect DUMP" "$SPSQ" help
if [[ $fails -ne 0 ]]; then echo "$fails checks failed"; exit 1; fi
echo "all spsq CLI checks passed"
