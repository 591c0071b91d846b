// Shared layout of one queue (wire-contract.md, "Layout"). Offsets are relative
// to the payload base (rings, arenas) or the counter base (signals).
#ifndef SPSQ_COMMON_SPSQ_LAYOUT_H_
#define SPSQ_COMMON_SPSQ_LAYOUT_H_

#include <cstdint>

#include "common/spsq_constants.h"

namespace spsc_queue {

// Why a (depth, input arena, output arena) triple has no layout.
enum class SpscLayoutStatus : uint32_t {
  OK = 0,
  DEPTH_ZERO,
  DEPTH_NOT_POWER_OF_TWO,
  DEPTH_TOO_LARGE,
  INPUT_ARENA_ZERO,
  INPUT_ARENA_NOT_64_MULTIPLE,
  OUTPUT_ARENA_ZERO,
  OUTPUT_ARENA_NOT_64_MULTIPLE,
  OVERFLOW,
};

const char* layout_status_name(SpscLayoutStatus status);

// Field names, types and order are the shipped runtime's (wire-contract.md,
// "Source compatibility"); each descriptor ring is depth * 32 bytes.
struct SpscQueueLayout {
  uint64_t depth;
  uint64_t input_arena_bytes;
  uint64_t output_arena_bytes;
  uint64_t input_desc_offset;   // always 0
  uint64_t output_desc_offset;  // depth * 32
  uint64_t input_arena_offset;
  uint64_t output_arena_offset;
  uint64_t payload_bytes;
  uint64_t input_desc_tail_offset;
  uint64_t input_desc_head_offset;
  uint64_t output_desc_tail_offset;
  uint64_t output_desc_head_offset;
  uint64_t initiator_abort_offset;
  uint64_t peer_abort_offset;
  uint64_t counter_bytes;  // always 384

  // Fills *out and returns true for a valid triple; leaves *out untouched and
  // returns false otherwise (including any arithmetic overflow).
  static bool create(uint64_t depth, uint64_t input_arena_bytes,
                     uint64_t output_arena_bytes, SpscQueueLayout* out);
  // Same, naming the first rule that failed.
  static SpscLayoutStatus create_checked(uint64_t depth, uint64_t input_arena_bytes,
                                         uint64_t output_arena_bytes, SpscQueueLayout* out);

  // Byte offset of descriptor slot for logical index k in each ring.
  uint64_t input_slot_offset(uint64_t k) const {
    return input_desc_offset + (k & (depth - 1)) * kDescriptorBytes;
  }
  uint64_t output_slot_offset(uint64_t k) const {
    return output_desc_offset + (k & (depth - 1)) * kDescriptorBytes;
  }
};

bool operator==(const SpscQueueLayout& a, const SpscQueueLayout& b);
inline bool operator!=(const SpscQueueLayout& a, const SpscQueueLayout& b) { return !(a == b); }

}  // namespace spsc_queue

#endif  // SPSQ_COMMON_SPSQ_LAYOUT_H_
