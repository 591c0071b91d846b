// The oracles of l3_stream (fuzz/l3_stream_fuzz.cc): what the spec demands of
// an L3 queue, of each call's answer and after each step, judged from plain
// observations the harness takes through the L3Adapter, the HarnessView's
// access log and the region's counters. The harness keeps the model (what
// the queue may answer); the oracles say which answers pass and which
// clauses the others break.
#ifndef SPSQ_FUZZ_L3_STREAM_ORACLES_H_
#define SPSQ_FUZZ_L3_STREAM_ORACLES_H_

#include <cinttypes>
#include <cstdint>
#include <cstring>

#include "testkit/layout_fields.h"
#include "conformance/l3/l3_adapter.h"
#include "model/view_parts.h"
#include "model/wire_model.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/l3_stream_input.h"
#include "fuzz/oracle_verdict.h"
#include "fuzz/stream_oracles.h"
#include "fuzz/wire_model.h"

namespace spsq_fuzz {

using spsq_conf::L3Status;

// ------------------------------------------------------------ descriptors

// Why a descriptor is invalid at logical index k with the consumer at `cursor`.
enum class Bad { kNone, kSeq, kOpcode, kZeroOffset, kStopBytes, kOversize, kOffset };

SPSQ_ORACLE Bad desc_fault(const ModelDirection& dir, const wire::Descriptor& d, uint64_t k,
                           uint64_t cursor, uint64_t* next) {
  if (d.seq != wire::seq_of(k)) return Bad::kSeq;
  if (!dir.carries(d.opcode)) return Bad::kOpcode;
  if (d.nbytes == 0) {
    *next = cursor;
    return d.offset == 0 ? Bad::kNone : Bad::kZeroOffset;
  }
  if (d.opcode == wire::kStop) return Bad::kStopBytes;
  wire::Placement p;
  if (!wire::place(cursor, d.nbytes, dir.arena, dir.arena_bytes, &p)) return Bad::kOversize;
  if (d.offset != p.offset) return Bad::kOffset;
  *next = p.next;
  return Bad::kNone;
}

// The clauses a consumer breaks by accepting a descriptor with this defect.
SPSQ_ORACLE const char* bad_clauses(Bad b) {
  switch (b) {
    case Bad::kSeq:
      return "S4.POISON.1,W.SEQ.1";
    case Bad::kOpcode:
      return "S4.POISON.2,S4.POISON.3,S2.STOP.1,W.DIR.1";
    case Bad::kZeroOffset:
      return "S2.ZERO.2,W.STOP.1";
    case Bad::kStopBytes:
      return "S4.STOP.1,W.STOP.1";
    case Bad::kOversize:
      return "S4.POISON.4,S2.FIT.2";
    case Bad::kOffset:
      return "S4.POISON.4,S4.POISON.6,W.ARENA.3";
    case Bad::kNone:
      break;
  }
  return "S4.POISON.10";
}

// Whether a document fixes the poison's kind (INVALID_DESCRIPTOR) or it is
// AMB.KINDS's to record.
SPSQ_ORACLE bool kind_fixed(Bad b) { return b == Bad::kSeq || b == Bad::kOffset; }

// ------------------------------------------------------------ construction

// A binding with fault `fault` (0-5), refused or not.
struct L3BindingFault {
  int fault = 0;
  bool live = false;      // open() returned true and the queue is live
  uint64_t accesses = 0;  // shared accesses during open()
  int32_t initiator_flag = 0;
  uint64_t output_arena_bytes = 0;  // the binding's (fault 5: no 64-byte multiple)
};

// An output arena that is no 64-byte multiple is invalid on either side.
// The other faults break checks the spec gives L2's decoder; an L3 queue may
// refuse them or not, and a queue bound on such a binding is not judged
// further. A refusal touches nothing and raises no flag.
SPSQ_ORACLE Verdict l3_binding_fault(const L3BindingFault& o) {
  Verdict v;
  if (o.fault == 5) {
    SPSQ_ORACLE_CHECK(v, "S2.ARENA.3", !o.live, "output arena %" PRIu64 " accepted",
                      o.output_arena_bytes);
  }
  if (o.live) return v;
  SPSQ_ORACLE_CHECK(v, "S2.ARENA.3,S2.DEPTH.2", o.accesses == 0,
                    "refusing binding fault %d made %" PRIu64 " shared accesses", o.fault,
                    o.accesses);
  SPSQ_ORACLE_CHECK(v, "S4.POISON.11,W.FLAG.1", o.initiator_flag == 0,
                    "refusing a binding raised the initiator flag");
  return v;
}

// A valid binding opens a live queue.
SPSQ_ORACLE Verdict l3_opened(bool live, const char* message) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S0.BIND.1", live, "valid binding refused: %s", message);
  return v;
}

