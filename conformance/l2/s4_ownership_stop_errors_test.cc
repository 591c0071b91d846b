// Spec section 4, "Ownership, STOP, And Errors", from the L2 side: the input
// window and FIFO-prefix release, the single output reservation and its
// misuse, STOP and draining, no-progress, and every poison cause.
#include <cstring>
#include <limits>
#include <vector>

#include "conformance/l2/l2_fixture.h"

namespace spsq_conf {
namespace {

class Ownership : public L2Test {
 protected:
  // Acquires n published inputs, in order.
  std::vector<Handle> Acquire(uint64_t n) {
    std::vector<Handle> hs(n);
    for (uint64_t i = 0; i < n; ++i) {
      EXPECT_TRUE(try_peek(hs[i])) << "input " << i + 1;
    }
    return hs;
  }
  // After a poison: every normal operation is rejected without shared access.
  void ExpectRejectsEverything(const char* context) {
    const uint32_t first_kind = kind();
    const size_t mark = log().mark();
    peer().enqueue(wire::kData, nullptr, 0);  // something to acquire, if it still could
    Handle h{};
    EXPECT_FALSE(try_peek(h)) << context;
    EXPECT_FALSE(peek(1000, h)) << context;
    EXPECT_FALSE(release(h)) << context;
    Reservation r{};
    EXPECT_FALSE(try_reserve(8, r)) << context;
    EXPECT_FALSE(reserve(8, 1000, r)) << context;
    EXPECT_FALSE(publish(r, wire::kData)) << context;
    EXPECT_EQ(log().shared_accesses_since(mark), 0u)
        << context << ": operations after poison touched shared memory:\n" << log().dump(mark);
    EXPECT_EQ(kind(), first_kind) << context << ": the first error must stay recorded";
    EXPECT_FALSE(ep().live());
  }
  // A second reserve returned `again` while `first` was active (AMB.RESERVE
  // reading C): it must be that same reservation, not a second one (S4.L2OUT.1).
  // Same span and size, live; filled through `again` and published once, it
  // arrives as the one message, and publishing `first` then poisons as an
  // already-published reservation.
  void ExpectTheActiveReservationAgain(const Reservation& first, const Reservation& again,
                                       const char* context) {
    EXPECT_EQ(Api::payload(again), Api::payload(first))
        << context << ": a second, distinct reservation while one is active";
    EXPECT_EQ(Api::nbytes(again), Api::nbytes(first)) << context;
    ExpectHealthy(context);
    const auto bytes = Bytes(Api::nbytes(first), 9);
    if (!bytes.empty()) q().l2_store(Api::payload(again), bytes.data(), bytes.size());
    ASSERT_TRUE(publish(again, wire::kData)) << context << ": " << Api::message(ep());
    EXPECT_FALSE(publish(first, wire::kData))
        << context << ": the reservation handed back twice published twice";
    ExpectPoisoned(0, "the one reservation published again");
    EXPECT_EQ(peer().counter(wire::kOutputTail), 1) << context << ": one reservation, one message";
    const auto out = peer().drain_outputs();
    ASSERT_EQ(out.size(), 1u) << context;
    EXPECT_EQ(out[0].payload, bytes) << context;
  }
};

TEST_F(Ownership, EachMessageIsOwnedIndividually) {
  SPSQ_CLAUSES("S4.OWN.1");
  const uint64_t n = kN >= 2 ? 2 : 1;
  for (uint64_t i = 0; i < n; ++i) {
    ASSERT_EQ(peer().enqueue_data(Bytes(4, static_cast<uint8_t>(i))), ScriptedL3::Enqueue::kOk);
  }
  auto hs = Acquire(n);
  for (uint64_t i = 0; i < n; ++i) {
    ASSERT_TRUE(release(hs[i]));
    EXPECT_EQ(peer().counter(wire::kInputHead), static_cast<int32_t>(i + 1))
        << "each release completes exactly one message";
  }
  for (int i = 1; i <= 3; ++i) {
    ASSERT_TRUE(send(wire::kData, Bytes(4, 1)));
    EXPECT_EQ(peer().counter(wire::kOutputTail), i) << "each reservation publishes one message";
  }
}

TEST_F(Ownership, OutOfOrderReleaseAdvancesOnlyTheFifoPrefix) {
  SPSQ_CLAUSES("S4.L2IN.5", "S4.L2IN.6");
  if (kN < 2) GTEST_SKIP() << "not applicable: needs MaxInflight >= 2 to hold two inputs";
  for (uint64_t i = 0; i < kN; ++i) {
    ASSERT_EQ(peer().enqueue_data(Bytes(16, static_cast<uint8_t>(i))), ScriptedL3::Enqueue::kOk);
  }
  auto hs = Acquire(kN);
  // Release newest first: nothing is physically released until input 1 is.
  for (uint64_t i = kN; i-- > 1;) {
    ASSERT_TRUE(release(hs[i]));
    EXPECT_EQ(peer().counter(wire::kInputHead), 0)
        << "input " << i + 1 << " released before input 1 advanced the head";
    EXPECT_EQ(peer().input_head(), 0u);
  }
  ASSERT_TRUE(release(hs[0]));
  EXPECT_EQ(peer().counter(wire::kInputHead), static_cast<int32_t>(kN));
  ExpectHealthy("out-of-order release");
}

TEST_F(Ownership, ReleaseInTheMiddleWaitsForTheOldest) {
  SPSQ_CLAUSES("S4.L2IN.5", "S4.L2IN.6");
  if (kN < 2) GTEST_SKIP() << "not applicable: needs MaxInflight >= 2";
  for (int i = 0; i < 2; ++i) ASSERT_EQ(peer().enqueue_data(Bytes(8, 1)), ScriptedL3::Enqueue::kOk);
  auto hs = Acquire(2);
  ASSERT_TRUE(release(hs[1]));
  // Input 2 is still physically owned: its bytes are intact and the head is 0.
  EXPECT_EQ(peer().counter(wire::kInputHead), 0);
  EXPECT_EQ(HandleBytes(hs[0]), Bytes(8, 1));
  ASSERT_TRUE(release(hs[0]));
  EXPECT_EQ(peer().counter(wire::kInputHead), 2);
}

TEST_F(Ownership, OneActiveReservation) {
  SPSQ_CLAUSES("S4.L2OUT.1", "AMB.RESERVE");
  Reservation r1{}, r2{};
  ASSERT_TRUE(try_reserve(8, r1));
  if (try_reserve(8, r2)) {
    ExpectTheActiveReservationAgain(r1, r2, "second try_reserve");
    SPSQ_READING("AMB.RESERVE", "C", "second try_reserve returned the active reservation again, live");
    return;
  }
  if (ep().live()) {
    SPSQ_READING("AMB.RESERVE", "A", "second try_reserve returned false, endpoint live");
    ASSERT_TRUE(publish(r1, wire::kData)) << "the first reservation stays publishable";
  } else {
    ExpectPoisoned(0, "second reservation");
    SPSQ_READING("AMB.RESERVE", "B",
                 std::string("second try_reserve poisoned: ") + wire::kind_name(kind()));
  }
}

TEST_F(Ownership, FilledSpanArrivesAtL3) {
  SPSQ_CLAUSES("S4.L2OUT.2");
  Reservation r{};
  ASSERT_TRUE(try_reserve(100, r));
  ASSERT_EQ(Api::nbytes(r), 100u);
  const auto bytes = Bytes(100, 42);
  q().l2_store(Api::payload(r), bytes.data(), bytes.size());
  ASSERT_TRUE(publish(r, wire::kData));
  ScriptedL3::Message m;
  ASSERT_TRUE(peer().poll_output(&m));
  EXPECT_EQ(m.payload, bytes);
}

TEST_F(Ownership, PublishingAnUnknownReservationPoisons) {
  SPSQ_CLAUSES("S4.L2OUT.3", "AMB.KINDS");
  Reservation never{};
  EXPECT_FALSE(publish(never, wire::kData));
  ExpectPoisoned(0, "default-constructed reservation");
  RecordKind("unknown_reservation");
  // Forged: the active reservation with a different size.
  Rebuild(q().params());
  Reservation r{};
  ASSERT_TRUE(try_reserve(8, r));
  Reservation forged = r;
  Api::forge_nbytes(forged, 16);
  EXPECT_FALSE(publish(forged, wire::kData));
  ExpectPoisoned(0, "forged reservation (size)");
  EXPECT_EQ(peer().counter(wire::kOutputTail), 0);
}

TEST_F(Ownership, PublishingAStaleReservationPoisons) {
  SPSQ_CLAUSES("S4.L2OUT.4");
  Reservation r1{}, r2{};
  ASSERT_TRUE(try_reserve(8, r1));
  ASSERT_TRUE(publish(r1, wire::kData));
  ASSERT_TRUE(try_reserve(8, r2));
  EXPECT_FALSE(publish(r1, wire::kData)) << "r1 is stale while r2 is active";
  ExpectPoisoned(0, "stale reservation");
  EXPECT_EQ(peer().counter(wire::kOutputTail), 1);
}

TEST_F(Ownership, PublishingTwicePoisons) {
  SPSQ_CLAUSES("S4.L2OUT.5");
  Reservation r{};
  ASSERT_TRUE(try_reserve(0, r));
  ASSERT_TRUE(publish(r, wire::kData));
  EXPECT_FALSE(publish(r, wire::kData));
  ExpectPoisoned(0, "already-published reservation");
  EXPECT_EQ(peer().counter(wire::kOutputTail), 1);
}

TEST_F(Ownership, PublishingAnotherQueuesReservationPoisons) {
  SPSQ_CLAUSES("S4.L2OUT.6");
  Queue other(q().params());
  auto e2 = other.make_endpoint<kN>();
  ASSERT_TRUE(e2->live());
  Reservation mine{}, theirs{};
  ASSERT_TRUE(try_reserve(8, mine));
  ASSERT_TRUE(e2->output().try_reserve(8, theirs));  // same offset and size, other queue
  EXPECT_FALSE(publish(theirs, wire::kData));
  ExpectPoisoned(0, "cross-queue reservation");
  EXPECT_EQ(peer().counter(wire::kOutputTail), 0);
  EXPECT_TRUE(e2->live()) << "the other queue is not affected";
  ASSERT_TRUE(e2->output().publish(theirs, Api::opcode_value(wire::kData)));
  e2.reset();
  other.check_invariants("other queue");
}

TEST_F(Ownership, TheInputWindowDoesNotMultiplyReservations) {
  SPSQ_CLAUSES("S4.L2OUT.7");
  for (uint64_t i = 0; i < kN; ++i) ASSERT_EQ(peer().enqueue_data(Bytes(4, 1)), ScriptedL3::Enqueue::kOk);
  auto hs = Acquire(kN);
  Reservation r1{}, r2{};
  ASSERT_TRUE(try_reserve(4, r1));
  // Refused (AMB.RESERVE A, B), or the active reservation handed back (C).
  if (try_reserve(4, r2)) {
    ExpectTheActiveReservationAgain(r1, r2, "second reserve with the input window held");
  }
}

TEST_F(Ownership, StopWithPayloadPoisons) {
  SPSQ_CLAUSES("S4.STOP.1", "W.STOP.1");
  peer().publish_raw(wire::Descriptor{1, wire::kStop, layout().input_arena, 8});
  Handle h{};
  EXPECT_FALSE(try_peek(h));
  ExpectPoisoned(wire::kInvalidDescriptor, "STOP with 8 payload bytes");
  Rebuild(q().params());
  peer().publish_raw(wire::Descriptor{1, wire::kStop, 64, 0});
  EXPECT_FALSE(try_peek(h));
  ExpectPoisoned(wire::kInvalidDescriptor, "zero-byte STOP with payload_offset 64");
}

TEST_F(Ownership, OutputsMayFollowAnAcquiredStop) {
  SPSQ_CLAUSES("S4.STOP.3", "S4.STOP.8");
  ASSERT_EQ(peer().enqueue_data(Bytes(8, 1)), ScriptedL3::Enqueue::kOk);
  ASSERT_EQ(peer().enqueue_stop(), ScriptedL3::Enqueue::kOk);
  auto hs = Acquire(2);
  EXPECT_EQ(Api::opcode(hs[1]), wire::kStop);
  ASSERT_TRUE(send(wire::kData, HandleBytes(hs[0]))) << "output for an input held during drain";
  ASSERT_TRUE(send(wire::kError, Bytes(3, 3)));
  ASSERT_TRUE(release(hs[0]));
  ASSERT_TRUE(release(hs[1]));
  EXPECT_TRUE(drained());
  const auto out = peer().drain_outputs();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].payload, Bytes(8, 1));
}

