// The scripted L2 mirrors the scripted L3: it judges L3's inputs as a strict
// consumer and publishes outputs by the producer sequence.
#include "testkit/scripted_l2.h"

#include <memory>
#include <vector>

#include "testkit/scripted_l3.h"
#include "gtest/gtest.h"

namespace spsq_conf {
namespace {

class ScriptedL2Test : public ::testing::Test {
 protected:
  ScriptedL2Test() {
    wire::compute_layout(2, 128, 128, &layout_);
    memory_.reset(new RegionMemory(layout_.payload_bytes, wire::kCounterBytes));
    l2_.reset(new ScriptedL2(memory_.get(), layout_));
    l3_.reset(new ScriptedL3(memory_.get(), layout_));
  }
  wire::Layout layout_;
  std::unique_ptr<RegionMemory> memory_;
  std::unique_ptr<ScriptedL2> l2_;
  std::unique_ptr<ScriptedL3> l3_;
};

TEST_F(ScriptedL2Test, TheTwoScriptedPeersInteroperate) {
  // Each model judges the other: no violations either way, across wraps.
  for (uint8_t i = 0; i < 20; ++i) {
    const std::vector<uint8_t> in(static_cast<size_t>(i * 5 % 129), i);
    ASSERT_EQ(l3_->enqueue_data(in), Enqueue::kOk) << int(i);
    Message m;
    ASSERT_TRUE(l2_->poll_input(&m));
    EXPECT_EQ(m.seq, i + 1u);
    EXPECT_EQ(m.payload, in);
    l2_->release_inputs(1);
    const std::vector<uint8_t> out(static_cast<size_t>(i * 11 % 129), static_cast<uint8_t>(~i));
    ASSERT_EQ(l2_->publish(i % 2 ? wire::kError : wire::kData, out.data(), out.size()), Enqueue::kOk);
    ASSERT_TRUE(l3_->poll_output(&m));
    EXPECT_EQ(m.payload, out);
    EXPECT_EQ(m.opcode, i % 2 ? wire::kError : wire::kData);
    l3_->release_outputs(1);
  }
  EXPECT_TRUE(l2_->violations().empty()) << l2_->violations()[0];
  EXPECT_TRUE(l3_->violations().empty()) << l3_->violations()[0];
}

TEST_F(ScriptedL2Test, JudgesL3Inputs) {
  l3_->publish_raw(wire::Descriptor{1, wire::kError, 0, 0});  // L3 may not send ERROR
  Message m;
  EXPECT_FALSE(l2_->poll_input(&m));
  ASSERT_EQ(l2_->violations().size(), 1u);
  EXPECT_EQ(l2_->violations()[0].rfind("W.DIR.1", 0), 0u) << l2_->violations()[0];
}

TEST_F(ScriptedL2Test, StopWithPayloadIsAViolation) {
  l3_->publish_raw(wire::Descriptor{1, wire::kStop, layout_.input_arena, 4});
  Message m;
  EXPECT_FALSE(l2_->poll_input(&m));
  ASSERT_EQ(l2_->violations().size(), 1u);
  EXPECT_EQ(l2_->violations()[0].rfind("S4.STOP.1", 0), 0u) << l2_->violations()[0];
}

TEST_F(ScriptedL2Test, FlagsAndRawWrites) {
  l2_->set_peer_flag(1);
  EXPECT_EQ(l3_->l2_flag(), 1);
  EXPECT_EQ(l2_->l3_flag(), 0);
  l2_->set_output_tail(-5);
  Message m;
  EXPECT_FALSE(l3_->poll_output(&m));
  ASSERT_EQ(l3_->violations().size(), 1u);
  EXPECT_EQ(l3_->violations()[0].rfind("S3.CTR.3", 0), 0u);
}

}  // namespace
}  // namespace spsq_conf
