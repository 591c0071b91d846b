// The scripted (and, on request, hostile) L3 peer. It plays the initiator's
// side of one queue directly on RegionMemory, from the harness's own wire
// model: it publishes inputs exactly as the producer sequence says, reads and
// judges the L2 endpoint's outputs as a strict consumer, and can instead
// write raw descriptor bytes, counter values and abort flags.
//
// Everything it sees wrong in what L2 wrote (outputs, input head) is kept in
// violations(), each naming the clause it breaks, so a test can assert an
// endpoint's output was clean.
#ifndef SPSQ_CONFORMANCE_HARNESS_SCRIPTED_L3_H_
#define SPSQ_CONFORMANCE_HARNESS_SCRIPTED_L3_H_

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "conformance/harness/region_memory.h"
#include "conformance/harness/wire_model.h"

namespace spsq_conf {

class ScriptedL3 {
 public:
  enum class Enqueue { kOk, kRingFull, kArenaFull, kTooLarge };

  struct Message {
    uint64_t seq = 0;
    uint64_t opcode = 0;
    uint64_t offset = 0;
    uint64_t nbytes = 0;
    std::vector<uint8_t> payload;
  };

  ScriptedL3(RegionMemory* memory, const wire::Layout& layout);

  const wire::Layout& layout() const { return layout_; }

  // ---------------------------------------------------------------- input
  // Publishes one input by the producer sequence: place, payload bytes,
  // descriptor bytes 8..31, seq, tail. Room is judged from L2's input head
  // (reconstructed and checked) with the idle-arena reading of AMB.ROOM.
  Enqueue enqueue(uint64_t opcode, const void* bytes, uint64_t nbytes);
  Enqueue enqueue_data(const std::vector<uint8_t>& bytes) {
    return enqueue(wire::kData, bytes.data(), bytes.size());
  }
  Enqueue enqueue_stop() { return enqueue(wire::kStop, nullptr, 0); }

  uint64_t inputs_published() const { return in_tail_; }
  // L2's input head, reconstructed from the counter; an impossible value is a
  // violation and leaves the known head unchanged.
  uint64_t input_head();
  // Offset the next n-byte input would get (no room check).
  uint64_t next_input_offset(uint64_t nbytes) const;

  // Hostile input writes. They bypass every rule on purpose.
  void write_input_descriptor(uint64_t k, const wire::Descriptor& d);  // slot k % depth
  void write_input_payload(uint64_t offset, const void* bytes, uint64_t nbytes);
  void set_input_tail(int32_t raw);
  // Writes `d` as descriptor k = inputs_published() (seq as given) and
  // publishes tail k + 1; the arena cursor follows the rule when d is valid.
  void publish_raw(const wire::Descriptor& d);
  // The descriptor a well-behaved L3 would publish next (payload not written).
  wire::Descriptor next_valid_descriptor(uint64_t opcode, uint64_t nbytes) const;

  // ---------------------------------------------------------------- output
  // Reads output k = outputs_taken(), if published, validating everything as
  // a strict consumer. Does not release. False when nothing (valid) is there.
  bool poll_output(Message* out);
  // Releases the n oldest taken outputs (publishes the output head).
  void release_outputs(uint64_t n = 1);
  // poll + release until empty; returns the messages.
  std::vector<Message> drain_outputs();
  uint64_t outputs_taken() const { return out_next_; }
  uint64_t outputs_released() const { return out_head_; }
  void set_output_head(int32_t raw);

  // ---------------------------------------------------------------- flags
  void set_initiator_flag(int32_t value);
  int32_t initiator_flag() const;
  int32_t l2_flag() const;  // peer_abort_flag, written by L2
  int32_t counter(uint64_t offset) const { return memory_->load_counter(offset); }

  // What L2 did wrong, as seen from this side. Each entry starts with the
  // clause ID it breaks.
  const std::vector<std::string>& violations() const { return violations_; }
  void clear_violations() { violations_.clear(); }

  // Strict (literal wire-contract) room bound instead of AMB.ROOM reading A.
  void set_strict_room(bool strict) { strict_room_ = strict; }

 private:
  void violate(const char* fmt, ...) __attribute__((format(printf, 2, 3)));

  RegionMemory* memory_;
  wire::Layout layout_;
  bool strict_room_ = false;

  // Input (we produce).
  uint64_t in_tail_ = 0;
  uint64_t in_head_ = 0;
  uint64_t in_cursor_ = 0;
  uint64_t in_released_cursor_ = 0;
  std::deque<uint64_t> in_next_cursors_;  // cursor after each unreleased input

  // Output (we consume).
  uint64_t out_tail_ = 0;  // last reconstructed
  uint64_t out_next_ = 0;  // taken
  uint64_t out_head_ = 0;  // released
  uint64_t out_cursor_ = 0;
  uint64_t out_released_cursor_ = 0;
  std::deque<uint64_t> out_next_cursors_;  // cursor after each taken, unreleased output

  std::vector<std::string> violations_;
};

}  // namespace spsq_conf

#endif  // SPSQ_CONFORMANCE_HARNESS_SCRIPTED_L3_H_
