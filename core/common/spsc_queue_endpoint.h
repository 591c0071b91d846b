// The L2 endpoint: the persistent L2 task's side of one queue. It consumes
// the input direction (DATA, STOP) and produces the output direction (DATA,
// ERROR), touching shared memory only through `RegionView`.
//
// Construction validates, in this order, with no shared-memory access when it
// fails and without raising the abort flag:
//   1. binding magic_version and transaction_id        -> BAD_BINDING
//   2. clock present                                   -> BAD_ARGUMENT
//   3. view not failed                                 -> ENDPOINT_ERROR
//   4. view payload / counter spans == binding sizes   -> BAD_BINDING
//   5. layout(depth, arenas) valid and == binding sizes -> BAD_BINDING
//   6. 1 <= MaxInflight <= depth                       -> BAD_ARGUMENT
// The RegionInstance identity is attached to errors from step 2 on.
#ifndef SPSQ_COMMON_SPSC_QUEUE_ENDPOINT_H_
#define SPSQ_COMMON_SPSC_QUEUE_ENDPOINT_H_

#include <cinttypes>
#include <cstdint>
#include <utility>

#include "common/spsq_binding.h"
#include "common/spsq_clock.h"
#include "common/spsq_consumer.h"
#include "common/spsq_direction.h"
#include "common/spsq_endpoint_state.h"
#include "common/spsq_error.h"
#include "common/spsq_handles.h"
#include "common/spsq_layout.h"
#include "common/spsq_producer.h"

namespace spsc_queue {

template <class RegionView, uint64_t MaxInflight = 1>
class SpscQueueEndpoint {
 public:
  // Up to MaxInflight DATA inputs plus the one slot STOP may take behind them.
  using Input = SpscConsumer<RegionView, MaxInflight + 1>;
  using Output = SpscProducer<RegionView>;

  SpscQueueEndpoint(const SpscQueueEndpointBinding& binding, RegionView view,
                    MonotonicClock clock)
      : state_(std::move(view), clock),
        input_(&state_,
               input_direction(layout_of(binding), SpscQueueOp::INPUT_TRY_PEEK,
                               SpscQueueOp::INPUT_RELEASE),
               MaxInflight, /*repeat_active=*/false),
        output_(&state_, output_direction(layout_of(binding), SpscQueueOp::OUTPUT_TRY_RESERVE,
                                          SpscQueueOp::OUTPUT_PUBLISH)) {
    SpscQueueLayout layout{};
    if (!validate(binding, clock, &layout)) return;
    state_.activate(layout, binding.session_instance_id_bits, binding.transaction_id,
                    layout.peer_abort_offset, layout.initiator_abort_offset);
  }

  SpscQueueEndpoint(const SpscQueueEndpoint&) = delete;
  SpscQueueEndpoint& operator=(const SpscQueueEndpoint&) = delete;

  bool live() const { return state_.live(); }
  const SpscQueueError& error() const { return state_.error(); }
  const SpscQueueLayout& layout() const { return state_.layout(); }
  Input& input() { return input_; }
  Output& output() { return output_; }

 private:
  // The directions are built before validation; a binding without a layout
  // leaves them zeroed, and a handle that is not live never uses them.
  static SpscQueueLayout layout_of(const SpscQueueEndpointBinding& b) {
    SpscQueueLayout l{};
    SpscQueueLayout::create(b.depth, b.input_arena_bytes, b.output_arena_bytes, &l);
    return l;
  }

  bool validate(const SpscQueueEndpointBinding& b, MonotonicClock clock, SpscQueueLayout* layout) {
    const SpscBindingStatus magic = check_magic_version(b.magic_version);
    if (magic != SpscBindingStatus::OK) {
      state_.fail_init(SpscQueueErrorKind::BAD_BINDING,
                       "unsupported SPSQ version: magic_version 0x%016" PRIx64 " (%s)",
                       b.magic_version, binding_status_name(magic));
      return false;
    }
    if (b.transaction_id == 0) {
      state_.fail_init(SpscQueueErrorKind::BAD_BINDING, "binding transaction_id is zero");
      return false;
    }
    state_.set_identity(b.session_instance_id_bits, b.transaction_id);
    if (!clock.valid()) {
      state_.fail_init(SpscQueueErrorKind::BAD_ARGUMENT, "no monotonic clock");
      return false;
    }
    RegionView& view = state_.view();
    if (view.failed()) {
      state_.fail_init(SpscQueueErrorKind::ENDPOINT_ERROR, "region view failed: %s",
                       view.error().message);
      return false;
    }
    const uint64_t payload_span = view.payload().span().logical_bytes;
    const uint64_t counter_span = view.counter().span().logical_bytes;
    if (payload_span != b.payload_bytes || counter_span != b.counter_bytes) {
      state_.fail_init(SpscQueueErrorKind::BAD_BINDING,
                       "view spans (payload %" PRIu64 ", counter %" PRIu64
                       ") differ from the binding (payload %" PRIu64 ", counter %" PRIu64 ")",
                       payload_span, counter_span, b.payload_bytes, b.counter_bytes);
      return false;
    }
    const SpscLayoutStatus st =
        SpscQueueLayout::create_checked(b.depth, b.input_arena_bytes, b.output_arena_bytes, layout);
    if (st != SpscLayoutStatus::OK) {
      state_.fail_init(SpscQueueErrorKind::BAD_BINDING, "binding layout invalid: %s",
                       layout_status_name(st));
      return false;
    }
    if (layout->payload_bytes != b.payload_bytes || layout->counter_bytes != b.counter_bytes) {
      state_.fail_init(SpscQueueErrorKind::BAD_BINDING,
                       "binding sizes (payload %" PRIu64 ", counter %" PRIu64
                       ") differ from the layout (payload %" PRIu64 ", counter %" PRIu64 ")",
                       b.payload_bytes, b.counter_bytes, layout->payload_bytes,
                       layout->counter_bytes);
      return false;
    }
    if (MaxInflight < 1 || MaxInflight > b.depth) {
      state_.fail_init(SpscQueueErrorKind::BAD_ARGUMENT,
                       "MaxInflight %" PRIu64 " outside 1..depth (%" PRIu64 ")",
                       static_cast<uint64_t>(MaxInflight), b.depth);
      return false;
    }
    return true;
  }

  SpscEndpointState<RegionView> state_;
  Input input_;
  Output output_;
};

}  // namespace spsc_queue

#endif  // SPSQ_COMMON_SPSC_QUEUE_ENDPOINT_H_
