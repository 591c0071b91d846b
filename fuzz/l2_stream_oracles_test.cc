#include "fuzz/l2_stream_oracles.h"

#include <cstdint>
#include <cstring>

#include "testkit/layout_fields.h"
#include "fuzz/fuzz_view.h"
#include "fuzz/l2_stream_input.h"
#include "fuzz/oracle_test_util.h"
#include "fuzz/wire_model.h"
#include "gtest/gtest.h"

namespace spsq_fuzz {
namespace {

// ------------------------------------------------------------ per call

constexpr uint64_t kSession = 0x5e55;
constexpr uint64_t kTxn = 7;

spsq_conf::LayoutFields layout() { return {2, 0, 64, 128, 64, 192, 64, 256, 384}; }

L2Construction valid_construction() {
  L2Construction o;
  o.window = 1;
  o.depth = 2;
  o.live = true;
  o.want_session = kSession;
  o.want_txn = kTxn;
  o.layout = o.want = layout();
  return o;
}

L2Construction refused(int fault, uint32_t kind) {
  L2Construction o = valid_construction();
  o.binding_fault = fault;
  o.live = false;
  o.kind = kind;
  o.op = wire::kOpInit;
  o.message = "refused";
  return o;
}

TEST(L2BindingDecoded, AValidBindingDecodes) {
  EXPECT_PASSES(l2_binding_decoded(true));
  EXPECT_FINDING(l2_binding_decoded(false), "S1.BIND.ORDER,W.BIND.1");
}

TEST(L2Construction, AValidOneIsLiveWithTheContractsLayoutAndNoFlag) {
  EXPECT_PASSES(l2_construction(valid_construction()));
  L2Construction flag = valid_construction();
  flag.flag_writes = 1;
  EXPECT_FINDING(l2_construction(flag), "S1.WIN.8,S1.WIN.9,W.FLAG.1");
  L2Construction dead = valid_construction();
  dead.live = false;
  EXPECT_FINDING(l2_construction(dead), "S1.L2DECODE.5,S1.WIN.7,S2.BINDSIZE.1");
  L2Construction kind = valid_construction();
  kind.kind = wire::kBadArgument;
  EXPECT_FINDING(l2_construction(kind), "S1.L2DECODE.5,S1.WIN.7,S2.BINDSIZE.1");
  L2Construction lay = valid_construction();
  lay.layout.output_arena += 64;
  EXPECT_FINDING(l2_construction(lay), "S2.LAYOUT.2,W.LAYOUT.1");
}

TEST(L2Construction, AWindowWiderThanDepthIsBadArgument) {
  L2Construction o = valid_construction();
  o.window = 4;
  o.live = false;
  o.kind = wire::kBadArgument;
  o.op = wire::kOpInit;
  o.message = "window";
  EXPECT_PASSES(l2_construction(o));
  L2Construction live = o;
  live.live = true;
  EXPECT_FINDING(l2_construction(live), "S1.WIN.7");
  L2Construction op = o;
  op.op = wire::kOpTimeout;
  EXPECT_FINDING(l2_construction(op), "W.ENUM.3,W.ERR.1");
  L2Construction kind = o;
  kind.kind = wire::kBadBinding;
  EXPECT_FINDING(l2_construction(kind), "S1.WIN.8");
  L2Construction flag = o;
  flag.flag_writes = 1;
  EXPECT_FINDING(l2_construction(flag), "S1.WIN.8,S1.WIN.9,W.FLAG.1");
}

TEST(L2Construction, ABadBindingIsAConstructionErrorOfAnyConstructionKind) {
  EXPECT_PASSES(l2_construction(refused(0, wire::kBadBinding)));
  EXPECT_PASSES(l2_construction(refused(3, wire::kBadArgument)));
  EXPECT_PASSES(l2_construction(refused(7, wire::kEndpointError)));
  L2Construction live = refused(0, wire::kBadBinding);
  live.live = true;
  EXPECT_FINDING(l2_construction(live), "S2.BINDSIZE.1,S2.BINDSIZE.2,W.BIND.1");
  EXPECT_FINDING(l2_construction(refused(0, wire::kInvalidDescriptor)), "W.ERR.1,W.ENUM.2");
  L2Construction mute = refused(0, wire::kBadBinding);
  mute.message = "";
  EXPECT_FINDING(l2_construction(mute), "W.ERR.1");
}

TEST(L2Construction, IdentityOnlyOnceMagicAndTransactionWereAccepted) {
  L2Construction ours = refused(0, wire::kBadBinding);
  ours.session = kSession;
  ours.txn = kTxn;
  EXPECT_PASSES(l2_construction(ours));  // or none: either passes
  L2Construction other = ours;
  other.txn = kTxn + 1;
  EXPECT_FINDING(l2_construction(other), "W.ERR.2,S1.DIAG.1");
  L2Construction early = refused(1, wire::kBadBinding);  // transaction id 0: rejected
  EXPECT_PASSES(l2_construction(early));
  early.session = kSession;
  early.txn = kTxn;
  EXPECT_FINDING(l2_construction(early), "W.ERR.2,S1.DIAG.1");
}

TEST(L2InputHeadRead, AnImpossibleHeadIsAFindingUnlessForged) {
  L2HeadRead o;
  EXPECT_PASSES(l2_input_head_read(o));
  o.possible = false;
  EXPECT_FINDING(l2_input_head_read(o), "S3.CTR.1,S4.L2IN.5,W.CTR.1");
  o.tampered = true;
  EXPECT_PASSES(l2_input_head_read(o));
}

TEST(L2OutputTailRead, ReconstructsWithinDepth) {
  L2TailRead o;
  o.tail = 5;
  o.consumed = 3;
  o.depth = 2;
  EXPECT_PASSES(l2_output_tail_read(o));
  L2TailRead past = o;
  past.tail = 6;
  EXPECT_FINDING(l2_output_tail_read(past), "S2.CAP.1,S4.NOPROG.1");
  L2TailRead bad = o;
  bad.possible = false;
  EXPECT_FINDING(l2_output_tail_read(bad), "S3.CTR.1,W.CTR.1");
}

// Output message 1 of a depth-2 queue: 5 bytes at the output arena's start.
struct Output {
  ModelLayout lay = ModelLayout::of(2, 64, 64);
  uint8_t payload[512] = {};
  L2OutputMessage o;
  Output() {
    o.k = 1;
    o.published = true;
    o.dir = output_of(lay);
    o.cursor = 0;
    o.d = wire::Descriptor{2, wire::kData, lay.output_arena, 5};
    o.opcode = wire::kData;
    o.offset = lay.output_arena;
    o.nbytes = 5;
    o.payload = payload;
    o.salt = 0xa5;
    for (uint64_t i = 0; i < 5; ++i) payload[lay.output_arena + i] = pattern_byte(0xa5, 2, i);
  }
};

TEST(L2OutputMessage, TheDescriptorIsValidAndTheMessageL2Published) {
  Output out;
  uint64_t next = 0;
  EXPECT_PASSES(l2_output_message(out.o, &next));
  EXPECT_EQ(next, 5u);
  L2OutputMessage unpublished = out.o;
  unpublished.published = false;
  EXPECT_FINDING(l2_output_message(unpublished, &next), "S3.PUB.1");
  L2OutputMessage seq = out.o;
  seq.d.seq = 1;
  EXPECT_FINDING(l2_output_message(seq, &next), "W.SEQ.1,W.DESC.1,W.ARENA.1,W.DIR.1,S2.ZERO.1");
  L2OutputMessage stop = out.o;
  stop.d.opcode = stop.opcode = wire::kStop;  // not an output opcode
  EXPECT_FINDING(l2_output_message(stop, &next), "W.SEQ.1,W.DESC.1,W.ARENA.1,W.DIR.1,S2.ZERO.1");
  L2OutputMessage other = out.o;
  other.opcode = wire::kError;
  EXPECT_FINDING(l2_output_message(other, &next), "S0.PURPOSE.1,S4.L2OUT.2");
  out.payload[out.lay.output_arena + 4] ^= 1;
  EXPECT_FINDING(l2_output_message(out.o, &next), "S0.PURPOSE.1,S3.PUB.2");
}

// The next input of a depth-4 queue with 1 acquired and 2 published.
L2NextInput next_input(wire::Descriptor d) {
  L2NextInput o;
  o.acquired = 1;
  o.published = 2;
  o.d = d;
  o.dir = input_of(ModelLayout::of(4, 128, 64));
  o.cursor = 0;
  return o;
}

TEST(L2NextInputClauses, WhatTakingTheNextInputBreaks) {
  const uint64_t arena = ModelLayout::of(4, 128, 64).input_arena;
  L2NextInput stop = next_input({2, wire::kData, arena, 4});
  stop.stop_acquired = true;
  EXPECT_STREQ(l2_next_input_clauses(stop), "S4.STOP.7,S4.STOP.11");
  L2NextInput none = next_input({2, wire::kData, arena, 4});
  none.published = 1;
  EXPECT_STREQ(l2_next_input_clauses(none), "S4.NOPROG.1,W.CTR.2");
  EXPECT_STREQ(l2_next_input_clauses(next_input({3, wire::kData, arena, 4})),
               "W.SEQ.1,S4.POISON.1");
  EXPECT_STREQ(l2_next_input_clauses(next_input({2, wire::kError + 7, arena, 4})),
               "W.DIR.1,S4.POISON.2");
  EXPECT_STREQ(l2_next_input_clauses(next_input({2, wire::kData, 0, 0})),
               "S4.L2IN.2,S4.L2IN.4,S1.WIN.1,S1.WIN.2");
  EXPECT_STREQ(l2_next_input_clauses(next_input({2, wire::kData, 8, 0})), "S2.ZERO.2");
  EXPECT_STREQ(l2_next_input_clauses(next_input({2, wire::kStop, arena, 4})),
               "W.STOP.1,S4.STOP.1");
  EXPECT_STREQ(l2_next_input_clauses(next_input({2, wire::kData, arena, 129})),
               "S2.FIT.1,S4.POISON.6");
  EXPECT_STREQ(l2_next_input_clauses(next_input({2, wire::kData, arena + 64, 4})),
               "W.ARENA.3,S4.POISON.6");
  EXPECT_STREQ(l2_next_input_clauses(next_input({2, wire::kData, arena, 4})),
               "S4.L2IN.2,S4.L2IN.4,S1.WIN.1,S1.WIN.2");
}

TEST(L2PeekAcquired, OnlyWhereTheModelAllowsProgress) {
  using namespace l2_answers;
  const uint64_t arena = ModelLayout::of(4, 128, 64).input_arena;
  const L2NextInput seq = next_input({3, wire::kData, arena, 4});
  EXPECT_PASSES(l2_peek_acquired(true, kProgress | kNothing, seq));
  EXPECT_PASSES(l2_peek_acquired(false, 0, seq));  // not predicted
  EXPECT_FINDING(l2_peek_acquired(true, kPoisonDesc, seq), "W.SEQ.1,S4.POISON.1");
}

L2Refusal refusal(uint32_t answers, bool live, uint32_t kind) {
  const uint64_t arena = ModelLayout::of(4, 128, 64).input_arena;
  L2Refusal o;
  o.answers = answers;
  o.call = "try_peek";
  o.next = next_input({2, wire::kData, arena + 64, 4});  // a replayed offset
  o.live = live;
  o.kind = kind;
  o.message = "m";
  return o;
}

TEST(L2Refusal, OneOfTheLegalAnswers) {
  using namespace l2_answers;
  EXPECT_PASSES(l2_refusal(refusal(kNothing, true, wire::kKindNone)));
  EXPECT_FINDING(l2_refusal(refusal(kProgress, true, wire::kKindNone)),
                 "S4.NOPROG.1,S3.TO.4,LIVE.2");
  // Live and NONE where the model wants poison: the descriptor's clauses.
  EXPECT_FINDING(l2_refusal(refusal(kPoisonDesc, true, wire::kKindNone)),
                 "W.ARENA.3,S4.POISON.6");
  EXPECT_PASSES(l2_refusal(refusal(kNothing | kSoft, true, wire::kBadArgument)));
  EXPECT_FINDING(l2_refusal(refusal(kNothing, true, wire::kBadArgument)), "S3.TO.5");
  EXPECT_PASSES(l2_refusal(refusal(kPoisonDesc, false, wire::kInvalidDescriptor)));
  EXPECT_PASSES(l2_refusal(refusal(kPoisonLocal, false, wire::kInvalidDescriptor)));
  EXPECT_FINDING(l2_refusal(refusal(kPoisonDesc, false, wire::kOwnership)),
                 "S4.POISON.1,S4.STOP.11,W.SEQ.1,W.ARENA.3");
  EXPECT_PASSES(l2_refusal(refusal(kNothing | kRemoteAbort, false, wire::kRemoteAborted)));
  EXPECT_FINDING(l2_refusal(refusal(kNothing, false, wire::kRemoteAborted)),
                 "S4.NOPROG.1,AMB.EMPTYIN,S3.TO.6");
  EXPECT_FINDING(l2_refusal(refusal(kNothing, false, wire::kEndpointError)),
                 "S4.NOPROG.1,AMB.EMPTYIN,S3.TO.6");
}

TEST(L2DeadRefuses, ADeadEndpointRejectsEveryCall) {
  EXPECT_PASSES(l2_dead_refuses(true, true, "peek"));
  EXPECT_PASSES(l2_dead_refuses(false, false, "peek"));
  EXPECT_FINDING(l2_dead_refuses(false, true, "peek"), "S4.POISON.14");
}

TEST(L2NoAttempt, ALiveNoAttempt) {
  L2NoAttempt o;
  o.t0 = o.now = 5;
  EXPECT_PASSES(l2_no_attempt(o));
  L2NoAttempt ok = o;
  ok.ok = true;
  EXPECT_FINDING(l2_no_attempt(ok), "S3.TO.1,S3.TO.2");
  L2NoAttempt touched = o;
  touched.touched = true;
  EXPECT_FINDING(l2_no_attempt(touched), "S3.TO.1,S3.TO.3");
  L2NoAttempt waited = o;
  waited.now = 6;
  EXPECT_FINDING(l2_no_attempt(waited), "S3.TO.1");
  L2NoAttempt dead = o;
  dead.live = false;
  EXPECT_FINDING(l2_no_attempt(dead), "S3.TO.1,S3.TO.2");
}

// n bytes at cursor 100 of a 128-byte output arena at 256, L3 released to 64.
L2Room room(uint64_t n) {
  L2Room r;
  r.n = n;
  r.cursor = 100;
  r.released_cursor = 64;
  r.arena = 256;
  r.arena_bytes = 128;
  r.published = 3;
  r.consumed = 1;
  r.depth = 4;
  return r;
}

TEST(L2RefusalClauses, LivenessCapacityOrTheRoomRule) {
  // 100 bytes wrap to 128 + 100 = 228, 164 past the released 64: only the
  // literal room bound refuses them.
  EXPECT_STREQ(l2_refusal_clauses(room(100)), "LIVE.1,W.LIVE.1,W.LIVE.3");
  L2Room cap = room(8);
  cap.published = 4;  // one short of depth
  EXPECT_STREQ(l2_refusal_clauses(cap), "S2.CAP.1");
  EXPECT_STREQ(l2_refusal_clauses(room(8)), "W.ARENA.2,LIVE.1");
}

L2Expired expired() {
  L2Expired o;
  o.wait.t0 = 0;
  o.wait.now = o.wait.timeout = 1000;
  return o;
}

TEST(L2Expired, NothingToDoTheWholeWaitAndNoFlag) {
  EXPECT_PASSES(l2_expired(expired()));
  L2Expired work = expired();
  work.available = true;
  EXPECT_FINDING(l2_expired(work), "S3.TO.4,S3.TO.8");
  work.reserve = true;
  work.room = room(8);
  EXPECT_FINDING(l2_expired(work), "W.ARENA.2,LIVE.1");
  L2Expired early = expired();
  early.wait.now = 999;
  EXPECT_FINDING(l2_expired(early), "S3.TO.8");
  L2Expired flag = expired();
  flag.initiator_flag = 1;
  EXPECT_FINDING(l2_expired(flag), "S3.TO.7");
  // A reading stated before a finding is kept with it.
  flag.wait.cut = true;
  const Verdict v = l2_expired(flag);
  EXPECT_STREQ(v.clauses, "S3.TO.7");
  EXPECT_STREQ(v.reading, "AMB.WAITFALSE");
}

// Handle seq 2 (index 1) of a depth-4 queue: 4 bytes at the arena's start.
struct Held {
  ModelLayout lay = ModelLayout::of(4, 128, 64);
  uint8_t bytes[4];
  L2Handle o;
  Held() {
    for (uint64_t i = 0; i < 4; ++i) bytes[i] = pattern_byte(3, 2, i);
    o.seq = 2;
    o.opcode = wire::kData;
    o.nbytes = 4;
    o.offset = lay.input_arena;
    o.bytes = bytes;
    o.acquired = 1;
    o.held_data = 0;
    o.window = 1;
    o.dir = input_of(lay);
    o.cursor = 0;
    o.sent_known = o.bytes_known = true;
    o.sent_opcode = wire::kData;
    o.sent_offset = lay.input_arena;
    o.sent_nbytes = 4;
    o.salt = 3;
  }
};

TEST(L2Handle, TheNextMessageWithinTheWindowAndTheArenaRuleAsSent) {
  Held h;
  uint64_t next = 0;
  EXPECT_PASSES(l2_handle(h.o, &next));
  EXPECT_EQ(next, 4u);
  L2Handle after_stop = h.o;
  after_stop.stop_acquired = true;
  EXPECT_FINDING(l2_handle(after_stop, &next), "S4.STOP.7,S4.STOP.11");
  L2Handle seq = h.o;
  seq.seq = 3;
  EXPECT_FINDING(l2_handle(seq, &next), "W.SEQ.1,S0.PURPOSE.1,S2.SEQ.1");
  L2Handle op = h.o;
  op.opcode = 7;
  EXPECT_FINDING(l2_handle(op, &next), "W.DIR.1,S2.OPC.1,S4.POISON.2");
  L2Handle full = h.o;
  full.held_data = 1;
  EXPECT_FINDING(l2_handle(full, &next), "S4.L2IN.2,S4.L2IN.4,S1.WIN.1,S1.WIN.2");
  full.opcode = full.sent_opcode = wire::kStop;  // STOP takes the extra slot ...
  full.nbytes = full.sent_nbytes = 0;
  full.offset = full.sent_offset = 0;
  EXPECT_PASSES(l2_handle(full, &next));
  L2Handle off = h.o;
  off.offset += 8;
  EXPECT_FINDING(l2_handle(off, &next), "W.ARENA.1,W.ARENA.3,S2.ZERO.1,W.STOP.1,S4.STOP.1,S2.OFF.1");
  L2Handle error = h.o;  // an input ERROR is judged as DATA (OPEN.ERRIN A)
  error.opcode = error.sent_opcode = wire::kError;
  EXPECT_PASSES(l2_handle(error, &next));
  L2Handle other = h.o;
  other.sent_nbytes = 5;
  EXPECT_FINDING(l2_handle(other, &next), "S0.PURPOSE.1,S3.PUB.5");
  other.sent_known = false;  // the harness's L3 cannot tell
  EXPECT_PASSES(l2_handle(other, &next));
  h.bytes[1] ^= 1;
  EXPECT_FINDING(l2_handle(h.o, &next), "S0.PURPOSE.1,S3.PUB.5");
  h.o.bytes_known = false;  // scribbled by the harness's L3
  EXPECT_PASSES(l2_handle(h.o, &next));
}

TEST(L2ReleaseRefused, OnlyAFailedViewExcusesIt) {
  EXPECT_PASSES(l2_release_refused(true, 1, "view"));
  EXPECT_FINDING(l2_release_refused(false, 1, "no"), "S4.L2IN.5,S4.OWN.1");
}

L2TryReserve try_reserve(bool ok, bool room_now) {
  L2TryReserve o;
  o.ok = ok;
  o.room = room_now;
  o.at = room(8);
  o.message = "m";
  return o;
}

TEST(L2TryReserve, ReservesExactlyWithRoom) {
  EXPECT_PASSES(l2_try_reserve(try_reserve(true, true)));
  EXPECT_PASSES(l2_try_reserve(try_reserve(false, false)));
  EXPECT_FINDING(l2_try_reserve(try_reserve(true, false)), "W.ARENA.2,S4.NOPROG.2");
  L2TryReserve full = try_reserve(true, false);
  full.at.published = 5;  // depth outputs unconsumed
  EXPECT_FINDING(l2_try_reserve(full), "S2.CAP.1,S4.NOPROG.1");
  EXPECT_FINDING(l2_try_reserve(try_reserve(false, true)), "W.ARENA.2,LIVE.1");
  L2TryReserve soft = try_reserve(false, false);
  soft.kind = wire::kBadArgument;
  EXPECT_FINDING(l2_try_reserve(soft), "S3.TO.5,S4.NOPROG.2");
  L2TryReserve abort = try_reserve(false, false);
  abort.live = false;
  abort.kind = wire::kRemoteAborted;
  abort.initiator_flag = 1;
  EXPECT_PASSES(l2_try_reserve(abort));
  abort.initiator_flag = 0;
  EXPECT_FINDING(l2_try_reserve(abort), "S4.NOPROG.1,S4.NOPROG.2,S3.TO.6");
  abort.initiator_flag = 1;
  abort.kind = wire::kEndpointError;
  EXPECT_FINDING(l2_try_reserve(abort), "S4.NOPROG.1,S4.NOPROG.2,S3.TO.6");
}

TEST(L2Reservation, FitsAndIsWhereTheArenaRulePutsIt) {
  L2Reservation o;
  o.n = o.nbytes = 8;
  o.arena_bytes = 64;
  o.offset = o.placed = 320;
  EXPECT_PASSES(l2_reservation(o));
  L2Reservation big = o;
  big.n = big.nbytes = 65;
  EXPECT_FINDING(l2_reservation(big), "S2.FIT.1,W.ARENA.2");
  L2Reservation size = o;
  size.nbytes = 9;
  EXPECT_FINDING(l2_reservation(size), "W.ARENA.1,W.ARENA.4,S2.WRAP.1,S2.ZERO.1");
  L2Reservation at = o;
  at.offset = 328;
  EXPECT_FINDING(l2_reservation(at), "W.ARENA.1,W.ARENA.4,S2.WRAP.1,S2.ZERO.1");
}

TEST(L2PublishRefused, OnlyAFailedViewExcusesIt) {
  EXPECT_PASSES(l2_publish_refused(true, "view"));
  EXPECT_FINDING(l2_publish_refused(false, "no"), "S4.L2OUT.2");
}

TEST(L2Published, TheDescriptorAndBytesOfTheReservation) {
  uint8_t payload[400] = {};
  for (uint64_t i = 0; i < 3; ++i) payload[320 + i] = pattern_byte(0xa5, 4, i);
  L2Published o;
  o.d = wire::Descriptor{4, wire::kData, 320, 3};
  o.seq = 4;
  o.opcode = wire::kData;
  o.offset = 320;
  o.nbytes = 3;
  o.payload = payload;
  o.salt = 0xa5;
  EXPECT_PASSES(l2_published(o));
  L2Published desc = o;
  desc.d.opcode = wire::kError;
  EXPECT_FINDING(l2_published(desc), "S4.L2OUT.2,W.DESC.1,S2.DESC.1,W.SEQ.1");
  payload[322] ^= 1;
  EXPECT_FINDING(l2_published(o), "S3.PUB.2,S0.PURPOSE.1");
}

Access write(uint64_t offset, uint64_t nbytes) {
  return Access{AccessKind::WRITE, offset, nbytes, 0};
}
Access tail_notify() { return Access{AccessKind::NOTIFY, wire::kOutputTail, 0, 1}; }

TEST(L2PublishOrder, PayloadThenBodyThenSeqThenTail) {
  const uint64_t slot = 64;  // payload at 320
  const Access good[] = {write(320, 8), write(slot + 8, 24), write(slot, 8), tail_notify()};
  EXPECT_PASSES(l2_publish_order(good, 4, 64, slot));
  // seq in the same write as the body: its own check, before the order of seq
  // after the body (same clauses) could see it.
  const Access together[] = {write(320, 8), write(slot, 32), tail_notify()};
  EXPECT_FINDING(l2_publish_order(together, 3, 64, slot), "W.ORDER.1,S3.PUB.1");
  EXPECT_NE(std::strstr(Verdict::finding().text, "together with the body"), nullptr);
  const Access late[] = {write(slot + 8, 24), write(320, 8), write(slot, 8), tail_notify()};
  EXPECT_FINDING(l2_publish_order(late, 4, 64, slot), "S3.PUB.1,S3.PUB.2,S3.PUB.3");
  const Access seq_first[] = {write(320, 8), write(slot, 8), write(slot + 8, 24), tail_notify()};
  EXPECT_FINDING(l2_publish_order(seq_first, 4, 64, slot), "W.ORDER.1,S3.PUB.1");
  const Access tail_first[] = {write(320, 8), write(slot + 8, 24), tail_notify(), write(slot, 8)};
  EXPECT_FINDING(l2_publish_order(tail_first, 4, 64, slot), "W.ORDER.1,S3.PUB.1");
  // A log longer than the view kept is not judged.
  EXPECT_PASSES(l2_publish_order(tail_first, 65, 64, slot));
}

TEST(L2ForeignQueue, DeliversItsFirstInputAndReservesWhenIdle) {
  EXPECT_PASSES(l2_foreign_input(true));
  EXPECT_FINDING(l2_foreign_input(false), "S3.PUB.5,S4.NOPROG.1");
  EXPECT_PASSES(l2_foreign_reservation(true, ""));
  EXPECT_FINDING(l2_foreign_reservation(false, "full"), "S4.L2OUT.1,S4.NOPROG.2");
}

TEST(L2RefusedRelease, PoisonsUnlessTheViewFailed) {
  EXPECT_PASSES(l2_refused_release(false, false));
  EXPECT_PASSES(l2_refused_release(true, true));
  EXPECT_FINDING(l2_refused_release(true, false), "S4.POISON.9");
}

TEST(L2SecondReserve, NeverASecondReservation) {
  const uint8_t span[16] = {};
  L2SecondReserve o;
  EXPECT_PASSES(l2_second_reserve(o));  // refused (A) or poisoned (B)
  o.ok = true;
  o.nbytes = o.active_nbytes = 8;
  o.payload = o.active_payload = span;
  EXPECT_PASSES(l2_second_reserve(o));  // the active one again (C)
  L2SecondReserve other = o;
  other.payload = span + 8;
  EXPECT_FINDING(l2_second_reserve(other), "S4.L2OUT.1,S4.L2OUT.7");
  L2SecondReserve size = o;
  size.nbytes = 4;
  EXPECT_FINDING(l2_second_reserve(size), "S4.L2OUT.1,S4.L2OUT.7");
  L2SecondReserve dead = o;
  dead.live = false;
  EXPECT_FINDING(l2_second_reserve(dead), "S4.L2OUT.1,S4.L2OUT.7");
}

TEST(L2MisuseClauses, EachVariantItsClauses) {
  EXPECT_STREQ(l2_misuse_clauses(kReleaseStale, 0), "S4.POISON.9");
  EXPECT_STREQ(l2_misuse_clauses(kReleaseBadSeq, 0), "S4.POISON.9");
  EXPECT_STREQ(l2_misuse_clauses(kReleaseBadOwner, 0), "S4.POISON.9,S4.OWN.1");
  EXPECT_STREQ(l2_misuse_clauses(kPublishStale, 0), "S4.L2OUT.3,S4.L2OUT.4,S4.L2OUT.5");
  EXPECT_STREQ(l2_misuse_clauses(kPublishBadOp, 3), "S2.STOP.1,S4.POISON.3,W.DIR.1");
  EXPECT_STREQ(l2_misuse_clauses(kPublishBadOp, 4), "S4.POISON.2,W.ENUM.1,W.DIR.1");
  EXPECT_STREQ(l2_misuse_clauses(kPublishNever, 0), "S4.L2OUT.3");
  EXPECT_STREQ(l2_misuse_clauses(kPublishForgedSize, 0), "S4.L2OUT.3");
  EXPECT_STREQ(l2_misuse_clauses(kPublishForeign, 0), "S4.L2OUT.6");
  EXPECT_STREQ(l2_misuse_clauses(kReleaseSeqZero, 0), "S4.POISON.9");
}

TEST(L2MisuseAnswer, RefusedAndPoisonedUnlessTheViewFailed) {
  L2MisuseAnswer o;
  o.variant = kPublishForeign;
  o.live = false;
  EXPECT_PASSES(l2_misuse_answer(o));
  L2MisuseAnswer ok = o;
  ok.ok = true;
  EXPECT_FINDING(l2_misuse_answer(ok), "S4.L2OUT.6");
  L2MisuseAnswer live = o;
  live.live = true;
  EXPECT_FINDING(l2_misuse_answer(live), "S4.L2OUT.6");
  live.view_failed = true;  // a failed view may refuse before judging
  EXPECT_PASSES(l2_misuse_answer(live));
}

// ------------------------------------------------------------ after every step

TEST(L2DeadStep, StaysDeadWithItsFirstErrorAndWritesNothing) {
  L2DeadStep o;
  EXPECT_PASSES(l2_dead_step(o));
  L2DeadStep back = o;
  back.live = true;
  EXPECT_FINDING(l2_dead_step(back), "S4.POISON.14");
  L2DeadStep replaced = o;
  replaced.error_unchanged = false;
  EXPECT_FINDING(l2_dead_step(replaced), "S4.POISON.14,W.ERR.1");
  L2DeadStep wrote = o;
  wrote.wrote = true;
  EXPECT_FINDING(l2_dead_step(wrote), "S4.POISON.14,S4.POISON.15");
}

TEST(L2ErrorState, PoisonHasAKindAndALiveKindIsAnAllowedRefusal) {
  L2ErrorState o;
  EXPECT_PASSES(l2_error_state(o));  // live, NONE
  o.live = false;
  o.kind = wire::kOwnership;
  EXPECT_PASSES(l2_error_state(o));
  o.kind = wire::kKindNone;
  EXPECT_FINDING(l2_error_state(o), "S3.TO.5,W.ERR.1");
  L2ErrorState soft;
  soft.kind = wire::kBadArgument;
  soft.soft_ok = true;
  EXPECT_PASSES(l2_error_state(soft));
  soft.soft_ok = false;
  soft.view_failed = soft.call_step = true;  // AMB.READFAIL B
  EXPECT_PASSES(l2_error_state(soft));
  soft.call_step = false;
  EXPECT_FINDING(l2_error_state(soft), "S3.TO.5");
}

L2Poison poison(uint32_t kind) {
  L2Poison o;
  o.kind = kind;
  o.op = wire::kOpInputTryPeek;
  o.session = o.want_session = 0x5e55;
  o.txn = o.want_txn = 7;
  o.message = "why";
  return o;
}

TEST(L2NewPoison, CarriesIdentityMessageAndARecordedOp) {
  L2Poison o = poison(wire::kInvalidDescriptor);
  o.hostile = true;
  EXPECT_PASSES(l2_new_poison(o));
  L2Poison anon = o;
  anon.txn = 0;
  EXPECT_FINDING(l2_new_poison(anon), "S1.DIAG.1,W.ERR.2");
  L2Poison mute = o;
  mute.message = "";
  EXPECT_FINDING(l2_new_poison(mute), "W.ERR.1");
  L2Poison no_op = o;
  no_op.op = wire::kOpInit;
  EXPECT_FINDING(l2_new_poison(no_op), "W.ENUM.3");
}

TEST(L2NewPoison, AReleaseOrPublishRecordsItsOwnOp) {
  L2Poison o = poison(wire::kOwnership);
  o.misuse_step = true;
  o.call_op = o.op = wire::kOpInputRelease;
  EXPECT_PASSES(l2_new_poison(o));
  o.op = wire::kOpInputTryPeek;
  EXPECT_FINDING(l2_new_poison(o), "W.ENUM.3,S4.POISON.9");
  o.call_op = wire::kOpOutputPublish;
  EXPECT_FINDING(l2_new_poison(o), "W.ENUM.3,S4.L2OUT.3");
  // The op of a remote abort is open (AMB.TIMEOUTOP).
  L2Poison abort = poison(wire::kRemoteAborted);
  abort.call_op = wire::kOpOutputPublish;
  abort.initiator_flag = 1;
  EXPECT_PASSES(l2_new_poison(abort));
}

TEST(L2NewPoison, EveryKindNeedsItsCause) {
  L2Poison ee = poison(wire::kEndpointError);
  ee.view_failed = true;
  EXPECT_PASSES(l2_new_poison(ee));
  ee.view_failed = false;
  EXPECT_FINDING(l2_new_poison(ee), "S4.NOPROG.1,S3.TO.6");

  L2Poison ra = poison(wire::kRemoteAborted);
  ra.initiator_flag = 3;  // raised is >= 1
  EXPECT_PASSES(l2_new_poison(ra));
  ra.initiator_flag = 0;
  EXPECT_FINDING(l2_new_poison(ra), "S4.POISON.12,W.FLAG.2");

  L2Poison id = poison(wire::kInvalidDescriptor);
  id.misuse_step = true;
  EXPECT_PASSES(l2_new_poison(id));
  id.misuse_step = false;
  id.view_failed = true;  // a failed view does not explain a bad descriptor
  EXPECT_FINDING(l2_new_poison(id), "S2.ERROR.1,S4.NOPROG.1,S4.POISON.1");

  L2Poison own = poison(wire::kBadBinding);
  own.view_failed = true;
  EXPECT_PASSES(l2_new_poison(own));
  own.view_failed = false;
  EXPECT_FINDING(l2_new_poison(own), "S4.NOPROG.1,S3.TO.6");

  L2Poison unknown = poison(99);
  unknown.hostile = true;
  EXPECT_FINDING(l2_new_poison(unknown), "W.ENUM.2");
}

TEST(L2AbortFlag, OnceForLocalPoisonNeverOtherwise) {
  L2AbortFlag o;
  EXPECT_PASSES(l2_abort_flag(o));
  o.writes = 1;
  EXPECT_FINDING(l2_abort_flag(o), "S4.POISON.13,S4.NOPROG.5");
  L2AbortFlag local;
  local.live = false;
  local.kind = wire::kOwnership;
  local.writes = 1;
  EXPECT_PASSES(l2_abort_flag(local));
  local.writes = 0;
  EXPECT_FINDING(l2_abort_flag(local), "S4.POISON.11,W.FLAG.1");
  local.writes = 2;
  EXPECT_FINDING(l2_abort_flag(local), "S4.POISON.11,W.FLAG.1");
  L2AbortFlag remote;
  remote.live = false;
  remote.kind = wire::kRemoteAborted;
  EXPECT_PASSES(l2_abort_flag(remote));
  remote.writes = 1;
  EXPECT_FINDING(l2_abort_flag(remote), "S4.POISON.13,S4.NOPROG.5");
  // A view that failed for good may have swallowed the one write.
  L2AbortFlag gone;
  gone.live = false;
  gone.kind = wire::kEndpointError;
  gone.view_failed = true;
  EXPECT_PASSES(l2_abort_flag(gone));
  gone.view_failed = false;
  EXPECT_FINDING(l2_abort_flag(gone), "S4.POISON.11,W.FLAG.1");
}

TEST(L2HonestRun, NeverPoisons) {
  EXPECT_PASSES(l2_honest_run(true, ""));
  EXPECT_FINDING(l2_honest_run(false, "x"), "S4.NOPROG.1,S4.NOPROG.2,S4.NOPROG.4,S3.TO.6,LIVE.2");
}

TEST(L2Drained, ExactlyOnceStopIsPhysicallyReleased) {
  EXPECT_PASSES(l2_drained(false, false));
  EXPECT_PASSES(l2_drained(true, true));
  EXPECT_FINDING(l2_drained(true, false), "S4.STOP.10");
  EXPECT_FINDING(l2_drained(false, true), "S4.STOP.10");
}

TEST(L2InputHeadWrite, ForwardAndNeverPastWhatWasAcquired) {
  L2HeadWrite w;
  w.written = 2;
  w.value = 4;
  w.depth = 4;
  w.acquired = 4;
  uint64_t head = 0;
  EXPECT_PASSES(l2_input_head_write(w, &head));
  EXPECT_EQ(head, 4u);
  L2HeadWrite back = w;
  back.value = 2;  // not forward
  EXPECT_FINDING(l2_input_head_write(back, &head), "S4.L2IN.5,W.CTR.1,S3.CTR.1");
  L2HeadWrite past = w;
  past.acquired = 3;
  EXPECT_FINDING(l2_input_head_write(past, &head), "S4.L2IN.5,S4.L2IN.6,S4.STOP.9");
}

TEST(L2OutputTailWrite, OneStepPerPublishWithinDepth) {
  L2TailWrite w;
  w.written = 5;
  w.value = 6;
  w.l3_consumed = 2;
  w.depth = 4;
  EXPECT_PASSES(l2_output_tail_write(w));
  L2TailWrite skip = w;
  skip.value = 7;
  EXPECT_FINDING(l2_output_tail_write(skip), "S3.PUB.1,W.CTR.1");
  L2TailWrite full = w;
  full.l3_consumed = 1;  // 6 > 1 + 4
  EXPECT_FINDING(l2_output_tail_write(full), "S2.CAP.1,S4.NOPROG.1");
  full.tampered = true;  // the harness's L3 lied about its head
  EXPECT_PASSES(l2_output_tail_write(full));
  // The low 32 bits across the wrap.
  L2TailWrite wrap = w;
  wrap.written = 0xffffffffull;
  wrap.value = 0;
  wrap.l3_consumed = wrap.written;
  EXPECT_PASSES(l2_output_tail_write(wrap));
}

TEST(L2CountersSettled, HeadIsTheFifoPrefixAndTailWhatWasPublished) {
  L2Counters c;
  c.head_written = c.phys_head = 3;
  c.tail_written = c.published = 5;
  EXPECT_PASSES(l2_counters_settled(c));
  L2Counters head = c;
  head.phys_head = 4;
  EXPECT_FINDING(l2_counters_settled(head), "S4.L2IN.5,S4.L2IN.6,S4.STOP.9");
  L2Counters tail = c;
  tail.published = 6;
  EXPECT_FINDING(l2_counters_settled(tail), "S3.PUB.1,S4.L2OUT.2");
}

}  // namespace
}  // namespace spsq_fuzz
