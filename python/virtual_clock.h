// A stepping virtual clock for L3 queue handles: every reading advances it
// by a fixed step, so a blocking call's timeout expires after a fixed number
// of clock readings instead of wall time. Tests drive timeouts with it and
// never sleep. One clock per process (a MonotonicClock is a plain function
// pointer); it only moves forward.
#ifndef SPSQ_PYTHON_VIRTUAL_CLOCK_H_
#define SPSQ_PYTHON_VIRTUAL_CLOCK_H_

#include <cstdint>

#include "common/spsq_clock.h"

namespace spsq_python {

inline constexpr uint64_t kVirtualClockStepNs = 1000 * 1000;  // 1 ms per reading

// Reads and advances.
uint64_t virtual_clock_tick_ns();
// Reads without advancing (for tests to measure how far a call moved it).
uint64_t virtual_clock_peek_ns();

inline spsc_queue::MonotonicClock virtual_monotonic_clock() {
  return spsc_queue::MonotonicClock{&virtual_clock_tick_ns};
}

}  // namespace spsq_python

#endif  // SPSQ_PYTHON_VIRTUAL_CLOCK_H_
