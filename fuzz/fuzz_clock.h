// FuzzTime (fuzz/fuzz_time.h) as the reference's MonotonicClock, for the
// harnesses that drive the reference itself.
#ifndef SPSQ_FUZZ_FUZZ_CLOCK_H_
#define SPSQ_FUZZ_FUZZ_CLOCK_H_

#include "common/spsq_clock.h"
#include "fuzz/fuzz_time.h"

namespace spsq_fuzz {

struct FuzzClock : FuzzTime {
  static spsc_queue::MonotonicClock clock() { return spsc_queue::MonotonicClock{&now_ns}; }
};

}  // namespace spsq_fuzz

#endif  // SPSQ_FUZZ_FUZZ_CLOCK_H_
