// The SPSC queue as a Region Template: sizes a RegionInstance from the queue
// layout, binds the ten-scalar SpscQueueEndpointBinding onto it, and projects
// the L3 WorkerChipQueue over its PAYLOAD and COUNTER parts.
#ifndef SPSQ_RUNTIME_SPSC_QUEUE_REGION_TEMPLATE_H_
#define SPSQ_RUNTIME_SPSC_QUEUE_REGION_TEMPLATE_H_

#include <cinttypes>
#include <memory>

#include "aicpu/region_instance_view.h"
#include "common/spsq_binding.h"
#include "common/spsq_clock.h"
#include "common/spsq_constants.h"
#include "common/spsq_error.h"
#include "common/spsq_layout.h"
#include "l3/worker_chip_queue.h"
#include "region/region_instance.h"

namespace spsq_runtime {

class SpscQueueRegionTemplate {
 public:
  using Binding = spsc_queue::SpscQueueEndpointBinding;
  using Projection = std::unique_ptr<spsc_queue::WorkerChipQueue>;

  // `layout` must come from SpscQueueLayout::create (validated arguments).
  SpscQueueRegionTemplate(const spsc_queue::SpscQueueLayout& layout,
                          spsc_queue::MonotonicClock clock)
      : layout_(layout), clock_(clock) {}

  uint64_t payload_bytes() const { return layout_.payload_bytes; }
  uint64_t counter_bytes() const { return layout_.counter_bytes; }

  bool bind(const RegionInstance& instance, Binding* out, spsc_queue::SpscQueueError* error) const {
    Binding b{};
    b.magic_version = spsc_queue::kSpscQueueMagicVersion;
    b.session_instance_id_bits = instance.id().session_instance_id_bits;
    b.transaction_id = instance.id().transaction_id;
    b.payload_base = instance.payload().base;
    b.payload_bytes = instance.payload().logical_bytes;
    b.counter_base = instance.counter().base;
    b.counter_bytes = instance.counter().logical_bytes;
    b.depth = layout_.depth;
    b.input_arena_bytes = layout_.input_arena_bytes;
    b.output_arena_bytes = layout_.output_arena_bytes;
    uint64_t scalars[spsc_queue::kSpscQueueEndpointBindingScalarCount];
    if (b.payload_bytes != layout_.payload_bytes || b.counter_bytes != layout_.counter_bytes ||
        !spsc_queue::encode_endpoint_binding(b, scalars,
                                             spsc_queue::kSpscQueueEndpointBindingScalarCount)) {
      *error = spsc_queue::make_error(
          spsc_queue::SpscQueueErrorKind::BAD_BINDING, spsc_queue::SpscQueueOp::INIT,
          "cannot bind the SPSC template: instance parts (payload %" PRIu64 ", counter %" PRIu64
          ", transaction %" PRIu64 ") do not carry the layout (payload %" PRIu64
          ", counter %" PRIu64 ")",
          b.payload_bytes, b.counter_bytes, b.transaction_id, layout_.payload_bytes,
          layout_.counter_bytes);
      spsc_queue::set_error_identity(error, b.session_instance_id_bits, b.transaction_id);
      return false;
    }
    *out = b;
    return true;
  }

  Projection project(std::shared_ptr<RegionInstance> instance, const Binding& binding,
                     spsc_queue::SpscQueueError* error) const {
    RegionInstanceView view(instance->payload(), instance->counter(), clock_);
    Projection queue(new spsc_queue::WorkerChipQueue(binding, std::move(view), clock_,
                                                     std::move(instance)));
    if (!queue->live()) {
      *error = queue->error();
      return nullptr;  // destroying it drops its instance reference
    }
    return queue;
  }

 private:
  spsc_queue::SpscQueueLayout layout_;
  spsc_queue::MonotonicClock clock_;
};

}  // namespace spsq_runtime

#endif  // SPSQ_RUNTIME_SPSC_QUEUE_REGION_TEMPLATE_H_
