// One direction of a queue as a strict model endpoint sees it: a producer
// that publishes by the producer sequence (or writes raw, hostile bytes), and
// a consumer that validates everything the other side wrote. The scripted
// peers are built from these: ScriptedL3 = input producer + output consumer,
// ScriptedL2 = output producer + input consumer.
//
// What the consumer (or the producer, about the head it reads) finds wrong is
// appended to a violation list, each entry starting with the clause it breaks.
#ifndef SPSQ_CONFORMANCE_HARNESS_DIRECTION_MODEL_H_
#define SPSQ_CONFORMANCE_HARNESS_DIRECTION_MODEL_H_

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "testkit/region_memory.h"
#include "model/wire_model.h"

namespace spsq_conf {

struct Direction {
  const char* name;      // "input" or "output"
  uint64_t depth;
  uint64_t ring;         // payload offset of the descriptor ring
  uint64_t arena;        // payload offset of the arena
  uint64_t arena_bytes;
  uint64_t tail;         // counter offset (producer writes)
  uint64_t head;         // counter offset (consumer writes)
  uint64_t second_opcode;  // besides DATA: STOP (input) or ERROR (output)

  uint64_t slot(uint64_t k) const { return ring + (k % depth) * wire::kDescriptorBytes; }
  static Direction input(const wire::Layout& l);
  static Direction output(const wire::Layout& l);
};

enum class Enqueue { kOk, kRingFull, kArenaFull, kTooLarge };

struct Message {
  uint64_t seq = 0;
  uint64_t opcode = 0;
  uint64_t offset = 0;
  uint64_t nbytes = 0;
  std::vector<uint8_t> payload;
};

class ModelProducer {
 public:
  ModelProducer(RegionMemory* memory, const Direction& dir, std::vector<std::string>* violations)
      : memory_(memory), dir_(dir), violations_(violations) {}

  // Place, payload, descriptor bytes 8..31, seq, tail. Room comes from the
  // consumer's head (reconstructed, checked) with the idle-arena reading of
  // AMB.ROOM unless strict.
  Enqueue publish(uint64_t opcode, const void* bytes, uint64_t nbytes);
  uint64_t published() const { return tail_; }
  // The consumer's head, reconstructed; an impossible value is a violation.
  uint64_t head();
  uint64_t next_offset(uint64_t nbytes) const;
  wire::Descriptor next_valid(uint64_t opcode, uint64_t nbytes) const;

  void write_descriptor(uint64_t k, const wire::Descriptor& d);
  void write_payload(uint64_t offset, const void* bytes, uint64_t nbytes);
  void set_tail(int32_t raw);
  void publish_raw(const wire::Descriptor& d);
  void set_strict_room(bool strict) { strict_room_ = strict; }

 private:
  RegionMemory* memory_;
  Direction dir_;
  std::vector<std::string>* violations_;
  bool strict_room_ = false;
  uint64_t tail_ = 0;
  uint64_t head_ = 0;
  uint64_t cursor_ = 0;
  uint64_t released_cursor_ = 0;
  std::deque<uint64_t> next_cursors_;
};

class ModelConsumer {
 public:
  ModelConsumer(RegionMemory* memory, const Direction& dir, std::vector<std::string>* violations)
      : memory_(memory), dir_(dir), violations_(violations) {}

  // Takes message k = taken(), if published and valid. Does not release.
  bool poll(Message* out);
  void release(uint64_t n = 1);
  std::vector<Message> drain();
  uint64_t taken() const { return next_; }
  uint64_t released() const { return head_; }
  // The arena cursor after the last message taken (cumulative, like the producer's).
  uint64_t cursor() const { return cursor_; }
  void set_head(int32_t raw);

 private:
  RegionMemory* memory_;
  Direction dir_;
  std::vector<std::string>* violations_;
  uint64_t tail_ = 0;
  uint64_t next_ = 0;
  uint64_t head_ = 0;
  uint64_t cursor_ = 0;
  uint64_t released_cursor_ = 0;
  std::deque<uint64_t> next_cursors_;
};

}  // namespace spsq_conf

#endif  // SPSQ_CONFORMANCE_HARNESS_DIRECTION_MODEL_H_
