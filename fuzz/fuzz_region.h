// FuzzMemory (fuzz/fuzz_memory.h) plus the reference's binding struct, for
// the harnesses that drive the reference itself (l3_stream, differential).
// Code compiled with an endpoint under test uses FuzzMemory and builds the
// binding through the endpoint's own names (conformance/l2/endpoint_access.h).
#ifndef SPSQ_FUZZ_FUZZ_REGION_H_
#define SPSQ_FUZZ_FUZZ_REGION_H_

#include <cstdint>

#include "aicpu/region_view_types.h"
#include "common/spsq_binding.h"
#include "fuzz/fuzz_memory.h"
#include "fuzz/wire_model.h"

namespace spsq_fuzz {

class FuzzRegion : public FuzzMemory {
 public:
  using FuzzMemory::FuzzMemory;

  RegionPartLocalSpan payload_span() const { return {payload_base(), layout().payload_bytes}; }
  RegionPartLocalSpan counter_span() const { return {counter_base(), wire::kCounterBytes}; }

  // The model's binding for this memory, in the reference's struct.
  spsc_queue::SpscQueueEndpointBinding binding(uint64_t session_bits, uint64_t txn) const {
    const auto s = wire::binding_scalars(
        wire::binding_for(layout(), payload_base(), counter_base(), session_bits, txn));
    return wire::binding_from_scalars<spsc_queue::SpscQueueEndpointBinding>(s.data());
  }
};

}  // namespace spsq_fuzz

#endif  // SPSQ_FUZZ_FUZZ_REGION_H_
