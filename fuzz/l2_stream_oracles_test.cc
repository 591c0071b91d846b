#include "fuzz/l2_stream_oracles.h"

#include <cstdint>

#include "fuzz/oracle_test_util.h"
#include "fuzz/wire_model.h"
#include "gtest/gtest.h"

namespace spsq_fuzz {
namespace {

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
