// Orchestrator::call_counts(): every entry into each entry point counts once,
// refused calls included, and no entry point counts another's. The runtime
// suite's factory clause (create_worker_chip_queue does not call
// create_worker_chip_region()) rests on this.
#include <memory>

#include "gtest/gtest.h"
#include "runtime/orchestrator.h"

namespace spsq_runtime {
namespace {

using spsc_queue::SpscQueueError;

void no_task(const TaskArgs&, const ChipCallConfig&) {}

std::unique_ptr<Orchestrator> make_orch() {
  OrchestratorOptions o;
  o.worker_count = 2;
  SpscQueueError e;
  auto orch = Orchestrator::create(o, &e);
  EXPECT_TRUE(orch) << e.message;
  return orch;
}

void expect_counts(const Orchestrator& orch, uint64_t queues, uint64_t regions, uint64_t submits) {
  const OrchestratorCallCounts c = orch.call_counts();
  EXPECT_EQ(c.create_worker_chip_queue, queues);
  EXPECT_EQ(c.create_worker_chip_region, regions);
  EXPECT_EQ(c.submit_next_level, submits);
}

TEST(OrchestratorCallCounts, StartAtZero) {
  auto orch = make_orch();
  ASSERT_TRUE(orch);
  expect_counts(*orch, 0, 0, 0);
}

TEST(OrchestratorCallCounts, EachEntryPointCountsItsOwnCallsRefusedOnesToo) {
  auto orch = make_orch();
  ASSERT_TRUE(orch);
  SpscQueueError e;
  auto q = orch->create_worker_chip_queue(1, 4, 256, 256, &e);
  ASSERT_TRUE(q) << e.message;
  expect_counts(*orch, 1, 0, 0);
  EXPECT_FALSE(orch->create_worker_chip_queue(0, 0, 256, 256, &e)) << "depth 0";
  EXPECT_FALSE(orch->create_worker_chip_queue(2, 4, 256, 256, &e)) << "no worker 2";
  expect_counts(*orch, 3, 0, 0);
  auto r = orch->create_worker_chip_region(0, 128, 64, &e);
  ASSERT_TRUE(r) << e.message;
  EXPECT_FALSE(orch->create_worker_chip_region(0, 128, 63, &e)) << "counter not 64-aligned";
  expect_counts(*orch, 3, 2, 0);
  const L2OrchHandle none{"none", nullptr, nullptr};
  EXPECT_FALSE(orch->submit_next_level(none, TaskArgs{}, ChipCallConfig{}, 0, &e));
  const L2OrchHandle task{"no_task", &no_task, nullptr};
  ASSERT_TRUE(orch->submit_next_level(task, TaskArgs{}, ChipCallConfig{}, 0, &e)) << e.message;
  EXPECT_TRUE(orch->worker(0).run().ok());
  expect_counts(*orch, 3, 2, 2);
  // Queues, regions and their frees book memory, not calls.
  q->free();
  r->free();
  expect_counts(*orch, 3, 2, 2);
}

}  // namespace
}  // namespace spsq_runtime