// chip_task_arg_scalars() returns the n scalars of the binding, in order.
SPSQ_ORACLE Verdict l3_scalars_back(bool returned, const uint64_t* back, const uint64_t* sent,
                                    size_t n) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S1.BIND.ORDER",
                    returned && std::memcmp(back, sent, n * sizeof(uint64_t)) == 0,
                    "chip_task_arg_scalars() differ from the binding");
  return v;
}

// layout() is the wire layout.
SPSQ_ORACLE Verdict l3_layout(const spsq_conf::LayoutFields& seen,
                              const spsq_conf::LayoutFields& want) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S2.LAYOUT.3,W.LAYOUT.1", same_layout(seen, want),
                    "layout() differs from the wire layout of (%" PRIu64 ", %" PRIu64 ", %" PRIu64
                    ")",
                    want.depth, want.input_arena_bytes, want.output_arena_bytes);
  return v;
}

// ------------------------------------------------------------ the harness's L2

// The input tail as the harness's honest L2 reads it before taking.
struct L3TailRead {
  bool possible = true;  // it reconstructs
  int32_t word = 0;
  uint64_t known = 0, tail = 0, taken = 0, depth = 1;
};
SPSQ_ORACLE Verdict l3_input_tail_read(const L3TailRead& o) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S3.CTR.1,W.CTR.1,S2.CAP.1", o.possible,
                    "L3's input tail %d is impossible (known %" PRIu64 ")", o.word, o.known);
  SPSQ_ORACLE_CHECK(v, "S2.CAP.1,S1.TRYENQ.1", o.tail - o.taken <= o.depth,
                    "L3 published %" PRIu64 " inputs past L2's head %" PRIu64, o.tail, o.taken);
  return v;
}

// Input k is published after the harness's L2 took a STOP (its area untampered).
SPSQ_ORACLE Verdict l3_input_after_stop(bool tampered, bool saw_stop, uint64_t k) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S4.STOP.2", tampered || !saw_stop,
                    "L3 published input %" PRIu64 " after STOP", k + 1);
  return v;
}

// Input descriptor k, as the harness's L2 takes it with its cursor.
SPSQ_ORACLE Verdict l3_input_descriptor(const ModelDirection& dir, const wire::Descriptor& d,
                                        uint64_t k, uint64_t cursor) {
  Verdict v;
  uint64_t next = 0;
  const Bad bad = desc_fault(dir, d, k, cursor, &next);
  SPSQ_ORACLE_CHECK(v, bad_clauses(bad), bad == Bad::kNone,
                    "L3 published an invalid input descriptor %" PRIu64 ": seq %" PRIu64
                    " op %" PRIu64 " [%" PRIu64 ", +%" PRIu64 ")",
                    k, d.seq, d.opcode, d.offset, d.nbytes);
  return v;
}

