// The parts the two L2 stress binaries share: the case matrix's naming and
// the verdict, with the clauses it judges. A run that completes judges the
// publication order, the counters, the window, the arena rule and STOP; a run
// that stalls (and saw nothing wrong before) judges only liveness: a message
// that fits its arena was never accepted, or nothing moved at all; one that
// stalls waiting for STOP with the window full judges the STOP slot.
#ifndef SPSQ_SANITIZERS_STRESS_L2_STRESS_CASE_H_
#define SPSQ_SANITIZERS_STRESS_L2_STRESS_CASE_H_

#include <string>

#include "conformance/harness/clauses.h"
#include "gtest/gtest.h"
#include "sanitizers/stress/l2_stress.h"

namespace spsq_stress {

inline bool is_stall(const std::string& r) { return r.find("(liveness)") != std::string::npos; }
inline bool is_stop_slot(const std::string& r) {
  return r.find("(STOP slot)") != std::string::npos;
}
inline bool is_give_up(const std::string& r) { return r.find("gave up") != std::string::npos; }

#define SPSQ_STRESS_ORDER_CLAUSES                                                        \
  "S3.PUB.1", "S3.PUB.2", "S3.PUB.5", "W.ORDER.1", "S3.CTR.1", "S3.CTR.2", "S4.L2IN.4", \
      "S4.L2IN.3", "S4.L2IN.5", "S4.L2OUT.2", "S4.STOP.3", "S4.STOP.10", "W.ARENA.1"

inline void judge(const std::string& l2, const std::string& l3, const StressPlan& plan) {
  const bool stalled = (is_stall(l2) && (l3.empty() || is_give_up(l3) || is_stall(l3))) ||
                       (is_stall(l3) && (l2.empty() || is_give_up(l2)));
  if (is_stop_slot(l2) && (l3.empty() || is_give_up(l3) || is_stall(l3))) {
    // STOP never came with the window full: the STOP slot is missing.
    SPSQ_CLAUSES("S4.L2IN.2", "S4.L2IN.3");
    SPSQ_EXERCISES(SPSQ_STRESS_ORDER_CLAUSES);
  } else if (stalled) {
    SPSQ_CLAUSES("LIVE.1", "W.LIVE.1");
    SPSQ_EXERCISES(SPSQ_STRESS_ORDER_CLAUSES);
  } else {
    SPSQ_CLAUSES(SPSQ_STRESS_ORDER_CLAUSES);
    SPSQ_EXERCISES("LIVE.1", "W.LIVE.1");
  }
  spsq_conf::record_observation(
      "messages", std::to_string(plan.messages + total_outputs(plan.messages)));
  EXPECT_EQ(l3, "");
  EXPECT_EQ(l2, "");
}

inline const char* kDepthBelowWindow =
    "MaxInflight exceeds this case's depth: an endpoint needs 1 <= MaxInflight <= depth";

inline const char* kNoOwnView =
    "the config provides no RegionInstanceView: aicpu/region_instance_view.h is not on its "
    "include path, so only the harness's StressView runs";

// One case of either binary: the region, the plan and the binding, then
// `sides(region, plan, make_view, &l2, &l3)` runs the endpoint (over
// make_view(region)) and the L3 peer as the binary arranges them (threads or
// processes) and returns each side's report; then the verdict.
template <class Sides, class MakeView>
void run_stress_case(const StressCase& c, uint64_t messages, Sides sides, MakeView make_view) {
  if (c.depth < kWindow) GTEST_SKIP() << kDepthBelowWindow;
  SharedRegion region(c.depth, c.input_arena, c.output_arena);
  ASSERT_TRUE(region.ok());
  const StressPlan plan = plan_for(c, messages);
  std::string l2, l3;
  sides(region, plan, make_view, &l2, &l3);
  if (testing::Test::HasFatalFailure()) return;
  judge(l2, l3, plan);
}

template <class Sides>
void run_own_view_case(const StressCase& c, uint64_t messages, Sides sides) {
#if SPSQ_STRESS_HAS_OWN_VIEW
  run_stress_case(c, messages, sides, [](const SharedRegion& r) { return own_view(r); });
#else
  (void)c, (void)messages, (void)sides;
  GTEST_SKIP() << kNoOwnView;
#endif
}

// The parameterized suite of one binary: every case through the harness's
// StressView and through the endpoint's own RegionInstanceView (which skips,
// saying so, when the config has none).
#define SPSQ_L2_STRESS_SUITE(Suite, messages, sides)                                     \
  class Suite : public testing::TestWithParam<StressCase> {};                            \
  TEST_P(Suite, ThroughStressView) {                                                     \
    run_stress_case(GetParam(), messages, sides,                                         \
                    [](const SharedRegion& r) { return stress_view(r); });               \
  }                                                                                      \
  TEST_P(Suite, ThroughOwnRegionInstanceView) { run_own_view_case(GetParam(), messages, sides); }

}  // namespace spsq_stress

#endif  // SPSQ_SANITIZERS_STRESS_L2_STRESS_CASE_H_
