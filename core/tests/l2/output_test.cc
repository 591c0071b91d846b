// Output side (L2 -> L3): reservation and placement by the arena rule, the
// publish order, exact-depth capacity, no-progress versus poison, ownership of
// reservations and the replay of descriptors L3 released.
#include <cstdint>

#include "tests/l2/l2_rig.h"

namespace spsq_l2_test {
namespace {

class OutputTest : public L2Test {
 protected:
  // Reserves n bytes, fills them with pattern(n, seed) and publishes.
  template <uint64_t N>
  uint64_t publish(Endpoint<N>& ep, uint64_t n, uint8_t seed,
                   SpscQueueOpcode opcode = SpscQueueOpcode::DATA) {
    SpscQueueOutputReservation r{};
    EXPECT_TRUE(ep.output().try_reserve(n, r)) << ep.error().message;
    if (n != 0 && spsc_queue::payload_data(r) != nullptr) {
      const std::vector<uint8_t> bytes = pattern(n, seed);
      std::memcpy(spsc_queue::payload_data(r), bytes.data(), n);
    }
    EXPECT_TRUE(ep.output().publish(r, opcode)) << ep.error().message;
    return r.payload_offset;
  }

  template <uint64_t N>
  void expect_reserve_poisons(Endpoint<N>& ep, const char* needle) {
    SpscQueueOutputReservation r{};
    EXPECT_FALSE(ep.output().try_reserve(8, r));
    expect_poisoned(ep, SpscQueueErrorKind::INVALID_DESCRIPTOR,
                    SpscQueueOp::OUTPUT_TRY_RESERVE);
    EXPECT_NE(std::strstr(ep.error().message, needle), nullptr)
        << "'" << ep.error().message << "' should mention '" << needle << "'";
  }

  // Fills the depth-4 ring with four 8-byte messages L3 has not released.
  template <uint64_t N>
  void fill_ring(Endpoint<N>& ep) {
    for (uint8_t i = 0; i < 4; ++i) publish(ep, 8, static_cast<uint8_t>(16 * i));
    ASSERT_EQ(counter(kOutputTail), 4);
  }
};

TEST_F(OutputTest, ReservationIsAWritableSpanAtTheArenaStart) {
  auto ep = open();
  SpscQueueOutputReservation r{};
  ASSERT_TRUE(ep->output().try_reserve(10, r));
  EXPECT_EQ(r.payload_offset, kOutArena);
  EXPECT_EQ(r.payload_nbytes, 10u);
  EXPECT_EQ(spsc_queue::payload_data(r), region_->memory().payload() + kOutArena)
      << "the span is the shared bytes themselves";
  EXPECT_EQ(counter(kOutputTail), 0) << "reserving publishes nothing";
  EXPECT_EQ(output_slot(0), RawDescriptor{}) << "nor writes a descriptor";
  EXPECT_EQ(log().count_kind(AccessKind::kWrite), 0u);
  EXPECT_EQ(log().count_kind(AccessKind::kNotify), 0u);
}

TEST_F(OutputTest, PublishWritesPayloadFlushThenBodyThenSeqThenTail) {
  auto ep = open();
  SpscQueueOutputReservation r{};
  ASSERT_TRUE(ep->output().try_reserve(10, r));
  std::memcpy(spsc_queue::payload_data(r), pattern(10, 0xa0).data(), 10);
  log().clear();
  ASSERT_TRUE(ep->output().publish(r, SpscQueueOpcode::DATA));

  // A view write copies and flushes (harness_view.h): one entry per step.
  const std::vector<Access> a = log().entries();
  ASSERT_EQ(a.size(), 4u) << log().dump();
  const uint64_t slot0 = kOutRing;
  struct Want { AccessKind kind; uint64_t offset, nbytes; };
  const Want want[] = {
      {AccessKind::kWrite, kOutArena, 10},
      {AccessKind::kWrite, slot0 + 8, 24},
      {AccessKind::kWrite, slot0, 8},
  };
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(a[i].kind, want[i].kind) << i << "\n" << log().dump();
    EXPECT_EQ(a[i].offset, want[i].offset) << i;
    EXPECT_EQ(a[i].nbytes, want[i].nbytes) << i;
  }
  EXPECT_EQ(a[3].kind, AccessKind::kNotify);
  EXPECT_EQ(a[3].offset, kOutputTail);
  EXPECT_EQ(a[3].value, 1);
  EXPECT_EQ(a[3].op, static_cast<uint32_t>(RegionNotifyOp::Set));

