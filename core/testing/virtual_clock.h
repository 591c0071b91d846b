// A virtual monotonic clock for tests. MonotonicClock holds a bare function
// pointer, so the time lives in process-wide state; tests reset it in SetUp.
// Nothing here reads the wall clock: time moves only when a test, or a test
// view's wait(), advances it.
#ifndef SPSQ_TESTING_VIRTUAL_CLOCK_H_
#define SPSQ_TESTING_VIRTUAL_CLOCK_H_

#include <atomic>
#include <cstdint>

#include "common/spsq_clock.h"

namespace spsq_testing {

class VirtualClock {
 public:
  // Starts away from zero so "advanced by" checks cannot pass by accident.
  static constexpr uint64_t kStartNs = 1'000'000;

  static void reset(uint64_t now = kStartNs) {
    now_.store(now);
    tick_.store(0);
    reads_.store(0);
  }
  static uint64_t now() { return now_.load(); }
  static void advance(uint64_t ns) { now_.fetch_add(ns); }
  // Every read of the clock moves it forward by `tick` (0: frozen). For
  // views that poll the clock themselves, such as RegionInstanceView::wait.
  static void set_tick(uint64_t tick) { tick_.store(tick); }
  static uint64_t reads() { return reads_.load(); }

  static uint64_t now_ns() {
    reads_.fetch_add(1);
    return now_.fetch_add(tick_.load());
  }
  static spsc_queue::MonotonicClock clock() { return spsc_queue::MonotonicClock{&now_ns}; }

 private:
  static inline std::atomic<uint64_t> now_{kStartNs};
  static inline std::atomic<uint64_t> tick_{0};
  static inline std::atomic<uint64_t> reads_{0};
};

}  // namespace spsq_testing

#endif  // SPSQ_TESTING_VIRTUAL_CLOCK_H_
