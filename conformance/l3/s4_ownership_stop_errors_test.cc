// Spec section 4, "Ownership, Stop And Errors", from the L3 side: the one
// active output handle and every way of releasing the wrong one, STOP and
// what follows it, no-progress on every blocking and try call, poison and its
// causes. Kinds no document fixes are recorded (AMB.KINDS), never judged.
#include <deque>
#include <limits>
#include <string>
#include <vector>

#include "conformance/l3/l3_fixture.h"

namespace spsq_conf {
namespace {

constexpr uint64_t kMax64 = std::numeric_limits<uint64_t>::max();

class L3Ownership : public L3Suite {
 protected:
  // A release that must poison: kFailed, poisoned, the output head unchanged.
  // These judge the caller's block (the wrong handle's case); the flag and
  // the kind are judged in ExpectPoisoned's blocks and here.
  void ExpectReleasePoisons(const L3Message& m, const char* cause) {
    const int32_t head = peer().counter(wire::kOutputHead);
    EXPECT_EQ(l3().release(m), L3Status::kFailed) << cause;
    ExpectPoisoned(0, cause);
    EXPECT_EQ(peer().counter(wire::kOutputHead), head) << cause << ": the output head moved";
    SPSQ_JUDGING("AMB.KINDS/handle");
    NoteKind("handle", {wire::kOwnership});
  }
  // L3 peeks and releases n outputs.
  void DequeueOutputs(uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) {
      L3Message m;
      ASSERT_EQ(l3().try_peek(&m), L3Status::kOk) << "output " << i;
      ASSERT_EQ(l3().release(m), L3Status::kOk);
    }
  }
  int32_t InputTail() { return peer().counter(wire::kInputTail); }
};

TEST_F(L3Ownership, APeekedHandleStaysActiveUntilReleased) {
  SPSQ_CLAUSES("S4.L3OUT.1", "S4.L3OUT.2", "S4.OWN.1/l3-output");
  Outputs(2);
  L3Message a, b;
  ASSERT_EQ(l3().peek(1000, &a), L3Status::kOk);
  EXPECT_EQ(a.seq, 1u);
  ASSERT_EQ(l3().try_peek(&b), L3Status::kOk);
  EXPECT_EQ(b.seq, 1u) << "try_peek returns the same active handle";
  EXPECT_EQ(b.payload_offset, a.payload_offset);
  ASSERT_EQ(l3().try_peek(&b), L3Status::kOk);
  EXPECT_EQ(b.seq, 1u) << "and again";
  EXPECT_EQ(peer().counter(wire::kOutputHead), 0) << "released before release()";
  ASSERT_EQ(l3().release(a), L3Status::kOk);
  EXPECT_EQ(peer().counter(wire::kOutputHead), 1) << "one release, one message";
  ASSERT_EQ(l3().try_peek(&b), L3Status::kOk);
  EXPECT_EQ(b.seq, 2u);
  ASSERT_EQ(l3().release(b), L3Status::kOk);
  EXPECT_EQ(peer().counter(wire::kOutputHead), 2);
}

// Every wrong handle: the active one renamed (the next seq, one 2^32 away,
// 2^64 - 1, 0), with another offset or size, a released one (while the next
// is active, or with none active), one with nothing handed out, and a stale
// zero-byte one whose slot, offset and size the active one reuses after the
// ring wrapped.
TEST_F(L3Ownership, ReleasingTheWrongHandlePoisons) {
  // The active handle (two outputs published) released under another name.
  auto renamed = [&](const char* name, uint64_t seq_delta, uint64_t offset_delta,
                     uint64_t nbytes_delta) {
    Rebuild(QueueParams());
    Outputs(2);
    L3Message a;
    ASSERT_EQ(l3().peek(1000, &a), L3Status::kOk);
    L3Message wrong = a;
    wrong.seq += seq_delta;  // wraps to 2^64 - 1 and 0 as meant
    wrong.payload_offset += offset_delta;
    wrong.payload_nbytes += nbytes_delta;
    ExpectReleasePoisons(wrong, name);
    {
      SPSQ_JUDGING("S1.DIAG.1/l3-poison");
      EXPECT_EQ(l3().error().session_instance_id_bits, region().params().session) << name;
      EXPECT_EQ(l3().error().transaction_id, region().params().transaction) << name;
    }
    SPSQ_JUDGING("W.FLAG.1/l3");
    EXPECT_EQ(log().count([](const spsq_conf::Access& x) {
                return x.kind == AccessKind::kNotify && x.offset == wire::kInitiatorFlag &&
                       x.value == 1 && x.op == 0;
              }), 1u) << name << ": W.FLAG.1: notify(256, 1, Set) once";
  };
  {
    SPSQ_JUDGING("S4.L3OUT.3/seq-next", "S4.POISON.9/l3");
    renamed("active handle renamed to the next seq", 1, 0, 0);
  }
  {
    SPSQ_JUDGING("S4.L3OUT.3/seq-alias", "S4.POISON.9/l3");
    renamed("active handle renamed 2^32 ahead (same low 32 bits)", uint64_t{1} << 32, 0, 0);
  }
  {
    SPSQ_JUDGING("S4.L3OUT.3/seq-max", "S4.POISON.9/l3");
    renamed("active handle renamed to seq 2^64 - 1", kMax64 - 1, 0, 0);
  }
  {
    SPSQ_JUDGING("S4.L3OUT.3/seq0", "S4.POISON.9/l3");
    renamed("active handle renamed to seq 0", kMax64, 0, 0);
  }
  {
    SPSQ_JUDGING("S4.L3OUT.3/offset", "S4.POISON.9/l3");
    renamed("active handle with another payload_offset", 0, 8, 0);
  }
  {
    SPSQ_JUDGING("S4.L3OUT.3/nbytes", "S4.POISON.9/l3");
    renamed("active handle with another payload_nbytes", 0, 0, 1);
  }
  // A released handle, the next one active or none.
  auto released = [&](bool next_active) {
    Rebuild(QueueParams());
    Outputs(2);
    L3Message a, b;
    ASSERT_EQ(l3().try_peek(&a), L3Status::kOk);
    ASSERT_EQ(l3().release(a), L3Status::kOk);
    if (next_active) {
      ASSERT_EQ(l3().try_peek(&b), L3Status::kOk);
    }
    ExpectReleasePoisons(a, next_active ? "released handle, the next one active"
                                        : "released handle, none active");
  };
  {
    SPSQ_JUDGING("S4.L3OUT.3/released", "S4.POISON.9/l3");
    released(true);
  }
  {
    SPSQ_JUDGING("S4.L3OUT.3/released-idle", "S4.POISON.9/l3");
    released(false);
  }
  {
    // Stale handle ownership through read_into: a released handle whose
    // fields, but for its seq, are the active one's (both zero-byte DATA).
    SPSQ_JUDGING("S4.POISON.9/l3-read");
    Rebuild(QueueParams());
    ASSERT_EQ(peer().publish(wire::kData, nullptr, 0), Enqueue::kOk);
    ASSERT_EQ(peer().publish(wire::kData, nullptr, 0), Enqueue::kOk);
    L3Message a, b;
    ASSERT_EQ(l3().try_peek(&a), L3Status::kOk);
    ASSERT_EQ(l3().release(a), L3Status::kOk);
    ASSERT_EQ(l3().try_peek(&b), L3Status::kOk);
    ASSERT_EQ(b.seq, a.seq + 1);
    const int32_t head = peer().counter(wire::kOutputHead);
    uint8_t byte = 0;
    EXPECT_EQ(l3().read_into(a, &byte, 1), L3Status::kFailed)
        << "read_into through the released handle of seq " << a.seq;
    ExpectPoisoned(0, "read_into through a released handle");
    EXPECT_EQ(peer().counter(wire::kOutputHead), head) << "the output head moved";
  }
  {
    SPSQ_JUDGING("S4.L3OUT.3/never", "S4.POISON.9/l3");
    Rebuild(QueueParams());
    Outputs(1);
    L3Message never;
    ExpectReleasePoisons(never, "release with no message handed out");
  }
  {
    SPSQ_JUDGING("S4.L3OUT.3/wrap", "S4.POISON.9/l3");
    Rebuild(QueueParams());
    const uint64_t depth = layout().depth;
    ASSERT_EQ(peer().publish(wire::kData, nullptr, 0), Enqueue::kOk);
    L3Message first;
    ASSERT_EQ(l3().try_peek(&first), L3Status::kOk);
    ASSERT_EQ(l3().release(first), L3Status::kOk);
    for (uint64_t i = 1; i <= depth; ++i) {
      ASSERT_EQ(peer().publish(wire::kData, nullptr, 0), Enqueue::kOk) << i;
      if (i < depth) DequeueOutputs(1);
    }
    L3Message active;
    ASSERT_EQ(l3().try_peek(&active), L3Status::kOk);
    ASSERT_EQ(active.seq, depth + 1);
    ExpectReleasePoisons(first, "stale zero-byte handle of the active one's slot");
  }
}

// ----------------------------------------------------------------- STOP

TEST_F(L3Ownership, RequestStopPublishesAZeroByteStop) {
  for (int variant = 0; variant < 2; ++variant) {
    SCOPED_TRACE(variant ? "request_stop(5000)" : "try_request_stop()");
    Rebuild(QueueParams());
    const auto b = Bytes(10, 1);
    uint64_t t0 = 0;
    std::vector<Message> in;
    {
      SPSQ_JUDGING("S1.STOPAPI.1");
      ASSERT_EQ(l3().try_enqueue(b.data(), b.size()), L3Status::kOk);
      t0 = VirtualClock::peek();
      ASSERT_EQ(variant ? l3().request_stop(5000) : l3().try_request_stop(), L3Status::kOk);
      in = peer().drain_inputs();
      ASSERT_EQ(in.size(), 2u) << "one sized DATA, then one STOP";
      EXPECT_EQ(in[1].opcode, wire::kStop);
    }
    {
      SPSQ_JUDGING("S4.STOP.4");
      EXPECT_EQ(VirtualClock::peek(), t0) << "nothing to wait for: STOP is published at once";
    }
    {
      SPSQ_JUDGING("S4.STOP.1/l3-zero", "W.STOP.1/l3-stop");
      EXPECT_EQ(in[1].nbytes, 0u);
      EXPECT_EQ(in[1].offset, 0u) << "STOP after a sized message still has offset 0";
    }
  }
}

TEST_F(L3Ownership, ZeroByteDataHasOffsetZero) {
  SPSQ_CLAUSES("W.STOP.1/l3-zero");
  const auto b = Bytes(24, 1);
  ASSERT_EQ(l3().try_enqueue(nullptr, 0), L3Status::kOk) << "first message";
  ASSERT_EQ(l3().try_enqueue(b.data(), b.size()), L3Status::kOk);
  ASSERT_EQ(l3().try_enqueue(nullptr, 0), L3Status::kOk) << "with the cursor past the start";
  const auto in = peer().drain_inputs();
  ASSERT_EQ(in.size(), 3u);
  for (size_t i : {size_t{0}, size_t{2}}) {
    EXPECT_EQ(in[i].nbytes, 0u);
    EXPECT_EQ(in[i].offset, 0u) << "zero-byte message " << i + 1;
  }
}

TEST_F(L3Ownership, InputAfterStopIsRejectedLocally) {
  SPSQ_CLAUSES("S4.STOP.2/try-enqueue", "S4.STOP.2/enqueue", "S4.STOP.2/zero-byte",
               "S4.STOP.2/second-stop", "S4.STOP.2/after-blocking-stop");
  for (bool blocking_stop : {false, true}) {
    Rebuild(QueueParams());
    ASSERT_EQ(blocking_stop ? l3().request_stop(1000) : l3().try_request_stop(), L3Status::kOk);
    const int32_t tail = InputTail();
    const auto b = Bytes(4, 1);
    const L3Status s = l3().try_enqueue(b.data(), b.size());
    EXPECT_NE(s, L3Status::kOk);
    EXPECT_NE(s, L3Status::kFailed) << "rejected locally, not poisoned";
    const L3Status z = l3().try_enqueue(nullptr, 0);
    EXPECT_NE(z, L3Status::kOk) << "zero-byte input after STOP";
    EXPECT_NE(z, L3Status::kFailed);
    const L3Status e = l3().enqueue(b.data(), b.size(), 1000);
    EXPECT_NE(e, L3Status::kOk);
    EXPECT_NE(e, L3Status::kFailed);
    // STOP is an input message too: a second one publishes nothing.
    for (int again = 0; again < 2; ++again) {
      const L3Status st = again ? l3().request_stop(1000) : l3().try_request_stop();
      EXPECT_NE(st, L3Status::kFailed) << "a second STOP request poisoned";
    }
    EXPECT_EQ(InputTail(), tail) << "something was published after STOP";
    ExpectHealthy("input after STOP");
  }
}

TEST_F(L3Ownership, RequestStopWaitsNeitherForL2NorForOutputs) {
  SPSQ_CLAUSES("S4.STOP.5", "S4.STOP.3/l3-dequeues");
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
  // And outputs L2 publishes after STOP.
  ASSERT_EQ(peer().publish_data(Bytes(8, 7)), Enqueue::kOk);
  ASSERT_EQ(l3().dequeue_into(buf, sizeof(buf), 1000, &m), L3Status::kOk);
  EXPECT_EQ(m.seq, 3u);
}

// ---------------------------------------------------------- no-progress

TEST_F(L3Ownership, FullInputRingAndArenaAreNoProgress) {
  const auto b = Bytes(8, 1);
  {
    SPSQ_JUDGING("S4.NOPROG.4/l3-enqueue", "S4.NOPROG.4/l3-stop");
    ASSERT_EQ(peer().counter(wire::kPeerFlag), 0);  // timeouts with no peer abort flag
  }
  {
    SPSQ_JUDGING("S4.NOPROG.1/l3-try");
    SPSQ_SETUP(FillInputRing());
    EXPECT_EQ(l3().try_enqueue(b.data(), b.size()), L3Status::kNoProgress) << "ring full";
    ExpectHealthy("try_enqueue, input ring full");
  }
  {
    SPSQ_JUDGING("S4.NOPROG.1/l3-blocking", "S4.NOPROG.4/l3-enqueue");
    EXPECT_EQ(l3().enqueue(b.data(), b.size(), 5000), L3Status::kTimedOut) << "ring full";
    ExpectHealthy("enqueue, input ring full");
  }
  {
    SPSQ_JUDGING("S4.NOPROG.1/l3-blocking", "S4.NOPROG.4/l3-stop");
    EXPECT_EQ(l3().request_stop(5000), L3Status::kTimedOut) << "ring full: STOP has no slot";
    ExpectHealthy("request_stop, input ring full");
  }
  {
    SPSQ_JUDGING("S4.NOPROG.1/l3-try", "S4.NOPROG.1/l3-blocking");  // non-terminal
    Message m;
    ASSERT_TRUE(peer().poll_input(&m));
    peer().release_inputs(1);
    EXPECT_EQ(l3().try_enqueue(b.data(), b.size()), L3Status::kOk) << "room once L2 released";
  }
  // The arena: 200 of 256 bytes unreleased leave no room for 100.
  const auto big = Bytes(200, 2), more = Bytes(100, 3);
  {
    SPSQ_JUDGING("S4.NOPROG.2/l3-try");
    Rebuild(QueueParams());
    ASSERT_EQ(l3().try_enqueue(big.data(), big.size()), L3Status::kOk);
    EXPECT_EQ(l3().try_enqueue(more.data(), more.size()), L3Status::kNoProgress) << "arena full";
    ExpectHealthy("try_enqueue, input arena full");
  }
  {
    SPSQ_JUDGING("S4.NOPROG.2/l3-blocking", "S4.NOPROG.4/l3-enqueue");
    EXPECT_EQ(l3().enqueue(more.data(), more.size(), 5000), L3Status::kTimedOut) << "arena full";
    ExpectHealthy("enqueue, input arena full");
  }
  SPSQ_JUDGING("S4.NOPROG.2/l3-try", "S4.NOPROG.2/l3-blocking");  // non-terminal
  peer().drain_inputs();
  EXPECT_EQ(l3().enqueue(more.data(), more.size(), 5000), L3Status::kOk)
      << "room once L2 released";
}

TEST_F(L3Ownership, EmptyOutputIsNoProgress) {
  SPSQ_CLAUSES("S4.NOPROG.3", "S4.NOPROG.4/l3-peek", "S4.NOPROG.4/l3-dequeue");
  L3Message m;
  uint8_t buf[16];
  EXPECT_EQ(l3().try_peek(&m), L3Status::kNoProgress);
  EXPECT_EQ(l3().try_dequeue_into(buf, sizeof(buf), &m), L3Status::kNoProgress);
  EXPECT_EQ(l3().peek(5000, &m), L3Status::kTimedOut);
  EXPECT_EQ(l3().dequeue_into(buf, sizeof(buf), 5000, &m), L3Status::kTimedOut);
  ExpectHealthy("empty output");
  Outputs(1);
  EXPECT_EQ(l3().peek(5000, &m), L3Status::kOk) << "still live";
}

TEST_F(L3Ownership, AnErrorOutputIsAnOrdinaryMessage) {
  SPSQ_CLAUSES("S4.NOPROG.5/l3-receive");
  ASSERT_EQ(peer().publish(wire::kError, Bytes(8, 1).data(), 8), Enqueue::kOk);
  ASSERT_EQ(peer().publish(wire::kError, nullptr, 0), Enqueue::kOk);
  uint8_t buf[16];
  L3Message m;
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(l3().try_dequeue_into(buf, sizeof(buf), &m), L3Status::kOk) << "ERROR " << i + 1;
    EXPECT_EQ(m.opcode, wire::kError);
  }
  ExpectHealthy("two ERROR outputs received");
}

