// Two-thread stress of the L3 queue under test (the certification's
// L3Adapter): the queue on this thread, on the harness view (lean mode), and
// the suite's ScriptedL2 on another over the same memory. Under
// --config=tsan a data race is a report (and halt_on_error fails the test);
// in every build a torn, lost, duplicated or reordered payload, a wrong
// descriptor or a spurious poison fails it. The assertions are judge()'s in
// l3_stress_case.h, shared with the cross-process binary.
#include <string>
#include <thread>

#include "gtest/gtest.h"
#include "sanitizers/stress/l3_stress_case.h"

namespace spsq_stress {
namespace {

constexpr uint64_t kMessages = 5000;  // DATA inputs per small-arena case

// The peer on a second thread, the queue on this one (it owns the view and
// the virtual clock).
const auto two_threads = [](L3StressRegion& r, const StressPlan& plan, L3Adapter& q,
                            Finding* l3, Finding* l2) {
  spsq_conf::ScriptedL2 peer(&r.region().memory(), r.region().layout());
  std::thread t([&] { *l2 = run_l2_peer(peer, r.region().memory(), plan, r.control()); });
  *l3 = run_l3(q, plan, r.region().layout(), r.control());
  t.join();
};

class L3TwoThreadStress : public testing::TestWithParam<StressCase> {};

TEST_P(L3TwoThreadStress, ThroughHarnessView) {
  const StressPlan plan = plan_for(GetParam(), kMessages);
  L3StressRegion r(plan, /*fork_shared=*/false);
  ASSERT_TRUE(r.ok()) << r.why();
  run_l3_stress_case(r, plan, two_threads);
}

INSTANTIATE_TEST_SUITE_P(Matrix, L3TwoThreadStress, testing::ValuesIn(two_thread_matrix()),
                         PrintCase);

}  // namespace
}  // namespace spsq_stress
