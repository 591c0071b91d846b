// The producing side of one direction (L3 input, L2 output).
//
// Invariants, with head_ <= tail_ <= head_ + depth:
//   tail_            messages published (the tail counter we wrote)
//   head_            messages the consumer released, as last reconstructed
//   cursor_          arena cursor after the last published message
//   released_cursor_ arena cursor after the last released message, found by
//                    replaying released descriptors with the arena rule
//                    (none to replay while no sized message is unreleased)
// Unreleased payload is the cursor range [released_cursor_, cursor_). The
// peer's head is re-read only when the ring or the arena looks full.
#ifndef SPSQ_COMMON_SPSQ_PRODUCER_H_
#define SPSQ_COMMON_SPSQ_PRODUCER_H_

#include <cinttypes>
#include <cstdint>

#include "aicpu/region_view_types.h"
#include "common/spsq_arena.h"
#include "common/spsq_counter.h"
#include "common/spsq_descriptor.h"
#include "common/spsq_direction.h"
#include "common/spsq_endpoint_state.h"
#include "common/spsq_handles.h"
#include "common/spsq_validate.h"

namespace spsc_queue {

template <class View>
class SpscProducer {
 public:
  SpscProducer(SpscEndpointState<View>* state, const SpscDirection& dir)
      : state_(state), dir_(dir) {}

  SpscProducer(const SpscProducer&) = delete;
  SpscProducer& operator=(const SpscProducer&) = delete;

  // One active reservation at a time. False without an error for ordinary
  // backpressure (ring or arena full) and for a message larger than the arena.
  bool try_reserve(uint64_t nbytes, SpscQueueOutputReservation& r) {
    return reserve_impl(nbytes, r, /*map_payload=*/true);
  }

  bool reserve(uint64_t nbytes, uint64_t timeout_ns, SpscQueueOutputReservation& r) {
    return reserve_blocking(nbytes, timeout_ns, r, /*map_payload=*/true);
  }

  // Reserves without mapping the span, for a publish that copies from `src`.
  bool try_reserve_unmapped(uint64_t nbytes, SpscQueueOutputReservation& r) {
    return reserve_impl(nbytes, r, /*map_payload=*/false);
  }
  bool reserve_unmapped(uint64_t nbytes, uint64_t timeout_ns, SpscQueueOutputReservation& r) {
    return reserve_blocking(nbytes, timeout_ns, r, /*map_payload=*/false);
  }

  // The operations errors report from now on (L3 uses one producer for both
  // enqueue and request_stop).
  void set_operations(SpscQueueOp acquire, SpscQueueOp finish) {
    // Mostly what the call before set: a test per call, not a store.
    if (__builtin_expect(dir_.acquire_op == acquire && dir_.finish_op == finish, true)) return;
    dir_.acquire_op = acquire;
    dir_.finish_op = finish;
  }

  // Publishes the active reservation: payload flush, descriptor bytes 8..31,
  // seq, then the tail counter. `src`, when given, is copied into the span
  // (the L3 path); otherwise the span the user filled is flushed in place.
  bool publish(const SpscQueueOutputReservation& r, SpscQueueOpcode opcode) {
    return publish_from(r, opcode, nullptr);
  }