// A valid input descriptor k is what L3 enqueued, with the bytes.
struct L3InputMessage {
  uint64_t k = 0;
  wire::Descriptor d{};
  uint64_t opcode = 0, offset = 0, nbytes = 0;  // what was enqueued as k
  const uint8_t* payload = nullptr;             // the payload part
  uint64_t salt = 0;                            // the pattern of the enqueued buffers
};
SPSQ_ORACLE Verdict l3_input_message(const L3InputMessage& o) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S0.PURPOSE.1,W.DESC.1",
                    o.d.opcode == o.opcode && o.d.offset == o.offset && o.d.nbytes == o.nbytes,
                    "input %" PRIu64 " is not what L3 enqueued", o.k);
  // The descriptor was found inside the input arena (l3_input_descriptor).
  MessageBytes m;
  m.bytes = o.payload + o.d.offset;
  m.nbytes = o.d.nbytes;
  m.salt = o.salt;
  m.seq = o.k + 1;
  m.what = "input";
  m.at = o.k;
  return published_bytes(m);
}

// The output head as the harness's honest L2 reads it before publishing.
SPSQ_ORACLE Verdict l3_output_head_read(bool reconstructed, int32_t word, uint64_t known,
                                        uint64_t head, uint64_t published) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S3.CTR.1,W.CTR.1,S3.PUB.5", reconstructed && head <= published,
                    "L3's output head %d is impossible (known %" PRIu64 ", published %" PRIu64
                    ")",
                    word, known, published);
  return v;
}

// ------------------------------------------------------------ status rules

// What a REJECTED call that touched shared memory breaks, by what the call
// was: a call after STOP or any other (S4.STOP.2), a zero timeout
// (AMB.TIMEOUTZERO), a misuse (l3_misuse_clauses).
enum class L3Rejected : uint8_t { kStop, kZeroTimeout, kMisuse };

// The clauses of a misuse variant (fuzz/l3_stream_input.h), and whether the
// queue must poison on it (else it is a usage error, rejected).
SPSQ_ORACLE const char* l3_misuse_clauses(uint8_t variant) {
  switch (variant) {
    case kL3NullBuffer:
      return "AMB.NULLBUF";  // answered only in the host-language API
    case kL3TooBig:
      return "S2.FIT.2";
    case kL3BadTimeout:
      return "AMB.TIMEOUTZERO";  // unsigned timeouts: every timeout <= 0 is 0
    default:                     // stale and forged handles
      return "S4.L3OUT.3,S4.POISON.9";
  }
}
SPSQ_ORACLE bool l3_misuse_poisons(uint8_t variant) {
  return variant != kL3NullBuffer && variant != kL3TooBig && variant != kL3BadTimeout;
}

// Any L3 call's status, and the queue before and after it.
struct L3StatusSeen {
  L3Status st = L3Status::kOk;
  const char* call = "";
  bool usage = false;  // a usage error, which a dead queue may reject instead of fail
  L3Rejected rejected = L3Rejected::kStop;
  uint8_t variant = 0;  // the misuse's
  bool freed_before = false, live_before = true;
  bool live = true;       // after the call (asked only of a queue live before)
  uint64_t accesses = 0;  // shared accesses of the call (taken when REJECTED)
  const char* message = "";  // the error, of a queue that died
};

