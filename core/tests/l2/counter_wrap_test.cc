// Counter reconstruction at the 32-bit boundaries, end to end: an endpoint
// carries more than 2^32 messages in each direction through a depth-1 queue,
// so every message crosses a counter read, and the low-32 counters pass
// INT32_MAX -> INT32_MIN (2^31) and -1 -> 0 (2^32). Messages are zero-byte so
// the loop measures counters and descriptors, nothing else.
//
// No shortcut exists: an endpoint's local counts start at 0 and only grow one
// message at a time. That is minutes of CPU even optimized, so the target is
// tagged manual; run it by name.
#include <cstdint>
#include <cstring>
#include <limits>

#include "common/spsc_queue_endpoint.h"
#include "gtest/gtest.h"
#include "testing/host_region.h"
#include "testing/scripted_l3_peer.h"
#include "testing/virtual_clock.h"

namespace spsq_testing {
namespace {

// A bare host view: the same contract as RecordingView without the log, so
// four billion round trips stay affordable. Bounds are still checked.
class FastView {
 public:
  class Payload {
   public:
    RegionPartLocalSpan span() const { return v_->payload_; }
    bool read(uint64_t off, uint64_t n, RegionPayloadView& out) {
      if (off > v_->payload_.logical_bytes || n > v_->payload_.logical_bytes - off) return v_->oob();
      out.local_addr = reinterpret_cast<uint8_t*>(v_->payload_.base) + off;
      out.nbytes = n;
      return true;
    }
    bool write(uint64_t off, const void* src, uint64_t n) {
      if (off > v_->payload_.logical_bytes || n > v_->payload_.logical_bytes - off) return v_->oob();
      std::memmove(reinterpret_cast<uint8_t*>(v_->payload_.base) + off, src, n);
      return true;
    }
    FastView* v_;
  };
  class Counter {
   public:
    RegionPartLocalSpan span() const { return v_->counter_; }
    bool notify(uint64_t off, int32_t value, RegionNotifyOp) {
      if (off + 4 > v_->counter_.logical_bytes) return v_->oob();
      __atomic_store_n(v_->slot(off), value, __ATOMIC_RELEASE);
      return true;
    }
    bool test(uint64_t off, int32_t cmp_value, RegionWaitCmp cmp, RegionSignalTestResult& s) {
      if (off + 4 > v_->counter_.logical_bytes) return v_->oob();
      s.observed = __atomic_load_n(v_->slot(off), __ATOMIC_ACQUIRE);
      s.matched = region_wait_cmp_holds(s.observed, cmp, cmp_value);
      return true;
    }
    bool wait(uint64_t off, int32_t cmp_value, RegionWaitCmp cmp, uint64_t timeout_ns, int32_t& obs) {
      RegionSignalTestResult s{};
      if (!test(off, cmp_value, cmp, s)) return false;
      obs = s.observed;
      if (!s.matched) VirtualClock::advance(timeout_ns);
      return s.matched;
    }
    FastView* v_;
  };

  FastView(RegionPartLocalSpan payload, RegionPartLocalSpan counter, uint64_t* oob_count)
      : payload_(payload), counter_(counter), oob_count_(oob_count) {}
  bool failed() const { return failed_; }
  const RegionViewError& error() const { return error_; }
  Payload payload() { return Payload{this}; }
  Counter counter() { return Counter{this}; }

 private:
  bool oob() {
    ++*oob_count_;
    failed_ = true;
    std::snprintf(error_.message, sizeof(error_.message), "out of span");
    return false;
  }
  int32_t* slot(uint64_t off) { return reinterpret_cast<int32_t*>(counter_.base + off); }