// ------------------------------------------------------- poison causes

// Each output descriptor L3 must refuse, on a fresh queue: poisoned, the
// flag raised, no input sent about it.
TEST_F(L3Ownership, HostileOutputsPoisonL3) {
  const wire::Layout l = layout();  // a copy: Rebuild() replaces the region
  // `kind`: fixed by a document; 0: AMB.KINDS's, noted by the caller.
  auto hostile = [&](const char* name, wire::Descriptor d, uint32_t kind) {
    Rebuild(QueueParams());
    peer().publish_raw(d);
    L3Message m;
    EXPECT_EQ(l3().try_peek(&m), L3Status::kFailed) << name;
    ExpectPoisoned(kind, name);
    SPSQ_JUDGING("S2.POISON.1");
    EXPECT_EQ(InputTail(), 0) << name << ": no message to L2 about it";
  };
  {
    SPSQ_JUDGING("S4.POISON.1/l3", "W.SEQ.1/l3-output");
    hostile("seq 0", {0, wire::kData, 0, 0}, wire::kInvalidDescriptor);
    hostile("seq 2 at index 0", {2, wire::kData, 0, 0}, wire::kInvalidDescriptor);
    hostile("seq 2^64 - 1 at index 0", {kMax64, wire::kData, 0, 0}, wire::kInvalidDescriptor);
  }
  {
    SPSQ_JUDGING("S4.POISON.2/l3", "W.DIR.1/l3-output-invalid");
    hostile("opcode 0", {1, 0, 0, 0}, 0);
    {
      SPSQ_JUDGING("AMB.KINDS/opcode");
      NoteKind("opcode", {wire::kInvalidDescriptor});
    }
    hostile("opcode 9", {1, 9, 0, 0}, 0);
    SPSQ_JUDGING("AMB.KINDS/opcode");
    NoteKind("opcode", {wire::kInvalidDescriptor});
  }
  {
    SPSQ_JUDGING("S4.POISON.3/l3", "S2.STOP.1/l3-output");
    hostile("STOP on the output", {1, wire::kStop, 0, 0}, 0);
    SPSQ_JUDGING("AMB.KINDS/output-stop");
    NoteKind("output-stop", {wire::kInvalidDescriptor});
  }
  {
    SPSQ_JUDGING("S4.POISON.4/l3", "W.ARENA.3/l3");
    hostile("payload in the input arena", {1, wire::kData, l.input_arena, 8},
            wire::kInvalidDescriptor);
    hostile("payload past the end", {1, wire::kData, l.payload_bytes - 4, 8},
            wire::kInvalidDescriptor);
  }
  {
    SPSQ_JUDGING("S2.ZERO.2/l3-output", "W.STOP.1/l3-output");
    hostile("zero-byte with an offset", {1, wire::kData, l.output_arena, 0}, 0);
    SPSQ_JUDGING("AMB.KINDS/zero-offset");
    NoteKind("zero-offset", {wire::kInvalidDescriptor});
  }
  {
    SPSQ_JUDGING("S4.POISON.6/l3", "W.ARENA.3/l3");
    hostile("replay: one byte off", {1, wire::kData, l.output_arena + 1, 8},
            wire::kInvalidDescriptor);
  }
}

