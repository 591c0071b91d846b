// Oracles both stream harnesses apply alike (l2_stream to the L2 endpoint,
// l3_stream to the L3 queue): plain observations in, a Verdict out.
#ifndef SPSQ_FUZZ_STREAM_ORACLES_H_
#define SPSQ_FUZZ_STREAM_ORACLES_H_

#include <cinttypes>
#include <cstdint>

#include "testkit/layout_fields.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/oracle_verdict.h"
#include "fuzz/wire_model.h"

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

// The first of n bytes at p that is not pattern_byte(salt, seq, i), or n.
// The caller has validated [p, p + n) against its span.
SPSQ_ORACLE uint64_t first_unlike(const uint8_t* p, uint64_t n, uint64_t salt, uint64_t seq) {
  for (uint64_t i = 0; i < n; ++i) {
    if (p[i] != pattern_byte(salt, seq, i)) return i;
  }
  return n;
}

// The n bytes at `bytes` of message `seq`, which its producer wrote as
// pattern_byte(salt, seq, i); `what` and `at` name the message in the text.
struct MessageBytes {
  const uint8_t* bytes = nullptr;  // validated: inside the message's span
  uint64_t nbytes = 0, salt = 0, seq = 0;
  const char* what = "";
  uint64_t at = 0;
};

// A message the side under test published carries the bytes it was given:
// FIFO delivery (S0.PURPOSE.1) of payload that was visible before the
// descriptor (S3.PUB.2).
SPSQ_ORACLE Verdict published_bytes(const MessageBytes& m) {
  Verdict v;
  const uint64_t i = first_unlike(m.bytes, m.nbytes, m.salt, m.seq);
  SPSQ_ORACLE_CHECK(v, "S0.PURPOSE.1,S3.PUB.2", i == m.nbytes,
                    "%s %" PRIu64 " byte %" PRIu64 " differs from what its producer wrote", m.what,
                    m.at, i);
  return v;
}

// A message the side under test delivered is byte-exact what its producer
// (the harness) sent (S0.PURPOSE.1, S3.PUB.5: the consumer uses the payload
// the descriptor names).
SPSQ_ORACLE Verdict delivered_bytes(const MessageBytes& m) {
  Verdict v;
  const uint64_t i = first_unlike(m.bytes, m.nbytes, m.salt, m.seq);
  SPSQ_ORACLE_CHECK(v, "S0.PURPOSE.1,S3.PUB.5", i == m.nbytes,
                    "%s %" PRIu64 " byte %" PRIu64 " differs from what was sent", m.what, m.at, i);
  return v;
}

// Every field layout() exposes equals the wire layout's.
SPSQ_ORACLE bool same_layout(const spsq_conf::LayoutFields& a, const spsq_conf::LayoutFields& b) {
  return a.depth == b.depth && a.input_ring == b.input_ring && a.output_ring == b.output_ring &&
         a.input_arena == b.input_arena && a.input_arena_bytes == b.input_arena_bytes &&
         a.output_arena == b.output_arena && a.output_arena_bytes == b.output_arena_bytes &&
         a.payload_bytes == b.payload_bytes && a.counter_bytes == b.counter_bytes;
}

}  // namespace spsq_fuzz

#endif  // SPSQ_FUZZ_STREAM_ORACLES_H_
