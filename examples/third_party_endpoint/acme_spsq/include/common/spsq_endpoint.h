// SpscQueueEndpoint<RegionView, MaxInflight>: the L2 side of an SPSQ queue.
//
// L2 consumes the input direction (L3 -> L2) and produces the output
// direction (L2 -> L3). The endpoint touches shared memory only through the
// RegionView it was given, and trusts nothing it reads there: the peer may
// be hostile, so every counter, descriptor field and payload placement is
// validated before use, and every access stays inside the view's spans.
//
//   spsc_queue::SpscQueueEndpoint<RegionInstanceView, 4> q(binding, std::move(view), clock);
//   SpscQueueInputHandle h;
//   if (q.input().peek(timeout_ns, h)) { ...; q.input().release(h); }
//   SpscQueueOutputReservation r;
//   if (q.output().reserve(n, timeout_ns, r)) { fill and flush r.payload; q.output().publish(r, DATA); }
//
// Input invariants (logical message indices; seq = index + 1):
//   in_head_ <= in_next_ <= in_tail_ <= in_head_ + depth
//   [0, in_head_)        physically released (the shared input head)
//   [in_head_, in_next_) acquired; each is either held (in held_) or
//                        released out of order, waiting for the FIFO prefix
//   [in_next_, in_tail_) published by L3, not yet acquired
// The window bounds held DATA/ERROR handles by MaxInflight; STOP has its own
// slot. Once STOP is acquired nothing after it is, and any descriptor
// published after it poisons.
//
// Output invariants:
//   out_head_ <= out_tail_ <= out_head_ + depth
//   out_released_cursor_ <= out_cursor_ (arena byte cursors after
//   [0, out_head_) and [0, out_tail_)); equal when out_head_ == out_tail_.
// At most one reservation is active (res_.valid); publish consumes it.
//
// Errors: the first error is recorded and is terminal (live() == false).
// Poison raises the L2 abort flag once; construction errors and
// REMOTE_ABORTED never do. Ordinary no-progress returns false with kind NONE.
#ifndef SPSQ_INDEPENDENT_COMMON_SPSQ_ENDPOINT_H_
#define SPSQ_INDEPENDENT_COMMON_SPSQ_ENDPOINT_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

#include "aicpu/region_view_types.h"
#include "common/spsq_wire.h"

namespace spsc_queue {
namespace detail {

// Distinguishes handles and reservations of different endpoints (including
// one destroyed and re-created at the same address).
inline uint64_t next_endpoint_tag() {
  static uint64_t last = 0;
  return __atomic_add_fetch(&last, 1, __ATOMIC_RELAXED);
}

// Bounded, always NUL-terminated text for SpscQueueError::message.
class MessageWriter {
 public:
  MessageWriter(char* buf, size_t cap) : buf_(buf), cap_(cap) { buf_[0] = '\0'; }
  MessageWriter& text(const char* s, size_t max_chars = SIZE_MAX) {
    for (size_t i = 0; s != nullptr && i < max_chars && s[i] != '\0'; ++i) put(s[i]);
    return *this;
  }
  MessageWriter& hex(uint64_t v) {
    text("0x");
    for (int shift = 60; shift >= 0; shift -= 4) put("0123456789abcdef"[(v >> shift) & 0xf]);
    return *this;
  }

