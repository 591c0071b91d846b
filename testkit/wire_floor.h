// The wire floor: what one SPSQ message costs the wire itself, on plain
// memory, with no view, no harness and no endpoint API in between. Both ends
// of one direction run in one thread: the producer writes the 32-byte
// descriptor (bytes 8..31, then seq) and publishes the low 32 bits of its
// tail; the consumer reconstructs the tail, validates the descriptor (seq,
// opcode, offset and size by the arena rule) and releases its head. Each
// side reconstructs the other's counter when it runs out of known room or
// messages, as an endpoint may (wire-contract.md, "Counters and flags").
//
// It is the yardstick of the harness's counter-wrap runs, which do this work
// plus the endpoint's and the harness's: written from the wire contract and
// the suite's wire model, never from an implementation. The wrap samples it
// in its own threads after each of its chunks (lean_wrap_driver.h), and
// bench/wire_floor runs it alone.
#ifndef SPSQ_TESTKIT_WIRE_FLOOR_H_
#define SPSQ_TESTKIT_WIRE_FLOOR_H_

#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "model/wire_model.h"
#include "testkit/thread_cpu_time.h"

namespace spsq_conf {
namespace wire_floor {

namespace w = wire;

// One direction of a queue, as both its ends see it.
struct Direction {
  const char* name;
  uint64_t ring;         // payload offset of the descriptor ring
  uint64_t tail_at;      // counter offsets
  uint64_t head_at;
  uint64_t arena;        // payload offset of the arena
  uint64_t arena_bytes;
  uint64_t opcodes;      // bit i set: opcode i travels this way
};

inline Direction InputOf(const w::Layout& l) {
  return {"input",          l.input_ring,          w::kInputTail,
          w::kInputHead,    l.input_arena,         l.input_arena_bytes,
          (uint64_t{1} << w::kData) | (uint64_t{1} << w::kStop)};
}

inline Direction OutputOf(const w::Layout& l) {
  return {"output",         l.output_ring,         w::kOutputTail,
          w::kOutputHead,   l.output_arena,        l.output_arena_bytes,
          (uint64_t{1} << w::kData) | (uint64_t{1} << w::kError)};
}

// The signals are 32-bit slots on their stride; the peer's side of a
// release store is an acquire load, as in a RegionView's counter part.
inline int32_t LoadCounter(const uint8_t* counters, uint64_t at) {
  return __atomic_load_n(reinterpret_cast<const int32_t*>(counters + at), __ATOMIC_ACQUIRE);
}
inline void StoreCounter(uint8_t* counters, uint64_t at, int32_t v) {
  __atomic_store_n(reinterpret_cast<int32_t*>(counters + at), v, __ATOMIC_RELEASE);
}

enum class Step { kDone, kNoProgress, kBroken };

// The producing end. `start` is the 64-bit count both ends begin at (a
// start near 2^32 makes every run cross the wrap and the sign boundary).
class Producer {
 public:
  Producer(uint8_t* payload, uint8_t* counters, uint64_t depth, Direction d, uint64_t start)
      : p_(payload), c_(counters), depth_(depth), d_(d), tail_(start), head_(start),
        ends_(depth, 0) {}

  // Places and publishes one message of `nbytes` (its bytes are not
  // written: the floor moves descriptors, as the zero-byte wrap does).
  __attribute__((always_inline)) Step Send(uint64_t opcode, uint64_t nbytes) {
    if (tail_ - head_ == depth_ && !Refresh()) return Step::kBroken;
    if (tail_ - head_ == depth_) return Step::kNoProgress;
    w::Placement at;
    if (!w::place(cursor_, nbytes, d_.arena, d_.arena_bytes, &at)) {
      return Fail("a message of this many bytes never fits the arena: ", nbytes);
    }
    if (!w::has_room(released_, cursor_, at, d_.arena_bytes, true)) {
      if (!Refresh()) return Step::kBroken;
      if (!w::has_room(released_, cursor_, at, d_.arena_bytes, true)) return Step::kNoProgress;
    }
    uint8_t* slot = p_ + d_.ring + (tail_ & (depth_ - 1)) * w::kDescriptorBytes;
    w::store_le64(slot + w::kOpcodeAt, opcode);
    w::store_le64(slot + w::kOffsetAt, at.offset);
    w::store_le64(slot + w::kNbytesAt, nbytes);
    w::store_le64(slot + w::kSeqAt, w::seq_of(tail_));  // seq last: bytes 8..31 first
    ends_[tail_ & (depth_ - 1)] = cursor_ = at.next;
    ++tail_;
    StoreCounter(c_, d_.tail_at, w::low32(tail_));
    return Step::kDone;
  }

