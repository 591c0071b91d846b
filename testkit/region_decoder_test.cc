#include "model/region_decoder.h"

#include <string>

#include "testkit/region_memory.h"
#include "testkit/scripted_l3.h"
#include "gtest/gtest.h"

namespace spsq_conf {
namespace {

TEST(RegionDecoder, DecodesCountersDescriptorsAndFlags) {
  wire::Layout l;
  ASSERT_TRUE(wire::compute_layout(4, 128, 128, &l));
  RegionMemory m(l.payload_bytes, 384);
  ScriptedL3 peer(&m, l);
  std::vector<uint8_t> bytes(10, 1);
  ASSERT_EQ(peer.enqueue_data(bytes), ScriptedL3::Enqueue::kOk);
  ASSERT_EQ(peer.enqueue_stop(), ScriptedL3::Enqueue::kOk);
  m.store_counter(wire::kInputHead, 1);
  m.store_counter(wire::kPeerFlag, 1);
  const DecodedRegion r =
      decode_region(m.payload(), m.payload_bytes(), m.counter(), m.counter_bytes(), 4, 128, 128);
  ASSERT_TRUE(r.layout_ok);
  EXPECT_EQ(r.input.tail, 2u);
  EXPECT_EQ(r.input.head, 1u);
  EXPECT_EQ(r.input.slots[0].state, "released");
  EXPECT_TRUE(r.input.slots[0].problems.empty());
  EXPECT_EQ(r.input.slots[1].state, "published, not released");
  EXPECT_EQ(r.peer_flag, 1);
  const std::string text = region_to_text(r);
  EXPECT_NE(text.find("peer (L2, @320) = 1 RAISED"), std::string::npos) << text;
  EXPECT_NE(text.find("seq 2 STOP"), std::string::npos) << text;
  const std::string json = region_to_json(r);
  EXPECT_NE(json.find("\"peer_abort_flag\": 1"), std::string::npos) << json;
}

TEST(RegionDecoder, FlagsInvalidDescriptors) {
  wire::Layout l;
  ASSERT_TRUE(wire::compute_layout(2, 64, 64, &l));
  RegionMemory m(l.payload_bytes, 384);
  ScriptedL3 peer(&m, l);
  peer.publish_raw(wire::Descriptor{1, wire::kStop, 128, 8});    // STOP with payload
  peer.publish_raw(wire::Descriptor{5, 9, 4, 0});                // wrong slot, opcode, offset
  const DecodedRegion r =
      decode_region(m.payload(), m.payload_bytes(), m.counter(), m.counter_bytes(), 2, 64, 64);
  ASSERT_TRUE(r.layout_ok);
  EXPECT_EQ(r.input.slots[0].problems.size(), 1u);
  EXPECT_GE(r.input.slots[1].problems.size(), 3u);
  EXPECT_NE(region_to_text(r).find("INVALID"), std::string::npos);
}

TEST(RegionDecoder, ReconstructsPositionsBeyondTwoToThe32FromSeq) {
  wire::Layout l;
  ASSERT_TRUE(wire::compute_layout(2, 64, 64, &l));
  RegionMemory m(l.payload_bytes, 384);
  const uint64_t k = (uint64_t{1} << 32) + 5;  // message index past the wrap
  uint8_t b[32];
  wire::encode_descriptor(wire::Descriptor{k + 1, wire::kData, 0, 0}, b);
  m.write(l.input_slot(k), b, 32);
  m.store_counter(wire::kInputTail, wire::low32(k + 1));
  m.store_counter(wire::kInputHead, wire::low32(k));
  const DecodedRegion r =
      decode_region(m.payload(), m.payload_bytes(), m.counter(), m.counter_bytes(), 2, 64, 64);
  EXPECT_EQ(r.input.tail, k + 1);
  EXPECT_EQ(r.input.head, k);
}

TEST(RegionDecoder, ExplainsSizeMismatch) {
  RegionMemory m(64, 384);
  const DecodedRegion r =
      decode_region(m.payload(), m.payload_bytes(), m.counter(), m.counter_bytes(), 4, 128, 128);
  EXPECT_FALSE(r.layout_ok);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_NE(r.problems[0].find("layout needs 512"), std::string::npos) << r.problems[0];
  const DecodedRegion bad =
      decode_region(m.payload(), m.payload_bytes(), m.counter(), m.counter_bytes(), 3, 64, 64);
  EXPECT_NE(region_to_text(bad).find("power of two"), std::string::npos);
}

}  // namespace
}  // namespace spsq_conf
