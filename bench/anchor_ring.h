// Anchor: the minimal SPSC ring a careful engineer would write by hand.
// Fixed-size slots, head and tail each alone on a cache line, and each side
// caching the other's index on its own line so it reads the shared one only
// when the ring looks full (producer) or empty (consumer).
#ifndef SPSQ_BENCH_ANCHOR_RING_H_
#define SPSQ_BENCH_ANCHOR_RING_H_

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>

#include "bench/aligned_buffer.h"
#include "bench/stamp.h"

namespace spsq_bench {

class PaddedRing {
 public:
  // `capacity` must be a power of two.
  PaddedRing(uint64_t capacity, uint64_t slot_bytes)
      : slots_(capacity * slot_bytes, 64), mask_(capacity - 1), slot_bytes_(slot_bytes) {}

  bool try_push(const uint8_t* src) {
    if (prod_.tail - prod_.head_cache > mask_) {
      prod_.head_cache = head_.v.load(std::memory_order_acquire);
      if (prod_.tail - prod_.head_cache > mask_) return false;
    }
    std::memcpy(slot(prod_.tail), src, slot_bytes_);
    tail_.v.store(++prod_.tail, std::memory_order_release);
    return true;
  }

  bool try_pop(uint8_t* dst) {
    if (cons_.head == cons_.tail_cache) {
      cons_.tail_cache = tail_.v.load(std::memory_order_acquire);
      if (cons_.head == cons_.tail_cache) return false;
    }
    std::memcpy(dst, slot(cons_.head), slot_bytes_);
    head_.v.store(++cons_.head, std::memory_order_release);
    return true;
  }

 private:
  struct alignas(64) Shared {
    std::atomic<uint64_t> v{0};
  };
  struct alignas(64) ProducerLocal {
    uint64_t tail = 0;
    uint64_t head_cache = 0;
  };
  struct alignas(64) ConsumerLocal {
    uint64_t head = 0;
    uint64_t tail_cache = 0;
  };

  uint8_t* slot(uint64_t i) { return slots_.data() + (i & mask_) * slot_bytes_; }

  Shared tail_;
  Shared head_;
  ProducerLocal prod_;
  ConsumerLocal cons_;
  AlignedBuffer slots_;
  uint64_t mask_;
  uint64_t slot_bytes_;
};

class RingSender {
 public:
  RingSender(PaddedRing& ring, uint64_t nbytes) : ring_(ring), staging_(nbytes) {}
  uint8_t* source() { return staging_.data(); }
  bool try_send() { return ring_.try_push(staging_.data()); }
  bool live() const { return true; }
  std::string error() const { return {}; }

 private:
  PaddedRing& ring_;
  AlignedBuffer staging_;
};

class RingReceiver {
 public:
  RingReceiver(PaddedRing& ring, uint64_t nbytes) : ring_(ring), sink_(nbytes) {}
  uint64_t try_recv(StampChecker& checker) {
    if (!ring_.try_pop(sink_.data())) return 0;
    checker.check(sink_.data(), sink_.size(), sink_.size());
    return 1;
  }
  bool live() const { return true; }
  std::string error() const { return {}; }

 private:
  PaddedRing& ring_;
  AlignedBuffer sink_;
};

}  // namespace spsq_bench

#endif  // SPSQ_BENCH_ANCHOR_RING_H_
