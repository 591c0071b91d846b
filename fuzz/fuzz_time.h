// The virtual time line of the stateful harnesses. An endpoint's clock holds
// a plain function pointer, so the time is process-wide; every harness run
// resets it. Waits advance it; nothing ever sleeps. Names nothing of any
// endpoint: the clock struct is built with the endpoint's own names
// (EndpointAccess::clock(&FuzzTime::now_ns), or FuzzClock for the reference).
#ifndef SPSQ_FUZZ_FUZZ_TIME_H_
#define SPSQ_FUZZ_FUZZ_TIME_H_

#include <cstdint>

namespace spsq_fuzz {

struct FuzzTime {
  static uint64_t& now() {
    static uint64_t t = 0;
    return t;
  }
  static uint64_t now_ns() { return now(); }
  static void reset() { now() = 1'000'000; }
  static void advance(uint64_t ns) { now() += ns; }
};

}  // namespace spsq_fuzz

#endif  // SPSQ_FUZZ_FUZZ_TIME_H_
