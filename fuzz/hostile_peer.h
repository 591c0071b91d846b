// The hostile peer, once for every stateful harness: l2_stream plays a
// hostile L3 against an L2 endpoint, l3_stream a hostile L2 against the L3
// queue, differential a hostile L3 in front of two endpoints at once. The
// edits are the same whichever side is lying; only the direction it produces
// on differs. Each edit touches shared memory only and returns what it made
// unpredictable, which the harness folds into its own record of what it can
// still check exactly.
#ifndef SPSQ_FUZZ_HOSTILE_PEER_H_
#define SPSQ_FUZZ_HOSTILE_PEER_H_

#include <cstdint>

#include "fuzz/fuzz_bytes.h"
#include "fuzz/fuzz_memory.h"
#include "fuzz/wire_model.h"

namespace spsq_fuzz {

// What a hostile edit touched (bits of the returned mask).
enum HostileTouch : uint32_t {
  kTouchedInputCounters = 1u << 0,   // input tail or head
  kTouchedOutputCounters = 1u << 1,  // output tail or head
  kTouchedInputRing = 1u << 2,
  kTouchedOutputRing = 1u << 3,
};

// The edits below work on values and on the payload bytes, not on a memory
// type: the fuzzers' FuzzMemory and the conformance harness's RegionMemory
// (l3_stream) apply them alike.

// What a hostile edit of the counter word at `off` makes unpredictable.
inline uint32_t counter_touch(uint64_t off) {
  if (off == wire::kInputTail || off == wire::kInputHead) return kTouchedInputCounters;
  if (off == wire::kOutputTail || off == wire::kOutputHead) return kTouchedOutputCounters;
  return 0;  // an abort flag: the harness decides what that means
}

// A counter word moved up or down by less than 16, or set to an arbitrary
// value (mode % 3 picks which).
inline int32_t hostile_counter_value(int32_t word, uint8_t mode, uint32_t v) {
  const uint32_t cur = static_cast<uint32_t>(word);
  return static_cast<int32_t>(mode % 3 == 0 ? cur + v % 16 : mode % 3 == 1 ? cur - v % 16 : v);
}

// The counter edit on FuzzMemory (l2_stream, differential).
inline uint32_t hostile_counter(FuzzMemory& region, uint64_t off, uint8_t mode, uint32_t v) {
  region.set_counter(off, hostile_counter_value(region.counter(off), mode, v));
  return counter_touch(off);
}

// Changes one 8-byte field of one descriptor slot of either ring (slots
// 0..depth-1 are the input ring, depth..2*depth-1 the output ring): nudged by
// less than 64 either way, or set to v (mode % 3 picks which). `Layout` is
// any layout with the contract's ring names (ModelLayout, wire::Layout).
template <class Layout>
uint32_t hostile_descriptor(uint8_t* payload, const Layout& lay, uint8_t slot, uint8_t field,
                            uint8_t mode, uint64_t v) {
  const uint64_t s = slot % (2 * lay.depth);
  const bool input = s < lay.depth;
  uint8_t* p = payload + (input ? lay.input_ring : lay.output_ring) +
               (s % lay.depth) * wire::kDescriptorBytes + (field % 4) * 8;
  const uint64_t cur = wire::load_le64(p);
  wire::store_le64(p, mode % 3 == 0 ? cur + (v & 63) : mode % 3 == 1 ? cur - (v & 63) : v);
  return input ? kTouchedInputRing : kTouchedOutputRing;
}

// Bends an honest descriptor of n % (arena + 65) bytes: the offset as
// off_mode says (nudged by up to 63 either way, set to n, or set to the
// arena's start `arena`) and the seq as seq_mode says (one behind, one ahead,
// zero).
inline void hostile_perturb(wire::Descriptor* d, uint8_t off_mode, uint16_t n, uint8_t seq_mode,
                            uint64_t arena) {
  const uint64_t nudge = n & 63;
  switch (off_mode % 4) {
    case 1:
      d->offset = (off_mode & 0x80) ? d->offset + nudge : d->offset - nudge;
      break;
    case 2:
      d->offset = n;
      break;
    case 3:
      d->offset = arena;
      break;
    default:
      break;
  }
  switch (seq_mode % 4) {
    case 1:
      d->seq -= 1;
      break;
    case 2:
      d->seq += 1;
      break;
    case 3:
      d->seq = 0;
      break;
    default:
      break;
  }
}

// The descriptor a hostile producer publishes next on `dir` after
// `published` messages: the honest placement of n % (arena + 65) bytes at
// *cursor, bent by hostile_perturb, opcode op % 5. *cursor advances only when
// the result is still a valid descriptor, as the peer's honest successor would.
inline wire::Descriptor hostile_next_descriptor(const ModelDirection& dir, uint64_t published,
                                                uint64_t* cursor, uint8_t op, uint8_t off_mode,
                                                uint16_t n, uint8_t seq_mode) {
  const uint64_t nbytes = n % (dir.arena_bytes + 65);
  const Placement p = place(*cursor, nbytes, dir.arena, dir.arena_bytes);
  wire::Descriptor d{published + 1, static_cast<uint64_t>(op % 5), p.offset, nbytes};
  hostile_perturb(&d, off_mode, n, seq_mode, dir.arena);
  uint64_t next = *cursor;
  if (desc_valid(dir, d, published, *cursor, &next)) *cursor = next;
  return d;
}

// The arguments of each hostile step, read from the input in the order the
// checked-in corpora were written with (one reader for every harness).
struct HostileCounterStep {
  uint64_t off;  // one of the six counter words
  uint8_t mode;
  uint32_t v;
  static HostileCounterStep read(FuzzReader& in) {
    HostileCounterStep s;
    s.off = (in.u8() % 6) * 64ull;
    s.mode = in.u8();
    s.v = in.u32();
    return s;
  }
};

struct HostileDescriptorStep {
  uint8_t slot, field, mode;
  uint64_t v;
  static HostileDescriptorStep read(FuzzReader& in) {
    HostileDescriptorStep s;
    s.slot = in.u8();
    s.field = in.u8() % 4;
    s.mode = in.u8();
    s.v = in.u64();
    return s;
  }
};

struct HostileCraftStep {
  uint8_t op, off_mode;
  uint16_t n;
  uint8_t seq_mode;
  static HostileCraftStep read(FuzzReader& in) {
    HostileCraftStep s;
    s.op = in.u8();
    s.off_mode = in.u8();
    s.n = in.u16();
    s.seq_mode = in.u8();
    return s;
  }
};

// The three edits every stream input numbers consecutively (counter,
// descriptor, craft): reads one step's arguments and applies it through the
// harness's own hostile_counter / hostile_desc / hostile_craft, which fold the
// edit into what the harness can still predict. `which` is the step kind
// minus the harness's first hostile kind.
template <class Harness>
void run_hostile_edit(Harness& h, uint8_t which, FuzzReader& in) {
  switch (which) {
    case 0: {
      const HostileCounterStep a = HostileCounterStep::read(in);
      h.hostile_counter(a.off, a.mode, a.v);
      break;
    }
    case 1: {
      const HostileDescriptorStep a = HostileDescriptorStep::read(in);
      h.hostile_desc(a.slot, a.field, a.mode, a.v);
      break;
    }
    default: {
      const HostileCraftStep a = HostileCraftStep::read(in);
      h.hostile_craft(a.op, a.off_mode, a.n, a.seq_mode);
      break;
    }
  }
}

}  // namespace spsq_fuzz

#endif  // SPSQ_FUZZ_HOSTILE_PEER_H_
