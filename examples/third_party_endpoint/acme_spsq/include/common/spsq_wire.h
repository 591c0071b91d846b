// SPSQ wire vocabulary (ABI 1.0): constants, enums, the binding, the layout,
// the descriptor codec and counter reconstruction. Everything here is a fact
// of wire-contract.md; nothing touches shared memory.
#ifndef SPSQ_INDEPENDENT_COMMON_SPSQ_WIRE_H_
#define SPSQ_INDEPENDENT_COMMON_SPSQ_WIRE_H_

#include <cstddef>
#include <cstdint>

namespace spsc_queue {

inline constexpr uint32_t kSpscQueueMagic = 0x53505351u;  // "SPSQ"
inline constexpr uint16_t kSpscQueueAbiMajor = 1;
inline constexpr uint16_t kSpscQueueAbiMinor = 0;
inline constexpr uint64_t kSpscQueueMagicVersion =
    (static_cast<uint64_t>(kSpscQueueMagic) << 32) |
    (static_cast<uint64_t>(kSpscQueueAbiMajor) << 16) | static_cast<uint64_t>(kSpscQueueAbiMinor);
inline constexpr size_t kSpscQueueEndpointBindingScalarCount = 10;

inline constexpr uint64_t kDescriptorBytes = 32;
inline constexpr uint64_t kArenaAlignment = 64;
inline constexpr uint64_t kDescriptorRingAlignment = 8;
inline constexpr uint64_t kCounterStride = 64;
inline constexpr uint64_t kCounterBytes = 384;
inline constexpr uint64_t kMaxDepth = uint64_t{1} << 30;

// Signal offsets in the counter region; each slot is an int32.
inline constexpr uint64_t kInputDescTailOffset = 0 * kCounterStride;   // writer L3
inline constexpr uint64_t kInputDescHeadOffset = 1 * kCounterStride;   // writer L2
inline constexpr uint64_t kOutputDescTailOffset = 2 * kCounterStride;  // writer L2
inline constexpr uint64_t kOutputDescHeadOffset = 3 * kCounterStride;  // writer L3
inline constexpr uint64_t kInitiatorAbortOffset = 4 * kCounterStride;  // writer L3
inline constexpr uint64_t kPeerAbortOffset = 5 * kCounterStride;       // writer L2

enum class SpscQueueOpcode : uint64_t { INVALID = 0, DATA = 1, STOP = 2, ERROR = 3 };

enum class SpscQueueErrorKind : uint32_t {
  NONE = 0,
  BAD_ARGUMENT = 1,
  BAD_BINDING = 2,
  INVALID_DESCRIPTOR = 3,
  OWNERSHIP = 4,
  REMOTE_ABORTED = 5,
  ENDPOINT_ERROR = 6,
};

// The operation an error is recorded with; 0 while there is no error.
enum class SpscQueueOp : uint32_t {
  INIT = 1,
  TIMEOUT = 2,
  INPUT_TRY_PEEK = 3,
  INPUT_RELEASE = 4,
  OUTPUT_TRY_RESERVE = 5,
  OUTPUT_PUBLISH = 6,
};

// One descriptor slot, decoded. `opcode` stays the raw wire integer so a
// consumer can reject values outside the enum.
struct SpscQueueDescriptor {
  uint64_t seq = 0;
  uint64_t opcode = 0;
  uint64_t payload_offset = 0;
  uint64_t payload_nbytes = 0;
};

// The ten binding scalars, in binding order.
struct SpscQueueEndpointBinding {
  uint64_t magic_version = 0;
  uint64_t session_instance_id_bits = 0;
  uint64_t transaction_id = 0;
  uint64_t payload_base = 0;
  uint64_t payload_bytes = 0;
  uint64_t counter_base = 0;
  uint64_t counter_bytes = 0;
  uint64_t depth = 0;
  uint64_t input_arena_bytes = 0;
  uint64_t output_arena_bytes = 0;
};

struct SpscQueuePayloadView {
  uint64_t local_addr = 0;  // an integer address; L2 code casts it
  uint64_t nbytes = 0;
};

struct SpscQueueInputHandle {
  uint64_t seq = 0;
  SpscQueueOpcode opcode = SpscQueueOpcode::INVALID;
  uint64_t payload_offset = 0;
  uint64_t payload_nbytes = 0;
  SpscQueuePayloadView payload{};
  uint64_t owner_cookie = 0;
};

struct SpscQueueOutputReservation {
  uint64_t seq = 0;
  uint64_t payload_offset = 0;
  uint64_t payload_nbytes = 0;
  SpscQueuePayloadView payload{};
  uint64_t owner_cookie = 0;
  bool valid = false;
};

struct SpscQueueError {
  SpscQueueErrorKind kind = SpscQueueErrorKind::NONE;
  SpscQueueOp op{};
  uint64_t session_instance_id_bits = 0;
  uint64_t transaction_id = 0;
  char message[256] = {};
};

struct MonotonicClock {
  uint64_t (*now_ns)() = nullptr;
};

namespace detail {

inline bool add_ok(uint64_t a, uint64_t b, uint64_t* out) {
  return !__builtin_add_overflow(a, b, out);
}
inline bool align_up_ok(uint64_t v, uint64_t alignment, uint64_t* out) {
  uint64_t bumped = 0;
  if (!add_ok(v, alignment - 1, &bumped)) return false;
  *out = bumped / alignment * alignment;
  return true;
}

inline void store_le64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
inline uint64_t load_le64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace detail

// Offsets relative to the payload (resp. counter) base. A layout is only
// ever produced by create(), so every field of a live one is consistent.
struct SpscQueueLayout {
  uint64_t depth = 0;
  uint64_t input_arena_bytes = 0;
  uint64_t output_arena_bytes = 0;
  uint64_t input_desc_offset = 0;
  uint64_t output_desc_offset = 0;
  uint64_t input_arena_offset = 0;
  uint64_t output_arena_offset = 0;
  uint64_t payload_bytes = 0;
  uint64_t input_desc_tail_offset = 0;
  uint64_t input_desc_head_offset = 0;
  uint64_t output_desc_tail_offset = 0;
  uint64_t output_desc_head_offset = 0;
  uint64_t initiator_abort_offset = 0;
  uint64_t peer_abort_offset = 0;
  uint64_t counter_bytes = 0;

