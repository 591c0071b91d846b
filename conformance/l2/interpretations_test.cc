// The open points of the wire contract and the ambiguities the catalogue
// lists: each test finds out which reading the endpoint follows, records it
// (SPSQ_READING), and fails only on behaviour that matches no reading.
#include <string>
#include <vector>

#include "conformance/l2/l2_fixture.h"

namespace spsq_conf {
namespace {

class Interpretation : public L2Test {};

TEST_F(Interpretation, InputErrorIsDeliveredOrPoisons) {
  SPSQ_CLAUSES("OPEN.ERRIN");
  const auto bytes = Bytes(8, 3);
  peer().write_input_payload(layout().input_arena, bytes.data(), bytes.size());
  peer().publish_raw(wire::Descriptor{1, wire::kError, layout().input_arena, 8});
  Handle h{};
  if (try_peek(h)) {
    EXPECT_EQ(Api::opcode(h), wire::kError);
    EXPECT_EQ(HandleBytes(h), bytes) << "reading A delivers the payload intact";
    EXPECT_TRUE(ep().live());
    ASSERT_TRUE(release(h));
    SPSQ_READING("OPEN.ERRIN", "A", "input ERROR delivered as a normal message");
    return;
  }
  ExpectPoisoned(wire::kInvalidDescriptor, "input ERROR (reading B)");
  SPSQ_READING("OPEN.ERRIN", "B", "input ERROR poisons with INVALID_DESCRIPTOR");
}

TEST_F(Interpretation, WhenTheBlockingCallSamplesThePeerFlag) {
  SPSQ_CLAUSES("OPEN.ABORTSAMPLE", "S3.TO.7");
  // (1) Flag raised, input ready: does peek still make progress?
  ASSERT_EQ(peer().enqueue_data(Bytes(4, 1)), ScriptedL3::Enqueue::kOk);
  peer().set_initiator_flag(1);
  Handle h{};
  const bool progressed = peek(1000, h);
  if (!progressed) {
    EXPECT_EQ(kind(), wire::kRemoteAborted) << "flag raised, input ready: " << Api::message(ep());
  }
  // (2) Flag raised, nothing ready: REMOTE_ABORTED by the deadline at the latest.
  Rebuild(q().params());
  peer().set_initiator_flag(1);
  const uint64_t t0 = VirtualClock::peek();
  EXPECT_FALSE(peek(1000, h));
  EXPECT_EQ(kind(), wire::kRemoteAborted) << "S3.TO.7";
  const uint64_t waited = VirtualClock::peek() - t0;
  EXPECT_LE(waited, 1000u) << "waited past the deadline";
  if (progressed && waited == 1000) {
    SPSQ_READING("OPEN.ABORTSAMPLE", "A", "flag sampled only after the wait expired");
  } else {
    SPSQ_READING("OPEN.ABORTSAMPLE", "B",
                 std::string("flag sampled early: ") + (progressed ? "" : "no progress with input ready; ") +
                     "waited " + std::to_string(waited) + " of 1000 ns");
  }
}

TEST_F(Interpretation, WhoFlushesTheOutputPayload) {
  SPSQ_CLAUSES("OPEN.FLUSH", "S3.PUB.4");
  Reservation r{};
  ASSERT_TRUE(try_reserve(48, r));
  const auto bytes = Bytes(48, 8);
  q().l2_store(Api::payload(r), bytes.data(), bytes.size());  // as the AIV kernel would
  const uint64_t off = static_cast<uint64_t>(Api::payload(r) - q().memory().payload());
  const size_t mark = log().mark();
  ASSERT_TRUE(publish(r, wire::kData));
  const uint64_t slot = layout().output_slot(0);
  const size_t flush = log().written_by(mark, off, 48);  // in one write or several
  const size_t seq = log().find([slot](const spsq_conf::Access& a) {
    return a.kind == AccessKind::kWrite && a.ok && a.offset <= slot && a.offset + a.nbytes > slot;
  }, mark);
  ASSERT_NE(seq, AccessLog::npos) << log().dump(mark);
  if (flush != AccessLog::npos) {
    EXPECT_LT(flush, seq) << "the payload flush must precede the seq (S3.PUB.2)";
    SPSQ_READING("OPEN.FLUSH", "A", "publish() writes (flushes) the reserved span before the descriptor");
  } else {
    SPSQ_READING("OPEN.FLUSH", "B", "publish() leaves the payload flush to L2 code");
  }
}

TEST_F(Interpretation, IdleArenaTakesAMessageThatOnlyFitsAfterASkip) {
  SPSQ_CLAUSES("AMB.ROOM");
  // Cursor at 100 of 256, nothing unreleased, 200 bytes: the skip makes the
  // literal bound 356 > 256.
  ASSERT_TRUE(send(wire::kData, Bytes(100, 1)));
  peer().drain_outputs();
  Reservation r{};
  if (try_reserve(200, r)) {
    EXPECT_EQ(Api::payload(r), q().memory().payload() + layout().output_arena)
        << "the message skips to the arena start";
    ASSERT_TRUE(publish(r, wire::kData));
    SPSQ_READING("AMB.ROOM", "A", "an idle arena accepts any message that fits it");
  } else {
    ExpectHealthy("refused on an idle arena");
    SPSQ_READING("AMB.ROOM", "B", "literal bound: refused on an idle arena (LIVE.1 fails)");
  }
}

TEST_F(Interpretation, FullWindowAnswer) {
  SPSQ_CLAUSES("AMB.WINDOW", "S4.L2IN.2", "S3.TO.5");
  for (uint64_t i = 0; i <= kN; ++i) ASSERT_EQ(peer().enqueue_data(Bytes(4, 1)), ScriptedL3::Enqueue::kOk);
  std::vector<Handle> hs(kN);
  for (auto& h : hs) ASSERT_TRUE(try_peek(h));
  Handle extra{};
  ASSERT_FALSE(try_peek(extra)) << "FAIL: a DATA handle beyond MaxInflight " << kN;
  if (!ep().live()) {
    ExpectPoisoned(0, "full window");
    SPSQ_READING("AMB.WINDOW", "C", std::string("poison: ") + wire::kind_name(kind()));
    return;
  }
  if (kind() != wire::kKindNone) {
    SPSQ_READING("AMB.WINDOW", "B", std::string("error without poison: ") + wire::kind_name(kind()));
  } else {
    SPSQ_READING("AMB.WINDOW", "A", "ordinary no-progress");
  }
  // A and B leave the endpoint live: it goes on, and once the refusal is
  // behind it ordinary no-progress reads error().kind NONE again (S3.TO.5).
  ASSERT_TRUE(release(hs[0])) << Api::message(ep());
  ASSERT_TRUE(try_peek(extra)) << "the waiting input is acquired once the window opens";
  EXPECT_EQ(Api::seq(extra), kN + 1);
  ASSERT_TRUE(release(extra));
  Handle none{};
  EXPECT_FALSE(try_peek(none)) << "nothing is published";
  ExpectHealthy("empty input after the full-window refusal");
}

TEST_F(Interpretation, OutOfOrderReleasedInputAndTheWindow) {
  SPSQ_CLAUSES("AMB.WINDOWPHYS");
  if (kN < 2) GTEST_SKIP() << "not applicable: needs MaxInflight >= 2";
  for (uint64_t i = 0; i <= kN; ++i) ASSERT_EQ(peer().enqueue_data(Bytes(4, 1)), ScriptedL3::Enqueue::kOk);
  std::vector<Handle> hs(kN);
  for (auto& h : hs) ASSERT_TRUE(try_peek(h));
  ASSERT_TRUE(release(hs[1]));  // logically done, physically owned
  Handle extra{};
  if (try_peek(extra)) {
    SPSQ_READING("AMB.WINDOWPHYS", "A", "window counts logically active handles");
    ASSERT_TRUE(release(extra));
  } else {
    ExpectHealthy("window of physically owned inputs");
    SPSQ_READING("AMB.WINDOWPHYS", "B", "window counts physically owned inputs");
  }
  ASSERT_TRUE(release(hs[0]));
  for (uint64_t i = 2; i < kN; ++i) ASSERT_TRUE(release(hs[i]));
}

TEST_F(Interpretation, TryCallsAndTheRaisedPeerFlag) {
  SPSQ_CLAUSES("AMB.TRYABORT", "S3.TO.1");
  peer().set_initiator_flag(1);
  size_t mark = log().mark();
  Handle h{};
  EXPECT_FALSE(peek(0, h));
  EXPECT_EQ(log().shared_accesses_since(mark), 0u) << "peek(0) must not even sample the flag";
  EXPECT_FALSE(try_peek(h));
  if (ep().live()) {
    EXPECT_EQ(kind(), wire::kKindNone);
    SPSQ_READING("AMB.TRYABORT", "A", "try_peek reports no-progress; the flag is not sampled");
  } else {
    EXPECT_EQ(kind(), wire::kRemoteAborted);
    EXPECT_EQ(peer().l2_flag(), 0);
    SPSQ_READING("AMB.TRYABORT", "B", "try_peek reports REMOTE_ABORTED");
  }
}

TEST_F(Interpretation, ErrorKindsPerPoisonCause) {
  SPSQ_CLAUSES("AMB.KINDS");
  Handle never{};
  EXPECT_FALSE(release(never));
  ExpectPoisoned(0, "unknown handle");
  const uint32_t handle_kind = kind();
  Rebuild(q().params());
  Reservation r{};
  EXPECT_FALSE(publish(r, wire::kData));
  ExpectPoisoned(0, "unknown reservation");
  const uint32_t reservation_kind = kind();
  Rebuild(q().params());
  peer().publish_raw(wire::Descriptor{1, 9, 0, 0});
  Handle h{};
  EXPECT_FALSE(try_peek(h));
  ExpectPoisoned(0, "invalid opcode");
  const uint32_t opcode_kind = kind();
  const std::string seen = std::string("handle ") + wire::kind_name(handle_kind) +
                           ", reservation " + wire::kind_name(reservation_kind) + ", opcode " +
                           wire::kind_name(opcode_kind);
  if (handle_kind == wire::kOwnership && reservation_kind == wire::kOwnership &&
      opcode_kind == wire::kInvalidDescriptor) {
    SPSQ_READING("AMB.KINDS", "A", seen);
  } else {
    SPSQ_READING("AMB.KINDS", "B", seen);
  }
}

TEST_F(Interpretation, FailedReadBeforeAnyMutation) {
  SPSQ_CLAUSES("AMB.READFAIL");
  q().view_state().sticky_faults = false;
  ASSERT_EQ(peer().enqueue_data(Bytes(8, 1)), ScriptedL3::Enqueue::kOk);
  faults().arm(ViewCall::kRead, 1);  // the descriptor (or payload) read
  Handle h{};
  EXPECT_FALSE(try_peek(h)) << "a handle built from a failed read";
  ASSERT_TRUE(faults().fired()) << "try_peek made no payload read";
  if (!ep().live()) {
    ExpectPoisoned(wire::kEndpointError, "failed read");
    SPSQ_READING("AMB.READFAIL", "A", "failed read poisons with ENDPOINT_ERROR");
  } else {
    SPSQ_READING("AMB.READFAIL", "B", "failed read is no-progress");
    ASSERT_TRUE(try_peek(h)) << "the input is acquired on retry";
    EXPECT_EQ(HandleBytes(h), Bytes(8, 1));
  }
}

}  // namespace
}  // namespace spsq_conf
