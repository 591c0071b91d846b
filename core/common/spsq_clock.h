// The clock an endpoint is constructed with: a plain function pointer so an
// AICPU build needs no std::function. Tests inject a virtual clock.
#ifndef SPSQ_COMMON_SPSQ_CLOCK_H_
#define SPSQ_COMMON_SPSQ_CLOCK_H_

#include <cstdint>

namespace spsc_queue {

struct MonotonicClock {
  uint64_t (*now_ns)() = nullptr;

  bool valid() const { return now_ns != nullptr; }
};

}  // namespace spsc_queue

#endif  // SPSQ_COMMON_SPSQ_CLOCK_H_
