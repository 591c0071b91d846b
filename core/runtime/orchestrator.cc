#include "runtime/orchestrator.h"

#include <unistd.h>

#include <atomic>
#include <cinttypes>

#include "common/spsq_layout.h"
#include "runtime/region_template_coordinator.h"
#include "runtime/spsc_queue_region_template.h"

namespace spsq_runtime {
namespace {

using spsc_queue::SpscQueueError;
using spsc_queue::SpscQueueErrorKind;
using spsc_queue::SpscQueueOp;

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Fresh bits per worker incarnation: distinct across orchestrators in one
// process (the counter) and across processes (pid, time).
uint64_t derive_session_bits(uint32_t worker_id) {
  static std::atomic<uint64_t> incarnations{0};
  const uint64_t n = incarnations.fetch_add(1, std::memory_order_relaxed);
  return splitmix64(splitmix64(steady_clock_now_ns() ^ (static_cast<uint64_t>(getpid()) << 32)) ^
                    (n << 20) ^ worker_id);
}

void set(SpscQueueError* error, const SpscQueueError& e) {
  if (error != nullptr) *error = e;
}

}  // namespace

std::unique_ptr<Orchestrator> Orchestrator::create(const OrchestratorOptions& options,
                                                   SpscQueueError* error) {
  SpscQueueError e;
  if (options.worker_count == 0) {
    e = spsc_queue::make_error(SpscQueueErrorKind::BAD_ARGUMENT, SpscQueueOp::INIT,
                               "an orchestrator needs at least one chip worker");
  } else if (!options.session_bits.empty() && options.session_bits.size() != options.worker_count) {
    e = spsc_queue::make_error(SpscQueueErrorKind::BAD_ARGUMENT, SpscQueueOp::INIT,
                               "%zu session bit values for %u workers", options.session_bits.size(),
                               options.worker_count);
  } else if (!options.clock.valid()) {
    e = spsc_queue::make_error(SpscQueueErrorKind::BAD_ARGUMENT, SpscQueueOp::INIT,
                               "no monotonic clock for the L3 queues");
  } else if (options.mode != ChipWorkerMode::kThread && options.mode != ChipWorkerMode::kProcess) {
    e = spsc_queue::make_error(SpscQueueErrorKind::BAD_ARGUMENT, SpscQueueOp::INIT,
                               "unknown chip worker mode %u", static_cast<unsigned>(options.mode));
  }
  if (!e.ok()) {
    set(error, e);
    return nullptr;
  }
  set(error, SpscQueueError{});
  return std::unique_ptr<Orchestrator>(new Orchestrator(options));
}

Orchestrator::Orchestrator(const OrchestratorOptions& options)
    : options_(options), ledger_(std::make_shared<RegionLedger>()) {
  for (uint32_t w = 0; w < options.worker_count; ++w) {
    session_bits_.push_back(options.session_bits.empty() ? derive_session_bits(w)
                                                         : options.session_bits[w]);
    next_transaction_.push_back(1);
    instances_.emplace_back();
    workers_.push_back(std::make_unique<ChipWorker>(w, options.mode));
  }
}

Orchestrator::~Orchestrator() {
  for (auto& w : workers_) w->run();
}

bool Orchestrator::check_worker(uint32_t worker_id, SpscQueueError* error) const {
  if (worker_id < workers_.size()) return true;
  set(error, spsc_queue::make_error(SpscQueueErrorKind::BAD_ARGUMENT, SpscQueueOp::INIT,
                                    "worker_id %u out of range: %zu chip worker(s)", worker_id,
                                    workers_.size()));
  return false;
}

RegionInstanceId Orchestrator::next_identity(uint32_t worker_id) {
  std::lock_guard<std::mutex> lock(mu_);
  return RegionInstanceId{worker_id, session_bits_[worker_id], next_transaction_[worker_id]++};
}

void Orchestrator::track(const std::shared_ptr<RegionInstance>& instance) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& list = instances_[instance->id().worker_id];
  for (auto it = list.begin(); it != list.end();) {
    it = it->expired() ? list.erase(it) : it + 1;
  }
  list.push_back(instance);
}

std::vector<std::shared_ptr<RegionInstance>> Orchestrator::pins_for(uint32_t worker_id) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::shared_ptr<RegionInstance>> pins;
  for (const auto& weak : instances_[worker_id]) {
    if (auto strong = weak.lock()) pins.push_back(std::move(strong));
  }
  return pins;
}

OrchestratorCallCounts Orchestrator::call_counts() const {
  OrchestratorCallCounts c;
  c.create_worker_chip_queue = queue_calls_.load(std::memory_order_relaxed);
  c.create_worker_chip_region = region_calls_.load(std::memory_order_relaxed);
  c.submit_next_level = submit_calls_.load(std::memory_order_relaxed);
  return c;
}

