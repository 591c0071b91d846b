// Chip workers: L2 tasks run on the worker's own thread or in a forked child
// sharing only RegionInstance memory; run() returns once they drained; pins
// keep RegionInstances alive exactly until the task returned. An L2 task that
// is an external binary is forked and exec'd and reaches region memory only
// through the inherited memfd, at addresses of its own.
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

#include "gtest/gtest.h"
#include "runtime/chip_worker.h"
#include "region/region_instance.h"
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

// ------------------------------------------------------------ exec path

// The child binary's runfiles path (cwd of a Bazel test is its runfiles root).
const char* const kExecChild = SPSQ_L2_EXEC_TEST_CHILD;

TaskArgs probe_args(const RegionInstance& inst, uint64_t action) {
  TaskArgs a;
  a.add_scalar(inst.payload().base);
  a.add_scalar(inst.payload().logical_bytes);
  a.add_scalar(inst.counter().base);
  a.add_scalar(inst.counter().logical_bytes);
  a.add_scalar(inst.payload().base + 100);
  a.add_scalar(0x5350535100010000ull);
  a.add_scalar(action);
  return a;
}

TEST(ChipWorker, ExecRunsAnExternalBinaryOverTheRegionMemfd) {
  auto ledger = std::make_shared<RegionLedger>();
  std::string why;
  auto inst = RegionInstance::materialize({0, 1, 1}, 4096, 384, ledger, &why);
  ASSERT_TRUE(inst) << why;
  const RegionInstanceShare sh = inst->share();
  EXPECT_GE(sh.fd, 0);
  EXPECT_EQ(sh.payload_offset, 0u);
  EXPECT_EQ(sh.counter_offset, inst->counter().base - inst->payload().base);
  auto* payload = reinterpret_cast<uint8_t*>(inst->payload().base);
  auto* counter = reinterpret_cast<uint8_t*>(inst->counter().base);
  payload[0] = 0x5a;
  // A stale ABI variable of the parent's own environment does not leak in.
  setenv("SPSQ_L2_TASK_NAME", "stale", 1);
  ChipWorker w(0, ChipWorkerMode::kProcess);
  L2OrchHandle h;
  h.name = "probe";
  h.binary = kExecChild;
  ASSERT_TRUE(w.submit(h, probe_args(*inst, 0), ChipCallConfig{3}, {inst}, &why)) << why;
  unsetenv("SPSQ_L2_TASK_NAME");
  const WorkerRunReport r = w.run();
  EXPECT_TRUE(r.ok()) << r.first_failure;
  EXPECT_EQ(r.tasks_completed, 1u);
  EXPECT_EQ(payload[1], 0xa5);
  EXPECT_EQ(counter[0], 0x77);
  EXPECT_EQ(payload[100], 0x42);
}

TEST(ChipWorker, ExecReportsTheChildsExitStatus) {
  auto ledger = std::make_shared<RegionLedger>();
  std::string why;
  auto inst = RegionInstance::materialize({0, 1, 1}, 4096, 384, ledger, &why);
  ASSERT_TRUE(inst) << why;
  ChipWorker w(0, ChipWorkerMode::kProcess);
  L2OrchHandle h;
  h.name = "exits3";
  h.binary = kExecChild;
  ASSERT_TRUE(w.submit(h, probe_args(*inst, 3), ChipCallConfig{3}, {inst}, &why)) << why;
  inst.reset();  // pinned until reaped
  EXPECT_TRUE(ledger->is_live(0, 1));
  const WorkerRunReport r = w.run();
  EXPECT_EQ(r.tasks_failed, 1u);
  EXPECT_EQ(r.tasks_completed, 0u);
  EXPECT_NE(r.first_failure.find("'exits3'"), std::string::npos) << r.first_failure;
  EXPECT_NE(r.first_failure.find("exited with status 3"), std::string::npos) << r.first_failure;
  EXPECT_FALSE(ledger->is_live(0, 1));
}

TEST(ChipWorker, ExecOfAMissingBinaryFailsAtSubmitWithTheReason) {
  ChipWorker w(0, ChipWorkerMode::kProcess);
  L2OrchHandle h;
  h.name = "missing";
  h.binary = "/nonexistent/spsq_l2_child";
  std::string why;
  EXPECT_FALSE(w.submit(h, TaskArgs{}, ChipCallConfig{}, {}, &why));
  EXPECT_NE(why.find("exec of L2 task 'missing' binary '/nonexistent/spsq_l2_child' failed"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find(std::strerror(ENOENT)), std::string::npos) << why;
  EXPECT_EQ(w.pending(), 0u);
}

TEST(ChipWorker, ABinaryNeedsProcessModeAndExactlyOneEntryPoint) {
  std::string why;
  ChipWorker t(0, ChipWorkerMode::kThread);
  L2OrchHandle h;
  h.name = "bin";
  h.binary = kExecChild;
  EXPECT_FALSE(t.submit(h, TaskArgs{}, ChipCallConfig{}, {}, &why));
  EXPECT_NE(why.find("needs process mode"), std::string::npos) << why;
  ChipWorker p(0, ChipWorkerMode::kProcess);
  h.fn = &noop_task;
  EXPECT_FALSE(p.submit(h, TaskArgs{}, ChipCallConfig{}, {}, &why));
  EXPECT_NE(why.find("both an orchestration function and a binary"), std::string::npos) << why;
}

}  // namespace
}  // namespace spsq_runtime
