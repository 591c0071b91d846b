// Cross-process stress of the L3 queue under test: the queue in this process
// on the harness view, the suite's ScriptedL2 in a forked child that shares
// only the region (RegionMemory's shared-for-fork mode) and the control
// page. TSan cannot see across processes, so the proof is in the checks both
// sides run on every byte; the child reports its finding through a pipe and
// its exit status.
#include <string>

#include "gtest/gtest.h"
#include "sanitizers/stress/l3_stress_case.h"

namespace spsq_stress {
namespace {

constexpr uint64_t kMessages = 8000;

// The peer in a forked child, the queue in this process.
const auto two_processes = [](L3StressRegion& r, const StressPlan& plan, L3Adapter& q,
                              Finding* l3, Finding* l2) {
  std::string report;
  const bool ended = run_forked(
      [&] {
        spsq_conf::ScriptedL2 peer(&r.region().memory(), r.region().layout());
        return run_l2_peer(peer, r.region().memory(), plan, r.control()).serialize();
      },
      [&] { *l3 = run_l3(q, plan, r.region().layout(), r.control()); }, &report);
  if (ended) {
    *l2 = Finding::parse(report);
  } else {
    l2->kind = Finding::kDefect;
    l2->text = "L2: " + report;
  }
};

class L3CrossProcessStress : public testing::TestWithParam<StressCase> {};

TEST_P(L3CrossProcessStress, ThroughHarnessView) {
  const StressPlan plan = plan_for(GetParam(), kMessages);
  L3StressRegion r(plan, /*fork_shared=*/true);
  ASSERT_TRUE(r.ok()) << r.why();
  run_l3_stress_case(r, plan, two_processes);
}

INSTANTIATE_TEST_SUITE_P(Matrix, L3CrossProcessStress, testing::ValuesIn(cross_process_matrix()),
                         PrintCase);

}  // namespace
}  // namespace spsq_stress
