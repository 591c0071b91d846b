// Per-batch timing. This machine is shared and its vCPUs get preempted for
// milliseconds at a time; one such stall dominates a mean over a whole run.
// Timing batches of messages separately and taking the median batch gives
// the undisturbed cost, the same way for SPSQ and for every anchor.
#ifndef SPSQ_BENCH_BATCH_STATS_H_
#define SPSQ_BENCH_BATCH_STATS_H_

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

namespace spsq_bench {

class BatchStats {
 public:
  using Clock = std::chrono::steady_clock;

  void add(Clock::time_point start, Clock::time_point end, uint64_t messages) {
    if (messages == 0) return;
    const double ns = std::chrono::duration<double, std::nano>(end - start).count();
    per_message_ns_.push_back(ns / static_cast<double>(messages));
  }

  // Nanoseconds per message at quantile q (0..1) over the batches; 0 if none.
  double quantile(double q) {
    if (per_message_ns_.empty()) return 0;
    const size_t i = static_cast<size_t>(q * static_cast<double>(per_message_ns_.size() - 1));
    std::nth_element(per_message_ns_.begin(), per_message_ns_.begin() + i, per_message_ns_.end());
    return per_message_ns_[i];
  }

  size_t batches() const { return per_message_ns_.size(); }

 private:
  std::vector<double> per_message_ns_;
};

}  // namespace spsq_bench

#endif  // SPSQ_BENCH_BATCH_STATS_H_
