// The Region Template coordinator: the one place where a typed protocol (a
// Region Template such as the SPSC queue) meets a generic RegionInstance.
// It materializes the instance, binds the template onto it, and projects the
// initiator's handle. If binding or projection fails the instance is closed
// again (its only reference is dropped, so the memory is reclaimed at once)
// and the first error is reported; nothing half-built escapes.
//
// A Template provides:
//   using Binding = ...; using Projection = std::unique_ptr<...>;
//   uint64_t payload_bytes() const; uint64_t counter_bytes() const;
//   bool bind(const RegionInstance&, Binding*, spsc_queue::SpscQueueError*) const;
//   Projection project(std::shared_ptr<RegionInstance>, const Binding&,
//                      spsc_queue::SpscQueueError*) const;
#ifndef SPSQ_RUNTIME_REGION_TEMPLATE_COORDINATOR_H_
#define SPSQ_RUNTIME_REGION_TEMPLATE_COORDINATOR_H_

#include <memory>
#include <string>
#include <utility>

#include "common/spsq_error.h"
#include "region/region_instance.h"

namespace spsq_runtime {

template <class Template>
typename Template::Projection materialize_bind_project(const Template& region_template,
                                                       const RegionInstanceId& id,
                                                       std::shared_ptr<RegionLedger> ledger,
                                                       spsc_queue::SpscQueueError* error) {
  using spsc_queue::SpscQueueErrorKind;
  using spsc_queue::SpscQueueOp;
  spsc_queue::SpscQueueError first;
  std::string why;
  std::shared_ptr<RegionInstance> instance =
      RegionInstance::materialize(id, region_template.payload_bytes(),
                                  region_template.counter_bytes(), std::move(ledger), &why);
  if (!instance) {
    first = spsc_queue::make_error(SpscQueueErrorKind::ENDPOINT_ERROR, SpscQueueOp::INIT,
                                   "materializing the RegionInstance failed: %s", why.c_str());
    spsc_queue::set_error_identity(&first, id.session_instance_id_bits, id.transaction_id);
    if (error != nullptr) *error = first;
    return nullptr;
  }
  // A queue's sides see the payload through the process's caches, when a
  // simulation installed them (region/payload_caches.h).
  instance->use_payload_caches();
  typename Template::Binding binding{};
  if (region_template.bind(*instance, &binding, &first)) {
    typename Template::Projection projection =
        region_template.project(instance, binding, &first);
    if (projection) {
      if (error != nullptr) *error = spsc_queue::SpscQueueError{};
      return projection;
    }
    // A failed projection must not keep a reference to the instance.
  }
  if (first.ok()) {
    first = spsc_queue::make_error(SpscQueueErrorKind::ENDPOINT_ERROR, SpscQueueOp::INIT,
                                   "region template failed without naming an error");
  }
  if (!first.has_identity()) {
    spsc_queue::set_error_identity(&first, id.session_instance_id_bits, id.transaction_id);
  }
  instance.reset();  // close: the coordinator held the only reference
  if (error != nullptr) *error = first;
  return nullptr;
}

}  // namespace spsq_runtime

#endif  // SPSQ_RUNTIME_REGION_TEMPLATE_COORDINATOR_H_
