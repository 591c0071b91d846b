// Oracles both stream harnesses apply alike (l2_stream to the L2 endpoint,
// l3_stream to the L3 queue): plain observations in, a Verdict out.
#ifndef SPSQ_FUZZ_STREAM_ORACLES_H_
#define SPSQ_FUZZ_STREAM_ORACLES_H_

#include <cinttypes>
#include <cstdint>

#include "fuzz/fuzz_check.h"
#include "fuzz/oracle_verdict.h"

namespace spsq_fuzz {

// A blocking call that gave up on a live side with nothing to do: how long
// it waited on the virtual clock, and whether the view's wait returned false
// before its timeout during the call (half waits).
struct WaitExpiry {
  uint64_t t0 = 0, now = 0, timeout = 0;
  bool cut = false;       // a wait of this call returned early
  bool last_cut = false;  // the call's latest wait was one of them
  // The whole timeout and not a nanosecond more (l3_stream, whose timeouts
  // never reach the clock's end); otherwise at least the timeout, saturated
  // at the clock's end (l2_stream's "forever" waits).
  bool exact = false;
};

// S3.TO.8, with AMB.WAITFALSE's two readings: after an early false wait the
// call may wait again to its deadline (A) or end right there (B).
// A timeout that reaches past the clock's end waits until that end: a
// deadline that wrapped around instead would return at once.
SPSQ_ORACLE Verdict wait_expired(const WaitExpiry& w) {
  Verdict v;
  const uint64_t full = w.timeout <= UINT64_MAX - w.t0 ? w.timeout : UINT64_MAX - w.t0;
  const uint64_t waited = w.now - w.t0;
  if (waited < full && w.cut && w.last_cut) {
    SPSQ_ORACLE_READING(v, "AMB.WAITFALSE", "B",
                        "returned on the view's early false wait, after %" PRIu64 " of %" PRIu64
                        " ns",
                        waited, w.timeout);
    return v;
  }
  SPSQ_ORACLE_CHECK(v, "S3.TO.8", w.exact ? waited == full : waited >= full,
                    "blocking call returned after %" PRIu64 " of %" PRIu64 " ns", waited,
                    w.timeout);
  if (w.cut) {
    SPSQ_ORACLE_READING(v, "AMB.WAITFALSE", "A",
                        "waited again after the view's early false wait, until its deadline "
                        "(%" PRIu64 " ns)",
                        w.timeout);
  }
  return v;
}

}  // namespace spsq_fuzz

#endif  // SPSQ_FUZZ_STREAM_ORACLES_H_