std::unique_ptr<spsc_queue::WorkerChipQueue> Orchestrator::create_worker_chip_queue(
    uint32_t worker_id, uint64_t depth, uint64_t input_arena_bytes, uint64_t output_arena_bytes,
    SpscQueueError* error) {
  queue_calls_.fetch_add(1, std::memory_order_relaxed);
  // Every argument is checked before anything is allocated or an id taken.
  if (!check_worker(worker_id, error)) return nullptr;
  spsc_queue::SpscQueueLayout layout{};
  const spsc_queue::SpscLayoutStatus st = spsc_queue::SpscQueueLayout::create_checked(
      depth, input_arena_bytes, output_arena_bytes, &layout);
  if (st != spsc_queue::SpscLayoutStatus::OK) {
    set(error, spsc_queue::make_error(
                   SpscQueueErrorKind::BAD_ARGUMENT, SpscQueueOp::INIT,
                   "create_worker_chip_queue(depth=%" PRIu64 ", input_arena_bytes=%" PRIu64
                   ", output_arena_bytes=%" PRIu64 "): %s",
                   depth, input_arena_bytes, output_arena_bytes,
                   spsc_queue::layout_status_name(st)));
    return nullptr;
  }
  const uint64_t region_bytes =
      ((layout.payload_bytes + kRegionCounterAlign - 1) & ~(kRegionCounterAlign - 1)) +
      layout.counter_bytes;
  if (layout.payload_bytes > options_.max_region_bytes || region_bytes > options_.max_region_bytes) {
    set(error, spsc_queue::make_error(
                   SpscQueueErrorKind::BAD_ARGUMENT, SpscQueueOp::INIT,
                   "queue needs %" PRIu64 " payload bytes; worker %u allocates at most %" PRIu64
                   " bytes per RegionInstance",
                   layout.payload_bytes, worker_id, options_.max_region_bytes));
    return nullptr;
  }

  const SpscQueueRegionTemplate region_template(layout, options_.clock);
  std::unique_ptr<spsc_queue::WorkerChipQueue> queue =
      materialize_bind_project(region_template, next_identity(worker_id), ledger_, error);
  if (!queue) return nullptr;
  // The queue's own instance is reached through its region projector.
  if (auto instance = queue->region().instance()) track(instance);
  return queue;
}

std::unique_ptr<WorkerChipOrchRegion> Orchestrator::create_worker_chip_region(
    uint32_t worker_id, uint64_t payload_bytes, uint64_t counter_bytes, SpscQueueError* error) {
  region_calls_.fetch_add(1, std::memory_order_relaxed);
  if (!check_worker(worker_id, error)) return nullptr;
  if (payload_bytes == 0 || counter_bytes == 0 || counter_bytes % kRegionCounterAlign != 0) {
    set(error, spsc_queue::make_error(
                   SpscQueueErrorKind::BAD_ARGUMENT, SpscQueueOp::INIT,
                   "create_worker_chip_region(payload_bytes=%" PRIu64 ", counter_bytes=%" PRIu64
                   "): payload must be nonzero and counter a positive multiple of 64",
                   payload_bytes, counter_bytes));
    return nullptr;
  }
  if (payload_bytes > options_.max_region_bytes ||
      counter_bytes > options_.max_region_bytes - kRegionCounterAlign ||
      ((payload_bytes + kRegionCounterAlign - 1) & ~(kRegionCounterAlign - 1)) >
          options_.max_region_bytes - counter_bytes) {
    set(error, spsc_queue::make_error(
                   SpscQueueErrorKind::BAD_ARGUMENT, SpscQueueOp::INIT,
                   "region of %" PRIu64 " payload + %" PRIu64 " counter bytes exceeds the %" PRIu64
                   "-byte allocation limit of worker %u",
                   payload_bytes, counter_bytes, options_.max_region_bytes, worker_id));
    return nullptr;
  }
  const RegionInstanceId id = next_identity(worker_id);
  std::string why;
  std::shared_ptr<RegionInstance> instance =
      RegionInstance::materialize(id, payload_bytes, counter_bytes, ledger_, &why);
  if (!instance) {
    SpscQueueError e = spsc_queue::make_error(SpscQueueErrorKind::ENDPOINT_ERROR,
                                              SpscQueueOp::INIT,
                                              "materializing the RegionInstance failed: %s",
                                              why.c_str());
    spsc_queue::set_error_identity(&e, id.session_instance_id_bits, id.transaction_id);
    set(error, e);
    return nullptr;
  }
  track(instance);
  set(error, SpscQueueError{});
  return std::make_unique<WorkerChipOrchRegion>(std::move(instance));
}

bool Orchestrator::submit_next_level(const L2OrchHandle& l2_handle, const TaskArgs& args,
                                     const ChipCallConfig& cfg, uint32_t worker_id,
                                     SpscQueueError* error) {
  submit_calls_.fetch_add(1, std::memory_order_relaxed);
  if (!check_worker(worker_id, error)) return false;
  if (cfg.block_dim == 0) {
    set(error, spsc_queue::make_error(SpscQueueErrorKind::BAD_ARGUMENT, SpscQueueOp::INIT,
                                      "ChipCallConfig.block_dim must be at least 1"));
    return false;
  }
  if (l2_handle.fn == nullptr && (l2_handle.binary == nullptr || l2_handle.binary[0] == '\0')) {
    set(error, spsc_queue::make_error(SpscQueueErrorKind::BAD_ARGUMENT, SpscQueueOp::INIT,
                                      "L2 handle '%s' has no orchestration function",
                                      l2_handle.name != nullptr ? l2_handle.name : ""));
    return false;
  }
  std::string why;
  if (!workers_[worker_id]->submit(l2_handle, args, cfg, pins_for(worker_id), &why)) {
    set(error, spsc_queue::make_error(SpscQueueErrorKind::ENDPOINT_ERROR, SpscQueueOp::INIT,
                                      "submit_next_level to worker %u: %s", worker_id,
                                      why.c_str()));
    return false;
  }
  set(error, SpscQueueError{});
  return true;
}

}  // namespace spsq_runtime
