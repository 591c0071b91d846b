// An unsigned timeout on the L3 queue's blocking calls, which take
// std::chrono::nanoseconds, a signed count. One past its range (2^63 ns and
// more) is waited in consecutive calls, each ending at its own deadline, so
// the whole ends at start + timeout (saturated at 2^64 - 1) as one wait
// would. A call that did not time out (progress, a refusal, a remote abort),
// or timed out before its own deadline (the caller then sees the early
// expiry, and a defective queue cannot keep the loop going), ends it.
// Glue for callers that speak uint64 nanoseconds (the conformance adapter,
// the reference testee); depends on nothing of the queue.
#ifndef SPSQ_L3_UNSIGNED_TIMEOUT_H_
#define SPSQ_L3_UNSIGNED_TIMEOUT_H_

#include <chrono>
#include <cstdint>
#include <limits>

namespace spsc_queue {

// `call(std::chrono::nanoseconds)` makes one blocking call and returns its
// status; `timed_out(status)` says whether it expired; `now_ns` is the clock
// the queue measures with.
template <class Call, class TimedOut>
auto call_with_unsigned_timeout(uint64_t timeout_ns, uint64_t (*now_ns)(), Call call,
                                TimedOut timed_out) -> decltype(call(std::chrono::nanoseconds{})) {
  using Rep = std::chrono::nanoseconds::rep;
  constexpr uint64_t kLongest = static_cast<uint64_t>(std::numeric_limits<Rep>::max());
  const auto ns = [](uint64_t t) { return std::chrono::nanoseconds(static_cast<Rep>(t)); };
  if (timeout_ns <= kLongest) return call(ns(timeout_ns));
  constexpr uint64_t kEnd = ~uint64_t{0};
  const auto until = [](uint64_t from, uint64_t t) { return t > kEnd - from ? kEnd : from + t; };
  const uint64_t deadline = until(now_ns(), timeout_ns);
  for (;;) {
    const uint64_t now = now_ns();
    // At the end of time the deadline is now: 1 ns, which expires at once.
    const uint64_t left = deadline - now;
    const uint64_t chunk = left == 0 ? 1 : left < kLongest ? left : kLongest;
    const auto s = call(ns(chunk));
    const uint64_t after = now_ns();
    if (!timed_out(s) || after >= deadline || after < until(now, chunk)) return s;
  }
}

}  // namespace spsc_queue

#endif  // SPSQ_L3_UNSIGNED_TIMEOUT_H_