 private:
  void put(char c) {
    if (len_ + 1 >= cap_) return;
    buf_[len_++] = c;
    buf_[len_] = '\0';
  }
  char* buf_;
  size_t cap_;
  size_t len_ = 0;
};

inline bool same_payload(const SpscQueuePayloadView& a, const SpscQueuePayloadView& b) {
  return a.local_addr == b.local_addr && a.nbytes == b.nbytes;
}

// The arena rule (wire-contract.md, "Payload arena allocation") replayed by
// a consumer: given the cursor before descriptor d, checks d's placement and
// advances the cursor. Returns nullptr when d is placed exactly as the rule
// says, else why not. Never reads memory.
inline const char* replay_placement(const SpscQueueDescriptor& d, uint64_t arena_offset,
                                    uint64_t arena_bytes, uint64_t* cursor) {
  const uint64_t n = d.payload_nbytes;
  if (n == 0) return d.payload_offset == 0 ? nullptr : "zero-byte payload with nonzero offset";
  if (n > arena_bytes || d.payload_offset < arena_offset ||
      d.payload_offset - arena_offset > arena_bytes - n) {
    return "payload outside its arena";
  }
  uint64_t next = *cursor;
  uint64_t pos = next % arena_bytes;
  if (pos + n > arena_bytes) {  // does not fit before the end: skip the tail
    next += arena_bytes - pos;
    pos = 0;
  }
  if (d.payload_offset != arena_offset + pos) return "payload replay mismatch";
  *cursor = next + n;
  return nullptr;
}

}  // namespace detail

template <class RegionView, uint64_t MaxInflight = 1>
class SpscQueueEndpoint {
 public:
  class Input {
   public:
    // Blocks up to timeout_ns for the next input; 0 is a live no-attempt.
    bool peek(uint64_t timeout_ns, SpscQueueInputHandle& handle) {
      return q_->input_peek(timeout_ns, handle);
    }
    bool try_peek(SpscQueueInputHandle& handle) { return q_->input_try_peek(handle); }
    // Logical completion; the shared head moves over the released prefix.
    bool release(const SpscQueueInputHandle& handle) { return q_->input_release(handle); }
    // True once STOP has been physically released.
    bool drained() const { return q_->stop_acquired_ && q_->in_head_ > q_->stop_index_; }

   private:
    friend class SpscQueueEndpoint;
    explicit Input(SpscQueueEndpoint* q) : q_(q) {}
    SpscQueueEndpoint* q_;
  };

  class Output {
   public:
    // Blocks up to timeout_ns for ring and arena room; 0 is a live no-attempt.
    bool reserve(uint64_t nbytes, uint64_t timeout_ns, SpscQueueOutputReservation& r) {
      return q_->output_reserve(nbytes, timeout_ns, r);
    }
    bool try_reserve(uint64_t nbytes, SpscQueueOutputReservation& r) {
      return q_->output_try_reserve(nbytes, r);
    }
    // Writes the descriptor and the tail. The payload bytes are the caller's
    // to write and flush before this call (they are not copied here).
    bool publish(const SpscQueueOutputReservation& r, SpscQueueOpcode opcode) {
      return q_->output_publish(r, opcode);
    }

   private:
    friend class SpscQueueEndpoint;
    explicit Output(SpscQueueEndpoint* q) : q_(q) {}
    SpscQueueEndpoint* q_;
  };

