// The oracles of l2_stream (fuzz/l2_stream_fuzz.cc): what the spec demands of
// an L2 endpoint, of each call's answer and after each step, judged from plain
// observations the harness takes through EndpointAccess and FuzzView.
// Endpoint-free, so one build serves every certification's harness and the
// unit tests. The harness keeps the model (what the endpoint may answer);
// the oracles say which answers pass and which clauses the others break.
#ifndef SPSQ_FUZZ_L2_STREAM_ORACLES_H_
#define SPSQ_FUZZ_L2_STREAM_ORACLES_H_

#include <cinttypes>
#include <cstdint>

#include "testkit/layout_fields.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/fuzz_view.h"
#include "fuzz/l2_stream_input.h"
#include "fuzz/oracle_verdict.h"
#include "fuzz/stream_oracles.h"
#include "fuzz/wire_model.h"

namespace spsq_fuzz {

// ------------------------------------------------------------ construction

// The endpoint's own decoder takes the binding L3 hands over.
SPSQ_ORACLE Verdict l2_binding_decoded(bool decoded) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S1.BIND.ORDER,W.BIND.1", decoded,
                    "decode_endpoint_binding rejected a valid binding");
  return v;
}

// The endpoint just constructed, and what it was constructed from.
struct L2Construction {
  uint64_t flag_writes = 0;  // abort flag writes during construction
  int binding_fault = -1;    // -1: a valid binding, clock and view
  uint64_t window = 1, depth = 1;
  bool live = false;
  uint32_t kind = 0, op = 0;
  uint64_t session = 0, txn = 0;            // the error's identity
  uint64_t want_session = 0, want_txn = 0;  // the binding's
  const char* message = "";
  spsq_conf::LayoutFields layout{};  // layout(), taken while live
  spsq_conf::LayoutFields want{};    // the wire layout of the binding
};

// A valid construction is live with the contract's layout; a bad binding or
// window is a construction error that raised no flag.
SPSQ_ORACLE Verdict l2_construction(const L2Construction& o) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S1.WIN.8,S1.WIN.9,W.FLAG.1", o.flag_writes == 0,
                    "construction raised the abort flag");
  const bool bad_binding = o.binding_fault >= 0;
  const bool bad_window = o.window > o.depth;
  if (!bad_binding && !bad_window) {
    SPSQ_ORACLE_CHECK(v, "S1.L2DECODE.5,S1.WIN.7,S2.BINDSIZE.1",
                      o.live && o.kind == wire::kKindNone, "valid construction failed: %s",
                      o.message);
    SPSQ_ORACLE_CHECK(v, "S2.LAYOUT.2,W.LAYOUT.1", same_layout(o.layout, o.want),
                      "layout() differs from the contract");
    return v;
  }
  SPSQ_ORACLE_CHECK(v, bad_binding ? "S2.BINDSIZE.1,S2.BINDSIZE.2,W.BIND.1" : "S1.WIN.7", !o.live,
                    "construction with a bad %s is live", bad_binding ? "binding" : "MaxInflight");
  SPSQ_ORACLE_CHECK(v, "W.ENUM.3,W.ERR.1", o.op == wire::kOpInit, "construction error op %u",
                    o.op);
  // A window wider than depth is BAD_ARGUMENT (S1.WIN.8). No document fixes
  // the kind of a broken binding, clock or view, beyond a construction
  // error: any of the three construction kinds is accepted there.
  if (!bad_binding) {
    SPSQ_ORACLE_CHECK(v, "S1.WIN.8", o.kind == wire::kBadArgument,
                      "MaxInflight %" PRIu64 " > depth %" PRIu64 " gave kind %u: %s", o.window,
                      o.depth, o.kind, o.message);
  } else {
    SPSQ_ORACLE_CHECK(v, "W.ERR.1,W.ENUM.2",
                      o.kind == wire::kBadBinding || o.kind == wire::kBadArgument ||
                          o.kind == wire::kEndpointError,
                      "construction fault %d (window %d) gave kind %u: %s", o.binding_fault,
                      bad_window, o.kind, o.message);
  }
  // Identity only once magic and transaction id were accepted (faults 1 and
  // 2 break them); after that an endpoint may report it or not.
  const bool rejected = o.binding_fault == 1 || o.binding_fault == 2;
  const bool none = o.session == 0 && o.txn == 0;
  const bool ours = o.session == o.want_session && o.txn == o.want_txn;
  SPSQ_ORACLE_CHECK(v, "W.ERR.2,S1.DIAG.1", rejected ? none : (none || ours),
                    "identity (%" PRIx64 ", %" PRIu64 ") on construction fault %d", o.session,
                    o.txn, o.binding_fault);
  SPSQ_ORACLE_CHECK(v, "W.ERR.1", o.message[0] != '\0', "construction error without a message");
  return v;
}

