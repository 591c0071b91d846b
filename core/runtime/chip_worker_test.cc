// Chip workers: L2 tasks run on the worker's own thread or in a forked child
// sharing only RegionInstance memory; run() returns once they drained; pins
// keep RegionInstances alive exactly until the task returned.
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

#include "gtest/gtest.h"
#include "runtime/chip_worker.h"
#include "runtime/region_instance.h"
#include "runtime/task_args.h"

namespace spsq_runtime {
namespace {

TEST(TaskArgs, ScalarsInOrderAndMissingReadsAsZero) {
  TaskArgs a;
  EXPECT_EQ(a.scalar_count(), 0u);
  a.add_scalar(0x5350535100010000ull);
  a.add_scalar(0);
  a.add_scalar(~uint64_t{0});
  EXPECT_EQ(a.scalar_count(), 3u);
  EXPECT_EQ(a.scalar(0), 0x5350535100010000ull);
  EXPECT_EQ(a.scalar(1), 0u);
  EXPECT_EQ(a.scalar(2), ~uint64_t{0});
  EXPECT_EQ(a.scalar(3), 0u);
  EXPECT_EQ(a.scalar(-1), 0u);
}

// Thread-mode tasks record where they ran. Globals are fine here: thread mode
// shares the address space by design.
std::atomic<uint64_t> g_sum{0};
std::thread::id g_task_thread;

void sum_task(const TaskArgs& args, const ChipCallConfig& cfg) {
  g_task_thread = std::this_thread::get_id();
  uint64_t s = 0;
  for (size_t i = 0; i < args.scalar_count(); ++i) s += args.scalar(static_cast<int32_t>(i));
  g_sum += s * cfg.block_dim;
}

TEST(ChipWorker, ThreadModeRunsOnTheWorkersOwnThreadAndDrains) {
  g_sum = 0;
  ChipWorker w(0, ChipWorkerMode::kThread);
  TaskArgs a;
  a.add_scalar(3);
  a.add_scalar(4);
  std::string why;
  ASSERT_TRUE(w.submit({"sum", &sum_task}, a, ChipCallConfig{2}, {}, &why)) << why;
  ASSERT_TRUE(w.submit({"sum", &sum_task}, a, ChipCallConfig{1}, {}, &why)) << why;
  const WorkerRunReport r = w.run();
  EXPECT_EQ(r.tasks_completed, 2u);
  EXPECT_EQ(r.tasks_failed, 0u);
  EXPECT_EQ(g_sum.load(), 7u * 2 + 7u);
  EXPECT_NE(g_task_thread, std::this_thread::get_id());
  EXPECT_EQ(w.pending(), 0u);
  // The report covers what drained since the previous run().
  EXPECT_EQ(w.run().tasks_completed, 0u);
}

TEST(ChipWorker, RefusesAHandleWithoutFunction) {
  ChipWorker w(0, ChipWorkerMode::kThread);
  std::string why;
  EXPECT_FALSE(w.submit({"empty", nullptr}, TaskArgs{}, ChipCallConfig{}, {}, &why));
  EXPECT_NE(why.find("'empty' has no orchestration function"), std::string::npos) << why;
}

// Gate shared by the test and a thread-mode task, so the test controls when
// the task returns without sleeping.
std::atomic<int> g_gate{0};

void gated_task(const TaskArgs&, const ChipCallConfig&) {
  g_gate.store(1);
  while (g_gate.load() != 2) std::this_thread::yield();
}

TEST(ChipWorker, PinsKeepInstancesUntilTheTaskReturned) {
  auto ledger = std::make_shared<RegionLedger>();
  std::string why;
  auto inst = RegionInstance::materialize({0, 1, 1}, 128, 384, ledger, &why);
  ASSERT_TRUE(inst);
  g_gate = 0;
  ChipWorker w(0, ChipWorkerMode::kThread);
  ASSERT_TRUE(w.submit({"gated", &gated_task}, TaskArgs{}, ChipCallConfig{}, {inst}, &why));
  inst.reset();  // L3 lets go while the task is running
  while (g_gate.load() != 1) std::this_thread::yield();
  EXPECT_TRUE(ledger->is_live(0, 1));
  EXPECT_EQ(w.pending(), 1u);
  g_gate = 2;
  EXPECT_EQ(w.run().tasks_completed, 1u);
  EXPECT_FALSE(ledger->is_live(0, 1));
  EXPECT_EQ(ledger->reclaimed(), 1u);
}

// Process mode: the child writes the region and a private global. Only the
// region write may reach the parent.
uint64_t g_private = 11;

void process_task(const TaskArgs& args, const ChipCallConfig&) {
  auto* shared = reinterpret_cast<uint64_t*>(args.scalar(0));
  shared[0] = 0x1234;
  shared[1] = g_private;  // the child's copy of the global, as forked
  g_private = 99;
}

TEST(ChipWorker, ProcessModeSharesOnlyRegionMemory) {
  auto ledger = std::make_shared<RegionLedger>();
  std::string why;
  auto inst = RegionInstance::materialize({0, 1, 1}, 64, 384, ledger, &why);
  ASSERT_TRUE(inst);
  g_private = 11;
  ChipWorker w(0, ChipWorkerMode::kProcess);
  TaskArgs a;
  a.add_scalar(inst->payload().base);
  ASSERT_TRUE(w.submit({"proc", &process_task}, a, ChipCallConfig{}, {inst}, &why)) << why;
  const WorkerRunReport r = w.run();
  EXPECT_TRUE(r.ok()) << r.first_failure;
  EXPECT_EQ(r.tasks_completed, 1u);
  const auto* shared = reinterpret_cast<const uint64_t*>(inst->payload().base);
  EXPECT_EQ(shared[0], 0x1234u);
  EXPECT_EQ(shared[1], 11u);
  EXPECT_EQ(g_private, 11u);  // the child's write stayed in the child
}

void noop_task(const TaskArgs&, const ChipCallConfig&) {}
void exiting_task(const TaskArgs&, const ChipCallConfig&) { _exit(3); }
void aborting_task(const TaskArgs&, const ChipCallConfig&) { abort(); }

TEST(ChipWorker, ProcessModeReportsChildFailures) {
  ChipWorker w(0, ChipWorkerMode::kProcess);
  std::string why;
  ASSERT_TRUE(w.submit({"exits3", &exiting_task}, TaskArgs{}, ChipCallConfig{}, {}, &why));
  ASSERT_TRUE(w.submit({"aborts", &aborting_task}, TaskArgs{}, ChipCallConfig{}, {}, &why));
  ASSERT_TRUE(w.submit({"fine", &noop_task}, TaskArgs{}, ChipCallConfig{}, {}, &why));
  const WorkerRunReport r = w.run();
  EXPECT_EQ(r.tasks_failed, 2u);
  EXPECT_EQ(r.tasks_completed, 1u);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.first_failure.find("'exits3'"), std::string::npos) << r.first_failure;
  EXPECT_NE(r.first_failure.find("exited with status 3"), std::string::npos) << r.first_failure;
}

}  // namespace
}  // namespace spsq_runtime
