// Systematic interleavings: every schedule of small L3<->L2 scenarios up to a
// preemption bound, against the L2 endpoint of the certification config this
// target is built with (spsq_cert/config.h: SPSQ_CERT_ENDPOINT, reached
// through EndpointAccess). The template is instantiated at the windows the
// scenarios need (1 and 2), whatever the config's MaxInflight. With
// SPSQ_EXPECT_BUG defined (mutant builds) the test instead requires that the
// explorer finds a failing schedule and that replaying it fails the same way.
//
// Replay a printed schedule: SPSQ_REPLAY=<scenario>:<0/1 decisions> <test>;
// the replay test fails when the schedule fails.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "testkit/clauses.h"
#include "gtest/gtest.h"
#include "sanitizers/interleave/l2_scenarios.h"
#include "spsq_cert/config.h"

namespace spsq_sched {
namespace {

template <class V, uint64_t N>
using EndpointUnderTest = SPSQ_CERT_ENDPOINT<V, N>;

// What every execution judges: FIFO, exactly-once and byte-exact delivery both
// ways (publication order, payload visible before seq and tail), capacity
// exactly depth, out-of-order release advancing the head over the FIFO prefix
// only, outputs after STOP, drained() after STOP's release, the arena rule.
#define SPSQ_INTERLEAVE_CLAUSES()                                                      \
  SPSQ_CLAUSES("S3.PUB.1", "S3.PUB.2", "S3.PUB.5", "W.ORDER.1", "S2.CAP.1", "S4.L2IN.4", \
               "S4.L2IN.5", "S4.L2IN.6", "S4.STOP.3", "S4.STOP.10", "W.ARENA.1", "S3.CTR.2")

struct Case {
  L2ScenarioSpec spec;
  uint64_t window;
};

// depth 1 and 2, a few messages, STOP, windows 1 and 2, arena wrap.
const Case kCases[] = {
    {{"depth1_two_messages", 1, 64, 64, 2, 24, 16, false, true}, 1},
    {{"depth2_window2_out_of_order", 2, 64, 64, 3, 32, 16, true, true}, 2},
    {{"depth2_arena_skip", 2, 64, 64, 2, 40, 40, false, false}, 1},
    {{"depth2_window2_zero_byte", 2, 64, 64, 3, 0, 0, true, true}, 2},
};

std::function<Scenario()> factory(const Case& c) {
  return c.window == 1 ? l2_scenario<EndpointUnderTest, 1>(c.spec)
                       : l2_scenario<EndpointUnderTest, 2>(c.spec);
}

ExploreOptions options() {
  ExploreOptions o;
  o.preemption_bound = 2;
  o.max_schedules = 100000;
  o.max_steps = 20000;
  return o;
}

TEST(Interleave, ReplayFromEnvironment) {
  const char* env = std::getenv("SPSQ_REPLAY");
  // Without a schedule this test judges nothing, so it names its clauses after.
  if (env == nullptr) GTEST_SKIP() << "set SPSQ_REPLAY=<scenario>:<schedule> to replay";
  SPSQ_INTERLEAVE_CLAUSES();
  const std::string text = env;
  const size_t colon = text.find(':');
  ASSERT_NE(colon, std::string::npos) << "SPSQ_REPLAY needs <scenario>:<schedule>";
  std::vector<uint8_t> schedule;
  ASSERT_TRUE(schedule_from_string(text.substr(colon + 1), &schedule))
      << "a schedule is a string of 0 (stay) and 1 (switch)";
  for (const Case& c : kCases) {
    if (text.substr(0, colon) != c.spec.name) continue;
    const ExploreResult r = replay(factory(c), schedule, options());
    std::printf("replay %s: %s\n", c.spec.name, r.failed ? r.failure.c_str() : "passed");
    // A replay judges the schedule like the exploration does: a failing one fails.
    EXPECT_FALSE(r.failed) << "replay " << c.spec.name << " failed: " << r.failure;
    return;
  }
  FAIL() << "unknown scenario " << text.substr(0, colon);
}

#ifndef SPSQ_EXPECT_BUG

TEST(Interleave, EveryScheduleUpToTwoPreemptionsPasses) {
  SPSQ_INTERLEAVE_CLAUSES();
  uint64_t total = 0;
  for (const Case& c : kCases) {
    const ExploreResult r = explore(factory(c), options());
    std::printf("%-32s %8llu schedules, up to %llu choice points%s\n", c.spec.name,
                static_cast<unsigned long long>(r.schedules),
                static_cast<unsigned long long>(r.max_choice_points),
                r.exhausted ? "" : " (schedule cap reached)");
    total += r.schedules;
    EXPECT_FALSE(r.failed) << c.spec.name << ": " << r.failure << "\nreplay: SPSQ_REPLAY="
                           << c.spec.name << ":" << schedule_to_string(r.schedule);
    EXPECT_GT(r.max_choice_points, 20u) << "the scenario must interleave shared accesses";
  }
  std::printf("total: %llu schedules explored\n", static_cast<unsigned long long>(total));
  RecordProperty("schedules_explored", std::to_string(total));
}

TEST(Interleave, ExplorerVisitsBothOrdersOfTheFirstStep) {
  SPSQ_EXERCISES("S3.PUB.1", "S3.PUB.5");
  // Sanity of the explorer itself: with a bound of 1 it must produce more
  // than one schedule for a scenario with many choice points.
  ExploreOptions o = options();
  o.preemption_bound = 1;
  const ExploreResult r = explore(factory(kCases[0]), o);
  // An exploration stops at the first failing schedule, so its breadth shows
  // only on an endpoint that passes; the failure itself is judged above.
  if (r.failed) GTEST_SKIP() << "not applicable: the endpoint failed a schedule: " << r.failure;
  EXPECT_GT(r.schedules, r.max_choice_points / 2);
}

#else  // a mutant: the explorer must catch it

TEST(Interleave, FindsTheMutantsBugAndReplaysIt) {
  // Passing here means the endpoint broke these: exercised, not judged PASS.
  SPSQ_EXERCISES("S3.PUB.1", "S3.PUB.2", "W.ORDER.1", "S2.CAP.1", "S4.L2IN.5", "S4.L2IN.6");
  bool found = false;
  for (const Case& c : kCases) {
    const ExploreResult r = explore(factory(c), options());
    if (!r.failed) continue;
    found = true;
    std::printf("%s: found after %llu schedules: %s\nschedule: %s\n", c.spec.name,
                static_cast<unsigned long long>(r.schedules), r.failure.c_str(),
                schedule_to_string(r.schedule).c_str());
    const ExploreResult again = replay(factory(c), r.schedule, options());
    EXPECT_TRUE(again.failed) << "replay of the failing schedule passed";
    EXPECT_EQ(again.failure, r.failure) << "replay is not deterministic";
    break;
  }
  EXPECT_TRUE(found) << "no schedule exposed the mutant's defect";
}

#endif

}  // namespace
}  // namespace spsq_sched