// ------------------------------------------------------------ the harness's L3

// The input head as the harness's honest L3 reads it before enqueueing.
struct L2HeadRead {
  bool possible = true;  // it reconstructs, to no more than was published
  bool tampered = false;  // the harness's L3 forged the input counters
  int32_t word = 0;
  uint64_t known = 0, published = 0;
};
SPSQ_ORACLE Verdict l2_input_head_read(const L2HeadRead& o) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S3.CTR.1,S4.L2IN.5,W.CTR.1", o.possible || o.tampered,
                    "L2's input head %d is impossible (known %" PRIu64 ", published %" PRIu64 ")",
                    o.word, o.known, o.published);
  return v;
}

// The output tail as the harness's honest L3 reads it before consuming.
struct L2TailRead {
  bool possible = true;  // it reconstructs
  int32_t word = 0;
  uint64_t known = 0, tail = 0, consumed = 0, depth = 1;
};
SPSQ_ORACLE Verdict l2_output_tail_read(const L2TailRead& o) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S3.CTR.1,W.CTR.1", o.possible,
                    "L2's output tail %d is impossible (known %" PRIu64 ")", o.word, o.known);
  SPSQ_ORACLE_CHECK(v, "S2.CAP.1,S4.NOPROG.1", o.tail - o.consumed <= o.depth,
                    "L2 published %" PRIu64 " outputs past L3's head %" PRIu64 " (depth %" PRIu64
                    ")",
                    o.tail, o.consumed, o.depth);
  return v;
}

// Output message k as the harness's L3 takes it (its area untampered).
struct L2OutputMessage {
  uint64_t k = 0;
  bool published = false;  // L2 published k (a publish the harness saw succeed)
  wire::Descriptor d{};    // ring slot k
  ModelDirection dir{};    // the output direction
  uint64_t cursor = 0;     // L3's output cursor
  uint64_t opcode = 0, offset = 0, nbytes = 0;  // what L2 published as k
  const uint8_t* payload = nullptr;             // the payload part
  uint64_t salt = 0;                            // L2's pattern salt
};

// The descriptor obeys the contract and is the message L2 published, with
// its bytes. *next: L3's cursor after it.
SPSQ_ORACLE Verdict l2_output_message(const L2OutputMessage& o, uint64_t* next) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S3.PUB.1", o.published, "output %" PRIu64 " appeared without a publish",
                    o.k);
  SPSQ_ORACLE_CHECK(v, "W.SEQ.1,W.DESC.1,W.ARENA.1,W.DIR.1,S2.ZERO.1",
                    desc_valid(o.dir, o.d, o.k, o.cursor, next),
                    "L2 published an invalid descriptor at output %" PRIu64 ": seq %" PRIu64
                    " op %" PRIu64 " off %" PRIu64 " n %" PRIu64,
                    o.k, o.d.seq, o.d.opcode, o.d.offset, o.d.nbytes);
  SPSQ_ORACLE_CHECK(v, "S0.PURPOSE.1,S4.L2OUT.2",
                    o.d.opcode == o.opcode && o.d.offset == o.offset && o.d.nbytes == o.nbytes,
                    "output %" PRIu64 " is not the message L2 published", o.k);
  // Read only now: the descriptor was found inside the output arena.
  MessageBytes m;
  m.bytes = o.payload + o.d.offset;
  m.nbytes = o.d.nbytes;
  m.salt = o.salt;
  m.seq = o.k + 1;
  m.what = "output";
  m.at = o.k;
  return published_bytes(m);
}

// ------------------------------------------------------------ L2 input