// What every status says about the queue, whatever the call was.
SPSQ_ORACLE Verdict l3_status(const L3StatusSeen& o) {
  Verdict v;
  if (o.freed_before) {
    SPSQ_ORACLE_CHECK(v, "S1.FREE.1", o.st == L3Status::kRejected || o.st == L3Status::kFailed,
                      "%s on a freed queue returned %s", o.call, spsq_conf::l3_status_name(o.st));
    return v;
  }
  if (!o.live_before) {
    SPSQ_ORACLE_CHECK(v, "S4.POISON.10,S4.POISON.14",
                      o.st == L3Status::kFailed || (o.usage && o.st == L3Status::kRejected),
                      "%s on a dead queue returned %s", o.call, spsq_conf::l3_status_name(o.st));
    return v;
  }
  if (o.st == L3Status::kFailed) {
    SPSQ_ORACLE_CHECK(v, "S4.POISON.10", !o.live, "%s returned FAILED on a live queue", o.call);
    return v;
  }
  SPSQ_ORACLE_CHECK(v, "S4.POISON.10", o.live, "%s returned %s but the queue died: %s", o.call,
                    spsq_conf::l3_status_name(o.st), o.message);
  if (o.st == L3Status::kRejected) {
    SPSQ_ORACLE_CHECK(v,
                      o.rejected == L3Rejected::kStop          ? "S4.STOP.2"
                      : o.rejected == L3Rejected::kZeroTimeout ? "AMB.TIMEOUTZERO"
                                                               : l3_misuse_clauses(o.variant),
                      o.accesses == 0, "rejected %s touched shared memory", o.call);
  }
  return v;
}

// A blocking C++ L3 call with timeout 0 on a live queue. The spec fixes
// timeout <= 0 only for the Python calls (S3.PYTO.1, not judged on the C++
// queue), so both of AMB.TIMEOUTZERO's readings pass: REJECTED (A) or
// ordinary no-progress at once (B). Anything else attempted the call or
// died, which neither reading allows and the harness cannot follow (a
// deviation, stated on the ambiguity).
SPSQ_ORACLE Verdict l3_zero_timeout(L3Status st, const char* call) {
  Verdict v;
  if (st == L3Status::kRejected) {
    SPSQ_ORACLE_READING(v, "AMB.TIMEOUTZERO", "A", "%s with timeout 0 returned REJECTED", call);
    return v;
  }
  SPSQ_ORACLE_CHECK(v, "AMB.TIMEOUTZERO", st == L3Status::kNoProgress || st == L3Status::kTimedOut,
                    "%s with timeout 0 returned %s", call, spsq_conf::l3_status_name(st));
  SPSQ_ORACLE_READING(v, "AMB.TIMEOUTZERO", "B", "%s with timeout 0 returned %s", call,
                      spsq_conf::l3_status_name(st));
  return v;
}

// ------------------------------------------------------------ L3 input

// An enqueue after STOP is rejected.
SPSQ_ORACLE Verdict l3_enqueue_after_stop(L3Status st) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S4.STOP.2", st == L3Status::kRejected,
                    "enqueue after STOP returned %s, want REJECTED", spsq_conf::l3_status_name(st));
  return v;
}

// try_enqueue / try_request_stop where the model predicts it.
struct L3TryEnqueue {
  L3Status st = L3Status::kOk;
  bool stop = false;
  uint64_t n = 0;
  bool room = false;          // the model's room with AMB.ROOM's idle exception (reading A)
  bool literal_room = false;  // with the literal bound (reading B)
  bool peer_flag_up = false;
  uint32_t kind = 0;  // the error's, when FAILED
};

// OK exactly when there is room; an idle arena may refuse (AMB.ROOM B); a
// raised peer flag may be reported at once (OPEN.ABORTSAMPLE / AMB.TRYABORT).
SPSQ_ORACLE Verdict l3_try_enqueue(const L3TryEnqueue& o) {
  Verdict v;
  const bool early_abort =
      o.st == L3Status::kFailed && o.peer_flag_up && o.kind == wire::kRemoteAborted;
  const bool ok = o.st == (o.room ? L3Status::kOk : L3Status::kNoProgress) ||
                  (o.room && !o.literal_room && o.st == L3Status::kNoProgress) || early_abort;
  SPSQ_ORACLE_CHECK(v, "S1.TRYENQ.1,S1.TRYENQ.2,S1.TRYENQ.3,S2.CAP.1,W.ARENA.2,AMB.ROOM", ok,
                    "try_%s(%" PRIu64 ") returned %s, the model says room %d",
                    o.stop ? "request_stop" : "enqueue", o.n, spsq_conf::l3_status_name(o.st),
                    o.room);
  return v;
}

