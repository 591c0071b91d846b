// WorkerChipQueue: the L3 initiator's handle of one SPSQ queue, projected by
// the Region Template coordinator over one RegionInstance. L3 is the mirror
// of L2: producer of the input direction, consumer of the output direction,
// built on the same SpscProducer / SpscConsumer engines and touching shared
// memory only through its view. L3 raises initiator_abort_flag (@256) on
// local poison and reads peer_abort_flag (@320).
//
// Construction validates, in order, with no shared-memory access on failure:
//   1. binding magic_version and transaction_id          -> BAD_BINDING
//   2. clock present                                     -> BAD_ARGUMENT
//   3. view not failed                                   -> ENDPOINT_ERROR
//   4. view spans == binding bases and sizes             -> BAD_BINDING
//   5. layout(depth, arenas) valid and == binding sizes  -> BAD_BINDING
//   6. RegionInstance (when given) spans == binding      -> BAD_BINDING
//
// Not thread safe: one L3 thread drives a queue handle.
#ifndef SPSQ_L3_WORKER_CHIP_QUEUE_H_
#define SPSQ_L3_WORKER_CHIP_QUEUE_H_

#include <array>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <memory>
#include <utility>

#include "aicpu/region_instance_view.h"
#include "common/spsq_binding.h"
#include "common/spsq_clock.h"
#include "common/spsq_constants.h"
#include "common/spsq_direction.h"
#include "common/spsq_error.h"
#include "common/spsq_layout.h"
#include "l3/worker_chip_queue_core.h"
#include "l3/worker_chip_queue_input.h"
#include "l3/worker_chip_queue_output.h"
#include "l3/worker_chip_queue_status.h"
#include "region/region_instance.h"
#include "region/worker_chip_region.h"

namespace spsc_queue {

template <class View>
class BasicWorkerChipQueue {
 public:
  using Input = WorkerChipQueueInput<View>;
  using Output = WorkerChipQueueOutput<View>;

  // `instance` keeps the memory alive until free(); it may be null when the
  // caller owns the memory some other way (tests over a plain instance).
  BasicWorkerChipQueue(const SpscQueueEndpointBinding& binding, View view, MonotonicClock clock,
                       std::shared_ptr<spsq_runtime::RegionInstance> instance)
      : binding_(binding),
        core_(std::move(view), clock),
        input_(&core_, input_direction(layout_of(binding), SpscQueueOp::L3_ENQUEUE,
                                       SpscQueueOp::L3_ENQUEUE)),
        output_(&core_, output_direction(layout_of(binding), SpscQueueOp::L3_OUTPUT_PEEK,
                                         SpscQueueOp::L3_OUTPUT_RELEASE)),
        region_(instance),
        instance_(std::move(instance)) {
    SpscQueueLayout layout{};
    if (!validate(clock, &layout)) return;
    core_.state().activate(layout, binding.session_instance_id_bits, binding.transaction_id,
                           layout.initiator_abort_offset, layout.peer_abort_offset);
  }

  BasicWorkerChipQueue(const BasicWorkerChipQueue&) = delete;
  BasicWorkerChipQueue& operator=(const BasicWorkerChipQueue&) = delete;

  bool live() const { return !core_.freed() && core_.state().live(); }
  // Terminal error (NONE while live).
  const SpscQueueError& error() const { return core_.state().error(); }
  // Why the latest call did not return OK (kind NONE for no-progress).
  const SpscQueueError& last_error() const { return core_.last_error(); }
  const SpscQueueLayout& layout() const { return core_.state().layout(); }

  Input& input() { return input_; }
  Output& output() { return output_; }

  // The stop calls as the spec spells them, on the queue; they are the
  // input direction's (input().request_stop stays for existing callers).
  // Waits only until STOP is published, not for L2 exit nor for outputs.
  WorkerChipQueueStatus request_stop(std::chrono::nanoseconds timeout) {
    return input_.request_stop(timeout);
  }
  WorkerChipQueueStatus try_request_stop() { return input_.try_request_stop(); }

  // The ten binding scalars for TaskArgs, in spec order from offset 0.
  std::array<uint64_t, kSpscQueueEndpointBindingScalarCount> chip_task_arg_scalars() const {
    std::array<uint64_t, kSpscQueueEndpointBindingScalarCount> s{};
    encode_endpoint_binding(binding_, s.data(), s.size());
    return s;
  }
  const SpscQueueEndpointBinding& binding() const { return binding_; }

  // Compatibility escape hatch over the same instance's PAYLOAD and COUNTER.
  // Layout, publication, failure and lifecycle authority stay on the queue.
  spsq_runtime::WorkerChipOrchRegion& region() { return region_; }

