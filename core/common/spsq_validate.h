// The one descriptor check both sides run: the consumer on every descriptor
// it acquires, the producer on every released descriptor it replays to free
// arena space. Pure: bytes in, verdict out.
#ifndef SPSQ_COMMON_SPSQ_VALIDATE_H_
#define SPSQ_COMMON_SPSQ_VALIDATE_H_

#include <cinttypes>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "common/spsq_arena.h"
#include "common/spsq_constants.h"
#include "common/spsq_descriptor.h"
#include "common/spsq_direction.h"

namespace spsc_queue {

// Formats why a descriptor was refused. Out of line and cold, so the checks
// below stay small enough to inline into the per-message path.
[[gnu::cold, gnu::noinline, gnu::format(printf, 3, 4)]] inline bool explain_refusal(
    char* why, size_t why_bytes, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(why, why_bytes, fmt, args);
  va_end(args);
  return false;
}

// Checks the descriptor at logical index `k`, expecting the arena cursor at
// `cursor`. On success fills *placement; on failure writes why into `why`.
inline bool validate_descriptor(const SpscDirection& dir, const SpscQueueDescriptor& d,
                                uint64_t k, uint64_t cursor, SpscArenaPlacement* placement,
                                char* why, size_t why_bytes) {
  if (d.seq != expected_seq(k)) {
    return explain_refusal(why, why_bytes, "descriptor sequence mismatch at index %" PRIu64
                           ": seq %" PRIu64 ", want %" PRIu64, k, d.seq, expected_seq(k));
  }
  if (!dir.carries(d.opcode)) {
    return explain_refusal(why, why_bytes, "invalid opcode %" PRIu64 " (%s) at seq %" PRIu64
                           " on this direction", d.opcode, opcode_name(d.opcode), d.seq);
  }
  if (d.payload_nbytes == 0) {
    if (d.payload_offset != 0) {
      return explain_refusal(why, why_bytes, "zero-byte message at seq %" PRIu64
                             " has payload_offset %" PRIu64 ", want 0", d.seq, d.payload_offset);
    }
    *placement = SpscArenaPlacement{0, cursor, cursor};
    return true;
  }
  if (d.opcode == static_cast<uint64_t>(SpscQueueOpcode::STOP)) {
    return explain_refusal(why, why_bytes,
                           "STOP at seq %" PRIu64 " carries %" PRIu64 " payload bytes", d.seq,
                           d.payload_nbytes);
  }
  const uint64_t arena_end = dir.arena_offset + dir.arena_bytes;  // layout-checked, no overflow
  if (d.payload_nbytes > dir.arena_bytes || d.payload_offset < dir.arena_offset ||
      d.payload_offset > arena_end - d.payload_nbytes) {
    return explain_refusal(why, why_bytes, "payload outside its arena at seq %" PRIu64 ": [%" PRIu64
                           ", +%" PRIu64 ") not inside [%" PRIu64 ", %" PRIu64 ")", d.seq,
                           d.payload_offset, d.payload_nbytes, dir.arena_offset, arena_end);
  }
  SpscArenaPlacement p;
  if (!arena_place(cursor, d.payload_nbytes, dir.arena_offset, dir.arena_bytes, &p)) {
    return explain_refusal(why, why_bytes, "payload replay impossible at seq %" PRIu64
                           ": arena cursor %" PRIu64 " overflows", d.seq, cursor);
  }
  if (p.payload_offset != d.payload_offset) {
    return explain_refusal(why, why_bytes,
                           "payload replay mismatch at seq %" PRIu64 ": offset %" PRIu64
                           ", the arena rule places it at %" PRIu64,
                           d.seq, d.payload_offset, p.payload_offset);
  }
  *placement = p;
  return true;
}

}  // namespace spsc_queue

#endif  // SPSQ_COMMON_SPSQ_VALIDATE_H_
