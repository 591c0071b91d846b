// Spec section 4, "Ownership, Stop And Errors", from the L3 side: the one
// active output handle, STOP, poison and its causes.
#include <vector>

#include "conformance/l3/l3_fixture.h"

namespace spsq_conf {
namespace {

TEST_F(L3Suite, APeekedHandleStaysActiveUntilReleased) {
  SPSQ_CLAUSES("S4.L3OUT.1", "S4.L3OUT.2", "S4.OWN.1");
  Outputs(2);
  L3Message a, b;
  ASSERT_EQ(l3().peek(1000, &a), L3Status::kOk);
  EXPECT_EQ(a.seq, 1u);
  ASSERT_EQ(l3().try_peek(&b), L3Status::kOk);
  EXPECT_EQ(b.seq, 1u) << "try_peek returns the same active handle";
  EXPECT_EQ(b.payload_offset, a.payload_offset);
  EXPECT_EQ(peer().counter(wire::kOutputHead), 0) << "released before release()";
  ASSERT_EQ(l3().release(a), L3Status::kOk);
  EXPECT_EQ(peer().counter(wire::kOutputHead), 1);
  ASSERT_EQ(l3().try_peek(&b), L3Status::kOk);
  EXPECT_EQ(b.seq, 2u);
}

TEST_F(L3Suite, ReleasingTheWrongHandlePoisons) {
  SPSQ_CLAUSES("S4.L3OUT.3", "S4.POISON.9", "S4.POISON.11", "W.FLAG.1", "S1.DIAG.1");
  Outputs(2);
  L3Message a;
  ASSERT_EQ(l3().peek(1000, &a), L3Status::kOk);
  L3Message wrong = a;
  wrong.seq = 2;
  EXPECT_EQ(l3().release(wrong), L3Status::kFailed);
  ExpectPoisoned(0, "wrong handle");
  EXPECT_EQ(peer().counter(wire::kOutputHead), 0);
  EXPECT_EQ(l3().error().session_instance_id_bits, region().params().session);
  EXPECT_EQ(l3().error().transaction_id, region().params().transaction);
}

TEST_F(L3Suite, RequestStopPublishesAZeroByteStop) {
  SPSQ_CLAUSES("S1.STOPAPI.1", "S4.STOP.1", "S4.STOP.4", "W.STOP.1");
  for (int variant = 0; variant < 2; ++variant) {
    Rebuild(QueueParams());
    const auto b = Bytes(10, 1);
    ASSERT_EQ(l3().try_enqueue(b.data(), b.size()), L3Status::kOk);
    const uint64_t t0 = VirtualClock::peek();
    ASSERT_EQ(variant ? l3().request_stop(5000) : l3().try_request_stop(), L3Status::kOk);
    EXPECT_EQ(VirtualClock::peek(), t0) << "nothing to wait for: STOP is published at once";
    const auto in = peer().drain_inputs();
    ASSERT_EQ(in.size(), 2u);
    EXPECT_EQ(in[1].opcode, wire::kStop);
    EXPECT_EQ(in[1].nbytes, 0u);
    EXPECT_EQ(in[1].offset, 0u);
  }
}

TEST_F(L3Suite, InputAfterStopIsRejectedLocally) {
  SPSQ_CLAUSES("S4.STOP.2");
  ASSERT_EQ(l3().try_request_stop(), L3Status::kOk);
  const int32_t tail = peer().counter(wire::kInputTail);
  const auto b = Bytes(4, 1);
  const L3Status s = l3().try_enqueue(b.data(), b.size());
  EXPECT_NE(s, L3Status::kOk);
  EXPECT_NE(s, L3Status::kFailed) << "rejected locally, not poisoned";
  EXPECT_NE(l3().enqueue(b.data(), b.size(), 1000), L3Status::kOk);
  EXPECT_EQ(peer().counter(wire::kInputTail), tail) << "nothing published after STOP";
  ExpectHealthy("input after STOP");
}

TEST_F(L3Suite, RequestStopWaitsNeitherForL2NorForOutputs) {
  SPSQ_CLAUSES("S4.STOP.5", "S4.STOP.3");
  Outputs(2);
  const uint64_t t0 = VirtualClock::peek();
  ASSERT_EQ(l3().request_stop(1000000), L3Status::kOk);
  EXPECT_LT(VirtualClock::peek() - t0, 1000000u) << "request_stop waited for L2";
  EXPECT_EQ(peer().counter(wire::kOutputHead), 0) << "request_stop drained outputs";
  uint8_t buf[16];
  L3Message m;
  ASSERT_EQ(l3().try_dequeue_into(buf, sizeof(buf), &m), L3Status::kOk) << "outputs after STOP";
  ASSERT_EQ(l3().try_dequeue_into(buf, sizeof(buf), &m), L3Status::kOk);
  EXPECT_EQ(m.seq, 2u);
}

struct Hostile {
  const char* name;
  wire::Descriptor d;
  uint32_t kind;
};

TEST_F(L3Suite, HostileOutputsPoisonL3) {
  SPSQ_CLAUSES("S4.POISON.1", "S4.POISON.2", "S4.POISON.3", "S4.POISON.4", "S2.STOP.1",
               "S2.ZERO.2", "W.SEQ.1", "W.DIR.1", "W.ARENA.3", "S2.POISON.1", "S4.POISON.6",
               "AMB.KINDS");
  const wire::Layout& l = layout();
  const Hostile cases[] = {
      {"seq 0", {0, wire::kData, 0, 0}, wire::kInvalidDescriptor},
      {"seq 2 at index 0", {2, wire::kData, 0, 0}, wire::kInvalidDescriptor},
      {"opcode 0", {1, 0, 0, 0}, wire::kInvalidDescriptor},
      {"opcode 9", {1, 9, 0, 0}, wire::kInvalidDescriptor},
      {"STOP on the output", {1, wire::kStop, 0, 0}, wire::kInvalidDescriptor},
      {"payload in the input arena", {1, wire::kData, l.input_arena, 8}, wire::kInvalidDescriptor},
      {"payload past the end", {1, wire::kData, l.payload_bytes - 4, 8}, wire::kInvalidDescriptor},
      {"zero-byte with an offset", {1, wire::kData, l.output_arena, 0}, wire::kInvalidDescriptor},
      {"replay: one byte off", {1, wire::kData, l.output_arena + 1, 8}, wire::kInvalidDescriptor},
  };
  for (const Hostile& c : cases) {
    Rebuild(QueueParams());
    peer().publish_raw(c.d);
    L3Message m;
    EXPECT_EQ(l3().try_peek(&m), L3Status::kFailed) << c.name;
    ExpectPoisoned(c.kind, c.name);
    EXPECT_EQ(peer().counter(wire::kInputTail), 0) << c.name << ": no message to L2 about it";
  }
}

TEST_F(L3Suite, PoisonIsTerminalAndFreeStaysValid) {
  SPSQ_CLAUSES("S4.POISON.10", "S4.POISON.14", "S4.POISON.15");
  peer().publish_raw(wire::Descriptor{5, wire::kData, 0, 0});
  L3Message m;
  EXPECT_EQ(l3().try_peek(&m), L3Status::kFailed);
  ExpectPoisoned(wire::kInvalidDescriptor, "bad seq");
  const uint32_t kind = l3().error().kind;
  ExpectRejectsEverything("after poison");
  EXPECT_EQ(l3().error().kind, kind) << "the first error stays";
  l3().free();  // cleanup after poison
  EXPECT_FALSE(l3().live());
}

TEST_F(L3Suite, FailedSharedMutationPoisons) {
  SPSQ_CLAUSES("S4.POISON.7", "S4.POISON.8", "W.VIEW.2");
  if (!l3().uses_view()) GTEST_SKIP() << l3().name() << " does not run on the harness view";
  for (ViewCall call : {ViewCall::kWrite, ViewCall::kNotify}) {
    Rebuild(QueueParams());
    region().view_state().sticky_faults = false;  // the flag can still be raised
    region().faults().arm(call, 1);
    const auto b = Bytes(16, 1);
    EXPECT_EQ(l3().try_enqueue(b.data(), b.size()), L3Status::kFailed) << view_call_name(call);
    ASSERT_TRUE(region().faults().fired());
    ExpectPoisoned(wire::kEndpointError, view_call_name(call));
    EXPECT_EQ(peer().counter(wire::kInputTail), 0) << "published after a failed write";
  }
}

}  // namespace
}  // namespace spsq_conf
