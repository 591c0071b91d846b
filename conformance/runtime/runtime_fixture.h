// What the runtime sections share: an orchestrator factory, the L2 side's own
// clock, and the spec's L2 snippet as a task that echoes every DATA input.
// These bind the runtime, not a queue endpoint, so they run against
// //core/runtime directly. Real threads and a real clock; timeouts only bound
// failures, nothing sleeps or measures time.
#ifndef SPSQ_CONFORMANCE_RUNTIME_RUNTIME_FIXTURE_H_
#define SPSQ_CONFORMANCE_RUNTIME_RUNTIME_FIXTURE_H_

#include <atomic>
#include <chrono>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <thread>
#include <utility>

#include "aicpu/region_instance_view.h"
#include "common/region_template.h"
#include "testkit/clauses.h"
#include "conformance/l2/endpoint_access.h"
#include "gtest/gtest.h"
#include "runtime/orchestrator.h"

namespace spsq_conf {
namespace runtime_suite {

using spsc_queue::SpscQueueError;
using spsc_queue::WorkerChipQueueStatus;
using spsq_runtime::ChipWorkerMode;
using spsq_runtime::Orchestrator;
using spsq_runtime::OrchestratorOptions;

inline constexpr std::chrono::nanoseconds kBound = std::chrono::seconds(20);  // failure bound only

inline std::unique_ptr<Orchestrator> MakeOrch(uint32_t workers = 1,
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
inline uint64_t SteadyNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// While set, the echo task is bound and live but consumes nothing.
inline std::atomic<bool> g_l2_hold{false};

// The spec's L2 steps as a task (section 1: decode TaskArgs scalars 0..9,
// bind, check live), then echo every DATA input as an output and return after
// STOP drained.
inline void EchoTask(const spsq_runtime::TaskArgs& orch_args, const spsq_runtime::ChipCallConfig&) {
  using Endpoint = spsc_queue::SpscQueueEndpoint<RegionInstanceView>;
  uint64_t scalars[spsc_queue::kSpscQueueEndpointBindingScalarCount];
  for (size_t i = 0; i < spsc_queue::kSpscQueueEndpointBindingScalarCount; ++i) {
    scalars[i] = orch_args.scalar(static_cast<int32_t>(i));
  }
  const std::unique_ptr<Endpoint> bound =
      BindEndpoint<Endpoint, RegionInstanceView>(scalars, &SteadyNs);
  if (!bound || !bound->live()) return;
  Endpoint& queue = *bound;
  while (g_l2_hold.load()) std::this_thread::yield();  // a test keeps L2 running
  // Blocking calls wait in slices up to the failure bound: the peer's abort
  // flag is sampled when a wait expires, so an L3 side that poisoned (and
  // will send no STOP) is seen within one slice, not at the bound.
  const auto within_bound = [&](auto attempt) {
    constexpr uint64_t kSliceNs = 50000000;
    for (uint64_t waited = 0; waited < static_cast<uint64_t>(kBound.count());
         waited += kSliceNs) {
      if (attempt(kSliceNs)) return true;
      if (!queue.live()) return false;  // remote abort or poison
    }
    return false;
  };
  for (;;) {
    spsc_queue::SpscQueueInputHandle h{};
    if (!within_bound([&](uint64_t ns) { return queue.input().peek(ns, h); })) return;
    if (h.opcode == spsc_queue::SpscQueueOpcode::STOP) {
      queue.input().release(h);
      return;
    }
    spsc_queue::SpscQueueOutputReservation r{};
    if (!within_bound(
            [&](uint64_t ns) { return queue.output().reserve(h.payload_nbytes, ns, r); })) {
      return;
    }
    if (h.payload_nbytes != 0) {
      std::memcpy(reinterpret_cast<void*>(r.payload.local_addr),
                  reinterpret_cast<const void*>(h.payload.local_addr), h.payload_nbytes);
    }
    queue.output().publish(r, spsc_queue::SpscQueueOpcode::DATA);
    queue.input().release(h);
  }
}

inline const spsq_runtime::L2OrchHandle kEcho{"echo", &EchoTask};

// Submits the echo task for `q` on `worker`, its binding as TaskArgs scalars.
inline bool SubmitEcho(Orchestrator* orch, spsc_queue::WorkerChipQueue* q, uint32_t worker = 0) {
  spsq_runtime::TaskArgs args;
  for (uint64_t v : q->chip_task_arg_scalars()) args.add_scalar(v);
  SpscQueueError e;
  const bool ok = orch->submit_next_level(kEcho, args, spsq_runtime::ChipCallConfig{}, worker, &e);
  EXPECT_TRUE(ok) << e.message;
  return ok;
}

// One message through the echo task: what L3 dequeued, or empty on failure.
inline std::string RoundTrip(spsc_queue::WorkerChipQueue* q, const std::string& msg) {
  if (q->input().enqueue(msg.data(), msg.size(), kBound) != WorkerChipQueueStatus::OK) {
    ADD_FAILURE() << "enqueue: " << q->last_error().message;
    return std::string();
  }
  char out[256] = {};
  spsc_queue::WorkerChipMessage m{};
  if (q->output().dequeue_into(out, sizeof(out), kBound, &m) != WorkerChipQueueStatus::OK) {
    ADD_FAILURE() << "dequeue_into: " << q->last_error().message;
    return std::string();
  }
  return std::string(out, m.payload_nbytes);
}

}  // namespace runtime_suite
}  // namespace spsq_conf

#endif  // SPSQ_CONFORMANCE_RUNTIME_RUNTIME_FIXTURE_H_
