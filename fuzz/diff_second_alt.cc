// The default second differential target: the same reference sources in a
// second build configuration. fuzz/BUILD compiles this file and the wire
// sources with the spsc_queue namespace renamed and another optimization
// level, so the two copies share no code and a divergence points at
// undefined or optimization-dependent behaviour.
#include "fuzz/diff_reference.h"

namespace spsq_fuzz {

std::unique_ptr<DiffTarget> make_second_target(const DiffWorld& world, uint64_t max_inflight) {
  return make_reference(world, max_inflight, "reference (second build configuration)");
}

}  // namespace spsq_fuzz
