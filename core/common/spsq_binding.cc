#include "common/spsq_binding.h"

namespace spsc_queue {

const char* binding_status_name(SpscBindingStatus status) {
  switch (status) {
    case SpscBindingStatus::OK: return "ok";
    case SpscBindingStatus::WRONG_COUNT: return "wrong scalar count (need exactly 10)";
    case SpscBindingStatus::BAD_MAGIC: return "bad magic (not SPSQ)";
    case SpscBindingStatus::WRONG_MAJOR: return "unsupported SPSQ major version";
    case SpscBindingStatus::WRONG_MINOR: return "unsupported SPSQ minor version";
    case SpscBindingStatus::ZERO_TRANSACTION: return "transaction_id is zero";
  }
  return "unknown";
}

SpscBindingStatus check_magic_version(uint64_t magic_version) {
  if (magic_version == kSpscQueueMagicVersion) return SpscBindingStatus::OK;
  if ((magic_version >> 32) != kSpscQueueMagic) return SpscBindingStatus::BAD_MAGIC;
  const uint64_t major = (magic_version >> 16) & 0xffffu;
  if (major != kSpscQueueAbiMajor) return SpscBindingStatus::WRONG_MAJOR;
  // Magic and major match, so the packed value differs only in its minor field.
  return SpscBindingStatus::WRONG_MINOR;
}

SpscBindingStatus check_endpoint_binding(const uint64_t* scalars, size_t count) {
  if (scalars == nullptr || count != kSpscQueueEndpointBindingScalarCount) {
    return SpscBindingStatus::WRONG_COUNT;
  }
  const SpscBindingStatus magic = check_magic_version(scalars[0]);
  if (magic != SpscBindingStatus::OK) return magic;
  if (scalars[2] == 0) return SpscBindingStatus::ZERO_TRANSACTION;
  return SpscBindingStatus::OK;
}

bool decode_endpoint_binding(const uint64_t* scalars, size_t count,
                             SpscQueueEndpointBinding* out) {
  if (out == nullptr) return false;
  if (check_endpoint_binding(scalars, count) != SpscBindingStatus::OK) return false;
  SpscQueueEndpointBinding b;
  b.magic_version = scalars[0];
  b.session_instance_id_bits = scalars[1];
  b.transaction_id = scalars[2];
  b.payload_base = scalars[3];
  b.payload_bytes = scalars[4];
  b.counter_base = scalars[5];
  b.counter_bytes = scalars[6];
  b.depth = scalars[7];
  b.input_arena_bytes = scalars[8];
  b.output_arena_bytes = scalars[9];
  *out = b;
  return true;
}

bool encode_endpoint_binding(const SpscQueueEndpointBinding& binding, uint64_t* out,
                             size_t count) {
  if (out == nullptr || count != kSpscQueueEndpointBindingScalarCount) return false;
  if (binding.magic_version != kSpscQueueMagicVersion) return false;
  if (binding.transaction_id == 0) return false;
  out[0] = binding.magic_version;
  out[1] = binding.session_instance_id_bits;
  out[2] = binding.transaction_id;
  out[3] = binding.payload_base;
  out[4] = binding.payload_bytes;
  out[5] = binding.counter_base;
  out[6] = binding.counter_bytes;
  out[7] = binding.depth;
  out[8] = binding.input_arena_bytes;
  out[9] = binding.output_arena_bytes;
  return true;
}

}  // namespace spsc_queue
