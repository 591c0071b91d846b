// The consuming side of one direction (L2 input, L3 output).
//
// Invariants, with head_ <= next_ <= tail_ <= head_ + depth:
//   head_  messages physically released (the head counter we published)
//   next_  messages acquired (validated and handed out)
//   tail_  messages the producer published, as last reconstructed
// Acquired-but-unreleased entries [head_, next_) sit in entries_, at most
// `Slots` of them: the DATA window plus one slot kept for STOP. Release is
// logical; head_ advances only over the completed FIFO prefix, one head
// publish per physically released entry.
#ifndef SPSQ_COMMON_SPSQ_CONSUMER_H_
#define SPSQ_COMMON_SPSQ_CONSUMER_H_

#include <cinttypes>
#include <cstdint>

#include "aicpu/region_view_types.h"
#include "common/spsq_counter.h"
#include "common/spsq_descriptor.h"
#include "common/spsq_direction.h"
#include "common/spsq_endpoint_state.h"
#include "common/spsq_handles.h"
#include "common/spsq_validate.h"

namespace spsc_queue {

template <class View, uint64_t Slots>
class SpscConsumer {
  static_assert(Slots >= 1, "a consumer holds at least one message");

 public:
  // `data_window`: DATA messages that may be outstanding at once.
  // `repeat_active`: try_peek returns the oldest unreleased message again
  // instead of acquiring the next one (the L3 output handle semantics).
  SpscConsumer(SpscEndpointState<View>* state, const SpscDirection& dir, uint64_t data_window,
               bool repeat_active)
      : state_(state), dir_(dir), data_window_(data_window), repeat_active_(repeat_active) {}

  SpscConsumer(const SpscConsumer&) = delete;
  SpscConsumer& operator=(const SpscConsumer&) = delete;

  bool try_peek(SpscQueueInputHandle& h) {
    if (!state_->live()) return false;
    return try_peek_live(h);
  }

  // try_peek for a caller that has just found the handle live (the L3
  // queue's admission of the call): the same, without testing that again.
  bool try_peek_live(SpscQueueInputHandle& h) {
    if (repeat_active_ && __builtin_expect(next_ != head_, false)) {
      fill(entry(head_), head_, h);
      return true;
    }
    if (stop_acquired_) {
      check_nothing_after_stop();
      return false;
    }
    if (next_ == tail_ && (!refresh_tail() || next_ == tail_)) return false;
    prefetch_predicted_payload();

    SpscQueueDescriptor d;
    SpscArenaPlacement placement;
    if (!read_descriptor(next_, &d) || !validate(d, &placement)) return false;
    const bool is_stop = d.opcode == static_cast<uint64_t>(SpscQueueOpcode::STOP);
    if (!is_stop && data_outstanding_ >= data_window_) return false;  // window full: wait

    uint8_t* payload = nullptr;
    if (d.payload_nbytes != 0 &&
        !state_->map_payload(d.payload_offset, d.payload_nbytes, dir_.acquire_op, &payload)) {
      return false;
    }
    Entry& e = entry(next_);
    e = Entry{d.opcode, d.payload_offset, d.payload_nbytes, payload, false};
    ++next_;
    cursor_ = placement.next_cursor;
    advance_payload_hint(d.payload_offset, d.payload_nbytes);
    if (is_stop) {
      stop_acquired_ = true;
    } else {
      ++data_outstanding_;
    }
    fill(e, next_ - 1, h);
    return true;
  }

  bool peek(uint64_t timeout_ns, SpscQueueInputHandle& h) {
    return state_->block(
        timeout_ns, dir_.acquire_op, dir_.tail_counter, [&] { return try_peek(h); },
        [&] { return counter_low32(tail_); });
  }

  bool release(const SpscQueueInputHandle& h) {
    if (!state_->live()) return false;
    const uint64_t k = h.seq - 1;  // seq is 1-based; seq 0 wraps far out of range
    if (h.owner_cookie != state_->owner_token() || h.seq == 0 || k < head_ || k >= next_ ||
        !matches(entry(k), h) || entry(k).released) {
      state_->poison(SpscQueueErrorKind::OWNERSHIP, dir_.finish_op,
                     "release of a handle this queue does not hold (seq %" PRIu64
                     ", outstanding seq %" PRIu64 "..%" PRIu64 ")",
                     h.seq, head_ + 1, next_);
      return false;
    }
    entry(k).released = true;
    while (head_ != next_ && entry(head_).released) {
      if (!state_->write_counter(dir_.head_counter, counter_low32(head_ + 1), dir_.finish_op)) {
        return false;
      }
      retire_head(entry(head_).opcode);
    }
    return true;
  }

  // release(h) of the message try_peek just handed out as `h`, when it is
  // the only one outstanding (always so on the L3 output, which holds one at
  // a time). release()'s handle checks hold by construction there, so only
  // the physical release is made: one head publish. Otherwise release(h).
  bool release_sole(const SpscQueueInputHandle& h) {
    if (__builtin_expect(next_ - head_ != 1, false)) return release(h);
    if (!state_->write_counter(dir_.head_counter, counter_low32(next_), dir_.finish_op)) {
      return false;
    }
    retire_head(static_cast<uint64_t>(h.opcode));
    return true;
  }