TEST_F(Ownership, StopMayBeAcquiredBehindActiveData) {
  SPSQ_CLAUSES("S4.STOP.6");
  if (kN < 2) GTEST_SKIP() << "not applicable: needs MaxInflight >= 2 (with 1, see S4.L2IN.3)";
  for (int i = 0; i < 2; ++i) ASSERT_EQ(peer().enqueue_data(Bytes(4, 1)), ScriptedL3::Enqueue::kOk);
  ASSERT_EQ(peer().enqueue_stop(), ScriptedL3::Enqueue::kOk);
  auto hs = Acquire(3);
  EXPECT_EQ(Api::opcode(hs[2]), wire::kStop);
  for (auto& h : hs) ASSERT_TRUE(release(h));
  EXPECT_TRUE(drained());
}

TEST_F(Ownership, DrainingModeAcquiresNoLaterData) {
  SPSQ_CLAUSES("S4.STOP.7");
  ASSERT_EQ(peer().enqueue_stop(), ScriptedL3::Enqueue::kOk);
  Handle stop{};
  ASSERT_TRUE(try_peek(stop));
  Handle h{};
  EXPECT_FALSE(try_peek(h));
  EXPECT_FALSE(peek(1000, h));
  ExpectHealthy("draining, nothing after STOP");
  ASSERT_TRUE(release(stop));
}

