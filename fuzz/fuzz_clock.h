// A virtual monotonic clock for the stateful harnesses. MonotonicClock holds a
// plain function pointer, so the time line is process-wide; every harness run
// resets it. Waits advance it; nothing ever sleeps.
#ifndef SPSQ_FUZZ_FUZZ_CLOCK_H_
#define SPSQ_FUZZ_FUZZ_CLOCK_H_

#include <cstdint>

#include "common/spsq_clock.h"

namespace spsq_fuzz {

struct FuzzClock {
  static uint64_t& now() {
    static uint64_t t = 0;
    return t;
  }
  static uint64_t now_ns() { return now(); }
  static void reset() { now() = 1'000'000; }
  static void advance(uint64_t ns) { now() += ns; }
  static spsc_queue::MonotonicClock clock() { return spsc_queue::MonotonicClock{&now_ns}; }
};

}  // namespace spsq_fuzz

#endif  // SPSQ_FUZZ_FUZZ_CLOCK_H_
