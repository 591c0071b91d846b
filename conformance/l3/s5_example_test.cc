// Spec section 5, the example, from L3's side: the scripted L2 plays the
// example's L2 task.
#include <vector>

#include "conformance/l3/l3_fixture.h"

namespace spsq_conf {
namespace {

TEST_F(L3Suite, TheSectionFiveScenarioFromL3) {
  SPSQ_CLAUSES("S5.EX.3", "S5.EX.9", "S2.SEQ.2");
  auto header = [](uint64_t id, uint64_t a, uint64_t b) {
    std::vector<uint8_t> h(64, 0);
    wire::store_le64(h.data(), id);
    wire::store_le64(h.data() + 8, a);
    wire::store_le64(h.data() + 16, b);
    return h;
  };
  // An initial pair of DATA inputs (request ids 0, 0).
  for (uint64_t mode : {1, 2}) {
    const auto h = header(0, mode, 0);
    ASSERT_EQ(l3().try_enqueue(h.data(), h.size()), L3Status::kOk);
  }
  Message in;
  ASSERT_TRUE(peer().poll_input(&in));
  ASSERT_TRUE(peer().poll_input(&in));
  for (uint64_t kind : {20, 10, 11}) {
    const auto h = header(0, kind, 0);
    ASSERT_EQ(peer().publish_data(h), Enqueue::kOk);
  }
  peer().release_inputs(2);
  // L3 drains the three outputs.
  std::vector<uint8_t> buf(64);
  std::vector<uint64_t> kinds;
  L3Message m;
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(l3().dequeue_into(buf.data(), buf.size(), 1000, &m), L3Status::kOk);
    kinds.push_back(wire::load_le64(buf.data() + 8));
    EXPECT_EQ(m.seq, static_cast<uint64_t>(i + 1));
  }
  // Another pair (request ids 0 and 7), then STOP.
  for (uint64_t id : {0, 7}) {
    const auto h = header(id, 3, 0);
    ASSERT_EQ(l3().try_enqueue(h.data(), h.size()), L3Status::kOk);
  }
  ASSERT_EQ(l3().request_stop(1000), L3Status::kOk);
  Message a, b, stop;
  ASSERT_TRUE(peer().poll_input(&a));
  ASSERT_TRUE(peer().poll_input(&b));
  ASSERT_TRUE(peer().poll_input(&stop));
  EXPECT_EQ(stop.opcode, wire::kStop);
  const auto combined =
      header(wire::load_le64(a.payload.data()), 30, wire::load_le64(b.payload.data()));
  ASSERT_EQ(peer().publish_data(combined), Enqueue::kOk);
  peer().release_inputs(3);
  ASSERT_EQ(l3().dequeue_into(buf.data(), buf.size(), 1000, &m), L3Status::kOk);
  kinds.push_back(wire::load_le64(buf.data() + 8));
  EXPECT_EQ(m.seq, 4u) << "the transport seq, not a request id";
  EXPECT_EQ(wire::load_le64(buf.data()), 0u);
  EXPECT_EQ(wire::load_le64(buf.data() + 16), 7u);
  EXPECT_EQ(kinds, (std::vector<uint64_t>{20, 10, 11, 30}));
  ExpectHealthy("scenario");
}

}  // namespace
}  // namespace spsq_conf
