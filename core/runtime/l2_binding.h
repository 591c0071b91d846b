// L2 code's first steps on a queue, as spec section 1 writes them: decode the
// ten binding scalars a task received, then view the two spans they name. The
// L2 tasks of this repository's tests and the Python module use these; the
// section-1 conformance test and the shipped example spell the snippet out on
// purpose (see the deliberate copies in tools/DUPLICATES.md).
#ifndef SPSQ_RUNTIME_L2_BINDING_H_
#define SPSQ_RUNTIME_L2_BINDING_H_

#include <cstddef>
#include <cstdint>

#include "aicpu/region_instance_view.h"
#include "common/region_template.h"

namespace spsq_runtime {

// Decodes the first ten scalars of `args` (anything with scalar(int32_t), e.g.
// TaskArgs) into *binding; false when they do not decode.
template <class Args>
bool decode_task_binding(const Args& args, spsc_queue::SpscQueueEndpointBinding* binding) {
  uint64_t scalars[spsc_queue::kSpscQueueEndpointBindingScalarCount];
  for (size_t i = 0; i < spsc_queue::kSpscQueueEndpointBindingScalarCount; ++i) {
    scalars[i] = args.scalar(static_cast<int32_t>(i));
  }
  return spsc_queue::decode_endpoint_binding(
      scalars, spsc_queue::kSpscQueueEndpointBindingScalarCount, binding);
}

// The endpoint's view over the PAYLOAD and COUNTER spans of a decoded binding.
inline RegionInstanceView binding_view(const spsc_queue::SpscQueueEndpointBinding& b) {
  return RegionInstanceView(RegionPartLocalSpan{b.payload_base, b.payload_bytes},
                            RegionPartLocalSpan{b.counter_base, b.counter_bytes});
}

}  // namespace spsq_runtime

#endif  // SPSQ_RUNTIME_L2_BINDING_H_