TEST_F(L3Ownership, ImpossibleCountersPoisonL3) {
  SPSQ_CLAUSES("S4.POISON.5/l3-tail", "S4.POISON.5/l3-head");
  const uint64_t depth = layout().depth;
  peer().set_output_tail(wire::low32(depth + 1));
  L3Message m;
  EXPECT_EQ(l3().try_peek(&m), L3Status::kFailed) << "output tail depth + 1 ahead";
  ExpectPoisoned(wire::kInvalidDescriptor, "output tail depth + 1 ahead");
  // The input head past the tail, read when L3 needs room.
  Rebuild(QueueParams());
  for (uint64_t i = 0; i < depth; ++i) {
    ASSERT_EQ(l3().try_enqueue(nullptr, 0), L3Status::kOk);
  }
  peer().set_input_head(wire::low32(depth + 1));
  EXPECT_EQ(l3().try_enqueue(nullptr, 0), L3Status::kFailed) << "input head past the tail";
  ExpectPoisoned(wire::kInvalidDescriptor, "input head past the tail");
}

TEST_F(L3Ownership, PoisonIsTerminalAndFreeStaysValid) {
  SPSQ_CLAUSES("S4.POISON.10/l3", "S4.POISON.14/l3", "S4.POISON.15/l3-free");
  Outputs(1);
  L3Message held;
  ASSERT_EQ(l3().try_peek(&held), L3Status::kOk);
  ASSERT_EQ(l3().release(held), L3Status::kOk);
  ASSERT_EQ(l3().try_peek(&held), L3Status::kNoProgress);
  peer().publish_raw(wire::Descriptor{5, wire::kData, 0, 0});
  L3Message m;
  EXPECT_EQ(l3().try_peek(&m), L3Status::kFailed);
  ExpectPoisoned(wire::kInvalidDescriptor, "bad seq");
  const L3ErrorInfo first = l3().error();
  ExpectRejectsEverything("after poison");
  EXPECT_EQ(l3().release(m), L3Status::kFailed) << "release after poison";
  EXPECT_EQ(l3().request_stop(1000), L3Status::kFailed) << "request_stop after poison";
  const L3ErrorInfo now = l3().error();
  EXPECT_EQ(now.kind, first.kind) << "the first error stays";
  EXPECT_EQ(now.op, first.op) << "the first error's op stays";
  EXPECT_EQ(now.message, first.message) << "the first error's message stays";
  EXPECT_EQ(l3_flag(), 1);
  const size_t mark = log().mark();
  l3().free();  // cleanup after poison
  EXPECT_FALSE(l3().live());
  if (l3().uses_view()) {
    EXPECT_EQ(log().shared_accesses_since(mark), 0u) << "free() after poison touched memory";
  }
}

