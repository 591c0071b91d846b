// Anchor: the round-trip limit of the machine. One cache line bounces between
// two threads: the initiator writes an odd value, the responder answers with
// the next even one. Any queue round trip costs at least this.
#ifndef SPSQ_BENCH_ANCHOR_CACHELINE_H_
#define SPSQ_BENCH_ANCHOR_CACHELINE_H_

#include <atomic>
#include <cstdint>

#include "bench/spin.h"

namespace spsq_bench {

class CacheLinePingPong {
 public:
  // Initiator: one round trip. `i` counts from 0.
  void ping(uint64_t i) {
    line_.v.store(2 * i + 1, std::memory_order_release);
    while (line_.v.load(std::memory_order_acquire) != 2 * i + 2) cpu_relax();
  }

  // Responder: answers until stop(); returns the round trips answered.
  uint64_t serve() {
    uint64_t answered = 0;
    for (;;) {
      const uint64_t v = line_.v.load(std::memory_order_acquire);
      if (v == kStop) return answered;
      if (v % 2 == 1) {
        line_.v.store(v + 1, std::memory_order_release);
        ++answered;
      } else {
        cpu_relax();
      }
    }
  }

  // Initiator, after its last ping.
  void stop() { line_.v.store(kStop, std::memory_order_release); }

 private:
  static constexpr uint64_t kStop = ~uint64_t{0} - 1;  // even: never answered
  struct alignas(64) Line {
    std::atomic<uint64_t> v{0};
  };
  Line line_;
};

}  // namespace spsq_bench

#endif  // SPSQ_BENCH_ANCHOR_CACHELINE_H_
