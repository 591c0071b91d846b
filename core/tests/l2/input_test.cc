// Input side (L3 -> L2): descriptor validation, the arena replay rule, counter
// reconstruction, the DATA window, the STOP slot and FIFO-prefix release.
#include <cstdint>
#include <limits>

#include "tests/l2/l2_rig.h"

namespace spsq_testing {
namespace {

class InputTest : public L2Test {
 protected:
  // Publishes one raw descriptor at logical index k with tail k + 1.
  void publish_raw(uint64_t k, const RawDescriptor& d) {
    peer_->write_input_slot(k, d);
    peer_->set_input_tail(low32(k + 1));
  }

  // The first try_peek poisons with INVALID_DESCRIPTOR in INPUT_TRY_PEEK and
  // the message names `needle`.
  template <uint64_t N>
  void expect_peek_poisons(Endpoint<N>& ep, const char* needle) {
    const int32_t head_before = peer_->input_head();
    SpscQueueInputHandle h{};
    EXPECT_FALSE(ep.input().try_peek(h));
    expect_poisoned(ep, SpscQueueErrorKind::INVALID_DESCRIPTOR, SpscQueueOp::INPUT_TRY_PEEK);
    EXPECT_NE(std::strstr(ep.error().message, needle), nullptr)
        << "'" << ep.error().message << "' should mention '" << needle << "'";
    EXPECT_EQ(peer_->input_head(), head_before) << "a poisoned peek must not release anything";
  }

