// State one queue handle shares between its two directions: the view, the
// clock, the layout, the RegionInstance identity and the first error. Poison
// anywhere is terminal for the whole handle, so it lives here once.
#ifndef SPSQ_COMMON_SPSQ_ENDPOINT_STATE_H_
#define SPSQ_COMMON_SPSQ_ENDPOINT_STATE_H_

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <utility>

#include "aicpu/region_view_types.h"
#include "common/spsq_clock.h"
#include "common/spsq_descriptor.h"
#include "common/spsq_error.h"
#include "common/spsq_handles.h"
#include "common/spsq_layout.h"

namespace spsc_queue {

template <class View>
class SpscEndpointState {
 public:
  SpscEndpointState(View&& view, MonotonicClock clock)
      : view_(std::move(view)), clock_(clock) {}

  SpscEndpointState(const SpscEndpointState&) = delete;
  SpscEndpointState& operator=(const SpscEndpointState&) = delete;

  // Called once construction validated everything. Until then the handle is
  // not live and no error names an identity.
  void activate(const SpscQueueLayout& layout, uint64_t session_bits, uint64_t transaction_id,
                uint64_t own_abort_offset, uint64_t peer_abort_offset) {
    layout_ = layout;
    own_abort_offset_ = own_abort_offset;
    peer_abort_offset_ = peer_abort_offset;
    set_identity(session_bits, transaction_id);
    payload_base_ = reinterpret_cast<const uint8_t*>(view_.payload().span().base);
    active_ = true;
    live_ = error_.kind == SpscQueueErrorKind::NONE;
  }

  void set_identity(uint64_t session_bits, uint64_t transaction_id) {
    session_bits_ = session_bits;
    transaction_id_ = transaction_id;
    has_identity_ = true;
  }

  bool live() const { return live_; }
  const SpscQueueError& error() const { return error_; }
  const SpscQueueLayout& layout() const { return layout_; }
  View& view() { return view_; }
  const View& view() const { return view_; }
  uint64_t now_ns() const { return clock_.now_ns(); }
  // Local address of payload byte `offset`, for prefetch hints only: every
  // real access goes through the view. The span's base is read once, at
  // activation: a hint needs no fresher one (a prefetch never faults).
  const uint8_t* payload_address(uint64_t offset) const { return payload_base_ + offset; }
  // Identifies this handle in handles and reservations (cross-queue check).
  uint64_t owner_token() const { return reinterpret_cast<uintptr_t>(this); }

  // A construction failure: recorded, never signalled to the peer.
  void fail_init(SpscQueueErrorKind kind, const char* fmt, ...)
      __attribute__((format(printf, 3, 4))) {
    if (error_.kind != SpscQueueErrorKind::NONE) return;
    va_list args;
    va_start(args, fmt);
    record(kind, SpscQueueOp::INIT, fmt, args);
    va_end(args);
  }

  // Local poison: first error wins; the own abort flag is Set to 1 once.
  void poison(SpscQueueErrorKind kind, SpscQueueOp op, const char* fmt, ...)
      __attribute__((format(printf, 4, 5), cold)) {
    if (error_.kind != SpscQueueErrorKind::NONE) return;
    va_list args;
    va_start(args, fmt);
    record(kind, op, fmt, args);
    va_end(args);
    raise_own_abort_flag();
  }

  // The peer raised its flag: terminal, but the local flag stays down.
  void remote_abort(SpscQueueOp op, int32_t flag_value) {
    if (error_.kind != SpscQueueErrorKind::NONE) return;
    live_ = false;
    char text[96];
    std::snprintf(text, sizeof(text), "peer abort flag at counter offset %llu reads %d",
                  static_cast<unsigned long long>(peer_abort_offset_), flag_value);
    error_ = make_error(SpscQueueErrorKind::REMOTE_ABORTED, op, "%s", text);
    if (has_identity_) set_error_identity(&error_, session_bits_, transaction_id_);
  }

  // Samples the peer's abort flag (raised when >= 1). A view failure here is
  // not a shared mutation, but the handle cannot go on without its view.
  bool peer_abort_raised(SpscQueueOp op) {
    RegionSignalTestResult sample{};
    if (!view_.counter().test(peer_abort_offset_, 1, RegionWaitCmp::GE, sample)) {
      poison(SpscQueueErrorKind::ENDPOINT_ERROR, op, "counter test of the peer abort flag failed: %s",
             view_.error().message);
      return false;
    }
    if (sample.observed >= 1) {
      remote_abort(op, sample.observed);
      return true;
    }
    return false;
  }

  // The accessors below take the operation by reference: it is read only to
  // report a failure, so a call that succeeds loads nothing for it (they run
  // once or twice per message).

  // Reads one counter slot (acquire). False means the handle is now poisoned.
  bool read_counter(uint64_t offset, const SpscQueueOp& op, int32_t* observed) {
    RegionSignalTestResult sample{};
    if (!view_.counter().test(offset, 0, RegionWaitCmp::GE, sample)) {
      poison(SpscQueueErrorKind::ENDPOINT_ERROR, op, "counter test at offset %llu failed: %s",
             static_cast<unsigned long long>(offset), view_.error().message);
      return false;
    }
    *observed = sample.observed;
    return true;
  }

