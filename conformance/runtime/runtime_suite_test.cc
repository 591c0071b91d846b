// The runtime clauses (spec sections 1, 2 and 5) against the reference
// runtime simulation: the compatibility factory, TaskArgs, transaction ids,
// queue.region, free() and the drain. These bind the runtime, not a queue
// endpoint, so they run against //core/runtime directly. Real threads and a
// real clock; timeouts only bound failures, nothing sleeps or measures time.
#include <atomic>
#include <chrono>
#include <cstring>
#include <ctime>
#include <thread>
#include <cstdio>
#include <cstdlib>
#include <climits>
#include <memory>
#include <string>
#include <type_traits>

#include "aicpu/region_instance_view.h"
#include "common/region_template.h"
#include "conformance/harness/clauses.h"
#include "conformance/harness/wire_model.h"
#include "gtest/gtest.h"
#include "runtime/orchestrator.h"

namespace spsq_conf {
namespace {

using spsc_queue::SpscQueueError;
using spsq_runtime::ChipWorkerMode;
using spsq_runtime::Orchestrator;
using spsq_runtime::OrchestratorOptions;

constexpr std::chrono::nanoseconds kBound = std::chrono::seconds(20);  // failure bound only

std::unique_ptr<Orchestrator> MakeOrch(uint32_t workers = 1,
                                       ChipWorkerMode mode = ChipWorkerMode::kThread) {
  OrchestratorOptions o;
  o.worker_count = workers;
  o.mode = mode;
  SpscQueueError e;
  auto orch = Orchestrator::create(o, &e);
  EXPECT_NE(orch, nullptr) << e.message;
  return orch;
}

// The L2 side's own clock: only contract names of the endpoint are used.
uint64_t SteadyNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// The spec's L2 snippet as a task: decode TaskArgs scalars 0..9, bind, echo
// every DATA input as an output, return after STOP drained.
std::atomic<bool> g_l2_hold{false};

void EchoTask(const spsq_runtime::TaskArgs& orch_args, const spsq_runtime::ChipCallConfig&) {
  uint64_t scalars[spsc_queue::kSpscQueueEndpointBindingScalarCount];
  for (size_t i = 0; i < spsc_queue::kSpscQueueEndpointBindingScalarCount; ++i) {
    scalars[i] = orch_args.scalar(static_cast<int32_t>(i));
  }
  spsc_queue::SpscQueueEndpointBinding binding{};
  if (!spsc_queue::decode_endpoint_binding(
          scalars, spsc_queue::kSpscQueueEndpointBindingScalarCount, &binding)) {
    return;
  }
  RegionInstanceView view(RegionPartLocalSpan{binding.payload_base, binding.payload_bytes},
                          RegionPartLocalSpan{binding.counter_base, binding.counter_bytes});
  const spsc_queue::MonotonicClock clock{&SteadyNs};
  spsc_queue::SpscQueueEndpoint<RegionInstanceView> queue(binding, std::move(view), clock);
  if (!queue.live()) return;
  while (g_l2_hold.load()) std::this_thread::yield();  // a test keeps L2 running
  for (;;) {
    spsc_queue::SpscQueueInputHandle h{};
    if (!queue.input().peek(20000000000ull, h)) return;
    if (h.opcode == spsc_queue::SpscQueueOpcode::STOP) {
      queue.input().release(h);
      return;
    }
    spsc_queue::SpscQueueOutputReservation r{};
    if (!queue.output().reserve(h.payload_nbytes, 20000000000ull, r)) return;
    if (h.payload_nbytes != 0) {
      std::memcpy(reinterpret_cast<void*>(r.payload.local_addr),
                  reinterpret_cast<const void*>(h.payload.local_addr), h.payload_nbytes);
    }
    queue.output().publish(r, spsc_queue::SpscQueueOpcode::DATA);
    queue.input().release(h);
  }
}

const spsq_runtime::L2OrchHandle kEcho{"echo", &EchoTask};

TEST(Runtime, FactoryMaterializesBindsAndProjectsOneInstance) {
  SPSQ_CLAUSES("S1.CREATE.1", "S1.FACTORY.2", "S1.FACTORY.3", "S1.FACTORY.4", "S1.FACTORY.5");
  auto orch = MakeOrch(2);
  SpscQueueError e;
  auto q = orch->create_worker_chip_queue(1, 4, 1 << 20, 1 << 20, &e);
  ASSERT_NE(q, nullptr) << e.message;
  EXPECT_TRUE(q->live());
  // One RegionInstance, queue-shaped (no primitive region was created).
  EXPECT_EQ(orch->ledger().materialized(), 1u);
  EXPECT_EQ(orch->ledger().live(), 1u);
  EXPECT_EQ(q->region().id().worker_id, 1u);
  // The binding describes exactly that instance.
  spsc_queue::SpscQueueEndpointBinding b{};
  const auto s = q->chip_task_arg_scalars();
  ASSERT_TRUE(spsc_queue::decode_endpoint_binding(s.data(), s.size(), &b));
  EXPECT_EQ(b.payload_base, q->region().payload().base);
  EXPECT_EQ(b.payload_bytes, q->region().payload().logical_bytes);
  EXPECT_EQ(b.counter_base, q->region().counter().base);
  EXPECT_EQ(b.counter_bytes, 384u);
  wire::Layout l;
  ASSERT_TRUE(wire::compute_layout(4, 1 << 20, 1 << 20, &l));
  EXPECT_EQ(b.payload_bytes, l.payload_bytes);
  EXPECT_EQ(b.transaction_id, q->region().id().transaction_id);
  auto q2 = orch->create_worker_chip_queue(1, 4, 1 << 20, 1 << 20, &e);
  ASSERT_NE(q2, nullptr);
  EXPECT_EQ(orch->ledger().materialized(), 2u) << "one instance per queue";
}

TEST(Runtime, TransactionIdsStartAtOneAndAreNeverZero) {
  SPSQ_CLAUSES("S1.TXN.2");
  auto orch = MakeOrch(2);
  SpscQueueError e;
  for (uint32_t w = 0; w < 2; ++w) {
    for (uint64_t want = 1; want <= 3; ++want) {
      auto q = orch->create_worker_chip_queue(w, 1, 64, 64, &e);
      ASSERT_NE(q, nullptr) << e.message;
      EXPECT_EQ(q->binding().transaction_id, want) << "worker " << w;
      EXPECT_NE(q->binding().transaction_id, 0u);
    }
  }
}

TEST(Runtime, MaxInflightIsNotPartOfQueueCreation) {
  SPSQ_CLAUSES("S1.WIN.4");
  // The factory's parameters are the spec's: worker, depth and the two arenas.
  using Factory = std::unique_ptr<spsc_queue::WorkerChipQueue> (Orchestrator::*)(
      uint32_t, uint64_t, uint64_t, uint64_t, SpscQueueError*);
  static_assert(std::is_same<decltype(&Orchestrator::create_worker_chip_queue), Factory>::value,
                "create_worker_chip_queue takes no window parameter");
  auto orch = MakeOrch();
  SpscQueueError e;
  auto q = orch->create_worker_chip_queue(0, 4, 128, 128, &e);
  ASSERT_NE(q, nullptr);
  // The same ten scalars bind L2 endpoints of every window.
  spsc_queue::SpscQueueEndpointBinding b{};
  const auto s = q->chip_task_arg_scalars();
  ASSERT_TRUE(spsc_queue::decode_endpoint_binding(s.data(), s.size(), &b));
  EXPECT_EQ(s.size(), 10u);
}

TEST(Runtime, TaskArgsCarryTheBindingAtOffsetZeroAndWorkerRunObservesTheDrain) {
  SPSQ_CLAUSES("S1.ARGS.1", "S2.EXIT.1");
  for (ChipWorkerMode mode : {ChipWorkerMode::kThread, ChipWorkerMode::kProcess}) {
    auto orch = MakeOrch(1, mode);
    SpscQueueError e;
    auto q = orch->create_worker_chip_queue(0, 4, 4096, 4096, &e);
    ASSERT_NE(q, nullptr);
    spsq_runtime::TaskArgs args;
    for (uint64_t v : q->chip_task_arg_scalars()) args.add_scalar(v);
    ASSERT_TRUE(orch->submit_next_level(kEcho, args, spsq_runtime::ChipCallConfig{}, 0, &e))
        << e.message;
    const char msg[] = "over the wire";
    ASSERT_EQ(q->input().enqueue(msg, sizeof(msg), kBound), spsc_queue::WorkerChipQueueStatus::OK);
    char out[64] = {};
    spsc_queue::WorkerChipMessage m{};
    ASSERT_EQ(q->output().dequeue_into(out, sizeof(out), kBound, &m),
              spsc_queue::WorkerChipQueueStatus::OK)
        << q->last_error().message;
    EXPECT_STREQ(out, msg) << "L2 decoded the binding from TaskArgs scalars 0..9";
    ASSERT_EQ(q->input().request_stop(kBound), spsc_queue::WorkerChipQueueStatus::OK);
    const spsq_runtime::WorkerRunReport report = orch->worker(0).run();
    EXPECT_EQ(report.tasks_completed, 1u) << spsq_runtime::chip_worker_mode_name(mode);
    EXPECT_TRUE(report.ok()) << report.first_failure;
    EXPECT_EQ(orch->worker(0).pending(), 0u);
  }
}

TEST(Runtime, QueueRegionProjectsTheSameInstance) {
  SPSQ_CLAUSES("S1.REGION.1", "S1.REGION.2");
  auto orch = MakeOrch();
  SpscQueueError e;
  auto q = orch->create_worker_chip_queue(0, 2, 64, 64, &e);
  ASSERT_NE(q, nullptr);
  const spsc_queue::SpscQueueEndpointBinding& b = q->binding();
  EXPECT_EQ(q->region().payload().base, b.payload_base);
  EXPECT_EQ(q->region().counter().base, b.counter_base);
  EXPECT_EQ(q->region().payload().logical_bytes, b.payload_bytes);
  // Reading through the region changes nothing the queue owns.
  const auto before = q->layout();
  const uint8_t* p = reinterpret_cast<const uint8_t*>(q->region().payload().base);
  EXPECT_EQ(p[0], 0);
  EXPECT_TRUE(q->layout() == before);
  EXPECT_EQ(q->input().try_enqueue(nullptr, 0), spsc_queue::WorkerChipQueueStatus::OK);
  EXPECT_TRUE(q->live());
}

TEST(Runtime, PrimitiveRegionsStayAvailable) {
  SPSQ_CLAUSES("S1.REGION.3");
  auto orch = MakeOrch();
  SpscQueueError e;
  auto r = orch->create_worker_chip_region(0, 4096, 64, &e);
  ASSERT_NE(r, nullptr) << e.message;
  EXPECT_EQ(r->payload().logical_bytes, 4096u);
  EXPECT_EQ(r->counter().logical_bytes, 64u);
  auto q = orch->create_worker_chip_queue(0, 1, 64, 64, &e);
  ASSERT_NE(q, nullptr);
  EXPECT_NE(q->region().payload().base, r->payload().base) << "separate instances";
}

TEST(Runtime, FreeIsLogicalAndCleanupFollowsTheL2Drain) {
  SPSQ_CLAUSES("S1.FREE.1", "S1.FREE.2", "S1.FREE.3", "S1.FREE.4", "S2.EXIT.1");
  auto orch = MakeOrch();
  SpscQueueError e;
  auto q = orch->create_worker_chip_queue(0, 4, 256, 256, &e);
  ASSERT_NE(q, nullptr);
  const uint64_t txn = q->binding().transaction_id;
  spsq_runtime::TaskArgs args;
  for (uint64_t v : q->chip_task_arg_scalars()) args.add_scalar(v);
  g_l2_hold = true;  // L2 bound and running, not yet consuming
  ASSERT_TRUE(orch->submit_next_level(kEcho, args, spsq_runtime::ChipCallConfig{}, 0, &e));
  ASSERT_EQ(q->input().request_stop(kBound), spsc_queue::WorkerChipQueueStatus::OK);
  q->free();
  EXPECT_TRUE(q->freed());
  EXPECT_TRUE(q->region().released()) << "free() marks the projected region released";
  EXPECT_EQ(q->input().try_enqueue(nullptr, 0), spsc_queue::WorkerChipQueueStatus::REJECTED)
      << "the L3 handle is released";
  EXPECT_TRUE(orch->ledger().is_live(0, txn)) << "memory freed while L2 still runs";
  g_l2_hold = false;
  const auto report = orch->worker(0).run();
  EXPECT_EQ(report.tasks_completed, 1u);
  EXPECT_FALSE(orch->ledger().is_live(0, txn)) << "memory kept after L2 drained";
  EXPECT_EQ(orch->ledger().reclaimed(), 1u);
}

TEST(Runtime, TheShippedExampleLivesAtItsPath) {
  SPSQ_CLAUSES("S5.EX.1");
  const char* srcdir = std::getenv("TEST_SRCDIR");
  ASSERT_NE(srcdir, nullptr);
  // Runfiles link into the checkout: this source's real path leads to it.
  const std::string self =
      std::string(srcdir) + "/spsq_harness/conformance/runtime/runtime_suite_test.cc";
  char real[4096];
  ASSERT_NE(realpath(self.c_str(), real), nullptr) << self;
  std::string root = real;
  root = root.substr(0, root.rfind("/conformance/runtime/"));
  const std::string dir = root + "/examples/workers/l3/worker_chip_message_queue/";
  for (const char* f : {"BUILD", "main.cc", "l2_orchestration.cc"}) {
    FILE* fp = std::fopen((dir + f).c_str(), "r");
    EXPECT_NE(fp, nullptr) << "examples/workers/l3/worker_chip_message_queue/" << f;
    if (fp != nullptr) std::fclose(fp);
  }
  // Section 5: the L2 side uses SpscQueueEndpoint<RegionInstanceView, 4>.
  FILE* fp = std::fopen((dir + "l2_orchestration.cc").c_str(), "r");
  ASSERT_NE(fp, nullptr);
  std::string text;
  char chunk[4096];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof(chunk), fp)) > 0) text.append(chunk, n);
  std::fclose(fp);
  EXPECT_NE(text.find("SpscQueueEndpoint<RegionInstanceView, 4>"), std::string::npos);
}

}  // namespace
}  // namespace spsq_conf