  // publish() for a producer that copies from `src` into the span (L3).
  bool publish_from(const SpscQueueOutputReservation& r, SpscQueueOpcode opcode,
                    const void* src) {
    if (!state_->live()) return false;
    if (!active_ || !r.valid || r.owner_cookie != state_->owner_token() ||
        r.seq != expected_seq(tail_) || r.payload_offset != active_placement_.payload_offset ||
        r.payload_nbytes != active_nbytes_) {
      state_->poison(SpscQueueErrorKind::OWNERSHIP, dir_.finish_op,
                     "publish of an unknown, stale, already-published or foreign reservation "
                     "(seq %" PRIu64 ", active %s seq %" PRIu64 ")",
                     r.seq, active_ ? "is" : "none,", expected_seq(tail_));
      return false;
    }
    const uint64_t op = static_cast<uint64_t>(opcode);
    if (!dir_.carries(op) ||
        (opcode == SpscQueueOpcode::STOP && active_nbytes_ != 0)) {
      state_->poison(SpscQueueErrorKind::BAD_ARGUMENT, dir_.finish_op,
                     "opcode %" PRIu64 " (%s) with %" PRIu64 " bytes cannot be published here",
                     op, opcode_name(op), active_nbytes_);
      return false;
    }
    active_ = false;
    if (active_nbytes_ != 0) {
      const void* bytes = src != nullptr ? src : static_cast<const void*>(payload_data(r));
      if (bytes == nullptr ||
          !state_->view().payload().write(r.payload_offset, bytes, active_nbytes_)) {
        return fail_mutation("payload write");
      }
    }
    const uint64_t slot = dir_.slot_offset(tail_);
    uint8_t body[24];
    encode_descriptor_body(SpscQueueDescriptor{0, op, active_placement_.payload_offset,
                                               active_nbytes_}, body);
    if (!state_->view().payload().write(slot + kDescriptorOpcodeOffset, body, sizeof(body))) {
      return fail_mutation("descriptor write");
    }
    uint8_t seq[8];
    store_le64(seq, expected_seq(tail_));
    if (!state_->view().payload().write(slot + kDescriptorSeqOffset, seq, sizeof(seq))) {
      return fail_mutation("descriptor seq write");
    }
    if (!state_->write_counter(dir_.tail_counter, counter_low32(tail_ + 1), dir_.finish_op)) {
      return false;
    }
    ++tail_;
    cursor_ = active_placement_.next_cursor;
    prefetch_next_payload();
    return true;
  }

  uint64_t published() const { return tail_; }
  uint64_t arena_bytes() const { return dir_.arena_bytes; }

 private:
  bool reserve_blocking(uint64_t nbytes, uint64_t timeout_ns, SpscQueueOutputReservation& r,
                        bool map_payload) {
    if (nbytes > dir_.arena_bytes) return false;  // can never fit: nothing to wait for
    return state_->block(
        timeout_ns, dir_.acquire_op, dir_.head_counter,
        [&] { return reserve_impl(nbytes, r, map_payload); },
        [&] { return counter_low32(head_); });
  }

  bool reserve_impl(uint64_t nbytes, SpscQueueOutputReservation& r, bool map_payload) {
    if (!state_->live()) return false;
    if (active_) {
      state_->poison(SpscQueueErrorKind::OWNERSHIP, dir_.acquire_op,
                     "reserve while reservation seq %" PRIu64 " is still active",
                     expected_seq(tail_));
      return false;
    }
    if (nbytes > dir_.arena_bytes) return false;
    if (tail_ - head_ == dir_.depth && (!refresh_head() || tail_ - head_ == dir_.depth)) {
      return false;
    }
    SpscArenaPlacement p;
    if (!arena_place(cursor_, nbytes, dir_.arena_offset, dir_.arena_bytes, &p)) {
      state_->poison(SpscQueueErrorKind::INVALID_DESCRIPTOR, dir_.acquire_op,
                     "arena cursor %" PRIu64 " overflows", cursor_);
      return false;
    }
    if (!arena_has_room(released_cursor_, cursor_, p, dir_.arena_bytes) &&
        (!refresh_head() || !arena_has_room(released_cursor_, cursor_, p, dir_.arena_bytes))) {
      return false;
    }
    uint8_t* span_addr = nullptr;
    if (nbytes != 0 && map_payload &&
        !state_->map_payload(p.payload_offset, nbytes, dir_.acquire_op, &span_addr)) {
      return false;
    }
    active_ = true;
    active_placement_ = ActivePlacement{p.payload_offset, p.next_cursor};
    active_nbytes_ = nbytes;
    r.seq = expected_seq(tail_);
    r.payload_offset = p.payload_offset;
    r.payload_nbytes = nbytes;
    r.payload.local_addr = reinterpret_cast<uintptr_t>(span_addr);
    r.payload.nbytes = span_addr != nullptr ? nbytes : 0;
    r.owner_cookie = state_->owner_token();
    r.valid = true;
    return true;
  }

