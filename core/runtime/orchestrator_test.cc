// The Orchestrator's own behaviour, beyond what the runtime conformance suite
// (//conformance/runtime) judges: factory and option validation and their
// messages, session bits per worker incarnation, the primitive region's
// argument checks, the region template's failure paths, and duplex traffic,
// STOP and free() around a real persistent L2 task in thread and process mode
// (the suite's free() test holds L2 at a flag; these free after its exit too).
//
// L2 runs concurrently here, so blocking calls use generous timeouts on the
// steady clock; nothing asserts on wall time and nothing sleeps.
#include <cinttypes>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "aicpu/region_instance_view.h"
#include "common/region_template.h"
#include "gtest/gtest.h"
#include "runtime/l2_binding.h"
#include "runtime/orchestrator.h"
#include "runtime/region_template_coordinator.h"
#include "runtime/spsc_queue_region_template.h"

namespace spsq_runtime {
namespace {

using spsc_queue::SpscQueueError;
using spsc_queue::SpscQueueErrorKind;
using spsc_queue::SpscQueueOpcode;
using spsc_queue::WorkerChipMessage;
using spsc_queue::WorkerChipQueue;
using Status = spsc_queue::WorkerChipQueueStatus;

// Far longer than any healthy step, shorter than the test timeout, so a hang
// fails with a message instead of a killed test.
constexpr auto kL3Timeout = std::chrono::seconds(20);
constexpr uint64_t kL2TimeoutNs = 25ull * 1000 * 1000 * 1000;
constexpr uint8_t kEchoMask = 0x5a;

std::unique_ptr<Orchestrator> make_orch(ChipWorkerMode mode, uint32_t workers = 1,
                                        std::vector<uint64_t> session_bits = {}) {
  OrchestratorOptions o;
  o.mode = mode;
  o.worker_count = workers;
  o.session_bits = std::move(session_bits);
  SpscQueueError e;
  auto orch = Orchestrator::create(o, &e);
  EXPECT_TRUE(orch) << e.message;
  return orch;
}

TaskArgs args_for(const WorkerChipQueue& q) {
  TaskArgs a;
  for (uint64_t v : q.chip_task_arg_scalars()) a.add_scalar(v);
  return a;
}

// The persistent L2 task: decodes the ten scalars exactly as the spec's L2
// snippet does, waits on an optional gate (scalars 10..11: counter base and
// bytes of a primitive region), then echoes every DATA input XOR kEchoMask
// until STOP, and returns only once the input is drained. It touches nothing
// but the region memory named by its scalars.
void echo_l2(const TaskArgs& orch_args, const ChipCallConfig&) {
  const spsc_queue::MonotonicClock clock{&RegionInstanceView::steady_now_ns};
  spsc_queue::SpscQueueEndpointBinding binding{};
  if (!spsq_runtime::decode_task_binding(orch_args, &binding)) return;
  if (orch_args.scalar_count() >= 12) {
    RegionInstanceView gate(RegionPartLocalSpan{}, RegionPartLocalSpan{orch_args.scalar(10),
                                                                       orch_args.scalar(11)},
                            clock);
    int32_t observed = 0;
    if (!gate.counter().wait(0, 1, RegionWaitCmp::EQ, kL2TimeoutNs, observed)) return;
  }
  spsc_queue::SpscQueueEndpoint<RegionInstanceView> queue(
      binding, spsq_runtime::binding_view(binding), clock);
  if (!queue.live()) return;
  while (!queue.input().drained()) {
    spsc_queue::SpscQueueInputHandle h{};
    if (!queue.input().peek(kL2TimeoutNs, h)) return;
    if (h.opcode == SpscQueueOpcode::DATA) {
      spsc_queue::SpscQueueOutputReservation r{};
      if (!queue.output().reserve(h.payload_nbytes, kL2TimeoutNs, r)) return;
      for (uint64_t i = 0; i < h.payload_nbytes; ++i) spsc_queue::payload_data(r)[i] = spsc_queue::payload_data(h)[i] ^ kEchoMask;
      if (!queue.output().publish(r, SpscQueueOpcode::DATA)) return;
    }
    if (!queue.input().release(h)) return;
  }
}

const L2OrchHandle kEchoL2{"echo_l2", &echo_l2};

// ---- options and factory validation -------------------------------------------

TEST(Orchestrator, CreateRejectsUnusableOptions) {
  SpscQueueError e;
  OrchestratorOptions o;
  o.worker_count = 0;
  EXPECT_FALSE(Orchestrator::create(o, &e));
  EXPECT_EQ(e.kind, SpscQueueErrorKind::BAD_ARGUMENT);
  EXPECT_STREQ(e.message, "an orchestrator needs at least one chip worker");
  o.worker_count = 2;
  o.session_bits = {1};
  EXPECT_FALSE(Orchestrator::create(o, &e));
  EXPECT_STREQ(e.message, "1 session bit values for 2 workers");
  o.session_bits = {};
  o.clock = spsc_queue::MonotonicClock{};
  EXPECT_FALSE(Orchestrator::create(o, &e));
  EXPECT_STREQ(e.message, "no monotonic clock for the L3 queues");
}

TEST(Orchestrator, QueueFactoryValidatesEveryArgumentBeforeAllocating) {
  OrchestratorOptions o;
  o.worker_count = 2;
  o.max_region_bytes = 1 << 20;
  SpscQueueError e;
  auto orch = Orchestrator::create(o, &e);
  ASSERT_TRUE(orch);
  struct Case {
    uint32_t worker;
    uint64_t depth, in, out;
    const char* text;
  };
  const Case cases[] = {
      {2, 4, 64, 64, "worker_id 2 out of range: 2 chip worker(s)"},
      {0, 0, 64, 64, "depth is zero"},
      {0, 3, 64, 64, "depth is not a power of two"},
      {0, uint64_t{1} << 31, 64, 64, "depth exceeds 2^30"},
      {0, 4, 0, 64, "input arena is zero bytes"},
      {0, 4, 100, 64, "input arena is not a multiple of 64"},
      {1, 4, 64, 0, "output arena is zero bytes"},
      {1, 4, 64, 65, "output arena is not a multiple of 64"},
      {0, 4, ~uint64_t{0} - 63, 64, "layout size overflows 64 bits"},
      {0, 4, 1 << 20, 64, "allocates at most 1048576 bytes per RegionInstance"},
  };
  for (const Case& c : cases) {
    EXPECT_FALSE(orch->create_worker_chip_queue(c.worker, c.depth, c.in, c.out, &e));
    EXPECT_EQ(e.kind, SpscQueueErrorKind::BAD_ARGUMENT) << c.text;
    EXPECT_NE(std::string(e.message).find(c.text), std::string::npos)
        << "want '" << c.text << "' in: " << e.message;
  }
  EXPECT_EQ(orch->ledger().materialized(), 0u);  // nothing was allocated
  // ...and no transaction id was spent.
  auto q = orch->create_worker_chip_queue(0, 4, 64, 64, &e);
  ASSERT_TRUE(q) << e.message;
  EXPECT_EQ(q->chip_task_arg_scalars()[2], 1u);
}

TEST(Orchestrator, SessionBitsArePerWorkerIncarnationAndMayBeZero) {
  auto fixed = make_orch(ChipWorkerMode::kThread, 2, {0, 0xfeedfacecafebeefull});
  SpscQueueError e;
  auto q0 = fixed->create_worker_chip_queue(0, 2, 64, 64, &e);
  auto q1 = fixed->create_worker_chip_queue(1, 2, 64, 64, &e);
  ASSERT_TRUE(q0 && q1);
  EXPECT_EQ(q0->chip_task_arg_scalars()[1], 0u);
  EXPECT_EQ(q1->chip_task_arg_scalars()[1], 0xfeedfacecafebeefull);
  EXPECT_TRUE(q0->live());  // zero session bits are a valid identity

  auto first = make_orch(ChipWorkerMode::kThread, 2);
  auto second = make_orch(ChipWorkerMode::kThread, 1);
  EXPECT_NE(first->session_bits(0), first->session_bits(1));
  EXPECT_NE(first->session_bits(0), second->session_bits(0));
}

TEST(Orchestrator, PrimitiveRegionStaysAvailableOnItsOwn) {
  auto orch = make_orch(ChipWorkerMode::kThread);
  SpscQueueError e;
  EXPECT_FALSE(orch->create_worker_chip_region(0, 0, 64, &e));
  EXPECT_NE(std::string(e.message).find("payload must be nonzero"), std::string::npos);
  EXPECT_FALSE(orch->create_worker_chip_region(0, 64, 100, &e));
  EXPECT_FALSE(orch->create_worker_chip_region(5, 64, 64, &e));
  EXPECT_NE(std::string(e.message).find("worker_id 5 out of range"), std::string::npos);
  EXPECT_EQ(orch->ledger().materialized(), 0u);
  auto r = orch->create_worker_chip_region(0, 1000, 128, &e);
  ASSERT_TRUE(r) << e.message;
  EXPECT_EQ(r->payload().logical_bytes, 1000u);
  EXPECT_EQ(r->counter().logical_bytes, 128u);
  EXPECT_EQ(r->counter().base % 64, 0u);
  EXPECT_EQ(r->id().worker_id, 0u);
  r->free();
  EXPECT_EQ(orch->ledger().live(), 0u);
}

TEST(Orchestrator, SubmitRefusesBadCalls) {
  auto orch = make_orch(ChipWorkerMode::kThread);
  SpscQueueError e;
  EXPECT_FALSE(orch->submit_next_level(kEchoL2, TaskArgs{}, ChipCallConfig{}, 1, &e));
  EXPECT_NE(std::string(e.message).find("worker_id 1 out of range"), std::string::npos);
  EXPECT_FALSE(orch->submit_next_level({"none", nullptr}, TaskArgs{}, ChipCallConfig{}, 0, &e));
  EXPECT_STREQ(e.message, "L2 handle 'none' has no orchestration function");
  EXPECT_FALSE(orch->submit_next_level(kEchoL2, TaskArgs{}, ChipCallConfig{0}, 0, &e));
  EXPECT_STREQ(e.message, "ChipCallConfig.block_dim must be at least 1");
  EXPECT_EQ(orch->worker(0).run().tasks_completed, 0u);
}

TEST(SpscQueueRegionTemplate, FailedProjectionClosesTheInstance) {
  spsc_queue::SpscQueueLayout layout{};
  ASSERT_TRUE(spsc_queue::SpscQueueLayout::create(4, 64, 64, &layout));
  auto ledger = std::make_shared<RegionLedger>();
  SpscQueueError e;
  // No clock: the queue cannot be projected.
  const SpscQueueRegionTemplate no_clock(layout, spsc_queue::MonotonicClock{});
  EXPECT_FALSE(materialize_bind_project(no_clock, RegionInstanceId{0, 0x77, 5}, ledger, &e));
  EXPECT_EQ(e.kind, SpscQueueErrorKind::BAD_ARGUMENT);
  EXPECT_STREQ(e.message, "no monotonic clock [session 0x0000000000000077, transaction 5]");
  EXPECT_EQ(e.transaction_id, 5u);
  EXPECT_EQ(e.session_instance_id_bits, 0x77u);
  EXPECT_EQ(ledger->materialized(), 1u);
  EXPECT_EQ(ledger->live(), 0u);  // closed again
}

TEST(SpscQueueRegionTemplate, BindRefusesAnInstanceWithoutTheLayout) {
  spsc_queue::SpscQueueLayout layout{};
  ASSERT_TRUE(spsc_queue::SpscQueueLayout::create(4, 64, 64, &layout));
  auto ledger = std::make_shared<RegionLedger>();
  std::string why;
  auto small = RegionInstance::materialize({0, 1, 9}, layout.payload_bytes - 64, 384, ledger, &why);
  ASSERT_TRUE(small) << why;
  const SpscQueueRegionTemplate t(layout, steady_monotonic_clock());
  spsc_queue::SpscQueueEndpointBinding b{};
  SpscQueueError e;
  EXPECT_FALSE(t.bind(*small, &b, &e));
  EXPECT_EQ(e.kind, SpscQueueErrorKind::BAD_BINDING);
  EXPECT_EQ(e.transaction_id, 9u);
  EXPECT_NE(std::string(e.message).find("do not carry the layout"), std::string::npos);
  auto right = RegionInstance::materialize({0, 1, 10}, layout.payload_bytes, 384, ledger, &why);
  ASSERT_TRUE(t.bind(*right, &b, &e));
  EXPECT_EQ(b.magic_version, spsc_queue::kSpscQueueMagicVersion);
  EXPECT_EQ(b.payload_base, right->payload().base);
  EXPECT_EQ(b.counter_base, right->counter().base);
  EXPECT_EQ(b.transaction_id, 10u);
  EXPECT_EQ(b.depth, 4u);
}

// ---- end to end, both modes -----------------------------------------------------

class EndToEnd : public ::testing::TestWithParam<ChipWorkerMode> {};

std::vector<uint8_t> masked(const std::vector<uint8_t>& v) {
  std::vector<uint8_t> out(v);
  for (auto& b : out) b ^= kEchoMask;
  return out;
}

TEST_P(EndToEnd, DuplexWithAPersistentL2TaskThenStopAndDrain) {
  auto orch = make_orch(GetParam());
  SpscQueueError e;
  auto q = orch->create_worker_chip_queue(0, 4, 256, 256, &e);
  ASSERT_TRUE(q) << e.message;
  ASSERT_TRUE(orch->submit_next_level(kEchoL2, args_for(*q), ChipCallConfig{}, 0, &e))
      << e.message;

  std::vector<std::vector<uint8_t>> sent;
  for (uint64_t n : {0, 1, 63, 256, 100, 200, 0, 256, 17, 5}) {
    std::vector<uint8_t> m(n);
    for (uint64_t i = 0; i < n; ++i) m[i] = static_cast<uint8_t>(n + 3 * i);
    sent.push_back(m);
  }
  // L3 never blocks on input while outputs are pending: L2 may itself be
  // waiting for output room, which only L3's dequeue can make.
  size_t next_in = 0, next_out = 0;
  while (next_out < sent.size()) {
    while (next_in < sent.size()) {
      const auto& m = sent[next_in];
      const void* p = m.empty() ? nullptr : m.data();
      const Status st = next_in == next_out ? q->input().enqueue(p, m.size(), kL3Timeout)
                                            : q->input().try_enqueue(p, m.size());
      if (st == Status::WOULD_BLOCK) break;
      ASSERT_EQ(st, Status::OK) << q->last_error().message;
      ++next_in;
    }
    std::vector<uint8_t> buf(256);
    WorkerChipMessage msg{};
    ASSERT_EQ(q->output().dequeue_into(buf.data(), buf.size(), kL3Timeout, &msg), Status::OK)
        << q->last_error().message;
    EXPECT_EQ(msg.seq, next_out + 1);
    EXPECT_EQ(static_cast<uint64_t>(msg.opcode), static_cast<uint64_t>(SpscQueueOpcode::DATA));
    buf.resize(msg.payload_nbytes);
    EXPECT_EQ(buf, masked(sent[next_out])) << "message " << next_out;
    ++next_out;
  }
  ASSERT_EQ(q->input().request_stop(kL3Timeout), Status::OK);
  const WorkerRunReport report = orch->worker(0).run();
  EXPECT_TRUE(report.ok()) << report.first_failure;
  EXPECT_EQ(report.tasks_completed, 1u);
  // The L2 task drained the STOP: the input head caught up with the tail.
  const auto* counters = reinterpret_cast<const int32_t*>(q->region().counter().base);
  EXPECT_EQ(counters[0], 11);       // input tail: 10 DATA + STOP
  EXPECT_EQ(counters[64 / 4], 11);  // input head
  EXPECT_EQ(counters[256 / 4], 0);  // no abort either way
  EXPECT_EQ(counters[320 / 4], 0);
  WorkerChipMessage none{};
  EXPECT_EQ(q->output().try_peek(&none), Status::WOULD_BLOCK);
  EXPECT_TRUE(q->live());
}

TEST_P(EndToEnd, FreeBeforeL2ExitKeepsMemoryUntilTheTaskReturned) {
  auto orch = make_orch(GetParam());
  SpscQueueError e;
  auto gate = orch->create_worker_chip_region(0, 64, 64, &e);
  auto q = orch->create_worker_chip_queue(0, 4, 64, 64, &e);
  ASSERT_TRUE(gate && q) << e.message;
  const uint64_t txn = q->binding().transaction_id;
  TaskArgs args = args_for(*q);
  args.add_scalar(gate->counter().base);
  args.add_scalar(gate->counter().logical_bytes);
  ASSERT_TRUE(orch->submit_next_level(kEchoL2, args, ChipCallConfig{}, 0, &e)) << e.message;
  const uint8_t one = 7;
  ASSERT_EQ(q->input().enqueue(&one, 1, kL3Timeout), Status::OK);
  ASSERT_EQ(q->input().request_stop(kL3Timeout), Status::OK);
  int32_t* gate_slot = reinterpret_cast<int32_t*>(gate->counter().base);
  q->free();
  // L3 let go, but the L2 task (held at the gate) still pins the instance.
  EXPECT_TRUE(q->region().released());
  EXPECT_TRUE(orch->ledger().is_live(0, txn));
  __atomic_store_n(gate_slot, 1, __ATOMIC_RELEASE);
  const WorkerRunReport report = orch->worker(0).run();
  EXPECT_TRUE(report.ok()) << report.first_failure;
  EXPECT_EQ(report.tasks_completed, 1u);
  EXPECT_FALSE(orch->ledger().is_live(0, txn));  // reclaimed after the drain
  EXPECT_TRUE(orch->ledger().is_live(0, gate->id().transaction_id));
}

TEST_P(EndToEnd, FreeAfterL2ExitReclaimsAtOnce) {
  auto orch = make_orch(GetParam());
  SpscQueueError e;
  auto q = orch->create_worker_chip_queue(0, 2, 64, 64, &e);
  ASSERT_TRUE(q) << e.message;
  const uint64_t txn = q->binding().transaction_id;
  ASSERT_TRUE(orch->submit_next_level(kEchoL2, args_for(*q), ChipCallConfig{}, 0, &e));
  const std::vector<uint8_t> m = {1, 2, 3};
  ASSERT_EQ(q->input().enqueue(m.data(), 3, kL3Timeout), Status::OK);
  ASSERT_EQ(q->input().request_stop(kL3Timeout), Status::OK);
  EXPECT_TRUE(orch->worker(0).run().ok());
  // L2 returned; L3 still holds the queue and may read what L2 published.
  EXPECT_TRUE(orch->ledger().is_live(0, txn));
  std::vector<uint8_t> buf(3);
  ASSERT_EQ(q->output().try_dequeue_into(buf.data(), 3), Status::OK);
  EXPECT_EQ(buf, masked(m));
  q->free();
  EXPECT_FALSE(orch->ledger().is_live(0, txn));
  EXPECT_EQ(orch->ledger().live(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Modes, EndToEnd,
                         ::testing::Values(ChipWorkerMode::kThread, ChipWorkerMode::kProcess),
                         [](const ::testing::TestParamInfo<ChipWorkerMode>& info) {
                           return std::string(chip_worker_mode_name(info.param));
                         });

}  // namespace
}  // namespace spsq_runtime