  void expect_raw_poisons(const RawDescriptor& d, const char* needle) {
    auto ep = open();
    publish_raw(0, d);
    expect_peek_poisons(*ep, needle);
  }
};

TEST_F(InputTest, DataHandleCarriesSeqOpcodeAndBorrowedPayload) {
  auto ep = open();
  const std::vector<uint8_t> msg = pattern(10, 0x40);
  ASSERT_EQ(peer_->send(SpscQueueOpcode::DATA, msg), kInArena);

  SpscQueueInputHandle h{};
  ASSERT_TRUE(ep->input().try_peek(h)) << ep->error().message;
  EXPECT_EQ(h.seq, 1u);
  EXPECT_EQ(static_cast<uint64_t>(h.opcode), kData);
  EXPECT_EQ(h.payload_offset, kInArena);
  EXPECT_EQ(h.payload_nbytes, 10u);
  // Borrowed, not copied: the pointer is into the shared payload part.
  EXPECT_EQ(spsc_queue::payload_data(h), region_->payload() + kInArena);
  EXPECT_EQ(span_bytes(spsc_queue::payload_data(h), h.payload_nbytes), msg);
  EXPECT_EQ(peer_->input_head(), 0) << "acquiring is not releasing";

  // Reads only: tail counter, descriptor slot 0, the payload span.
  const std::vector<Access> a = script_.log.entries();
  ASSERT_EQ(a.size(), 3u) << script_.log.str();
  EXPECT_EQ(a[0].kind, AccessKind::kCounterTest);
  EXPECT_EQ(a[0].offset, kInputTail);
  EXPECT_EQ(a[1].kind, AccessKind::kPayloadRead);
  EXPECT_EQ(a[1].offset, kInRing);
  EXPECT_EQ(a[1].nbytes, 32u);
  EXPECT_EQ(a[2].kind, AccessKind::kPayloadRead);
  EXPECT_EQ(a[2].offset, kInArena);
  EXPECT_EQ(a[2].nbytes, 10u);

  script_.log.clear();
  ASSERT_TRUE(ep->input().release(h));
  EXPECT_EQ(peer_->input_head(), 1);
  ASSERT_EQ(script_.log.size(), 1u) << script_.log.str();
  EXPECT_EQ(script_.log[0].kind, AccessKind::kCounterNotify);
  EXPECT_EQ(script_.log[0].offset, kInputHead);
  EXPECT_EQ(script_.log[0].value, 1);
  EXPECT_EQ(script_.log[0].mode, static_cast<uint32_t>(RegionNotifyOp::Set));
  expect_healthy(*ep);
}

TEST_F(InputTest, EmptyQueueIsNoProgressNotError) {
  auto ep = open();
  SpscQueueInputHandle h{};
  EXPECT_FALSE(ep->input().try_peek(h));
  EXPECT_FALSE(ep->input().try_peek(h));
  expect_healthy(*ep);
  EXPECT_EQ(script_.log.count(AccessKind::kPayloadRead), 0u) << "nothing published, nothing to read";
  EXPECT_EQ(script_.log.count(AccessKind::kCounterNotify), 0u);
}

TEST_F(InputTest, SequenceNumbersAreOneBasedAcrossRingLaps) {
  auto ep = open();
  for (uint64_t k = 0; k < 10; ++k) {  // 2.5 laps of a depth-4 ring
    peer_->send(SpscQueueOpcode::DATA, pattern(16, static_cast<uint8_t>(k)));
    SpscQueueInputHandle h{};
    ASSERT_TRUE(ep->input().try_peek(h)) << k << ": " << ep->error().message;
    EXPECT_EQ(h.seq, k + 1);
    EXPECT_EQ(span_bytes(spsc_queue::payload_data(h), 16), pattern(16, static_cast<uint8_t>(k)));
    ASSERT_TRUE(ep->input().release(h));
    EXPECT_EQ(peer_->input_head(), static_cast<int32_t>(k + 1));
  }
  expect_healthy(*ep);
}

TEST_F(InputTest, SeqZeroPoisons) {
  expect_raw_poisons(RawDescriptor{0, kData, 0, 0}, "sequence");
}

TEST_F(InputTest, SeqTwoAtIndexZeroPoisons) {
  expect_raw_poisons(RawDescriptor{2, kData, 0, 0}, "sequence");
}

TEST_F(InputTest, StaleSeqFromThePreviousLapPoisons) {
  auto ep = open();
  for (int i = 0; i < 4; ++i) {
    peer_->send(SpscQueueOpcode::DATA);
    SpscQueueInputHandle h{};
    ASSERT_TRUE(ep->input().try_peek(h));
    ASSERT_TRUE(ep->input().release(h));
  }
  // Index 4 reuses slot 0, which still holds seq 1.
  peer_->set_input_tail(5);
  expect_peek_poisons(*ep, "sequence");
}

TEST_F(InputTest, InvalidOpcodePoisons) {
  expect_raw_poisons(RawDescriptor{1, 0, 0, 0}, "opcode");
}

TEST_F(InputTest, ErrorOpcodeOnInputPoisons) {
  // Wire contract: the input direction carries DATA and STOP; the shipped L2
  // endpoint poisons on an input ERROR (contract "Open points").
  expect_raw_poisons(RawDescriptor{1, kError, 0, 0}, "opcode");
}

TEST_F(InputTest, UnknownOpcodesPoison) {
  for (uint64_t op : {uint64_t{4}, uint64_t{64}, uint64_t{1} << 63, ~uint64_t{0}}) {
    SCOPED_TRACE(op);
    script_.log.clear();
    region_->set_counter(kPeerAbortFlag, 0);
    expect_raw_poisons(RawDescriptor{1, op, 0, 0}, "opcode");
  }
}

TEST_F(InputTest, StopIsZeroByteWithNullPayload) {
  auto ep = open();
  peer_->send(SpscQueueOpcode::STOP);
  SpscQueueInputHandle h{};
  ASSERT_TRUE(ep->input().try_peek(h));
  EXPECT_EQ(h.seq, 1u);
  EXPECT_EQ(static_cast<uint64_t>(h.opcode), kStop);
  EXPECT_EQ(h.payload_offset, 0u);
  EXPECT_EQ(h.payload_nbytes, 0u);
  EXPECT_EQ(spsc_queue::payload_data(h), nullptr);
  EXPECT_EQ(script_.log.count(AccessKind::kPayloadRead), 1u) << "descriptor only, no payload read";
}

TEST_F(InputTest, StopWithPayloadPoisons) {
  region_->write_bytes(kInArena, pattern(8, 1).data(), 8);
  expect_raw_poisons(RawDescriptor{1, kStop, kInArena, 8}, "STOP");
}

TEST_F(InputTest, ZeroByteMessageWithNonzeroOffsetPoisons) {
  expect_raw_poisons(RawDescriptor{1, kStop, kInArena, 0}, "payload_offset");
  script_.log.clear();
  region_->set_counter(kPeerAbortFlag, 0);
  expect_raw_poisons(RawDescriptor{1, kData, kInArena, 0}, "payload_offset");
}

TEST_F(InputTest, ZeroByteDataHasOffsetZeroAndNoPayload) {
  auto ep = open();
  peer_->send(SpscQueueOpcode::DATA);
  SpscQueueInputHandle h{};
  ASSERT_TRUE(ep->input().try_peek(h));
  EXPECT_EQ(static_cast<uint64_t>(h.opcode), kData);
  EXPECT_EQ(h.payload_offset, 0u);
  EXPECT_EQ(h.payload_nbytes, 0u);
  EXPECT_EQ(spsc_queue::payload_data(h), nullptr);
}

TEST_F(InputTest, PayloadOutsideTheInputArenaPoisons) {
  struct Case { uint64_t offset, nbytes; };
  for (const Case c : {Case{kOutArena, 8},         // the output arena
                       Case{kOutRing, 8},          // a descriptor ring
                       Case{kInArena - 8, 16},     // straddles the arena start
                       Case{kInArena + 250, 8},    // straddles the arena end
                       Case{kInArena, 257},        // larger than the arena
                       Case{~uint64_t{0} - 7, 16},  // offset + nbytes overflows
                       Case{kInArena, ~uint64_t{0}}}) {
    SCOPED_TRACE(c.offset);
    script_.log.clear();
    region_->set_counter(kPeerAbortFlag, 0);
    expect_raw_poisons(RawDescriptor{1, kData, c.offset, c.nbytes}, "outside");
  }
}

TEST_F(InputTest, PayloadAtAnyOtherThanTheReplayedOffsetPoisons) {
  auto ep = open();
  peer_->send(SpscQueueOpcode::DATA, pattern(10, 1));  // cursor 0 -> 10
  SpscQueueInputHandle h{};
  ASSERT_TRUE(ep->input().try_peek(h));
  ASSERT_TRUE(ep->input().release(h));
  // The arena rule puts the next message at +10 (no rounding); +64 is inside
  // the arena but not where the rule puts it.
  publish_raw(1, RawDescriptor{2, kData, kInArena + 64, 10});
  expect_peek_poisons(*ep, "replay");
}

TEST_F(InputTest, ReplayRejectsReuseOfTheFirstMessagesOffset) {
  auto ep = open<2>();
  peer_->send(SpscQueueOpcode::DATA, pattern(10, 1));
  SpscQueueInputHandle h{};
  ASSERT_TRUE(ep->input().try_peek(h));
  publish_raw(1, RawDescriptor{2, kData, kInArena, 10});  // overlaps message 1
  expect_peek_poisons(*ep, "replay");
}

TEST_F(InputTest, PayloadOffsetsFollowTheArenaRuleWithoutRounding) {
  auto ep = open<4>();
  // 10 bytes at +0, zero bytes (offset 0, cursor unchanged), 5 bytes at +10,
  // 1 byte at +15.
  peer_->stage(SpscQueueOpcode::DATA, pattern(10, 1));
  peer_->stage(SpscQueueOpcode::DATA);
  peer_->stage(SpscQueueOpcode::DATA, pattern(5, 2));
  peer_->stage(SpscQueueOpcode::DATA, pattern(1, 3));
  peer_->publish();
  const uint64_t want[] = {kInArena, 0, kInArena + 10, kInArena + 15};
  for (uint64_t i = 0; i < 4; ++i) {
    SpscQueueInputHandle h{};
    ASSERT_TRUE(ep->input().try_peek(h)) << i << ": " << ep->error().message;
    EXPECT_EQ(h.payload_offset, want[i]) << i;
  }
  expect_healthy(*ep);
}

TEST_F(InputTest, ArenaWrapSkipsTheUnusedTail) {
  auto ep = open();
  SpscQueueInputHandle h{};
  // 200 bytes at +0; 100 bytes would cross the end (200 + 100 > 256), so the
  // rule skips 56 bytes and places it at the arena start.
  EXPECT_EQ(peer_->send(SpscQueueOpcode::DATA, pattern(200, 1)), kInArena);
  ASSERT_TRUE(ep->input().try_peek(h));
  ASSERT_TRUE(ep->input().release(h));
  EXPECT_EQ(peer_->send(SpscQueueOpcode::DATA, pattern(100, 2)), kInArena);
  ASSERT_TRUE(ep->input().try_peek(h)) << ep->error().message;
  EXPECT_EQ(h.payload_offset, kInArena);
  EXPECT_EQ(span_bytes(spsc_queue::payload_data(h), 100), pattern(100, 2));
  ASSERT_TRUE(ep->input().release(h));
  // Cursor 356 -> position 100; 156 bytes end exactly at the arena end: no skip.
  EXPECT_EQ(peer_->send(SpscQueueOpcode::DATA, pattern(156, 3)), kInArena + 100);
  ASSERT_TRUE(ep->input().try_peek(h)) << ep->error().message;
  EXPECT_EQ(h.payload_offset, kInArena + 100);
  ASSERT_TRUE(ep->input().release(h));
  // Cursor 512 -> position 0 again.
  EXPECT_EQ(peer_->send(SpscQueueOpcode::DATA, pattern(1, 4)), kInArena);
  ASSERT_TRUE(ep->input().try_peek(h)) << ep->error().message;
  EXPECT_EQ(h.payload_offset, kInArena);
  expect_healthy(*ep);
}

TEST_F(InputTest, WrapThatDoesNotSkipPoisons) {
  auto ep = open();
  SpscQueueInputHandle h{};
  peer_->send(SpscQueueOpcode::DATA, pattern(200, 1));
  ASSERT_TRUE(ep->input().try_peek(h));
  ASSERT_TRUE(ep->input().release(h));
  // A producer that forgot the skip puts 40 bytes at +200: inside the arena,
  // but the rule says +0.
  region_->write_bytes(kInArena + 200, pattern(40, 2).data(), 40);
  publish_raw(1, RawDescriptor{2, kData, kInArena + 200, 40});
  SpscQueueInputHandle h2{};
  EXPECT_TRUE(ep->input().try_peek(h2)) << "200 + 40 fits: no skip, +200 is right";
  ASSERT_TRUE(ep->input().release(h2));
  publish_raw(2, RawDescriptor{3, kData, kInArena + 240, 40});  // would need a skip
  expect_peek_poisons(*ep, "outside");
}

TEST_F(InputTest, TailOfExactlyDepthIsAccepted) {
  auto ep = open<4>();
  for (int i = 0; i < 4; ++i) peer_->stage(SpscQueueOpcode::DATA, pattern(8, static_cast<uint8_t>(i)));
  peer_->publish();
  ASSERT_EQ(region_->counter(kInputTail), 4);
  for (uint64_t i = 0; i < 4; ++i) {
    SpscQueueInputHandle h{};
    ASSERT_TRUE(ep->input().try_peek(h)) << ep->error().message;
    EXPECT_EQ(h.seq, i + 1);
  }
  expect_healthy(*ep);
}

TEST_F(InputTest, TailOfDepthPlusOnePoisons) {
  auto ep = open();
  for (int i = 0; i < 4; ++i) peer_->stage(SpscQueueOpcode::DATA);
  peer_->set_input_tail(5);
  expect_peek_poisons(*ep, "tail");
}

TEST_F(InputTest, NegativeTailPoisons) {
  for (int32_t tail : {-1, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()}) {
    SCOPED_TRACE(tail);
    script_.log.clear();
    region_->set_counter(kPeerAbortFlag, 0);
    auto ep = open();
    peer_->set_input_tail(tail);
    expect_peek_poisons(*ep, "tail");
  }
}

TEST_F(InputTest, TailMovingBackwardsPoisons) {
  auto ep = open<2>();
  peer_->stage(SpscQueueOpcode::DATA);
  peer_->stage(SpscQueueOpcode::DATA);
  peer_->publish();
  SpscQueueInputHandle h{};
  ASSERT_TRUE(ep->input().try_peek(h));
  ASSERT_TRUE(ep->input().try_peek(h));
  peer_->set_input_tail(1);
  expect_peek_poisons(*ep, "tail");
}

TEST_F(InputTest, TailBeyondHeadPlusDepthPoisons) {
  // Delta 1 from the last tail is small, but 5 unreleased messages cannot
  // exist in a depth-4 ring.
  auto ep = open<4>();
  for (int i = 0; i < 4; ++i) peer_->stage(SpscQueueOpcode::DATA);
  peer_->publish();
  SpscQueueInputHandle h{};
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(ep->input().try_peek(h));
  peer_->set_input_tail(5);
  expect_peek_poisons(*ep, "tail");
}

TEST_F(InputTest, DefaultWindowHoldsOneDataHandle) {
  auto ep = open();
  peer_->stage(SpscQueueOpcode::DATA, pattern(4, 1));
  peer_->stage(SpscQueueOpcode::DATA, pattern(4, 2));
  peer_->publish();
  SpscQueueInputHandle h1{}, h2{};
  ASSERT_TRUE(ep->input().try_peek(h1));
  EXPECT_EQ(h1.seq, 1u);
  EXPECT_FALSE(ep->input().try_peek(h2)) << "window of one is full";
  expect_healthy(*ep);
  ASSERT_TRUE(ep->input().release(h1));
  ASSERT_TRUE(ep->input().try_peek(h2));
  EXPECT_EQ(h2.seq, 2u);
  EXPECT_EQ(span_bytes(spsc_queue::payload_data(h2), 4), pattern(4, 2));
}

TEST_F(InputTest, WindowOfFourReleasesOnlyTheCompletedFifoPrefix) {
  auto ep = open<4>();
  for (int i = 0; i < 4; ++i) peer_->stage(SpscQueueOpcode::DATA, pattern(8, static_cast<uint8_t>(10 * i)));
  peer_->publish();
  SpscQueueInputHandle h[5] = {};
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(ep->input().try_peek(h[i])) << i;
    EXPECT_EQ(h[i].seq, static_cast<uint64_t>(i + 1));
    EXPECT_EQ(h[i].payload_offset, kInArena + 8u * i);
  }
  // Release out of order: 3, 2, 4 stay physically owned behind 1.
  script_.log.clear();
  ASSERT_TRUE(ep->input().release(h[2]));
  ASSERT_TRUE(ep->input().release(h[1]));
  ASSERT_TRUE(ep->input().release(h[3]));
  EXPECT_EQ(peer_->input_head(), 0);
  EXPECT_TRUE(script_.log.notified(kInputHead).empty()) << script_.log.str();
  // Input 1 completes the prefix: one head publish per physical release.
  ASSERT_TRUE(ep->input().release(h[0]));
  EXPECT_EQ(script_.log.notified(kInputHead), (std::vector<int32_t>{1, 2, 3, 4}));
  EXPECT_EQ(peer_->input_head(), 4);
  // The window is free again and the ring has wrapped.
  peer_->send(SpscQueueOpcode::DATA, pattern(8, 99));
  ASSERT_TRUE(ep->input().try_peek(h[4]));
  EXPECT_EQ(h[4].seq, 5u);
  EXPECT_EQ(h[4].payload_offset, kInArena + 32);
  expect_healthy(*ep);
}

TEST_F(InputTest, LogicallyReleasedButUnpublishedInputsStillFillTheWindow) {
  auto ep = open<2>();
  for (int i = 0; i < 3; ++i) peer_->stage(SpscQueueOpcode::DATA);
  peer_->publish();
  SpscQueueInputHandle a{}, b{}, c{};
  ASSERT_TRUE(ep->input().try_peek(a));
  ASSERT_TRUE(ep->input().try_peek(b));
  EXPECT_FALSE(ep->input().try_peek(c)) << "window of two is full";
  ASSERT_TRUE(ep->input().release(b));  // logical only: input 1 still holds the head
  EXPECT_EQ(peer_->input_head(), 0);
  EXPECT_FALSE(ep->input().try_peek(c)) << "input 2 is still physically owned";
  ASSERT_TRUE(ep->input().release(a));
  EXPECT_EQ(peer_->input_head(), 2);
  ASSERT_TRUE(ep->input().try_peek(c));
  EXPECT_EQ(c.seq, 3u);
  expect_healthy(*ep);
}

TEST_F(InputTest, StopBehindThreeActiveInputs) {
  auto ep = open<4>();
  for (int i = 0; i < 3; ++i) peer_->stage(SpscQueueOpcode::DATA, pattern(4, static_cast<uint8_t>(i)));
  peer_->stage(SpscQueueOpcode::STOP);
  peer_->publish();
  SpscQueueInputHandle d[3] = {}, stop{};
  for (auto& h : d) ASSERT_TRUE(ep->input().try_peek(h));
  ASSERT_TRUE(ep->input().try_peek(stop));
  EXPECT_EQ(stop.seq, 4u);
  EXPECT_EQ(static_cast<uint64_t>(stop.opcode), kStop);
  EXPECT_FALSE(ep->input().drained());

  script_.log.clear();
  ASSERT_TRUE(ep->input().release(stop));  // logical: three inputs are ahead of it
  EXPECT_FALSE(ep->input().drained());
  ASSERT_TRUE(ep->input().release(d[1]));
  EXPECT_EQ(peer_->input_head(), 0);
  ASSERT_TRUE(ep->input().release(d[0]));
  EXPECT_EQ(peer_->input_head(), 2);
  EXPECT_FALSE(ep->input().drained());
  ASSERT_TRUE(ep->input().release(d[2]));
  EXPECT_EQ(peer_->input_head(), 4);
  EXPECT_TRUE(ep->input().drained());
  EXPECT_EQ(script_.log.notified(kInputHead), (std::vector<int32_t>{1, 2, 3, 4}));
  SpscQueueInputHandle more{};
  EXPECT_FALSE(ep->input().try_peek(more));
  expect_healthy(*ep);
}

TEST_F(InputTest, StopTakesTheExtraSlotWhenTheWindowIsFull) {
  auto ep = open();
  peer_->stage(SpscQueueOpcode::DATA, pattern(4, 1));
  peer_->stage(SpscQueueOpcode::STOP);
  peer_->publish();
  SpscQueueInputHandle data{}, stop{};
  ASSERT_TRUE(ep->input().try_peek(data));
  ASSERT_TRUE(ep->input().try_peek(stop)) << "STOP does not count against the window";
  EXPECT_EQ(static_cast<uint64_t>(stop.opcode), kStop);
  EXPECT_EQ(stop.seq, 2u);
  ASSERT_TRUE(ep->input().release(data));
  EXPECT_EQ(peer_->input_head(), 1);
  EXPECT_FALSE(ep->input().drained()) << "STOP acquired but not released";
  ASSERT_TRUE(ep->input().release(stop));
  EXPECT_EQ(peer_->input_head(), 2);
  EXPECT_TRUE(ep->input().drained());
}

TEST_F(InputTest, StopBehindAFullWindowOfThree) {
  auto ep = open<3>();
  for (int i = 0; i < 3; ++i) peer_->stage(SpscQueueOpcode::DATA);
  peer_->stage(SpscQueueOpcode::STOP);
  peer_->publish();
  SpscQueueInputHandle d[3] = {}, stop{};
  for (auto& h : d) ASSERT_TRUE(ep->input().try_peek(h));
  ASSERT_TRUE(ep->input().try_peek(stop));
  EXPECT_EQ(static_cast<uint64_t>(stop.opcode), kStop);
  for (auto& h : d) ASSERT_TRUE(ep->input().release(h));
  EXPECT_FALSE(ep->input().drained());
  EXPECT_EQ(peer_->input_head(), 3);
  ASSERT_TRUE(ep->input().release(stop));
  EXPECT_TRUE(ep->input().drained());
  EXPECT_EQ(peer_->input_head(), 4);
}

TEST_F(InputTest, DrainedStopIsQuietWhileNothingFollows) {
  auto ep = open();
  peer_->send(SpscQueueOpcode::STOP);
  SpscQueueInputHandle stop{}, h{};
  ASSERT_TRUE(ep->input().try_peek(stop));
  ASSERT_TRUE(ep->input().release(stop));
  EXPECT_TRUE(ep->input().drained());
  EXPECT_FALSE(ep->input().try_peek(h));
  EXPECT_FALSE(ep->input().try_peek(h));
  expect_healthy(*ep);
}

TEST_F(InputTest, DescriptorPublishedAfterStopPoisons) {
  auto ep = open<4>();
  peer_->stage(SpscQueueOpcode::DATA);
  peer_->stage(SpscQueueOpcode::STOP);
  peer_->stage(SpscQueueOpcode::DATA, pattern(4, 1));
  peer_->publish();
  SpscQueueInputHandle a{}, stop{};
  ASSERT_TRUE(ep->input().try_peek(a));
  ASSERT_TRUE(ep->input().try_peek(stop));
  EXPECT_EQ(static_cast<uint64_t>(stop.opcode), kStop);
  expect_peek_poisons(*ep, "after STOP");
  EXPECT_FALSE(ep->input().drained());
}

TEST_F(InputTest, DescriptorPublishedAfterDrainPoisons) {
  auto ep = open();
  peer_->send(SpscQueueOpcode::STOP);
  SpscQueueInputHandle stop{};
  ASSERT_TRUE(ep->input().try_peek(stop));
  ASSERT_TRUE(ep->input().release(stop));
  peer_->send(SpscQueueOpcode::DATA);
  expect_peek_poisons(*ep, "after STOP");
}

// --- release ownership ---

class InputReleaseTest : public InputTest {
 protected:
  void SetUp() override {
    InputTest::SetUp();
    ep_ = open<2>();
    peer_->stage(SpscQueueOpcode::DATA, pattern(4, 1));
    peer_->stage(SpscQueueOpcode::DATA, pattern(4, 2));
    peer_->stage(SpscQueueOpcode::DATA, pattern(4, 3));
    peer_->publish();
    ASSERT_TRUE(ep_->input().try_peek(h1_));
  }
  void expect_release_poisons(const SpscQueueInputHandle& h) {
    EXPECT_FALSE(ep_->input().release(h));
    expect_poisoned(*ep_, SpscQueueErrorKind::OWNERSHIP, SpscQueueOp::INPUT_RELEASE);
    EXPECT_EQ(peer_->input_head(), 0);
  }
  std::unique_ptr<Endpoint<2>> ep_;
  SpscQueueInputHandle h1_{};
};

TEST_F(InputReleaseTest, DefaultHandlePoisons) { expect_release_poisons(SpscQueueInputHandle{}); }

TEST_F(InputReleaseTest, DoubleReleasePoisons) {
  SpscQueueInputHandle h2{};
  ASSERT_TRUE(ep_->input().try_peek(h2));
  ASSERT_TRUE(ep_->input().release(h2));  // logical; input 1 still holds the head
  expect_release_poisons(h2);
}

TEST_F(InputReleaseTest, ReleaseOfAFullyReleasedHandlePoisons) {
  ASSERT_TRUE(ep_->input().release(h1_));
  EXPECT_EQ(peer_->input_head(), 1);
  EXPECT_FALSE(ep_->input().release(h1_));
  expect_poisoned(*ep_, SpscQueueErrorKind::OWNERSHIP, SpscQueueOp::INPUT_RELEASE);
  EXPECT_EQ(peer_->input_head(), 1);
}

TEST_F(InputReleaseTest, NotYetAcquiredSeqPoisons) {
  SpscQueueInputHandle forged = h1_;
  forged.seq = 2;
  forged.payload_offset = kInArena + 4;
  expect_release_poisons(forged);
}

TEST_F(InputReleaseTest, TamperedHandlePoisons) {
  SpscQueueInputHandle forged = h1_;
  forged.payload_nbytes = 3;
  expect_release_poisons(forged);
}

TEST_F(InputReleaseTest, HandleOfAnotherQueuePoisons) {
  HostRegion other(4, 256, 256);
  ScriptedL3Peer other_peer(&other);
  ViewScript other_script;
  Endpoint<2> other_ep(other.binding(),
                       RecordingView(other.payload_span(), other.counter_span(), &other_script),
                       VirtualClock::clock());
  other_peer.send(SpscQueueOpcode::DATA, pattern(4, 1));
  SpscQueueInputHandle foreign{};
  ASSERT_TRUE(other_ep.input().try_peek(foreign));
  // Same seq, opcode, offset and size as h1_, different queue.
  ASSERT_EQ(foreign.seq, h1_.seq);
  ASSERT_EQ(foreign.payload_offset, h1_.payload_offset);
  expect_release_poisons(foreign);
  EXPECT_TRUE(other_ep.live());
}

}  // namespace
}  // namespace spsq_testing
