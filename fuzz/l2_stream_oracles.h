// The per-step oracles of l2_stream (fuzz/l2_stream_fuzz.cc): what the spec
// demands of an L2 endpoint after each step, judged from plain observations
// the harness takes through EndpointAccess and FuzzView. Endpoint-free, so
// one build serves every certification's harness and the unit tests.
#ifndef SPSQ_FUZZ_L2_STREAM_ORACLES_H_
#define SPSQ_FUZZ_L2_STREAM_ORACLES_H_

#include <cinttypes>
#include <cstdint>

#include "fuzz/fuzz_check.h"
#include "fuzz/oracle_verdict.h"
#include "fuzz/wire_model.h"

namespace spsq_fuzz {

// A step that began with the endpoint poisoned.
struct L2DeadStep {
  bool live = false;            // live() after the step
  bool error_unchanged = true;  // kind, op, identity and message as at the first dead step
  bool wrote = false;           // a payload write or notify in the step
  const char* step = "";        // the step's name
  const char* first = "";       // the first error's message
  const char* now = "";         // the message now
};

// A dead endpoint stays dead with the same error and writes nothing.
SPSQ_ORACLE Verdict l2_dead_step(const L2DeadStep& o) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S4.POISON.14", !o.live, "a dead endpoint came back to life");
  SPSQ_ORACLE_CHECK(v, "S4.POISON.14,W.ERR.1", o.error_unchanged,
                    "first error replaced: '%s' -> '%s'", o.first, o.now);
  SPSQ_ORACLE_CHECK(v, "S4.POISON.14,S4.POISON.15", !o.wrote,
                    "dead endpoint wrote shared memory in step %s", o.step);
  return v;
}

// The error kind after a step (construction succeeded).
struct L2ErrorState {
  bool live = true;
  uint32_t kind = 0;
  bool soft_ok = false;      // a live non-NONE kind is one a reading allows
  bool view_failed = false;  // the view has failed for good
  bool call_step = false;    // the step called the endpoint
  const char* step = "";
  const char* message = "";
};
SPSQ_ORACLE Verdict l2_error_state(const L2ErrorState& o) {
  Verdict v;
  if (!o.live) {
    SPSQ_ORACLE_CHECK(v, "S3.TO.5,W.ERR.1", o.kind != wire::kKindNone,
                      "a poisoned endpoint reports kind NONE");
  } else if (o.kind != wire::kKindNone) {
    // Live with a kind: a refusal some reading allows (AMB.WINDOW B,
    // AMB.RESERVE A, AMB.READFAIL B), cleared by the next call.
    SPSQ_ORACLE_CHECK(v, "S3.TO.5", o.soft_ok || (o.view_failed && o.call_step),
                      "live with error kind %u after %s: %s", o.kind, o.step, o.message);
  }
  return v;
}

// The error of an endpoint the step poisoned, and what the step did that
// may explain it.
struct L2Poison {
  uint32_t kind = 0, op = 0;
  uint64_t session = 0, txn = 0;            // the error's identity
  uint64_t want_session = 0, want_txn = 0;  // the RegionInstance's
  const char* message = "";
  uint32_t call_op = 0;  // INPUT_RELEASE / OUTPUT_PUBLISH when the step made that call
  bool view_failed = false, misuse_step = false, hostile = false;
  int32_t initiator_flag = 0;
};

// A new error must be one the step can explain.
SPSQ_ORACLE Verdict l2_new_poison(const L2Poison& o) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S1.DIAG.1,W.ERR.2", o.session == o.want_session && o.txn == o.want_txn,
                    "poison without the RegionInstance identity");
  SPSQ_ORACLE_CHECK(v, "W.ERR.1", o.message[0] != '\0', "poison without a message");
  SPSQ_ORACLE_CHECK(v, "W.ENUM.3", o.op >= wire::kOpTimeout && o.op <= wire::kOpOutputPublish,
                    "poison recorded op %u", o.op);
  // A release or publish that poisons records its own operation (the op of
  // a remote abort is open: AMB.TIMEOUTOP).
  SPSQ_ORACLE_CHECK(
      v, o.call_op == wire::kOpInputRelease ? "W.ENUM.3,S4.POISON.9" : "W.ENUM.3,S4.L2OUT.3",
      o.call_op == 0 || o.kind == wire::kRemoteAborted || o.op == o.call_op,
      "poison in %s recorded op %u", o.call_op == wire::kOpInputRelease ? "release" : "publish",
      o.op);
  switch (o.kind) {
    case wire::kEndpointError:
      // W.VIEW.2 fixes this kind for a view failure during mutation; it does
      // not reserve it for view failures, and no document fixes the kind of
      // a misuse or a hostile peer's fault (AMB.KINDS). With a healthy view
      // it needs a cause, as the kinds below.
      SPSQ_ORACLE_CHECK(v, "S4.NOPROG.1,S3.TO.6", o.view_failed || o.misuse_step || o.hostile,
                        "ENDPOINT_ERROR with a healthy view and no cause: %s", o.message);
      break;
    case wire::kRemoteAborted:
      SPSQ_ORACLE_CHECK(v, "S4.POISON.12,W.FLAG.2", o.initiator_flag >= 1,
                        "REMOTE_ABORTED with the initiator flag at %d", o.initiator_flag);
      break;
    case wire::kInvalidDescriptor:
      SPSQ_ORACLE_CHECK(v, "S2.ERROR.1,S4.NOPROG.1,S4.POISON.1", o.hostile || o.misuse_step,
                        "INVALID_DESCRIPTOR from an honest L3: %s", o.message);
      break;
    case wire::kOwnership:
    case wire::kBadArgument:
    case wire::kBadBinding:
      // AMB.KINDS: the kind of a misuse or of a hostile peer's fault is open.
      SPSQ_ORACLE_CHECK(v, "S4.NOPROG.1,S3.TO.6", o.misuse_step || o.hostile || o.view_failed,
                        "kind %u without misuse: %s", o.kind, o.message);
      break;
    default:
      SPSQ_ORACLE_CHECK(v, "W.ENUM.2", false, "poison of kind %u: %s", o.kind, o.message);
  }
  return v;
}

