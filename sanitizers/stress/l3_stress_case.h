// The parts the two L3 stress binaries share: one case (the region, the queue
// under test bound onto it through make_l3_adapter(), the two sides as the
// binary arranges them) and its verdict. A completed run judges the clauses
// below; a failure judges only the clauses its check names (an SPSQ_JUDGING
// block), so a torn input FAILs the publication order, not ERROR handling; a
// run in which nothing moved for the stall time (and nothing was seen wrong)
// judges liveness alone.
#ifndef SPSQ_SANITIZERS_STRESS_L3_STRESS_CASE_H_
#define SPSQ_SANITIZERS_STRESS_L3_STRESS_CASE_H_

#include <cstdio>
#include <memory>
#include <set>
#include <string>

#include "testkit/clauses.h"
#include "testkit/virtual_clock.h"
#include "gtest/gtest.h"
#include "sanitizers/stress/l3_stress.h"

namespace spsq_stress {

// What a completed run judges, all of them clauses (or cases) the L3 role
// binds: FIFO both ways; L3's publication order and counters as a concurrent
// L2 reads them (seq, arena rule, no overwrite of held payload, no split at
// the arena end); L3 as consumer (its order, every placement accepted, ERROR
// left alone and no poison); STOP (no payload, input closed after it, outputs
// still dequeued); each L3 output call; no-progress and timeouts under real
// backpressure as no poison.
#define SPSQ_L3_STRESS_CLAUSES                                                                   \
  "S0.PURPOSE.1/input-fifo", "S0.PURPOSE.1/output-fifo", "S3.PUB.1", "S3.PUB.2", "W.ORDER.1",    \
      "S3.PUB.5", "S3.CTR.1", "S3.CTR.2", "W.SEQ.1", "W.ARENA.1/input-sweep", "W.ARENA.2/l3",    \
      "S2.WRAP.1/input", "LIVE.2/l3-output", "S4.STOP.1/l3-zero", "W.STOP.1/l3-stop",            \
      "W.STOP.1/l3-zero", "S4.STOP.2/try-enqueue", "S4.STOP.2/zero-byte",                        \
      "S4.STOP.3/l3-dequeues", "S2.ERROR.1/l3-output", "S2.ERROR.2/l3-output",                   \
      "S4.NOPROG.5/l3-receive", "S1.DEQ.1", "S4.L3OUT.1", "S4.L3OUT.2", "S4.NOPROG.1/l3-try",    \
      "S4.NOPROG.1/l3-blocking", "S4.NOPROG.2/l3-try", "S4.NOPROG.2/l3-blocking", "S4.NOPROG.3", \
      "S4.NOPROG.4/l3-enqueue", "S4.NOPROG.4/l3-stop", "S4.NOPROG.4/l3-peek",                    \
      "S4.NOPROG.4/l3-dequeue", "S3.TO.6"

// A defect's failure, traced to the clauses its check names (at most four;
// the list is padded with its first, which the verdict reads once).
inline void report_defect(const Finding& f) {
  if (f.clauses.empty()) {
    ADD_FAILURE() << f.text;
    return;
  }
  const char* c[4];
  for (size_t i = 0; i < 4; ++i) c[i] = f.clauses[i < f.clauses.size() ? i : 0].c_str();
  spsq_conf::JudgingScope scope(__FILE__, __LINE__, {c[0], c[1], c[2], c[3]});
  ADD_FAILURE() << f.text;
}

inline void judge(const Finding& l3, const Finding& l2, L3StressRegion& r,
                  const StressPlan& plan) {
  const bool defect = l3.kind == Finding::kDefect || l2.kind == Finding::kDefect;
  const bool stalled = !defect && (l3.kind == Finding::kStall || l2.kind == Finding::kStall);
  if (stalled) {
    SPSQ_CLAUSES("LIVE.1", "W.LIVE.1");
    SPSQ_EXERCISES(SPSQ_L3_STRESS_CLAUSES);
  } else {
    SPSQ_CLAUSES(SPSQ_L3_STRESS_CLAUSES);
    SPSQ_EXERCISES("LIVE.1", "W.LIVE.1");
  }
  spsq_conf::record_observation(
      "messages", std::to_string(plan.messages + total_outputs(plan.messages)));
  for (const Finding* f : {&l3, &l2}) {
    if (f->kind == Finding::kDefect) {
      report_defect(*f);
    } else if (f->kind == Finding::kStall && stalled) {
      ADD_FAILURE() << f->text << " (liveness)";
    } else if (f->kind == Finding::kGaveUp && !defect && !stalled) {
      ADD_FAILURE() << f->text << ", but the other side reported nothing";
    }
  }
  if (l3.ok() && l2.ok()) {
    // ERROR is a normal message, and nothing else went wrong: no abort flag.
    SPSQ_JUDGING("S4.NOPROG.5/l3-receive");
    EXPECT_EQ(r.region().memory().load_counter(spsq_conf::wire::kInitiatorFlag), 0)
        << "L3 raised its abort flag in a run without a defect";
  }
  // The suite's invariants of an L3 run (bounds and contract use through the
  // view, the guards); lean mode logs nothing, so the rest have nothing to read.
  std::set<std::string> violated;
  r.region().check_invariants(spsq_conf::Side::kL3, "L3 stress", {}, &violated);
  spsq_conf::record_invariants_of(spsq_conf::Side::kL3, violated);
  if (testing::Test::HasFailure()) {
    std::printf("---- region at the end (spsq inspect) ----\n%s",
                r.region().describe().c_str());
  }
}

// One case of either binary, on a region the test has built:
// `sides(region, plan, queue, &l3, &l2)` runs the queue (on this thread) and
// the peer as the binary arranges them and returns each side's finding; then
// the verdict.
template <class Sides>
void run_l3_stress_case(L3StressRegion& r, const StressPlan& plan, Sides sides) {
  spsq_conf::VirtualClock::reset();
  std::unique_ptr<L3Adapter> q = spsq_conf::make_l3_adapter();
  // A queue that does not wait through the view reads the clock instead:
  // let time move on each read, so its blocking calls end.
  if (!q->uses_view()) spsq_conf::VirtualClock::set_auto_advance(kWaitNs);
  const auto scalars = r.region().scalars();
  ASSERT_TRUE(q->open(scalars.data(), scalars.size(), r.region().view(),
                      &spsq_conf::VirtualClock::now_ns))
      << q->name() << ": open() refused a valid binding";
  ASSERT_TRUE(q->live()) << q->error().message;
  Finding l3, l2;
  sides(r, plan, *q, &l3, &l2);
  if (testing::Test::HasFatalFailure()) return;
  judge(l3, l2, r, plan);
}

}  // namespace spsq_stress

#endif  // SPSQ_SANITIZERS_STRESS_L3_STRESS_CASE_H_
