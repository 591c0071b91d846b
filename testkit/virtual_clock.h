// A virtual MonotonicClock. Endpoints take a plain function pointer
// `uint64_t (*now_ns)()`, so the time lives in process-global state that
// VirtualClock::now_ns reads. Time moves only when the harness moves it:
// directly (advance_to / advance_by), from a harness view's wait() that finds
// its condition false, or, for implementations that poll the clock instead of
// waiting through a view, on every read (auto-advance).
//
// Actions scheduled with at() run when time reaches them, in time order, so a
// single-threaded test can make a peer act "during" a blocking call. Not
// thread-safe: one test thread owns the clock.
#ifndef SPSQ_CONFORMANCE_HARNESS_VIRTUAL_CLOCK_H_
#define SPSQ_CONFORMANCE_HARNESS_VIRTUAL_CLOCK_H_

#include <cstdint>
#include <functional>

namespace spsq_conf {

class VirtualClock {
 public:
  // Default start: far from zero, so code that treats 0 as "no time" is seen.
  static constexpr uint64_t kDefaultStart = 1000000000;

  // The function an endpoint is constructed with.
  static uint64_t now_ns();

  // Back to `start` with no scheduled actions, no auto-advance, zero counts.
  static void reset(uint64_t start = kDefaultStart);

  // Peek at the time without counting a read or auto-advancing.
  static uint64_t peek();

  // Moves time forward to t (never backwards), running every action due at or
  // before t in time order; an action sees now == its own time.
  static void advance_to(uint64_t t);
  static void advance_by(uint64_t d);

  // Schedules fn at absolute time t (>= now). Actions at equal times run in
  // scheduling order.
  static void at(uint64_t t, std::function<void()> fn);
  static void after(uint64_t d, std::function<void()> fn);

  // For waits: if an action is due at or before `deadline`, advances to it,
  // runs it (and any others at that time) and returns true; otherwise false.
  static bool run_next_before(uint64_t deadline);

  static size_t pending();         // scheduled actions not yet run
  static uint64_t reads();         // now_ns() calls since reset
  static void set_auto_advance(uint64_t step_ns);  // 0 disables
};

}  // namespace spsq_conf

#endif  // SPSQ_CONFORMANCE_HARNESS_VIRTUAL_CLOCK_H_
