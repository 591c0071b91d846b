// SPSQ seen through the benchmark channel interface, one adapter per end and
// direction. Every adapter copies exactly once per message, as the anchors
// do: senders from a private staging buffer into the queue, receivers from the
// queue into a private sink.
//
// Channel interface (also implemented by the anchors):
//   Sender:   uint8_t* source(); bool try_send(); bool live(); std::string error();
//   Receiver: uint64_t try_recv(StampChecker&); bool live(); std::string error();
// try_send sends the staging buffer once; try_recv takes every message it
// can (at most the receiver's window) and returns how many.
#ifndef SPSQ_BENCH_SPSQ_CHANNELS_H_
#define SPSQ_BENCH_SPSQ_CHANNELS_H_

#include <cstdint>
#include <cstring>
#include <string>

#include "bench/aligned_buffer.h"
#include "bench/spsq_pair.h"
#include "bench/stamp.h"

namespace spsq_bench {

// L3 try_enqueue: the queue copies from the caller's bytes.
template <uint64_t M>
class SpsqL3Sender {
 public:
  SpsqL3Sender(SpsqPair<M>& pair, uint64_t nbytes) : l3_(pair.l3()), staging_(nbytes) {}
  uint8_t* source() { return staging_.data(); }
  bool try_send() {
    return l3_.input().try_enqueue(staging_.data(), staging_.size()) ==
           spsc_queue::WorkerChipQueueStatus::OK;
  }
  bool live() const { return l3_.live(); }
  std::string error() const { return std::string("L3: ") + l3_.error().message; }

 private:
  typename SpsqPair<M>::L3& l3_;
  AlignedBuffer staging_;
};

// L2 input: take up to M handles, copy each out, release them in order.
template <uint64_t M>
class SpsqL2Receiver {
 public:
  SpsqL2Receiver(SpsqPair<M>& pair, uint64_t nbytes) : l2_(pair.l2()), sink_(nbytes) {}
  uint64_t try_recv(StampChecker& checker) {
    spsc_queue::SpscQueueInputHandle h[M];
    uint64_t got = 0;
    while (got < M && l2_.input().try_peek(h[got])) ++got;
    for (uint64_t i = 0; i < got; ++i) {
      const uint64_t n = h[i].payload_nbytes <= sink_.size() ? h[i].payload_nbytes : 0;
      if (n != 0) std::memcpy(sink_.data(), spsc_queue::payload_data(h[i]), n);
      checker.check(sink_.data(), h[i].payload_nbytes, sink_.size());
      l2_.input().release(h[i]);
    }
    return got;
  }
  bool live() const { return l2_.live(); }
  std::string error() const { return std::string("L2: ") + l2_.error().message; }

 private:
  typename SpsqPair<M>::L2& l2_;
  AlignedBuffer sink_;
};

// L2 output: reserve a mapped span, fill it, publish in place.
template <uint64_t M>
class SpsqL2Sender {
 public:
  SpsqL2Sender(SpsqPair<M>& pair, uint64_t nbytes) : l2_(pair.l2()), staging_(nbytes) {}
  uint8_t* source() { return staging_.data(); }
  bool try_send() {
    spsc_queue::SpscQueueOutputReservation r;
    if (!l2_.output().try_reserve(staging_.size(), r)) return false;
    std::memcpy(spsc_queue::payload_data(r), staging_.data(), staging_.size());
    return l2_.output().publish(r, spsc_queue::SpscQueueOpcode::DATA);
  }
  bool live() const { return l2_.live(); }
  std::string error() const { return std::string("L2: ") + l2_.error().message; }

 private:
  typename SpsqPair<M>::L2& l2_;
  AlignedBuffer staging_;
};

// L3 try_dequeue_into: peek, copy into the caller's buffer, release.
template <uint64_t M>
class SpsqL3Receiver {
 public:
  SpsqL3Receiver(SpsqPair<M>& pair, uint64_t nbytes) : l3_(pair.l3()), sink_(nbytes) {}
  uint64_t try_recv(StampChecker& checker) {
    spsc_queue::WorkerChipMessage m;
    if (l3_.output().try_dequeue_into(sink_.data(), sink_.size(), &m) !=
        spsc_queue::WorkerChipQueueStatus::OK) {
      return 0;
    }
    checker.check(sink_.data(), m.payload_nbytes, sink_.size());
    return 1;
  }
  bool live() const { return l3_.live(); }
  std::string error() const { return std::string("L3: ") + l3_.error().message; }

 private:
  typename SpsqPair<M>::L3& l3_;
  AlignedBuffer sink_;
};

}  // namespace spsq_bench

#endif  // SPSQ_BENCH_SPSQ_CHANNELS_H_