TEST_F(Ownership, StopIsPhysicallyReleasedLast) {
  SPSQ_CLAUSES("S4.STOP.9", "S4.STOP.10");
  const uint64_t m = kN;
  EXPECT_FALSE(drained()) << "before any STOP";
  for (uint64_t i = 0; i < m; ++i) ASSERT_EQ(peer().enqueue_data(Bytes(4, 1)), ScriptedL3::Enqueue::kOk);
  ASSERT_EQ(peer().enqueue_stop(), ScriptedL3::Enqueue::kOk);
  auto hs = Acquire(m + 1);
  EXPECT_FALSE(drained()) << "STOP acquired, not released";
  ASSERT_TRUE(release(hs[m]));
  EXPECT_FALSE(drained()) << "STOP released logically ahead of DATA";
  EXPECT_EQ(peer().counter(wire::kInputHead), 0);
  for (uint64_t i = 0; i < m; ++i) {
    EXPECT_FALSE(drained());
    ASSERT_TRUE(release(hs[i]));
    EXPECT_EQ(peer().counter(wire::kInputHead), static_cast<int32_t>(i + 1 == m ? m + 1 : i + 1));
  }
  EXPECT_TRUE(drained()) << "STOP physically released";
}

TEST_F(Ownership, ADescriptorAfterStopPoisons) {
  SPSQ_CLAUSES("S4.STOP.11");
  ASSERT_EQ(peer().enqueue_stop(), ScriptedL3::Enqueue::kOk);
  ASSERT_EQ(peer().enqueue_data(Bytes(4, 1)), ScriptedL3::Enqueue::kOk);
  Handle stop{}, h{};
  // The spec demands the poison, not when: an endpoint may hand out STOP and
  // poison on the next call, or poison as it acquires STOP and sees the DATA.
  if (try_peek(stop)) {
    EXPECT_EQ(Api::opcode(stop), wire::kStop);
    EXPECT_FALSE(try_peek(h));
    record_observation("stop_then_data", "STOP handed out, poison on the next call");
  } else {
    record_observation("stop_then_data", "poison when STOP was acquired");
  }
  ExpectPoisoned(wire::kInvalidDescriptor, "DATA published after STOP");
  // Published after STOP was acquired, and a second STOP.
  for (uint64_t op : {wire::kData, wire::kStop}) {
    Rebuild(q().params());
    ASSERT_EQ(peer().enqueue_stop(), ScriptedL3::Enqueue::kOk);
    ASSERT_TRUE(try_peek(stop));
    ASSERT_EQ(peer().enqueue(op, nullptr, 0), ScriptedL3::Enqueue::kOk);
    EXPECT_FALSE(try_peek(h));
    ExpectPoisoned(wire::kInvalidDescriptor, "descriptor after an acquired STOP");
  }
}

