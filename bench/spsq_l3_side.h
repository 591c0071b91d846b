// The L3 side of one queue for the benchmarks, built from the same engines
// the L2 endpoint uses (producer on the input direction, a one-handle
// consumer with repeat-active peek on the output direction), with the L3
// abort flags. It stands in for WorkerChipQueue until //core/l3 lands, and
// carries no timing or policy of its own.
#ifndef SPSQ_BENCH_SPSQ_L3_SIDE_H_
#define SPSQ_BENCH_SPSQ_L3_SIDE_H_

#include <cstdint>
#include <utility>

#include "common/spsq_consumer.h"
#include "common/spsq_direction.h"
#include "common/spsq_endpoint_state.h"
#include "common/spsq_layout.h"
#include "common/spsq_producer.h"

namespace spsq_bench {

template <class View>
class SpsqL3Side {
 public:
  SpsqL3Side(View view, spsc_queue::MonotonicClock clock, const spsc_queue::SpscQueueLayout& l,
             uint64_t session_bits, uint64_t transaction_id)
      : state_(std::move(view), clock),
        input_(&state_, spsc_queue::input_direction(l, spsc_queue::SpscQueueOperation::L3_ENQUEUE,
                                                    spsc_queue::SpscQueueOperation::L3_ENQUEUE)),
        output_(&state_,
                spsc_queue::output_direction(l, spsc_queue::SpscQueueOperation::L3_OUTPUT_PEEK,
                                             spsc_queue::SpscQueueOperation::L3_OUTPUT_RELEASE),
                /*data_window=*/1, /*repeat_active=*/true) {
    state_.activate(l, session_bits, transaction_id, l.initiator_abort_flag_offset,
                    l.peer_abort_flag_offset);
  }

  SpsqL3Side(const SpsqL3Side&) = delete;
  SpsqL3Side& operator=(const SpsqL3Side&) = delete;

  bool live() const { return state_.live(); }
  const spsc_queue::SpscQueueError& error() const { return state_.error(); }
  spsc_queue::SpscProducer<View>& input() { return input_; }
  spsc_queue::SpscConsumer<View, 1>& output() { return output_; }

 private:
  spsc_queue::SpscEndpointState<View> state_;
  spsc_queue::SpscProducer<View> input_;
  spsc_queue::SpscConsumer<View, 1> output_;
};

}  // namespace spsq_bench

#endif  // SPSQ_BENCH_SPSQ_L3_SIDE_H_
