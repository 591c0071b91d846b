// The per-step oracles of l3_stream (fuzz/l3_stream_fuzz.cc): what the spec
// demands of an L3 queue after each step, judged from plain observations the
// harness takes through the L3Adapter, the HarnessView's access log and the
// region's counters.
#ifndef SPSQ_FUZZ_L3_STREAM_ORACLES_H_
#define SPSQ_FUZZ_L3_STREAM_ORACLES_H_

#include <cinttypes>
#include <cstdint>
#include <cstring>

#include "model/view_parts.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/oracle_verdict.h"
#include "fuzz/wire_model.h"

namespace spsq_fuzz {

// A step that began with the queue freed or dead.
struct L3QuietStep {
  bool freed = false;     // freed before the step (else dead)
  bool live = false;      // live() after the step
  uint64_t accesses = 0;  // shared accesses (and failed or refused attempts) in the step
  unsigned step = 0;
};

// A dead or freed queue touches nothing, and a dead one stays dead.
SPSQ_ORACLE Verdict l3_quiet_step(const L3QuietStep& o) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, o.freed ? "S1.FREE.1" : "S4.POISON.10,S4.POISON.14", o.accesses == 0,
                    "dead or freed queue made %" PRIu64 " shared accesses in step %u", o.accesses,
                    o.step);
  if (!o.freed) SPSQ_ORACLE_CHECK(v, "S4.POISON.10", !o.live, "a dead queue came back");
  return v;
}

// The queue's error is still the first one it reported (once per run: the
// message is a string to fetch).
SPSQ_ORACLE Verdict l3_first_error_kept(uint32_t first_kind, const char* first, uint32_t kind,
                                        const char* now) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S4.POISON.10", kind == first_kind && std::strcmp(now, first) == 0,
                    "first error replaced: '%s' -> '%s'", first, now);
  return v;
}

// The view's record of the step: contract violations it saw.
SPSQ_ORACLE Verdict l3_view_violations(bool none, const char* first) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S0.REGION.1", none, "the view saw a contract violation: %s", first);
  return v;
}

// One access of the step, against the regions L3 may touch.
struct L3Regions {
  uint64_t input_ring = 0, ring_bytes = 0;  // the output ring follows the input ring
  uint64_t input_arena = 0, input_arena_bytes = 0;
  uint64_t output_arena = 0, output_arena_bytes = 0;
};
struct L3Access {
  enum Kind { kRead, kWrite, kNotify, kOther } kind = kOther;
  uint64_t offset = 0, nbytes = 0;
  uint32_t op = 0;  // notify op
  int32_t value = 0;
};

// What the queue may write and touch: its own ring, arena and signals,
// counters only with Set.
SPSQ_ORACLE Verdict l3_view_access(const L3Access& a, const L3Regions& r) {
  Verdict v;
  using spsq_conf::in_range;
  if (a.kind == L3Access::kWrite) {
    SPSQ_ORACLE_CHECK(v, "S2.ARENA.1,S2.LAYOUT.1",
                      in_range(a.offset, a.nbytes, r.input_ring, r.ring_bytes) ||
                          in_range(a.offset, a.nbytes, r.input_arena, r.input_arena_bytes),
                      "L3 wrote [%" PRIu64 ", +%" PRIu64 "), which only L2 may write", a.offset,
                      a.nbytes);
  } else if (a.kind == L3Access::kRead) {
    SPSQ_ORACLE_CHECK(v, "S2.LAYOUT.1,S2.ARENA.2",
                      in_range(a.offset, a.nbytes, r.input_ring, 2 * r.ring_bytes) ||
                          in_range(a.offset, a.nbytes, r.input_arena, r.input_arena_bytes) ||
                          in_range(a.offset, a.nbytes, r.output_arena, r.output_arena_bytes),
                      "read of [%" PRIu64 ", +%" PRIu64 ") straddles queue regions", a.offset,
                      a.nbytes);
  } else if (a.kind == L3Access::kNotify) {
    SPSQ_ORACLE_CHECK(v, "S3.SIG.2,S3.SIG.5,S3.SIG.6,W.FLAG.3",
                      a.offset == wire::kInputTail || a.offset == wire::kOutputHead ||
                          a.offset == wire::kInitiatorFlag,
                      "L3 wrote counter %" PRIu64 ", which only L2 may write", a.offset);
    SPSQ_ORACLE_CHECK(v, "W.CTR.1", a.op == 0, "counter %" PRIu64 " written with op %u", a.offset,
                      a.op);
    SPSQ_ORACLE_CHECK(v, "W.FLAG.1", a.offset != wire::kInitiatorFlag || a.value == 1,
                      "abort flag set to %d, not 1", a.value);
  }
  return v;
}

// The error of a queue the step poisoned, and what the step did that may
// explain it.
struct L3Poison {
  uint32_t kind = 0;
  uint64_t session = 0, txn = 0;            // the error's identity
  uint64_t want_session = 0, want_txn = 0;  // the RegionInstance's
  const char* message = "";
  int32_t peer_flag = 0;
  bool hostile = false, misuse_step = false, view_failed = false;
};
SPSQ_ORACLE Verdict l3_new_poison(const L3Poison& o) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S1.DIAG.1", o.session == o.want_session && o.txn == o.want_txn,
                    "poison without the RegionInstance identity: %s", o.message);
  SPSQ_ORACLE_CHECK(v, "S1.DIAG.1,S4.POISON.10", o.kind != wire::kKindNone && o.message[0] != '\0',
                    "poison of kind %s without an explanation", wire::kind_name(o.kind));
  if (o.kind == wire::kRemoteAborted) {
    SPSQ_ORACLE_CHECK(v, "S4.POISON.12,W.FLAG.2", o.peer_flag >= 1,
                      "REMOTE_ABORTED with the flag at %d", o.peer_flag);
    return v;
  }
  const bool cause = o.hostile || o.misuse_step || o.view_failed;
  SPSQ_ORACLE_CHECK(v, "S4.POISON.10", cause, "poison (%s) from an honest step: %s",
                    wire::kind_name(o.kind), o.message);
  if (o.view_failed && !o.hostile && !o.misuse_step) {
    // The contract fixes the kind of a view failure.
    SPSQ_ORACLE_CHECK(v, "S4.POISON.7,S4.POISON.8,W.VIEW.2", o.kind == wire::kEndpointError,
                      "a view failure poisoned with kind %s: %s", wire::kind_name(o.kind),
                      o.message);
  }
  // ENDPOINT_ERROR with a healthy view needs a cause like any kind (above):
  // W.VIEW.2 fixes that kind for a view failure during mutation, it does not
  // reserve it for view failures (AMB.KINDS).
  return v;
}