  uint64_t tail() const { return tail_; }
  const std::string& error() const { return error_; }

 private:
  // Reads the consumer's head: it may only have moved forward, by at most
  // what was published; the arena up to the last released message is free.
  bool Refresh() {
    const int32_t seen = LoadCounter(c_, d_.head_at);
    uint64_t head = 0;
    if (!w::reconstruct(head_, seen, depth_, &head) || head > tail_) {
      Fail("impossible head counter ", static_cast<uint64_t>(static_cast<uint32_t>(seen)));
      return false;
    }
    if (head != head_) released_ = ends_[(head - 1) & (depth_ - 1)];
    head_ = head;
    return true;
  }
  // Out of line and cold: the hot path stays the wire's work alone.
  __attribute__((noinline, cold)) Step Fail(const char* what, uint64_t value) {
    error_ = std::string(d_.name) + " producer, message " + std::to_string(tail_) + ": " + what +
             std::to_string(value);
    return Step::kBroken;
  }

  uint8_t* p_;
  uint8_t* c_;
  uint64_t depth_;
  Direction d_;
  uint64_t tail_;
  uint64_t head_;  // as last observed
  uint64_t cursor_ = 0;
  uint64_t released_ = 0;
  std::vector<uint64_t> ends_;  // arena cursor after each message in the ring
  std::string error_;
};

// What the consumer took: the descriptor's fields, validated.
struct Message {
  uint64_t seq = 0;
  uint64_t opcode = 0;
  uint64_t offset = 0;
  uint64_t nbytes = 0;
};

// The consuming end: takes, validates and releases one message at a time.
class Consumer {
 public:
  Consumer(uint8_t* payload, uint8_t* counters, uint64_t depth, Direction d, uint64_t start)
      : p_(payload), c_(counters), depth_(depth), d_(d), head_(start), tail_(start) {}

  __attribute__((always_inline)) Step Receive(Message* m) {
    if (head_ == tail_) {
      const int32_t seen = LoadCounter(c_, d_.tail_at);
      if (!w::reconstruct(tail_, seen, depth_, &tail_) || tail_ - head_ > depth_) {
        return Fail("impossible tail counter ",
                    static_cast<uint64_t>(static_cast<uint32_t>(seen)));
      }
      if (head_ == tail_) return Step::kNoProgress;
    }
    const w::Descriptor d =
        w::decode_descriptor(p_ + d_.ring + (head_ & (depth_ - 1)) * w::kDescriptorBytes);
    if (d.seq != w::seq_of(head_)) return Fail("wrong seq ", d.seq);
    if (d.opcode >= 64 || (d_.opcodes >> d.opcode & 1) == 0) {
      return Fail("opcode not of this direction: ", d.opcode);
    }
    if (d.opcode == w::kStop && d.nbytes != 0) return Fail("STOP with payload bytes: ", d.nbytes);
    w::Placement at;
    if (!w::place(cursor_, d.nbytes, d_.arena, d_.arena_bytes, &at)) {
      return Fail("payload size exceeds the arena: ", d.nbytes);
    }
    if (d.offset != at.offset) return Fail("payload replay: offset ", d.offset);
    cursor_ = at.next;
    *m = Message{d.seq, d.opcode, d.offset, d.nbytes};
    ++head_;
    StoreCounter(c_, d_.head_at, w::low32(head_));
    return Step::kDone;
  }

  uint64_t head() const { return head_; }
  const std::string& error() const { return error_; }

 private:
  __attribute__((noinline, cold)) Step Fail(const char* what, uint64_t value) {
    error_ = std::string(d_.name) + " consumer, message " + std::to_string(head_) + ": " + what +
             std::to_string(value);
    return Step::kBroken;
  }

