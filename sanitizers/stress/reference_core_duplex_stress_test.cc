// TSan two-thread stress of publication ordering: L3 on this thread, L2 on
// another, over one real region accessed through RegionInstanceView's
// acquire/release counters. Run with --config=tsan for zero reports; every
// payload is checked byte by byte on both sides in every build.
#include <array>
#include <string>
#include <thread>

#include "testkit/region_memory.h"
#include "model/wire_model.h"
#include "gtest/gtest.h"
#include "sanitizers/stress/duplex_stress.h"
#include "sanitizers/stress/stress_case.h"

namespace spsq_stress {
namespace {

class TwoThreadStress : public testing::TestWithParam<Case> {};

TEST_P(TwoThreadStress, EveryMessageArrivesOnceInOrderByteExact) {
  const Case c = GetParam();
  // The suite's region memory and wire model: the layout and the ten scalars
  // as L3 hands them over; both sides below are the reference's own code.
  namespace wire = spsq_conf::wire;
  wire::Layout layout;
  ASSERT_TRUE(wire::compute_layout(c.depth, c.input_arena, c.output_arena, &layout));
  spsq_conf::RegionMemory mem(layout.payload_bytes, layout.counter_bytes);
  const std::array<uint64_t, wire::kScalarCount> scalars =
      wire::binding_scalars(wire::binding_for(layout, reinterpret_cast<uint64_t>(mem.payload()),
                                              reinterpret_cast<uint64_t>(mem.counter()),
                                              0x5eed5eed5eed5eedull, 1));
  const StressConfig cfg{c.depth, c.input_arena, c.output_arena, c.messages};
  spsc_queue::SpscQueueEndpointBinding b{};
  ASSERT_TRUE(spsc_queue::decode_endpoint_binding(scalars.data(), scalars.size(), &b));
  spsc_queue::WorkerChipQueue l3(
      b,
      RegionInstanceView(RegionPartLocalSpan{b.payload_base, b.payload_bytes},
                         RegionPartLocalSpan{b.counter_base, b.counter_bytes}),
      spsc_queue::MonotonicClock{&stress_now_ns}, nullptr);
  ASSERT_TRUE(l3.live()) << l3.error().message;
  std::string l2_result;
  std::thread l2([&] {
    l2_result = c.window == 1 ? run_l2<1>(scalars.data(), cfg) : run_l2<4>(scalars.data(), cfg);
  });
  const std::string l3_result = run_l3(l3, cfg);
  l2.join();
  EXPECT_EQ(l3_result, "");
  EXPECT_EQ(l2_result, "");
  RecordProperty("messages", std::to_string(c.messages + total_outputs(c.messages)));
}

constexpr uint64_t kN = 60000;   // inputs per case; outputs are 1.25x that
constexpr uint64_t kBig = 4000;  // with 1 MiB arenas, whose largest messages fill them

// depth 1, 2, 8, 1024 x arenas 64 (wrap-heavy), 192, 1 MiB (roomy) x window
// 1 and 4 (4 needs depth >= 4): about 1.2 million messages in all.
INSTANTIATE_TEST_SUITE_P(
    Matrix, TwoThreadStress,
    testing::Values(Case{1, 64, 64, 1, kN}, Case{1, 192, 192, 1, kN},
                    Case{1, kMiB, kMiB, 1, kBig}, Case{2, 64, 192, 1, kN},
                    Case{2, 192, 64, 1, kN}, Case{2, kMiB, 64, 1, kBig},
                    Case{8, 64, 64, 1, kN}, Case{8, 64, 64, 4, kN}, Case{8, 192, 192, 4, kN},
                    Case{8, kMiB, kMiB, 4, kBig}, Case{1024, 64, 64, 4, kN},
                    Case{1024, 192, 192, 1, kN}, Case{1024, kMiB, kMiB, 4, kBig},
                    Case{1024, kMiB, 192, 1, kBig}),
    PrintCase);

}  // namespace
}  // namespace spsq_stress