// The initiator abort flag: from the record of notify attempts when the
// queue uses the view, else from its value.
struct L3AbortFlag {
  bool dead = false;
  uint32_t kind = 0;  // the first error's kind when dead
  bool view_failed = false;
  bool counted = true;    // attempts were recorded (the queue uses the view)
  uint64_t attempts = 0;  // every step so far
  int32_t flag = 0;       // the value (not counted)
};

// Raised once, and only for a local poison; a failed view may have
// swallowed the one attempt, or the queue may not try.
SPSQ_ORACLE Verdict l3_abort_flag(const L3AbortFlag& o) {
  Verdict v;
  const bool local = o.dead && o.kind != wire::kRemoteAborted && o.kind != wire::kKindNone;
  const bool lenient = local && o.view_failed;
  if (o.counted) {
    SPSQ_ORACLE_CHECK(v, local ? "S4.POISON.11,W.FLAG.1" : "S4.POISON.13,W.FLAG.1",
                      o.attempts == (local ? 1u : 0u) || (lenient && o.attempts == 0),
                      "initiator abort flag written %" PRIu64 " times with error kind %s",
                      o.attempts, wire::kind_name(o.kind));
  } else {
    SPSQ_ORACLE_CHECK(v, local ? "S4.POISON.11,W.FLAG.1" : "S4.POISON.13,W.FLAG.1",
                      o.flag == (local ? 1 : 0) || (lenient && o.flag == 0),
                      "initiator abort flag at %d with error kind %s", o.flag,
                      wire::kind_name(o.kind));
  }
  return v;
}

// A run in which the harness was honest throughout never fails.
SPSQ_ORACLE Verdict l3_honest_run(bool dead, const char* message) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S0.USE.1,S4.POISON.10", !dead, "honest run failed: %s", message);
  return v;
}

// A queue that does not use the view: its counter slots, while the harness's
// L2 left them alone, hold what was enqueued and released.
struct L3CounterSlots {
  bool dead = false, input_tampered = false, output_tampered = false;
  int32_t input_tail = 0, output_head = 0;
  uint64_t enqueued = 0, released = 0;
};
SPSQ_ORACLE Verdict l3_counter_slots(const L3CounterSlots& o) {
  Verdict v;
  if (!o.dead && !o.input_tampered) {
    SPSQ_ORACLE_CHECK(v, "S3.PUB.1,W.CTR.1", o.input_tail == wire::low32(o.enqueued),
                      "input tail %d, %" PRIu64 " enqueued", o.input_tail, o.enqueued);
  }
  if (!o.dead && !o.output_tampered) {
    SPSQ_ORACLE_CHECK(v, "S3.PUB.5,W.CTR.1", o.output_head == wire::low32(o.released),
                      "output head %d, %" PRIu64 " released", o.output_head, o.released);
  }
  return v;
}

// One successful notify of the input tail.
struct L3TailWrite {
  uint64_t written = 0;  // the tail written before
  int32_t value = 0;
  bool tampered = false;  // the harness's L2 forged the input counters
  uint64_t l2_taken = 0, depth = 1;
};
SPSQ_ORACLE Verdict l3_input_tail_write(const L3TailWrite& o) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S3.CTR.1,W.CTR.1,S3.PUB.1", o.value == wire::low32(o.written + 1),
                    "input tail written %d after %" PRIu64, o.value, o.written);
  SPSQ_ORACLE_CHECK(v, "S2.CAP.1,S1.TRYENQ.1", o.tampered || o.written + 1 <= o.l2_taken + o.depth,
                    "input tail %" PRIu64 " passed L2's head %" PRIu64 " + depth", o.written + 1,
                    o.l2_taken);
  return v;
}

// One successful notify of the output head.
SPSQ_ORACLE Verdict l3_output_head_write(uint64_t written, int32_t value) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S3.CTR.1,W.CTR.1,S3.PUB.5", value == wire::low32(written + 1),
                    "output head written %d after %" PRIu64, value, written);
  return v;
}

// On a live queue at the end of a step: the counters written are what was
// enqueued and released.
struct L3Counters {
  uint64_t tail_written = 0, enqueued = 0, head_written = 0, released = 0;
};
SPSQ_ORACLE Verdict l3_counters_settled(const L3Counters& o) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S3.PUB.1", o.tail_written == o.enqueued,
                    "input tail %" PRIu64 ", %" PRIu64 " enqueued", o.tail_written, o.enqueued);
  SPSQ_ORACLE_CHECK(v, "S3.PUB.5,S1.DEQ.1", o.head_written == o.released,
                    "output head %" PRIu64 ", %" PRIu64 " released", o.head_written, o.released);
  return v;
}

}  // namespace spsq_fuzz

#endif  // SPSQ_FUZZ_L3_STREAM_ORACLES_H_
