#include "conformance/harness/scripted_l3.h"

#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>

namespace spsq_conf {

using wire::Descriptor;
using wire::Placement;

ScriptedL3::ScriptedL3(RegionMemory* memory, const wire::Layout& layout)
    : memory_(memory), layout_(layout) {}

void ScriptedL3::violate(const char* fmt, ...) {
  char text[320];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(text, sizeof(text), fmt, args);
  va_end(args);
  violations_.push_back(text);
}

// ------------------------------------------------------------------ input

uint64_t ScriptedL3::input_head() {
  const int32_t raw = memory_->load_counter(wire::kInputHead);
  uint64_t head = 0;
  if (!wire::reconstruct(in_head_, raw, layout_.depth, &head) || head > in_tail_) {
    violate("S3.CTR.3: L2 published input head %d; known head %" PRIu64 ", published %" PRIu64,
            raw, in_head_, in_tail_);
    return in_head_;
  }
  while (in_head_ < head) {
    in_released_cursor_ = in_next_cursors_.front();
    in_next_cursors_.pop_front();
    ++in_head_;
  }
  return in_head_;
}

uint64_t ScriptedL3::next_input_offset(uint64_t nbytes) const {
  Placement p;
  if (!wire::place(in_cursor_, nbytes, layout_.input_arena, layout_.input_arena_bytes, &p)) {
    return ~uint64_t{0};
  }
  return p.offset;
}

Descriptor ScriptedL3::next_valid_descriptor(uint64_t opcode, uint64_t nbytes) const {
  return Descriptor{wire::seq_of(in_tail_), opcode, nbytes == 0 ? 0 : next_input_offset(nbytes),
                    nbytes};
}

ScriptedL3::Enqueue ScriptedL3::enqueue(uint64_t opcode, const void* bytes, uint64_t nbytes) {
  input_head();
  if (in_tail_ - in_head_ >= layout_.depth) return Enqueue::kRingFull;
  Placement p;
  if (!wire::place(in_cursor_, nbytes, layout_.input_arena, layout_.input_arena_bytes, &p)) {
    return Enqueue::kTooLarge;
  }
  if (!wire::has_room(in_released_cursor_, in_cursor_, p, layout_.input_arena_bytes,
                      !strict_room_)) {
    return Enqueue::kArenaFull;
  }
  // Producer sequence: payload, fields (bytes 8..31), seq, tail.
  if (nbytes != 0) memory_->write(p.offset, bytes, nbytes);
  const uint64_t slot = layout_.input_slot(in_tail_);
  uint8_t d[32];
  wire::encode_descriptor(Descriptor{wire::seq_of(in_tail_), opcode, p.offset, nbytes}, d);
  memory_->write(slot + 8, d + 8, 24);
  memory_->write(slot, d, 8);
  ++in_tail_;
  in_cursor_ = p.next;
  in_next_cursors_.push_back(p.next);
  memory_->store_counter(wire::kInputTail, wire::low32(in_tail_));
  return Enqueue::kOk;
}

void ScriptedL3::write_input_descriptor(uint64_t k, const Descriptor& d) {
  uint8_t bytes[32];
  wire::encode_descriptor(d, bytes);
  memory_->write(layout_.input_slot(k), bytes, sizeof(bytes));
}

void ScriptedL3::write_input_payload(uint64_t offset, const void* bytes, uint64_t nbytes) {
  memory_->write(offset, bytes, nbytes);
}

void ScriptedL3::set_input_tail(int32_t raw) { memory_->store_counter(wire::kInputTail, raw); }

void ScriptedL3::publish_raw(const Descriptor& d) {
  write_input_descriptor(in_tail_, d);
  Placement p;
  uint64_t next = in_cursor_;
  if (d.nbytes != 0 &&
      wire::place(in_cursor_, d.nbytes, layout_.input_arena, layout_.input_arena_bytes, &p) &&
      p.offset == d.offset) {
    next = p.next;
  }
  in_cursor_ = next;
  in_next_cursors_.push_back(next);
  ++in_tail_;
  memory_->store_counter(wire::kInputTail, wire::low32(in_tail_));
}

// ------------------------------------------------------------------ output

bool ScriptedL3::poll_output(Message* out) {
  if (out_next_ == out_tail_) {
    const int32_t raw = memory_->load_counter(wire::kOutputTail);
    uint64_t tail = 0;
    if (!wire::reconstruct(out_tail_, raw, layout_.depth, &tail) ||
        tail - out_head_ > layout_.depth) {
      violate("S3.CTR.3: L2 published output tail %d; known tail %" PRIu64 ", head %" PRIu64
              ", depth %" PRIu64, raw, out_tail_, out_head_, layout_.depth);
      return false;
    }
    out_tail_ = tail;
    if (out_next_ == out_tail_) return false;
  }
  const uint64_t k = out_next_;
  uint8_t bytes[32];
  memory_->read(layout_.output_slot(k), bytes, sizeof(bytes));
  const Descriptor d = wire::decode_descriptor(bytes);
  if (d.seq != wire::seq_of(k)) {
    violate("W.SEQ.1: output %" PRIu64 " carries seq %" PRIu64 ", want %" PRIu64, k, d.seq,
            wire::seq_of(k));
    return false;
  }
  if (d.opcode == wire::kStop) {
    violate("S2.STOP.1: L2 published STOP on the output ring (seq %" PRIu64 ")", d.seq);
    return false;
  }
  if (d.opcode != wire::kData && d.opcode != wire::kError) {
    violate("W.DIR.1: output seq %" PRIu64 " has opcode %" PRIu64, d.seq, d.opcode);
    return false;
  }
  Placement p{0, out_cursor_, out_cursor_, false};
  if (d.nbytes == 0) {
    if (d.offset != 0) {
      violate("S2.ZERO.1: zero-byte output seq %" PRIu64 " has payload_offset %" PRIu64, d.seq,
              d.offset);
      return false;
    }
  } else {
    const uint64_t lo = layout_.output_arena;
    const uint64_t hi = lo + layout_.output_arena_bytes;
    if (d.nbytes > layout_.output_arena_bytes || d.offset < lo || d.offset > hi - d.nbytes) {
      violate("S2.FIT.1: output seq %" PRIu64 " payload [%" PRIu64 ", +%" PRIu64
              ") is not inside the output arena [%" PRIu64 ", %" PRIu64 ")",
              d.seq, d.offset, d.nbytes, lo, hi);
      return false;
    }
    wire::place(out_cursor_, d.nbytes, lo, layout_.output_arena_bytes, &p);
    if (p.offset != d.offset) {
      violate("W.ARENA.1: output seq %" PRIu64 " at offset %" PRIu64
              ", the arena rule places it at %" PRIu64, d.seq, d.offset, p.offset);
      return false;
    }
    // Sound without knowing which head L2 saw: released payload only grows.
    if (!wire::has_room(out_released_cursor_, out_cursor_, p, layout_.output_arena_bytes, true)) {
      violate("W.ARENA.2: output seq %" PRIu64 " ends at cursor %" PRIu64
              " over unreleased payload (released up to %" PRIu64 ", arena %" PRIu64 ")",
              d.seq, p.next, out_released_cursor_, layout_.output_arena_bytes);
      return false;
    }
  }
  out->seq = d.seq;
  out->opcode = d.opcode;
  out->offset = d.offset;
  out->nbytes = d.nbytes;
  out->payload.resize(d.nbytes);
  if (d.nbytes != 0) memory_->read(d.offset, out->payload.data(), d.nbytes);
  out_cursor_ = p.next;
  out_next_cursors_.push_back(p.next);
  ++out_next_;
  return true;
}

void ScriptedL3::release_outputs(uint64_t n) {
  if (n > out_next_ - out_head_) {
    std::fprintf(stderr, "ScriptedL3: harness bug: release of %" PRIu64 " outputs, %" PRIu64
                 " taken\n", n, out_next_ - out_head_);
    std::abort();
  }
  for (uint64_t i = 0; i < n; ++i) {
    out_released_cursor_ = out_next_cursors_.front();
    out_next_cursors_.pop_front();
  }
  out_head_ += n;
  memory_->store_counter(wire::kOutputHead, wire::low32(out_head_));
}

std::vector<ScriptedL3::Message> ScriptedL3::drain_outputs() {
  std::vector<Message> all;
  Message m;
  while (poll_output(&m)) {
    all.push_back(m);
    release_outputs(1);
  }
  return all;
}

void ScriptedL3::set_output_head(int32_t raw) { memory_->store_counter(wire::kOutputHead, raw); }

// ------------------------------------------------------------------ flags

void ScriptedL3::set_initiator_flag(int32_t value) {
  memory_->store_counter(wire::kInitiatorFlag, value);
}

int32_t ScriptedL3::initiator_flag() const { return memory_->load_counter(wire::kInitiatorFlag); }

int32_t ScriptedL3::l2_flag() const { return memory_->load_counter(wire::kPeerFlag); }

}  // namespace spsq_conf