// A blocking call that returned TIMED_OUT.
struct L3TimedOut {
  bool peek = false;       // peek (else enqueue or request_stop)
  bool available = false;  // the model has work for it now (room, a message)
  WaitExpiry wait{};
  int32_t peer_flag = 0;
};

// Nothing to do, the whole timeout waited (wait_expired, with AMB.WAITFALSE's
// readings) and the peer's abort flag is down.
SPSQ_ORACLE Verdict l3_timed_out(const L3TimedOut& o) {
  Verdict v;
  if (o.peek) {
    SPSQ_ORACLE_CHECK(v, "S3.TO.8", !o.available, "peek timed out with a message available");
  } else {
    SPSQ_ORACLE_CHECK(v, "S3.TO.8,S4.NOPROG.1,S4.NOPROG.2", !o.available,
                      "enqueue timed out with room");
  }
  v = wait_expired(o.wait);
  if (v.failed()) return v;
  SPSQ_ORACLE_CHECK(v, "S3.TO.7,S4.POISON.12", o.peer_flag < 1,
                    "timed out with the peer abort flag at %d and no REMOTE_ABORTED",
                    o.peer_flag);
  return v;
}

// An enqueue that returned OK: its descriptor and payload.
struct L3Enqueued {
  wire::Descriptor d{};  // the slot after the call
  uint64_t seq = 0, opcode = 0, nbytes = 0;
  uint64_t offset = 0;                // where the arena rule puts the message
  const uint8_t* payload = nullptr;   // the payload part
  const uint8_t* src = nullptr;       // the buffer enqueued
};
SPSQ_ORACLE Verdict l3_enqueued(const L3Enqueued& o) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "W.DESC.1,W.SEQ.1,W.ARENA.1,W.ARENA.4,S2.ZERO.1,W.STOP.1",
                    o.d.seq == o.seq && o.d.opcode == o.opcode && o.d.offset == o.offset &&
                        o.d.nbytes == o.nbytes,
                    "enqueued descriptor seq %" PRIu64 " op %" PRIu64 " [%" PRIu64 ", +%" PRIu64
                    "), want seq %" PRIu64 " [%" PRIu64 ", +%" PRIu64 ")",
                    o.d.seq, o.d.opcode, o.d.offset, o.d.nbytes, o.seq, o.offset, o.nbytes);
  // The model's span inside the input arena.
  uint64_t i = 0;
  while (i < o.nbytes && o.payload[o.offset + i] == o.src[i]) ++i;
  SPSQ_ORACLE_CHECK(v, "S0.PURPOSE.1,S2.FIT.1", i == o.nbytes,
                    "enqueued byte %" PRIu64 " differs from the buffer", i);
  return v;
}

// The writes of one publication as the step's log shows them (fed in
// order): the payload span, then bytes 8..31, then seq (bytes 0..7), then
// the tail. A span may be written in several writes (which do not overlap).
struct L3PublishOrder {
  uint64_t slot = 0, off = 0, n = 0;     // the descriptor slot, the message's span
  uint64_t arena = 0, arena_bytes = 0;   // the input arena
  uint64_t payload = 0, body = 0, seq = 0;  // bytes covered so far
  bool stray = false, payload_late = false, seq_early = false, seq_with_body = false;
  bool tail = false, tail_early = false;