  // Validates everything it can without touching shared memory; makes no
  // shared access at all. On failure the endpoint is not live and the abort
  // flag is left alone.
  SpscQueueEndpoint(const SpscQueueEndpointBinding& binding, RegionView view,
                    MonotonicClock clock)
      : view_(std::move(view)), clock_(clock), input_(this), output_(this) {
    constexpr SpscQueueErrorKind kBinding = SpscQueueErrorKind::BAD_BINDING;
    if (binding.magic_version != kSpscQueueMagicVersion) {
      init_failed(kBinding, "unsupported SPSQ magic_version");
      return;
    }
    if (binding.transaction_id == 0) {
      init_failed(kBinding, "transaction_id is zero");
      return;
    }
    SpscQueueLayout layout;
    if (!SpscQueueLayout::create(binding.depth, binding.input_arena_bytes,
                                 binding.output_arena_bytes, &layout)) {
      init_failed(kBinding, "depth and arena sizes do not form a valid layout");
      return;
    }
    if (binding.payload_bytes != layout.payload_bytes ||
        binding.counter_bytes != layout.counter_bytes) {
      init_failed(kBinding, "payload_bytes/counter_bytes differ from the layout");
      return;
    }
    // The binding is self-consistent: from here on errors carry its identity.
    binding_ = binding;
    layout_ = layout;
    identity_known_ = true;
    if (MaxInflight == 0 || MaxInflight > layout_.depth) {
      init_failed(SpscQueueErrorKind::BAD_ARGUMENT, "MaxInflight outside 1..depth");
      return;
    }
    if (clock_.now_ns == nullptr) {
      init_failed(SpscQueueErrorKind::BAD_ARGUMENT, "clock without now_ns");
      return;
    }
    if (view_.failed()) {
      init_failed(SpscQueueErrorKind::ENDPOINT_ERROR, "view failed before construction",
                  true);
      return;
    }
    const RegionPartLocalSpan payload = view_.payload().span();
    const RegionPartLocalSpan counter = view_.counter().span();
    if (payload.base != binding_.payload_base ||
        payload.logical_bytes != binding_.payload_bytes ||
        counter.base != binding_.counter_base ||
        counter.logical_bytes != binding_.counter_bytes) {
      init_failed(kBinding, "binding does not match the view's spans");
      return;
    }
    accepted_ = true;
  }

  // Direction objects point back at the endpoint: it stays put.
  SpscQueueEndpoint(const SpscQueueEndpoint&) = delete;
  SpscQueueEndpoint& operator=(const SpscQueueEndpoint&) = delete;

  bool live() const { return accepted_ && error_.kind == SpscQueueErrorKind::NONE; }
  const SpscQueueError& error() const { return error_; }
  const SpscQueueLayout& layout() const { return layout_; }

  Input& input() { return input_; }
  const Input& input() const { return input_; }
  Output& output() { return output_; }
  const Output& output() const { return output_; }

 private:
  // Window storage: MaxInflight DATA/ERROR handles plus the STOP slot. An
  // out-of-range MaxInflight never gets past construction.
  static constexpr uint64_t kSlots =
      (MaxInflight >= 1 && MaxInflight <= kMaxDepth) ? MaxInflight + 1 : 1;

  // ---- input (consumer) ----------------------------------------------------

  bool input_peek(uint64_t timeout_ns, SpscQueueInputHandle& handle) {
    return blocking(timeout_ns, kInputDescTailOffset, &in_tail_seen_,
                    SpscQueueOp::INPUT_TRY_PEEK, [&] { return input_try_peek(handle); });
  }

  bool input_try_peek(SpscQueueInputHandle& handle) {
    constexpr SpscQueueOp op = SpscQueueOp::INPUT_TRY_PEEK;
    if (!live() || !observe_input_tail(op)) return false;
    if (stop_acquired_ || in_next_ == in_tail_) return false;  // draining or empty

    const uint64_t index = in_next_;
    SpscQueueDescriptor d;
    if (!read_descriptor(layout_.input_desc_offset, index, op, &d)) return false;
    if (d.seq != index + 1) return poison(kInvalid, op, "input descriptor seq mismatch");
    const bool stop = d.opcode == static_cast<uint64_t>(SpscQueueOpcode::STOP);
    uint64_t cursor = in_cursor_;
    if (stop) {
      if (d.payload_offset != 0 || d.payload_nbytes != 0) {
        return poison(kInvalid, op, "input STOP with a payload");
      }
    } else if (d.opcode != static_cast<uint64_t>(SpscQueueOpcode::DATA) &&
               d.opcode != static_cast<uint64_t>(SpscQueueOpcode::ERROR)) {
      return poison(kInvalid, op, "invalid input opcode");
    } else if (const char* why = detail::replay_placement(d, layout_.input_arena_offset,
                                                          layout_.input_arena_bytes, &cursor)) {
      return poison(kInvalid, op, why);
    }
    // A full window leaves a valid DATA published; STOP has its own slot.
    if (!stop && held_data_ >= MaxInflight) return false;

    SpscQueuePayloadView payload{};
    if (d.payload_nbytes != 0 && !borrow(d.payload_offset, d.payload_nbytes, op, &payload)) {
      return false;
    }
    SpscQueueInputHandle* slot = free_slot();
    if (slot == nullptr) return poison(SpscQueueErrorKind::ENDPOINT_ERROR, op, "no free slot");
    slot->seq = d.seq;
    slot->opcode = static_cast<SpscQueueOpcode>(d.opcode);
    slot->payload_offset = d.payload_offset;
    slot->payload_nbytes = d.payload_nbytes;
    slot->payload = payload;
    slot->owner_cookie = tag_;
    in_next_ = index + 1;
    in_cursor_ = cursor;
    if (stop) {
      stop_acquired_ = true;
      stop_index_ = index;
      if (in_tail_ > in_next_) return poison(kInvalid, op, kAfterStop);
    } else {
      ++held_data_;
    }
    handle = *slot;
    return true;
  }

