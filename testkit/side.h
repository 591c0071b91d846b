// Which side of the queue a piece of the harness stands for: the L2 endpoint
// (device, AICPU) or the L3 queue (host). One definition for the suite's
// invariants (which signals, ring and arena a side owns) and the non-coherent
// memory model (whose private cache a load or store hits).
#ifndef SPSQ_CONFORMANCE_HARNESS_SIDE_H_
#define SPSQ_CONFORMANCE_HARNESS_SIDE_H_

namespace spsq_conf {

enum class Side : int { kL2 = 0, kL3 = 1 };

inline const char* side_name(Side side) {
  switch (side) {
    case Side::kL2: return "L2";
    case Side::kL3: return "L3";
  }
  return "?";
}

}  // namespace spsq_conf

#endif  // SPSQ_CONFORMANCE_HARNESS_SIDE_H_