  // The bytes: little-endian descriptor fields and the payload.
  const std::vector<uint8_t> raw = bytes(slot0, 32);
  const std::vector<uint8_t> want_raw = {1, 0, 0, 0, 0, 0, 0, 0,     1, 0, 0, 0, 0, 0, 0, 0,
                                         0, 2, 0, 0, 0, 0, 0, 0,     10, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(raw, want_raw);
  EXPECT_EQ(output_payload(0), pattern(10, 0xa0));
  EXPECT_EQ(counter(kOutputTail), 1);
  expect_healthy(*ep);
}

TEST_F(OutputTest, ConsecutiveMessagesArePackedWithoutRounding) {
  auto ep = open();
  EXPECT_EQ(publish(*ep, 10, 1), kOutArena);
  EXPECT_EQ(publish(*ep, 7, 2), kOutArena + 10);
  EXPECT_EQ(publish(*ep, 0, 3), 0u);
  EXPECT_EQ(publish(*ep, 1, 4), kOutArena + 17);
  EXPECT_EQ(output_slot(1), (RawDescriptor{2, kData, kOutArena + 10, 7}));
  EXPECT_EQ(output_slot(2), (RawDescriptor{3, kData, 0, 0}));
  EXPECT_EQ(output_slot(3), (RawDescriptor{4, kData, kOutArena + 17, 1}));
  EXPECT_EQ(output_payload(1), pattern(7, 2));
  EXPECT_EQ(notified(kOutputTail), (std::vector<int32_t>{1, 2, 3, 4}));
}

TEST_F(OutputTest, ZeroByteReservationHasOffsetZeroAndNoPayloadWrite) {
  auto ep = open();
  SpscQueueOutputReservation r{};
  ASSERT_TRUE(ep->output().try_reserve(0, r));
  EXPECT_EQ(r.payload_offset, 0u);
  EXPECT_EQ(r.payload_nbytes, 0u);
  EXPECT_EQ(spsc_queue::payload_data(r), nullptr);
  log().clear();
  ASSERT_TRUE(ep->output().publish(r, SpscQueueOpcode::DATA));
  EXPECT_EQ(output_slot(0), (RawDescriptor{1, kData, 0, 0}));
  const std::vector<Access> writes = only(AccessKind::kWrite);
  ASSERT_EQ(writes.size(), 2u) << log().dump();
  EXPECT_EQ(writes[0].offset, kOutRing + 8);
  EXPECT_EQ(writes[1].offset, kOutRing);
}

TEST_F(OutputTest, ErrorIsAnOrdinaryMessage) {
  auto ep = open();
  EXPECT_EQ(publish(*ep, 4, 9, SpscQueueOpcode::ERROR), kOutArena);
  EXPECT_EQ(publish(*ep, 0, 0, SpscQueueOpcode::ERROR), 0u);
  EXPECT_EQ(output_slot(0), (RawDescriptor{1, kError, kOutArena, 4}));
  EXPECT_EQ(output_slot(1), (RawDescriptor{2, kError, 0, 0}));
  expect_healthy(*ep);
}

TEST_F(OutputTest, StopInvalidAndUnknownOpcodesPoisonWithoutWriting) {
  for (uint64_t op : {kStop, uint64_t{0}, uint64_t{9}}) {
    SCOPED_TRACE(op);
    log().clear();
    set_counter(kPeerFlag, 0);
    auto ep = open();
    SpscQueueOutputReservation r{};
    ASSERT_TRUE(ep->output().try_reserve(op == kStop ? 0 : 8, r));
    EXPECT_FALSE(ep->output().publish(r, static_cast<SpscQueueOpcode>(op)));
    expect_poisoned(*ep, SpscQueueErrorKind::BAD_ARGUMENT, SpscQueueOp::OUTPUT_PUBLISH);
    EXPECT_EQ(log().count_kind(AccessKind::kWrite), 0u) << log().dump();
    EXPECT_EQ(counter(kOutputTail), 0);
  }
}

TEST_F(OutputTest, MessageLargerThanTheArenaIsRefusedWithoutError) {
  auto ep = open();
  SpscQueueOutputReservation r{};
  const uint64_t t0 = VirtualClock::peek();
  EXPECT_FALSE(ep->output().try_reserve(257, r));
  EXPECT_FALSE(ep->output().reserve(257, 1'000'000, r));
  EXPECT_FALSE(ep->output().try_reserve(~uint64_t{0}, r));
  EXPECT_EQ(VirtualClock::peek(), t0) << "it can never fit: nothing to wait for";
  EXPECT_EQ(log().size(), 0u) << log().dump();
  expect_healthy(*ep);
  // A message of exactly the arena size fits.
  EXPECT_EQ(publish(*ep, 256, 1), kOutArena);
}

TEST_F(OutputTest, CapacityIsExactlyDepthMessages) {
  auto ep = open();
  fill_ring(*ep);
  log().clear();
  SpscQueueOutputReservation r{};
  EXPECT_FALSE(ep->output().try_reserve(8, r)) << "depth messages are outstanding";
  expect_healthy(*ep);
  EXPECT_EQ(count(AccessKind::kTest, kOutputHead), 1u) << log().dump();
  EXPECT_EQ(log().count_kind(AccessKind::kWrite), 0u);
  EXPECT_FALSE(ep->output().try_reserve(0, r)) << "zero-byte messages need a slot too";

  release_outputs(1);
  EXPECT_EQ(publish(*ep, 8, 0x77), kOutArena + 32);
  EXPECT_EQ(output_slot(4), (RawDescriptor{5, kData, kOutArena + 32, 8}));
  EXPECT_EQ(counter(kOutputTail), 5);
  EXPECT_FALSE(ep->output().try_reserve(8, r));
  expect_healthy(*ep);
}

TEST_F(OutputTest, ArenaFullIsNoProgressUntilL3Releases) {
  auto ep = open();
  EXPECT_EQ(publish(*ep, 200, 1), kOutArena);
  SpscQueueOutputReservation r{};
  // 100 bytes need the skip to the start, over unreleased bytes.
  EXPECT_FALSE(ep->output().try_reserve(100, r));
  EXPECT_FALSE(ep->output().try_reserve(57, r)) << "57 bytes would cross the end too";
  expect_healthy(*ep);
  EXPECT_EQ(publish(*ep, 56, 2), kOutArena + 200) << "56 bytes end exactly at the arena end";
  release_outputs(1);
  EXPECT_EQ(publish(*ep, 100, 3), kOutArena);
  expect_healthy(*ep);
}

TEST_F(OutputTest, ArenaWrapWithSkip) {
  auto ep = open();
  SpscQueueOutputReservation r{};
  EXPECT_EQ(publish(*ep, 200, 1), kOutArena);  // cursor 0 -> 200
  release_outputs(1);
  // pos 200 + 100 > 256: skip 56, place at the start; cursor -> 356.
  EXPECT_EQ(publish(*ep, 100, 2), kOutArena);
  // pos 100, cursor -> 456; unreleased span 200..456 is exactly the arena.
  EXPECT_EQ(publish(*ep, 100, 3), kOutArena + 100);
  // One more byte would overlap message 2, still unreleased.
  EXPECT_FALSE(ep->output().try_reserve(1, r));
  expect_healthy(*ep);
  release_outputs(2);
  EXPECT_EQ(publish(*ep, 1, 4), kOutArena + 200);
  EXPECT_EQ(output_slot(1), (RawDescriptor{2, kData, kOutArena, 100}));
  EXPECT_EQ(output_slot(2), (RawDescriptor{3, kData, kOutArena + 100, 100}));
  EXPECT_EQ(output_slot(3), (RawDescriptor{4, kData, kOutArena + 200, 1}));
  EXPECT_EQ(output_payload(1), pattern(100, 2));
  EXPECT_EQ(output_payload(2), pattern(100, 3));
}

TEST_F(OutputTest, PartialReleaseFreesOnlyTheReleasedBytes) {
  auto ep = open();
  EXPECT_EQ(publish(*ep, 100, 1), kOutArena);        // A: cursor 0..100
  EXPECT_EQ(publish(*ep, 100, 2), kOutArena + 100);  // B: cursor 100..200
  release_outputs(1);                         // A only
  SpscQueueOutputReservation r{};
  // 150 bytes skip to the start and would run over B's bytes at +100.
  EXPECT_FALSE(ep->output().try_reserve(150, r));
  expect_healthy(*ep);
  // 100 bytes at the start end exactly where B begins.
  EXPECT_EQ(publish(*ep, 100, 3), kOutArena);
  EXPECT_EQ(output_payload(1), pattern(100, 2)) << "B intact";
}

TEST_F(OutputTest, IdleArenaAcceptsAnyMessageThatFits) {
  // After 200 released bytes a 256-byte message must skip to the start; its
  // cursor distance from the released cursor is 312 > 256, yet nothing is
  // unreleased, so it fits.
  auto ep = open();
  EXPECT_EQ(publish(*ep, 200, 1), kOutArena);
  release_outputs(1);
  EXPECT_EQ(publish(*ep, 256, 2), kOutArena);
  EXPECT_EQ(output_payload(1), pattern(256, 2));
  release_outputs(2);
  EXPECT_EQ(publish(*ep, 255, 3), kOutArena);
  release_outputs(3);
  EXPECT_EQ(publish(*ep, 256, 4), kOutArena);
  expect_healthy(*ep);
}

TEST_F(OutputTest, MultipleOutputsForOneInput) {
  auto ep = open();
  const std::vector<uint8_t> request = {7, 0, 0, 0, 0xde, 0xad, 0xbe, 0xef};  // id 7 + body
  send(kData, request);
  SpscQueueInputHandle in{};
  ASSERT_TRUE(ep->input().try_peek(in));

  SpscQueueOutputReservation r{};
  ASSERT_TRUE(ep->output().try_reserve(16, r));
  std::memcpy(spsc_queue::payload_data(r), spsc_queue::payload_data(in), 8);
  std::memcpy(spsc_queue::payload_data(r) + 8, spsc_queue::payload_data(in), 8);
  ASSERT_TRUE(ep->output().publish(r, SpscQueueOpcode::DATA));
  ASSERT_TRUE(ep->output().try_reserve(0, r));
  ASSERT_TRUE(ep->output().publish(r, SpscQueueOpcode::DATA));
  ASSERT_TRUE(ep->output().try_reserve(4, r));
  std::memcpy(spsc_queue::payload_data(r), spsc_queue::payload_data(in), 4);
  ASSERT_TRUE(ep->output().publish(r, SpscQueueOpcode::ERROR));
  EXPECT_EQ(counter(kInputHead), 0) << "the input is still held";
  ASSERT_TRUE(ep->input().release(in));
  EXPECT_EQ(counter(kInputHead), 1);

  EXPECT_EQ(counter(kOutputTail), 3);
  EXPECT_EQ(output_slot(0), (RawDescriptor{1, kData, kOutArena, 16}));
  EXPECT_EQ(output_slot(1), (RawDescriptor{2, kData, 0, 0}));
  EXPECT_EQ(output_slot(2), (RawDescriptor{3, kError, kOutArena + 16, 4}));
  std::vector<uint8_t> twice = request;
  twice.insert(twice.end(), request.begin(), request.end());
  EXPECT_EQ(output_payload(0), twice);
  EXPECT_EQ(output_payload(2), (std::vector<uint8_t>{7, 0, 0, 0}));
  expect_healthy(*ep);
}

TEST_F(OutputTest, OutputsInADifferentOrderFromInputs) {
  // Window 2: answer input 2 before input 1, release 2 before 1.
  auto ep = open<2>();
  send(kData, {1, 0, 0, 0});
  send(kData, {2, 0, 0, 0});
  SpscQueueInputHandle a{}, b{};
  ASSERT_TRUE(ep->input().try_peek(a));
  ASSERT_TRUE(ep->input().try_peek(b));
  for (const SpscQueueInputHandle* h : {&b, &a}) {
    SpscQueueOutputReservation r{};
    ASSERT_TRUE(ep->output().try_reserve(4, r));
    std::memcpy(spsc_queue::payload_data(r), spsc_queue::payload_data(*h), 4);
    ASSERT_TRUE(ep->output().publish(r, SpscQueueOpcode::DATA));
    ASSERT_TRUE(ep->input().release(*h));
  }
  EXPECT_EQ(output_payload(0), (std::vector<uint8_t>{2, 0, 0, 0}));
  EXPECT_EQ(output_payload(1), (std::vector<uint8_t>{1, 0, 0, 0}));
  EXPECT_EQ(notified(kInputHead), (std::vector<int32_t>{1, 2}));
  expect_healthy(*ep);
}

// --- ownership of reservations ---

class OutputOwnershipTest : public OutputTest {
 protected:
  void SetUp() override {
    OutputTest::SetUp();
    ep_ = open();
  }
  void expect_publish_poisons(const SpscQueueOutputReservation& r) {
    const int32_t tail = counter(kOutputTail);
    log().clear();
    EXPECT_FALSE(ep_->output().publish(r, SpscQueueOpcode::DATA));
    expect_poisoned(*ep_, SpscQueueErrorKind::OWNERSHIP, SpscQueueOp::OUTPUT_PUBLISH);
    EXPECT_EQ(log().count_kind(AccessKind::kWrite), 0u) << log().dump();
    EXPECT_EQ(counter(kOutputTail), tail);
  }
  std::unique_ptr<Endpoint<1>> ep_;
};

TEST_F(OutputOwnershipTest, UnknownReservationPoisons) {
  expect_publish_poisons(SpscQueueOutputReservation{});
}

TEST_F(OutputOwnershipTest, UnknownReservationPoisonsWhileAnotherIsActive) {
  SpscQueueOutputReservation r{};
  ASSERT_TRUE(ep_->output().try_reserve(8, r));
  expect_publish_poisons(SpscQueueOutputReservation{});
}

TEST_F(OutputOwnershipTest, AlreadyPublishedReservationPoisons) {
  SpscQueueOutputReservation r{};
  ASSERT_TRUE(ep_->output().try_reserve(8, r));
  ASSERT_TRUE(ep_->output().publish(r, SpscQueueOpcode::DATA));
  expect_publish_poisons(r);
  EXPECT_EQ(counter(kOutputTail), 1);
}

TEST_F(OutputOwnershipTest, StaleReservationPoisons) {
  SpscQueueOutputReservation old{}, cur{};
  ASSERT_TRUE(ep_->output().try_reserve(0, old));
  ASSERT_TRUE(ep_->output().publish(old, SpscQueueOpcode::DATA));
  ASSERT_TRUE(ep_->output().try_reserve(0, cur));
  // Same offset and size (zero-byte), earlier generation.
  ASSERT_EQ(old.payload_offset, cur.payload_offset);
  expect_publish_poisons(old);
}

TEST_F(OutputOwnershipTest, TamperedReservationPoisons) {
  SpscQueueOutputReservation r{};
  ASSERT_TRUE(ep_->output().try_reserve(8, r));
  SpscQueueOutputReservation forged = r;
  forged.payload_nbytes = 16;
  expect_publish_poisons(forged);
}

TEST_F(OutputOwnershipTest, ReservationOfAnotherQueuePoisons) {
  std::unique_ptr<QueueRegion> other = make_region(4, 256, 256);
  Endpoint<1> other_ep(binding_of(*other), other->view(), clock());
  SpscQueueOutputReservation mine{}, foreign{};
  ASSERT_TRUE(ep_->output().try_reserve(8, mine));
  ASSERT_TRUE(other_ep.output().try_reserve(8, foreign));
  ASSERT_EQ(foreign.payload_offset, mine.payload_offset);
  ASSERT_EQ(foreign.seq, mine.seq);
  expect_publish_poisons(foreign);
  EXPECT_TRUE(other_ep.live());
}

TEST_F(OutputOwnershipTest, SecondReserveWhileOneIsActivePoisons) {
  SpscQueueOutputReservation r{}, r2{};
  ASSERT_TRUE(ep_->output().try_reserve(8, r));
  EXPECT_FALSE(ep_->output().try_reserve(8, r2));
  expect_poisoned(*ep_, SpscQueueErrorKind::OWNERSHIP, SpscQueueOp::OUTPUT_TRY_RESERVE);
}

// --- the head L3 publishes: reconstruction and replay ---

TEST_F(OutputTest, CorruptedReleasedDescriptorPoisonsTheReplay) {
  struct Corruption { const char* what; RawDescriptor d; const char* needle; };
  const Corruption cases[] = {
      {"offset", RawDescriptor{1, kData, kOutArena + 8, 8}, "replay"},
      {"size", RawDescriptor{1, kData, kOutArena, 300}, "outside"},
      {"seq", RawDescriptor{9, kData, kOutArena, 8}, "sequence"},
      {"opcode", RawDescriptor{1, kStop, kOutArena, 8}, "opcode"},
      {"zero offset", RawDescriptor{1, kData, 0, 8}, "outside"},
  };
  for (const Corruption& c : cases) {
    SCOPED_TRACE(c.what);
    use_region(4, 256, 256);
    log().clear();
    auto ep = open();
    fill_ring(*ep);
    write_descriptor_at(kOutRing, c.d);
    release_outputs(1);
    expect_reserve_poisons(*ep, c.needle);
  }
}

TEST_F(OutputTest, HeadBeyondTailPoisons) {
  auto ep = open();
  fill_ring(*ep);
  peer_->set_output_head(5);
  expect_reserve_poisons(*ep, "head");
}

TEST_F(OutputTest, NegativeHeadPoisons) {
  auto ep = open();
  fill_ring(*ep);
  peer_->set_output_head(-1);
  expect_reserve_poisons(*ep, "head");
}

TEST_F(OutputTest, HeadMovingBackwardsPoisons) {
  auto ep = open();
  fill_ring(*ep);
  release_outputs(2);
  publish(*ep, 8, 1);  // refreshes the head to 2
  publish(*ep, 8, 2);
  ASSERT_EQ(counter(kOutputTail), 6);
  peer_->set_output_head(1);
  expect_reserve_poisons(*ep, "head");
}

TEST_F(OutputTest, ReleasedDescriptorsAreReplayedInOrder) {
  // L3 releasing three at once frees exactly what the three occupied.
  auto ep = open();
  EXPECT_EQ(publish(*ep, 100, 1), kOutArena);
  EXPECT_EQ(publish(*ep, 0, 2), 0u);
  EXPECT_EQ(publish(*ep, 100, 3), kOutArena + 100);
  EXPECT_EQ(publish(*ep, 56, 4), kOutArena + 200);
  SpscQueueOutputReservation r{};
  EXPECT_FALSE(ep->output().try_reserve(1, r));
  release_outputs(3);
  log().clear();
  // Released cursor 200, cursor 256: 200 bytes fit at the start.
  EXPECT_EQ(publish(*ep, 200, 5), kOutArena);
  // The replay read exactly the three released slots.
  const std::vector<Access> reads = only(AccessKind::kRead);
  ASSERT_GE(reads.size(), 3u) << log().dump();
  EXPECT_EQ(reads[0].offset, kOutRing);
  EXPECT_EQ(reads[1].offset, kOutRing + 32);
  EXPECT_EQ(reads[2].offset, kOutRing + 64);
  expect_healthy(*ep);
}

}  // namespace
}  // namespace spsq_l2_test
