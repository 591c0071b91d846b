// Host memory standing in for one queue's RegionInstance: a PAYLOAD part and
// a 384-byte COUNTER part, plus raw byte-level access for tests. The payload
// layout is restated here from the wire contract rather than taken from the
// reference, so a layout bug in the reference shows up as a mismatch instead
// of agreeing with itself; the counter slots are the core's constants.
#ifndef SPSQ_TESTING_HOST_REGION_H_
#define SPSQ_TESTING_HOST_REGION_H_

#include <cstdint>
#include <cstring>
#include <vector>

#include "aicpu/region_view_types.h"
#include "common/spsq_binding.h"
#include "common/spsq_constants.h"

namespace spsq_testing {

// Counter slots under the short names the core's tests use; the offsets are
// the core's own (common/spsq_constants.h).
using spsc_queue::kCounterBytes;
inline constexpr uint64_t kInputTail = spsc_queue::kInputDescTailOffset;
inline constexpr uint64_t kInputHead = spsc_queue::kInputDescHeadOffset;
inline constexpr uint64_t kOutputTail = spsc_queue::kOutputDescTailOffset;
inline constexpr uint64_t kOutputHead = spsc_queue::kOutputDescHeadOffset;
inline constexpr uint64_t kInitiatorAbortFlag = spsc_queue::kInitiatorAbortOffset;  // L3 writes
inline constexpr uint64_t kPeerAbortFlag = spsc_queue::kPeerAbortOffset;            // L2 writes

// One 32-byte descriptor slot, as decoded from explicit little-endian bytes.
struct RawDescriptor {
  uint64_t seq = 0;
  uint64_t opcode = 0;
  uint64_t payload_offset = 0;
  uint64_t payload_nbytes = 0;
  bool operator==(const RawDescriptor& o) const {
    return seq == o.seq && opcode == o.opcode && payload_offset == o.payload_offset &&
           payload_nbytes == o.payload_nbytes;
  }
};

inline void put_le64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
inline uint64_t get_le64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

// Offsets of one queue, computed by hand from the contract.
struct HostLayout {
  uint64_t depth, in_arena_bytes, out_arena_bytes;
  uint64_t input_ring, output_ring, input_arena, output_arena, payload_bytes;

  static uint64_t align64(uint64_t v) { return (v + 63) / 64 * 64; }
  static HostLayout of(uint64_t depth, uint64_t in, uint64_t out) {
    HostLayout l{depth, in, out, 0, depth * 32, 0, 0, 0};
    l.input_arena = align64(2 * depth * 32);
    l.output_arena = align64(l.input_arena + in);
    l.payload_bytes = l.output_arena + out;
    return l;
  }
  uint64_t input_slot(uint64_t k) const { return input_ring + (k % depth) * 32; }
  uint64_t output_slot(uint64_t k) const { return output_ring + (k % depth) * 32; }
};

class HostRegion {
 public:
  HostRegion(uint64_t depth, uint64_t input_arena_bytes, uint64_t output_arena_bytes,
             uint64_t session_bits = 0x5e5510aa00000001ull, uint64_t transaction_id = 4242)
      : layout_(HostLayout::of(depth, input_arena_bytes, output_arena_bytes)),
        payload_((layout_.payload_bytes + 7) / 8, 0),
        counter_(kCounterBytes / 8, 0),
        session_bits_(session_bits),
        transaction_id_(transaction_id) {}

  HostRegion(const HostRegion&) = delete;
  HostRegion& operator=(const HostRegion&) = delete;

  const HostLayout& layout() const { return layout_; }

  // The binding L3 would hand over for this region.
  spsc_queue::SpscQueueEndpointBinding binding() const {
    spsc_queue::SpscQueueEndpointBinding b{};
    b.magic_version = 0x5350535100010000ull;
    b.session_instance_id_bits = session_bits_;
    b.transaction_id = transaction_id_;
    b.payload_base = payload_span().base;
    b.payload_bytes = layout_.payload_bytes;
    b.counter_base = counter_span().base;
    b.counter_bytes = kCounterBytes;
    b.depth = layout_.depth;
    b.input_arena_bytes = layout_.in_arena_bytes;
    b.output_arena_bytes = layout_.out_arena_bytes;
    return b;
  }

  RegionPartLocalSpan payload_span() const {
    return RegionPartLocalSpan{reinterpret_cast<uint64_t>(payload_.data()), layout_.payload_bytes};
  }
  RegionPartLocalSpan counter_span() const {
    return RegionPartLocalSpan{reinterpret_cast<uint64_t>(counter_.data()), kCounterBytes};
  }

  uint8_t* payload() { return reinterpret_cast<uint8_t*>(payload_.data()); }
  const uint8_t* payload() const { return reinterpret_cast<const uint8_t*>(payload_.data()); }

  std::vector<uint8_t> bytes(uint64_t offset, uint64_t n) const {
    return std::vector<uint8_t>(payload() + offset, payload() + offset + n);
  }
  void write_bytes(uint64_t offset, const void* src, uint64_t n) {
    std::memcpy(payload() + offset, src, n);
  }

  RawDescriptor descriptor_at(uint64_t offset) const {
    const uint8_t* p = payload() + offset;
    return RawDescriptor{get_le64(p), get_le64(p + 8), get_le64(p + 16), get_le64(p + 24)};
  }
  void write_descriptor_at(uint64_t offset, const RawDescriptor& d) {
    uint8_t* p = payload() + offset;
    put_le64(p, d.seq);
    put_le64(p + 8, d.opcode);
    put_le64(p + 16, d.payload_offset);
    put_le64(p + 24, d.payload_nbytes);
  }

  // Counter slots are read and written atomically, as the peer would.
  int32_t counter(uint64_t offset) const {
    const auto* p = reinterpret_cast<const int32_t*>(
        reinterpret_cast<const uint8_t*>(counter_.data()) + offset);
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
  }
  void set_counter(uint64_t offset, int32_t v) {
    auto* p = reinterpret_cast<int32_t*>(reinterpret_cast<uint8_t*>(counter_.data()) + offset);
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
  }

 private:

  HostLayout layout_;
  std::vector<uint64_t> payload_;  // uint64_t storage: 8-byte aligned
  std::vector<uint64_t> counter_;
  uint64_t session_bits_;
  uint64_t transaction_id_;
};

}  // namespace spsq_testing

#endif  // SPSQ_TESTING_HOST_REGION_H_