  // Logical release: drops this handle's reference to the RegionInstance and
  // marks the projected region released. Later calls are REJECTED without
  // touching memory; physical cleanup waits for submitted L2 work to drain.
  void free() {
    core_.mark_freed();
    region_.free();
    instance_.reset();
  }
  bool freed() const { return core_.freed(); }

 private:
  static SpscQueueLayout layout_of(const SpscQueueEndpointBinding& b) {
    SpscQueueLayout l{};
    SpscQueueLayout::create(b.depth, b.input_arena_bytes, b.output_arena_bytes, &l);
    return l;
  }

  bool validate(MonotonicClock clock, SpscQueueLayout* layout) {
    SpscEndpointState<View>& state = core_.state();
    const SpscQueueEndpointBinding& b = binding_;
    const SpscBindingStatus magic = check_magic_version(b.magic_version);
    if (magic != SpscBindingStatus::OK) {
      state.fail_init(SpscQueueErrorKind::BAD_BINDING,
                      "unsupported SPSQ version: magic_version 0x%016" PRIx64 " (%s)",
                      b.magic_version, binding_status_name(magic));
      return false;
    }
    if (b.transaction_id == 0) {
      state.fail_init(SpscQueueErrorKind::BAD_BINDING, "binding transaction_id is zero");
      return false;
    }
    state.set_identity(b.session_instance_id_bits, b.transaction_id);
    core_.set_identity(b.session_instance_id_bits, b.transaction_id);
    if (!clock.valid()) {
      state.fail_init(SpscQueueErrorKind::BAD_ARGUMENT, "no monotonic clock");
      return false;
    }
    View& view = state.view();
    if (view.failed()) {
      state.fail_init(SpscQueueErrorKind::ENDPOINT_ERROR, "region view failed: %s",
                      view.error().message);
      return false;
    }
    const RegionPartLocalSpan p = view.payload().span();
    const RegionPartLocalSpan c = view.counter().span();
    if (p.base != b.payload_base || p.logical_bytes != b.payload_bytes ||
        c.base != b.counter_base || c.logical_bytes != b.counter_bytes) {
      state.fail_init(SpscQueueErrorKind::BAD_BINDING,
                      "view spans (payload 0x%" PRIx64 "+%" PRIu64 ", counter 0x%" PRIx64
                      "+%" PRIu64 ") differ from the binding (payload 0x%" PRIx64 "+%" PRIu64
                      ", counter 0x%" PRIx64 "+%" PRIu64 ")",
                      p.base, p.logical_bytes, c.base, c.logical_bytes, b.payload_base,
                      b.payload_bytes, b.counter_base, b.counter_bytes);
      return false;
    }
    const SpscLayoutStatus st =
        SpscQueueLayout::create_checked(b.depth, b.input_arena_bytes, b.output_arena_bytes, layout);
    if (st != SpscLayoutStatus::OK) {
      state.fail_init(SpscQueueErrorKind::BAD_BINDING, "binding layout invalid: %s",
                      layout_status_name(st));
      return false;
    }
    if (layout->payload_bytes != b.payload_bytes || layout->counter_bytes != b.counter_bytes) {
      state.fail_init(SpscQueueErrorKind::BAD_BINDING,
                      "binding sizes (payload %" PRIu64 ", counter %" PRIu64
                      ") differ from the layout (payload %" PRIu64 ", counter %" PRIu64 ")",
                      b.payload_bytes, b.counter_bytes, layout->payload_bytes,
                      layout->counter_bytes);
      return false;
    }
    if (instance_) {
      const RegionPartLocalSpan ip = instance_->payload(), ic = instance_->counter();
      if (ip.base != b.payload_base || ip.logical_bytes != b.payload_bytes ||
          ic.base != b.counter_base || ic.logical_bytes != b.counter_bytes) {
        state.fail_init(SpscQueueErrorKind::BAD_BINDING,
                        "binding does not describe RegionInstance (worker %u, transaction %" PRIu64
                        ")", instance_->id().worker_id, instance_->id().transaction_id);
        return false;
      }
    }
    return true;
  }

  SpscQueueEndpointBinding binding_;
  WorkerChipQueueCore<View> core_;
  Input input_;
  Output output_;
  spsq_runtime::WorkerChipOrchRegion region_;
  std::shared_ptr<spsq_runtime::RegionInstance> instance_;
};

// The runtime's queue handle: host memory through RegionInstanceView, the
// same view type L2 uses.
using WorkerChipQueue = BasicWorkerChipQueue<RegionInstanceView>;

}  // namespace spsc_queue

#endif  // SPSQ_L3_WORKER_CHIP_QUEUE_H_
