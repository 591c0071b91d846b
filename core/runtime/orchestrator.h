// The L3 Host Orchestrator of the simulation: owns the chip workers, creates
// RegionInstances for them (primitive regions and SPSC queues), and submits
// next-level L2 tasks.
//
//   auto orch = Orchestrator::create(OrchestratorOptions{}, &error);
//   auto queue = orch->create_worker_chip_queue(0, 4, 1 << 20, 1 << 20, &error);
//   TaskArgs args;
//   for (uint64_t v : queue->chip_task_arg_scalars()) args.add_scalar(v);
//   orch->submit_next_level(l2_handle, args, cfg, 0, &error);
//   ... queue->input().enqueue(...), queue->output().peek(...) ...
//   orch->worker(0).run();   // returns once the L2 task has returned
//
// Identity: each worker incarnation has 64-bit session bits (may be 0) and a
// transaction counter starting at 1; every RegionInstance takes the next id.
// Lifetime: an L2 task pins every RegionInstance of its worker that is alive
// when it is submitted, so free() before the task returns never unmaps
// memory the task may still use.
#ifndef SPSQ_RUNTIME_ORCHESTRATOR_H_
#define SPSQ_RUNTIME_ORCHESTRATOR_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "common/spsq_clock.h"
#include "common/spsq_error.h"
#include "l3/worker_chip_queue.h"
#include "runtime/chip_worker.h"
#include "region/region_instance.h"
#include "runtime/steady_clock.h"
#include "runtime/task_args.h"
#include "region/worker_chip_region.h"

namespace spsq_runtime {

struct OrchestratorOptions {
  uint32_t worker_count = 1;
  ChipWorkerMode mode = ChipWorkerMode::kThread;
  // Session bits per worker; empty derives fresh bits for this incarnation.
  std::vector<uint64_t> session_bits;
  // Clock of the L3 queue handles (their blocking waits).
  spsc_queue::MonotonicClock clock = steady_monotonic_clock();
  // Largest RegionInstance (payload + counter) a worker will materialize:
  // the simulated device memory budget of one allocation.
  uint64_t max_region_bytes = uint64_t{1} << 32;
};

// How often each orchestrator entry point was called (every call counts,
// refused ones too): the simulation's record of what L3 asked of the
// runtime, next to the ledger's record of what memory it booked. The spec
// says what one call may do in terms of another (create_worker_chip_queue
// does not call create_worker_chip_region()); these counts make that visible.
struct OrchestratorCallCounts {
  uint64_t create_worker_chip_queue = 0;
  uint64_t create_worker_chip_region = 0;
  uint64_t submit_next_level = 0;
};

class Orchestrator {
 public:
  // Null with *error (BAD_ARGUMENT) for unusable options.
  static std::unique_ptr<Orchestrator> create(const OrchestratorOptions& options,
                                              spsc_queue::SpscQueueError* error);

  Orchestrator(const Orchestrator&) = delete;
  Orchestrator& operator=(const Orchestrator&) = delete;
  ~Orchestrator();  // drains every worker

  uint32_t worker_count() const { return static_cast<uint32_t>(workers_.size()); }
  ChipWorker& worker(uint32_t worker_id) { return *workers_.at(worker_id); }
  ChipWorkerMode mode() const { return options_.mode; }
  uint64_t session_bits(uint32_t worker_id) const { return session_bits_.at(worker_id); }
  const RegionLedger& ledger() const { return *ledger_; }
  OrchestratorCallCounts call_counts() const;

  // Compatibility factory: validates every argument before allocating, then
  // the Region Template coordinator materializes one RegionInstance, binds
  // the SPSC template and projects the queue. Null with *error on failure.
  std::unique_ptr<spsc_queue::WorkerChipQueue> create_worker_chip_queue(
      uint32_t worker_id, uint64_t depth, uint64_t input_arena_bytes,
      uint64_t output_arena_bytes, spsc_queue::SpscQueueError* error);

  // Primitive region for orchestrator communication that is not a queue.
  // counter_bytes must be a positive multiple of 64 (one signal per line).
  std::unique_ptr<WorkerChipOrchRegion> create_worker_chip_region(
      uint32_t worker_id, uint64_t payload_bytes, uint64_t counter_bytes,
      spsc_queue::SpscQueueError* error);

  // Runs `l2_handle` on chip worker `worker_id` (its thread or a forked
  // child; a handle naming an external `binary` is forked and exec'd, process
  // mode only, see runtime/l2_task.h). False with *error when the call was
  // refused or could not start (including a binary that failed to exec).
  bool submit_next_level(const L2OrchHandle& l2_handle, const TaskArgs& args,
                         const ChipCallConfig& cfg, uint32_t worker_id,
                         spsc_queue::SpscQueueError* error);

 private:
  explicit Orchestrator(const OrchestratorOptions& options);

  bool check_worker(uint32_t worker_id, spsc_queue::SpscQueueError* error) const;
  // Takes the next transaction id of `worker_id` (ids are never reused).
  RegionInstanceId next_identity(uint32_t worker_id);
  void track(const std::shared_ptr<RegionInstance>& instance);
  std::vector<std::shared_ptr<RegionInstance>> pins_for(uint32_t worker_id);

  OrchestratorOptions options_;
  std::shared_ptr<RegionLedger> ledger_;
  std::vector<uint64_t> session_bits_;
  std::mutex mu_;  // guards next_transaction_ and instances_
  std::vector<uint64_t> next_transaction_;
  std::vector<std::vector<std::weak_ptr<RegionInstance>>> instances_;
  std::atomic<uint64_t> queue_calls_{0};
  std::atomic<uint64_t> region_calls_{0};
  std::atomic<uint64_t> submit_calls_{0};
  // Last: workers drain (and drop their pins) before the rest goes away.
  std::vector<std::unique_ptr<ChipWorker>> workers_;
};

}  // namespace spsq_runtime

#endif  // SPSQ_RUNTIME_ORCHESTRATOR_H_
