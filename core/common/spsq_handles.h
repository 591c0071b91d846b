// What an endpoint hands to its user: a received message (handle) and a span
// to fill before publishing (reservation). Both carry an owner token so a
// handle from another queue, or a stale one, is recognised and poisons.
#ifndef SPSQ_COMMON_SPSQ_HANDLES_H_
#define SPSQ_COMMON_SPSQ_HANDLES_H_

#include <cstdint>

namespace spsc_queue {

struct SpscQueueInputHandle {
  uint64_t seq = 0;             // transport seq (1-based), not a request id
  uint64_t opcode = 0;          // SpscQueueOpcode value
  uint64_t payload_offset = 0;  // relative to the payload base
  uint64_t payload_nbytes = 0;
  const uint8_t* payload = nullptr;  // borrowed; nullptr for zero-byte messages
  uint64_t owner = 0;                // the receiving queue handle
};

// The L3 output side hands out the same shape of handle.
using SpscQueueMessageHandle = SpscQueueInputHandle;

struct SpscQueueOutputReservation {
  uint64_t payload_offset = 0;
  uint64_t payload_nbytes = 0;
  uint8_t* payload = nullptr;  // writable span; nullptr for zero-byte messages
  uint64_t owner = 0;
  uint64_t generation = 0;  // which reservation of that owner
};

}  // namespace spsc_queue

#endif  // SPSQ_COMMON_SPSQ_HANDLES_H_
