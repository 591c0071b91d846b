// The scripted (and, on request, hostile) L3 peer of an L2 endpoint under
// test: producer of the input direction, strict consumer of the output
// direction, writer of the initiator abort flag. Built from the harness's own
// wire model only. What it finds wrong in L2's writes is in violations(),
// each entry starting with the clause it breaks.
//
// It reads and writes the region's memory directly, which under a
// non-coherent payload (testkit/coherence) is DRAM: it plays a correct
// L3 that flushes everything it writes before publishing and invalidates
// everything it reads after observing the tail. Stale or unflushed bytes it
// sees are therefore the endpoint's.
#ifndef SPSQ_CONFORMANCE_HARNESS_SCRIPTED_L3_H_
#define SPSQ_CONFORMANCE_HARNESS_SCRIPTED_L3_H_

#include <cstdint>
#include <string>
#include <vector>

#include "testkit/direction_model.h"
#include "testkit/region_memory.h"
#include "model/wire_model.h"

namespace spsq_conf {

class ScriptedL3 {
 public:
  using Enqueue = spsq_conf::Enqueue;
  using Message = spsq_conf::Message;

  ScriptedL3(RegionMemory* memory, const wire::Layout& layout)
      : memory_(memory),
        layout_(layout),
        input_(memory, Direction::input(layout), &violations_),
        output_(memory, Direction::output(layout), &violations_) {}

  const wire::Layout& layout() const { return layout_; }

  // ---- input (L3 produces)
  Enqueue enqueue(uint64_t opcode, const void* bytes, uint64_t nbytes) {
    return input_.publish(opcode, bytes, nbytes);
  }
  Enqueue enqueue_data(const std::vector<uint8_t>& bytes) {
    return enqueue(wire::kData, bytes.data(), bytes.size());
  }
  Enqueue enqueue_stop() { return enqueue(wire::kStop, nullptr, 0); }
  uint64_t inputs_published() const { return input_.published(); }
  uint64_t input_head() { return input_.head(); }
  uint64_t next_input_offset(uint64_t nbytes) const { return input_.next_offset(nbytes); }
  wire::Descriptor next_valid_descriptor(uint64_t opcode, uint64_t nbytes) const {
    return input_.next_valid(opcode, nbytes);
  }
  // Hostile: raw bytes, bypassing every rule.
  void write_input_descriptor(uint64_t k, const wire::Descriptor& d) {
    input_.write_descriptor(k, d);
  }
  void write_input_payload(uint64_t offset, const void* bytes, uint64_t nbytes) {
    input_.write_payload(offset, bytes, nbytes);
  }
  void set_input_tail(int32_t raw) { input_.set_tail(raw); }
  void publish_raw(const wire::Descriptor& d) { input_.publish_raw(d); }
  void set_strict_room(bool strict) { input_.set_strict_room(strict); }

  // ---- output (L3 consumes)
  bool poll_output(Message* out) { return output_.poll(out); }
  void release_outputs(uint64_t n = 1) { output_.release(n); }
  std::vector<Message> drain_outputs() { return output_.drain(); }
  uint64_t outputs_taken() const { return output_.taken(); }
  uint64_t outputs_released() const { return output_.released(); }
  uint64_t output_cursor() const { return output_.cursor(); }
  void set_output_head(int32_t raw) { output_.set_head(raw); }

  // ---- flags and counters
  void set_initiator_flag(int32_t value) { memory_->store_counter(wire::kInitiatorFlag, value); }
  int32_t initiator_flag() const { return memory_->load_counter(wire::kInitiatorFlag); }
  int32_t l2_flag() const { return memory_->load_counter(wire::kPeerFlag); }
  int32_t counter(uint64_t offset) const { return memory_->load_counter(offset); }

  const std::vector<std::string>& violations() const { return violations_; }
  void clear_violations() { violations_.clear(); }

 private:
  RegionMemory* memory_;
  wire::Layout layout_;
  std::vector<std::string> violations_;
  ModelProducer input_;
  ModelConsumer output_;
};

}  // namespace spsq_conf

#endif  // SPSQ_CONFORMANCE_HARNESS_SCRIPTED_L3_H_
