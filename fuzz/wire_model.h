// The wire contract restated for the stateful harnesses, independently of
// core/: layout offsets, descriptor bytes, counter reconstruction, the arena
// rule and descriptor validity. The harnesses predict what an endpoint must
// do from this model, so a bug in core/ shows up as a disagreement instead of
// agreeing with itself.
#ifndef SPSQ_FUZZ_WIRE_MODEL_H_
#define SPSQ_FUZZ_WIRE_MODEL_H_

#include <cstdint>

#include "model/wire_model.h"
#include "fuzz/fuzz_check.h"

namespace spsq_fuzz {

// Constants, descriptor bytes and counter reconstruction are the suite's
// model's (model/wire_model.h), under their names there.
namespace wire = spsq_conf::wire;

struct ModelLayout {
  uint64_t depth = 0;
  uint64_t input_ring = 0, output_ring = 0;
  uint64_t input_arena = 0, input_arena_bytes = 0;
  uint64_t output_arena = 0, output_arena_bytes = 0;
  uint64_t payload_bytes = 0;

  // Small queues only (depth <= 2^10, arenas < 2^20): no overflow to care about.
  static ModelLayout of(uint64_t depth, uint64_t in, uint64_t out) {
    ModelLayout l;
    l.depth = depth;
    l.input_ring = 0;
    l.output_ring = depth * 32;
    l.input_arena = (2 * depth * 32 + 63) / 64 * 64;
    l.input_arena_bytes = in;
    l.output_arena = (l.input_arena + in + 63) / 64 * 64;
    l.output_arena_bytes = out;
    l.payload_bytes = l.output_arena + out;
    return l;
  }
  uint64_t input_slot(uint64_t k) const { return input_ring + (k % depth) * 32; }
  uint64_t output_slot(uint64_t k) const { return output_ring + (k % depth) * 32; }
};

// One direction as the model sees it.
struct ModelDirection {
  uint64_t ring, arena, arena_bytes;
  bool input;  // input carries DATA and STOP; output DATA and ERROR
  bool carries(uint64_t opcode) const {
    return opcode == wire::kData || opcode == (input ? wire::kStop : wire::kError);
  }
};

inline ModelDirection input_of(const ModelLayout& l) {
  return {l.input_ring, l.input_arena, l.input_arena_bytes, true};
}
inline ModelDirection output_of(const ModelLayout& l) {
  return {l.output_ring, l.output_arena, l.output_arena_bytes, false};
}

// Arena rule: where n bytes go at `cursor`, and the cursor after them. An
// inline copy of wire::place (out of line there), for the fuzzers' speed.
struct Placement {
  uint64_t offset = 0, start = 0, next = 0;
};
inline Placement place(uint64_t cursor, uint64_t n, uint64_t arena, uint64_t arena_bytes) {
  if (n == 0) return {0, cursor, cursor};
  const uint64_t pos = cursor % arena_bytes;
  if (pos + n > arena_bytes) {
    const uint64_t start = cursor + (arena_bytes - pos);
    return {arena, start, start + n};
  }
  return {arena + pos, cursor, cursor + n};
}

// Producer room: ring not full and the unreleased payload fits. With nothing
// unreleased any message that fits the arena is placeable (otherwise an idle
// queue could refuse forever).
inline bool has_room(uint64_t published, uint64_t released, uint64_t depth, uint64_t cursor,
                     uint64_t released_cursor, const Placement& p, uint64_t n,
                     uint64_t arena_bytes) {
  if (n > arena_bytes) return false;
  if (published - released >= depth) return false;
  if (n == 0 || cursor == released_cursor) return true;
  return p.next - released_cursor <= arena_bytes;
}

// Descriptor validity at logical index k with the consumer's arena cursor.
// On success *next_cursor is the cursor after the message.
inline bool desc_valid(const ModelDirection& dir, const wire::Descriptor& d, uint64_t k,
                       uint64_t cursor, uint64_t* next_cursor) {
  if (d.seq != k + 1) return false;
  if (!dir.carries(d.opcode)) return false;
  if (d.nbytes == 0) {
    *next_cursor = cursor;
    return d.offset == 0;
  }
  if (d.opcode == wire::kStop) return false;
  if (d.nbytes > dir.arena_bytes) return false;
  const Placement p = place(cursor, d.nbytes, dir.arena, dir.arena_bytes);
  if (d.offset != p.offset) return false;
  *next_cursor = p.next;
  return true;
}

// Writes descriptor d into the ring slot at `slot` in the contract's
// publication order: bytes 8..31, then the seq (W.ORDER.1). The producer's
// tail store follows it.
inline void publish_descriptor(uint8_t* slot, const wire::Descriptor& d) {
  wire::store_le64(slot + wire::kOpcodeAt, d.opcode);
  wire::store_le64(slot + wire::kOffsetAt, d.offset);
  wire::store_le64(slot + wire::kNbytesAt, d.nbytes);
  wire::store_le64(slot + wire::kSeqAt, d.seq);
}

// Payload byte i of the message with seq s, salted per input: lets a consumer
// check delivery byte-exact without storing what was sent.
inline uint8_t pattern_byte(uint64_t salt, uint64_t seq, uint64_t i) {
  return static_cast<uint8_t>((salt ^ (seq * 0x9e3779b1u)) + i * 131 + (i >> 8));
}

}  // namespace spsq_fuzz

#endif  // SPSQ_FUZZ_WIRE_MODEL_H_
