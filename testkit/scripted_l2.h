// The scripted (and, on request, hostile) L2 peer of an L3 queue under test:
// strict consumer of the input direction, producer of the output direction,
// writer of the peer abort flag (@320). The mirror of ScriptedL3.
#ifndef SPSQ_CONFORMANCE_HARNESS_SCRIPTED_L2_H_
#define SPSQ_CONFORMANCE_HARNESS_SCRIPTED_L2_H_

#include <cstdint>
#include <string>
#include <vector>

#include "testkit/direction_model.h"
#include "testkit/region_memory.h"
#include "model/wire_model.h"

namespace spsq_conf {

class ScriptedL2 {
 public:
  ScriptedL2(RegionMemory* memory, const wire::Layout& layout)
      : memory_(memory),
        layout_(layout),
        input_(memory, Direction::input(layout), &violations_),
        output_(memory, Direction::output(layout), &violations_) {}

  const wire::Layout& layout() const { return layout_; }

  // ---- input (L2 consumes)
  bool poll_input(Message* out) { return input_.poll(out); }
  void release_inputs(uint64_t n = 1) { input_.release(n); }
  std::vector<Message> drain_inputs() { return input_.drain(); }
  uint64_t inputs_taken() const { return input_.taken(); }
  void set_input_head(int32_t raw) { input_.set_head(raw); }

  // ---- output (L2 produces)
  Enqueue publish(uint64_t opcode, const void* bytes, uint64_t nbytes) {
    return output_.publish(opcode, bytes, nbytes);
  }
  Enqueue publish_data(const std::vector<uint8_t>& bytes) {
    return publish(wire::kData, bytes.data(), bytes.size());
  }
  uint64_t outputs_published() const { return output_.published(); }
  uint64_t output_head() { return output_.head(); }
  uint64_t next_output_offset(uint64_t nbytes) const { return output_.next_offset(nbytes); }
  void write_output_descriptor(uint64_t k, const wire::Descriptor& d) {
    output_.write_descriptor(k, d);
  }
  void write_output_payload(uint64_t offset, const void* bytes, uint64_t nbytes) {
    output_.write_payload(offset, bytes, nbytes);
  }
  void set_output_tail(int32_t raw) { output_.set_tail(raw); }
  void publish_raw(const wire::Descriptor& d) { output_.publish_raw(d); }

  // ---- flags and counters
  void set_peer_flag(int32_t value) { memory_->store_counter(wire::kPeerFlag, value); }
  int32_t l3_flag() const { return memory_->load_counter(wire::kInitiatorFlag); }
  int32_t counter(uint64_t offset) const { return memory_->load_counter(offset); }

  const std::vector<std::string>& violations() const { return violations_; }

 private:
  RegionMemory* memory_;
  wire::Layout layout_;
  std::vector<std::string> violations_;
  ModelConsumer input_;
  ModelProducer output_;
};

}  // namespace spsq_conf

#endif  // SPSQ_CONFORMANCE_HARNESS_SCRIPTED_L2_H_
