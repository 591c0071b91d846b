#include "fuzz/l3_stream_oracles.h"

#include <cstdint>

#include "fuzz/oracle_test_util.h"
#include "fuzz/wire_model.h"
#include "gtest/gtest.h"

namespace spsq_fuzz {
namespace {

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
