// Interop: the L2 endpoint under test runs as a persistent L2 task on the
// reference runtime (chip worker thread, and a forked child that shares only
// region memory) and talks to the reference L3 queue. L2 echoes every input
// reversed; L3 checks every byte and stops the task. Real threads and clock;
// timeouts only bound failures.
#include <chrono>
#include <cstring>
#include <vector>

#include "conformance/l2/l2_fixture.h"
#include "runtime/orchestrator.h"

namespace spsq_conf {
namespace {

constexpr uint64_t kWaitNs = 20000000000ull;  // 20 s: a failure bound only
constexpr std::chrono::nanoseconds kBound = std::chrono::seconds(20);

uint64_t SteadyNs() { return RegionInstanceView::steady_now_ns(); }

template <uint64_t N>
void EchoTask(const spsq_runtime::TaskArgs& orch_args, const spsq_runtime::ChipCallConfig&) {
  using Ep = SPSQ_CERT_ENDPOINT<RegionInstanceView, N>;
  using A = EndpointAccess<Ep>;
  uint64_t scalars[A::kScalarCount];
  for (size_t i = 0; i < A::kScalarCount; ++i) {
    scalars[i] = orch_args.scalar(static_cast<int32_t>(i));
  }
  typename A::Binding binding{};
  if (!A::decode(scalars, A::kScalarCount, &binding)) return;
  RegionInstanceView view(RegionPartLocalSpan{binding.payload_base, binding.payload_bytes},
                          RegionPartLocalSpan{binding.counter_base, binding.counter_bytes});
  Ep queue(binding, std::move(view), A::clock(&SteadyNs));
  if (!queue.live()) return;
  // Hold up to N inputs, then answer them newest first (out-of-order release).
  std::vector<typename A::Handle> held;
  for (;;) {
    typename A::Handle h{};
    if (!queue.input().peek(kWaitNs, h)) return;
    const bool stop = A::opcode(h) == wire::kStop;
    if (!stop) held.push_back(h);
    if (stop || held.size() == N) {
      for (size_t i = held.size(); i-- > 0;) {
        const uint64_t n = A::nbytes(held[i]);
        typename A::Reservation r{};
        if (!queue.output().reserve(n, kWaitNs, r)) return;
        const uint8_t* in = A::payload(held[i]);
        uint8_t* out = A::payload(r);
        for (uint64_t k = 0; k < n; ++k) out[k] = in[n - 1 - k];
        if (!queue.output().publish(r, A::opcode_value(wire::kData))) return;
      }
      for (size_t i = held.size(); i-- > 0;) {
        if (!queue.input().release(held[i])) return;
      }
      held.clear();
    }
    if (stop) {
      queue.input().release(h);
      return;  // the spec: return only after drained()
    }
  }
}

std::vector<uint8_t> Payload(uint64_t i) {
  std::vector<uint8_t> v((i * 53) % 3000);
  for (size_t k = 0; k < v.size(); ++k) v[k] = static_cast<uint8_t>(i * 13 + k);
  return v;
}

class Interop : public ::testing::TestWithParam<spsq_runtime::ChipWorkerMode> {};

TEST_P(Interop, DuplexWithTheReferenceL3OverTheRuntime) {
  SPSQ_CLAUSES("S0.PURPOSE.1", "S0.USE.1", "S1.L2DECODE.1", "S1.L2DECODE.5", "S4.L2IN.5",
               "S4.STOP.10");
  spsq_runtime::OrchestratorOptions o;
  o.mode = GetParam();
  spsc_queue::SpscQueueError e;
  auto orch = spsq_runtime::Orchestrator::create(o, &e);
  ASSERT_NE(orch, nullptr) << e.message;
  const uint64_t depth = kN < 4 ? 4 : kN * 2;
  // N messages of up to 3000 bytes may be outstanding, plus a skipped arena tail.
  const uint64_t arena = 4096 * (kN + 2);
  auto q = orch->create_worker_chip_queue(0, depth, arena, arena, &e);
  ASSERT_NE(q, nullptr) << e.message;
  spsq_runtime::TaskArgs args;
  for (uint64_t v : q->chip_task_arg_scalars()) args.add_scalar(v);
  const spsq_runtime::L2OrchHandle task{"echo", &EchoTask<kN>};
  ASSERT_TRUE(orch->submit_next_level(task, args, spsq_runtime::ChipCallConfig{}, 0, &e))
      << e.message;
  const uint64_t kMessages = 40 * kN;
  uint64_t received = 0;
  std::vector<uint8_t> buf(arena);
  for (uint64_t batch = 0; batch < kMessages / kN; ++batch) {
    for (uint64_t i = 0; i < kN; ++i) {
      const auto v = Payload(batch * kN + i);
      ASSERT_EQ(q->input().enqueue(v.data(), v.size(), kBound),
                spsc_queue::WorkerChipQueueStatus::OK) << q->last_error().message;
    }
    for (uint64_t i = kN; i-- > 0;) {  // L2 answers newest first
      spsc_queue::WorkerChipMessage m{};
      ASSERT_EQ(q->output().dequeue_into(buf.data(), buf.size(), kBound, &m),
                spsc_queue::WorkerChipQueueStatus::OK) << q->last_error().message;
      const auto want = Payload(batch * kN + i);
      ASSERT_EQ(m.payload_nbytes, want.size());
      ASSERT_TRUE(std::equal(want.rbegin(), want.rend(), buf.begin())) << "message " << received;
      EXPECT_EQ(m.seq, ++received);
    }
  }
  ASSERT_EQ(q->input().request_stop(kBound), spsc_queue::WorkerChipQueueStatus::OK);
  const spsq_runtime::WorkerRunReport report = orch->worker(0).run();
  EXPECT_EQ(report.tasks_completed, 1u) << report.first_failure;
  EXPECT_TRUE(report.ok()) << report.first_failure;
  EXPECT_TRUE(q->live()) << q->error().message;
  const RegionPartLocalSpan c = q->region().counter();
  const int32_t* flags = reinterpret_cast<const int32_t*>(c.base);
  EXPECT_EQ(flags[wire::kPeerFlag / 4], 0);
  EXPECT_EQ(flags[wire::kInitiatorFlag / 4], 0);
}

INSTANTIATE_TEST_SUITE_P(Modes, Interop,
                         ::testing::Values(spsq_runtime::ChipWorkerMode::kThread,
                                           spsq_runtime::ChipWorkerMode::kProcess),
                         [](const ::testing::TestParamInfo<spsq_runtime::ChipWorkerMode>& i) {
                           return std::string(spsq_runtime::chip_worker_mode_name(i.param));
                         });

}  // namespace
}  // namespace spsq_conf