  const uint8_t* p_;
  uint8_t* c_;
  uint64_t depth_;
  Direction d_;
  uint64_t head_;
  uint64_t tail_;  // as last observed
  uint64_t cursor_ = 0;
  std::string error_;
};

// One queue's memory: the payload and counter parts of its layout, zeroed,
// each on whole pages, with the counters preset to a common start. Page
// alignment fixes where the descriptors and the counters fall relative to
// each other modulo 4 KiB, where a store and a later load can be mistaken
// for the same address: left to the heap, that placement, and the floor's
// speed with it, changed from run to run (measured: 3.1 against 3.4 ns).
class Region {
 public:
  Region(const w::Layout& l, uint64_t start)
      : layout_(l), payload_(Pages(l.payload_bytes)), counters_(Pages(w::kCounterBytes)) {
    for (uint64_t at : {w::kInputTail, w::kInputHead, w::kOutputTail, w::kOutputHead}) {
      if (counters_) StoreCounter(counters(), at, w::low32(start));
    }
  }
  bool ok() const { return payload_ && counters_; }
  const w::Layout& layout() const { return layout_; }
  uint8_t* payload() { return payload_[0].bytes; }
  uint8_t* counters() { return counters_[0].bytes; }

 private:
  struct alignas(4096) Page {
    uint8_t bytes[4096];
  };
  static std::unique_ptr<Page[]> Pages(uint64_t nbytes) {
    return std::unique_ptr<Page[]>(new (std::nothrow) Page[nbytes / 4096 + 1]());
  }

  w::Layout layout_;
  std::unique_ptr<Page[]> payload_;
  std::unique_ptr<Page[]> counters_;
};

// The floor's queue: the counter-wrap runs' shape (testkit/
// lean_wrap_driver.h): depth 1024, 64-byte arenas, zero-byte DATA.
inline constexpr uint64_t kDepth = 1024;
inline constexpr uint64_t kArenaBytes = 64;
// Three rings short of 2^32: every run longer than that crosses the 32-bit
// wrap of the counters.
inline constexpr uint64_t kStart = (uint64_t{1} << 32) - 3 * kDepth;

// Sends `messages` zero-byte DATA through `d` of `region` from kStart, a
// ring at a time (the producer fills it, the consumer drains it, as the wrap
// runs do), checking each as the consumer must. "" or what went wrong.
inline std::string Stream(Region& region, const Direction& d, uint64_t messages) {
  const uint64_t depth = region.layout().depth;
  StoreCounter(region.counters(), d.tail_at, w::low32(kStart));
  StoreCounter(region.counters(), d.head_at, w::low32(kStart));
  Producer tx(region.payload(), region.counters(), depth, d, kStart);
  Consumer rx(region.payload(), region.counters(), depth, d, kStart);
  Message m;
  for (uint64_t k = 0; k < messages;) {
    const uint64_t batch = messages - k < depth ? messages - k : depth;
    for (uint64_t i = 0; i < batch; ++i) {
      if (tx.Send(w::kData, 0) != Step::kDone) return tx.error().empty() ? "ring full" : tx.error();
    }
    // The memory is shared: what the producer stored must be read back.
    asm volatile("" ::: "memory");
    for (uint64_t i = 0; i < batch; ++i) {
      if (rx.Receive(&m) != Step::kDone) return rx.error().empty() ? "ring empty" : rx.error();
    }
    asm volatile("" ::: "memory");
    k += batch;
  }
  return "";
}

// Stream() of `messages` timed in the calling thread's CPU time: ns per
// message into *ns, "" or what went wrong.
inline std::string TimedStream(Region& region, const Direction& d, uint64_t messages,
                               double* ns) {
  const uint64_t start = thread_cpu_ns();
  std::string error = Stream(region, d, messages);
  *ns = static_cast<double>(thread_cpu_ns() - start) / static_cast<double>(messages);
  return error;
}

}  // namespace wire_floor
}  // namespace spsq_conf

#endif  // SPSQ_TESTKIT_WIRE_FLOOR_H_
