// Head/tail counters travel as the signed low 32 bits of a 64-bit monotonic
// count; each side reconstructs the full value from its own last observation.
#ifndef SPSQ_COMMON_SPSQ_COUNTER_H_
#define SPSQ_COMMON_SPSQ_COUNTER_H_

#include <cstdint>

namespace spsc_queue {

inline int32_t counter_low32(uint64_t value) {
  return static_cast<int32_t>(static_cast<uint32_t>(value));
}

// delta = int32(uint32(observed) - uint32(local)); legal when 0 <= delta <= depth.
// On success *out = local + delta. On failure *out is untouched: the caller
// poisons (INVALID_DESCRIPTOR).
inline bool reconstruct_counter(uint64_t local, int32_t observed, uint64_t depth,
                                uint64_t* out) {
  const int32_t delta = static_cast<int32_t>(static_cast<uint32_t>(observed) -
                                             static_cast<uint32_t>(local));
  if (delta < 0 || static_cast<uint64_t>(delta) > depth) return false;
  *out = local + static_cast<uint64_t>(delta);
  return true;
}

}  // namespace spsc_queue

#endif  // SPSQ_COMMON_SPSQ_COUNTER_H_