  bool input_release(const SpscQueueInputHandle& handle) {
    constexpr SpscQueueOp op = SpscQueueOp::INPUT_RELEASE;
    if (!live()) return false;
    SpscQueueInputHandle* held = nullptr;
    for (auto& h : held_) {
      if (h.seq != 0 && same_handle(h, handle)) held = &h;
    }
    if (held == nullptr) {
      return poison(SpscQueueErrorKind::OWNERSHIP, op,
                    "release of an unknown, stale, foreign or already released input handle");
    }
    if (held->opcode != SpscQueueOpcode::STOP) --held_data_;
    *held = SpscQueueInputHandle{};
    // The physical head is the oldest still-held index (or all acquired).
    uint64_t head = in_next_;
    for (const auto& h : held_) {
      if (h.seq != 0 && h.seq - 1 < head) head = h.seq - 1;
    }
    if (head == in_head_) return true;
    if (!view_.counter().notify(kInputDescHeadOffset, counter_low32(head), RegionNotifyOp::Set)) {
      return poison_view(op, "input head publish failed");
    }
    in_head_ = head;
    return true;
  }

  // Reads the input tail; poisons on impossible progress or on anything
  // published after an acquired STOP.
  bool observe_input_tail(SpscQueueOp op) {
    RegionSignalTestResult sample{};
    if (!view_.counter().test(kInputDescTailOffset, counter_low32(in_tail_), RegionWaitCmp::NE,
                              sample)) {
      return poison_view(op, "input tail read failed");
    }
    in_tail_seen_ = sample.observed;
    uint64_t tail = 0;
    if (!reconstruct_counter(in_tail_, sample.observed, layout_.depth, &tail) ||
        tail - in_head_ > layout_.depth) {
      return poison(kInvalid, op, "impossible input tail progress");
    }
    in_tail_ = tail;
    if (stop_acquired_ && in_tail_ > stop_index_ + 1) return poison(kInvalid, op, kAfterStop);
    return true;
  }

  SpscQueueInputHandle* free_slot() {
    for (auto& h : held_) {
      if (h.seq == 0) return &h;
    }
    return nullptr;
  }

  bool same_handle(const SpscQueueInputHandle& a, const SpscQueueInputHandle& b) const {
    return a.seq == b.seq && a.opcode == b.opcode && a.payload_offset == b.payload_offset &&
           a.payload_nbytes == b.payload_nbytes && detail::same_payload(a.payload, b.payload) &&
           a.owner_cookie == b.owner_cookie;
  }

  // ---- output (producer) ---------------------------------------------------

  bool output_reserve(uint64_t nbytes, uint64_t timeout_ns, SpscQueueOutputReservation& r) {
    return blocking(timeout_ns, kOutputDescHeadOffset, &out_head_seen_,
                    SpscQueueOp::OUTPUT_TRY_RESERVE,
                    [&] { return output_try_reserve(nbytes, r); });
  }

