// The payload arena rule (wire-contract.md, "Payload arena allocation"). The
// producer calls it to place a message, the consumer to recompute where that
// message must be; one function keeps the two sides from drifting apart.
#ifndef SPSQ_COMMON_SPSQ_ARENA_H_
#define SPSQ_COMMON_SPSQ_ARENA_H_

#include <cstdint>

namespace spsc_queue {

struct SpscArenaPlacement {
  uint64_t payload_offset;  // relative to the payload base; 0 for zero-byte
  uint64_t start_cursor;    // cursor of the first payload byte (after any skip)
  uint64_t next_cursor;     // cursor after the message
};

// Places `nbytes` at monotonic `cursor` in the arena at [arena_offset,
// arena_offset + arena_bytes). A span that would cross the arena end starts at
// the arena start and the cursor skips the unused tail. Zero-byte messages
// take offset 0 and leave the cursor alone. Returns false when the message can
// never fit (nbytes > arena_bytes) or a cursor or offset would overflow.
inline bool arena_place(uint64_t cursor, uint64_t nbytes, uint64_t arena_offset,
                        uint64_t arena_bytes, SpscArenaPlacement* out) {
  if (nbytes == 0) {
    *out = SpscArenaPlacement{0, cursor, cursor};
    return true;
  }
  if (arena_bytes == 0 || nbytes > arena_bytes) return false;
  // Arenas are often powers of two: a mask then saves a division per message.
  const uint64_t pos = (arena_bytes & (arena_bytes - 1)) == 0 ? cursor & (arena_bytes - 1)
                                                               : cursor % arena_bytes;
  const uint64_t skip = (pos + nbytes > arena_bytes) ? arena_bytes - pos : 0;
  uint64_t start, next, offset;
  if (__builtin_add_overflow(cursor, skip, &start) ||
      __builtin_add_overflow(start, nbytes, &next) ||
      __builtin_add_overflow(arena_offset, skip != 0 ? 0 : pos, &offset)) {
    return false;
  }
  *out = SpscArenaPlacement{offset, start, next};
  return true;
}

// Producer-side room check. `released_cursor..cursor` is the unreleased
// payload. The contract's bound is next_cursor - released_cursor <=
// arena_bytes; when nothing is unreleased any placed message fits, even if
// its skip makes that distance larger (otherwise an idle queue could refuse a
// message that fits the arena forever).
inline bool arena_has_room(uint64_t released_cursor, uint64_t cursor,
                           const SpscArenaPlacement& placement, uint64_t arena_bytes) {
  if (placement.next_cursor == placement.start_cursor) return true;  // zero-byte
  if (released_cursor == cursor) return true;
  return placement.next_cursor - released_cursor <= arena_bytes;
}

}  // namespace spsc_queue

#endif  // SPSQ_COMMON_SPSQ_ARENA_H_
