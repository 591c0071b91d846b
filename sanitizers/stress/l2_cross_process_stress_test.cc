// Cross-process stress of the L2 endpoint under test: the endpoint runs in a
// forked child that shares only the region mapping (and knows it only through
// the ten binding scalars), the wire-level L3 peer in the parent. TSan cannot
// see across processes, so the proof is in the checks both sides run on every
// byte; the child reports its verdict through a pipe and its exit status.
#include <string>

#include "gtest/gtest.h"
#include "sanitizers/stress/l2_stress_case.h"

namespace spsq_stress {
namespace {

constexpr uint64_t kMessages = 8000;

// L2 in a forked child that shares only the region mapping, the L3 peer in
// this process; the child reports through a pipe and its exit status.
const auto two_processes = [](const SharedRegion& region, const StressPlan& plan, auto make_view,
                              std::string* l2, std::string* l3) {
  const Scalars scalars = region.scalars();
  if (!run_forked([&] { return run_l2(scalars, make_view(region), plan, region.control()); },
                  [&] { *l3 = run_l3(region, plan); }, l2)) {
    *l2 = "L2: " + *l2;
  }
};

// Every case through the harness's StressView and through the endpoint's own
// RegionInstanceView (skipped, saying so, when the config has none).
class CrossProcessStress : public testing::TestWithParam<StressCase> {};

TEST_P(CrossProcessStress, ThroughStressView) {
  const StressCase& c = GetParam();
  if (const char* why = skip_reason(c, false)) GTEST_SKIP() << why;
  SharedRegion region(c.depth, c.input_arena, c.output_arena);
  ASSERT_TRUE(region.ok()) << "cannot map a shared region";
  run_stress_case(region, plan_for(c, kMessages), two_processes,
                  [](const SharedRegion& r) { return stress_view(r); });
}

TEST_P(CrossProcessStress, ThroughOwnRegionInstanceView) {
  const StressCase& c = GetParam();
  if (const char* why = skip_reason(c, true)) GTEST_SKIP() << why;
  SharedRegion region(c.depth, c.input_arena, c.output_arena);
  ASSERT_TRUE(region.ok()) << "cannot map a shared region";
  run_own_view_case(region, plan_for(c, kMessages), two_processes);
}

INSTANTIATE_TEST_SUITE_P(Matrix, CrossProcessStress, testing::ValuesIn(cross_process_matrix()),
                         PrintCase);

}  // namespace
}  // namespace spsq_stress
