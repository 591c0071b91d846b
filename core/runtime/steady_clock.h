// The runtime's default MonotonicClock source.
#ifndef SPSQ_RUNTIME_STEADY_CLOCK_H_
#define SPSQ_RUNTIME_STEADY_CLOCK_H_

#include <chrono>
#include <cstdint>

#include "common/spsq_clock.h"

namespace spsq_runtime {

inline uint64_t steady_clock_now_ns() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

inline spsc_queue::MonotonicClock steady_monotonic_clock() {
  return spsc_queue::MonotonicClock{&steady_clock_now_ns};
}

}  // namespace spsq_runtime

#endif  // SPSQ_RUNTIME_STEADY_CLOCK_H_
