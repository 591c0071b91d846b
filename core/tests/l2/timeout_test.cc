// Blocking calls: timeout 0 is a live no-attempt, a positive timeout waits on
// the virtual clock, expiry under backpressure is not poison, and expiry with
// the initiator's abort flag raised reports REMOTE_ABORTED without raising
// L2's own flag.
#include <cstdint>
#include <limits>

#include "tests/l2/l2_rig.h"

namespace spsq_testing {
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
    EXPECT_EQ(ep.error().transaction_id, region_->binding().transaction_id);
    EXPECT_EQ(peer_->peer_abort_flag(), 0);
    EXPECT_EQ(script_.log.count(AccessKind::kCounterNotify, kPeerAbortFlag), 0u)
        << script_.log.str();
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
  peer_->send(SpscQueueOpcode::DATA, pattern(4, 1));  // available, yet not taken
  SpscQueueInputHandle h{};
  const uint64_t t0 = VirtualClock::now();
  EXPECT_FALSE(ep->input().peek(0, h));
  EXPECT_EQ(h.seq, 0u) << "the handle is not filled";
  EXPECT_TRUE(script_.log.empty()) << script_.log.str();
  EXPECT_EQ(VirtualClock::now(), t0);
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
  EXPECT_TRUE(script_.log.empty()) << script_.log.str();
  expect_healthy(*ep);
  ASSERT_TRUE(ep->output().try_reserve(8, r)) << "nothing was reserved by the no-attempt";
}

TEST_F(TimeoutTest, ZeroTimeoutDoesNotSampleARaisedAbortFlag) {
  auto ep = open();
  peer_->raise_initiator_abort();
  SpscQueueInputHandle h{};
  SpscQueueOutputReservation r{};
  EXPECT_FALSE(ep->input().peek(0, h));
  EXPECT_FALSE(ep->output().reserve(8, 0, r));
  EXPECT_TRUE(script_.log.empty());
  EXPECT_TRUE(ep->live());
}

TEST_F(TimeoutTest, PeekExpiryOnAnEmptyQueueIsNotPoison) {
  auto ep = open();
  SpscQueueInputHandle h{};
  const uint64_t t0 = VirtualClock::now();
  EXPECT_FALSE(ep->input().peek(5000, h));
  EXPECT_EQ(VirtualClock::now() - t0, 5000u) << "waited exactly the timeout";
  expect_healthy(*ep);
  // It waited on the input tail, then sampled the initiator flag once.
  EXPECT_GE(script_.log.count(AccessKind::kCounterWait, kInputTail), 1u) << script_.log.str();
  ASSERT_FALSE(script_.log.empty());
  EXPECT_EQ(script_.log.entries().back().kind, AccessKind::kCounterTest);
  EXPECT_EQ(script_.log.entries().back().offset, kInitiatorAbortFlag);
  EXPECT_EQ(script_.log.count(AccessKind::kCounterNotify), 0u);
  // Still usable.
  peer_->send(SpscQueueOpcode::DATA);
  EXPECT_TRUE(ep->input().peek(5000, h));
}

TEST_F(TimeoutTest, PeekExpiryWithInitiatorFlagRaisedIsRemoteAbort) {
  for (int32_t flag : {1, 2, std::numeric_limits<int32_t>::max()}) {
    SCOPED_TRACE(flag);
    script_.log.clear();
    auto ep = open();
    peer_->raise_initiator_abort(flag);
    SpscQueueInputHandle h{};
    EXPECT_FALSE(ep->input().peek(1000, h));
    expect_remote_aborted(*ep);
    // Terminal: a message arriving later is not delivered, and misuse after
    // the remote abort does not raise L2's flag either.
    peer_->send(SpscQueueOpcode::DATA);
    EXPECT_FALSE(ep->input().try_peek(h));
    EXPECT_FALSE(ep->input().release(SpscQueueInputHandle{}));
    EXPECT_EQ(ep->error().kind, SpscQueueErrorKind::REMOTE_ABORTED);
    EXPECT_EQ(peer_->peer_abort_flag(), 0);
    use_region(4, 256, 256);
  }
}

TEST_F(TimeoutTest, FlagsBelowOneAreNotRaised) {
  for (int32_t flag : {0, -1, std::numeric_limits<int32_t>::min()}) {
    SCOPED_TRACE(flag);
    auto ep = open();
    peer_->raise_initiator_abort(flag);
    SpscQueueInputHandle h{};
    EXPECT_FALSE(ep->input().peek(1000, h));
    expect_healthy(*ep);
  }
}

