// One SPSQ queue in host memory with both ends bound from the same ten-scalar
// binding: the L3 WorkerChipQueue and the L2 SpscQueueEndpoint. Each end has
// its own RegionInstanceView over the same two parts.
#ifndef SPSQ_BENCH_SPSQ_PAIR_H_
#define SPSQ_BENCH_SPSQ_PAIR_H_

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>

#include "aicpu/region_instance_view.h"
#include "bench/aligned_buffer.h"
#include "common/region_template.h"
#include "l3/worker_chip_queue.h"

namespace spsq_bench {

struct SpsqShape {
  uint64_t depth;
  uint64_t input_arena_bytes;
  uint64_t output_arena_bytes;
};

template <uint64_t MaxInflight>
class SpsqPair {
 public:
  using L2 = spsc_queue::SpscQueueEndpoint<RegionInstanceView, MaxInflight>;
  using L3 = spsc_queue::WorkerChipQueue;

  explicit SpsqPair(const SpsqShape& shape) {
    spsc_queue::SpscQueueLayout layout{};
    if (!spsc_queue::SpscQueueLayout::create(shape.depth, shape.input_arena_bytes,
                                             shape.output_arena_bytes, &layout)) {
      error_ = "invalid queue shape";
      return;
    }
    payload_ = std::make_unique<AlignedBuffer>(layout.payload_bytes);
    counter_ = std::make_unique<AlignedBuffer>(layout.counter_bytes, 64);
    if (!payload_->ok() || !counter_->ok()) {
      error_ = "out of memory";
      return;
    }
    const RegionPartLocalSpan payload{reinterpret_cast<uint64_t>(payload_->data()),
                                      layout.payload_bytes};
    const RegionPartLocalSpan counter{reinterpret_cast<uint64_t>(counter_->data()),
                                      layout.counter_bytes};
    const spsc_queue::MonotonicClock clock{&RegionInstanceView::steady_now_ns};
    const spsc_queue::SpscQueueEndpointBinding binding{
        spsc_queue::kSpscQueueMagicVersion, kSessionBits, kTransactionId,
        payload.base, payload.logical_bytes, counter.base, counter.logical_bytes,
        shape.depth, shape.input_arena_bytes, shape.output_arena_bytes};
    l3_ = std::make_unique<Own<L3>>(binding, RegionInstanceView(payload, counter, clock), clock,
                                    nullptr);
    if (!l3_->v.live()) {
      error_ = std::string("L3 queue: ") + l3_->v.error().message;
      return;
    }
    l2_ = std::make_unique<Own<L2>>(binding, RegionInstanceView(payload, counter, clock), clock);
    if (!l2_->v.live()) error_ = std::string("L2 endpoint: ") + l2_->v.error().message;
  }

  bool ok() const { return error_.empty(); }
  // Empty while both ends are live; otherwise what went wrong first.
  std::string error() const {
    if (!error_.empty()) return error_;
    if (!l2_->v.live()) return std::string("L2: ") + l2_->v.error().message;
    if (!l3_->v.live()) return std::string("L3: ") + l3_->v.error().message;
    return {};
  }
  L2& l2() { return l2_->v; }
  L3& l3() { return l3_->v; }

 private:
  static constexpr uint64_t kSessionBits = 0x5E55;
  static constexpr uint64_t kTransactionId = 0xBE7C;

  std::unique_ptr<AlignedBuffer> payload_;
  std::unique_ptr<AlignedBuffer> counter_;
  // Each end on cache lines of its own, as in two address spaces: no false
  // sharing between the ends' private state skews the numbers.
  template <class T>
  struct alignas(64) Own {
    template <class... Args>
    explicit Own(Args&&... args) : v(std::forward<Args>(args)...) {}
    T v;
    char pad[64];
  };

  std::unique_ptr<Own<L3>> l3_;
  std::unique_ptr<Own<L2>> l2_;
  std::string error_;
};

}  // namespace spsq_bench

#endif  // SPSQ_BENCH_SPSQ_PAIR_H_
