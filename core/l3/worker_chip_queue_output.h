// queue.output(): the L3 consumer of the output direction (DATA, ERROR). The
// wire work (tail reconstruction, seq/opcode/offset/replay validation, head
// publish) is SpscConsumer's, shared with L2's input. L3 holds one message
// at a time: peek() hands out a handle that stays active, and is returned
// again by every peek, until release(handle).
#ifndef SPSQ_L3_WORKER_CHIP_QUEUE_OUTPUT_H_
#define SPSQ_L3_WORKER_CHIP_QUEUE_OUTPUT_H_

#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstring>

#include "aicpu/region_view_types.h"
#include "common/spsq_consumer.h"
#include "common/spsq_direction.h"
#include "common/spsq_handles.h"
#include "l3/worker_chip_queue_core.h"
#include "l3/worker_chip_queue_status.h"

namespace spsc_queue {

// An L3 output message: seq, opcode, payload offset and nbytes, owner token.
// `payload` borrows shared memory; copy it out with read_into().
using WorkerChipMessage = SpscQueueMessageHandle;

template <class View>
class WorkerChipQueueOutput {
 public:
  WorkerChipQueueOutput(WorkerChipQueueCore<View>* core, const SpscDirection& dir)
      : core_(core), consumer_(&core->state(), dir, /*data_window=*/1, /*repeat_active=*/true) {}

  WorkerChipQueueOutput(const WorkerChipQueueOutput&) = delete;
  WorkerChipQueueOutput& operator=(const WorkerChipQueueOutput&) = delete;

  WorkerChipQueueStatus peek(std::chrono::nanoseconds timeout, WorkerChipMessage* out) {
    const SpscQueueOp op = SpscQueueOp::L3_OUTPUT_PEEK;
    WorkerChipQueueStatus st = core_->admit(op);
    if (st != WorkerChipQueueStatus::OK) return st;
    uint64_t ns = 0;
    st = core_->timeout_ns(op, timeout, &ns);
    if (st != WorkerChipQueueStatus::OK) return st;
    WorkerChipMessage m{};
    if (!consumer_.peek(ns, m)) {
      if (!core_->state().live()) return core_->failed();
      return core_->no_progress(WorkerChipQueueStatus::TIMED_OUT, op,
                                "timed out waiting for an output message");
    }
    return accept(m, out);
  }

  // WOULD_BLOCK when no output is available (Python: None).
  WorkerChipQueueStatus try_peek(WorkerChipMessage* out) {
    WorkerChipMessage m{};
    const WorkerChipQueueStatus st = acquire(&m);
    if (st != WorkerChipQueueStatus::OK) return st;
    return accept(m, out);
  }

  // Copies the active message's payload into `buffer` (capacity
  // `buffer_bytes`). A handle that is not the active one poisons; a buffer
  // that is too small is a usage error and the message stays active.
  WorkerChipQueueStatus read_into(const WorkerChipMessage& m, void* buffer,
                                  uint64_t buffer_bytes) {
    const SpscQueueOp op = SpscQueueOp::L3_OUTPUT_READ;
    WorkerChipQueueStatus st = core_->admit(op);
    if (st != WorkerChipQueueStatus::OK) return st;
    if (!is_active(m)) return foreign_handle(m, op, "read");
    st = copy_out(m, buffer, buffer_bytes);
    if (st != WorkerChipQueueStatus::OK) return st;
    return core_->ok();
  }

  // Releases the active message; any other handle poisons.
  WorkerChipQueueStatus release(const WorkerChipMessage& m) {
    const SpscQueueOp op = SpscQueueOp::L3_OUTPUT_RELEASE;
    WorkerChipQueueStatus st = core_->admit(op);
    if (st != WorkerChipQueueStatus::OK) return st;
    if (!is_active(m)) return foreign_handle(m, op, "release");
    if (!consumer_.release(m)) return core_->failed();
    has_active_ = false;
    return core_->ok();
  }

  // peek + read_into + release. `out` (optional) receives the message
  // metadata; its payload pointer is cleared because the span is released.
  WorkerChipQueueStatus dequeue_into(void* buffer, uint64_t buffer_bytes,
                                     std::chrono::nanoseconds timeout,
                                     WorkerChipMessage* out = nullptr) {
    WorkerChipMessage m{};
    const WorkerChipQueueStatus st = peek(timeout, &m);
    if (st != WorkerChipQueueStatus::OK) return st;
    return finish_dequeue(m, buffer, buffer_bytes, out);
  }

  WorkerChipQueueStatus try_dequeue_into(void* buffer, uint64_t buffer_bytes,
                                         WorkerChipMessage* out = nullptr) {
    WorkerChipMessage m{};
    const WorkerChipQueueStatus st = acquire(&m);
    if (st != WorkerChipQueueStatus::OK) return st;
    return finish_dequeue(m, buffer, buffer_bytes, out);
  }

