// Host memory for one queue under fuzzing: a PAYLOAD part allocated at its
// exact size (so ASan flags a single byte past it) and a 384-byte COUNTER
// part, with raw accessors for the harness's own peer, which writes shared
// memory directly, as the remote side would.
#ifndef SPSQ_FUZZ_FUZZ_REGION_H_
#define SPSQ_FUZZ_FUZZ_REGION_H_

#include <cstdint>
#include <cstring>
#include <memory>

#include "aicpu/region_view_types.h"
#include "common/spsq_binding.h"
#include "fuzz/wire_model.h"

namespace spsq_fuzz {

class FuzzRegion {
 public:
  FuzzRegion(uint64_t depth, uint64_t in, uint64_t out)
      : layout_(ModelLayout::of(depth, in, out)),
        payload_(new uint8_t[layout_.payload_bytes]()),
        counter_(new int32_t[kCounterBytes / 4]()) {}

  FuzzRegion(const FuzzRegion&) = delete;
  FuzzRegion& operator=(const FuzzRegion&) = delete;

  const ModelLayout& layout() const { return layout_; }
  uint8_t* payload() { return payload_.get(); }
  const uint8_t* payload() const { return payload_.get(); }
  uint8_t* counter_bytes() { return reinterpret_cast<uint8_t*>(counter_.get()); }

  RegionPartLocalSpan payload_span() const {
    return {reinterpret_cast<uint64_t>(payload_.get()), layout_.payload_bytes};
  }
  RegionPartLocalSpan counter_span() const {
    return {reinterpret_cast<uint64_t>(counter_.get()), kCounterBytes};
  }

  int32_t counter(uint64_t offset) const { return counter_[offset / 4]; }
  void set_counter(uint64_t offset, int32_t v) { counter_[offset / 4] = v; }

  ModelDesc desc_at(uint64_t offset) const { return load_desc(payload_.get() + offset); }
  void put_desc_at(uint64_t offset, const ModelDesc& d) { store_desc(payload_.get() + offset, d); }

  spsc_queue::SpscQueueEndpointBinding binding(uint64_t session_bits, uint64_t txn) const {
    spsc_queue::SpscQueueEndpointBinding b{};
    b.magic_version = kMagicVersion;
    b.session_instance_id_bits = session_bits;
    b.transaction_id = txn;
    b.payload_base = payload_span().base;
    b.payload_bytes = layout_.payload_bytes;
    b.counter_base = counter_span().base;
    b.counter_bytes = kCounterBytes;
    b.depth = layout_.depth;
    b.input_arena_bytes = layout_.input_arena_bytes;
    b.output_arena_bytes = layout_.output_arena_bytes;
    return b;
  }

 private:
  ModelLayout layout_;
  std::unique_ptr<uint8_t[]> payload_;
  std::unique_ptr<int32_t[]> counter_;
};

}  // namespace spsq_fuzz

#endif  // SPSQ_FUZZ_FUZZ_REGION_H_
