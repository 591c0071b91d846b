#include "fuzz/l3_stream_oracles.h"

#include <cstdint>
#include <cstring>

#include "testkit/layout_fields.h"
#include "model/wire_model.h"
#include "fuzz/l3_stream_input.h"
#include "fuzz/oracle_test_util.h"
#include "fuzz/wire_model.h"
#include "gtest/gtest.h"

namespace spsq_fuzz {
namespace {

// ------------------------------------------------------------ per call

using spsq_conf::L3Status;

// A depth-2 queue with 64-byte arenas: input arena at 128, output at 192.
wire::Layout layout() {
  wire::Layout l;
  EXPECT_TRUE(wire::compute_layout(2, 64, 64, &l));
  return l;
}
ModelDirection input_dir() {
  const wire::Layout l = layout();
  return ModelDirection{l.input_ring, l.input_arena, l.input_arena_bytes, true};
}
ModelDirection output_dir() {
  const wire::Layout l = layout();
  return ModelDirection{l.output_ring, l.output_arena, l.output_arena_bytes, false};
}

TEST(DescFault, EachDefectAndItsClauses) {
  const ModelDirection in = input_dir();
  const uint64_t arena = in.arena;
  uint64_t next = 0;
  EXPECT_EQ(desc_fault(in, {1, wire::kData, arena, 8}, 0, 0, &next), Bad::kNone);
  EXPECT_EQ(next, 8u);
  EXPECT_EQ(desc_fault(in, {2, wire::kData, arena, 8}, 0, 0, &next), Bad::kSeq);
  EXPECT_EQ(desc_fault(in, {1, wire::kError, arena, 8}, 0, 0, &next), Bad::kOpcode);
  EXPECT_EQ(desc_fault(in, {1, wire::kData, 8, 0}, 0, 0, &next), Bad::kZeroOffset);
  EXPECT_EQ(desc_fault(in, {1, wire::kStop, arena, 8}, 0, 0, &next), Bad::kStopBytes);
  EXPECT_EQ(desc_fault(in, {1, wire::kData, arena, 65}, 0, 0, &next), Bad::kOversize);
  EXPECT_EQ(desc_fault(in, {1, wire::kData, arena + 8, 8}, 0, 0, &next), Bad::kOffset);
  EXPECT_STREQ(bad_clauses(Bad::kSeq), "S4.POISON.1,W.SEQ.1");
  EXPECT_STREQ(bad_clauses(Bad::kOffset), "S4.POISON.4,S4.POISON.6,W.ARENA.3");
  EXPECT_TRUE(kind_fixed(Bad::kSeq));
  EXPECT_TRUE(kind_fixed(Bad::kOffset));
  EXPECT_FALSE(kind_fixed(Bad::kOpcode));
}

TEST(L3BindingFault, ARefusalTouchesNothingAndRaisesNoFlag) {
  L3BindingFault o;
  o.fault = 0;
  EXPECT_PASSES(l3_binding_fault(o));
  o.live = true;  // the L3 side need not check this one
  o.accesses = 3;
  EXPECT_PASSES(l3_binding_fault(o));
  L3BindingFault touched;
  touched.accesses = 1;
  EXPECT_FINDING(l3_binding_fault(touched), "S2.ARENA.3,S2.DEPTH.2");
  L3BindingFault flag;
  flag.initiator_flag = 1;
  EXPECT_FINDING(l3_binding_fault(flag), "S4.POISON.11,W.FLAG.1");
  L3BindingFault arena;
  arena.fault = 5;  // no 64-byte multiple: refused on either side
  EXPECT_PASSES(l3_binding_fault(arena));
  arena.live = true;
  EXPECT_FINDING(l3_binding_fault(arena), "S2.ARENA.3");
}

TEST(L3Opened, AValidBindingOpensALiveQueue) {
  EXPECT_PASSES(l3_opened(true, ""));
  EXPECT_FINDING(l3_opened(false, "open() returned false"), "S0.BIND.1");
}

TEST(L3ScalarsBack, TheBindingInOrder) {
  const uint64_t sent[3] = {1, 2, 3};
  const uint64_t same[3] = {1, 2, 3};
  const uint64_t swapped[3] = {1, 3, 2};
  EXPECT_PASSES(l3_scalars_back(true, same, sent, 3));
  EXPECT_FINDING(l3_scalars_back(true, swapped, sent, 3), "S1.BIND.ORDER");
  EXPECT_FINDING(l3_scalars_back(false, same, sent, 3), "S1.BIND.ORDER");
}

TEST(L3Layout, TheWireLayout) {
  const spsq_conf::LayoutFields want{2, 0, 64, 128, 64, 192, 64, 256, 384};
  EXPECT_PASSES(l3_layout(want, want));
  spsq_conf::LayoutFields seen = want;
  seen.counter_bytes = 320;
  EXPECT_FINDING(l3_layout(seen, want), "S2.LAYOUT.3,W.LAYOUT.1");
}

TEST(L3InputTailRead, ReconstructsWithinDepth) {
  L3TailRead o;
  o.tail = 3;
  o.taken = 1;
  o.depth = 2;
  EXPECT_PASSES(l3_input_tail_read(o));
  L3TailRead past = o;
  past.tail = 4;
  EXPECT_FINDING(l3_input_tail_read(past), "S2.CAP.1,S1.TRYENQ.1");
  L3TailRead bad = o;
  bad.possible = false;
  EXPECT_FINDING(l3_input_tail_read(bad), "S3.CTR.1,W.CTR.1,S2.CAP.1");
}

TEST(L3InputAfterStop, NothingAfterStopUnlessTheAreaWasForged) {
  EXPECT_PASSES(l3_input_after_stop(false, false, 3));
  EXPECT_FINDING(l3_input_after_stop(false, true, 3), "S4.STOP.2");
  EXPECT_PASSES(l3_input_after_stop(true, true, 3));
}

TEST(L3InputDescriptor, ValidOrTheDefectsClauses) {
  const ModelDirection in = input_dir();
  EXPECT_PASSES(l3_input_descriptor(in, {1, wire::kData, in.arena, 8}, 0, 0));
  EXPECT_FINDING(l3_input_descriptor(in, {1, wire::kData, in.arena + 8, 8}, 0, 0),
                 "S4.POISON.4,S4.POISON.6,W.ARENA.3");
  EXPECT_FINDING(l3_input_descriptor(in, {1, wire::kStop, 0, 0}, 1, 0), "S4.POISON.1,W.SEQ.1");
}

TEST(L3InputMessage, WhatWasEnqueuedWithItsBytes) {
  uint8_t payload[256] = {};
  for (uint64_t i = 0; i < 6; ++i) payload[128 + i] = pattern_byte(5, 1, i);
  L3InputMessage o;
  o.k = 0;
  o.d = wire::Descriptor{1, wire::kData, 128, 6};
  o.opcode = wire::kData;
  o.offset = 128;
  o.nbytes = 6;
  o.payload = payload;
  o.salt = 5;
  EXPECT_PASSES(l3_input_message(o));
  L3InputMessage other = o;
  other.nbytes = 5;
  EXPECT_FINDING(l3_input_message(other), "S0.PURPOSE.1,W.DESC.1");
  payload[133] ^= 1;
  EXPECT_FINDING(l3_input_message(o), "S0.PURPOSE.1,S3.PUB.2");
}

TEST(L3OutputHeadRead, ReconstructsToNoMoreThanWasPublished) {
  EXPECT_PASSES(l3_output_head_read(true, 2, 1, 2, 3));
  EXPECT_FINDING(l3_output_head_read(true, 4, 1, 4, 3), "S3.CTR.1,W.CTR.1,S3.PUB.5");
  EXPECT_FINDING(l3_output_head_read(false, 9, 1, 0, 3), "S3.CTR.1,W.CTR.1,S3.PUB.5");
}

TEST(L3MisuseClauses, EachVariant) {
  EXPECT_STREQ(l3_misuse_clauses(kL3ReleaseStale), "S4.L3OUT.3,S4.POISON.9");
  EXPECT_STREQ(l3_misuse_clauses(kL3ReadStale), "S4.L3OUT.3,S4.POISON.9");
  EXPECT_STREQ(l3_misuse_clauses(kL3ReleaseBadSeq), "S4.L3OUT.3,S4.POISON.9");
  EXPECT_STREQ(l3_misuse_clauses(kL3NullBuffer), "AMB.NULLBUF");
  EXPECT_STREQ(l3_misuse_clauses(kL3TooBig), "S2.FIT.2");
  EXPECT_STREQ(l3_misuse_clauses(kL3BadTimeout), "AMB.TIMEOUTZERO");
  EXPECT_TRUE(l3_misuse_poisons(kL3ReleaseBadSeq));
  EXPECT_FALSE(l3_misuse_poisons(kL3TooBig));
}

L3StatusSeen status(L3Status st) {
  L3StatusSeen o;
  o.st = st;
  o.call = "enqueue";
  return o;
}

TEST(L3Status, AFreedQueueRejectsOrFails) {
  L3StatusSeen o = status(L3Status::kRejected);
  o.freed_before = true;
  o.live_before = false;
  EXPECT_PASSES(l3_status(o));
  o.st = L3Status::kOk;
  EXPECT_FINDING(l3_status(o), "S1.FREE.1");
}

TEST(L3Status, ADeadQueueFailsOrRejectsAUsageError) {
  L3StatusSeen o = status(L3Status::kFailed);
  o.live_before = false;
  EXPECT_PASSES(l3_status(o));
  o.st = L3Status::kRejected;
  EXPECT_FINDING(l3_status(o), "S4.POISON.10,S4.POISON.14");
  o.usage = true;
  EXPECT_PASSES(l3_status(o));
  o.st = L3Status::kNoProgress;
  EXPECT_FINDING(l3_status(o), "S4.POISON.10,S4.POISON.14");
}

TEST(L3Status, FailedIsDeadAndEveryOtherStatusLive) {
  L3StatusSeen failed = status(L3Status::kFailed);
  failed.live = false;
  EXPECT_PASSES(l3_status(failed));
  failed.live = true;
  EXPECT_FINDING(l3_status(failed), "S4.POISON.10");
  L3StatusSeen died = status(L3Status::kNoProgress);
  EXPECT_PASSES(l3_status(died));
  died.live = false;
  EXPECT_FINDING(l3_status(died), "S4.POISON.10");
}

TEST(L3Status, ARejectionTouchesNoSharedMemory) {
  L3StatusSeen o = status(L3Status::kRejected);
  EXPECT_PASSES(l3_status(o));
  o.accesses = 1;
  EXPECT_FINDING(l3_status(o), "S4.STOP.2");
  o.rejected = L3Rejected::kZeroTimeout;
  EXPECT_FINDING(l3_status(o), "AMB.TIMEOUTZERO");
  o.rejected = L3Rejected::kMisuse;
  o.variant = kL3TooBig;
  EXPECT_FINDING(l3_status(o), "S2.FIT.2");
}

TEST(L3ZeroTimeout, RejectedIsReadingANoProgressReadingB) {
  Verdict a = l3_zero_timeout(L3Status::kRejected, "peek");
  EXPECT_FALSE(a.failed());
  ASSERT_NE(a.reading, nullptr);
  EXPECT_STREQ(a.reading, "AMB.TIMEOUTZERO");
  EXPECT_STREQ(Verdict::stated().what, "A");
  Verdict b = l3_zero_timeout(L3Status::kTimedOut, "peek");
  EXPECT_FALSE(b.failed());
  EXPECT_STREQ(Verdict::stated().what, "B");
  EXPECT_PASSES(l3_zero_timeout(L3Status::kNoProgress, "enqueue"));
  EXPECT_FINDING(l3_zero_timeout(L3Status::kOk, "enqueue"), "AMB.TIMEOUTZERO");
  EXPECT_FINDING(l3_zero_timeout(L3Status::kFailed, "enqueue"), "AMB.TIMEOUTZERO");
}

TEST(L3EnqueueAfterStop, IsRejected) {
  EXPECT_PASSES(l3_enqueue_after_stop(L3Status::kRejected));
  EXPECT_FINDING(l3_enqueue_after_stop(L3Status::kNoProgress), "S4.STOP.2");
}

L3TryEnqueue try_enqueue(L3Status st, bool room, bool literal_room) {
  L3TryEnqueue o;
  o.st = st;
  o.n = 8;
  o.room = room;
  o.literal_room = literal_room;
  return o;
}

TEST(L3TryEnqueue, OkExactlyWithRoom) {
  const char* ids = "S1.TRYENQ.1,S1.TRYENQ.2,S1.TRYENQ.3,S2.CAP.1,W.ARENA.2,AMB.ROOM";
  EXPECT_PASSES(l3_try_enqueue(try_enqueue(L3Status::kOk, true, true)));
  EXPECT_PASSES(l3_try_enqueue(try_enqueue(L3Status::kNoProgress, false, false)));
  EXPECT_FINDING(l3_try_enqueue(try_enqueue(L3Status::kNoProgress, true, true)), ids);
  EXPECT_FINDING(l3_try_enqueue(try_enqueue(L3Status::kOk, false, false)), ids);
  // An idle arena may refuse what only AMB.ROOM's exception admits (reading B).
  EXPECT_PASSES(l3_try_enqueue(try_enqueue(L3Status::kNoProgress, true, false)));
  // A raised peer flag may be reported at once.
  L3TryEnqueue abort = try_enqueue(L3Status::kFailed, true, true);
  EXPECT_FINDING(l3_try_enqueue(abort), ids);
  abort.peer_flag_up = true;
  abort.kind = wire::kRemoteAborted;
  EXPECT_PASSES(l3_try_enqueue(abort));
}

L3TimedOut timed_out() {
  L3TimedOut o;
  o.wait.t0 = 10;
  o.wait.now = 110;
  o.wait.timeout = 100;
  o.wait.exact = true;
  return o;
}

TEST(L3TimedOut, NothingToDoTheWholeTimeoutAndNoFlag) {
  EXPECT_PASSES(l3_timed_out(timed_out()));
  L3TimedOut room = timed_out();
  room.available = true;
  EXPECT_FINDING(l3_timed_out(room), "S3.TO.8,S4.NOPROG.1,S4.NOPROG.2");
  room.peek = true;
  EXPECT_FINDING(l3_timed_out(room), "S3.TO.8");
  L3TimedOut late = timed_out();
  late.wait.now = 111;  // one nanosecond past the deadline
  EXPECT_FINDING(l3_timed_out(late), "S3.TO.8");
  L3TimedOut flag = timed_out();
  flag.peer_flag = 1;
  EXPECT_FINDING(l3_timed_out(flag), "S3.TO.7,S4.POISON.12");
}

TEST(L3Enqueued, TheDescriptorAndTheBufferWhereTheArenaRulePutsIt) {
  uint8_t payload[256] = {};
  const uint8_t src[4] = {9, 8, 7, 6};
  for (int i = 0; i < 4; ++i) payload[136 + i] = src[i];
  L3Enqueued o;
  o.d = wire::Descriptor{3, wire::kData, 136, 4};
  o.seq = 3;
  o.opcode = wire::kData;
  o.nbytes = 4;
  o.offset = 136;
  o.payload = payload;
  o.src = src;
  EXPECT_PASSES(l3_enqueued(o));
  const char* desc = "W.DESC.1,W.SEQ.1,W.ARENA.1,W.ARENA.4,S2.ZERO.1,W.STOP.1";
  L3Enqueued seq = o;
  seq.d.seq = 2;
  EXPECT_FINDING(l3_enqueued(seq), desc);
  L3Enqueued at = o;
  at.d.offset = 128;
  EXPECT_FINDING(l3_enqueued(at), desc);
  payload[139] = 0;
  EXPECT_FINDING(l3_enqueued(o), "S0.PURPOSE.1,S2.FIT.1");
}

// A publication of 8 bytes at 136 from descriptor slot 32, input arena [128, 192).
L3PublishOrder publication() {
  L3PublishOrder o;
  o.slot = 32;
  o.off = 136;
  o.n = 8;
  o.arena = 128;
  o.arena_bytes = 64;
  return o;
}

TEST(L3PublishOrder, PayloadThenBodyThenSeqThenTail) {
  L3PublishOrder o = publication();
  o.write(136, 4);
  o.write(140, 4);  // a span in two writes
  o.write(40, 24);
  o.write(32, 8);
  o.tail_notify();
  EXPECT_PASSES(l3_publish_order(o));

  L3PublishOrder late = publication();
  late.write(40, 24);
  late.write(136, 8);
  late.write(32, 8);
  late.tail_notify();
  EXPECT_FINDING(l3_publish_order(late), "S3.PUB.1,S3.PUB.2");
  L3PublishOrder missing = publication();
  missing.write(136, 4);
  missing.write(40, 24);
  missing.write(32, 8);
  missing.tail_notify();
  EXPECT_FINDING(l3_publish_order(missing), "S3.PUB.1,S3.PUB.2");

  L3PublishOrder stray = publication();
  stray.write(136, 8);
  stray.write(180, 4);
  stray.write(40, 24);
  stray.write(32, 8);
  stray.tail_notify();
  EXPECT_FINDING(l3_publish_order(stray), "S2.FIT.1");

  L3PublishOrder seq_first = publication();
  seq_first.write(136, 8);
  seq_first.write(32, 8);
  seq_first.write(40, 24);
  seq_first.tail_notify();
  EXPECT_FINDING(l3_publish_order(seq_first), "W.ORDER.1,S3.PUB.1");
  L3PublishOrder together = publication();
  together.write(136, 8);
  together.write(32, 32);
  together.tail_notify();
  EXPECT_FINDING(l3_publish_order(together), "W.ORDER.1,S3.PUB.1");

  L3PublishOrder tail_first = publication();
  tail_first.write(136, 8);
  tail_first.write(40, 24);
  tail_first.tail_notify();
  tail_first.write(32, 8);
  EXPECT_FINDING(l3_publish_order(tail_first), "W.ORDER.1,S3.PUB.1,S3.PUB.2");
  L3PublishOrder no_tail = publication();
  no_tail.write(136, 8);
  no_tail.write(40, 24);
  no_tail.write(32, 8);
  EXPECT_FINDING(l3_publish_order(no_tail), "W.ORDER.1,S3.PUB.1,S3.PUB.2");
}

L3PredictedPeek predicted(L3Status st, L3Expect want) {
  L3PredictedPeek o;
  o.st = st;
  o.want = want;
  return o;
}

TEST(L3PredictedPeek, WhatTheModelSays) {
  EXPECT_PASSES(l3_predicted_peek(predicted(L3Status::kOk, L3Expect::ACQUIRE)));
  EXPECT_PASSES(l3_predicted_peek(predicted(L3Status::kNoProgress, L3Expect::NOTHING)));
  EXPECT_FINDING(l3_predicted_peek(predicted(L3Status::kNoProgress, L3Expect::ACQUIRE)),
                 "S0.PURPOSE.1,S4.L3OUT.2,W.LIVE.2");
  EXPECT_FINDING(l3_predicted_peek(predicted(L3Status::kOk, L3Expect::NOTHING)),
                 "S1.TRYPEEK.1,S4.NOPROG.3");
  L3PredictedPeek abort = predicted(L3Status::kFailed, L3Expect::ACQUIRE);
  abort.kind = wire::kRemoteAborted;
  EXPECT_FINDING(l3_predicted_peek(abort), "S0.PURPOSE.1,S4.L3OUT.2,W.LIVE.2");
  abort.peer_flag_up = true;  // reported at once (AMB.TRYABORT)
  EXPECT_PASSES(l3_predicted_peek(abort));
}

TEST(L3PredictedPeek, AnInvalidDescriptorPoisonsWithTheFixedKind) {
  L3PredictedPeek seq = predicted(L3Status::kFailed, L3Expect::POISON);
  seq.why = Bad::kSeq;
  seq.kind = wire::kInvalidDescriptor;
  EXPECT_PASSES(l3_predicted_peek(seq));
  seq.kind = wire::kOwnership;
  EXPECT_FINDING(l3_predicted_peek(seq), "S4.POISON.1,W.SEQ.1");
  // Not poisoned at all: its own check, before the kind's (same clauses)
  // could see it.
  seq.st = L3Status::kOk;
  EXPECT_FINDING(l3_predicted_peek(seq), "S4.POISON.1,W.SEQ.1");
  EXPECT_NE(std::strstr(Verdict::finding().text, "returned OK"), nullptr);
  L3PredictedPeek op = predicted(L3Status::kFailed, L3Expect::POISON);
  op.why = Bad::kOpcode;
  op.kind = wire::kOwnership;  // AMB.KINDS: any kind
  EXPECT_PASSES(l3_predicted_peek(op));
}

L3Peeked peeked() {
  const ModelDirection out = output_dir();
  L3Peeked o;
  o.m = wire::Descriptor{1, wire::kError, out.arena, 4};
  o.k = 0;
  o.dir = out;
  o.sent_known = true;
  o.sent_opcode = wire::kError;
  o.sent_offset = out.arena;
  o.sent_nbytes = 4;
  return o;
}

TEST(L3Peeked, TheNextOutputAsL2PublishedIt) {
  uint64_t next = 0;
  EXPECT_PASSES(l3_peeked(peeked(), &next));
  EXPECT_EQ(next, 4u);
  L3Peeked seq = peeked();
  seq.m.seq = 2;
  EXPECT_FINDING(l3_peeked(seq, &next), "S4.POISON.1,W.SEQ.1");
  L3Peeked other = peeked();
  other.sent_opcode = wire::kData;
  EXPECT_FINDING(l3_peeked(other, &next), "S0.PURPOSE.1");
  other.sent_known = false;
  EXPECT_PASSES(l3_peeked(other, &next));
}

TEST(L3Peeked, TheActiveMessageAgainWhileOneIsActive) {
  uint64_t next = 0;
  L3Peeked o = peeked();
  o.has_active = true;
  o.active = o.m;
  EXPECT_PASSES(l3_peeked(o, &next));
  o.m.seq = 2;  // the next one, past the active
  EXPECT_FINDING(l3_peeked(o, &next), "S4.L3OUT.1,S4.L3OUT.2");
}

TEST(L3ActiveCallFailed, AViewFailureOrTheRaisedPeerFlagExplainsIt) {
  EXPECT_PASSES(l3_active_call_failed("release", L3Status::kFailed, true, false, ""));
  EXPECT_PASSES(l3_active_call_failed("release", L3Status::kFailed, false, true, ""));
  EXPECT_FINDING(l3_active_call_failed("release", L3Status::kFailed, false, false, "x"),
                 "S4.L3OUT.1");
}

TEST(L3ReadAnswer, ATooSmallBufferIsAUsageErrorOrPoisonNeverOk) {
  L3ReadAnswer o;
  o.n = 8;
  o.cap = 7;
  o.too_small = true;
  o.st = L3Status::kRejected;
  Verdict a = l3_read_answer(o);
  EXPECT_FALSE(a.failed());
  EXPECT_STREQ(a.reading, "AMB.SHORTBUF");
  EXPECT_STREQ(Verdict::stated().what, "A");
  o.st = L3Status::kFailed;
  Verdict b = l3_read_answer(o);
  EXPECT_FALSE(b.failed());
  EXPECT_STREQ(b.reading, "AMB.SHORTBUF");
  EXPECT_STREQ(Verdict::stated().what, "B");
  o.view_failed = true;  // then the poison is the view's: no reading
  EXPECT_EQ(l3_read_answer(o).reading, nullptr);
  o.st = L3Status::kOk;
  EXPECT_FINDING(l3_read_answer(o), "S1.DEQ.1");
  o.st = L3Status::kNoProgress;
  EXPECT_FINDING(l3_read_answer(o), "AMB.SHORTBUF");
}

TEST(L3ReadAnswer, OtherwiseOkOrExplained) {
  L3ReadAnswer o;
  o.n = o.cap = 8;
  EXPECT_PASSES(l3_read_answer(o));
  o.st = L3Status::kFailed;
  EXPECT_FINDING(l3_read_answer(o), "S4.L3OUT.1");
  o.peer_flag_up = true;
  EXPECT_PASSES(l3_read_answer(o));
}

TEST(L3ReadBytes, TheMessageAndNothingPastIt) {
  uint8_t buf[16];
  for (uint64_t i = 0; i < 16; ++i) buf[i] = 0xcd;
  for (uint64_t i = 0; i < 5; ++i) buf[i] = pattern_byte(0x5a, 2, i);
  L3ReadBytes o;
  o.buf = buf;
  o.size = sizeof(buf);
  o.n = 5;
  o.cap = 12;
  o.exact = true;
  o.salt = 0x5a;
  o.seq = 2;
  EXPECT_PASSES(l3_read_bytes(o));
  buf[11] = 0;
  EXPECT_FINDING(l3_read_bytes(o), "S1.DEQ.1");
  o.cap = 11;  // the byte is past the capacity passed: not the call's
  EXPECT_PASSES(l3_read_bytes(o));
  buf[4] ^= 1;
  EXPECT_FINDING(l3_read_bytes(o), "S0.PURPOSE.1,S3.PUB.5");
  o.exact = false;  // the harness's L2 forged the message
  EXPECT_PASSES(l3_read_bytes(o));
}

L3MisuseAnswer misuse(uint8_t variant, L3Status st, uint32_t kind) {
  L3MisuseAnswer o;
  o.variant = variant;
  o.st = st;
  o.kind = kind;
  return o;
}

TEST(L3MisuseAnswer, AStaleOrForgedHandlePoisonsWithSomeKind) {
  EXPECT_PASSES(l3_misuse_answer(misuse(kL3ReleaseStale, L3Status::kFailed, wire::kOwnership)));
  EXPECT_FINDING(l3_misuse_answer(misuse(kL3ReadStale, L3Status::kFailed, wire::kKindNone)),
                 "S4.L3OUT.3,S4.POISON.9");
  EXPECT_FINDING(l3_misuse_answer(misuse(kL3ReleaseBadSeq, L3Status::kRejected, 0)),
                 "S4.L3OUT.3,S4.POISON.9");
}

TEST(L3MisuseAnswer, AUsageErrorIsRejected) {
  EXPECT_PASSES(l3_misuse_answer(misuse(kL3TooBig, L3Status::kRejected, 0)));
  EXPECT_FINDING(l3_misuse_answer(misuse(kL3TooBig, L3Status::kNoProgress, 0)), "S2.FIT.2");
  EXPECT_PASSES(l3_misuse_answer(misuse(kL3BadTimeout, L3Status::kNoProgress, 0)));
  EXPECT_FINDING(l3_misuse_answer(misuse(kL3BadTimeout, L3Status::kOk, 0)), "AMB.TIMEOUTZERO");
}

TEST(L3MisuseAnswer, ANullBufferIsRejectedOrPoisons) {
  L3MisuseAnswer o = misuse(kL3NullBuffer, L3Status::kRejected, 0);
  Verdict a = l3_misuse_answer(o);
  EXPECT_FALSE(a.failed());
  EXPECT_STREQ(a.reading, "AMB.NULLBUF");
  EXPECT_STREQ(Verdict::stated().what, "A");
  o.stop_published = true;  // the closed input answered first: no reading
  EXPECT_EQ(l3_misuse_answer(o).reading, nullptr);
  L3MisuseAnswer b = misuse(kL3NullBuffer, L3Status::kFailed, wire::kOwnership);
  EXPECT_STREQ(l3_misuse_answer(b).reading, "AMB.NULLBUF");
  EXPECT_STREQ(Verdict::stated().what, "B");
  EXPECT_FINDING(l3_misuse_answer(misuse(kL3NullBuffer, L3Status::kOk, 0)), "AMB.NULLBUF");
}

// ------------------------------------------------------------ after every step

TEST(L3QuietStep, ADeadOrFreedQueueTouchesNothingAndStaysDead) {
  L3QuietStep dead;
  EXPECT_PASSES(l3_quiet_step(dead));
  dead.accesses = 1;
  EXPECT_FINDING(l3_quiet_step(dead), "S4.POISON.10,S4.POISON.14");
  dead.accesses = 0;
  dead.live = true;
  EXPECT_FINDING(l3_quiet_step(dead), "S4.POISON.10");
  L3QuietStep freed;
  freed.freed = true;
  EXPECT_PASSES(l3_quiet_step(freed));
  freed.accesses = 2;
  EXPECT_FINDING(l3_quiet_step(freed), "S1.FREE.1");
}

TEST(L3FirstErrorKept, TheFirstErrorStays) {
  EXPECT_PASSES(l3_first_error_kept(wire::kOwnership, "a", wire::kOwnership, "a"));
  EXPECT_FINDING(l3_first_error_kept(wire::kOwnership, "a", wire::kOwnership, "b"), "S4.POISON.10");
  EXPECT_FINDING(l3_first_error_kept(wire::kOwnership, "a", wire::kEndpointError, "a"),
                 "S4.POISON.10");
}

TEST(L3ViewViolations, NoneIsTheOnlyPass) {
  EXPECT_PASSES(l3_view_violations(true, ""));
  EXPECT_FINDING(l3_view_violations(false, "outside the span"), "S0.REGION.1");
}

L3Regions regions() {
  // depth 2: rings [0, 64) and [64, 128), input arena [128, 256), output [256, 384)
  L3Regions r;
  r.input_ring = 0;
  r.ring_bytes = 64;
  r.input_arena = 128;
  r.input_arena_bytes = 128;
  r.output_arena = 256;
  r.output_arena_bytes = 128;
  return r;
}

L3Access access(L3Access::Kind kind, uint64_t offset, uint64_t nbytes) {
  L3Access a;
  a.kind = kind;
  a.offset = offset;
  a.nbytes = nbytes;
  return a;
}

TEST(L3ViewAccess, WritesOnlyItsRingAndArena) {
  EXPECT_PASSES(l3_view_access(access(L3Access::kWrite, 32, 32), regions()));
  EXPECT_PASSES(l3_view_access(access(L3Access::kWrite, 200, 56), regions()));
  EXPECT_FINDING(l3_view_access(access(L3Access::kWrite, 64, 8), regions()),
                 "S2.ARENA.1,S2.LAYOUT.1");
  EXPECT_FINDING(l3_view_access(access(L3Access::kWrite, 256, 1), regions()),
                 "S2.ARENA.1,S2.LAYOUT.1");
}

TEST(L3ViewAccess, ReadsStayInsideOneRegion) {
  EXPECT_PASSES(l3_view_access(access(L3Access::kRead, 64, 64), regions()));
  EXPECT_PASSES(l3_view_access(access(L3Access::kRead, 300, 84), regions()));
  EXPECT_FINDING(l3_view_access(access(L3Access::kRead, 250, 16), regions()),
                 "S2.LAYOUT.1,S2.ARENA.2");
}

TEST(L3ViewAccess, NotifiesOnlyItsOwnSignalsWithSetAndTheFlagToOne) {
  L3Access tail = access(L3Access::kNotify, wire::kInputTail, 0);
  EXPECT_PASSES(l3_view_access(tail, regions()));
  L3Access other = access(L3Access::kNotify, wire::kOutputTail, 0);
  EXPECT_FINDING(l3_view_access(other, regions()), "S3.SIG.2,S3.SIG.5,S3.SIG.6,W.FLAG.3");
  tail.op = 1;
  EXPECT_FINDING(l3_view_access(tail, regions()), "W.CTR.1");
  L3Access flag = access(L3Access::kNotify, wire::kInitiatorFlag, 0);
  flag.value = 1;
  EXPECT_PASSES(l3_view_access(flag, regions()));
  flag.value = 2;
  EXPECT_FINDING(l3_view_access(flag, regions()), "W.FLAG.1");
}

L3Poison poison(uint32_t kind) {
  L3Poison o;
  o.kind = kind;
  o.session = o.want_session = 0x1330;
  o.txn = o.want_txn = 11;
  o.message = "why";
  return o;
}

TEST(L3NewPoison, CarriesIdentityAndAnExplanation) {
  L3Poison o = poison(wire::kOwnership);
  o.misuse_step = true;
  EXPECT_PASSES(l3_new_poison(o));
  L3Poison anon = o;
  anon.session = 0;
  EXPECT_FINDING(l3_new_poison(anon), "S1.DIAG.1");
  L3Poison mute = o;
  mute.message = "";
  EXPECT_FINDING(l3_new_poison(mute), "S1.DIAG.1,S4.POISON.10");
}

TEST(L3NewPoison, RemoteAbortNeedsTheRaisedFlagOtherKindsACause) {
  L3Poison ra = poison(wire::kRemoteAborted);
  ra.peer_flag = 1;
  EXPECT_PASSES(l3_new_poison(ra));
  ra.peer_flag = 0;
  EXPECT_FINDING(l3_new_poison(ra), "S4.POISON.12,W.FLAG.2");
  L3Poison honest = poison(wire::kInvalidDescriptor);
  EXPECT_FINDING(l3_new_poison(honest), "S4.POISON.10");
  honest.hostile = true;
  EXPECT_PASSES(l3_new_poison(honest));
}

TEST(L3NewPoison, AViewFailureIsEndpointError) {
  L3Poison o = poison(wire::kEndpointError);
  o.view_failed = true;
  EXPECT_PASSES(l3_new_poison(o));
  o.kind = wire::kOwnership;
  EXPECT_FINDING(l3_new_poison(o), "S4.POISON.7,S4.POISON.8,W.VIEW.2");
  o.misuse_step = true;  // the misuse may have chosen the kind (AMB.KINDS)
  EXPECT_PASSES(l3_new_poison(o));
}

TEST(L3AbortFlag, CountedAttemptsOnceForLocalPoison) {
  L3AbortFlag o;
  EXPECT_PASSES(l3_abort_flag(o));
  o.attempts = 1;
  EXPECT_FINDING(l3_abort_flag(o), "S4.POISON.13,W.FLAG.1");
  L3AbortFlag local;
  local.dead = true;
  local.kind = wire::kOwnership;
  local.attempts = 1;
  EXPECT_PASSES(l3_abort_flag(local));
  local.attempts = 0;
  EXPECT_FINDING(l3_abort_flag(local), "S4.POISON.11,W.FLAG.1");
  local.view_failed = true;  // the one attempt may have been swallowed
  EXPECT_PASSES(l3_abort_flag(local));
  L3AbortFlag remote;
  remote.dead = true;
  remote.kind = wire::kRemoteAborted;
  remote.attempts = 1;
  EXPECT_FINDING(l3_abort_flag(remote), "S4.POISON.13,W.FLAG.1");
}

TEST(L3AbortFlag, UncountedJudgesTheValue) {
  L3AbortFlag o;
  o.counted = false;
  o.attempts = 5;  // not looked at
  EXPECT_PASSES(l3_abort_flag(o));
  o.flag = 1;
  EXPECT_FINDING(l3_abort_flag(o), "S4.POISON.13,W.FLAG.1");
  o.dead = true;
  o.kind = wire::kBadArgument;
  EXPECT_PASSES(l3_abort_flag(o));
  o.flag = 0;
  EXPECT_FINDING(l3_abort_flag(o), "S4.POISON.11,W.FLAG.1");
}

TEST(L3HonestRun, NeverFails) {
  EXPECT_PASSES(l3_honest_run(false, ""));
  EXPECT_FINDING(l3_honest_run(true, "x"), "S0.USE.1,S4.POISON.10");
}

TEST(L3CounterSlots, HoldWhatWasEnqueuedAndReleasedUnlessTamperedOrDead) {
  L3CounterSlots o;
  o.enqueued = 3;
  o.input_tail = 3;
  o.released = 2;
  o.output_head = 2;
  EXPECT_PASSES(l3_counter_slots(o));
  L3CounterSlots tail = o;
  tail.input_tail = 2;
  EXPECT_FINDING(l3_counter_slots(tail), "S3.PUB.1,W.CTR.1");
  tail.input_tampered = true;
  EXPECT_PASSES(l3_counter_slots(tail));
  L3CounterSlots head = o;
  head.output_head = 1;
  EXPECT_FINDING(l3_counter_slots(head), "S3.PUB.5,W.CTR.1");
  head.dead = true;
  EXPECT_PASSES(l3_counter_slots(head));
}

TEST(L3InputTailWrite, OneStepPerEnqueueWithinDepth) {
  L3TailWrite w;
  w.written = 3;
  w.value = 4;
  w.l2_taken = 2;
  w.depth = 2;
  EXPECT_PASSES(l3_input_tail_write(w));
  L3TailWrite skip = w;
  skip.value = 5;
  EXPECT_FINDING(l3_input_tail_write(skip), "S3.CTR.1,W.CTR.1,S3.PUB.1");
  L3TailWrite full = w;
  full.l2_taken = 1;  // 4 > 1 + 2
  EXPECT_FINDING(l3_input_tail_write(full), "S2.CAP.1,S1.TRYENQ.1");
  full.tampered = true;
  EXPECT_PASSES(l3_input_tail_write(full));
}

TEST(L3OutputHeadWrite, OneStepPerRelease) {
  EXPECT_PASSES(l3_output_head_write(7, 8));
  EXPECT_FINDING(l3_output_head_write(7, 7), "S3.CTR.1,W.CTR.1,S3.PUB.5");
}

TEST(L3CountersSettled, WrittenIsEnqueuedAndReleased) {
  L3Counters c;
  c.tail_written = c.enqueued = 4;
  c.head_written = c.released = 1;
  EXPECT_PASSES(l3_counters_settled(c));
  L3Counters tail = c;
  tail.enqueued = 5;
  EXPECT_FINDING(l3_counters_settled(tail), "S3.PUB.1");
  L3Counters head = c;
  head.released = 2;
  EXPECT_FINDING(l3_counters_settled(head), "S3.PUB.5,S1.DEQ.1");
}

}  // namespace
}  // namespace spsq_fuzz