// The writes of the endpoint's own abort flag, every step so far.
struct L2AbortFlag {
  bool live = true;
  uint32_t kind = 0;
  bool view_failed = false;
  uint64_t writes = 0;
};

// Raised exactly once, and only for local poison (a view that failed for
// good cannot carry it: trying is allowed, not required).
SPSQ_ORACLE Verdict l2_abort_flag(const L2AbortFlag& o) {
  Verdict v;
  const bool local = o.kind != wire::kKindNone && o.kind != wire::kRemoteAborted;
  const uint64_t want = !o.live && local ? 1 : 0;
  const bool optional = want && o.kind == wire::kEndpointError && o.view_failed;
  SPSQ_ORACLE_CHECK(v, want ? "S4.POISON.11,W.FLAG.1" : "S4.POISON.13,S4.NOPROG.5",
                    o.writes == want || (optional && o.writes == 0),
                    "abort flag written %" PRIu64 " times with error kind %u", o.writes, o.kind);
  return v;
}

// A run in which the harness was honest throughout (no hostile edit,
// misuse or view fault) never poisons.
SPSQ_ORACLE Verdict l2_honest_run(bool live, const char* message) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S4.NOPROG.1,S4.NOPROG.2,S4.NOPROG.4,S3.TO.6,LIVE.2", live,
                    "honest run poisoned: %s", message);
  return v;
}

// drained() on a live endpoint: true exactly when STOP was acquired and
// the head has moved past it.
SPSQ_ORACLE Verdict l2_drained(bool drained, bool stop_released) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S4.STOP.10", drained == stop_released, "drained() is %d", drained);
  return v;
}

// One successful notify of the input head: *head is the count it stands for.
struct L2HeadWrite {
  uint64_t written = 0;  // the head written before
  int32_t value = 0;
  uint64_t depth = 1, acquired = 0;
};

// The head moves forward, never past what was acquired.
SPSQ_ORACLE Verdict l2_input_head_write(const L2HeadWrite& o, uint64_t* head) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S4.L2IN.5,W.CTR.1,S3.CTR.1",
                    wire::reconstruct(o.written, o.value, o.depth, head) && *head > o.written,
                    "input head written %d after %" PRIu64, o.value, o.written);
  SPSQ_ORACLE_CHECK(v, "S4.L2IN.5,S4.L2IN.6,S4.STOP.9", *head <= o.acquired,
                    "input head %" PRIu64 " passed the %" PRIu64 " messages acquired", *head,
                    o.acquired);
  return v;
}

// One successful notify of the output tail.
struct L2TailWrite {
  uint64_t written = 0;  // the tail written before
  int32_t value = 0;
  bool tampered = false;  // the harness's L3 forged the output counters
  uint64_t l3_consumed = 0, depth = 1;
};

// The tail moves one step per publish, never past L3's head + depth.
SPSQ_ORACLE Verdict l2_output_tail_write(const L2TailWrite& o) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S3.PUB.1,W.CTR.1", o.value == wire::low32(o.written + 1),
                    "output tail written %d after %" PRIu64, o.value, o.written);
  SPSQ_ORACLE_CHECK(
      v, "S2.CAP.1,S4.NOPROG.1", o.tampered || o.written + 1 <= o.l3_consumed + o.depth,
      "output tail %" PRIu64 " passed L3's head %" PRIu64 " + depth", o.written + 1, o.l3_consumed);
  return v;
}

// On a live endpoint at the end of a step: the head written is the completed
// FIFO prefix, the tail written is what was published.
struct L2Counters {
  uint64_t head_written = 0, phys_head = 0, tail_written = 0, published = 0;
};
SPSQ_ORACLE Verdict l2_counters_settled(const L2Counters& o) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S4.L2IN.5,S4.L2IN.6,S4.STOP.9", o.head_written == o.phys_head,
                    "input head %" PRIu64 ", the completed FIFO prefix %" PRIu64, o.head_written,
                    o.phys_head);
  SPSQ_ORACLE_CHECK(v, "S3.PUB.1,S4.L2OUT.2", o.tail_written == o.published,
                    "output tail %" PRIu64 ", %" PRIu64 " published", o.tail_written, o.published);
  return v;
}

}  // namespace spsq_fuzz

#endif  // SPSQ_FUZZ_L2_STREAM_ORACLES_H_
