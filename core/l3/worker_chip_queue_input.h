// queue.input(): the L3 producer of the input direction (DATA, then STOP).
// The wire work (arena rule, head reconstruction, replay of released
// descriptors, publish order) is SpscProducer's, shared with L2's output;
// this part adds the L3 rules: positive timeouts, size and buffer checks,
// and the local close after STOP.
#ifndef SPSQ_L3_WORKER_CHIP_QUEUE_INPUT_H_
#define SPSQ_L3_WORKER_CHIP_QUEUE_INPUT_H_

#include <chrono>
#include <cinttypes>
#include <cstdint>

#include "common/spsq_constants.h"
#include "common/spsq_counter.h"
#include "common/spsq_direction.h"
#include "common/spsq_handles.h"
#include "common/spsq_producer.h"
#include "l3/worker_chip_queue_core.h"
#include "l3/worker_chip_queue_status.h"

namespace spsc_queue {

template <class View>
class WorkerChipQueueInput {
 public:
  WorkerChipQueueInput(WorkerChipQueueCore<View>* core, const SpscDirection& dir)
      : core_(core), dir_(dir), producer_(&core->state(), dir) {}

  WorkerChipQueueInput(const WorkerChipQueueInput&) = delete;
  WorkerChipQueueInput& operator=(const WorkerChipQueueInput&) = delete;

  // Publishes one DATA message, waiting up to `timeout` (> 0) for ring and
  // arena room. `buffer` may be null only when nbytes == 0.
  WorkerChipQueueStatus enqueue(const void* buffer, uint64_t nbytes,
                                std::chrono::nanoseconds timeout) {
    return send(SpscQueueOp::L3_ENQUEUE, SpscQueueOpcode::DATA, buffer, nbytes, &timeout);
  }

  // WOULD_BLOCK on ordinary ring or arena backpressure; never poisons.
  WorkerChipQueueStatus try_enqueue(const void* buffer, uint64_t nbytes) {
    return send(SpscQueueOp::L3_ENQUEUE, SpscQueueOpcode::DATA, buffer, nbytes, nullptr);
  }

  // Waits only until STOP is published (not for L2 exit, not for outputs).
  WorkerChipQueueStatus request_stop(std::chrono::nanoseconds timeout) {
    return send(SpscQueueOp::L3_REQUEST_STOP, SpscQueueOpcode::STOP, nullptr, 0, &timeout);
  }

  WorkerChipQueueStatus try_request_stop() {
    return send(SpscQueueOp::L3_REQUEST_STOP, SpscQueueOpcode::STOP, nullptr, 0, nullptr);
  }

  bool stop_published() const { return stop_published_; }
  uint64_t published() const { return producer_.published(); }

 private:
  WorkerChipQueueStatus send(SpscQueueOp op, SpscQueueOpcode opcode, const void* buffer,
                             uint64_t nbytes, const std::chrono::nanoseconds* timeout) {
    WorkerChipQueueStatus st = core_->admit(op);
    if (st != WorkerChipQueueStatus::OK) return st;
    if (stop_published_) {
      return core_->reject(op, "input is closed: STOP was already published");
    }
    if (nbytes != 0 && buffer == nullptr) {
      return core_->reject(op, "no buffer for a %" PRIu64 "-byte message", nbytes);
    }
    if (nbytes > dir_.arena_bytes) {
      return core_->reject(op, "message of %" PRIu64 " bytes exceeds the %" PRIu64
                           "-byte input arena", nbytes, dir_.arena_bytes);
    }
    producer_.set_operations(op, op);
    SpscQueueOutputReservation r{};
    if (timeout == nullptr) {
      if (!producer_.try_reserve_unmapped(nbytes, r)) {
        if (!core_->state().live()) return core_->failed();
        return core_->no_progress(WorkerChipQueueStatus::WOULD_BLOCK, op,
                                  "input descriptor ring or arena is full");
      }
    } else {
      uint64_t ns = 0;
      st = core_->timeout_ns(op, *timeout, &ns);
      if (st != WorkerChipQueueStatus::OK) return st;
      if (!producer_.reserve_unmapped(nbytes, ns, r)) {
        if (!core_->state().live()) return core_->failed();
        return core_->no_progress(WorkerChipQueueStatus::TIMED_OUT, op,
                                  "timed out waiting for input ring or arena room");
      }
    }
    if (!producer_.publish_from(r, opcode, buffer)) return core_->failed();
    if (opcode == SpscQueueOpcode::STOP) stop_published_ = true;
    return core_->ok();
  }

  WorkerChipQueueCore<View>* core_;
  SpscDirection dir_;
  SpscProducer<View> producer_;
  bool stop_published_ = false;
};

}  // namespace spsc_queue

#endif  // SPSQ_L3_WORKER_CHIP_QUEUE_INPUT_H_