TEST_F(L3Ownership, FailedSharedMutationPoisons) {
  if (!l3().uses_view()) GTEST_SKIP() << l3().name() << " does not run on the harness view";
  // The first payload write, then the input tail Set, of an enqueue.
  for (ViewCall call : {ViewCall::kWrite, ViewCall::kNotify}) {
    SPSQ_JUDGING(call == ViewCall::kWrite ? "S4.POISON.7/l3" : "S4.POISON.8/l3-tail",
                 call == ViewCall::kWrite ? "W.VIEW.2/l3-write" : "W.VIEW.2/l3-notify");
    Rebuild(QueueParams());
    region().view_state().sticky_faults = false;  // the flag can still be raised
    region().faults().arm(call, 1);
    const auto b = Bytes(16, 1);
    EXPECT_EQ(l3().try_enqueue(b.data(), b.size()), L3Status::kFailed) << view_call_name(call);
    ASSERT_TRUE(region().faults().fired());
    ExpectPoisoned(wire::kEndpointError, view_call_name(call));
    EXPECT_EQ(InputTail(), 0) << "published after a failed write";
  }
  // The output head Set of a release.
  SPSQ_JUDGING("S4.POISON.8/l3-head", "W.VIEW.2/l3-notify");
  Rebuild(QueueParams());
  region().view_state().sticky_faults = false;
  Outputs(1);
  L3Message m;
  ASSERT_EQ(l3().try_peek(&m), L3Status::kOk);
  region().faults().arm(ViewCall::kNotify, 1);
  EXPECT_EQ(l3().release(m), L3Status::kFailed) << "output head notify failed";
  ASSERT_TRUE(region().faults().fired());
  ExpectPoisoned(wire::kEndpointError, "output head notify failed");
}