// The answers a call may legally give (bits), as the harness's model
// predicts them: progress, ordinary no-progress (live, kind NONE), a refusal
// with a non-poison kind (live), poison that names the descriptor
// (INVALID_DESCRIPTOR), poison of any local kind (misuse, or a fault whose
// kind no document fixes: AMB.KINDS), and REMOTE_ABORTED with the initiator
// flag raised (AMB.TRYABORT B).
namespace l2_answers {
constexpr uint32_t kProgress = 1u << 0;
constexpr uint32_t kNothing = 1u << 1;
constexpr uint32_t kSoft = 1u << 2;
constexpr uint32_t kPoisonDesc = 1u << 3;
constexpr uint32_t kPoisonLocal = 1u << 4;
constexpr uint32_t kRemoteAbort = 1u << 5;
}  // namespace l2_answers

// The next input L2 would acquire, for the clauses an endpoint breaks by
// taking it (or by not poisoning on it).
struct L2NextInput {
  bool stop_acquired = false;
  uint64_t acquired = 0, published = 0;
  wire::Descriptor d{};  // ring slot `acquired`: read when STOP is not acquired and one is published
  ModelDirection dir{};  // the input direction
  uint64_t cursor = 0;   // L2's input cursor
};

// Those clauses, in desc_valid's order.
SPSQ_ORACLE const char* l2_next_input_clauses(const L2NextInput& o) {
  if (o.stop_acquired) return "S4.STOP.7,S4.STOP.11";
  if (o.acquired == o.published) return "S4.NOPROG.1,W.CTR.2";
  const wire::Descriptor& d = o.d;
  if (d.seq != o.acquired + 1) return "W.SEQ.1,S4.POISON.1";
  if (!o.dir.carries(d.opcode)) return "W.DIR.1,S4.POISON.2";
  if (d.nbytes == 0) return d.offset == 0 ? "S4.L2IN.2,S4.L2IN.4,S1.WIN.1,S1.WIN.2" : "S2.ZERO.2";
  if (d.opcode == wire::kStop) return "W.STOP.1,S4.STOP.1";
  if (d.nbytes > o.dir.arena_bytes) return "S2.FIT.1,S4.POISON.6";
  uint64_t next = 0;
  if (!desc_valid(o.dir, d, o.acquired, o.cursor, &next)) return "W.ARENA.3,S4.POISON.6";
  return "S4.L2IN.2,S4.L2IN.4,S1.WIN.1,S1.WIN.2";
}

// try_peek acquired: the model allowed progress (where it predicts).
SPSQ_ORACLE Verdict l2_peek_acquired(bool predicted, uint32_t answers, const L2NextInput& next) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, l2_next_input_clauses(next),
                    !predicted || (answers & l2_answers::kProgress),
                    "try_peek acquired, the model allows answers %#x", answers);
  return v;
}

// A predicted call that returned false, and the endpoint after it.
struct L2Refusal {
  uint32_t answers = 0;  // what the model allows
  const char* call = "";
  L2NextInput next{};
  bool live = true;
  uint32_t kind = 0;
  const char* message = "";
};

// The refusal is one of the legal answers.
SPSQ_ORACLE Verdict l2_refusal(const L2Refusal& o) {
  using namespace l2_answers;
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S4.NOPROG.1,S3.TO.4,LIVE.2", o.answers != kProgress,
                    "%s refused message %" PRIu64 " the model says is available: %s", o.call,
                    o.next.acquired + 1, o.message);
  if (o.live) {
    if (o.kind == wire::kKindNone) {
      SPSQ_ORACLE_CHECK(v, l2_next_input_clauses(o.next), o.answers & kNothing,
                        "%s: a bad descriptor did not poison (answers %#x)", o.call, o.answers);
    } else {
      SPSQ_ORACLE_CHECK(v, "S3.TO.5", o.answers & kSoft, "%s stayed live with error kind %u: %s",
                        o.call, o.kind, o.message);
    }
    return v;
  }
  bool legal = false;
  if (o.kind == wire::kInvalidDescriptor)
    legal = o.answers & (kPoisonDesc | kPoisonLocal);
  else if (o.kind == wire::kRemoteAborted)
    legal = o.answers & kRemoteAbort;
  else
    legal = o.answers & kPoisonLocal;
  SPSQ_ORACLE_CHECK(v,
                    (o.answers & kPoisonDesc) ? "S4.POISON.1,S4.STOP.11,W.SEQ.1,W.ARENA.3"
                                              : "S4.NOPROG.1,AMB.EMPTYIN,S3.TO.6",
                    legal, "%s poisoned with kind %u (answers %#x): %s", o.call, o.kind, o.answers,
                    o.message);
  return v;
}

