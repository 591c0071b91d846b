// The first differential target: the reference endpoint, built like the harness.
#include "fuzz/diff_reference.h"

namespace spsq_fuzz {

std::unique_ptr<DiffTarget> make_first_target(const DiffWorld& world, uint64_t max_inflight) {
  return make_reference(world, max_inflight, "reference");
}

}  // namespace spsq_fuzz