  // A successful write.
  void write(uint64_t offset, uint64_t nbytes) {
    auto overlaps = [&](uint64_t lo, uint64_t len) {
      return len != 0 && offset < lo + len && lo < offset + nbytes;
    };
    const bool in_payload = overlaps(off, n);
    const bool in_body = overlaps(slot + 8, 24);
    const bool in_seq = overlaps(slot, 8);
    if (overlaps(arena, arena_bytes) && (n == 0 || offset < off || offset + nbytes > off + n)) {
      stray = true;
    }
    if (in_payload) {
      payload_late = payload_late || body != 0 || seq != 0 || tail;
      payload += nbytes;
    }
    if (in_body) {
      seq_with_body = seq_with_body || in_seq;
      seq_early = seq_early || seq != 0;
      body += nbytes;
    }
    if (in_seq && !in_body) {
      seq_early = seq_early || body < 24;
      seq += nbytes;
    }
  }
  // A successful notify of the input tail.
  void tail_notify() {
    if (tail) return;
    tail = true;
    tail_early = seq < 8;
  }
};
SPSQ_ORACLE Verdict l3_publish_order(const L3PublishOrder& o) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S3.PUB.1,S3.PUB.2", !o.payload_late && o.payload >= o.n,
                    "payload written after the descriptor (or not at all)");
  SPSQ_ORACLE_CHECK(v, "S2.FIT.1", !o.stray, "arena write outside the message");
  SPSQ_ORACLE_CHECK(v, "W.ORDER.1,S3.PUB.1", !o.seq_with_body && !o.seq_early && o.seq >= 8,
                    "seq not written after bytes 8..31");
  SPSQ_ORACLE_CHECK(v, "W.ORDER.1,S3.PUB.1,S3.PUB.2", o.tail && !o.tail_early,
                    "tail not published after the seq");
  return v;
}

// ------------------------------------------------------------ L3 output

// What the model says the next try_peek must do.
enum class L3Expect { NOTHING, ACQUIRE, POISON };

// try_peek or try_dequeue_into where the model predicts it.
struct L3PredictedPeek {
  L3Status st = L3Status::kOk;
  L3Expect want = L3Expect::NOTHING;
  Bad why = Bad::kNone;  // the defect of the next descriptor, when POISON
  uint32_t kind = 0;     // the error's, when FAILED
  const char* message = "";
  bool peer_flag_up = false;
};
SPSQ_ORACLE Verdict l3_predicted_peek(const L3PredictedPeek& o) {
  Verdict v;
  // OPEN.ABORTSAMPLE / AMB.TRYABORT: a raised peer flag may be reported at once.
  if (o.st == L3Status::kFailed && o.kind == wire::kRemoteAborted && o.peer_flag_up) return v;
  if (o.want == L3Expect::POISON) {
    SPSQ_ORACLE_CHECK(v, bad_clauses(o.why), o.st == L3Status::kFailed,
                      "try_peek of an invalid output descriptor returned %s",
                      spsq_conf::l3_status_name(o.st));
    // AMB.KINDS: only seq and offset defects have a kind a document fixes.
    SPSQ_ORACLE_CHECK(v, bad_clauses(o.why),
                      !kind_fixed(o.why) || o.kind == wire::kInvalidDescriptor,
                      "invalid output descriptor gave kind %s: %s", wire::kind_name(o.kind),
                      o.message);
    return v;
  }
  const L3Status expect = o.want == L3Expect::ACQUIRE ? L3Status::kOk : L3Status::kNoProgress;
  SPSQ_ORACLE_CHECK(
      v, o.want == L3Expect::ACQUIRE ? "S0.PURPOSE.1,S4.L3OUT.2,W.LIVE.2" : "S1.TRYPEEK.1,S4.NOPROG.3",
      o.st == expect, "try_peek returned %s, the model says %s: %s",
      spsq_conf::l3_status_name(o.st), spsq_conf::l3_status_name(expect), o.message);
  return v;
}

// A message a peek returned (the public fields of the handle).
struct L3Peeked {
  wire::Descriptor m{};
  bool has_active = false;
  wire::Descriptor active{};  // the active message, if any
  uint64_t k = 0;             // the next output's logical index
  ModelDirection dir{};       // the output direction
  uint64_t cursor = 0;        // L3's output cursor
  // The harness's L2 published k honestly and left its ring alone.
  bool sent_known = false;
  uint64_t sent_opcode = 0, sent_offset = 0, sent_nbytes = 0;
};

