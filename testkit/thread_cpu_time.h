// CPU time of the calling thread, in nanoseconds: what a run cost the thread
// that did it, whatever else shares the machine (time descheduled does not
// count). For measurements beside the verdicts (the counter wrap's speed,
// the wire floor), never for judging.
#ifndef SPSQ_CONFORMANCE_HARNESS_THREAD_CPU_TIME_H_
#define SPSQ_CONFORMANCE_HARNESS_THREAD_CPU_TIME_H_

#include <time.h>

#include <cstdint>

namespace spsq_conf {

inline uint64_t thread_cpu_ns() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<uint64_t>(t.tv_sec) * 1000000000u + static_cast<uint64_t>(t.tv_nsec);
}

}  // namespace spsq_conf

#endif  // SPSQ_CONFORMANCE_HARNESS_THREAD_CPU_TIME_H_