  bool output_try_reserve(uint64_t nbytes, SpscQueueOutputReservation& r) {
    constexpr SpscQueueOp op = SpscQueueOp::OUTPUT_TRY_RESERVE;
    if (!live() || !observe_output_head(op)) return false;
    const uint64_t arena = layout_.output_arena_bytes;
    if (res_.valid) return false;                            // one reservation at a time
    if (nbytes > arena) return false;                        // can never fit: no progress
    if (out_tail_ - out_head_ >= layout_.depth) return false;  // ring full

    uint64_t cursor = out_cursor_;
    uint64_t offset = 0;
    if (nbytes != 0) {
      uint64_t pos = cursor % arena;
      if (pos + nbytes > arena) {  // not contiguous before the end: skip the tail
        cursor += arena - pos;
        pos = 0;
      }
      cursor += nbytes;
      // The room bound, except on an idle arena, where every n <= arena fits
      // (wire-contract.md, "Liveness").
      const bool idle = out_released_cursor_ == out_cursor_;
      if (!idle && cursor - out_released_cursor_ > arena) return false;  // arena full
      offset = layout_.output_arena_offset + pos;
    }
    SpscQueuePayloadView payload{};
    if (nbytes != 0 && !borrow(offset, nbytes, op, &payload)) return false;
    res_.seq = out_tail_ + 1;
    res_.payload_offset = offset;
    res_.payload_nbytes = nbytes;
    res_.payload = payload;
    res_.owner_cookie = tag_;
    res_.valid = true;
    res_cursor_ = cursor;
    r = res_;
    return true;
  }

  bool output_publish(const SpscQueueOutputReservation& r, SpscQueueOpcode opcode) {
    constexpr SpscQueueOp op = SpscQueueOp::OUTPUT_PUBLISH;
    if (!live()) return false;
    if (!res_.valid || !same_reservation(r, res_)) {
      return poison(SpscQueueErrorKind::OWNERSHIP, op,
                    "publish of an unknown, stale, already published or foreign reservation");
    }
    if (opcode == SpscQueueOpcode::STOP) return poison(kInvalid, op, "STOP on the output queue");
    if (opcode != SpscQueueOpcode::DATA && opcode != SpscQueueOpcode::ERROR) {
      return poison(kInvalid, op, "invalid output opcode");
    }
    SpscQueueDescriptor d;
    d.seq = res_.seq;
    d.opcode = static_cast<uint64_t>(opcode);
    d.payload_offset = res_.payload_offset;
    d.payload_nbytes = res_.payload_nbytes;
    uint8_t raw[kDescriptorBytes];
    encode_descriptor(d, raw);
    const uint64_t at = descriptor_offset(layout_.output_desc_offset, res_.seq - 1);
    res_.valid = false;
    // Fields first, seq last, then the tail: a consumer that sees the tail
    // sees the whole descriptor.
    if (!view_.payload().write(at + 8, raw + 8, kDescriptorBytes - 8) ||
        !view_.payload().write(at, raw, 8)) {
      return poison_view(op, "output descriptor write failed");
    }
    if (!view_.counter().notify(kOutputDescTailOffset, counter_low32(d.seq),
                                RegionNotifyOp::Set)) {
      return poison_view(op, "output tail publish failed");
    }
    out_tail_ = d.seq;
    out_cursor_ = res_cursor_;
    return true;
  }