  // depth: a power of two in 1..2^30; arenas: positive multiples of 64.
  // Every sum is overflow-checked; on failure *out is left untouched.
  static bool create(uint64_t depth, uint64_t input_arena_bytes, uint64_t output_arena_bytes,
                     SpscQueueLayout* out) {
    if (out == nullptr) return false;
    if (depth == 0 || depth > kMaxDepth || (depth & (depth - 1)) != 0) return false;
    if (input_arena_bytes == 0 || input_arena_bytes % kArenaAlignment != 0) return false;
    if (output_arena_bytes == 0 || output_arena_bytes % kArenaAlignment != 0) return false;
    SpscQueueLayout l;
    l.depth = depth;
    l.input_arena_bytes = input_arena_bytes;
    l.output_arena_bytes = output_arena_bytes;
    const uint64_t ring = depth * kDescriptorBytes;  // <= 2^35: cannot overflow
    l.input_desc_offset = 0;
    l.output_desc_offset = ring;
    uint64_t end = 0;
    if (!detail::align_up_ok(2 * ring, kArenaAlignment, &l.input_arena_offset) ||
        !detail::add_ok(l.input_arena_offset, input_arena_bytes, &end) ||
        !detail::align_up_ok(end, kArenaAlignment, &l.output_arena_offset) ||
        !detail::add_ok(l.output_arena_offset, output_arena_bytes, &l.payload_bytes)) {
      return false;
    }
    l.input_desc_tail_offset = kInputDescTailOffset;
    l.input_desc_head_offset = kInputDescHeadOffset;
    l.output_desc_tail_offset = kOutputDescTailOffset;
    l.output_desc_head_offset = kOutputDescHeadOffset;
    l.initiator_abort_offset = kInitiatorAbortOffset;
    l.peer_abort_offset = kPeerAbortOffset;
    l.counter_bytes = kCounterBytes;
    *out = l;
    return true;
  }
};

// Both directions refuse exactly what decode refuses: a count other than 10,
// another magic_version, a zero transaction_id. Failure leaves output as is.
inline bool encode_endpoint_binding(const SpscQueueEndpointBinding& b, uint64_t* out,
                                    size_t count) {
  if (out == nullptr || count != kSpscQueueEndpointBindingScalarCount) return false;
  if (b.magic_version != kSpscQueueMagicVersion || b.transaction_id == 0) return false;
  const uint64_t v[kSpscQueueEndpointBindingScalarCount] = {
      b.magic_version, b.session_instance_id_bits, b.transaction_id, b.payload_base,
      b.payload_bytes, b.counter_base,             b.counter_bytes,  b.depth,
      b.input_arena_bytes, b.output_arena_bytes};
  for (size_t i = 0; i < count; ++i) out[i] = v[i];
  return true;
}

inline bool decode_endpoint_binding(const uint64_t* scalars, size_t count,
                                    SpscQueueEndpointBinding* out) {
  if (scalars == nullptr || out == nullptr || count != kSpscQueueEndpointBindingScalarCount) {
    return false;
  }
  if (scalars[0] != kSpscQueueMagicVersion || scalars[2] == 0) return false;
  SpscQueueEndpointBinding b;
  b.magic_version = scalars[0];
  b.session_instance_id_bits = scalars[1];
  b.transaction_id = scalars[2];
  b.payload_base = scalars[3];
  b.payload_bytes = scalars[4];
  b.counter_base = scalars[5];
  b.counter_bytes = scalars[6];
  b.depth = scalars[7];
  b.input_arena_bytes = scalars[8];
  b.output_arena_bytes = scalars[9];
  *out = b;
  return true;
}

// 32 bytes, little-endian: seq @0, opcode @8, payload_offset @16, nbytes @24.
inline void encode_descriptor(const SpscQueueDescriptor& d, void* out32) {
  uint8_t* p = static_cast<uint8_t*>(out32);
  detail::store_le64(p + 0, d.seq);
  detail::store_le64(p + 8, d.opcode);
  detail::store_le64(p + 16, d.payload_offset);
  detail::store_le64(p + 24, d.payload_nbytes);
}

inline SpscQueueDescriptor decode_descriptor(const void* in32) {
  const uint8_t* p = static_cast<const uint8_t*>(in32);
  SpscQueueDescriptor d;
  d.seq = detail::load_le64(p + 0);
  d.opcode = detail::load_le64(p + 8);
  d.payload_offset = detail::load_le64(p + 16);
  d.payload_nbytes = detail::load_le64(p + 24);
  return d;
}

// The value a head/tail slot holds for the 64-bit count v: int32(uint32(v)).
inline int32_t counter_low32(uint64_t v) {
  return static_cast<int32_t>(static_cast<uint32_t>(v));
}

// local += int32(uint32(observed) - uint32(local)) when that delta is in
// 0..depth; anything else is impossible progress (returns false, *out kept).
inline bool reconstruct_counter(uint64_t local, int32_t observed, uint64_t depth, uint64_t* out) {
  if (out == nullptr) return false;
  const int32_t delta =
      static_cast<int32_t>(static_cast<uint32_t>(observed) - static_cast<uint32_t>(local));
  if (delta < 0 || static_cast<uint64_t>(delta) > depth) return false;
  *out = local + static_cast<uint64_t>(delta);
  return true;
}

}  // namespace spsc_queue

#endif  // SPSQ_INDEPENDENT_COMMON_SPSQ_WIRE_H_