// A dead endpoint rejects every normal operation.
SPSQ_ORACLE Verdict l2_dead_refuses(bool live_before, bool ok, const char* call) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S4.POISON.14", live_before || !ok, "%s succeeded on a poisoned endpoint",
                    call);
  return v;
}

// A blocking call with timeout 0 on a live endpoint.
struct L2NoAttempt {
  bool ok = false;
  bool touched = false;  // a shared access during the call
  uint64_t t0 = 0, now = 0;
  bool live = true;
  const char* message = "";
};

// A live no-attempt: false at once, nothing touched, still live.
SPSQ_ORACLE Verdict l2_no_attempt(const L2NoAttempt& o) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S3.TO.1,S3.TO.2", !o.ok, "a zero timeout made progress");
  SPSQ_ORACLE_CHECK(v, "S3.TO.1,S3.TO.3", !o.touched, "a zero timeout touched shared memory");
  SPSQ_ORACLE_CHECK(v, "S3.TO.1", o.now == o.t0, "a zero timeout waited");
  SPSQ_ORACLE_CHECK(v, "S3.TO.1,S3.TO.2", o.live, "a zero timeout poisoned: %s", o.message);
  return v;
}

// n bytes to reserve, and the output side as the model keeps it.
struct L2Room {
  uint64_t n = 0;
  uint64_t cursor = 0, released_cursor = 0;  // L2's output cursor, and the one L3 released to
  uint64_t arena = 0, arena_bytes = 0;
  uint64_t published = 0, consumed = 0, depth = 1;
};

// What refusing a reservation the model has room for breaks: on an idle
// arena, where only the literal room bound refuses it (AMB.ROOM B), the
// liveness clauses; one short of depth, capacity; else the room rule.
SPSQ_ORACLE const char* l2_refusal_clauses(const L2Room& r) {
  const Placement p = place(r.cursor, r.n, r.arena, r.arena_bytes);
  if (r.n != 0 && p.next - r.released_cursor > r.arena_bytes) return "LIVE.1,W.LIVE.1,W.LIVE.3";
  if (r.published - r.consumed == r.depth - 1) return "S2.CAP.1";
  return "W.ARENA.2,LIVE.1";
}

// A blocking call that returned false on a live endpoint with kind NONE.
struct L2Expired {
  bool reserve = false;    // reserve(n) (else peek)
  bool available = false;  // the model has work for the call now
  L2Room room{};           // reserve's
  WaitExpiry wait{};
  int32_t initiator_flag = 0;
};

// Nothing to do, the deadline passed (wait_expired, with AMB.WAITFALSE's
// readings) and the peer's abort flag is down.
SPSQ_ORACLE Verdict l2_expired(const L2Expired& o) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, o.reserve ? l2_refusal_clauses(o.room) : "S3.TO.4,S3.TO.8", !o.available,
                    "blocking call gave up with work available");
  v = wait_expired(o.wait);
  if (v.failed()) return v;
  SPSQ_ORACLE_CHECK(v, "S3.TO.7", o.initiator_flag < 1,
                    "timeout expired with the initiator abort flag at %d and no REMOTE_ABORTED",
                    o.initiator_flag);
  return v;
}

// An input handle just acquired, and the model's input side before it.
struct L2Handle {
  uint64_t seq = 0, opcode = 0, nbytes = 0, offset = 0;  // offset in the payload part
  const uint8_t* bytes = nullptr;                         // its payload
  bool stop_acquired = false;
  uint64_t acquired = 0;
  uint64_t held_data = 0, window = 1;  // DATA handles held, MaxInflight
  ModelDirection dir{};                // the input direction
  uint64_t cursor = 0;                 // L2's input cursor
  // The harness's L3 sent message `acquired` honestly and left its ring
  // and counters alone: the handle must be that message ...
  bool sent_known = false;
  uint64_t sent_opcode = 0, sent_offset = 0, sent_nbytes = 0;
  bool bytes_known = false;  // ... and its bytes, unless the arena was scribbled
  uint64_t salt = 0;         // L3's pattern salt
};