// The active message again while one is active; else the next output,
// obeying the contract, as L2 published it. *next: the cursor after it.
SPSQ_ORACLE Verdict l3_peeked(const L3Peeked& o, uint64_t* next) {
  Verdict v;
  if (o.has_active) {
    SPSQ_ORACLE_CHECK(v, "S4.L3OUT.1,S4.L3OUT.2",
                      o.m.seq == o.active.seq && o.m.opcode == o.active.opcode &&
                          o.m.offset == o.active.offset && o.m.nbytes == o.active.nbytes,
                      "peek with seq %" PRIu64 " active returned seq %" PRIu64, o.active.seq,
                      o.m.seq);
    return v;
  }
  const Bad bad = desc_fault(o.dir, o.m, o.k, o.cursor, next);
  SPSQ_ORACLE_CHECK(v, bad_clauses(bad), bad == Bad::kNone,
                    "message seq %" PRIu64 " (want %" PRIu64 ") breaks the contract: op %" PRIu64
                    " [%" PRIu64 ", +%" PRIu64 ")",
                    o.m.seq, o.k + 1, o.m.opcode, o.m.offset, o.m.nbytes);
  if (o.sent_known) {
    SPSQ_ORACLE_CHECK(v, "S0.PURPOSE.1",
                      o.m.opcode == o.sent_opcode && o.m.offset == o.sent_offset &&
                          o.m.nbytes == o.sent_nbytes,
                      "message seq %" PRIu64 " is not what L2 published", o.m.seq);
  }
  return v;
}

// A call on the active message (read_into, release) that did not return
// OK on a live queue: a view failure or a raised peer flag explains it
// (OPEN.ABORTSAMPLE / AMB.TRYABORT).
SPSQ_ORACLE Verdict l3_active_call_failed(const char* call, L3Status st, bool view_failed,
                                          bool peer_flag_up, const char* message) {
  Verdict v;
  SPSQ_ORACLE_CHECK(v, "S4.L3OUT.1", view_failed || peer_flag_up,
                    "%s of the active message returned %s: %s", call,
                    spsq_conf::l3_status_name(st), message);
  return v;
}

// read_into of the active message (n bytes) into a buffer of cap bytes.
struct L3ReadAnswer {
  L3Status st = L3Status::kOk;
  uint64_t n = 0, cap = 0;
  bool too_small = false;  // cap < n, or no buffer for a non-empty message
  bool view_failed = false, peer_flag_up = false;
  const char* message = "";  // the error, when not OK
};

// The spec answers a too-small buffer only in its host-language API
// (AMB.SHORTBUF): a usage error (A) or poison (B), never a partial copy.
SPSQ_ORACLE Verdict l3_read_answer(const L3ReadAnswer& o) {
  Verdict v;
  if (o.too_small) {
    SPSQ_ORACLE_CHECK(v, "S1.DEQ.1", o.st != L3Status::kOk,
                      "read_into of %" PRIu64 " bytes into %" PRIu64 " returned OK", o.n, o.cap);
    if (o.st == L3Status::kRejected) {
      SPSQ_ORACLE_READING(v, "AMB.SHORTBUF", "A",
                          "read_into of %" PRIu64 " bytes into %" PRIu64 " returned REJECTED",
                          o.n, o.cap);
      return v;
    }
    SPSQ_ORACLE_CHECK(v, "AMB.SHORTBUF", o.st == L3Status::kFailed,
                      "read_into a too-small buffer returned %s", spsq_conf::l3_status_name(o.st));
    if (!o.view_failed) {
      SPSQ_ORACLE_READING(v, "AMB.SHORTBUF", "B", "read_into a too-small buffer poisoned: %s",
                          o.message);
    }
    return v;
  }
  if (o.st != L3Status::kOk) {
    return l3_active_call_failed("read_into", o.st, o.view_failed, o.peer_flag_up, o.message);
  }
  return v;
}

