// The wire floor does the consumer's whole check: a floor that skipped one
// would measure less than the wire's work. Each case breaks one field and
// expects the poison the wire contract names for it.
#include "testkit/wire_floor.h"

#include <cstdint>
#include <memory>
#include <string>

#include "gtest/gtest.h"

namespace spsq_conf {
namespace wire_floor {
namespace {

class WireFloorTest : public ::testing::Test {
 protected:
  WireFloorTest() {
    w::compute_layout(4, 128, 128, &layout_);
    region_.reset(new Region(layout_, kStart));
  }
  uint8_t* slot(const Direction& d, uint64_t k) {
    return region_->payload() + d.ring + (k % layout_.depth) * w::kDescriptorBytes;
  }
  Producer producer(const Direction& d) {
    return Producer(region_->payload(), region_->counters(), layout_.depth, d, kStart);
  }
  Consumer consumer(const Direction& d) {
    return Consumer(region_->payload(), region_->counters(), layout_.depth, d, kStart);
  }

  w::Layout layout_;
  std::unique_ptr<Region> region_;
};

TEST_F(WireFloorTest, DeliversAcrossTheCounterWrapInBothDirections) {
  w::Layout l;
  ASSERT_TRUE(w::compute_layout(kDepth, kArenaBytes, kArenaBytes, &l));
  Region region(l, kStart);
  ASSERT_TRUE(region.ok());
  // 4 rings from three short of 2^32: the 32-bit counters wrap.
  EXPECT_EQ(Stream(region, InputOf(l), 4 * kDepth), "");
  EXPECT_EQ(Stream(region, OutputOf(l), 4 * kDepth), "");
  EXPECT_EQ(LoadCounter(region.counters(), w::kInputHead), w::low32(kStart + 4 * kDepth));
  EXPECT_LT(static_cast<uint32_t>(w::low32(kStart + 4 * kDepth)),
            static_cast<uint32_t>(w::low32(kStart)));
}

TEST_F(WireFloorTest, PlacesPayloadsByTheArenaRuleAndBlocksWhenFull) {
  const Direction d = InputOf(layout_);
  Producer tx = producer(d);
  Consumer rx = consumer(d);
  Message m;
  ASSERT_EQ(tx.Send(w::kData, 100), Step::kDone);
  // 100 + 100 > 128: no room until the first is released.
  EXPECT_EQ(tx.Send(w::kData, 100), Step::kNoProgress);
  ASSERT_EQ(rx.Receive(&m), Step::kDone);
  EXPECT_EQ(m.offset, layout_.input_arena);
  // Released: the second skips the arena's tail and starts at its base.
  ASSERT_EQ(tx.Send(w::kData, 100), Step::kDone);
  ASSERT_EQ(rx.Receive(&m), Step::kDone);
  EXPECT_EQ(m.offset, layout_.input_arena);
  EXPECT_EQ(rx.Receive(&m), Step::kNoProgress);
}

TEST_F(WireFloorTest, RingHoldsExactlyDepthMessages) {
  const Direction d = OutputOf(layout_);
  Producer tx = producer(d);
  for (uint64_t i = 0; i < layout_.depth; ++i) ASSERT_EQ(tx.Send(w::kData, 0), Step::kDone);
  EXPECT_EQ(tx.Send(w::kData, 0), Step::kNoProgress);
}

TEST_F(WireFloorTest, ConsumerRejectsAWrongSeq) {
  const Direction d = InputOf(layout_);
  Producer tx = producer(d);
  Consumer rx = consumer(d);
  ASSERT_EQ(tx.Send(w::kData, 0), Step::kDone);
  w::store_le64(slot(d, kStart), w::seq_of(kStart) + 1);
  Message m;
  EXPECT_EQ(rx.Receive(&m), Step::kBroken);
  EXPECT_NE(rx.error().find("seq"), std::string::npos) << rx.error();
}

TEST_F(WireFloorTest, ConsumerRejectsOpcodesNotOfItsDirection) {
  for (const uint64_t bad : {w::kInvalid, w::kStop, uint64_t{77}}) {
    const Direction d = OutputOf(layout_);
    Producer tx = producer(d);
    Consumer rx = consumer(d);
    ASSERT_EQ(tx.Send(bad, 0), Step::kDone);
    Message m;
    EXPECT_EQ(rx.Receive(&m), Step::kBroken) << "opcode " << bad;
    EXPECT_NE(rx.error().find("opcode"), std::string::npos) << rx.error();
  }
}

TEST_F(WireFloorTest, ConsumerRejectsAStopWithAPayload) {
  const Direction d = InputOf(layout_);
  Producer tx = producer(d);
  Consumer rx = consumer(d);
  ASSERT_EQ(tx.Send(w::kStop, 8), Step::kDone);
  Message m;
  EXPECT_EQ(rx.Receive(&m), Step::kBroken);
}

TEST_F(WireFloorTest, ConsumerRejectsAnOffsetOtherThanTheArenaRulesOrAnOversizedPayload) {
  const Direction d = InputOf(layout_);
  Producer tx = producer(d);
  Consumer rx = consumer(d);
  ASSERT_EQ(tx.Send(w::kData, 8), Step::kDone);
  ASSERT_EQ(tx.Send(w::kData, 0), Step::kDone);
  w::store_le64(slot(d, kStart) + w::kOffsetAt, layout_.input_arena + 8);
  w::store_le64(slot(d, kStart + 1) + w::kNbytesAt, layout_.input_arena_bytes + 1);
  Message m;
  EXPECT_EQ(rx.Receive(&m), Step::kBroken);
  EXPECT_NE(rx.error().find("replay"), std::string::npos) << rx.error();
  Consumer again = consumer(d);
  w::store_le64(slot(d, kStart) + w::kOffsetAt, layout_.input_arena);
  ASSERT_EQ(again.Receive(&m), Step::kDone);
  EXPECT_EQ(again.Receive(&m), Step::kBroken);
  EXPECT_NE(again.error().find("exceeds"), std::string::npos) << again.error();
}

TEST_F(WireFloorTest, BothEndsRejectImpossibleCounters) {
  const Direction d = InputOf(layout_);
  Consumer rx = consumer(d);
  StoreCounter(region_->counters(), d.tail_at, w::low32(kStart + layout_.depth + 1));
  Message m;
  EXPECT_EQ(rx.Receive(&m), Step::kBroken);
  EXPECT_NE(rx.error().find("tail counter"), std::string::npos) << rx.error();

  Producer tx = producer(d);
  for (uint64_t i = 0; i < layout_.depth; ++i) ASSERT_EQ(tx.Send(w::kData, 0), Step::kDone);
  StoreCounter(region_->counters(), d.head_at, w::low32(kStart - 1));  // backwards
  EXPECT_EQ(tx.Send(w::kData, 0), Step::kBroken);
  EXPECT_NE(tx.error().find("head counter"), std::string::npos) << tx.error();
}

}  // namespace
}  // namespace wire_floor
}  // namespace spsq_conf
