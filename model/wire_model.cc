#include "model/wire_model.h"

namespace spsq_conf {
namespace wire {

const char* kind_name(uint32_t kind) {
  switch (kind) {
    case kKindNone: return "NONE";
    case kBadArgument: return "BAD_ARGUMENT";
    case kBadBinding: return "BAD_BINDING";
    case kInvalidDescriptor: return "INVALID_DESCRIPTOR";
    case kOwnership: return "OWNERSHIP";
    case kRemoteAborted: return "REMOTE_ABORTED";
    case kEndpointError: return "ENDPOINT_ERROR";
  }
  return "UNKNOWN_KIND";
}

const char* opcode_name(uint64_t opcode) {
  switch (opcode) {
    case kInvalid: return "INVALID";
    case kData: return "DATA";
    case kStop: return "STOP";
    case kError: return "ERROR";
  }
  return "UNKNOWN_OPCODE";
}

uint64_t unchecked_payload_bytes(uint64_t depth, uint64_t in, uint64_t out) {
  const uint64_t in_off = (2 * depth * kDescriptorBytes + kArenaAlign - 1) & ~(kArenaAlign - 1);
  const uint64_t out_off = (in_off + in + kArenaAlign - 1) & ~(kArenaAlign - 1);
  return out_off + out;
}

bool compute_layout(uint64_t depth, uint64_t in, uint64_t out, Layout* layout) {
  if (depth == 0 || (depth & (depth - 1)) != 0 || depth > kMaxDepth) return false;
  if (in == 0 || in % kArenaAlign != 0 || out == 0 || out % kArenaAlign != 0) return false;
  uint64_t ring, rings, in_off, in_end, out_off, total;
  // align_up(x, 64) = (x + 63) & ~63, each step checked.
  if (__builtin_mul_overflow(depth, kDescriptorBytes, &ring) ||
      __builtin_mul_overflow(ring, uint64_t{2}, &rings) ||
      __builtin_add_overflow(rings, kArenaAlign - 1, &in_off)) {
    return false;
  }
  in_off &= ~(kArenaAlign - 1);
  if (__builtin_add_overflow(in_off, in, &in_end) ||
      __builtin_add_overflow(in_end, kArenaAlign - 1, &out_off)) {
    return false;
  }
  out_off &= ~(kArenaAlign - 1);
  if (__builtin_add_overflow(out_off, out, &total)) return false;
  Layout l;
  l.depth = depth;
  l.input_ring = 0;
  l.output_ring = ring;
  l.ring_bytes = ring;
  l.input_arena = in_off;
  l.input_arena_bytes = in;
  l.output_arena = out_off;
  l.output_arena_bytes = out;
  l.payload_bytes = total;
  l.counter_bytes = kCounterBytes;
  *layout = l;
  return true;
}

}  // namespace wire
}  // namespace spsq_conf
