// The parts the two L2 stress binaries share: the case matrix's naming and
// the verdict, with the clauses it judges. A run that completes judges the
// publication order, the counters, the window, the arena rule and STOP; a run
// that stalls (and saw nothing wrong before) judges only liveness: a message
// that fits its arena was never accepted, or nothing moved at all; one that
// stalls waiting for STOP with the window full judges the STOP slot.
#ifndef SPSQ_SANITIZERS_STRESS_L2_STRESS_CASE_H_
#define SPSQ_SANITIZERS_STRESS_L2_STRESS_CASE_H_

#include <string>

#include "testkit/clauses.h"
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

// Whether a case runs in this build, and why not: the window must fit the
// depth, and the own-view tests need the config's RegionInstanceView.
inline const char* skip_reason(const StressCase& c, bool own_view) {
  if (own_view && !SPSQ_STRESS_HAS_OWN_VIEW) return kNoOwnView;
  return c.depth < kWindow ? kDepthBelowWindow : nullptr;
}

// One case of either binary, on a region the test has mapped:
// `sides(region, plan, make_view, &l2, &l3)` runs the endpoint (over
// make_view(region)) and the L3 peer as the binary arranges them (threads or
// processes) and returns each side's report; then the verdict.
template <class Sides, class MakeView>
void run_stress_case(const SharedRegion& region, const StressPlan& plan, Sides sides,
                     MakeView make_view) {
  std::string l2, l3;
  sides(region, plan, make_view, &l2, &l3);
  if (testing::Test::HasFatalFailure()) return;
  judge(l2, l3, plan);
}

// The same through the endpoint's own RegionInstanceView (skip_reason() says
// when the config has none).
template <class Sides>
void run_own_view_case(const SharedRegion& region, const StressPlan& plan, Sides sides) {
#if SPSQ_STRESS_HAS_OWN_VIEW
  run_stress_case(region, plan, sides, [](const SharedRegion& r) { return own_view(r); });
#else
  (void)region, (void)plan, (void)sides;
#endif
}

}  // namespace spsq_stress

#endif  // SPSQ_SANITIZERS_STRESS_L2_STRESS_CASE_H_