  RegionPartLocalSpan payload_;
  RegionPartLocalSpan counter_;
  uint64_t* oob_count_;
  bool failed_ = false;
  RegionViewError error_{};
};

using spsc_queue::SpscQueueErrorKind;
using spsc_queue::SpscQueueInputHandle;
using spsc_queue::SpscQueueOpcode;
using spsc_queue::SpscQueueOutputReservation;

constexpr uint64_t k2p31 = uint64_t{1} << 31;
constexpr uint64_t k2p32 = uint64_t{1} << 32;

TEST(CounterWrapTest, BothDirectionsCrossTheSignBoundaryAndTheWrap) {
  VirtualClock::reset();
  HostRegion region(1, 64, 64);
  const HostLayout& l = region.layout();
  uint64_t oob = 0;
  spsc_queue::SpscQueueEndpoint<FastView> ep(
      region.binding(), FastView(region.payload_span(), region.counter_span(), &oob),
      VirtualClock::clock());
  ASSERT_TRUE(ep.live()) << ep.error().message;

  const uint64_t total = k2p32 + 3;
  uint64_t bad_seq = 0, bad_head = 0, bad_tail = 0, bad_out_seq = 0;
  // Checkpoints around both boundaries record the raw counter words.
  int32_t head_at_sign = 0, head_at_wrap = 0, tail_at_sign = 0, tail_at_wrap = 0;
  for (uint64_t k = 0; k < total; ++k) {
    // L3: message k into the one slot, then the tail.
    region.write_descriptor_at(l.input_slot(k), RawDescriptor{k + 1, 1, 0, 0});
    region.set_counter(kInputTail, low32(k + 1));
    SpscQueueInputHandle h;
    if (!ep.input().try_peek(h)) break;
    bad_seq += h.seq != k + 1;
    if (!ep.input().release(h)) break;
    bad_head += region.counter(kInputHead) != low32(k + 1);

    // L2 answers; L3 consumes it at once, so the next reserve must
    // reconstruct the head and replay the released descriptor.
    SpscQueueOutputReservation r;
    if (!ep.output().try_reserve(0, r) || !ep.output().publish(r, SpscQueueOpcode::DATA)) break;
    bad_tail += region.counter(kOutputTail) != low32(k + 1);
    bad_out_seq += get_le64(region.payload() + l.output_slot(k)) != k + 1;
    region.set_counter(kOutputHead, low32(k + 1));

    if (k + 1 == k2p31) {
      head_at_sign = region.counter(kInputHead);
      tail_at_sign = region.counter(kOutputTail);
    }
    if (k + 1 == k2p32) {
      head_at_wrap = region.counter(kInputHead);
      tail_at_wrap = region.counter(kOutputTail);
    }
  }
  ASSERT_TRUE(ep.live()) << ep.error().message;
  EXPECT_EQ(oob, 0u);
  EXPECT_EQ(bad_seq, 0u);
  EXPECT_EQ(bad_head, 0u);
  EXPECT_EQ(bad_tail, 0u);
  EXPECT_EQ(bad_out_seq, 0u);
  EXPECT_EQ(head_at_sign, std::numeric_limits<int32_t>::min());
  EXPECT_EQ(tail_at_sign, std::numeric_limits<int32_t>::min());
  EXPECT_EQ(head_at_wrap, 0);
  EXPECT_EQ(tail_at_wrap, 0);
  EXPECT_EQ(region.counter(kInputHead), 3);
  EXPECT_EQ(get_le64(region.payload() + l.input_slot(0)), total);

  // Past the wrap the bounds still hold: a tail two ahead of a depth-1 ring
  // poisons.
  region.write_descriptor_at(l.input_slot(total), RawDescriptor{total + 1, 1, 0, 0});
  region.set_counter(kInputTail, low32(total + 2));
  SpscQueueInputHandle h;
  EXPECT_FALSE(ep.input().try_peek(h));
  EXPECT_EQ(ep.error().kind, SpscQueueErrorKind::INVALID_DESCRIPTOR);
  EXPECT_EQ(region.counter(kPeerAbortFlag), 1);
}

}  // namespace
}  // namespace spsq_testing
