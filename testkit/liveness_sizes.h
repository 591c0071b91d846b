// The message sizes of the liveness sweeps (W.LIVE.1), shared by the L2 and
// the L3 suites: the edges of a 64-byte cache line and of the arena, each
// once. A duplicate size would only repeat a sequence already judged, and
// every sequence is a queue of its own (through the testee protocol, a
// "create" at least, and a process for a testee that does not declare reuse).
#ifndef SPSQ_TESTKIT_LIVENESS_SIZES_H_
#define SPSQ_TESTKIT_LIVENESS_SIZES_H_

#include <algorithm>
#include <cstdint>
#include <vector>

namespace spsq_conf {

// The distinct sizes, ascending, that fit an arena of `arena` bytes.
inline std::vector<uint64_t> LivenessSizes(uint64_t arena) {
  std::vector<uint64_t> s = {0, 1, 63, 64, 65, arena / 2, arena - 1, arena};
  s.erase(std::remove_if(s.begin(), s.end(), [arena](uint64_t n) { return n > arena; }), s.end());
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  return s;
}

}  // namespace spsq_conf

#endif  // SPSQ_TESTKIT_LIVENESS_SIZES_H_
