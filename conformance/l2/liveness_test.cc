// Liveness: a message whose size fits its arena is accepted once the peer has
// released everything, in both directions. Exhaustive over small arenas
// (64..512 bytes), depths 1..4 and every 2-message prefix of sizes followed by
// every size, from a fresh queue each time.
#include <algorithm>
#include <vector>

#include "conformance/l2/l2_fixture.h"

namespace spsq_conf {
namespace {

std::vector<uint64_t> SizesFor(uint64_t arena) {
  std::vector<uint64_t> s = {0, 1, 63, 64, 65, arena / 2, arena - 1, arena};
  s.erase(std::remove_if(s.begin(), s.end(), [arena](uint64_t n) { return n > arena; }), s.end());
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  return s;
}

class Liveness : public L2Test {
 protected:
  // Depths >= the certified window.
  static std::vector<uint64_t> Depths() {
    std::vector<uint64_t> d;
    for (uint64_t x : {uint64_t{1}, uint64_t{2}, uint64_t{4}}) {
      if (x >= kN) d.push_back(x);
    }
    return d;
  }
};

TEST_F(Liveness, OutputAcceptsEveryFittingMessageOnceL3ReleasedEverything) {
  SPSQ_CLAUSES("LIVE.1", "S2.FIT.1", "W.ARENA.1", "W.ARENA.2", "AMB.ROOM");
  uint64_t checked = 0;
  for (uint64_t arena = 64; arena <= 512; arena += 64) {
    const std::vector<uint64_t> sizes = SizesFor(arena);
    for (uint64_t depth : Depths()) {
      for (uint64_t a : sizes) {
        for (uint64_t b : sizes) {
          for (uint64_t s : sizes) {
            QueueParams p;
            p.depth = depth;
            p.input_arena = 64;
            p.output_arena = arena;
            Rebuild(p);
            for (uint64_t n : {a, b, s}) {
              ASSERT_TRUE(send(wire::kData, Bytes(n, static_cast<uint8_t>(n))))
                  << "arena " << arena << ", depth " << depth << ", sizes " << a << ", " << b
                  << ", " << s << ": a " << n
                  << "-byte message was refused with everything released";
              ASSERT_EQ(peer().drain_outputs().size(), 1u);
            }
            ++checked;
            if (HasFailure()) return;
          }
        }
      }
    }
  }
  RecordProperty("sequences", std::to_string(checked));
}

TEST_F(Liveness, InputAcceptsEveryPlacementTheArenaRuleProduces) {
  SPSQ_CLAUSES("LIVE.2", "W.ARENA.1", "W.ARENA.4", "S2.WRAP.1");
  uint64_t checked = 0;
  for (uint64_t arena = 64; arena <= 512; arena += 64) {
    const std::vector<uint64_t> sizes = SizesFor(arena);
    for (uint64_t depth : Depths()) {
      for (uint64_t a : sizes) {
        for (uint64_t b : sizes) {
          for (uint64_t s : sizes) {
            QueueParams p;
            p.depth = depth;
            p.input_arena = arena;
            p.output_arena = 64;
            Rebuild(p);
            for (uint64_t n : {a, b, s}) {
              const uint64_t off = peer().next_input_offset(n);
              ASSERT_EQ(peer().enqueue_data(Bytes(n, static_cast<uint8_t>(n))),
                        ScriptedL3::Enqueue::kOk);
              Handle h{};
              ASSERT_TRUE(try_peek(h))
                  << "arena " << arena << ", depth " << depth << ", sizes " << a << ", " << b
                  << ", " << s << ": L2 refused a " << n << "-byte input placed by the rule";
              if (n != 0) {
                EXPECT_EQ(Api::payload(h), q().memory().payload() + off);
              }
              ASSERT_EQ(HandleBytes(h), Bytes(n, static_cast<uint8_t>(n)));
              ASSERT_TRUE(release(h));
            }
            ++checked;
            if (HasFailure()) return;
          }
        }
      }
    }
  }
  RecordProperty("sequences", std::to_string(checked));
}

TEST_F(Liveness, BackToBackTrafficKeepsFlowingInBothDirections) {
  SPSQ_CLAUSES("LIVE.1", "LIVE.2", "S0.PURPOSE.1", "S0.USE.1");
  // One long-lived queue, sizes cycling so the cursors visit every position.
  QueueParams p;
  p.depth = window_depth();
  p.input_arena = 192;
  p.output_arena = 320;
  Rebuild(p);
  uint64_t expect_seq = 1;
  for (uint64_t i = 0; i < 5000; ++i) {
    const uint64_t n_in = (i * 37) % 193;
    const uint64_t n_out = (i * 53) % 321;
    ASSERT_EQ(peer().enqueue_data(Bytes(n_in, static_cast<uint8_t>(i))), ScriptedL3::Enqueue::kOk)
        << i;
    Handle h{};
    ASSERT_TRUE(try_peek(h)) << i;
    ASSERT_EQ(Api::seq(h), expect_seq++);
    ASSERT_EQ(HandleBytes(h), Bytes(n_in, static_cast<uint8_t>(i)));
    ASSERT_TRUE(send(wire::kData, Bytes(n_out, static_cast<uint8_t>(i)))) << i;
    ASSERT_TRUE(release(h));
    const auto out = peer().drain_outputs();
    ASSERT_EQ(out.size(), 1u);
    ASSERT_EQ(out[0].payload, Bytes(n_out, static_cast<uint8_t>(i)));
  }
  ExpectHealthy("5000 round trips");
}

}  // namespace
}  // namespace spsq_conf
