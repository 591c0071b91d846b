// A legal variant with its own names: acme::Queue speaks the queue's wire
// exactly as the reference does (it wraps it), but its handle, reservation
// and opcode types have names of their own, in another namespace. It stands
// for an endpoint written elsewhere that the suite reaches only through an
// EndpointAccess adapter (the adapter example of INTERPRETING.md, compiled verbatim).
#ifndef ACME_QUEUE_H_
#define ACME_QUEUE_H_

#include <cstdint>
#include <utility>

#include "aicpu/region_instance_view.h"
#include "common/region_template.h"

namespace acme {

enum class Op : uint32_t { kData = 1, kStop = 2, kError = 3 };

// A received message. `cookie` and `offset` let release() rebuild the
// underlying handle; users read `sequence`, `op`, `size` and `data`.
struct Message {
  uint64_t sequence = 0;
  Op op = Op::kData;
  uint64_t size = 0;
  const uint8_t* data = nullptr;
  uint64_t offset = 0;
  uint64_t cookie = 0;
};

// A span to fill before publish.
struct Slot {
  uint64_t sequence = 0;
  uint64_t size = 0;
  uint8_t* data = nullptr;
  uint64_t offset = 0;
  uint64_t cookie = 0;
  bool valid = false;
};

template <class View, uint64_t Window = 1>
class Queue {
  using Inner = spsc_queue::SpscQueueEndpoint<View, Window>;

 public:
  class Input {
   public:
    bool try_peek(Message& m) { return take(q_->input().try_peek(h_), m); }
    bool peek(uint64_t timeout_ns, Message& m) { return take(q_->input().peek(timeout_ns, h_), m); }
    bool release(const Message& m) { return q_->input().release(handle_of(m)); }
    bool drained() const { return q_->input().drained(); }

   private:
    friend class Queue;
    explicit Input(Inner* q) : q_(q) {}
    bool take(bool got, Message& m) {
      if (!got) return false;
      m.sequence = h_.seq;
      m.op = static_cast<Op>(h_.opcode);
      m.size = h_.payload_nbytes;
      m.data = reinterpret_cast<const uint8_t*>(h_.payload.local_addr);
      m.offset = h_.payload_offset;
      m.cookie = h_.owner_cookie;
      return true;
    }
    static spsc_queue::SpscQueueInputHandle handle_of(const Message& m) {
      spsc_queue::SpscQueueInputHandle h{};
      h.seq = m.sequence;
      h.opcode = static_cast<spsc_queue::SpscQueueOpcode>(m.op);
      h.payload_offset = m.offset;
      h.payload_nbytes = m.size;
      h.payload.local_addr = reinterpret_cast<uintptr_t>(m.data);
      h.payload.nbytes = m.size;
      h.owner_cookie = m.cookie;
      return h;
    }
    Inner* q_;
    spsc_queue::SpscQueueInputHandle h_{};
  };

  class Output {
   public:
    bool try_reserve(uint64_t nbytes, Slot& s) { return take(q_->output().try_reserve(nbytes, r_), s); }
    bool reserve(uint64_t nbytes, uint64_t timeout_ns, Slot& s) {
      return take(q_->output().reserve(nbytes, timeout_ns, r_), s);
    }
    bool publish(const Slot& s, Op op) {
      spsc_queue::SpscQueueOutputReservation r{};
      r.seq = s.sequence;
      r.payload_offset = s.offset;
      r.payload_nbytes = s.size;
      r.payload.local_addr = reinterpret_cast<uintptr_t>(s.data);
      r.payload.nbytes = s.data != nullptr ? s.size : 0;
      r.owner_cookie = s.cookie;
      r.valid = s.valid;
      return q_->output().publish(r, static_cast<spsc_queue::SpscQueueOpcode>(op));
    }

   private:
    friend class Queue;
    explicit Output(Inner* q) : q_(q) {}
    bool take(bool got, Slot& s) {
      if (!got) return false;
      s.sequence = r_.seq;
      s.size = r_.payload_nbytes;
      s.data = reinterpret_cast<uint8_t*>(r_.payload.local_addr);
      s.offset = r_.payload_offset;
      s.cookie = r_.owner_cookie;
      s.valid = r_.valid;
      return true;
    }
    Inner* q_;
    spsc_queue::SpscQueueOutputReservation r_{};
  };

  Queue(const spsc_queue::SpscQueueEndpointBinding& binding, View view,
        spsc_queue::MonotonicClock clock)
      : q_(binding, std::move(view), clock), input_(&q_), output_(&q_) {}
  Queue(const Queue&) = delete;
  Queue& operator=(const Queue&) = delete;

  bool live() const { return q_.live(); }
  const spsc_queue::SpscQueueError& error() const { return q_.error(); }
  const spsc_queue::SpscQueueLayout& layout() const { return q_.layout(); }
  Input& input() { return input_; }
  Output& output() { return output_; }

 private:
  Inner q_;
  Input input_;
  Output output_;
};

}  // namespace acme

#endif  // ACME_QUEUE_H_