// What read_into copied into a buffer the harness filled with 0xcd.
struct L3ReadBytes {
  const uint8_t* buf = nullptr;
  uint64_t size = 0;       // the buffer's
  uint64_t n = 0, cap = 0;  // the message's bytes, the capacity passed
  bool exact = false;       // L2 published the message honestly: its bytes are known
  uint64_t salt = 0, seq = 0;
};

// The message byte-exact, and nothing past it.
SPSQ_ORACLE Verdict l3_read_bytes(const L3ReadBytes& o) {
  Verdict v;
  if (o.exact) {
    MessageBytes m;
    m.bytes = o.buf;
    m.nbytes = o.n;
    m.salt = o.salt;
    m.seq = o.seq;
    m.what = "read of seq";
    m.at = o.seq;
    v = delivered_bytes(m);
    if (v.failed()) return v;
  }
  for (uint64_t i = o.n; i < o.cap && i < o.size; ++i) {
    SPSQ_ORACLE_CHECK(v, "S1.DEQ.1", o.buf[i] == 0xcd, "read_into wrote past the message");
  }
  return v;
}

// A misuse or usage error (fuzz/l3_stream_input.h) on a live queue.
struct L3MisuseAnswer {
  uint8_t variant = 0, arg = 0;
  L3Status st = L3Status::kOk;
  bool stop_published = false;  // the input is closed
  bool view_failed = false;
  uint32_t kind = 0;          // the error's, when FAILED
  const char* message = "";   // the error's, when FAILED
};
SPSQ_ORACLE Verdict l3_misuse_answer(const L3MisuseAnswer& o) {
  Verdict v;
  if (o.variant == kL3BadTimeout) {
    // The adapter's timeouts are unsigned: every timeout <= 0 is 0 here,
    // and what C++ does with 0 is open (AMB.TIMEOUTZERO).
    return l3_zero_timeout(o.st, (o.arg & 1) ? "peek" : "enqueue");
  }
  if (o.variant == kL3NullBuffer) {
    // A usage error (A) or poison (B); an input published from no buffer
    // is the end-of-step checks' (the tail moves only on an enqueue).
    if (o.st == L3Status::kRejected) {
      // After STOP the input is closed: that usage error answers first
      // (S4.STOP.*), so the refusal states no reading of the null buffer.
      if (!o.stop_published) {
        SPSQ_ORACLE_READING(v, "AMB.NULLBUF", "A", "try_enqueue(nullptr, n) returned REJECTED");
      }
      return v;
    }
    SPSQ_ORACLE_CHECK(v, "AMB.NULLBUF", o.st == L3Status::kFailed,
                      "try_enqueue(nullptr, n) returned %s", spsq_conf::l3_status_name(o.st));
    if (!o.view_failed) {
      SPSQ_ORACLE_READING(v, "AMB.NULLBUF", "B", "try_enqueue(nullptr, n) poisoned: %s",
                          o.message);
    }
    return v;
  }
  if (!l3_misuse_poisons(o.variant)) {
    SPSQ_ORACLE_CHECK(v, l3_misuse_clauses(o.variant), o.st == L3Status::kRejected,
                      "usage error %u returned %s", o.variant, spsq_conf::l3_status_name(o.st));
    return v;
  }
  // AMB.KINDS: any kind but NONE (reading A: OWNERSHIP).
  SPSQ_ORACLE_CHECK(v, l3_misuse_clauses(o.variant),
                    o.st == L3Status::kFailed && o.kind != wire::kKindNone,
                    "misuse %u returned %s with kind %s", o.variant,
                    spsq_conf::l3_status_name(o.st), wire::kind_name(o.kind));
  return v;
}

// ------------------------------------------------------------ after every step

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