TEST_F(Ownership, FullRingAndFullArenaAreNoProgress) {
  SPSQ_CLAUSES("S4.NOPROG.1", "S4.NOPROG.2", "W.ARENA.2");
  for (uint64_t i = 0; i < layout().depth; ++i) ASSERT_TRUE(send(wire::kData, {}));
  Reservation r{};
  EXPECT_FALSE(try_reserve(0, r));
  ExpectHealthy("ring full");
  peer().drain_outputs();
  // Arena 256: 200 bytes unreleased leave no room for 100 more.
  ASSERT_TRUE(send(wire::kData, Bytes(200, 1)));
  EXPECT_FALSE(try_reserve(100, r)) << "100 bytes would overlap unreleased payload";
  ExpectHealthy("arena full");
  EXPECT_TRUE(try_reserve(56, r)) << "56 bytes still fit before the arena end";
  ASSERT_TRUE(publish(r, wire::kData));
  peer().drain_outputs();
  EXPECT_TRUE(send(wire::kData, Bytes(100, 2))) << "room again once L3 released";
}

TEST_F(Ownership, ErrorSetsNoAbortFlag) {
  SPSQ_CLAUSES("S4.NOPROG.5");
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(send(wire::kError, Bytes(8, 1)));
  EXPECT_EQ(peer().l2_flag(), 0);
  ExpectHealthy("three ERROR outputs");
}