  // True once STOP has been physically released.
  bool drained() const { return drained_; }
  bool stop_acquired() const { return stop_acquired_; }
  uint64_t outstanding() const { return next_ - head_; }

 private:
  struct Entry {
    uint64_t opcode;
    uint64_t offset;
    uint64_t nbytes;
    const uint8_t* payload;
    bool released;
  };

  Entry& entry(uint64_t k) { return entries_[k % Slots]; }

  // The head entry, of `opcode`, leaves the ring (its head publish made).
  void retire_head(uint64_t opcode) {
    if (opcode == static_cast<uint64_t>(SpscQueueOpcode::STOP)) {
      drained_ = true;
    } else {
      --data_outstanding_;
    }
    ++head_;
  }

  // `e` is entry(k): its index is its place in the ring, not stored.
  void fill(const Entry& e, uint64_t k, SpscQueueInputHandle& h) const {
    h.seq = expected_seq(k);
    h.opcode = static_cast<SpscQueueOpcode>(e.opcode);  // validated: DATA, STOP or ERROR
    h.payload_offset = e.offset;
    h.payload_nbytes = e.nbytes;
    h.payload.local_addr = reinterpret_cast<uintptr_t>(e.payload);
    h.payload.nbytes = e.nbytes;
    h.owner_cookie = state_->owner_token();
  }

  static bool matches(const Entry& e, const SpscQueueInputHandle& h) {
    return e.opcode == static_cast<uint64_t>(h.opcode) && e.offset == h.payload_offset && e.nbytes == h.payload_nbytes;
  }

  // The arena rule fixes where the next payload starts unless it wraps, so
  // its line is fetched while the descriptor is read: two misses overlap
  // instead of following each other (64 B round trip -18%, measured). Only a
  // payload that starts a fresh line: one that shares the line of the message
  // before it may share it with one the producer is still writing, and
  // pulling that line early measured 25-40% slower for 8 B streams. Issued after
  // the tail moved, never on empty polls (also measured slower). A hint only:
  // nothing is read before the descriptor validated the placement. The
  // target is chosen when the hint moves (advance_payload_hint), without a
  // branch because GCC drops a prefetch guarded by one; `this` is a harmless
  // stand-in. Kept as an address: one load per message.
  void prefetch_predicted_payload() { __builtin_prefetch(prefetch_at_); }

  // The message after one at [offset, offset + nbytes) starts where it ends
  // unless the arena wraps; zero-byte messages do not move the cursor.
  void advance_payload_hint(uint64_t offset, uint64_t nbytes) {
    if (nbytes == 0) return;
    const uint8_t* start = state_->payload_address(dir_.in_arena_or_start(offset + nbytes));
    const bool fresh_line = (reinterpret_cast<uintptr_t>(start) & 63) == 0;
    prefetch_at_ = fresh_line ? static_cast<const void*>(start) : static_cast<const void*>(this);
  }

  // Reconstructs the producer's tail. False: nothing new, or poisoned.
  bool refresh_tail() {
    int32_t observed = 0;
    if (!state_->read_counter(dir_.tail_counter, dir_.acquire_op, &observed)) return false;
    uint64_t tail = 0;
    if (!reconstruct_counter(tail_, observed, dir_.depth, &tail) || tail - head_ > dir_.depth) {
      state_->poison(SpscQueueErrorKind::INVALID_DESCRIPTOR, dir_.acquire_op,
                     "impossible tail counter %d: known tail %" PRIu64 ", head %" PRIu64
                     ", depth %" PRIu64, observed, tail_, head_, dir_.depth);
      return false;
    }
    tail_ = tail;
    return true;
  }

  // After STOP nothing may follow; a later descriptor poisons.
  void check_nothing_after_stop() {
    if (!refresh_tail() || tail_ == next_) return;
    state_->poison(SpscQueueErrorKind::INVALID_DESCRIPTOR, dir_.acquire_op,
                   "descriptor published after STOP (tail %" PRIu64 ", STOP was seq %" PRIu64 ")",
                   tail_, next_);
  }

  bool read_descriptor(uint64_t k, SpscQueueDescriptor* d) {
    return state_->read_descriptor(dir_.slot_offset(k), dir_.acquire_op, d);
  }

  bool validate(const SpscQueueDescriptor& d, SpscArenaPlacement* placement) {
    char why[kSpscQueueErrorMessageBytes];
    if (validate_descriptor(dir_, d, next_, cursor_, placement, why, sizeof(why))) return true;
    state_->poison(SpscQueueErrorKind::INVALID_DESCRIPTOR, dir_.acquire_op, "%s", why);
    return false;
  }

  SpscEndpointState<View>* state_;
  SpscDirection dir_;
  uint64_t data_window_;
  bool repeat_active_;
  uint64_t head_ = 0;
  uint64_t next_ = 0;
  uint64_t tail_ = 0;
  uint64_t cursor_ = 0;  // arena cursor of the next message to acquire
  // The line the next payload likely starts, or a stand-in (until the first
  // sized message: the payload base may not be known yet).
  const void* prefetch_at_ = this;
  uint64_t data_outstanding_ = 0;
  bool stop_acquired_ = false;
  bool drained_ = false;
  Entry entries_[Slots] = {};
};

}  // namespace spsc_queue

#endif  // SPSQ_COMMON_SPSQ_CONSUMER_H_