TEST_F(L3Ownership, RemoteAbortIsReportedWithoutRaisingTheLocalFlag) {
  SPSQ_CLAUSES("S4.POISON.12/l3-peek", "S4.POISON.12/l3-enqueue", "S4.POISON.13/l3");
  peer().set_peer_flag(1);
  L3Message m;
  EXPECT_EQ(l3().peek(2000, &m), L3Status::kFailed) << "peek, the peer flag raised";
  ExpectKind(wire::kRemoteAborted, "peek, the peer flag raised");
  EXPECT_EQ(l3_flag(), 0) << "observing the peer flag raised the local one";
  Rebuild(QueueParams());
  for (uint64_t i = 0; i < layout().depth; ++i) {
    ASSERT_EQ(l3().try_enqueue(nullptr, 0), L3Status::kOk);
  }
  peer().set_peer_flag(1);
  EXPECT_EQ(l3().enqueue(nullptr, 0, 2000), L3Status::kFailed) << "enqueue, the peer flag raised";
  ExpectKind(wire::kRemoteAborted, "enqueue, the peer flag raised");
  EXPECT_EQ(l3_flag(), 0);
  if (l3().uses_view()) {
    EXPECT_EQ(log().count([](const spsq_conf::Access& a) {
                return a.kind == AccessKind::kNotify && a.offset == wire::kInitiatorFlag;
              }), 0u);
  }
}

