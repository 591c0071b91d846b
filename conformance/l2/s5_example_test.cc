// Spec section 5, "Example", from the L2 side: the shipped example's scenario
// with SpscQueueEndpoint<View, 4>, the scripted L3 playing the initiator.
// Facts of the shipped example: depth 8, 512 KiB arenas, a 64-byte header
// plus a 128x128 float32 tile per message.
#include <cstring>
#include <vector>

#include "conformance/l2/l2_fixture.h"

namespace spsq_conf {
namespace {

constexpr uint64_t kTile = 128 * 128;
constexpr uint64_t kHeader = 64;
constexpr uint64_t kBytes = kHeader + kTile * sizeof(float);

std::vector<uint8_t> Input(uint64_t request_id, uint64_t mode, float base) {
  std::vector<uint8_t> b(kBytes, 0);
  wire::store_le64(b.data(), request_id);
  wire::store_le64(b.data() + 8, mode);
  for (uint64_t i = 0; i < kTile; ++i) {
    const float v = base + static_cast<float>(i % 128);
    std::memcpy(b.data() + kHeader + i * 4, &v, 4);
  }
  return b;
}

float TileAt(const uint8_t* payload, uint64_t i) {
  float v;
  std::memcpy(&v, payload + kHeader + i * 4, 4);
  return v;
}

class Example : public L2Test {
 protected:
  void SetUp() override {
    VirtualClock::reset();
    QueueParams p;
    p.depth = 8;
    p.input_arena = 512 * 1024;
    p.output_arena = 512 * 1024;
    Rebuild(p, /*with_endpoint=*/false);
    e_ = q().make_endpoint<4>();
    ASSERT_TRUE(e_->live());
  }
  void TearDown() override {
    e_.reset();
    L2Test::TearDown();
  }
  // The simulated AIV kernel: out tile = sum of input tiles + add.
  bool Publish(uint64_t request_id, uint64_t kind, uint64_t aux,
               const std::vector<const uint8_t*>& tiles, float add) {
    Reservation r{};
    if (!e_->output().try_reserve(kBytes, r)) return false;
    std::vector<uint8_t> out(kBytes, 0);
    wire::store_le64(out.data(), request_id);
    wire::store_le64(out.data() + 8, kind);
    wire::store_le64(out.data() + 16, aux);
    for (uint64_t i = 0; i < kTile; ++i) {
      float v = add;
      for (const uint8_t* t : tiles) v += TileAt(t, i);
      std::memcpy(out.data() + kHeader + i * 4, &v, 4);
    }
    q().l2_store(Api::payload(r), out.data(), out.size());
    return e_->output().publish(r, wire::kData);
  }
  std::unique_ptr<Endpoint> e_;
};

TEST_F(Example, ShippedScenarioWithAWindowOfFour) {
  SPSQ_CLAUSES("S5.EX.2", "S5.EX.3", "S5.EX.4", "S5.EX.5", "S5.EX.6", "S5.EX.7", "S5.EX.8",
               "S5.EX.9", "S0.USE.1", "S2.SEQ.2");
  // L3: an initial pair of DATA inputs.
  ASSERT_EQ(peer().enqueue_data(Input(0, 1, 1.0f)), ScriptedL3::Enqueue::kOk);
  ASSERT_EQ(peer().enqueue_data(Input(0, 2, 100.0f)), ScriptedL3::Enqueue::kOk);
  // L2 acquires both before releasing either.
  Handle h1{}, h2{};
  ASSERT_TRUE(e_->input().try_peek(h1));
  ASSERT_TRUE(e_->input().try_peek(h2));
  // Output for input 2 first (kind 20), then two outputs from input 1.
  ASSERT_TRUE(Publish(0, 20, 0, {Api::payload(h2)}, 20.0f));
  ASSERT_TRUE(e_->input().release(h2));
  EXPECT_EQ(peer().counter(wire::kInputHead), 0) << "input 2 stays owned until input 1 is released";
  ASSERT_TRUE(Publish(0, 10, 0, {Api::payload(h1)}, 10.0f));
  ASSERT_TRUE(Publish(0, 11, 0, {Api::payload(h1)}, 11.0f));
  ASSERT_TRUE(e_->input().release(h1));
  EXPECT_EQ(peer().counter(wire::kInputHead), 2);
  // L3 drains the three outputs.
  auto first = peer().drain_outputs();
  ASSERT_EQ(first.size(), 3u);
  // L3: another pair, then STOP.
  ASSERT_EQ(peer().enqueue_data(Input(0, 3, 1000.0f)), ScriptedL3::Enqueue::kOk);
  ASSERT_EQ(peer().enqueue_data(Input(7, 3, 2000.0f)), ScriptedL3::Enqueue::kOk);
  ASSERT_EQ(peer().enqueue_stop(), ScriptedL3::Enqueue::kOk);
  Handle h3{}, h4{}, stop{};
  ASSERT_TRUE(e_->input().try_peek(h3));
  ASSERT_TRUE(e_->input().try_peek(h4));
  ASSERT_TRUE(e_->input().try_peek(stop));
  ASSERT_EQ(Api::opcode(stop), wire::kStop);
  // STOP drain: two held inputs combined into one output.
  ASSERT_TRUE(Publish(wire::load_le64(Api::payload(h3)), 30, wire::load_le64(Api::payload(h4)),
                      {Api::payload(h3), Api::payload(h4)}, 0.0f));
  EXPECT_FALSE(e_->input().drained());
  ASSERT_TRUE(e_->input().release(h3));
  EXPECT_FALSE(e_->input().drained());
  ASSERT_TRUE(e_->input().release(h4));
  EXPECT_FALSE(e_->input().drained()) << "STOP not yet released";
  ASSERT_TRUE(e_->input().release(stop));
  EXPECT_TRUE(e_->input().drained()) << "L2 may return now";
  auto last = peer().drain_outputs();
  ASSERT_EQ(last.size(), 1u);
  // Byte-exact outputs in order: (request id, kind, aux) and tiles.
  std::vector<ScriptedL3::Message> all = first;
  all.push_back(last[0]);
  const uint64_t want[4][3] = {{0, 20, 0}, {0, 10, 0}, {0, 11, 0}, {0, 30, 7}};
  const float base[4] = {120.0f, 11.0f, 12.0f, 3000.0f};  // tile value at column 0
  for (int i = 0; i < 4; ++i) {
    ASSERT_EQ(all[i].payload.size(), kBytes);
    EXPECT_EQ(all[i].seq, static_cast<uint64_t>(i + 1)) << "transport seq, not the request id";
    EXPECT_EQ(wire::load_le64(all[i].payload.data()), want[i][0]) << i;
    EXPECT_EQ(wire::load_le64(all[i].payload.data() + 8), want[i][1]) << i;
    EXPECT_EQ(wire::load_le64(all[i].payload.data() + 16), want[i][2]) << i;
    const float col0 = base[i];
    const float col5 = base[i] + (i == 3 ? 10.0f : 5.0f);  // the sum adds i % 128 twice
    EXPECT_EQ(TileAt(all[i].payload.data(), 0), col0) << i;
    EXPECT_EQ(TileAt(all[i].payload.data(), 128 + 5), col5) << i;
  }
  EXPECT_TRUE(e_->live());
  EXPECT_EQ(peer().l2_flag(), 0);
}

}  // namespace
}  // namespace spsq_conf
