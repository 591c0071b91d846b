#include "testkit/fault_plan.h"

#include "gtest/gtest.h"

namespace spsq_conf {
namespace {

TEST(FaultPlan, FailsExactlyTheKthCallOfOneKind) {
  FaultPlan f;
  f.arm(ViewCall::kWrite, 3);
  EXPECT_FALSE(f.should_fail(ViewCall::kWrite));
  EXPECT_FALSE(f.should_fail(ViewCall::kRead));  // other kinds do not count
  EXPECT_FALSE(f.should_fail(ViewCall::kWrite));
  EXPECT_FALSE(f.fired());
  EXPECT_TRUE(f.should_fail(ViewCall::kWrite));
  EXPECT_TRUE(f.fired());
  EXPECT_FALSE(f.should_fail(ViewCall::kWrite));  // once
  EXPECT_EQ(f.calls(ViewCall::kWrite), 4u);
  EXPECT_EQ(f.calls(ViewCall::kRead), 1u);
}

TEST(FaultPlan, DisarmedNeverFails) {
  FaultPlan f;
  for (int i = 0; i < 10; ++i) EXPECT_FALSE(f.should_fail(ViewCall::kNotify));
  f.arm(ViewCall::kNotify, 1);
  f.disarm();
  EXPECT_FALSE(f.should_fail(ViewCall::kNotify));
  EXPECT_STREQ(view_call_name(ViewCall::kWait), "wait");
}

}  // namespace
}  // namespace spsq_conf