// The handle is the next message, within the window, obeying the arena rule
// inside the input arena (an input ERROR is judged as the DATA it is
// delivered like: OPEN.ERRIN A), and what L3 sent. *next: the cursor after it.
SPSQ_ORACLE Verdict l2_handle(const L2Handle& o, uint64_t* next) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S4.STOP.7,S4.STOP.11", !o.stop_acquired,
                    "acquired seq %" PRIu64 " after STOP", o.seq);
  SPSQ_ORACLE_CHECK(v, "W.SEQ.1,S0.PURPOSE.1,S2.SEQ.1", o.seq == o.acquired + 1,
                    "acquired seq %" PRIu64 ", want %" PRIu64, o.seq, o.acquired + 1);
  SPSQ_ORACLE_CHECK(v, "W.DIR.1,S2.OPC.1,S4.POISON.2",
                    o.opcode == wire::kData || o.opcode == wire::kStop || o.opcode == wire::kError,
                    "acquired opcode %" PRIu64, o.opcode);
  SPSQ_ORACLE_CHECK(v, "S4.L2IN.2,S4.L2IN.4,S1.WIN.1,S1.WIN.2",
                    o.opcode == wire::kStop || o.held_data < o.window,
                    "acquired a message with %" PRIu64 " DATA handles held (window %" PRIu64 ")",
                    o.held_data, o.window);
  const wire::Descriptor d{o.seq, o.opcode == wire::kError ? wire::kData : o.opcode, o.offset,
                           o.nbytes};
  SPSQ_ORACLE_CHECK(v, "W.ARENA.1,W.ARENA.3,S2.ZERO.1,W.STOP.1,S4.STOP.1,S2.OFF.1",
                    desc_valid(o.dir, d, o.acquired, o.cursor, next),
                    "handle seq %" PRIu64 " breaks the contract: op %" PRIu64 " [%" PRIu64
                    ", +%" PRIu64 ")",
                    o.seq, o.opcode, o.offset, o.nbytes);
  if (!o.sent_known) return v;
  SPSQ_ORACLE_CHECK(v, "S0.PURPOSE.1,S3.PUB.5",
                    o.opcode == o.sent_opcode && o.offset == o.sent_offset &&
                        o.nbytes == o.sent_nbytes,
                    "handle seq %" PRIu64 " is not the message L3 sent", o.seq);
  if (!o.bytes_known) return v;
  MessageBytes m;
  m.bytes = o.bytes;
  m.nbytes = o.nbytes;
  m.salt = o.salt;
  m.seq = o.seq;
  m.what = "handle seq";
  m.at = o.seq;
  return delivered_bytes(m);
}

// release() of a held handle returned false: only a failed view excuses it.
SPSQ_ORACLE Verdict l2_release_refused(bool view_failed, uint64_t seq, const char* message) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S4.L2IN.5,S4.OWN.1", view_failed,
                    "release of held seq %" PRIu64 " failed: %s", seq, message);
  return v;
}

// ------------------------------------------------------------ L2 output

// try_reserve(n) where the model predicts it, and the endpoint after it.
struct L2TryReserve {
  bool ok = false;
  bool room = false;  // the model's room for n
  L2Room at{};
  bool live = true;
  uint32_t kind = 0;
  int32_t initiator_flag = 0;
  const char* message = "";
};

