// Blocking calls: timeout 0 is a live no-attempt, a positive timeout waits on
// the virtual clock, expiry under backpressure is not poison, and expiry with
// the initiator's abort flag raised reports REMOTE_ABORTED without raising
// L2's own flag.
#include <cstdint>
#include <limits>

#include "tests/l2/l2_rig.h"

namespace spsq_l2_test {
namespace {

class TimeoutTest : public L2Test {
 protected:
  // Remote abort: terminal, identity attached, own flag never written.
  template <class E>
  void expect_remote_aborted(const E& ep) {
    EXPECT_FALSE(ep.live());
    EXPECT_EQ(ep.error().kind, SpscQueueErrorKind::REMOTE_ABORTED) << ep.error().message;
    EXPECT_EQ(ep.error().op, SpscQueueOp::TIMEOUT);
    EXPECT_TRUE(ep.error().has_identity());
    EXPECT_EQ(ep.error().transaction_id, kTransaction);
    EXPECT_EQ(peer_->l2_flag(), 0);
    EXPECT_EQ(count(AccessKind::kNotify, kPeerFlag), 0u) << log().dump();
  }

  // Fills the output ring so reserve has to wait.
  template <uint64_t N>
  void fill_output_ring(Endpoint<N>& ep) {
    for (int i = 0; i < 4; ++i) {
      SpscQueueOutputReservation r{};
      ASSERT_TRUE(ep.output().try_reserve(0, r));
      ASSERT_TRUE(ep.output().publish(r, SpscQueueOpcode::DATA));
    }
  }
};

TEST_F(TimeoutTest, PeekWithZeroTimeoutIsALiveNoAttempt) {
  auto ep = open();
  send(kData, pattern(4, 1));  // available, yet not taken
  SpscQueueInputHandle h{};
  const uint64_t t0 = VirtualClock::peek();
  EXPECT_FALSE(ep->input().peek(0, h));
  EXPECT_EQ(h.seq, 0u) << "the handle is not filled";
  EXPECT_EQ(log().size(), 0u) << log().dump();
  EXPECT_EQ(VirtualClock::peek(), t0);
  expect_healthy(*ep);
  // The message is still there for a real attempt.
  ASSERT_TRUE(ep->input().try_peek(h));
  EXPECT_EQ(h.seq, 1u);
}

TEST_F(TimeoutTest, ReserveWithZeroTimeoutIsALiveNoAttempt) {
  auto ep = open();
  SpscQueueOutputReservation r{};
  EXPECT_FALSE(ep->output().reserve(8, 0, r));
  EXPECT_EQ(r.payload_nbytes, 0u);
  EXPECT_EQ(log().size(), 0u) << log().dump();
  expect_healthy(*ep);
  ASSERT_TRUE(ep->output().try_reserve(8, r)) << "nothing was reserved by the no-attempt";
}

TEST_F(TimeoutTest, ZeroTimeoutDoesNotSampleARaisedAbortFlag) {
  auto ep = open();
  peer_->set_initiator_flag(1);
  SpscQueueInputHandle h{};
  SpscQueueOutputReservation r{};
  EXPECT_FALSE(ep->input().peek(0, h));
  EXPECT_FALSE(ep->output().reserve(8, 0, r));
  EXPECT_EQ(log().size(), 0u);
  EXPECT_TRUE(ep->live());
}

TEST_F(TimeoutTest, PeekExpiryOnAnEmptyQueueIsNotPoison) {
  auto ep = open();
  SpscQueueInputHandle h{};
  const uint64_t t0 = VirtualClock::peek();
  EXPECT_FALSE(ep->input().peek(5000, h));
  EXPECT_EQ(VirtualClock::peek() - t0, 5000u) << "waited exactly the timeout";
  expect_healthy(*ep);
  // It waited on the input tail, then sampled the initiator flag once.
  EXPECT_GE(count(AccessKind::kWait, kInputTail), 1u) << log().dump();
  ASSERT_NE(log().size(), 0u);
  EXPECT_EQ(log().entries().back().kind, AccessKind::kTest);
  EXPECT_EQ(log().entries().back().offset, kInitiatorFlag);
  EXPECT_EQ(log().count_kind(AccessKind::kNotify), 0u);
  // Still usable.
  send(kData);
  EXPECT_TRUE(ep->input().peek(5000, h));
}

TEST_F(TimeoutTest, PeekExpiryWithInitiatorFlagRaisedIsRemoteAbort) {
  for (int32_t flag : {1, 2, std::numeric_limits<int32_t>::max()}) {
    SCOPED_TRACE(flag);
    log().clear();
    auto ep = open();
    peer_->set_initiator_flag(flag);
    SpscQueueInputHandle h{};
    EXPECT_FALSE(ep->input().peek(1000, h));
    expect_remote_aborted(*ep);
    // Terminal: a message arriving later is not delivered, and misuse after
    // the remote abort does not raise L2's flag either.
    send(kData);
    EXPECT_FALSE(ep->input().try_peek(h));
    EXPECT_FALSE(ep->input().release(SpscQueueInputHandle{}));
    EXPECT_EQ(ep->error().kind, SpscQueueErrorKind::REMOTE_ABORTED);
    EXPECT_EQ(peer_->l2_flag(), 0);
    use_region(4, 256, 256);
  }
}

TEST_F(TimeoutTest, FlagsBelowOneAreNotRaised) {
  for (int32_t flag : {0, -1, std::numeric_limits<int32_t>::min()}) {
    SCOPED_TRACE(flag);
    auto ep = open();
    peer_->set_initiator_flag(flag);
    SpscQueueInputHandle h{};
    EXPECT_FALSE(ep->input().peek(1000, h));
    expect_healthy(*ep);
  }
}

TEST_F(TimeoutTest, ReserveExpiryUnderRingBackpressureIsNotPoison) {
  auto ep = open();
  fill_output_ring(*ep);
  SpscQueueOutputReservation r{};
  const uint64_t t0 = VirtualClock::peek();
  EXPECT_FALSE(ep->output().reserve(8, 2000, r));
  EXPECT_EQ(VirtualClock::peek() - t0, 2000u);
  expect_healthy(*ep);
  EXPECT_GE(count(AccessKind::kWait, kOutputHead), 1u) << log().dump();
}

TEST_F(TimeoutTest, ReserveExpiryUnderArenaBackpressureIsNotPoison) {
  auto ep = open();
  SpscQueueOutputReservation r{};
  ASSERT_TRUE(ep->output().try_reserve(256, r));
  ASSERT_TRUE(ep->output().publish(r, SpscQueueOpcode::DATA));
  EXPECT_FALSE(ep->output().reserve(1, 2000, r));
  expect_healthy(*ep);
}

TEST_F(TimeoutTest, ReserveExpiryWithInitiatorFlagRaisedIsRemoteAbort) {
  auto ep = open();
  fill_output_ring(*ep);
  peer_->set_initiator_flag(1);
  SpscQueueOutputReservation r{};
  EXPECT_FALSE(ep->output().reserve(8, 2000, r));
  expect_remote_aborted(*ep);
}

TEST_F(TimeoutTest, PeekSucceedsWhenL3PublishesDuringTheWait) {
  auto ep = open();
  // L3 publishes while the endpoint waits (the view runs due clock actions).
  VirtualClock::after(1, [this] { send(kData, pattern(12, 5)); });
  SpscQueueInputHandle h{};
  const uint64_t t0 = VirtualClock::peek();
  ASSERT_TRUE(ep->input().peek(10'000, h)) << ep->error().message;
  EXPECT_EQ(h.seq, 1u);
  EXPECT_EQ(span_bytes(spsc_queue::payload_data(h), h.payload_nbytes), pattern(12, 5));
  EXPECT_LT(VirtualClock::peek() - t0, 10'000u);
  EXPECT_EQ(count(AccessKind::kWait, kInputTail), 1u);
  expect_healthy(*ep);
}

TEST_F(TimeoutTest, ReserveSucceedsWhenL3ReleasesDuringTheWait) {
  auto ep = open();
  fill_output_ring(*ep);
  VirtualClock::after(1, [this] { release_outputs(1); });
  SpscQueueOutputReservation r{};
  ASSERT_TRUE(ep->output().reserve(8, 10'000, r)) << ep->error().message;
  EXPECT_EQ(r.payload_offset, kOutArena);
  ASSERT_TRUE(ep->output().publish(r, SpscQueueOpcode::DATA));
  EXPECT_EQ(output_slot(4), (RawDescriptor{5, kData, kOutArena, 8}));
  expect_healthy(*ep);
}

TEST_F(TimeoutTest, PeekWithAFullWindowWaitsOutItsTimeout) {
  auto ep = open();
  send(kData);
  send(kData);
  SpscQueueInputHandle a{}, b{};
  ASSERT_TRUE(ep->input().peek(1000, a));
  const uint64_t t0 = VirtualClock::peek();
  EXPECT_FALSE(ep->input().peek(1000, b));
  EXPECT_EQ(VirtualClock::peek() - t0, 1000u);
  expect_healthy(*ep);
  ASSERT_TRUE(ep->input().release(a));
  ASSERT_TRUE(ep->input().peek(1000, b));
  EXPECT_EQ(b.seq, 2u);
}

TEST_F(TimeoutTest, FullWindowWithAStaleTailWaitsInsteadOfSpinning) {
  // L2 holds input 1 and has seen tail 2; L3 then publishes input 3. A
  // blocking peek cannot take input 2 (window full) and must wait out its
  // timeout, not return to a wait whose condition (tail != 2) already holds.
  auto ep = open();
  send(kData);
  SpscQueueInputHandle a{}, b{};
  ASSERT_TRUE(ep->input().try_peek(a));
  send(kData);
  EXPECT_FALSE(ep->input().try_peek(b));  // sees tail 2, window full
  send(kData);
  const uint64_t t0 = VirtualClock::peek();
  EXPECT_FALSE(ep->input().peek(1000, b));
  EXPECT_EQ(VirtualClock::peek() - t0, 1000u);
  EXPECT_LE(log().count_kind(AccessKind::kWait), 2u) << log().dump();
  expect_healthy(*ep);
  ASSERT_TRUE(ep->input().release(a));
  ASSERT_TRUE(ep->input().peek(1000, b));
  EXPECT_EQ(b.seq, 2u);
}

TEST_F(TimeoutTest, HugeTimeoutTerminates) {
  auto ep = open();
  SpscQueueInputHandle h{};
  EXPECT_FALSE(ep->input().peek(std::numeric_limits<uint64_t>::max(), h));
  expect_healthy(*ep);
}

TEST_F(TimeoutTest, ExpiryOnAPoisonedHandleNeverWaits) {
  auto ep = open();
  peer_->write_input_descriptor(0, spsq_conf::wire::Descriptor{5, kData, 0, 0});
  peer_->set_input_tail(1);
  SpscQueueInputHandle h{};
  EXPECT_FALSE(ep->input().peek(1000, h));
  expect_poisoned(*ep, SpscQueueErrorKind::INVALID_DESCRIPTOR, SpscQueueOp::INPUT_TRY_PEEK);
  const uint64_t t0 = VirtualClock::peek();
  const size_t accesses = log().size();
  EXPECT_FALSE(ep->input().peek(1000, h));
  SpscQueueOutputReservation r{};
  EXPECT_FALSE(ep->output().reserve(8, 1000, r));
  EXPECT_EQ(VirtualClock::peek(), t0);
  EXPECT_EQ(log().size(), accesses);
}

}  // namespace
}  // namespace spsq_l2_test
