// The ten-scalar SpscQueueEndpointBinding that L3 hands to L2 as TaskArgs.
// Decode fails closed: exactly ten scalars, the exact packed magic_version and
// a nonzero transaction id, or nothing is written.
#ifndef SPSQ_COMMON_SPSQ_BINDING_H_
#define SPSQ_COMMON_SPSQ_BINDING_H_

#include <cstddef>
#include <cstdint>

#include "common/spsq_constants.h"

namespace spsc_queue {

// Field order is the scalar order on the wire.
struct SpscQueueEndpointBinding {
  uint64_t magic_version;
  uint64_t session_instance_id_bits;
  uint64_t transaction_id;
  uint64_t payload_base;
  uint64_t payload_bytes;
  uint64_t counter_base;
  uint64_t counter_bytes;
  uint64_t depth;
  uint64_t input_arena_bytes;
  uint64_t output_arena_bytes;
};

// Why a set of scalars is not a binding; the first failing rule wins.
enum class SpscBindingStatus : uint32_t {
  OK = 0,
  WRONG_COUNT,         // count != 10
  BAD_MAGIC,           // high 32 bits are not "SPSQ"
  WRONG_MAJOR,         // SPSQ magic, other major version
  WRONG_MINOR,         // SPSQ magic and major, other minor version
  ZERO_TRANSACTION,    // transaction_id == 0
};

const char* binding_status_name(SpscBindingStatus status);

// Classifies a packed magic_version value (OK only for the exact constant).
SpscBindingStatus check_magic_version(uint64_t magic_version);

// Applies the decode rules without writing anything.
SpscBindingStatus check_endpoint_binding(const uint64_t* scalars, size_t count);

bool decode_endpoint_binding(const uint64_t* scalars, size_t count,
                             SpscQueueEndpointBinding* out);

// Writes the ten scalars; refuses (writing nothing) a count other than ten, a
// magic_version other than the packed constant, or a zero transaction id.
bool encode_endpoint_binding(const SpscQueueEndpointBinding& binding, uint64_t* out,
                             size_t count);

}  // namespace spsc_queue

#endif  // SPSQ_COMMON_SPSQ_BINDING_H_