// Reserved exactly when the model has room; a refusal is ordinary
// no-progress, or REMOTE_ABORTED once the peer raised its flag.
SPSQ_ORACLE Verdict l2_try_reserve(const L2TryReserve& o) {
  Verdict v;
  if (o.ok) {
    const bool ring_full = o.at.published - o.at.consumed >= o.at.depth;
    SPSQ_ORACLE_CHECK(v, ring_full ? "S2.CAP.1,S4.NOPROG.1" : "W.ARENA.2,S4.NOPROG.2", o.room,
                      "try_reserve(%" PRIu64 ") succeeded without room", o.at.n);
    return v;
  }
  SPSQ_ORACLE_CHECK(v, l2_refusal_clauses(o.at), !o.room,
                    "try_reserve(%" PRIu64 ") refused, the model has room: %s", o.at.n, o.message);
  if (!o.live) {
    SPSQ_ORACLE_CHECK(v, "S4.NOPROG.1,S4.NOPROG.2,S3.TO.6",
                      o.kind == wire::kRemoteAborted && o.initiator_flag >= 1,
                      "try_reserve(%" PRIu64 ") poisoned: %s", o.at.n, o.message);
  } else {
    SPSQ_ORACLE_CHECK(v, "S3.TO.5,S4.NOPROG.2", o.kind == wire::kKindNone,
                      "try_reserve(%" PRIu64 ") refused with error kind %u: %s", o.at.n, o.kind,
                      o.message);
  }
  return v;
}

// A reservation of n bytes the endpoint granted.
struct L2Reservation {
  uint64_t n = 0, arena_bytes = 0;  // asked for; the output arena's size
  uint64_t nbytes = 0, offset = 0;  // the span granted (offset in the payload part)
  uint64_t placed = 0;              // where the arena rule puts n bytes
};
SPSQ_ORACLE Verdict l2_reservation(const L2Reservation& o) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S2.FIT.1,W.ARENA.2", o.n <= o.arena_bytes,
                    "reserved %" PRIu64 " bytes of a %" PRIu64 "-byte arena", o.n, o.arena_bytes);
  SPSQ_ORACLE_CHECK(v, "W.ARENA.1,W.ARENA.4,S2.WRAP.1,S2.ZERO.1",
                    o.nbytes == o.n && o.offset == o.placed,
                    "reservation [%" PRIu64 ", +%" PRIu64 "), the arena rule says [%" PRIu64
                    ", +%" PRIu64 ")",
                    o.offset, o.nbytes, o.placed, o.n);
  return v;
}

// publish() of the active reservation returned false: only a failed view
// excuses it.
SPSQ_ORACLE Verdict l2_publish_refused(bool view_failed, const char* message) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S4.L2OUT.2", view_failed, "publish of the active reservation failed: %s",
                    message);
  return v;
}

// A publish that succeeded: the descriptor in its slot and the payload.
struct L2Published {
  wire::Descriptor d{};                                      // the slot after the call
  uint64_t seq = 0, opcode = 0, offset = 0, nbytes = 0;     // what was published
  const uint8_t* payload = nullptr;                          // the payload part
  uint64_t salt = 0;                                         // the pattern L2 code filled
};
SPSQ_ORACLE Verdict l2_published(const L2Published& o) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S4.L2OUT.2,W.DESC.1,S2.DESC.1,W.SEQ.1",
                    o.d.seq == o.seq && o.d.opcode == o.opcode && o.d.offset == o.offset &&
                        o.d.nbytes == o.nbytes,
                    "published descriptor differs from the reservation");
  // The reservation's span, validated when it was granted.
  const uint64_t i = first_unlike(o.payload + o.offset, o.nbytes, o.salt, o.seq);
  SPSQ_ORACLE_CHECK(v, "S3.PUB.2,S0.PURPOSE.1", i == o.nbytes,
                    "published payload byte %" PRIu64 " differs", i);
  return v;
}

