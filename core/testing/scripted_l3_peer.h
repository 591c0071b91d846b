// ScriptedL3Peer: the L3 side of a queue reduced to raw memory writes, so a
// test controls every byte L2 sees. The well-behaved helpers (stage, publish,
// release_outputs) restate the contract's arena rule and sequence numbering
// independently of the reference; the raw ones let a test break any rule.
#ifndef SPSQ_TESTING_SCRIPTED_L3_PEER_H_
#define SPSQ_TESTING_SCRIPTED_L3_PEER_H_

#include <cstdint>
#include <vector>

#include "common/spsq_constants.h"
#include "testing/host_region.h"

namespace spsq_testing {

inline int32_t low32(uint64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(v)); }

class ScriptedL3Peer {
 public:
  explicit ScriptedL3Peer(HostRegion* region) : r_(region) {}

  // --- input direction (L3 produces) ---

  // Where the arena rule puts the next n-byte input payload (no side effect).
  uint64_t next_input_offset(uint64_t n) const {
    if (n == 0) return 0;
    const HostLayout& l = r_->layout();
    const uint64_t pos = in_cursor_ % l.in_arena_bytes;
    return l.input_arena + (pos + n > l.in_arena_bytes ? 0 : pos);
  }

  // Writes payload and descriptor of the next input message, not yet
  // published. Returns its payload offset.
  uint64_t stage(spsc_queue::SpscQueueOpcode opcode, const std::vector<uint8_t>& payload = {}) {
    const HostLayout& l = r_->layout();
    const uint64_t n = payload.size();
    uint64_t offset = 0;
    if (n != 0) {
      uint64_t pos = in_cursor_ % l.in_arena_bytes;
      if (pos + n > l.in_arena_bytes) {
        in_cursor_ += l.in_arena_bytes - pos;  // skip the unused tail
        pos = 0;
      }
      offset = l.input_arena + pos;
      in_cursor_ += n;
      r_->write_bytes(offset, payload.data(), n);
    }
    r_->write_descriptor_at(l.input_slot(staged_),
                            RawDescriptor{staged_ + 1, static_cast<uint64_t>(opcode), offset, n});
    ++staged_;
    return offset;
  }

  // Publishes everything staged: input tail = low32(staged).
  void publish() { r_->set_counter(kInputTail, low32(staged_)); }

  uint64_t send(spsc_queue::SpscQueueOpcode opcode, const std::vector<uint8_t>& payload = {}) {
    const uint64_t off = stage(opcode, payload);
    publish();
    return off;
  }

  // Raw: any descriptor into the slot of logical index k (not counted).
  void write_input_slot(uint64_t k, const RawDescriptor& d) {
    r_->write_descriptor_at(r_->layout().input_slot(k), d);
  }
  void set_input_tail(int32_t v) { r_->set_counter(kInputTail, v); }
  int32_t input_head() const { return r_->counter(kInputHead); }
  uint64_t staged() const { return staged_; }

  // --- output direction (L3 consumes) ---

  RawDescriptor output_slot(uint64_t k) const {
    return r_->descriptor_at(r_->layout().output_slot(k));
  }
  std::vector<uint8_t> output_payload(uint64_t k) const {
    const RawDescriptor d = output_slot(k);
    return r_->bytes(d.payload_offset, d.payload_nbytes);
  }
  int32_t output_tail() const { return r_->counter(kOutputTail); }
  // Releases outputs up to (not including) logical index `count`.
  void release_outputs(uint64_t count) { r_->set_counter(kOutputHead, low32(count)); }
  void set_output_head(int32_t v) { r_->set_counter(kOutputHead, v); }

  // --- abort flags ---
  void raise_initiator_abort(int32_t v = 1) { r_->set_counter(kInitiatorAbortFlag, v); }
  int32_t peer_abort_flag() const { return r_->counter(kPeerAbortFlag); }

 private:
  HostRegion* r_;
  uint64_t staged_ = 0;
  uint64_t in_cursor_ = 0;
};

}  // namespace spsq_testing

#endif  // SPSQ_TESTING_SCRIPTED_L3_PEER_H_