  // Maps [offset, offset + nbytes) of the payload part (a borrowed view). A
  // view that fails or lends less than asked poisons with ENDPOINT_ERROR.
  bool map_payload(uint64_t offset, uint64_t nbytes, const SpscQueueOp& op, uint8_t** out) {
    SpscQueuePayloadView span{};  // the runtime's own out type (any works)
    if (!view_.payload().read(offset, nbytes, span) || span.local_addr == 0 ||
        span.nbytes < nbytes) {
      poison(SpscQueueErrorKind::ENDPOINT_ERROR, op, "payload read of [%llu, +%llu) failed: %s",
             static_cast<unsigned long long>(offset), static_cast<unsigned long long>(nbytes),
             view_.error().message);
      return false;
    }
    *out = reinterpret_cast<uint8_t*>(span.local_addr);
    return true;
  }

  // Reads the 32 descriptor bytes at `offset`. False means poisoned.
  bool read_descriptor(uint64_t offset, const SpscQueueOp& op, SpscQueueDescriptor* d) {
    uint8_t* bytes = nullptr;
    if (!map_payload(offset, kDescriptorBytes, op, &bytes)) return false;
    *d = decode_descriptor(bytes);
    return true;
  }

  // Publishes one counter slot (plain Set, release). False means poisoned.
  bool write_counter(uint64_t offset, int32_t value, const SpscQueueOp& op) {
    if (!view_.counter().notify(offset, value, RegionNotifyOp::Set)) {
      poison(SpscQueueErrorKind::ENDPOINT_ERROR, op, "counter notify at offset %llu failed: %s",
             static_cast<unsigned long long>(offset), view_.error().message);
      return false;
    }
    return true;
  }

  // The blocking-call skeleton shared by every direction: timeout 0 is a live
  // no-attempt; otherwise `attempt` runs until it succeeds, the handle dies or
  // the clock passes the deadline, waiting between tries until the counter at
  // `watch_offset` differs from `watch_value()`. On expiry the peer abort
  // flag is sampled (never earlier: the spec ties it to expiry).
  template <class Attempt, class WatchValue>
  bool block(uint64_t timeout_ns, SpscQueueOp op, uint64_t watch_offset,
             Attempt&& attempt, WatchValue&& watch_value) {
    if (!live() || timeout_ns == 0) return false;
    const uint64_t start = now_ns();
    const uint64_t deadline = (start > ~uint64_t{0} - timeout_ns) ? ~uint64_t{0} : start + timeout_ns;
    // The newest counter value seen. An attempt that makes no progress need
    // not re-read the counter (a full input window, say), so the local value
    // can lag one a wait already returned; waiting on the local value again
    // would return at once, every time, and spin for the whole timeout.
    int32_t seen = watch_value();
    for (;;) {
      const int32_t local = watch_value();
      if (attempt()) return true;
      if (!live()) return false;
      if (watch_value() != local) seen = watch_value();
      const uint64_t now = now_ns();
      if (now >= deadline) break;
      int32_t observed = 0;
      if (view_.counter().wait(watch_offset, seen, RegionWaitCmp::NE, deadline - now, observed)) {
        seen = observed;
      } else if (view_.failed()) {
        poison(SpscQueueErrorKind::ENDPOINT_ERROR, op, "counter wait at offset %llu failed: %s",
               static_cast<unsigned long long>(watch_offset), view_.error().message);
        return false;
      }
    }
    peer_abort_raised(SpscQueueOp::TIMEOUT);
    return false;
  }

 private:
  void record(SpscQueueErrorKind kind, SpscQueueOp op, const char* fmt, va_list args) {
    SpscQueueError e;
    e.kind = kind;
    e.op = op;
    std::vsnprintf(e.message, sizeof(e.message), fmt, args);
    if (has_identity_) set_error_identity(&e, session_bits_, transaction_id_);
    live_ = false;
    error_ = e;
  }

  void raise_own_abort_flag() {
    if (!active_ || abort_flag_raised_) return;
    abort_flag_raised_ = true;  // once, even if the notify itself fails
    view_.counter().notify(own_abort_offset_, 1, RegionNotifyOp::Set);
  }

  View view_;
  MonotonicClock clock_;
  SpscQueueLayout layout_{};
  SpscQueueError error_{};
  const uint8_t* payload_base_ = nullptr;  // the payload span's base, for hints
  uint64_t session_bits_ = 0;
  uint64_t transaction_id_ = 0;
  uint64_t own_abort_offset_ = 0;
  uint64_t peer_abort_offset_ = 0;
  bool has_identity_ = false;
  bool active_ = false;
  bool live_ = false;  // active_ and no error_: what live() asks, one load per call
  bool abort_flag_raised_ = false;
};

}  // namespace spsc_queue

#endif  // SPSQ_COMMON_SPSQ_ENDPOINT_STATE_H_
