// Poison: terminal, first error wins, the L2 abort flag is Set to 1 exactly
// once, the error carries the RegionInstance identity, and a failing view
// (the k-th call of one kind) poisons with ENDPOINT_ERROR.
#include <cinttypes>
#include <cstdio>
#include <string>

#include "tests/l2/l2_rig.h"

namespace spsq_l2_test {
namespace {

class PoisonTest : public L2Test {
 protected:
  // Poisons the endpoint with a bad input seq.
  template <uint64_t N>
  void poison_with_bad_seq(Endpoint<N>& ep) {
    peer_->write_input_descriptor(0, spsq_conf::wire::Descriptor{3, kData, 0, 0});
    peer_->set_input_tail(1);
    SpscQueueInputHandle h{};
    ASSERT_FALSE(ep.input().try_peek(h));
    ASSERT_EQ(ep.error().kind, SpscQueueErrorKind::INVALID_DESCRIPTOR);
  }
};

TEST_F(PoisonTest, EveryLaterOperationFailsAndNothingIsWritten) {
  auto ep = open<2>();
  // Leave the endpoint with a held input and an active reservation.
  send(kData, pattern(4, 1));
  SpscQueueInputHandle held{};
  ASSERT_TRUE(ep->input().try_peek(held));
  SpscQueueOutputReservation r{};
  ASSERT_TRUE(ep->output().try_reserve(4, r));
  // seq 1 at index 1
  peer_->write_input_descriptor(1, spsq_conf::wire::Descriptor{1, kData, 0, 0});
  peer_->set_input_tail(2);
  SpscQueueInputHandle h{};
  EXPECT_FALSE(ep->input().try_peek(h));
  expect_poisoned(*ep, SpscQueueErrorKind::INVALID_DESCRIPTOR, SpscQueueOp::INPUT_TRY_PEEK);

  log().clear();
  const uint64_t t0 = VirtualClock::peek();
  EXPECT_FALSE(ep->input().try_peek(h));
  EXPECT_FALSE(ep->input().peek(1000, h));
  EXPECT_FALSE(ep->input().release(held)) << "even a valid release";
  EXPECT_FALSE(ep->output().publish(r, SpscQueueOpcode::DATA)) << "even a valid publish";
  EXPECT_FALSE(ep->output().try_reserve(4, r));
  EXPECT_FALSE(ep->output().reserve(4, 1000, r));
  EXPECT_EQ(VirtualClock::peek(), t0);
  EXPECT_EQ(log().count_kind(AccessKind::kWrite), 0u) << log().dump();
  EXPECT_EQ(log().count_kind(AccessKind::kNotify), 0u) << log().dump();
  EXPECT_EQ(counter(kInputHead), 0);
  EXPECT_EQ(counter(kOutputTail), 0);
  EXPECT_EQ(output_slot(0), RawDescriptor{});
}

TEST_F(PoisonTest, FirstErrorWins) {
  auto ep = open();
  poison_with_bad_seq(*ep);
  const std::string first = ep->error().message;
  // Misuse that would poison a live handle differently.
  EXPECT_FALSE(ep->input().release(SpscQueueInputHandle{}));
  SpscQueueOutputReservation bogus{};
  EXPECT_FALSE(ep->output().publish(bogus, SpscQueueOpcode::STOP));
  EXPECT_EQ(ep->error().kind, SpscQueueErrorKind::INVALID_DESCRIPTOR);
  EXPECT_EQ(ep->error().op, SpscQueueOp::INPUT_TRY_PEEK);
  EXPECT_EQ(first, ep->error().message);
  expect_poisoned(*ep, SpscQueueErrorKind::INVALID_DESCRIPTOR, SpscQueueOp::INPUT_TRY_PEEK);
}

TEST_F(PoisonTest, OwnFlagIsSetToOneOnceWithASet) {
  auto ep = open();
  poison_with_bad_seq(*ep);
  const std::vector<Access> notes = only(AccessKind::kNotify);
  ASSERT_EQ(notes.size(), 1u) << log().dump();
  EXPECT_EQ(notes[0].offset, kPeerFlag);
  EXPECT_EQ(notes[0].value, 1);
  EXPECT_EQ(notes[0].op, static_cast<uint32_t>(RegionNotifyOp::Set));
  EXPECT_EQ(counter(kInitiatorFlag), 0) << "never the initiator's flag";
}

TEST_F(PoisonTest, ErrorCarriesSessionBitsAndTransactionId) {
  auto ep = open();
  poison_with_bad_seq(*ep);
  const spsc_queue::SpscQueueError& e = ep->error();
  EXPECT_TRUE(e.has_identity());
  EXPECT_EQ(e.session_instance_id_bits, 0x5e5510aa00000001ull);
  EXPECT_EQ(e.transaction_id, 4242u);
  char line[512];
  spsc_queue::format_error(e, line, sizeof(line));
  EXPECT_NE(std::strstr(line, "0x5e5510aa00000001"), nullptr) << line;
  EXPECT_NE(std::strstr(line, "4242"), nullptr) << line;
  EXPECT_NE(std::strstr(line, "INVALID_DESCRIPTOR"), nullptr) << line;
  EXPECT_NE(std::strstr(line, "sequence"), nullptr) << line;
  EXPECT_NE(std::strstr(e.message, "transaction 4242"), nullptr) << e.message;
}

TEST_F(PoisonTest, ApplicationErrorMessagesNeverRaiseAFlag) {
  auto ep = open();
  for (int i = 0; i < 3; ++i) {
    SpscQueueOutputReservation r{};
    ASSERT_TRUE(ep->output().try_reserve(4, r));
    ASSERT_TRUE(ep->output().publish(r, SpscQueueOpcode::ERROR));
  }
  expect_healthy(*ep);
  EXPECT_EQ(count(AccessKind::kNotify, kPeerFlag), 0u);
}

TEST_F(PoisonTest, AWholeSessionWritesOnlyL2OwnedSlots) {
  // Inputs, outputs, STOP drain: L2 writes the input head, the output tail,
  // the output ring and arena, and nothing else.
  auto ep = open<2>();
  send(kData, pattern(40, 1));
  send(kData, pattern(40, 2));
  send(kStop);
  SpscQueueInputHandle a{}, b{}, stop{};
  ASSERT_TRUE(ep->input().try_peek(a));
  ASSERT_TRUE(ep->input().try_peek(b));
  ASSERT_TRUE(ep->input().try_peek(stop));
  for (const SpscQueueInputHandle* h : {&a, &b}) {
    SpscQueueOutputReservation r{};
    ASSERT_TRUE(ep->output().try_reserve(h->payload_nbytes, r));
    std::memcpy(spsc_queue::payload_data(r), spsc_queue::payload_data(*h), h->payload_nbytes);
    ASSERT_TRUE(ep->output().publish(r, SpscQueueOpcode::DATA));
  }
  ASSERT_TRUE(ep->input().release(stop));
  ASSERT_TRUE(ep->input().release(b));
  ASSERT_TRUE(ep->input().release(a));
  EXPECT_TRUE(ep->input().drained());
  for (const Access& x : log().entries()) {
    if (x.kind == AccessKind::kNotify) {
      EXPECT_TRUE(x.offset == kInputHead || x.offset == kOutputTail) << x.describe();
    }
    if (x.kind == AccessKind::kWrite) {
      const bool ring = x.offset >= kOutRing && x.offset + x.nbytes <= kOutRing + 128;
      const bool arena = x.offset >= kOutArena && x.offset + x.nbytes <= kOutArena + 256;
      EXPECT_TRUE(ring || arena) << x.describe();
    }
  }
  EXPECT_EQ(output_payload(0), pattern(40, 1));
  EXPECT_EQ(output_payload(1), pattern(40, 2));
  EXPECT_EQ(counter(kInputHead), 3);
  expect_healthy(*ep);
}

// --- a failing view: the k-th call of one kind, counted from arm() ---

class ViewFailureTest : public PoisonTest {
 protected:
  template <class E>
  void expect_endpoint_error(const E& ep, SpscQueueOp op) {
    expect_poisoned(ep, SpscQueueErrorKind::ENDPOINT_ERROR, op);
    EXPECT_NE(std::strstr(ep.error().message, "injected fault"), nullptr)
        << "the view's error text is passed on: " << ep.error().message;
  }
};

TEST_F(ViewFailureTest, TailTestFailurePoisonsPeek) {
  auto ep = open();
  faults().arm(ViewCall::kTest, 1);
  send(kData);
  SpscQueueInputHandle h{};
  EXPECT_FALSE(ep->input().try_peek(h));
  expect_endpoint_error(*ep, SpscQueueOp::INPUT_TRY_PEEK);
}

TEST_F(ViewFailureTest, DescriptorReadFailurePoisonsPeek) {
  auto ep = open();
  faults().arm(ViewCall::kRead, 1);
  send(kData, pattern(4, 1));
  SpscQueueInputHandle h{};
  EXPECT_FALSE(ep->input().try_peek(h));
  expect_endpoint_error(*ep, SpscQueueOp::INPUT_TRY_PEEK);
}

TEST_F(ViewFailureTest, PayloadReadFailurePoisonsPeek) {
  auto ep = open();
  faults().arm(ViewCall::kRead, 2);
  send(kData, pattern(4, 1));
  SpscQueueInputHandle h{};
  EXPECT_FALSE(ep->input().try_peek(h));
  expect_endpoint_error(*ep, SpscQueueOp::INPUT_TRY_PEEK);
}

TEST_F(ViewFailureTest, HeadNotifyFailurePoisonsRelease) {
  auto ep = open();
  faults().arm(ViewCall::kNotify, 1);
  send(kData);
  SpscQueueInputHandle h{};
  ASSERT_TRUE(ep->input().try_peek(h));
  EXPECT_FALSE(ep->input().release(h));
  expect_endpoint_error(*ep, SpscQueueOp::INPUT_RELEASE);
  EXPECT_EQ(counter(kInputHead), 0);
}

TEST_F(ViewFailureTest, WaitFailurePoisonsBlockingPeek) {
  auto ep = open();
  faults().arm(ViewCall::kWait, 1);
  SpscQueueInputHandle h{};
  EXPECT_FALSE(ep->input().peek(1000, h));
  expect_endpoint_error(*ep, SpscQueueOp::INPUT_TRY_PEEK);
}

TEST_F(ViewFailureTest, ReserveMapFailurePoisonsReserve) {
  auto ep = open();
  faults().arm(ViewCall::kRead, 1);
  SpscQueueOutputReservation r{};
  EXPECT_FALSE(ep->output().try_reserve(8, r));
  expect_endpoint_error(*ep, SpscQueueOp::OUTPUT_TRY_RESERVE);
}

TEST_F(ViewFailureTest, HeadTestFailurePoisonsReserve) {
  auto ep = open();
  for (int i = 0; i < 4; ++i) {
    SpscQueueOutputReservation r{};
    ASSERT_TRUE(ep->output().try_reserve(0, r));
    ASSERT_TRUE(ep->output().publish(r, SpscQueueOpcode::DATA));
  }
  faults().arm(ViewCall::kTest, 1);
  SpscQueueOutputReservation r{};
  EXPECT_FALSE(ep->output().try_reserve(0, r));
  expect_endpoint_error(*ep, SpscQueueOp::OUTPUT_TRY_RESERVE);
}

// The replay reads back released descriptors only when they may have freed
// arena: sized messages.
TEST_F(ViewFailureTest, ReplayReadFailurePoisonsReserve) {
  auto ep = open();
  for (int i = 0; i < 4; ++i) {
    SpscQueueOutputReservation r{};
    ASSERT_TRUE(ep->output().try_reserve(8, r));
    ASSERT_TRUE(ep->output().publish(r, SpscQueueOpcode::DATA));
  }
  release_outputs(1);
  faults().arm(ViewCall::kRead, 1);
  SpscQueueOutputReservation r{};
  EXPECT_FALSE(ep->output().try_reserve(0, r));
  expect_endpoint_error(*ep, SpscQueueOp::OUTPUT_TRY_RESERVE);
}

// Publish mutates shared memory in four steps; a failure at any step poisons
// and nothing after it happens.
TEST_F(ViewFailureTest, PublishFailureAtEachStep) {
  struct Step { ViewCall call; uint64_t k; bool body_written, seq_written; };
  const Step steps[] = {
      {ViewCall::kWrite, 1, false, false},  // payload
      {ViewCall::kWrite, 2, false, false},  // descriptor bytes 8..31
      {ViewCall::kWrite, 3, true, false},   // seq
      {ViewCall::kNotify, 1, true, true},   // tail
  };
  for (const Step& s : steps) {
    SCOPED_TRACE(static_cast<int>(s.call) * 10 + static_cast<int>(s.k));
    use_region(4, 256, 256);
    auto ep = open();
    SpscQueueOutputReservation r{};
    ASSERT_TRUE(ep->output().try_reserve(8, r));
    std::memcpy(spsc_queue::payload_data(r), pattern(8, 1).data(), 8);
    faults().arm(s.call, s.k);
    EXPECT_FALSE(ep->output().publish(r, SpscQueueOpcode::DATA));
    expect_endpoint_error(*ep, SpscQueueOp::OUTPUT_PUBLISH);
    const RawDescriptor d = output_slot(0);
    EXPECT_EQ(static_cast<uint64_t>(d.opcode), s.body_written ? kData : 0u);
    EXPECT_EQ(d.seq, s.seq_written ? 1u : 0u);
    EXPECT_EQ(counter(kOutputTail), 0);
  }
}

TEST_F(ViewFailureTest, StickyFailureStillAttemptsTheFlagOnce) {
  auto ep = open();
  region_->view_state().sticky_faults = true;
  faults().arm(ViewCall::kNotify, 1);
  send(kData);
  SpscQueueInputHandle h{};
  ASSERT_TRUE(ep->input().try_peek(h));
  EXPECT_FALSE(ep->input().release(h));
  EXPECT_EQ(ep->error().kind, SpscQueueErrorKind::ENDPOINT_ERROR);
  EXPECT_EQ(ep->error().op, SpscQueueOp::INPUT_RELEASE);
  // The dead view refuses the flag write; the endpoint tried exactly once.
  EXPECT_EQ(count(AccessKind::kNotify, kPeerFlag), 1u) << log().dump();
  EXPECT_EQ(peer_->l2_flag(), 0);
  EXPECT_FALSE(ep->input().release(h));
  EXPECT_EQ(count(AccessKind::kNotify, kPeerFlag), 1u);
}

}  // namespace
}  // namespace spsq_l2_test
