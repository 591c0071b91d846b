#include "testkit/virtual_clock.h"

#include <vector>

#include "gtest/gtest.h"

namespace spsq_conf {
namespace {

class VirtualClockTest : public ::testing::Test {
 protected:
  void SetUp() override { VirtualClock::reset(); }
};

TEST_F(VirtualClockTest, TimeMovesOnlyWhenMoved) {
  const uint64_t t0 = VirtualClock::now_ns();
  EXPECT_EQ(t0, VirtualClock::kDefaultStart);
  EXPECT_EQ(VirtualClock::now_ns(), t0);
  VirtualClock::advance_by(250);
  EXPECT_EQ(VirtualClock::now_ns(), t0 + 250);
  VirtualClock::advance_to(t0);  // never backwards
  EXPECT_EQ(VirtualClock::now_ns(), t0 + 250);
  EXPECT_EQ(VirtualClock::reads(), 4u);  // every now_ns() call counts
}

TEST_F(VirtualClockTest, ActionsRunInTimeOrderAndSeeTheirOwnTime) {
  std::vector<uint64_t> seen;
  const uint64_t t0 = VirtualClock::peek();
  VirtualClock::at(t0 + 30, [&] { seen.push_back(VirtualClock::peek() - t0); });
  VirtualClock::at(t0 + 10, [&] { seen.push_back(VirtualClock::peek() - t0); });
  VirtualClock::at(t0 + 10, [&] { seen.push_back(1000 + VirtualClock::peek() - t0); });
  EXPECT_EQ(VirtualClock::pending(), 3u);
  VirtualClock::advance_to(t0 + 20);
  EXPECT_EQ(seen, (std::vector<uint64_t>{10, 1010}));
  EXPECT_EQ(VirtualClock::peek(), t0 + 20);
  VirtualClock::advance_by(100);
  EXPECT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[2], 30u);
  EXPECT_EQ(VirtualClock::pending(), 0u);
}

TEST_F(VirtualClockTest, RunNextBeforeStopsAtTheDeadline) {
  int runs = 0;
  const uint64_t t0 = VirtualClock::peek();
  VirtualClock::after(500, [&] { ++runs; });
  EXPECT_FALSE(VirtualClock::run_next_before(t0 + 499));
  EXPECT_EQ(VirtualClock::peek(), t0);
  EXPECT_TRUE(VirtualClock::run_next_before(t0 + 500));
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(VirtualClock::peek(), t0 + 500);
  EXPECT_FALSE(VirtualClock::run_next_before(~uint64_t{0}));
}

TEST_F(VirtualClockTest, AutoAdvanceMovesTimeOnEveryRead) {
  VirtualClock::set_auto_advance(7);
  const uint64_t a = VirtualClock::now_ns();
  const uint64_t b = VirtualClock::now_ns();
  EXPECT_EQ(b - a, 7u);
  int runs = 0;
  VirtualClock::after(10, [&] { ++runs; });
  VirtualClock::now_ns();
  EXPECT_EQ(runs, 0);
  VirtualClock::now_ns();
  EXPECT_EQ(runs, 1);  // due actions run as reads pass them
}

TEST_F(VirtualClockTest, SaturatesNearTheEndOfTime) {
  VirtualClock::reset(~uint64_t{0} - 5);
  VirtualClock::advance_by(100);
  EXPECT_EQ(VirtualClock::peek(), ~uint64_t{0});
}

}  // namespace
}  // namespace spsq_conf