TEST_F(Ownership, SeqMismatchPoisons) {
  SPSQ_CLAUSES("S4.POISON.1", "W.SEQ.1");
  for (uint64_t seq : {uint64_t{0}, uint64_t{2}, ~uint64_t{0}, uint64_t{1} << 32 | 1}) {
    Rebuild(q().params());
    peer().publish_raw(wire::Descriptor{seq, wire::kData, 0, 0});
    Handle h{};
    EXPECT_FALSE(try_peek(h)) << "seq " << seq << " at index 0";
    ExpectPoisoned(wire::kInvalidDescriptor, "seq mismatch at index 0");
  }
  // At index 1: a replayed seq 1 and a skipped seq 3.
  for (uint64_t seq : {uint64_t{1}, uint64_t{3}}) {
    Rebuild(q().params());
    ASSERT_EQ(peer().enqueue(wire::kData, nullptr, 0), ScriptedL3::Enqueue::kOk);
    Handle h{};
    ASSERT_TRUE(try_peek(h));
    ASSERT_TRUE(release(h));
    peer().publish_raw(wire::Descriptor{seq, wire::kData, 0, 0});
    EXPECT_FALSE(try_peek(h)) << "seq " << seq << " at index 1";
    ExpectPoisoned(wire::kInvalidDescriptor, "seq mismatch at index 1");
  }
}

TEST_F(Ownership, InvalidInputOpcodePoisons) {
  SPSQ_CLAUSES("S4.POISON.2", "W.DIR.1", "AMB.KINDS");
  for (uint64_t opcode : {uint64_t{0}, uint64_t{4}, uint64_t{1} << 63, (uint64_t{1} << 32) | 1}) {
    Rebuild(q().params());
    peer().publish_raw(wire::Descriptor{1, opcode, 0, 0});
    Handle h{};
    EXPECT_FALSE(try_peek(h)) << "opcode " << opcode;
    ExpectPoisoned(0, "invalid input opcode");
    RecordKind("invalid_opcode");
  }
}

TEST_F(Ownership, PayloadOutsideTheInputArenaPoisons) {
  SPSQ_CLAUSES("S4.POISON.4", "W.ARENA.3", "S2.FIT.1");
  const wire::Layout& l = layout();
  struct Bad {
    const char* name;
    uint64_t offset, nbytes;
  } cases[] = {
      {"in the input ring", 0, 8},
      {"in the output arena", l.output_arena, 8},
      {"past the input arena end", l.input_arena + l.input_arena_bytes - 4, 8},
      {"past the payload part", l.payload_bytes, 8},
      {"offset + nbytes overflows", ~uint64_t{0} - 3, 8},
      {"larger than the arena", l.input_arena, l.input_arena_bytes + 64},
      {"nbytes 2^64 - 1", l.input_arena, ~uint64_t{0}},
  };
  for (const Bad& c : cases) {
    Rebuild(q().params());
    peer().publish_raw(wire::Descriptor{1, wire::kData, c.offset, c.nbytes});
    Handle h{};
    EXPECT_FALSE(try_peek(h)) << c.name;
    ExpectPoisoned(wire::kInvalidDescriptor, c.name);
  }
}

TEST_F(Ownership, PayloadReplayMismatchPoisons) {
  SPSQ_CLAUSES("S4.POISON.6", "W.ARENA.3", "W.ARENA.4");
  const uint64_t a = layout().input_arena;
  // After a valid 10-byte message the next must sit at a + 10.
  for (uint64_t off : {a + 9, a + 11, a + 64, a, a + 200}) {
    Rebuild(q().params());
    ASSERT_EQ(peer().enqueue_data(Bytes(10, 1)), ScriptedL3::Enqueue::kOk);
    Handle h{};
    ASSERT_TRUE(try_peek(h));
    ASSERT_TRUE(release(h));
    peer().publish_raw(wire::Descriptor{2, wire::kData, off, 8});
    EXPECT_FALSE(try_peek(h)) << "offset arena + " << off - a;
    ExpectPoisoned(wire::kInvalidDescriptor, "payload replay");
  }
}

TEST_F(Ownership, PayloadWriteFailureAfterMutationPoisons) {
  SPSQ_CLAUSES("S4.POISON.7", "W.VIEW.2");
  q().view_state().sticky_faults = false;  // so the endpoint can still raise its flag
  Reservation r{};
  ASSERT_TRUE(try_reserve(16, r));
  const auto bytes = Bytes(16, 1);
  q().l2_store(Api::payload(r), bytes.data(), bytes.size());
  faults().arm(ViewCall::kWrite, 1);
  EXPECT_FALSE(publish(r, wire::kData));
  ASSERT_TRUE(faults().fired()) << "publish made no payload write to fail";
  ExpectPoisoned(wire::kEndpointError, "first write of publish failed");
  EXPECT_EQ(peer().counter(wire::kOutputTail), 0);
  // Each later write of publish, failing, poisons the same way.
  for (uint64_t k = 2; k <= 3; ++k) {
    Rebuild(q().params());
    q().view_state().sticky_faults = false;
    ASSERT_TRUE(try_reserve(16, r));
    q().l2_store(Api::payload(r), bytes.data(), bytes.size());
    faults().arm(ViewCall::kWrite, k);
    const bool published = publish(r, wire::kData);
    // Publish may make fewer writes (the flush open point lets it leave the
    // payload to L2 code): only a fault that fired is judged.
    if (!faults().fired()) continue;
    EXPECT_FALSE(published) << "publish succeeded although write " << k << " failed";
    ExpectPoisoned(wire::kEndpointError, "later write of publish failed");
    EXPECT_EQ(peer().counter(wire::kOutputTail), 0) << "tail published after a failed write";
  }
}

