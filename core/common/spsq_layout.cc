#include "common/spsq_layout.h"

namespace spsc_queue {
namespace {

bool checked_add(uint64_t a, uint64_t b, uint64_t* out) {
  return !__builtin_add_overflow(a, b, out);
}

bool checked_mul(uint64_t a, uint64_t b, uint64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}

bool checked_align_up(uint64_t v, uint64_t align, uint64_t* out) {
  uint64_t bumped;
  if (!checked_add(v, align - 1, &bumped)) return false;
  *out = bumped & ~(align - 1);
  return true;
}

}  // namespace

const char* layout_status_name(SpscLayoutStatus status) {
  switch (status) {
    case SpscLayoutStatus::OK: return "ok";
    case SpscLayoutStatus::DEPTH_ZERO: return "depth is zero";
    case SpscLayoutStatus::DEPTH_NOT_POWER_OF_TWO: return "depth is not a power of two";
    case SpscLayoutStatus::DEPTH_TOO_LARGE: return "depth exceeds 2^30";
    case SpscLayoutStatus::INPUT_ARENA_ZERO: return "input arena is zero bytes";
    case SpscLayoutStatus::INPUT_ARENA_NOT_64_MULTIPLE: return "input arena is not a multiple of 64";
    case SpscLayoutStatus::OUTPUT_ARENA_ZERO: return "output arena is zero bytes";
    case SpscLayoutStatus::OUTPUT_ARENA_NOT_64_MULTIPLE: return "output arena is not a multiple of 64";
    case SpscLayoutStatus::OVERFLOW: return "layout size overflows 64 bits";
  }
  return "unknown";
}

SpscLayoutStatus SpscQueueLayout::create_checked(uint64_t depth, uint64_t in, uint64_t out_arena,
                                                 SpscQueueLayout* out) {
  if (depth == 0) return SpscLayoutStatus::DEPTH_ZERO;
  if ((depth & (depth - 1)) != 0) return SpscLayoutStatus::DEPTH_NOT_POWER_OF_TWO;
  if (depth > kMaxDepth) return SpscLayoutStatus::DEPTH_TOO_LARGE;
  if (in == 0) return SpscLayoutStatus::INPUT_ARENA_ZERO;
  if (in % kArenaAlignment != 0) return SpscLayoutStatus::INPUT_ARENA_NOT_64_MULTIPLE;
  if (out_arena == 0) return SpscLayoutStatus::OUTPUT_ARENA_ZERO;
  if (out_arena % kArenaAlignment != 0) return SpscLayoutStatus::OUTPUT_ARENA_NOT_64_MULTIPLE;

  uint64_t ring_bytes, both_rings, input_arena_offset, input_end, output_arena_offset,
      payload_bytes;
  if (!checked_mul(depth, kDescriptorBytes, &ring_bytes) ||
      !checked_mul(ring_bytes, 2, &both_rings) ||
      !checked_align_up(both_rings, kArenaAlignment, &input_arena_offset) ||
      !checked_add(input_arena_offset, in, &input_end) ||
      !checked_align_up(input_end, kArenaAlignment, &output_arena_offset) ||
      !checked_add(output_arena_offset, out_arena, &payload_bytes)) {
    return SpscLayoutStatus::OVERFLOW;
  }
  if (out == nullptr) return SpscLayoutStatus::OK;
  SpscQueueLayout l;
  l.depth = depth;
  l.input_desc_offset = 0;
  l.output_desc_offset = ring_bytes;
  l.input_arena_offset = input_arena_offset;
  l.input_arena_bytes = in;
  l.output_arena_offset = output_arena_offset;
  l.output_arena_bytes = out_arena;
  l.payload_bytes = payload_bytes;
  l.counter_bytes = kCounterBytes;
  l.input_desc_tail_offset = kInputDescTailOffset;
  l.input_desc_head_offset = kInputDescHeadOffset;
  l.output_desc_tail_offset = kOutputDescTailOffset;
  l.output_desc_head_offset = kOutputDescHeadOffset;
  l.initiator_abort_offset = kInitiatorAbortOffset;
  l.peer_abort_offset = kPeerAbortOffset;
  *out = l;
  return SpscLayoutStatus::OK;
}

bool SpscQueueLayout::create(uint64_t depth, uint64_t in, uint64_t out_arena,
                             SpscQueueLayout* out) {
  return out != nullptr && create_checked(depth, in, out_arena, out) == SpscLayoutStatus::OK;
}

bool operator==(const SpscQueueLayout& a, const SpscQueueLayout& b) {
  return a.depth == b.depth && a.input_desc_offset == b.input_desc_offset &&
         a.output_desc_offset == b.output_desc_offset &&
         a.input_arena_offset == b.input_arena_offset &&
         a.input_arena_bytes == b.input_arena_bytes &&
         a.output_arena_offset == b.output_arena_offset &&
         a.output_arena_bytes == b.output_arena_bytes && a.payload_bytes == b.payload_bytes &&
         a.counter_bytes == b.counter_bytes &&
         a.input_desc_tail_offset == b.input_desc_tail_offset &&
         a.input_desc_head_offset == b.input_desc_head_offset &&
         a.output_desc_tail_offset == b.output_desc_tail_offset &&
         a.output_desc_head_offset == b.output_desc_head_offset &&
         a.initiator_abort_offset == b.initiator_abort_offset &&
         a.peer_abort_offset == b.peer_abort_offset;
}

}  // namespace spsc_queue
