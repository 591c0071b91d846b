// Host memory for one queue under fuzzing: a PAYLOAD part allocated at its
// exact size (so ASan flags a single byte past it) and a 384-byte COUNTER
// part, with raw accessors for the harness's own peer, which writes shared
// memory directly, as the remote side would. Names nothing of any endpoint,
// so it can sit beside an endpoint under test.
#ifndef SPSQ_FUZZ_FUZZ_MEMORY_H_
#define SPSQ_FUZZ_FUZZ_MEMORY_H_

#include <cstdint>
#include <memory>

#include "fuzz/wire_model.h"

namespace spsq_fuzz {

class FuzzMemory {
 public:
  FuzzMemory(uint64_t depth, uint64_t in, uint64_t out)
      : layout_(ModelLayout::of(depth, in, out)),
        payload_(new uint8_t[layout_.payload_bytes]()),
        counter_(new int32_t[wire::kCounterBytes / 4]()) {}

  FuzzMemory(const FuzzMemory&) = delete;
  FuzzMemory& operator=(const FuzzMemory&) = delete;

  const ModelLayout& layout() const { return layout_; }
  uint8_t* payload() { return payload_.get(); }
  const uint8_t* payload() const { return payload_.get(); }
  uint8_t* counter_bytes() { return reinterpret_cast<uint8_t*>(counter_.get()); }
  uint64_t payload_base() const { return reinterpret_cast<uint64_t>(payload_.get()); }
  uint64_t counter_base() const { return reinterpret_cast<uint64_t>(counter_.get()); }

  int32_t counter(uint64_t offset) const { return counter_[offset / 4]; }
  void set_counter(uint64_t offset, int32_t v) { counter_[offset / 4] = v; }

  wire::Descriptor desc_at(uint64_t offset) const {
    return wire::decode_descriptor(payload_.get() + offset);
  }
  void put_desc_at(uint64_t offset, const wire::Descriptor& d) {
    wire::encode_descriptor(d, payload_.get() + offset);
  }

 private:
  ModelLayout layout_;
  std::unique_ptr<uint8_t[]> payload_;
  std::unique_ptr<int32_t[]> counter_;
};

}  // namespace spsq_fuzz

#endif  // SPSQ_FUZZ_FUZZ_MEMORY_H_
