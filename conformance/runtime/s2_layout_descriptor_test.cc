// Spec section 2, "Layout And Descriptor", against the reference runtime
// simulation: "L2 exit is observed through normal Worker.run drain."
#include <cstdint>

#include "conformance/runtime/runtime_fixture.h"

namespace spsq_conf {
namespace runtime_suite {
namespace {

TEST(RuntimeLayoutDescriptor, WorkerRunObservesTheL2Exit) {
  SPSQ_CLAUSES("S2.EXIT.1");
  SPSQ_EXERCISES("S1.ARGS.1");
  for (ChipWorkerMode mode : {ChipWorkerMode::kThread, ChipWorkerMode::kProcess}) {
    SCOPED_TRACE(spsq_runtime::chip_worker_mode_name(mode));
    auto orch = MakeOrch(1, mode);
    SpscQueueError e;
    auto q = orch->create_worker_chip_queue(0, 4, 4096, 4096, &e);
    ASSERT_NE(q, nullptr);
    ASSERT_TRUE(SubmitEcho(orch.get(), q.get()));
    EXPECT_EQ(orch->worker(0).pending(), 1u) << "the L2 task runs until it drains STOP";
    EXPECT_EQ(RoundTrip(q.get(), "one"), "one");
    ASSERT_EQ(q->input().request_stop(kBound), WorkerChipQueueStatus::OK);
    const spsq_runtime::WorkerRunReport report = orch->worker(0).run();
    EXPECT_EQ(report.tasks_completed, 1u);
    EXPECT_TRUE(report.ok()) << report.first_failure;
    EXPECT_EQ(orch->worker(0).pending(), 0u) << "run() returned before the L2 task did";
  }
}

}  // namespace
}  // namespace runtime_suite
}  // namespace spsq_conf
