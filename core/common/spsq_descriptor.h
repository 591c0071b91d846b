// The 32-byte descriptor as explicit little-endian bytes. Never memcpy a struct
// onto the wire: the byte order is the contract, not the host's.
#ifndef SPSQ_COMMON_SPSQ_DESCRIPTOR_H_
#define SPSQ_COMMON_SPSQ_DESCRIPTOR_H_

#include <cstdint>

#include "common/spsq_constants.h"

namespace spsc_queue {

struct SpscQueueDescriptor {
  uint64_t seq;
  uint64_t opcode;
  uint64_t payload_offset;
  uint64_t payload_nbytes;
};

// On a little-endian host the wire's byte order is the host's: one 8-byte
// move. The byte-by-byte form, kept for other hosts, is folded into one only
// sometimes: in a large caller GCC left it eight byte stores and shifts.
inline uint64_t load_le64(const uint8_t* p) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint64_t v;
  __builtin_memcpy(&v, p, sizeof(v));
  return v;
#else
  return uint64_t{p[0]} | uint64_t{p[1]} << 8 | uint64_t{p[2]} << 16 | uint64_t{p[3]} << 24 |
         uint64_t{p[4]} << 32 | uint64_t{p[5]} << 40 | uint64_t{p[6]} << 48 |
         uint64_t{p[7]} << 56;
#endif
}

inline void store_le64(uint8_t* p, uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  __builtin_memcpy(p, &v, sizeof(v));
#else
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
  p[2] = static_cast<uint8_t>(v >> 16);
  p[3] = static_cast<uint8_t>(v >> 24);
  p[4] = static_cast<uint8_t>(v >> 32);
  p[5] = static_cast<uint8_t>(v >> 40);
  p[6] = static_cast<uint8_t>(v >> 48);
  p[7] = static_cast<uint8_t>(v >> 56);
#endif
}

// Bytes 0..31 of one slot.
inline void encode_descriptor(const SpscQueueDescriptor& d, uint8_t out[32]) {
  store_le64(out + kDescriptorSeqOffset, d.seq);
  store_le64(out + kDescriptorOpcodeOffset, d.opcode);
  store_le64(out + kDescriptorPayloadOffsetOffset, d.payload_offset);
  store_le64(out + kDescriptorPayloadNbytesOffset, d.payload_nbytes);
}

// Bytes 8..31 only: what a producer writes before seq.
inline void encode_descriptor_body(const SpscQueueDescriptor& d, uint8_t out[24]) {
  store_le64(out + 0, d.opcode);
  store_le64(out + 8, d.payload_offset);
  store_le64(out + 16, d.payload_nbytes);
}

inline SpscQueueDescriptor decode_descriptor(const uint8_t in[32]) {
  SpscQueueDescriptor d;
  d.seq = load_le64(in + kDescriptorSeqOffset);
  d.opcode = load_le64(in + kDescriptorOpcodeOffset);
  d.payload_offset = load_le64(in + kDescriptorPayloadOffsetOffset);
  d.payload_nbytes = load_le64(in + kDescriptorPayloadNbytesOffset);
  return d;
}

// seq is 1-based: logical index k carries k + 1.
inline constexpr uint64_t expected_seq(uint64_t logical_index) { return logical_index + 1; }

}  // namespace spsc_queue

#endif  // SPSQ_COMMON_SPSQ_DESCRIPTOR_H_