TEST_F(Ownership, StickyViewFailureLeavesTheEndpointDeadAndQuiet) {
  SPSQ_CLAUSES("W.VIEW.2", "S4.POISON.10");
  Reservation r{};
  ASSERT_TRUE(try_reserve(16, r));
  faults().arm(ViewCall::kWrite, 1);  // sticky: the view stays failed
  EXPECT_FALSE(publish(r, wire::kData));
  EXPECT_FALSE(ep().live());
  EXPECT_EQ(kind(), wire::kEndpointError) << Api::message(ep());
  EXPECT_EQ(peer().counter(wire::kOutputTail), 0);
  Handle h{};
  EXPECT_FALSE(try_peek(h));
}

TEST_F(Ownership, CounterNotifyFailurePoisons) {
  SPSQ_CLAUSES("S4.POISON.8", "W.VIEW.2");
  q().view_state().sticky_faults = false;
  faults().arm(ViewCall::kNotify, 1);  // the output tail Set
  EXPECT_FALSE(send(wire::kData, Bytes(4, 1)));
  ASSERT_TRUE(faults().fired());
  ExpectPoisoned(wire::kEndpointError, "tail notify failed");
  // The input head Set of a release.
  Rebuild(q().params());
  q().view_state().sticky_faults = false;
  ASSERT_EQ(peer().enqueue_data(Bytes(4, 1)), ScriptedL3::Enqueue::kOk);
  Handle h{};
  ASSERT_TRUE(try_peek(h));
  faults().arm(ViewCall::kNotify, 1);
  EXPECT_FALSE(release(h));
  ASSERT_TRUE(faults().fired());
  ExpectPoisoned(wire::kEndpointError, "head notify failed");
}

TEST_F(Ownership, StaleHandleOwnershipPoisons) {
  SPSQ_CLAUSES("S4.POISON.9", "AMB.KINDS");
  Handle never{};
  EXPECT_FALSE(release(never));
  ExpectPoisoned(0, "release of a handle never acquired");
  RecordKind("unknown_handle");
  // Released twice.
  Rebuild(q().params());
  ASSERT_EQ(peer().enqueue_data(Bytes(4, 1)), ScriptedL3::Enqueue::kOk);
  Handle h{};
  ASSERT_TRUE(try_peek(h));
  ASSERT_TRUE(release(h));
  EXPECT_FALSE(release(h));
  ExpectPoisoned(0, "handle released twice");
  // Forged: an active handle with another seq.
  Rebuild(q().params());
  ASSERT_EQ(peer().enqueue_data(Bytes(4, 1)), ScriptedL3::Enqueue::kOk);
  ASSERT_TRUE(try_peek(h));
  Handle forged = h;
  Api::forge_seq(forged, Api::seq(h) + 1);
  EXPECT_FALSE(release(forged));
  ExpectPoisoned(0, "forged handle");
  EXPECT_EQ(peer().counter(wire::kInputHead), 0);
  // Another queue's handle.
  Rebuild(q().params());
  Queue other(q().params());
  auto e2 = other.make_endpoint<kN>();
  ASSERT_EQ(peer().enqueue_data(Bytes(4, 1)), ScriptedL3::Enqueue::kOk);
  ASSERT_EQ(other.peer().enqueue_data(Bytes(4, 1)), ScriptedL3::Enqueue::kOk);
  Handle theirs{};
  ASSERT_TRUE(try_peek(h));
  ASSERT_TRUE(e2->input().try_peek(theirs));
  EXPECT_FALSE(release(theirs));
  ExpectPoisoned(0, "another queue's handle");
  e2.reset();
  other.check_invariants("other queue");
}

