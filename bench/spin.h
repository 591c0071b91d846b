// Busy-wait helpers shared by every benchmarked queue, so all of them retry
// with the same policy: pause while the peer is expected to be running, and
// yield now and then so an oversubscribed machine still makes progress.
#ifndef SPSQ_BENCH_SPIN_H_
#define SPSQ_BENCH_SPIN_H_

#include <pthread.h>
#include <sched.h>

#include <cstdint>
#include <thread>

namespace spsq_bench {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

class Backoff {
 public:
  // True every kCheckEvery calls: the caller then looks for peer failure.
  bool pause() {
    cpu_relax();
    if (++spins_ % kCheckEvery != 0) return false;
    std::this_thread::yield();
    return true;
  }
  void reset() { spins_ = 0; }

 private:
  static constexpr uint32_t kCheckEvery = 1024;
  uint32_t spins_ = 0;
};

// Pins the calling thread to `cpu`. Returns false (and leaves the thread
// where it was) when the machine has no such CPU.
inline bool pin_current_thread(int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE) return false;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
}

// The two CPUs the producer and consumer threads use, or -1 when pinning is off.
struct Placement {
  int main_cpu = -1;
  int peer_cpu = -1;
};

}  // namespace spsq_bench

#endif  // SPSQ_BENCH_SPIN_H_