TEST_F(TimeoutTest, ReserveExpiryUnderRingBackpressureIsNotPoison) {
  auto ep = open();
  fill_output_ring(*ep);
  SpscQueueOutputReservation r{};
  const uint64_t t0 = VirtualClock::now();
  EXPECT_FALSE(ep->output().reserve(8, 2000, r));
  EXPECT_EQ(VirtualClock::now() - t0, 2000u);
  expect_healthy(*ep);
  EXPECT_GE(script_.log.count(AccessKind::kCounterWait, kOutputHead), 1u) << script_.log.str();
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
  peer_->raise_initiator_abort();
  SpscQueueOutputReservation r{};
  EXPECT_FALSE(ep->output().reserve(8, 2000, r));
  expect_remote_aborted(*ep);
}

TEST_F(TimeoutTest, PeekSucceedsWhenL3PublishesDuringTheWait) {
  auto ep = open();
  script_.during_wait = [this] {
    if (peer_->staged() == 0) peer_->send(SpscQueueOpcode::DATA, pattern(12, 5));
  };
  SpscQueueInputHandle h{};
  const uint64_t t0 = VirtualClock::now();
  ASSERT_TRUE(ep->input().peek(10'000, h)) << ep->error().message;
  EXPECT_EQ(h.seq, 1u);
  EXPECT_EQ(span_bytes(spsc_queue::payload_data(h), h.payload_nbytes), pattern(12, 5));
  EXPECT_LT(VirtualClock::now() - t0, 10'000u);
  EXPECT_EQ(script_.log.count(AccessKind::kCounterWait, kInputTail), 1u);
  expect_healthy(*ep);
}

TEST_F(TimeoutTest, ReserveSucceedsWhenL3ReleasesDuringTheWait) {
  auto ep = open();
  fill_output_ring(*ep);
  script_.during_wait = [this] { peer_->release_outputs(1); };
  SpscQueueOutputReservation r{};
  ASSERT_TRUE(ep->output().reserve(8, 10'000, r)) << ep->error().message;
  EXPECT_EQ(r.payload_offset, kOutArena);
  ASSERT_TRUE(ep->output().publish(r, SpscQueueOpcode::DATA));
  EXPECT_EQ(peer_->output_slot(4), (RawDescriptor{5, kData, kOutArena, 8}));
  expect_healthy(*ep);
}

TEST_F(TimeoutTest, PeekWithAFullWindowWaitsOutItsTimeout) {
  auto ep = open();
  peer_->stage(SpscQueueOpcode::DATA);
  peer_->stage(SpscQueueOpcode::DATA);
  peer_->publish();
  SpscQueueInputHandle a{}, b{};
  ASSERT_TRUE(ep->input().peek(1000, a));
  const uint64_t t0 = VirtualClock::now();
  EXPECT_FALSE(ep->input().peek(1000, b));
  EXPECT_EQ(VirtualClock::now() - t0, 1000u);
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
  peer_->send(SpscQueueOpcode::DATA);
  SpscQueueInputHandle a{}, b{};
  ASSERT_TRUE(ep->input().try_peek(a));
  peer_->send(SpscQueueOpcode::DATA);
  EXPECT_FALSE(ep->input().try_peek(b));  // sees tail 2, window full
  peer_->send(SpscQueueOpcode::DATA);
  const uint64_t t0 = VirtualClock::now();
  EXPECT_FALSE(ep->input().peek(1000, b));
  EXPECT_EQ(VirtualClock::now() - t0, 1000u);
  EXPECT_LE(script_.log.count(AccessKind::kCounterWait), 2u) << script_.log.str();
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
  peer_->write_input_slot(0, RawDescriptor{5, kData, 0, 0});
  peer_->set_input_tail(1);
  SpscQueueInputHandle h{};
  EXPECT_FALSE(ep->input().peek(1000, h));
  expect_poisoned(*ep, SpscQueueErrorKind::INVALID_DESCRIPTOR, SpscQueueOp::INPUT_TRY_PEEK);
  const uint64_t t0 = VirtualClock::now();
  const size_t accesses = script_.log.size();
  EXPECT_FALSE(ep->input().peek(1000, h));
  SpscQueueOutputReservation r{};
  EXPECT_FALSE(ep->output().reserve(8, 1000, r));
  EXPECT_EQ(VirtualClock::now(), t0);
  EXPECT_EQ(script_.log.size(), accesses);
}

}  // namespace
}  // namespace spsq_testing