  bool has_active() const { return has_active_; }

 private:
  // try_peek's work up to handing the message out: `*m` is the message
  // (the active one again, if there is one), not yet made active, and
  // last_error() is not cleared. A dequeue that releases it at once never
  // makes it active, and clears last_error() once, at its end.
  WorkerChipQueueStatus acquire(WorkerChipMessage* m) {
    const SpscQueueOp op = SpscQueueOp::L3_OUTPUT_PEEK;
    WorkerChipQueueStatus st = core_->admit(op);
    if (st != WorkerChipQueueStatus::OK) return st;
    if (!consumer_.try_peek_live(*m)) {  // admit() found it live
      if (!core_->state().live()) return core_->failed();
      return core_->no_progress(WorkerChipQueueStatus::WOULD_BLOCK, op, "no output message");
    }
    return WorkerChipQueueStatus::OK;
  }

  WorkerChipQueueStatus accept(const WorkerChipMessage& m, WorkerChipMessage* out) {
    hold(m, out);
    return core_->ok();
  }

  // `m` becomes the active message (and `out`'s); last_error() is untouched.
  void hold(const WorkerChipMessage& m, WorkerChipMessage* out) {
    active_ = m;
    has_active_ = true;
    if (out != nullptr) *out = m;
  }

  bool is_active(const WorkerChipMessage& m) const {
    return has_active_ && m.owner_cookie == active_.owner_cookie && m.seq == active_.seq &&
           m.opcode == active_.opcode && m.payload_offset == active_.payload_offset &&
           m.payload_nbytes == active_.payload_nbytes;
  }

  // Stale or foreign handle ownership is infrastructure poison (spec S4).
  WorkerChipQueueStatus foreign_handle(const WorkerChipMessage& m, SpscQueueOp op,
                                       const char* what) {
    core_->state().poison(SpscQueueErrorKind::OWNERSHIP, op,
                          "%s with a handle that is not the active output message "
                          "(seq %" PRIu64 ", active seq %" PRIu64 ")",
                          what, m.seq, has_active_ ? active_.seq : 0);
    return core_->failed();
  }

  WorkerChipQueueStatus finish_dequeue(const WorkerChipMessage& m, void* buffer,
                                       uint64_t buffer_bytes, WorkerChipMessage* out) {
    // read_into + release of `m`, the message a peek on this handle just
    // acquired. Their admissions and handle checks hold by construction
    // (the handle is live and not freed, `m` is the message the consumer
    // holds), so they are not made again: the same statuses, errors and wire
    // effects. A message that stays (its buffer refused) becomes the active
    // one, as after a peek.
    const WorkerChipQueueStatus st = copy_out(m, buffer, buffer_bytes);
    if (st != WorkerChipQueueStatus::OK) {
      hold(m, nullptr);
      return st;
    }
    if (!consumer_.release_sole(m)) return core_->failed();
    // Mostly nothing was active: a test, not a store on every call.
    if (__builtin_expect(has_active_, false)) has_active_ = false;
    if (out != nullptr) {
      *out = m;
      out->payload = SpscQueuePayloadView{};
    }
    return core_->ok();
  }

  // The payload of `m` (the active message, or the one a dequeue acquired)
  // into `buffer`: a buffer that is too small is a usage error (the message
  // stays active); OK or why not.
  WorkerChipQueueStatus copy_out(const WorkerChipMessage& m, void* buffer,
                                 uint64_t buffer_bytes) {
    const SpscQueueOp op = SpscQueueOp::L3_OUTPUT_READ;
    if (m.payload_nbytes > buffer_bytes || (m.payload_nbytes != 0 && buffer == nullptr)) {
      return core_->reject(op, "buffer of %" PRIu64 " bytes%s cannot hold the %" PRIu64
                           "-byte message at seq %" PRIu64,
                           buffer_bytes, buffer == nullptr ? " (null)" : "", m.payload_nbytes,
                           m.seq);
    }
    if (m.payload_nbytes != 0) {
      uint8_t* bytes = nullptr;
      if (!core_->state().map_payload(m.payload_offset, m.payload_nbytes, op, &bytes)) {
        return core_->failed();
      }
      std::memcpy(buffer, bytes, m.payload_nbytes);
    }
    return WorkerChipQueueStatus::OK;
  }

  WorkerChipQueueCore<View>* core_;
  SpscConsumer<View, 1> consumer_;
  WorkerChipMessage active_{};
  bool has_active_ = false;
};

}  // namespace spsc_queue

#endif  // SPSQ_L3_WORKER_CHIP_QUEUE_OUTPUT_H_
