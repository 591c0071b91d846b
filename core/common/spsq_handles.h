// What an endpoint hands to its user: a received message (handle) and a span
// to fill before publishing (reservation). Names and types are the shipped
// runtime's (wire-contract.md, "Source compatibility"): payload addresses are
// integers that L2 code casts. Both carry an owner cookie so a handle from
// another queue, or a stale one, is recognised and poisons.
#ifndef SPSQ_COMMON_SPSQ_HANDLES_H_
#define SPSQ_COMMON_SPSQ_HANDLES_H_

#include <cstdint>

#include "common/spsq_constants.h"

namespace spsc_queue {

// A borrowed span of payload memory; local_addr is 0 for zero-byte messages.
struct SpscQueuePayloadView {
  uint64_t local_addr = 0;
  uint64_t nbytes = 0;
};

struct SpscQueueInputHandle {
  uint64_t seq = 0;  // transport seq (1-based), not a request id
  SpscQueueOpcode opcode = SpscQueueOpcode::INVALID;
  uint64_t payload_offset = 0;  // relative to the payload base
  uint64_t payload_nbytes = 0;
  SpscQueuePayloadView payload;  // valid until the handle is released
  uint64_t owner_cookie = 0;     // the receiving queue handle
};

// The L3 output side hands out the same shape of handle.
using SpscQueueMessageHandle = SpscQueueInputHandle;

struct SpscQueueOutputReservation {
  uint64_t seq = 0;  // the seq the published message will carry
  uint64_t payload_offset = 0;
  uint64_t payload_nbytes = 0;
  SpscQueuePayloadView payload;  // writable span; local_addr 0 for zero bytes
  uint64_t owner_cookie = 0;
  bool valid = false;  // set by a successful reserve
};

// The payload as bytes (nullptr for zero-byte messages): the casts L2 code
// does by hand, spelled once for this implementation's own users.
inline const uint8_t* payload_data(const SpscQueueInputHandle& h) {
  return reinterpret_cast<const uint8_t*>(h.payload.local_addr);
}
inline uint8_t* payload_data(const SpscQueueOutputReservation& r) {
  return reinterpret_cast<uint8_t*>(r.payload.local_addr);
}

}  // namespace spsc_queue

#endif  // SPSQ_COMMON_SPSQ_HANDLES_H_