  // Reads the output head and replays the descriptors it released, from
  // the ring itself, to learn the released arena cursor. The ring is shared
  // memory: a released descriptor that no longer matches what the arena
  // rule allows poisons ("payload replay").
  bool observe_output_head(SpscQueueOp op) {
    RegionSignalTestResult sample{};
    if (!view_.counter().test(kOutputDescHeadOffset, counter_low32(out_head_),
                              RegionWaitCmp::NE, sample)) {
      return poison_view(op, "output head read failed");
    }
    out_head_seen_ = sample.observed;
    uint64_t head = 0;
    if (!reconstruct_counter(out_head_, sample.observed, layout_.depth, &head) ||
        head > out_tail_) {
      return poison(kInvalid, op, "impossible output head progress");
    }
    uint64_t cursor = out_released_cursor_;
    for (uint64_t index = out_head_; index < head; ++index) {
      SpscQueueDescriptor d;
      if (!read_descriptor(layout_.output_desc_offset, index, op, &d)) return false;
      const bool opcode_ok = d.opcode == static_cast<uint64_t>(SpscQueueOpcode::DATA) ||
                             d.opcode == static_cast<uint64_t>(SpscQueueOpcode::ERROR);
      if (d.seq != index + 1 || !opcode_ok ||
          detail::replay_placement(d, layout_.output_arena_offset, layout_.output_arena_bytes,
                                   &cursor) != nullptr) {
        return poison(kInvalid, op, "payload replay of a released output descriptor failed");
      }
    }
    if (cursor > out_cursor_ || (head == out_tail_ && cursor != out_cursor_)) {
      return poison(kInvalid, op, "payload replay of released outputs overran the arena cursor");
    }
    out_head_ = head;
    out_released_cursor_ = cursor;
    return true;
  }

  bool same_reservation(const SpscQueueOutputReservation& a,
                        const SpscQueueOutputReservation& b) const {
    return a.valid == b.valid && a.seq == b.seq && a.payload_offset == b.payload_offset &&
           a.payload_nbytes == b.payload_nbytes && detail::same_payload(a.payload, b.payload) &&
           a.owner_cookie == b.owner_cookie;
  }

  // ---- shared helpers ------------------------------------------------------

  // Retries `attempt` until it succeeds, the endpoint dies or the deadline
  // passes, waiting on `counter` (through the view, never spinning on test)
  // while it still shows the value the last attempt saw. After an expired
  // wait, a raised initiator flag turns the timeout into REMOTE_ABORTED.
  template <class Attempt>
  bool blocking(uint64_t timeout_ns, uint64_t counter, const int32_t* seen, SpscQueueOp op,
                Attempt&& attempt) {
    if (!live() || timeout_ns == 0) return false;
    const uint64_t start = clock_.now_ns();
    const uint64_t deadline = timeout_ns > UINT64_MAX - start ? UINT64_MAX : start + timeout_ns;
    for (;;) {
      if (attempt()) return true;
      if (!live()) return false;
      const uint64_t now = clock_.now_ns();
      if (now >= deadline) break;
      int32_t observed = 0;
      if (!view_.counter().wait(counter, *seen, RegionWaitCmp::NE, deadline - now, observed) &&
          view_.failed()) {
        return poison_view(op, "counter wait failed");
      }
    }
    RegionSignalTestResult flag{};
    if (!view_.counter().test(kInitiatorAbortOffset, 1, RegionWaitCmp::GE, flag)) {
      return poison_view(SpscQueueOp::TIMEOUT, "initiator abort flag read failed");
    }
    if (flag.observed >= 1) {
      record(SpscQueueErrorKind::REMOTE_ABORTED, SpscQueueOp::TIMEOUT,
             "initiator abort flag raised (seen after a timed-out wait)", false);
    }
    return false;
  }

  uint64_t descriptor_offset(uint64_t ring_offset, uint64_t index) const {
    return ring_offset + (index & (layout_.depth - 1)) * kDescriptorBytes;
  }

  // One snapshot of a descriptor slot: what is validated is what is used.
  bool read_descriptor(uint64_t ring_offset, uint64_t index, SpscQueueOp op,
                       SpscQueueDescriptor* d) {
    SpscQueuePayloadView slot{};
    if (!borrow(descriptor_offset(ring_offset, index), kDescriptorBytes, op, &slot)) {
      return false;
    }
    uint8_t raw[kDescriptorBytes];
    std::memcpy(raw, reinterpret_cast<const void*>(static_cast<uintptr_t>(slot.local_addr)),
                sizeof(raw));
    *d = decode_descriptor(raw);
    return true;
  }

