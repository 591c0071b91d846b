// Spec section 1, "Create And Bind", against the reference runtime
// simulation: the compatibility factory, transaction ids, TaskArgs,
// queue.region and its authority, the stop call, and free().
#include <cstdint>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "model/wire_model.h"
#include "conformance/runtime/runtime_fixture.h"

namespace spsq_conf {
namespace runtime_suite {
namespace {

TEST(RuntimeCreateBind, FactoryMaterializesBindsAndProjectsOneInstance) {
  SPSQ_CLAUSES("S1.CREATE.1", "S1.FACTORY.3", "S1.FACTORY.4", "S1.FACTORY.5");
  auto orch = MakeOrch(2);
  SpscQueueError e;
  auto q = orch->create_worker_chip_queue(1, 4, 1 << 20, 1 << 20, &e);
  ASSERT_NE(q, nullptr) << e.message;
  EXPECT_TRUE(q->live());
  EXPECT_EQ(orch->ledger().materialized(), 1u);
  EXPECT_EQ(orch->ledger().live(), 1u);
  EXPECT_EQ(q->region().id().worker_id, 1u) << "bound to the worker it was created for";
  // The binding describes exactly that instance.
  spsc_queue::SpscQueueEndpointBinding b{};
  const auto s = q->chip_task_arg_scalars();
  ASSERT_TRUE(spsc_queue::decode_endpoint_binding(s.data(), s.size(), &b));
  EXPECT_EQ(b.payload_base, q->region().payload().base);
  EXPECT_EQ(b.payload_bytes, q->region().payload().logical_bytes);
  EXPECT_EQ(b.counter_base, q->region().counter().base);
  EXPECT_EQ(b.counter_bytes, wire::kCounterBytes);
  wire::Layout l;
  ASSERT_TRUE(wire::compute_layout(4, 1 << 20, 1 << 20, &l));
  EXPECT_EQ(b.payload_bytes, l.payload_bytes);
  EXPECT_EQ(b.transaction_id, q->region().id().transaction_id);
  auto q2 = orch->create_worker_chip_queue(1, 4, 1 << 20, 1 << 20, &e);
  ASSERT_NE(q2, nullptr);
  EXPECT_EQ(orch->ledger().materialized(), 2u) << "one instance per queue";
}

// The binding is the instance's and the request's, field by field, in the
// spec's scalar order: unequal arenas (so a swap shows) and session bits the
// orchestrator was given (nonzero, so bits dropped to zero show; zero is
// allowed only where the instance's own bits are zero).
TEST(RuntimeCreateBind, BindingCarriesTheInstanceIdentityAndTheRequestedSizes) {
  SPSQ_CLAUSES("S1.FACTORY.4");
  constexpr uint64_t kSessionBits = 0x5e55'1011'0000'00a7ull;
  OrchestratorOptions o;
  o.worker_count = 1;
  o.session_bits = {kSessionBits};
  SpscQueueError e;
  auto orch = Orchestrator::create(o, &e);
  ASSERT_NE(orch, nullptr) << e.message;
  auto q = orch->create_worker_chip_queue(0, 8, 1 << 12, 1 << 16, &e);
  ASSERT_NE(q, nullptr) << e.message;
  const auto s = q->chip_task_arg_scalars();
  ASSERT_EQ(s.size(), 10u);
  EXPECT_EQ(s[1], q->region().id().session_instance_id_bits) << "session_instance_id_bits";
  EXPECT_EQ(s[1], kSessionBits) << "session_instance_id_bits of the orchestrator's worker";
  EXPECT_EQ(s[2], q->region().id().transaction_id) << "transaction_id";
  EXPECT_EQ(s[7], 8u) << "depth";
  EXPECT_EQ(s[8], uint64_t{1} << 12) << "input_arena_bytes as requested";
  EXPECT_EQ(s[9], uint64_t{1} << 16) << "output_arena_bytes as requested";
  wire::Layout l;
  ASSERT_TRUE(wire::compute_layout(8, 1 << 12, 1 << 16, &l));
  EXPECT_EQ(s[4], l.payload_bytes) << "payload_bytes";
}

// The factory must not go through create_worker_chip_region(). The ledger
// alone cannot tell: a factory that did, and bound the queue onto that
// region's instance, still books one instance per queue. The orchestrator's
// call counts see every entry into create_worker_chip_region().
TEST(RuntimeCreateBind, FactoryCallsNoCreateWorkerChipRegion) {
  SPSQ_CLAUSES("S1.FACTORY.2");
  auto orch = MakeOrch(2);
  SpscQueueError e;
  // The probe sees direct calls, refused ones too.
  auto r = orch->create_worker_chip_region(0, 4096, 64, &e);
  ASSERT_NE(r, nullptr) << e.message;
  EXPECT_EQ(orch->create_worker_chip_region(7, 4096, 64, &e), nullptr) << "no worker 7";
  ASSERT_EQ(orch->call_counts().create_worker_chip_region, 2u);
  struct Shape {
    uint32_t worker;
    uint64_t depth, in_arena, out_arena;
    bool valid;
  };
  const Shape shapes[] = {{0, 4, 256, 256, true},   {1, 1, 64, 64, true},
                          {0, 16, 4096, 64, true},  {1, 4, 1 << 20, 1 << 20, true},
                          {0, 0, 256, 256, false},  {9, 4, 256, 256, false}};
  std::vector<std::unique_ptr<spsc_queue::WorkerChipQueue>> queues;
  for (const Shape& sh : shapes) {
    SCOPED_TRACE("worker " + std::to_string(sh.worker) + " depth " + std::to_string(sh.depth));
    const spsq_runtime::OrchestratorCallCounts before = orch->call_counts();
    const uint64_t booked = orch->ledger().materialized();
    auto q = orch->create_worker_chip_queue(sh.worker, sh.depth, sh.in_arena, sh.out_arena, &e);
    const spsq_runtime::OrchestratorCallCounts after = orch->call_counts();
    EXPECT_EQ(q != nullptr, sh.valid) << e.message;
    EXPECT_EQ(after.create_worker_chip_queue, before.create_worker_chip_queue + 1);
    EXPECT_EQ(after.create_worker_chip_region, before.create_worker_chip_region)
        << "create_worker_chip_queue called create_worker_chip_region()";
    EXPECT_EQ(orch->ledger().materialized(), booked + (sh.valid ? 1 : 0));
    if (q) queues.push_back(std::move(q));
  }
  EXPECT_EQ(orch->call_counts().create_worker_chip_region, 2u);
}

// The spec asks for nonzero ids; the catalogue's reading of "allocation
// identity": ids start at 1 on each worker and name one instance each, queue
// or primitive region.
TEST(RuntimeCreateBind, TransactionIdsStartAtOneAndAreNeverZero) {
  SPSQ_CLAUSES("S1.TXN.2/starts-at-one", "S1.TXN.2/per-worker", "S1.TXN.2/with-regions");
  auto orch = MakeOrch(2);
  SpscQueueError e;
  std::vector<std::unique_ptr<spsc_queue::WorkerChipQueue>> keep;
  for (uint32_t w = 0; w < 2; ++w) {
    for (uint64_t want = 1; want <= 3; ++want) {
      auto q = orch->create_worker_chip_queue(w, 1, 64, 64, &e);
      ASSERT_NE(q, nullptr) << e.message;
      EXPECT_EQ(q->binding().transaction_id, want) << "worker " << w;
      EXPECT_NE(q->binding().transaction_id, 0u);
      keep.push_back(std::move(q));
    }
  }
  // Primitive regions between queues: every id nonzero, none issued twice.
  std::set<uint64_t> seen;
  for (const auto& q : keep) {
    if (q->region().id().worker_id == 0) seen.insert(q->binding().transaction_id);
  }
  std::vector<std::unique_ptr<spsq_runtime::WorkerChipOrchRegion>> regions;
  for (int i = 0; i < 4; ++i) {
    auto r = orch->create_worker_chip_region(0, 128, 64, &e);
    ASSERT_NE(r, nullptr) << e.message;
    EXPECT_NE(r->id().transaction_id, 0u);
    EXPECT_TRUE(seen.insert(r->id().transaction_id).second) << "id issued twice";
    auto q = orch->create_worker_chip_queue(0, 1, 64, 64, &e);
    ASSERT_NE(q, nullptr) << e.message;
    EXPECT_NE(q->binding().transaction_id, 0u);
    EXPECT_TRUE(seen.insert(q->binding().transaction_id).second) << "id issued twice";
    regions.push_back(std::move(r));
    keep.push_back(std::move(q));
  }
}

TEST(RuntimeCreateBind, MaxInflightIsNotPartOfQueueCreation) {
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

TEST(RuntimeCreateBind, TaskArgsCarryTheBindingFromOffsetZero) {
  SPSQ_CLAUSES("S1.ARGS.1/thread", "S1.ARGS.1/process");
  SPSQ_EXERCISES("S2.EXIT.1");
  for (ChipWorkerMode mode : {ChipWorkerMode::kThread, ChipWorkerMode::kProcess}) {
    SCOPED_TRACE(spsq_runtime::chip_worker_mode_name(mode));
    auto orch = MakeOrch(1, mode);
    SpscQueueError e;
    auto q = orch->create_worker_chip_queue(0, 4, 4096, 4096, &e);
    ASSERT_NE(q, nullptr);
    ASSERT_TRUE(SubmitEcho(orch.get(), q.get()));
    EXPECT_EQ(RoundTrip(q.get(), "over the wire"), "over the wire")
        << "L2 decoded the binding from TaskArgs scalars 0..9";
    ASSERT_EQ(q->input().request_stop(kBound), WorkerChipQueueStatus::OK);
    EXPECT_TRUE(orch->worker(0).run().ok());
  }
}

TEST(RuntimeCreateBind, QueueRegionProjectsTheSameInstance) {
  SPSQ_CLAUSES("S1.REGION.1/payload", "S1.REGION.1/counter", "S1.REGION.1/same-memory");
  auto orch = MakeOrch();
  SpscQueueError e;
  auto q = orch->create_worker_chip_queue(0, 2, 64, 64, &e);
  ASSERT_NE(q, nullptr);
  const spsc_queue::SpscQueueEndpointBinding& b = q->binding();
  EXPECT_EQ(q->region().payload().base, b.payload_base);
  EXPECT_EQ(q->region().payload().logical_bytes, b.payload_bytes);
  EXPECT_EQ(q->region().counter().base, b.counter_base);
  EXPECT_EQ(q->region().counter().logical_bytes, b.counter_bytes);
  // What L2 publishes through the queue is what the region shows.
  ASSERT_TRUE(SubmitEcho(orch.get(), q.get()));
  const std::string msg = "seen through the region";
  ASSERT_EQ(q->input().enqueue(msg.data(), msg.size(), kBound), WorkerChipQueueStatus::OK);
  spsc_queue::WorkerChipMessage m{};
  ASSERT_EQ(q->output().peek(kBound, &m), WorkerChipQueueStatus::OK) << q->last_error().message;
  ASSERT_EQ(m.payload_nbytes, msg.size());
  const uint8_t* payload = reinterpret_cast<const uint8_t*>(q->region().payload().base);
  EXPECT_EQ(std::memcmp(payload + m.payload_offset, msg.data(), msg.size()), 0);
  int32_t tail = 0;
  std::memcpy(&tail, reinterpret_cast<const uint8_t*>(q->region().counter().base) +
                         wire::kOutputTail, sizeof(tail));
  EXPECT_EQ(tail, 1) << "the region's COUNTER part holds the queue's output tail";
  ASSERT_EQ(q->output().release(m), WorkerChipQueueStatus::OK);
  ASSERT_EQ(q->input().request_stop(kBound), WorkerChipQueueStatus::OK);
  EXPECT_TRUE(orch->worker(0).run().ok());
}

// Layout, publication, failure and lifecycle stay with the queue whatever is
// done through queue.region: reading it, writing bytes the queue has not
// published yet, releasing it.
TEST(RuntimeCreateBind, QueueRegionHasNoQueueAuthority) {
  SPSQ_CLAUSES("S1.REGION.2/read", "S1.REGION.2/write", "S1.REGION.2/release");
  auto orch = MakeOrch();
  SpscQueueError e;
  auto q = orch->create_worker_chip_queue(0, 2, 64, 64, &e);
  ASSERT_NE(q, nullptr);
  const auto before = q->layout();
  const auto scalars = q->chip_task_arg_scalars();
  const uint64_t txn = q->binding().transaction_id;
  auto unchanged = [&](const char* what) {
    EXPECT_TRUE(q->layout() == before) << what << ": layout changed";
    EXPECT_TRUE(q->chip_task_arg_scalars() == scalars) << what << ": binding changed";
    EXPECT_TRUE(q->live()) << what << ": " << q->error().message;
    EXPECT_EQ(q->error().kind, spsc_queue::SpscQueueErrorKind::NONE) << what;
    EXPECT_FALSE(q->freed()) << what;
  };
  // read
  uint8_t* payload = reinterpret_cast<uint8_t*>(q->region().payload().base);
  std::vector<uint8_t> copy(payload, payload + q->region().payload().logical_bytes);
  unchanged("read");
  // write: the first input slot and the whole input arena, before any input.
  std::memset(payload + before.input_desc_offset, 0xA5, wire::kDescriptorBytes);
  std::memset(payload + before.input_arena_offset, 0x5A, before.input_arena_bytes);
  unchanged("write");
  ASSERT_TRUE(SubmitEcho(orch.get(), q.get()));
  EXPECT_EQ(RoundTrip(q.get(), "the queue's bytes"), "the queue's bytes")
      << "L2 read what the region wrote, not what the queue published";
  // release
  q->region().free();
  EXPECT_TRUE(q->region().released());
  unchanged("release");
  EXPECT_TRUE(orch->ledger().is_live(0, txn)) << "releasing queue.region freed the queue's memory";
  EXPECT_EQ(RoundTrip(q.get(), "still the queue's"), "still the queue's");
  ASSERT_EQ(q->input().request_stop(kBound), WorkerChipQueueStatus::OK);
  EXPECT_TRUE(orch->worker(0).run().ok());
  q->free();
  EXPECT_TRUE(q->freed()) << "the queue keeps its own lifecycle";
  EXPECT_FALSE(orch->ledger().is_live(0, txn));
}

TEST(RuntimeCreateBind, PrimitiveRegionsStayAvailable) {
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

// The spec spells the stop calls on the queue: queue.request_stop(timeout)
// and queue.try_request_stop(). A queue without them fails here (and still
// compiles: the input's spelling is then used to drive the rest). Both calls
// publish a STOP the L2 task drains; request_stop returns once STOP is
// published, while L2 is still held and has consumed nothing.
template <class Q, class = void>
struct HasQueueRequestStop : std::false_type {};
template <class Q>
struct HasQueueRequestStop<Q, std::void_t<decltype(std::declval<Q&>().request_stop(kBound)),
                                          decltype(std::declval<Q&>().try_request_stop())>>
    : std::true_type {};

template <class Q>
WorkerChipQueueStatus RequestStop(Q* q, bool blocking) {
  if constexpr (HasQueueRequestStop<Q>::value) {
    return blocking ? q->request_stop(kBound) : q->try_request_stop();
  } else {
    return blocking ? q->input().request_stop(kBound) : q->input().try_request_stop();
  }
}

TEST(RuntimeCreateBind, StopCallsAreTheQueuesAndReachTheL2Task) {
  SPSQ_CLAUSES("S1.STOPAPI.1/request-stop", "S1.STOPAPI.1/try-request-stop", "S4.STOP.5");
  using Q = spsc_queue::WorkerChipQueue;
  EXPECT_TRUE(HasQueueRequestStop<Q>::value)
      << "no queue.request_stop(timeout) / queue.try_request_stop()";
  for (bool blocking : {true, false}) {
    SCOPED_TRACE(blocking ? "request_stop(timeout)" : "try_request_stop()");
    auto orch = MakeOrch();
    SpscQueueError e;
    auto q = orch->create_worker_chip_queue(0, 4, 256, 256, &e);
    ASSERT_NE(q, nullptr);
    // L2 binds but consumes nothing until released; released on every exit
    // path before `orch` drains the worker.
    struct Hold {
      Hold() { g_l2_hold = true; }
      ~Hold() { g_l2_hold = false; }
    } hold;
    ASSERT_TRUE(SubmitEcho(orch.get(), q.get()));
    const uint64_t published = q->input().published();
    ASSERT_EQ(RequestStop(q.get(), blocking), WorkerChipQueueStatus::OK)
        << q->last_error().message;
    EXPECT_TRUE(q->input().stop_published());
    EXPECT_EQ(q->input().published(), published + 1) << "exactly one STOP";
    EXPECT_EQ(orch->worker(0).pending(), 1u) << "the stop call waited for L2";
    g_l2_hold = false;
    const auto report = orch->worker(0).run();
    EXPECT_EQ(report.tasks_completed, 1u) << "the L2 task saw the STOP and returned";
    EXPECT_TRUE(report.ok()) << report.first_failure;
    EXPECT_TRUE(q->live()) << "a graceful stop is not a failure";
  }
}

TEST(RuntimeCreateBind, FreeIsLogicalAndCleanupFollowsTheL2Drain) {
  SPSQ_CLAUSES("S1.FREE.1", "S1.FREE.2", "S1.FREE.3", "S1.FREE.4");
  SPSQ_EXERCISES("S2.EXIT.1");
  auto orch = MakeOrch();
  SpscQueueError e;
  auto q = orch->create_worker_chip_queue(0, 4, 256, 256, &e);
  ASSERT_NE(q, nullptr);
  const uint64_t txn = q->binding().transaction_id;
  g_l2_hold = true;  // L2 bound and running, not yet consuming
  ASSERT_TRUE(SubmitEcho(orch.get(), q.get()));
  ASSERT_EQ(q->input().request_stop(kBound), WorkerChipQueueStatus::OK);
  q->free();
  EXPECT_TRUE(q->freed());
  EXPECT_TRUE(q->region().released()) << "free() marks the projected region released";
  EXPECT_EQ(q->input().try_enqueue(nullptr, 0), WorkerChipQueueStatus::REJECTED)
      << "the L3 handle is released";
  EXPECT_TRUE(orch->ledger().is_live(0, txn)) << "memory freed while L2 still runs";
  g_l2_hold = false;
  const auto report = orch->worker(0).run();
  EXPECT_EQ(report.tasks_completed, 1u);
  EXPECT_FALSE(orch->ledger().is_live(0, txn)) << "memory kept after L2 drained";
  EXPECT_EQ(orch->ledger().reclaimed(), 1u);
}

}  // namespace
}  // namespace runtime_suite
}  // namespace spsq_conf
