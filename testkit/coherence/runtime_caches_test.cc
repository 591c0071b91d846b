// The runtime simulation over the non-coherent model (runtime_caches.h): where
// each side's payload lives, that bytes cross only through the views' hooks,
// and that the reference runtime carries traffic in both worker modes.
//
// L2 runs concurrently here, so blocking calls use generous timeouts on the
// steady clock; nothing asserts on wall time and nothing sleeps.
#include "testkit/coherence/runtime_caches.h"

#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "aicpu/region_instance_view.h"
#include "common/region_template.h"
#include "gtest/gtest.h"
#include "runtime/l2_binding.h"
#include "runtime/orchestrator.h"

namespace spsq_conf {
namespace {

using spsc_queue::SpscQueueOpcode;
using spsc_queue::WorkerChipMessage;
using spsc_queue::WorkerChipQueue;
using spsq_runtime::ChipWorkerMode;
using Status = spsc_queue::WorkerChipQueueStatus;

constexpr auto kL3Timeout = std::chrono::seconds(20);
constexpr uint64_t kL2TimeoutNs = 25ull * 1000 * 1000 * 1000;

// Installed before main, as runtime_caches_from_env does.
const bool kInstalled = (install_runtime_caches(CachePolicy::kAdversarial, 0), true);

std::unique_ptr<spsq_runtime::Orchestrator> make_orch(ChipWorkerMode mode) {
  spsq_runtime::OrchestratorOptions o;
  o.mode = mode;
  spsc_queue::SpscQueueError e;
  auto orch = spsq_runtime::Orchestrator::create(o, &e);
  EXPECT_TRUE(orch) << e.message;
  return orch;
}

spsq_runtime::TaskArgs args_for(const WorkerChipQueue& q) {
  spsq_runtime::TaskArgs a;
  for (uint64_t v : q.chip_task_arg_scalars()) a.add_scalar(v);
  return a;
}

// L2 code as the spec's snippet writes it, returning each DATA input with its
// bytes reversed, until STOP.
void reverse_l2(const spsq_runtime::TaskArgs& args, const spsq_runtime::ChipCallConfig&) {
  const spsc_queue::MonotonicClock clock{&RegionInstanceView::steady_now_ns};
  spsc_queue::SpscQueueEndpointBinding binding{};
  if (!spsq_runtime::decode_task_binding(args, &binding)) return;
  spsc_queue::SpscQueueEndpoint<RegionInstanceView> queue(
      binding, spsq_runtime::binding_view(binding), clock);
  if (!queue.live()) return;
  while (!queue.input().drained()) {
    spsc_queue::SpscQueueInputHandle h{};
    if (!queue.input().peek(kL2TimeoutNs, h)) return;
    if (h.opcode == SpscQueueOpcode::DATA) {
      spsc_queue::SpscQueueOutputReservation r{};
      if (!queue.output().reserve(h.payload_nbytes, kL2TimeoutNs, r)) return;
      for (uint64_t i = 0; i < h.payload_nbytes; ++i) {
        spsc_queue::payload_data(r)[i] = spsc_queue::payload_data(h)[h.payload_nbytes - 1 - i];
      }
      if (!queue.output().publish(r, SpscQueueOpcode::DATA)) return;
    }
    if (!queue.input().release(h)) return;
  }
}

const spsq_runtime::L2OrchHandle kReverseL2{"reverse_l2", &reverse_l2};

TEST(RuntimeCaches, AQueuesL3WorksOnItsOwnCopyAndTheMappingIsTheDram) {
  auto orch = make_orch(ChipWorkerMode::kThread);
  ASSERT_TRUE(orch);
  const RuntimeCacheStats before = runtime_cache_stats();
  auto q = orch->create_worker_chip_queue(0, 2, 256, 256, nullptr);
  ASSERT_TRUE(q);
  auto instance = q->region().instance();
  ASSERT_TRUE(instance);
  EXPECT_TRUE(instance->payload_cached());
  EXPECT_EQ(runtime_cache_stats().payloads, before.payloads + 1);
  // The binding (what L2 is handed and L3's view checks) carries L3's copy.
  EXPECT_EQ(q->chip_task_arg_scalars()[3], instance->payload().base);
  EXPECT_NE(instance->payload().base, instance->shared_payload().base);

  // An enqueue writes L3's copy and flushes it: DRAM holds the payload.
  const uint8_t msg[5] = {'h', 'e', 'l', 'l', 'o'};
  ASSERT_EQ(q->input().try_enqueue(msg, sizeof(msg)), Status::OK);
  const uint64_t arena = q->layout().input_arena_offset;
  const auto* dram = reinterpret_cast<const uint8_t*>(instance->shared_payload().base);
  EXPECT_EQ(std::memcmp(dram + arena, msg, sizeof(msg)), 0);
  EXPECT_GT(runtime_cache_stats().flushes, before.flushes);

  // A store into L3's copy that no view call flushes stays there.
  auto* l3_copy = reinterpret_cast<uint8_t*>(instance->payload().base);
  l3_copy[arena + 100] = 0x7e;
  EXPECT_EQ(dram[arena + 100], 0);

  // L2's copy is another one, attached on first use, and stays stale until
  // its view invalidates.
  const uint64_t l2_base = instance->l2_payload_base();
  EXPECT_NE(l2_base, instance->payload().base);
  EXPECT_NE(l2_base, instance->shared_payload().base);
  EXPECT_EQ(instance->l2_payload_base(), l2_base);
  const auto* l2_copy = reinterpret_cast<const uint8_t*>(l2_base);
  EXPECT_EQ(l2_copy[arena], 0);
  RegionInstanceView l2_view(RegionPartLocalSpan{l2_base, instance->payload().logical_bytes},
                             instance->counter());
  RegionPayloadView span{};
  ASSERT_TRUE(l2_view.payload().read(arena, sizeof(msg), span));
  EXPECT_EQ(span.local_addr, l2_base + arena);
  EXPECT_EQ(std::memcmp(l2_copy + arena, msg, sizeof(msg)), 0);
  q->free();
}

TEST(RuntimeCaches, AFreedQueuesPayloadIsForgotten) {
  auto orch = make_orch(ChipWorkerMode::kThread);
  ASSERT_TRUE(orch);
  const uint64_t live = runtime_cache_stats().live;
  auto q = orch->create_worker_chip_queue(0, 1, 64, 64, nullptr);
  ASSERT_TRUE(q);
  EXPECT_EQ(runtime_cache_stats().live, live + 1);
  q->free();
  q.reset();
  EXPECT_EQ(runtime_cache_stats().live, live);
}

TEST(RuntimeCaches, APrimitiveRegionStaysOnTheSharedMapping) {
  auto orch = make_orch(ChipWorkerMode::kThread);
  ASSERT_TRUE(orch);
  auto region = orch->create_worker_chip_region(0, 128, 64, nullptr);
  ASSERT_TRUE(region);
  EXPECT_FALSE(region->instance()->payload_cached());
}

// Depth 1 and 2 (at depth 1 both descriptor rings share line 0), arenas
// wrapping many times, every size from 0 to 70 bytes, in both worker modes.
void round_trip(ChipWorkerMode mode, uint64_t depth) {
  SCOPED_TRACE(testing::Message() << spsq_runtime::chip_worker_mode_name(mode) << " depth "
                                  << depth);
  auto orch = make_orch(mode);
  ASSERT_TRUE(orch);
  auto q = orch->create_worker_chip_queue(0, depth, 128, 128, nullptr);
  ASSERT_TRUE(q);
  spsc_queue::SpscQueueError why;
  ASSERT_TRUE(orch->submit_next_level(kReverseL2, args_for(*q), {}, 0, &why)) << why.message;
  std::vector<uint8_t> in, out(128);
  for (uint64_t n = 0; n <= 70; ++n) {
    in.resize(n);
    for (uint64_t i = 0; i < n; ++i) in[i] = static_cast<uint8_t>(n * 31 + i);
    ASSERT_EQ(q->input().enqueue(in.data(), n, kL3Timeout), Status::OK) << "message " << n;
    WorkerChipMessage m{};
    ASSERT_EQ(q->output().dequeue_into(out.data(), out.size(), kL3Timeout, &m), Status::OK)
        << "message " << n << ": " << q->error().message;
    ASSERT_EQ(m.payload_nbytes, n);
    for (uint64_t i = 0; i < n; ++i) {
      ASSERT_EQ(out[i], in[n - 1 - i]) << "message " << n << " byte " << i;
    }
  }
  ASSERT_EQ(q->request_stop(kL3Timeout), Status::OK);
  const spsq_runtime::WorkerRunReport report = orch->worker(0).run();
  EXPECT_EQ(report.tasks_failed, 0u) << report.first_failure;
  q->free();
}

TEST(RuntimeCaches, TheReferenceRoundTripsInThreadMode) {
  const RuntimeCacheStats before = runtime_cache_stats();
  round_trip(ChipWorkerMode::kThread, 1);
  round_trip(ChipWorkerMode::kThread, 2);
  // Both sides' hooks went through the model (thread mode: one process).
  EXPECT_GT(runtime_cache_stats().invalidates, before.invalidates + 4 * 71);
}

TEST(RuntimeCaches, TheReferenceRoundTripsInProcessMode) {
  round_trip(ChipWorkerMode::kProcess, 1);
  round_trip(ChipWorkerMode::kProcess, 2);
}

}  // namespace
}  // namespace spsq_conf