// W.ARENA.2 on L3 as the input producer: every placement keeps the bound
// (the harness's arena model; the idle-arena exception of the liveness rule
// applies), refusals are not judged here.
TEST_F(L3Ownership, NoInputPlacementOverUnreleasedPayload) {
  SPSQ_CLAUSES("W.ARENA.2/l3");
  SPSQ_EXERCISES("S4.NOPROG.2", "W.ARENA.1");
  QueueParams p;
  p.depth = 64;  // the arena, not the ring, runs out
  Rebuild(p);
  const uint64_t arena = layout().input_arena_bytes;
  uint64_t cursor = 0, released = 0;
  std::deque<uint64_t> ends;
  auto place = [&](uint64_t n, const char* context) {
    wire::Placement pl;
    const bool fits = wire::place(cursor, n, layout().input_arena, arena, &pl);
    const auto b = Bytes(n, static_cast<uint8_t>(n));
    const L3Status s = l3().try_enqueue(n ? b.data() : nullptr, n);
    if (s != L3Status::kOk) return;
    EXPECT_TRUE(fits) << context;
    EXPECT_TRUE(wire::has_room(released, cursor, pl, arena, /*idle_exception=*/true))
        << context << ": W.ARENA.2: placed " << n << " bytes at cursor " << cursor
        << " with released cursor " << released << " (new_cursor - released_cursor = "
        << pl.next - released << " > " << arena << ")";
    if (n != 0) cursor = pl.next;
    ends.push_back(cursor);
  };
  auto probe = [&](const char* context) {
    for (uint64_t n = arena; n >= 1; n = n > 8 ? n - 7 : n - 1) place(n, context);
  };
  for (uint64_t n : {40, 64, 1, 100, 17, 0, 30}) place(n, "filling the arena");
  probe("nothing released");
  // L2 takes and releases all but the newest, then the bound again.
  for (int lap = 0; lap < 4; ++lap) {
    while (ends.size() > 1) {
      Message m;
      ASSERT_TRUE(peer().poll_input(&m));
      peer().release_inputs(1);
      released = ends.front();
      ends.pop_front();
    }
    place(100, "a skip past the released prefix");
    probe("a later lap, the newest input held");
  }
}

}  // namespace
}  // namespace spsq_conf