TEST_F(Ownership, PoisonIsTerminalAndCleanupStaysValid) {
  SPSQ_CLAUSES("S4.POISON.10", "S4.POISON.14", "S4.POISON.15");
  ASSERT_EQ(peer().enqueue_data(Bytes(4, 1)), ScriptedL3::Enqueue::kOk);
  Handle held{};
  ASSERT_TRUE(try_peek(held));
  peer().publish_raw(wire::Descriptor{7, wire::kData, 0, 0});
  Handle h{};
  if (kN >= 2) {
    EXPECT_FALSE(try_peek(h));
  } else {
    ASSERT_TRUE(release(held));
    EXPECT_FALSE(try_peek(h));
  }
  ExpectPoisoned(wire::kInvalidDescriptor, "bad seq");
  ExpectRejectsEverything("after poison");
  EXPECT_FALSE(drained());  // cleanup queries still answer
  EXPECT_NE(Api::message(ep())[0], '\0');
  endpoint_.reset();  // destruction after poison
  EXPECT_EQ(peer().l2_flag(), 1);
}

TEST_F(Ownership, LocalPoisonSetsTheFlagOnce) {
  SPSQ_CLAUSES("S4.POISON.11", "W.FLAG.1");
  Handle never{};
  EXPECT_FALSE(release(never));
  Reservation r{};
  EXPECT_FALSE(publish(r, wire::kData));
  EXPECT_FALSE(release(never));
  ExpectPoisoned(0, "three misuses");
  EXPECT_EQ(log().count([](const spsq_conf::Access& a) {
              return a.kind == AccessKind::kNotify && a.offset == wire::kPeerFlag && a.value == 1 &&
                     a.op == 0;
            }), 1u) << "notify(320, 1, Set)";
}

TEST_F(Ownership, RemoteAbortIsReportedWithoutRaisingTheLocalFlag) {
  SPSQ_CLAUSES("S4.POISON.12", "S4.POISON.13");
  peer().set_initiator_flag(1);
  Handle h{};
  EXPECT_FALSE(peek(2000, h));
  EXPECT_EQ(kind(), wire::kRemoteAborted);
  EXPECT_FALSE(ep().live());
  EXPECT_EQ(peer().l2_flag(), 0);
  ExpectRejectsEverything("after remote abort");
  EXPECT_EQ(peer().l2_flag(), 0);
}


TEST_F(Ownership, ReleasingAnOutOfOrderReleasedInputAgainPoisons) {
  SPSQ_CLAUSES("S4.POISON.9", "S4.L2IN.6");
  if (kN < 2) GTEST_SKIP() << "not applicable: needs MaxInflight >= 2 to hold two inputs";
  for (int i = 0; i < 2; ++i) ASSERT_EQ(peer().enqueue_data(Bytes(8, 1)), ScriptedL3::Enqueue::kOk);
  auto hs = Acquire(2);
  ASSERT_TRUE(release(hs[1]));  // released, still physically owned behind input 1
  EXPECT_FALSE(release(hs[1])) << "input 2 released twice while input 1 is held";
  ExpectPoisoned(0, "out-of-order released handle released again");
  EXPECT_EQ(peer().counter(wire::kInputHead), 0);
}

TEST_F(Ownership, AStaleHandleWhoseSlotRepeatsAfterAWrapPoisons) {
  SPSQ_CLAUSES("S4.POISON.9");
  // Zero-byte messages all carry offset 0 and size 0: once the ring (or an
  // endpoint's own table) reuses the stale handle's slot, it looks like the
  // held message but for its seq. Several hold points cover any table size.
  for (uint64_t extra = 1; extra <= 8; ++extra) {
    Rebuild(q().params());
    const uint64_t n = layout().depth + extra;
    Handle first{}, h{};
    for (uint64_t i = 0; i < n; ++i) {
      ASSERT_EQ(peer().enqueue(wire::kData, nullptr, 0), ScriptedL3::Enqueue::kOk);
      ASSERT_TRUE(try_peek(h)) << "input " << i + 1;
      if (i == 0) first = h;
      if (i + 1 < n) {
        ASSERT_TRUE(release(h));  // the last one stays held
      }
    }
    const int32_t head = peer().counter(wire::kInputHead);
    EXPECT_FALSE(release(first)) << "seq 1 released again with seq " << n << " held";
    ExpectPoisoned(0, "stale handle after a ring wrap");
    EXPECT_EQ(peer().counter(wire::kInputHead), head);
  }
}

TEST_F(Ownership, AForgedZeroByteHandlePoisons) {
  SPSQ_CLAUSES("S4.POISON.9");
  if (kN < 2) GTEST_SKIP() << "not applicable: needs MaxInflight >= 2 to hold two inputs";
  ASSERT_EQ(peer().enqueue(wire::kData, nullptr, 0), ScriptedL3::Enqueue::kOk);
  ASSERT_EQ(peer().enqueue_data(Bytes(8, 2)), ScriptedL3::Enqueue::kOk);
  auto hs = Acquire(2);
  Handle forged = hs[0];  // zero-byte, renamed to the 8-byte message
  Api::forge_seq(forged, Api::seq(hs[1]));
  EXPECT_FALSE(release(forged)) << "a zero-byte handle forged to seq 2";
  ExpectPoisoned(0, "forged zero-byte handle");
  EXPECT_EQ(peer().counter(wire::kInputHead), 0);
}

