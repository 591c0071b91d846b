// Two-thread stress of the L2 endpoint under test (the certification config's
// SPSQ_CERT_ENDPOINT): the wire-level L3 peer on this thread, the endpoint on
// another, over one real region; once through the harness's thread-safe
// StressView and once through the endpoint's own RegionInstanceView. Under
// --config=tsan a data race is a report (and halt_on_error fails the test);
// in every build a torn, lost, duplicated or reordered payload fails it. The
// assertions are judge()'s in l2_stress_case.h, shared with the cross-process
// binary: EXPECT_EQ(report, "") on each side's report, which names the first
// wrong payload.
#include <string>
#include <thread>

#include "gtest/gtest.h"
#include "sanitizers/stress/l2_stress_case.h"

namespace spsq_stress {
namespace {

constexpr uint64_t kMessages = 5000;  // DATA inputs per small-arena case

// L2 on a second thread, the L3 peer on this one.
const auto two_threads = [](const SharedRegion& region, const StressPlan& plan, auto make_view,
                            std::string* l2, std::string* l3) {
  std::thread t([&] { *l2 = run_l2(region.scalars(), make_view(region), plan, region.control()); });
  *l3 = run_l3(region, plan);
  t.join();
};

// Every case through the harness's StressView and through the endpoint's own
// RegionInstanceView (skipped, saying so, when the config has none).
class TwoThreadStress : public testing::TestWithParam<StressCase> {};

TEST_P(TwoThreadStress, ThroughStressView) {
  const StressCase& c = GetParam();
  if (const char* why = skip_reason(c, false)) GTEST_SKIP() << why;
  SharedRegion region(c.depth, c.input_arena, c.output_arena);
  ASSERT_TRUE(region.ok()) << "cannot map a shared region";
  run_stress_case(region, plan_for(c, kMessages), two_threads,
                  [](const SharedRegion& r) { return stress_view(r); });
}

TEST_P(TwoThreadStress, ThroughOwnRegionInstanceView) {
  const StressCase& c = GetParam();
  if (const char* why = skip_reason(c, true)) GTEST_SKIP() << why;
  SharedRegion region(c.depth, c.input_arena, c.output_arena);
  ASSERT_TRUE(region.ok()) << "cannot map a shared region";
  run_own_view_case(region, plan_for(c, kMessages), two_threads);
}

INSTANTIATE_TEST_SUITE_P(Matrix, TwoThreadStress, testing::ValuesIn(two_thread_matrix()),
                         PrintCase);

}  // namespace
}  // namespace spsq_stress
