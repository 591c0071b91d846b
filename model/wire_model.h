// The conformance suite's own model of the SPSQ wire (ABI 1.0), written from
// the text of l3-l2-message-queue.md and wire-contract.md. It deliberately
// shares no code with any implementation: the suite judges endpoints against
// this model, so a bug copied from the reference would otherwise go unseen.
#ifndef SPSQ_CONFORMANCE_MODEL_WIRE_MODEL_H_
#define SPSQ_CONFORMANCE_MODEL_WIRE_MODEL_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace spsq_conf {
namespace wire {

// Constants (wire-contract.md, "Constants").
inline constexpr uint64_t kMagic = 0x53505351u;
inline constexpr uint64_t kAbiMajor = 1;
inline constexpr uint64_t kAbiMinor = 0;
inline constexpr uint64_t kMagicVersion = (kMagic << 32) | (kAbiMajor << 16) | kAbiMinor;
inline constexpr size_t kScalarCount = 10;
inline constexpr uint64_t kDescriptorBytes = 32;
inline constexpr uint64_t kArenaAlign = 64;
inline constexpr uint64_t kCounterStride = 64;
inline constexpr uint64_t kCounterBytes = 384;
inline constexpr uint64_t kMaxDepth = uint64_t{1} << 30;

// Counter slots (spec section 3): writer in the comment.
inline constexpr uint64_t kInputTail = 0;        // L3
inline constexpr uint64_t kInputHead = 64;       // L2
inline constexpr uint64_t kOutputTail = 128;     // L2
inline constexpr uint64_t kOutputHead = 192;     // L3
inline constexpr uint64_t kInitiatorFlag = 256;  // L3
inline constexpr uint64_t kPeerFlag = 320;       // L2

// Descriptor field byte offsets.
inline constexpr uint64_t kSeqAt = 0;
inline constexpr uint64_t kOpcodeAt = 8;
inline constexpr uint64_t kOffsetAt = 16;
inline constexpr uint64_t kNbytesAt = 24;

// Opcodes (uint64 in the descriptor).
inline constexpr uint64_t kInvalid = 0;
inline constexpr uint64_t kData = 1;
inline constexpr uint64_t kStop = 2;
inline constexpr uint64_t kError = 3;

// Error kinds (uint32).
inline constexpr uint32_t kKindNone = 0;
inline constexpr uint32_t kBadArgument = 1;
inline constexpr uint32_t kBadBinding = 2;
inline constexpr uint32_t kInvalidDescriptor = 3;
inline constexpr uint32_t kOwnership = 4;
inline constexpr uint32_t kRemoteAborted = 5;
inline constexpr uint32_t kEndpointError = 6;

// Operations recorded with an error (uint32).
inline constexpr uint32_t kOpInit = 1;
inline constexpr uint32_t kOpTimeout = 2;
inline constexpr uint32_t kOpInputTryPeek = 3;
inline constexpr uint32_t kOpInputRelease = 4;
inline constexpr uint32_t kOpOutputTryReserve = 5;
inline constexpr uint32_t kOpOutputPublish = 6;

const char* kind_name(uint32_t kind);
const char* opcode_name(uint64_t opcode);

// ------------------------------------------------------------------ layout

struct Layout {
  uint64_t depth = 0;
  uint64_t input_ring = 0;   // offset of the input descriptor ring (always 0)
  uint64_t output_ring = 0;  // depth * 32
  uint64_t ring_bytes = 0;   // depth * 32, each ring
  uint64_t input_arena = 0;
  uint64_t input_arena_bytes = 0;
  uint64_t output_arena = 0;
  uint64_t output_arena_bytes = 0;
  uint64_t payload_bytes = 0;
  uint64_t counter_bytes = kCounterBytes;

  uint64_t input_slot(uint64_t k) const { return input_ring + (k % depth) * kDescriptorBytes; }
  uint64_t output_slot(uint64_t k) const { return output_ring + (k % depth) * kDescriptorBytes; }
};

// Computes the layout of (depth, in, out); false (and *out untouched) when
// depth is not a power of two in 1..2^30, an arena is not a positive multiple
// of 64, or any sum or product overflows 64 bits.
bool compute_layout(uint64_t depth, uint64_t in, uint64_t out, Layout* layout);

// payload_bytes as the layout formula gives it with no check at all (any depth
// and arenas, sums wrapping at 2^64). A binding carrying it, with a view span
// to match, is refused by the depth, arena or overflow rule alone, never by
// the size checks: what a test of one of those rules must hand an endpoint.
uint64_t unchecked_payload_bytes(uint64_t depth, uint64_t in, uint64_t out);

// ------------------------------------------------------------------ bytes

// Little-endian fields at any alignment. One memcpy (a single load or store
// once compiled) rather than a byte loop: the counter-wrap runs decode 2^33
// descriptors, where GCC left the loop a loop.
inline uint64_t load_le64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  return v;
}

inline void store_le64(uint8_t* p, uint64_t v) {
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  std::memcpy(p, &v, sizeof(v));
}

struct Descriptor {
  uint64_t seq = 0;
  uint64_t opcode = 0;
  uint64_t offset = 0;
  uint64_t nbytes = 0;
};

inline Descriptor decode_descriptor(const uint8_t* slot) {
  return Descriptor{load_le64(slot + kSeqAt), load_le64(slot + kOpcodeAt),
                    load_le64(slot + kOffsetAt), load_le64(slot + kNbytesAt)};
}

