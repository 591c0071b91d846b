// The scripted L3 publishes by the producer sequence and judges outputs as a
// strict consumer. Checked byte by byte against the wire model.
#include "testkit/scripted_l3.h"

#include <vector>

#include "gtest/gtest.h"

namespace spsq_conf {
namespace {

using wire::Descriptor;

class ScriptedL3Test : public ::testing::Test {
 protected:
  ScriptedL3Test() {
    wire::compute_layout(4, 128, 128, &layout_);
    memory_.reset(new RegionMemory(layout_.payload_bytes, wire::kCounterBytes));
    peer_.reset(new ScriptedL3(memory_.get(), layout_));
  }
  Descriptor input_slot(uint64_t k) {
    uint8_t b[32];
    memory_->read(layout_.input_slot(k), b, 32);
    return wire::decode_descriptor(b);
  }
  // Writes an output descriptor the way an L2 producer would and publishes it.
  void l2_publish(uint64_t k, uint64_t opcode, uint64_t offset, uint64_t nbytes,
                  uint64_t seq = 0) {
    uint8_t b[32];
    wire::encode_descriptor(Descriptor{seq ? seq : k + 1, opcode, offset, nbytes}, b);
    memory_->write(layout_.output_slot(k), b, 32);
    memory_->store_counter(wire::kOutputTail, wire::low32(k + 1));
  }
  wire::Layout layout_;
  std::unique_ptr<RegionMemory> memory_;
  std::unique_ptr<ScriptedL3> peer_;
};

TEST_F(ScriptedL3Test, EnqueueWritesPayloadDescriptorAndTail) {
  const std::vector<uint8_t> bytes = {1, 2, 3};
  ASSERT_EQ(peer_->enqueue_data(bytes), ScriptedL3::Enqueue::kOk);
  const Descriptor d = input_slot(0);
  EXPECT_EQ(d.seq, 1u);
  EXPECT_EQ(d.opcode, wire::kData);
  EXPECT_EQ(d.offset, layout_.input_arena);
  EXPECT_EQ(d.nbytes, 3u);
  EXPECT_EQ(memory_->payload()[layout_.input_arena + 2], 3);
  EXPECT_EQ(memory_->load_counter(wire::kInputTail), 1);
  // The next message is placed right after, unrounded.
  EXPECT_EQ(peer_->next_input_offset(5), layout_.input_arena + 3);
}

TEST_F(ScriptedL3Test, RingFullAtExactlyDepthAndArenaRules) {
  for (int i = 0; i < 4; ++i) {
    ASSERT_EQ(peer_->enqueue(wire::kData, nullptr, 0), ScriptedL3::Enqueue::kOk) << i;
  }
  EXPECT_EQ(peer_->enqueue(wire::kData, nullptr, 0), ScriptedL3::Enqueue::kRingFull);
  memory_->store_counter(wire::kInputHead, 4);  // L2 released everything
  std::vector<uint8_t> big(129);
  EXPECT_EQ(peer_->enqueue(wire::kData, big.data(), big.size()), ScriptedL3::Enqueue::kTooLarge);
  std::vector<uint8_t> half(100);
  ASSERT_EQ(peer_->enqueue_data(half), ScriptedL3::Enqueue::kOk);
  EXPECT_EQ(peer_->enqueue_data(half), ScriptedL3::Enqueue::kArenaFull);
  memory_->store_counter(wire::kInputHead, 5);
  // Idle arena, cursor at 100: a 100-byte message skips to the start.
  ASSERT_EQ(peer_->enqueue_data(half), ScriptedL3::Enqueue::kOk);
  EXPECT_EQ(input_slot(5).offset, layout_.input_arena);
  EXPECT_TRUE(peer_->violations().empty());
}

TEST_F(ScriptedL3Test, ImpossibleInputHeadIsAViolation) {
  ASSERT_EQ(peer_->enqueue(wire::kData, nullptr, 0), ScriptedL3::Enqueue::kOk);
  memory_->store_counter(wire::kInputHead, 2);  // more than published
  EXPECT_EQ(peer_->input_head(), 0u);
  ASSERT_EQ(peer_->violations().size(), 1u);
  EXPECT_EQ(peer_->violations()[0].rfind("S3.CTR.3", 0), 0u);
}

TEST_F(ScriptedL3Test, PollOutputAcceptsAValidOutputAndCopiesThePayload) {
  const uint8_t bytes[2] = {0xAA, 0xBB};
  memory_->write(layout_.output_arena, bytes, 2);
  l2_publish(0, wire::kError, layout_.output_arena, 2);
  Message m;
  ASSERT_TRUE(peer_->poll_output(&m));
  EXPECT_EQ(m.seq, 1u);
  EXPECT_EQ(m.opcode, wire::kError);
  EXPECT_EQ(m.payload, (std::vector<uint8_t>{0xAA, 0xBB}));
  EXPECT_FALSE(peer_->poll_output(&m));
  peer_->release_outputs(1);
  EXPECT_EQ(memory_->load_counter(wire::kOutputHead), 1);
  EXPECT_TRUE(peer_->violations().empty());
}

struct BadOutput {
  const char* name;
  uint64_t opcode, offset_delta, nbytes, seq;
  const char* clause;
};

TEST_F(ScriptedL3Test, PollOutputNamesTheClauseOfEachDefect) {
  const BadOutput cases[] = {
      {"seq 0", wire::kData, 0, 8, 0 + 100, "W.SEQ.1"},
      {"stop", wire::kStop, 0, 0, 1, "S2.STOP.1"},
      {"opcode 9", 9, 0, 8, 1, "W.DIR.1"},
      {"replay", wire::kData, 8, 8, 1, "W.ARENA.1"},
      {"outside", wire::kData, 200, 8, 1, "S2.FIT.1"},
  };
  for (const BadOutput& c : cases) {
    ScriptedL3Test::SetUp();
    memory_.reset(new RegionMemory(layout_.payload_bytes, wire::kCounterBytes));
    peer_.reset(new ScriptedL3(memory_.get(), layout_));
    l2_publish(0, c.opcode, c.nbytes ? layout_.output_arena + c.offset_delta : 0, c.nbytes,
               c.seq == 100 ? 5 : c.seq);
    Message m;
    EXPECT_FALSE(peer_->poll_output(&m)) << c.name;
    ASSERT_EQ(peer_->violations().size(), 1u) << c.name;
    EXPECT_EQ(peer_->violations()[0].rfind(c.clause, 0), 0u) << peer_->violations()[0];
  }
}

TEST_F(ScriptedL3Test, OutputOverUnreleasedPayloadIsAViolation) {
  l2_publish(0, wire::kData, layout_.output_arena, 100);
  Message m;
  ASSERT_TRUE(peer_->poll_output(&m));
  // Not released; the next 100 bytes skip to the arena start over it.
  l2_publish(1, wire::kData, layout_.output_arena, 100);
  EXPECT_FALSE(peer_->poll_output(&m));
  ASSERT_EQ(peer_->violations().size(), 1u);
  EXPECT_EQ(peer_->violations()[0].rfind("W.ARENA.2", 0), 0u);
}

TEST_F(ScriptedL3Test, TailJumpingPastDepthIsAViolation) {
  memory_->store_counter(wire::kOutputTail, 5);
  Message m;
  EXPECT_FALSE(peer_->poll_output(&m));
  ASSERT_EQ(peer_->violations().size(), 1u);
  EXPECT_EQ(peer_->violations()[0].rfind("S3.CTR.3", 0), 0u);
}

TEST_F(ScriptedL3Test, HostileWritesLandVerbatim) {
  peer_->publish_raw(Descriptor{7, 42, 3, 1});
  const Descriptor d = input_slot(0);
  EXPECT_EQ(d.seq, 7u);
  EXPECT_EQ(d.opcode, 42u);
  EXPECT_EQ(memory_->load_counter(wire::kInputTail), 1);
  peer_->set_input_tail(INT32_MIN);
  EXPECT_EQ(memory_->load_counter(wire::kInputTail), INT32_MIN);
  peer_->set_initiator_flag(3);
  EXPECT_EQ(peer_->initiator_flag(), 3);
  EXPECT_EQ(peer_->l2_flag(), 0);
}

}  // namespace
}  // namespace spsq_conf
