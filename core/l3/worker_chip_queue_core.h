// State the two parts of one L3 queue handle share: the endpoint state
// (view, clock, layout, identity, poison), the freed flag, and the error that
// explains the latest non-OK call. Usage errors are recorded here without
// poisoning: they never touch shared memory.
#ifndef SPSQ_L3_WORKER_CHIP_QUEUE_CORE_H_
#define SPSQ_L3_WORKER_CHIP_QUEUE_CORE_H_

#include <chrono>
#include <cinttypes>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <utility>

#include "common/spsq_clock.h"
#include "common/spsq_endpoint_state.h"
#include "common/spsq_error.h"
#include "l3/worker_chip_queue_status.h"

namespace spsc_queue {

template <class View>
class WorkerChipQueueCore {
 public:
  WorkerChipQueueCore(View&& view, MonotonicClock clock) : state_(std::move(view), clock) {}

  SpscEndpointState<View>& state() { return state_; }
  const SpscEndpointState<View>& state() const { return state_; }
  bool freed() const { return freed_; }
  void mark_freed() { freed_ = true; }
  const SpscQueueError& last_error() const { return last_error_; }

  // Gate of every call: a freed handle must not touch memory that may be
  // gone; a dead one reports its terminal error again.
  WorkerChipQueueStatus admit(SpscQueueOp op) {
    if (freed_) return reject(op, "the queue handle was freed");
    if (!state_.live()) return failed();
    return WorkerChipQueueStatus::OK;
  }

  // Converts a timeout into positive nanoseconds or rejects it: blocking L3
  // calls need a finite positive timeout (spec section 3).
  WorkerChipQueueStatus timeout_ns(SpscQueueOp op, std::chrono::nanoseconds timeout,
                                   uint64_t* out) {
    if (timeout.count() <= 0) {
      return reject(op, "timeout must be positive, got %lld ns",
                    static_cast<long long>(timeout.count()));
    }
    *out = static_cast<uint64_t>(timeout.count());
    return WorkerChipQueueStatus::OK;
  }

  WorkerChipQueueStatus reject(SpscQueueOp op, const char* fmt, ...)
      __attribute__((format(printf, 3, 4), cold)) {
    SpscQueueError e;
    e.kind = SpscQueueErrorKind::BAD_ARGUMENT;
    e.op = op;
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(e.message, sizeof(e.message), fmt, args);
    va_end(args);
    stamp(&e);
    last_error_ = e;
    error_set_ = true;
    return WorkerChipQueueStatus::REJECTED;
  }

  // No progress: not an error; the message only explains the status.
  // Every empty poll of a spinning caller lands here: constant text, no
  // formatting; the identity travels in the numeric fields only.
  WorkerChipQueueStatus no_progress(WorkerChipQueueStatus status, SpscQueueOp op,
                                    const char* what) {
    last_error_.kind = SpscQueueErrorKind::NONE;
    last_error_.op = op;
    // Not strncpy: it would zero-pad the whole buffer on every empty poll.
    const size_t n = strnlen(what, sizeof(last_error_.message) - 1);
    std::memcpy(last_error_.message, what, n);
    last_error_.message[n] = '\0';
    last_error_.session_instance_id_bits = session_bits_;
    last_error_.transaction_id = transaction_id_;
    error_set_ = true;
    return status;
  }

  __attribute__((cold)) WorkerChipQueueStatus failed() {
    last_error_ = state_.error();
    error_set_ = true;
    return WorkerChipQueueStatus::FAILED;
  }

  // Every successful call: clears last_error(), once after each call that
  // set it (one flag to test on the hot path, not the error's fields).
  WorkerChipQueueStatus ok() {
    if (__builtin_expect(error_set_, false)) {
      last_error_ = SpscQueueError{};
      error_set_ = false;
    }
    return WorkerChipQueueStatus::OK;
  }

  void set_identity(uint64_t session_bits, uint64_t transaction_id) {
    session_bits_ = session_bits;
    transaction_id_ = transaction_id;
    has_identity_ = true;
  }

 private:
  void stamp(SpscQueueError* e) const {
    if (has_identity_) set_error_identity(e, session_bits_, transaction_id_);
  }

  SpscEndpointState<View> state_;
  SpscQueueError last_error_{};
  bool error_set_ = false;  // last_error_ written since ok() last cleared it
  uint64_t session_bits_ = 0;
  uint64_t transaction_id_ = 0;
  bool has_identity_ = false;
  bool freed_ = false;
};

}  // namespace spsc_queue

#endif  // SPSQ_L3_WORKER_CHIP_QUEUE_CORE_H_