// The order of a publish's writes in the step's access log (`logged`
// entries, of which the view kept `capacity`): payload, then descriptor
// bytes 8..31, then seq, then the tail counter.
SPSQ_ORACLE Verdict l2_publish_order(const Access* log, int logged, int capacity, uint64_t slot) {
  Verdict v;
  if (logged > capacity) return v;  // too long to judge the order
  int last_payload = -1, first_desc = logged, last_body = -1, first_seq = logged, last_seq = -1,
      tail = -1, last_write = -1;
  for (int i = 0; i < logged; ++i) {
    const Access& a = log[i];
    if (a.kind == AccessKind::NOTIFY && a.offset == wire::kOutputTail) tail = i;
    if (a.kind != AccessKind::WRITE) continue;
    last_write = i;
    const uint64_t lo = a.offset, hi = a.offset + a.nbytes;
    const bool touches_seq = lo < slot + 8 && hi > slot;
    const bool touches_body = lo < slot + 32 && hi > slot + 8;
    if (touches_seq || touches_body) {
      SPSQ_ORACLE_CHECK(v, "W.ORDER.1,S3.PUB.1", !(touches_seq && touches_body),
                        "seq written together with the body");
      if (first_desc == logged) first_desc = i;
      if (touches_body) last_body = i;
      if (touches_seq) {
        if (first_seq == logged) first_seq = i;
        last_seq = i;
      }
    } else {
      last_payload = i;
    }
  }
  SPSQ_ORACLE_CHECK(v, "S3.PUB.1,S3.PUB.2,S3.PUB.3", last_payload < first_desc,
                    "payload written after the descriptor");
  SPSQ_ORACLE_CHECK(v, "W.ORDER.1,S3.PUB.1", last_seq >= 0 && last_body < first_seq,
                    "seq not written after bytes 8..31");
  SPSQ_ORACLE_CHECK(v, "W.ORDER.1,S3.PUB.1", tail > last_seq && tail > last_write,
                    "tail not published last, after seq");
  return v;
}

// ------------------------------------------------------------ misuse

// A second, honest queue delivers its first input ...
SPSQ_ORACLE Verdict l2_foreign_input(bool delivered) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S3.PUB.5,S4.NOPROG.1", delivered,
                    "a second queue did not deliver its first input");
  return v;
}

// ... and, idle, grants a reservation that fits.
SPSQ_ORACLE Verdict l2_foreign_reservation(bool reserved, const char* message) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S4.L2OUT.1,S4.NOPROG.2", reserved,
                    "an idle second queue refused a reservation that fits: %s", message);
  return v;
}

// A forged handle the endpoint refused poisons (unless the view failed).
SPSQ_ORACLE Verdict l2_refused_release(bool live, bool view_failed) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S4.POISON.9", !live || view_failed, "a refused release did not poison");
  return v;
}

// try_reserve while a reservation is active (AMB.RESERVE): refused and live
// (A), poison (B), or the active reservation again (C); never a second one.
struct L2SecondReserve {
  bool ok = false;
  uint64_t nbytes = 0, active_nbytes = 0;
  const void* payload = nullptr;
  const void* active_payload = nullptr;
  bool live = true;
};
SPSQ_ORACLE Verdict l2_second_reserve(const L2SecondReserve& o) {
  Verdict v;
  if (o.ok) {
    SPSQ_ORACLE_CHECK(v, "S4.L2OUT.1,S4.L2OUT.7",
                      o.nbytes == o.active_nbytes && o.payload == o.active_payload && o.live,
                      "a second reserve gave a second reservation");
  }
  return v;
}

// The clauses a misuse variant (fuzz/l2_stream_input.h) breaks when the
// endpoint accepts it or does not poison.
SPSQ_ORACLE const char* l2_misuse_clauses(uint8_t variant, uint8_t arg) {
  switch (variant) {
    case kReleaseBadOwner:
      return "S4.POISON.9,S4.OWN.1";
    case kPublishStale:
      return "S4.L2OUT.3,S4.L2OUT.4,S4.L2OUT.5";
    case kPublishBadOp:
      return arg % 3 == 0 ? "S2.STOP.1,S4.POISON.3,W.DIR.1" : "S4.POISON.2,W.ENUM.1,W.DIR.1";
    case kPublishNever:
    case kPublishForgedSize:
      return "S4.L2OUT.3";
    case kPublishForeign:
      return "S4.L2OUT.6";
    default:  // stale, forged-seq and seq-0 releases
      return "S4.POISON.9";
  }
}

// A misuse on a live endpoint: refused, and poison unless the view failed
// (a failed view may refuse before judging).
struct L2MisuseAnswer {
  uint8_t variant = 0, arg = 0;
  bool ok = false, live = true, view_failed = false;
};
SPSQ_ORACLE Verdict l2_misuse_answer(const L2MisuseAnswer& o) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, l2_misuse_clauses(o.variant, o.arg), !o.ok, "misuse %u succeeded",
                    o.variant);
  SPSQ_ORACLE_CHECK(v, l2_misuse_clauses(o.variant, o.arg), !o.live || o.view_failed,
                    "misuse %u did not poison", o.variant);
  return v;
}

// ------------------------------------------------------------ after every step

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