  // A readable range of the payload part, through the view.
  bool borrow(uint64_t offset, uint64_t nbytes, SpscQueueOp op, SpscQueuePayloadView* out) {
    SpscQueuePayloadView v{};
    if (!view_.payload().read(offset, nbytes, v)) return poison_view(op, "payload read failed");
    if (v.local_addr == 0 || v.nbytes != nbytes) {
      return poison_view(op, "payload read returned a different range");
    }
    *out = v;
    return true;
  }

  // Records the first error only; returns whether this one was recorded.
  bool record(SpscQueueErrorKind kind, SpscQueueOp op, const char* what, bool with_view) {
    if (error_.kind != SpscQueueErrorKind::NONE) return false;
    error_.kind = kind;
    error_.op = op;
    detail::MessageWriter m(error_.message, sizeof(error_.message));
    m.text("spsq L2: ").text(what);
    if (with_view) m.text(" (view: ").text(view_.error().message, 96).text(")");
    if (identity_known_) {
      error_.session_instance_id_bits = binding_.session_instance_id_bits;
      error_.transaction_id = binding_.transaction_id;
      m.text("; session_instance_id_bits=").hex(binding_.session_instance_id_bits);
      m.text(" transaction_id=").hex(binding_.transaction_id);
    }
    return true;
  }

  void init_failed(SpscQueueErrorKind kind, const char* what, bool with_view = false) {
    record(kind, SpscQueueOp::INIT, what, with_view);
  }

  // Terminal failure of a live endpoint: record it, raise the L2 flag once.
  bool poison(SpscQueueErrorKind kind, SpscQueueOp op, const char* what,
              bool with_view = false) {
    if (record(kind, op, what, with_view) && accepted_ && !flag_raised_) {
      flag_raised_ = true;
      if (!view_.failed()) {  // a failed view cannot carry it anyway
        view_.counter().notify(kPeerAbortOffset, 1, RegionNotifyOp::Set);
      }
    }
    return false;
  }

  bool poison_view(SpscQueueOp op, const char* what) {
    return poison(SpscQueueErrorKind::ENDPOINT_ERROR, op, what, true);
  }

  static constexpr SpscQueueErrorKind kInvalid = SpscQueueErrorKind::INVALID_DESCRIPTOR;
  static constexpr const char* kAfterStop = "input descriptor published after STOP";

  RegionView view_;
  MonotonicClock clock_;
  SpscQueueEndpointBinding binding_{};
  SpscQueueLayout layout_{};
  SpscQueueError error_{};
  const uint64_t tag_ = detail::next_endpoint_tag();
  bool identity_known_ = false;
  bool accepted_ = false;
  bool flag_raised_ = false;

  uint64_t in_head_ = 0;
  uint64_t in_next_ = 0;
  uint64_t in_tail_ = 0;
  uint64_t in_cursor_ = 0;  // expected input arena cursor after [0, in_next_)
  int32_t in_tail_seen_ = 0;
  uint64_t held_data_ = 0;  // held DATA/ERROR handles, <= MaxInflight
  SpscQueueInputHandle held_[kSlots] = {};  // seq == 0: free
  bool stop_acquired_ = false;
  uint64_t stop_index_ = 0;

  uint64_t out_tail_ = 0;
  uint64_t out_head_ = 0;
  uint64_t out_cursor_ = 0;           // producer cursor after [0, out_tail_)
  uint64_t out_released_cursor_ = 0;  // replayed cursor after [0, out_head_)
  int32_t out_head_seen_ = 0;
  SpscQueueOutputReservation res_{};
  uint64_t res_cursor_ = 0;  // out_cursor_ once res_ is published

  Input input_;
  Output output_;
};

}  // namespace spsc_queue

#endif  // SPSQ_INDEPENDENT_COMMON_SPSQ_ENDPOINT_H_