inline void encode_descriptor(const Descriptor& d, uint8_t* slot) {
  store_le64(slot + kSeqAt, d.seq);
  store_le64(slot + kOpcodeAt, d.opcode);
  store_le64(slot + kOffsetAt, d.offset);
  store_le64(slot + kNbytesAt, d.nbytes);
}

// seq is 1-based: logical index k carries k + 1.
inline constexpr uint64_t seq_of(uint64_t k) { return k + 1; }

// ------------------------------------------------------------------ counters

// The value a head/tail slot holds for a 64-bit monotonic count.
inline int32_t low32(uint64_t count) {
  return static_cast<int32_t>(static_cast<uint32_t>(count));
}

// The progress an observation shows over `local`: int32(uint32(obs) - uint32(local)).
inline int64_t counter_delta(uint64_t local, int32_t observed) {
  return static_cast<int32_t>(static_cast<uint32_t>(observed) - static_cast<uint32_t>(local));
}

// Reconstruction: valid only when 0 <= delta <= depth.
inline bool reconstruct(uint64_t local, int32_t observed, uint64_t depth, uint64_t* out) {
  const int64_t delta = counter_delta(local, observed);
  if (delta < 0 || static_cast<uint64_t>(delta) > depth) return false;
  *out = local + static_cast<uint64_t>(delta);
  return true;
}

// ------------------------------------------------------------------ arenas

struct Placement {
  uint64_t offset = 0;  // payload offset (relative to the payload base); 0 when n == 0
  uint64_t start = 0;   // cursor of the first byte, after any skip
  uint64_t next = 0;    // cursor after the message
  bool skipped = false;
};

// The arena rule for a message of n bytes at a monotonic cursor. False when
// the message can never fit the arena (n > arena_bytes). Inline: the
// counter-wrap runs and the wire floor (testkit/wire_floor.h) place every message.
inline bool place(uint64_t cursor, uint64_t n, uint64_t arena_offset, uint64_t arena_bytes,
                  Placement* out) {
  if (n == 0) {
    *out = Placement{0, cursor, cursor, false};
    return true;
  }
  if (arena_bytes == 0 || n > arena_bytes) return false;
  const uint64_t pos = cursor % arena_bytes;
  Placement p;
  if (pos + n > arena_bytes) {
    p.skipped = true;
    p.start = cursor + (arena_bytes - pos);
    p.offset = arena_offset;
  } else {
    p.start = cursor;
    p.offset = arena_offset + pos;
  }
  p.next = p.start + n;
  *out = p;
  return true;
}

// The producer's room bound: next - released <= arena_bytes. `idle_exception`
// applies the AMB.ROOM reading A: an arena with nothing unreleased
// (released == cursor) takes any message that fits it.
inline bool has_room(uint64_t released, uint64_t cursor, const Placement& p,
                     uint64_t arena_bytes, bool idle_exception) {
  if (p.next == p.start) return true;  // zero-byte messages take no arena
  if (idle_exception && released == cursor) return true;
  return p.next - released <= arena_bytes;
}

// ------------------------------------------------------------------ binding

struct BindingFields {
  uint64_t magic_version = kMagicVersion;
  uint64_t session_instance_id_bits = 0;
  uint64_t transaction_id = 1;
  uint64_t payload_base = 0;
  uint64_t payload_bytes = 0;
  uint64_t counter_base = 0;
  uint64_t counter_bytes = kCounterBytes;
  uint64_t depth = 0;
  uint64_t input_arena_bytes = 0;
  uint64_t output_arena_bytes = 0;
};

// The ten scalars in spec order, of BindingFields or of any struct with the
// spec's field names (an endpoint's SpscQueueEndpointBinding: wire-contract.md
// gives it "the ten fields in binding order").
template <class Binding = BindingFields>
std::array<uint64_t, kScalarCount> binding_scalars(const Binding& b) {
  return {b.magic_version,     b.session_instance_id_bits,
          b.transaction_id,    b.payload_base,
          b.payload_bytes,     b.counter_base,
          b.counter_bytes,     b.depth,
          b.input_arena_bytes, b.output_arena_bytes};
}

// The reverse: the fields of ten scalars in spec order, into BindingFields or
// any struct with the spec's field names. No rule is checked: judging the
// scalars is the caller's business.
template <class Binding = BindingFields>
Binding binding_from_scalars(const uint64_t* s) {
  Binding b{};
  b.magic_version = s[0];
  b.session_instance_id_bits = s[1];
  b.transaction_id = s[2];
  b.payload_base = s[3];
  b.payload_bytes = s[4];
  b.counter_base = s[5];
  b.counter_bytes = s[6];
  b.depth = s[7];
  b.input_arena_bytes = s[8];
  b.output_arena_bytes = s[9];
  return b;
}

// The binding L3 hands over for a queue of layout `l` whose two parts start
// at payload_base and counter_base. `LayoutT` is Layout or any layout with
// its depth, payload_bytes and arena sizes.
template <class LayoutT = Layout>
BindingFields binding_for(const LayoutT& l, uint64_t payload_base, uint64_t counter_base,
                          uint64_t session_instance_id_bits, uint64_t transaction_id) {
  BindingFields b;
  b.session_instance_id_bits = session_instance_id_bits;
  b.transaction_id = transaction_id;
  b.payload_base = payload_base;
  b.payload_bytes = l.payload_bytes;
  b.counter_base = counter_base;
  b.depth = l.depth;
  b.input_arena_bytes = l.input_arena_bytes;
  b.output_arena_bytes = l.output_arena_bytes;
  return b;
}

}  // namespace wire
}  // namespace spsq_conf

#endif  // SPSQ_CONFORMANCE_MODEL_WIRE_MODEL_H_
