#include "testkit/direction_model.h"

#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>

namespace spsq_conf {
namespace {

void violate(std::vector<std::string>* out, const char* fmt, ...)
    __attribute__((format(printf, 2, 3)));
void violate(std::vector<std::string>* out, const char* fmt, ...) {
  char text[320];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(text, sizeof(text), fmt, args);
  va_end(args);
  out->push_back(text);
}

}  // namespace

Direction Direction::input(const wire::Layout& l) {
  return Direction{"input", l.depth, l.input_ring, l.input_arena, l.input_arena_bytes,
                   wire::kInputTail, wire::kInputHead, wire::kStop};
}

Direction Direction::output(const wire::Layout& l) {
  return Direction{"output", l.depth, l.output_ring, l.output_arena, l.output_arena_bytes,
                   wire::kOutputTail, wire::kOutputHead, wire::kError};
}

// ------------------------------------------------------------------ producer

uint64_t ModelProducer::head() {
  const int32_t raw = memory_->load_counter(dir_.head);
  uint64_t h = 0;
  if (!wire::reconstruct(head_, raw, dir_.depth, &h) || h > tail_) {
    violate(violations_, "S3.CTR.3: the consumer published %s head %d; known head %" PRIu64
            ", published %" PRIu64, dir_.name, raw, head_, tail_);
    return head_;
  }
  while (head_ < h) {
    released_cursor_ = next_cursors_.front();
    next_cursors_.pop_front();
    ++head_;
  }
  return head_;
}

uint64_t ModelProducer::next_offset(uint64_t nbytes) const {
  wire::Placement p;
  if (!wire::place(cursor_, nbytes, dir_.arena, dir_.arena_bytes, &p)) return ~uint64_t{0};
  return p.offset;
}

wire::Descriptor ModelProducer::next_valid(uint64_t opcode, uint64_t nbytes) const {
  return wire::Descriptor{wire::seq_of(tail_), opcode, nbytes == 0 ? 0 : next_offset(nbytes),
                          nbytes};
}

Enqueue ModelProducer::publish(uint64_t opcode, const void* bytes, uint64_t nbytes) {
  head();
  if (tail_ - head_ >= dir_.depth) return Enqueue::kRingFull;
  wire::Placement p;
  if (!wire::place(cursor_, nbytes, dir_.arena, dir_.arena_bytes, &p)) return Enqueue::kTooLarge;
  if (!wire::has_room(released_cursor_, cursor_, p, dir_.arena_bytes, !strict_room_)) {
    return Enqueue::kArenaFull;
  }
  if (nbytes != 0) memory_->write(p.offset, bytes, nbytes);
  uint8_t d[32];
  wire::encode_descriptor(wire::Descriptor{wire::seq_of(tail_), opcode, p.offset, nbytes}, d);
  const uint64_t slot = dir_.slot(tail_);
  memory_->write(slot + 8, d + 8, 24);
  memory_->write(slot, d, 8);
  ++tail_;
  cursor_ = p.next;
  next_cursors_.push_back(p.next);
  memory_->store_counter(dir_.tail, wire::low32(tail_));
  return Enqueue::kOk;
}

void ModelProducer::write_descriptor(uint64_t k, const wire::Descriptor& d) {
  uint8_t bytes[32];
  wire::encode_descriptor(d, bytes);
  memory_->write(dir_.slot(k), bytes, sizeof(bytes));
}

void ModelProducer::write_payload(uint64_t offset, const void* bytes, uint64_t nbytes) {
  memory_->write(offset, bytes, nbytes);
}

void ModelProducer::set_tail(int32_t raw) { memory_->store_counter(dir_.tail, raw); }

void ModelProducer::publish_raw(const wire::Descriptor& d) {
  write_descriptor(tail_, d);
  wire::Placement p;
  uint64_t next = cursor_;
  if (d.nbytes != 0 && wire::place(cursor_, d.nbytes, dir_.arena, dir_.arena_bytes, &p) &&
      p.offset == d.offset) {
    next = p.next;
  }
  cursor_ = next;
  next_cursors_.push_back(next);
  ++tail_;
  memory_->store_counter(dir_.tail, wire::low32(tail_));
}

// ------------------------------------------------------------------ consumer

bool ModelConsumer::poll(Message* out) {
  if (next_ == tail_) {
    const int32_t raw = memory_->load_counter(dir_.tail);
    uint64_t tail = 0;
    if (!wire::reconstruct(tail_, raw, dir_.depth, &tail) || tail - head_ > dir_.depth) {
      violate(violations_, "S3.CTR.3: the producer published %s tail %d; known tail %" PRIu64
              ", head %" PRIu64 ", depth %" PRIu64, dir_.name, raw, tail_, head_, dir_.depth);
      return false;
    }
    tail_ = tail;
    if (next_ == tail_) return false;
  }
  const uint64_t k = next_;
  uint8_t bytes[32];
  memory_->read(dir_.slot(k), bytes, sizeof(bytes));
  const wire::Descriptor d = wire::decode_descriptor(bytes);
  if (d.seq != wire::seq_of(k)) {
    violate(violations_, "W.SEQ.1: %s %" PRIu64 " carries seq %" PRIu64 ", want %" PRIu64,
            dir_.name, k, d.seq, wire::seq_of(k));
    return false;
  }
  if (d.opcode == wire::kStop && dir_.second_opcode != wire::kStop) {
    violate(violations_, "S2.STOP.1: STOP on the %s ring (seq %" PRIu64 ")", dir_.name, d.seq);
    return false;
  }
  if (d.opcode != wire::kData && d.opcode != dir_.second_opcode) {
    violate(violations_, "W.DIR.1: %s seq %" PRIu64 " has opcode %" PRIu64, dir_.name, d.seq,
            d.opcode);
    return false;
  }
  wire::Placement p{0, cursor_, cursor_, false};
  if (d.nbytes == 0) {
    if (d.offset != 0) {
      violate(violations_, "S2.ZERO.1: zero-byte %s seq %" PRIu64 " has payload_offset %" PRIu64,
              dir_.name, d.seq, d.offset);
      return false;
    }
  } else {
    if (d.opcode == wire::kStop) {
      violate(violations_, "S4.STOP.1: STOP seq %" PRIu64 " carries %" PRIu64 " bytes", d.seq,
              d.nbytes);
      return false;
    }
    const uint64_t lo = dir_.arena;
    const uint64_t hi = lo + dir_.arena_bytes;
    if (d.nbytes > dir_.arena_bytes || d.offset < lo || d.offset > hi - d.nbytes) {
      violate(violations_, "S2.FIT.1: %s seq %" PRIu64 " payload [%" PRIu64 ", +%" PRIu64
              ") is not inside its arena [%" PRIu64 ", %" PRIu64 ")",
              dir_.name, d.seq, d.offset, d.nbytes, lo, hi);
      return false;
    }
    wire::place(cursor_, d.nbytes, lo, dir_.arena_bytes, &p);
    if (p.offset != d.offset) {
      violate(violations_, "W.ARENA.1: %s seq %" PRIu64 " at offset %" PRIu64
              ", the arena rule places it at %" PRIu64, dir_.name, d.seq, d.offset, p.offset);
      return false;
    }
    // Sound without knowing which head the producer saw: releases only grow.
    if (!wire::has_room(released_cursor_, cursor_, p, dir_.arena_bytes, true)) {
      violate(violations_, "W.ARENA.2: %s seq %" PRIu64 " ends at cursor %" PRIu64
              " over unreleased payload (released up to %" PRIu64 ", arena %" PRIu64 ")",
              dir_.name, d.seq, p.next, released_cursor_, dir_.arena_bytes);
      return false;
    }
  }
  out->seq = d.seq;
  out->opcode = d.opcode;
  out->offset = d.offset;
  out->nbytes = d.nbytes;
  out->payload.resize(d.nbytes);
  if (d.nbytes != 0) memory_->read(d.offset, out->payload.data(), d.nbytes);
  cursor_ = p.next;
  next_cursors_.push_back(p.next);
  ++next_;
  return true;
}

void ModelConsumer::release(uint64_t n) {
  if (n > next_ - head_) {
    std::fprintf(stderr, "ModelConsumer: harness bug: release of %" PRIu64 ", %" PRIu64
                 " taken\n", n, next_ - head_);
    std::abort();
  }
  for (uint64_t i = 0; i < n; ++i) {
    released_cursor_ = next_cursors_.front();
    next_cursors_.pop_front();
  }
  head_ += n;
  memory_->store_counter(dir_.head, wire::low32(head_));
}

std::vector<Message> ModelConsumer::drain() {
  std::vector<Message> all;
  Message m;
  while (poll(&m)) {
    all.push_back(m);
    release(1);
  }
  return all;
}

void ModelConsumer::set_head(int32_t raw) { memory_->store_counter(dir_.head, raw); }

}  // namespace spsq_conf
