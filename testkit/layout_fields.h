// The layout fields the spec says layout() exposes on both sides ("descriptor
// rings, arenas, payload_bytes, and counter_bytes"), plus depth, as the suite
// compares them.
#ifndef SPSQ_CONFORMANCE_HARNESS_LAYOUT_FIELDS_H_
#define SPSQ_CONFORMANCE_HARNESS_LAYOUT_FIELDS_H_

#include <cstdint>

namespace spsq_conf {

struct LayoutFields {
  uint64_t depth;
  uint64_t input_ring;
  uint64_t output_ring;
  uint64_t input_arena;
  uint64_t input_arena_bytes;
  uint64_t output_arena;
  uint64_t output_arena_bytes;
  uint64_t payload_bytes;
  uint64_t counter_bytes;
};

}  // namespace spsq_conf

#endif  // SPSQ_CONFORMANCE_HARNESS_LAYOUT_FIELDS_H_
