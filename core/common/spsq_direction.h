// Static facts of one direction of a queue as seen from one endpoint: where
// its ring, arena and counters are, which opcodes it carries, and which
// operation codes its errors report.
#ifndef SPSQ_COMMON_SPSQ_DIRECTION_H_
#define SPSQ_COMMON_SPSQ_DIRECTION_H_

#include <cstdint>

#include "common/spsq_constants.h"
#include "common/spsq_layout.h"

namespace spsc_queue {

struct SpscDirection {
  uint64_t depth;
  uint64_t ring_offset;
  uint64_t arena_offset;
  uint64_t arena_bytes;
  uint64_t tail_counter;  // written by the producer
  uint64_t head_counter;  // written by the consumer
  uint64_t opcode_mask;   // bit (1 << opcode) per opcode the direction carries
  SpscQueueOp acquire_op;  // consumer peek / producer reserve
  SpscQueueOp finish_op;   // consumer release / producer publish

  bool carries(uint64_t opcode) const { return opcode < 64 && ((opcode_mask >> opcode) & 1u); }
  uint64_t slot_offset(uint64_t k) const {
    return ring_offset + (k & (depth - 1)) * kDescriptorBytes;
  }
  // `offset` if it still lies inside the arena, else the arena start: where
  // the next message goes when it does not wrap (prefetch hints only).
  uint64_t in_arena_or_start(uint64_t offset) const {
    return offset < arena_offset + arena_bytes ? offset : arena_offset;
  }
};

inline constexpr uint64_t opcode_bit(SpscQueueOpcode op) {
  return uint64_t{1} << static_cast<uint64_t>(op);
}

// L3 -> L2: DATA and STOP.
inline SpscDirection input_direction(const SpscQueueLayout& l, SpscQueueOp acquire,
                                     SpscQueueOp finish) {
  return SpscDirection{l.depth,
                       l.input_desc_offset,
                       l.input_arena_offset,
                       l.input_arena_bytes,
                       l.input_desc_tail_offset,
                       l.input_desc_head_offset,
                       opcode_bit(SpscQueueOpcode::DATA) | opcode_bit(SpscQueueOpcode::STOP),
                       acquire,
                       finish};
}

// L2 -> L3: DATA and ERROR.
inline SpscDirection output_direction(const SpscQueueLayout& l, SpscQueueOp acquire,
                                      SpscQueueOp finish) {
  return SpscDirection{l.depth,
                       l.output_desc_offset,
                       l.output_arena_offset,
                       l.output_arena_bytes,
                       l.output_desc_tail_offset,
                       l.output_desc_head_offset,
                       opcode_bit(SpscQueueOpcode::DATA) | opcode_bit(SpscQueueOpcode::ERROR),
                       acquire,
                       finish};
}

}  // namespace spsc_queue

#endif  // SPSQ_COMMON_SPSQ_DIRECTION_H_