  // Reconstructs the consumer's head and replays the descriptors it released
  // to learn how much arena they free. False: nothing new, or poisoned.
  bool refresh_head() {
    int32_t observed = 0;
    if (!state_->read_counter(dir_.head_counter, dir_.acquire_op, &observed)) return false;
    uint64_t head = 0;
    if (!reconstruct_counter(head_, observed, dir_.depth, &head) || head > tail_) {
      state_->poison(SpscQueueErrorKind::INVALID_DESCRIPTOR, dir_.acquire_op,
                     "impossible head counter %d: known head %" PRIu64 ", tail %" PRIu64
                     ", depth %" PRIu64, observed, head_, tail_, dir_.depth);
      return false;
    }
    // A released zero-byte message frees no arena. When nothing sized was
    // published since the last released message (the cursor has not moved
    // past released_cursor_), every message up to the new head is zero-byte
    // and the replay could only confirm released_cursor_: it is skipped, and
    // nothing of those descriptors is read back.
    if (cursor_ == released_cursor_) {
      head_ = head;
      return true;
    }
    for (; head_ != head; ++head_) {
      SpscQueueDescriptor d;
      if (!state_->read_descriptor(dir_.slot_offset(head_), dir_.acquire_op, &d)) return false;
      SpscArenaPlacement p;
      char why[kSpscQueueErrorMessageBytes];
      if (!validate_descriptor(dir_, d, head_, released_cursor_,
                               &p, why, sizeof(why))) {
        state_->poison(SpscQueueErrorKind::INVALID_DESCRIPTOR, dir_.acquire_op,
                       "payload replay of a released descriptor failed: %s", why);
        return false;
      }
      released_cursor_ = p.next_cursor;
    }
    return true;
  }

  // The next message most likely goes where this one ended (unless the arena
  // wraps). Fetching the first line this pass has not written yet, while the
  // peer works, takes its miss off a later publish, whose tail cannot become
  // visible before the payload store does. Never the line just written: the
  // consumer is about to read it, and small messages share it. A hint only;
  // unconditional because GCC drops a prefetch guarded by a branch. Its
  // address is kept, not its offset: one load per publish instead of three.
  void prefetch_next_payload() {
    if (active_nbytes_ != 0) {
      const uint64_t end = active_placement_.payload_offset + active_nbytes_;
      const uint64_t line = (end + kLine - 1) & ~(kLine - 1);  // arena offsets are 64-aligned
      prefetch_at_ = state_->payload_address(dir_.in_arena_or_start(line));
    }
    __builtin_prefetch(prefetch_at_, 1);
  }

  static constexpr uint64_t kLine = 64;

  bool fail_mutation(const char* what) {
    state_->poison(SpscQueueErrorKind::ENDPOINT_ERROR, dir_.finish_op,
                   "%s failed after shared mutation began: %s", what,
                   state_->view().error().message);
    return false;
  }

  SpscEndpointState<View>* state_;
  SpscDirection dir_;
  uint64_t tail_ = 0;
  uint64_t head_ = 0;
  uint64_t cursor_ = 0;
  uint64_t released_cursor_ = 0;
  // Where the active reservation's payload starts and where its message
  // leaves the cursor (what publish needs of its SpscArenaPlacement).
  struct ActivePlacement {
    uint64_t payload_offset;
    uint64_t next_cursor;
  };
  bool active_ = false;  // a reservation for seq tail_ + 1 is out
  ActivePlacement active_placement_{};
  uint64_t active_nbytes_ = 0;
  // The next line the producer will write; until the first sized message a
  // harmless stand-in (the payload base may not be known yet).
  const void* prefetch_at_ = this;
};

}  // namespace spsc_queue

#endif  // SPSQ_COMMON_SPSQ_PRODUCER_H_