TEST_F(Ownership, PublishAfterPoisonPublishesNothing) {
  SPSQ_CLAUSES("S4.POISON.14");
  Reservation r{};
  ASSERT_TRUE(try_reserve(8, r));
  Handle never{};
  EXPECT_FALSE(release(never));
  ExpectPoisoned(0, "release of a handle never acquired");
  const size_t mark = log().mark();
  EXPECT_FALSE(publish(r, wire::kData)) << "the reservation was taken before the poison";
  EXPECT_EQ(peer().counter(wire::kOutputTail), 0);
  EXPECT_EQ(log().shared_accesses_since(mark), 0u) << log().dump(mark);
}

TEST_F(Ownership, PublishPoisonRecordsThePublishOp) {
  SPSQ_CLAUSES("S4.L2OUT.3", "W.ENUM.3");
  Reservation r{};
  ASSERT_TRUE(try_reserve(8, r));
  Reservation forged = r;
  Api::forge_nbytes(forged, 16);
  EXPECT_FALSE(publish(forged, wire::kData));
  ExpectPoisoned(0, "forged reservation (size)");
  EXPECT_EQ(op(), wire::kOpOutputPublish) << "the poisoning call was publish";
}

TEST_F(Ownership, ReleasePoisonRecordsTheReleaseOp) {
  SPSQ_CLAUSES("S4.POISON.9", "W.ENUM.3");
  ASSERT_EQ(peer().enqueue_data(Bytes(4, 1)), ScriptedL3::Enqueue::kOk);
  Handle h{};
  ASSERT_TRUE(try_peek(h));
  ASSERT_TRUE(release(h));
  EXPECT_FALSE(release(h));
  ExpectPoisoned(0, "handle released twice");
  EXPECT_EQ(op(), wire::kOpInputRelease) << "the poisoning call was release";
}

TEST_F(Ownership, FirstPayloadReplayMismatchPoisons) {
  SPSQ_CLAUSES("S4.POISON.6", "W.ARENA.3");
  const uint64_t a = layout().input_arena;
  for (uint64_t off : {a + 8, a + 64}) {
    Rebuild(q().params());
    peer().publish_raw(wire::Descriptor{1, wire::kData, off, 8});
    Handle h{};
    EXPECT_FALSE(try_peek(h)) << "first message at arena + " << off - a;
    ExpectPoisoned(wire::kInvalidDescriptor, "payload replay of the first message");
  }
}

TEST_F(Ownership, PayloadReplayMismatchAfterASkipPoisons) {
  SPSQ_CLAUSES("S4.POISON.6", "W.ARENA.3");
  const uint64_t a = layout().input_arena;
  const uint64_t bytes = layout().input_arena_bytes;
  // The second message does not fit the arena tail: the rule places it at a.
  for (uint64_t off : {a + 16, a + 32}) {
    Rebuild(q().params());
    ASSERT_EQ(peer().enqueue_data(Bytes(bytes - 8, 1)), ScriptedL3::Enqueue::kOk);
    Handle h{};
    ASSERT_TRUE(try_peek(h));
    ASSERT_TRUE(release(h));
    peer().publish_raw(wire::Descriptor{2, wire::kData, off, 16});
    EXPECT_FALSE(try_peek(h)) << "skipped message at arena + " << off - a;
    ExpectPoisoned(wire::kInvalidDescriptor, "payload replay after a skip");
  }
}

TEST_F(Ownership, ReleaseAfterPoisonReleasesNothing) {
  SPSQ_CLAUSES("S4.POISON.14");
  ASSERT_EQ(peer().enqueue_data(Bytes(8, 1)), ScriptedL3::Enqueue::kOk);
  Handle held{};
  ASSERT_TRUE(try_peek(held));
  Reservation never{};
  EXPECT_FALSE(publish(never, wire::kData));
  ExpectPoisoned(0, "publish of a reservation never made");
  const size_t mark = log().mark();
  EXPECT_FALSE(release(held)) << "the handle was acquired before the poison";
  EXPECT_EQ(peer().counter(wire::kInputHead), 0);
  EXPECT_EQ(log().shared_accesses_since(mark), 0u) << log().dump(mark);
}

}  // namespace
}  // namespace spsq_conf
