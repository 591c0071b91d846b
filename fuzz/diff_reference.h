// The reference endpoint as a differential target (diff_endpoint.h over
// spsc_queue::SpscQueueEndpoint). diff_second_alt compiles this header again
// with the spsc_queue namespace renamed; everything it defines has internal
// linkage, so the two copies are never merged.
#ifndef SPSQ_FUZZ_DIFF_REFERENCE_H_
#define SPSQ_FUZZ_DIFF_REFERENCE_H_

#include <cstdint>
#include <memory>

#include "common/region_template.h"
#include "fuzz/diff_endpoint.h"
#include "fuzz/diff_target.h"

namespace spsq_fuzz {
namespace {

inline std::unique_ptr<DiffTarget> make_reference(const DiffWorld& w, uint64_t max_inflight,
                                                  const char* name) {
  return std::unique_ptr<DiffTarget>(
      make_endpoint_target<spsc_queue::SpscQueueEndpoint<FuzzView, 1>,
                           spsc_queue::SpscQueueEndpoint<FuzzView, 4>>(w, max_inflight, name));
}

}  // namespace
}  // namespace spsq_fuzz

#endif  // SPSQ_FUZZ_DIFF_REFERENCE_H_
