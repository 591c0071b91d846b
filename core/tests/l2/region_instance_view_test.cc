// RegionInstanceView over host memory: bounds on every offset, sticky
// failure, borrowed reads with the invalidate hook, copy-then-flush writes,
// atomic counter notify/test, and waits that end on the clock.
#include "aicpu/region_instance_view.h"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <limits>
#include <thread>
#include <vector>

#include "testkit/virtual_clock.h"
#include "gtest/gtest.h"

namespace spsq_l2_test {
namespace {

constexpr uint64_t kPayloadBytes = 256;
constexpr uint64_t kCounterBytes = 384;

using spsq_conf::VirtualClock;
const spsc_queue::MonotonicClock kVirtualClock{&VirtualClock::now_ns};

class RegionInstanceViewTest : public ::testing::Test {
 protected:
  void SetUp() override { VirtualClock::reset(); }

  RegionPartLocalSpan payload_span() {
    return RegionPartLocalSpan{reinterpret_cast<uint64_t>(payload_.data()), kPayloadBytes};
  }
  RegionPartLocalSpan counter_span() {
    return RegionPartLocalSpan{reinterpret_cast<uint64_t>(counter_.data()), kCounterBytes};
  }
  RegionInstanceView make(RegionCacheHooks hooks = {}) {
    return RegionInstanceView(payload_span(), counter_span(), kVirtualClock, hooks);
  }
  int32_t slot(uint64_t off) const { return counter_[off / 4]; }

  std::vector<uint8_t> payload_ = std::vector<uint8_t>(kPayloadBytes, 0);
  std::vector<int32_t> counter_ = std::vector<int32_t>(kCounterBytes / 4, 0);
};

TEST_F(RegionInstanceViewTest, SpansAreTheParts) {
  RegionInstanceView v = make();
  EXPECT_FALSE(v.failed());
  EXPECT_EQ(v.payload().span().base, payload_span().base);
  EXPECT_EQ(v.payload().span().logical_bytes, kPayloadBytes);
  EXPECT_EQ(v.counter().span().base, counter_span().base);
  EXPECT_EQ(v.counter().span().logical_bytes, kCounterBytes);
}

TEST_F(RegionInstanceViewTest, ReadLendsTheSharedBytes) {
  RegionInstanceView v = make();
  payload_[100] = 0x5a;
  RegionPayloadView s{};
  ASSERT_TRUE(v.payload().read(100, 20, s));
  EXPECT_EQ(s.local_addr, reinterpret_cast<uintptr_t>(payload_.data() + 100));
  EXPECT_EQ(s.nbytes, 20u);
  EXPECT_EQ(reinterpret_cast<const uint8_t*>(s.local_addr)[0], 0x5a);
  ASSERT_TRUE(v.payload().read(0, kPayloadBytes, s)) << "the whole part";
  ASSERT_TRUE(v.payload().read(kPayloadBytes, 0, s)) << "empty span at the end";
}

TEST_F(RegionInstanceViewTest, WriteCopiesAndSelfCopyKeepsBytes) {
  RegionInstanceView v = make();
  const uint8_t src[4] = {1, 2, 3, 4};
  ASSERT_TRUE(v.payload().write(10, src, 4));
  EXPECT_EQ(std::vector<uint8_t>(payload_.begin() + 10, payload_.begin() + 14),
            (std::vector<uint8_t>{1, 2, 3, 4}));
  // The endpoint publishes a span it filled in place: write(off, span, n).
  ASSERT_TRUE(v.payload().write(10, payload_.data() + 10, 4));
  EXPECT_EQ(payload_[13], 4);
  // Overlapping move.
  ASSERT_TRUE(v.payload().write(11, payload_.data() + 10, 4));
  EXPECT_EQ(std::vector<uint8_t>(payload_.begin() + 10, payload_.begin() + 15),
            (std::vector<uint8_t>{1, 1, 2, 3, 4}));
}

// Hooks record what the bytes looked like when they ran.
struct HookLog {
  static inline const void* addr = nullptr;
  static inline uint64_t nbytes = 0;
  static inline int calls = 0;
  static inline uint8_t first_byte = 0;
  static void reset() { addr = nullptr, nbytes = 0, calls = 0, first_byte = 0; }
  static void record(const void* a, uint64_t n) {
    addr = a;
    nbytes = n;
    ++calls;
    first_byte = n ? *static_cast<const uint8_t*>(a) : 0;
  }
};

TEST_F(RegionInstanceViewTest, WriteFlushesAfterCopying) {
  HookLog::reset();
  RegionCacheHooks hooks;
  hooks.flush = &HookLog::record;
  RegionInstanceView v = make(hooks);
  const uint8_t src[3] = {0xc3, 2, 1};
  ASSERT_TRUE(v.payload().write(40, src, 3));
  EXPECT_EQ(HookLog::calls, 1);
  EXPECT_EQ(HookLog::addr, payload_.data() + 40);
  EXPECT_EQ(HookLog::nbytes, 3u);
  EXPECT_EQ(HookLog::first_byte, 0xc3) << "flush ran after the copy";
}

TEST_F(RegionInstanceViewTest, ReadInvalidatesBeforeLending) {
  HookLog::reset();
  RegionCacheHooks hooks;
  hooks.invalidate = &HookLog::record;
  RegionInstanceView v = make(hooks);
  RegionPayloadView s{};
  ASSERT_TRUE(v.payload().read(64, 32, s));
  EXPECT_EQ(HookLog::calls, 1);
  EXPECT_EQ(HookLog::addr, payload_.data() + 64);
  EXPECT_EQ(HookLog::nbytes, 32u);
}

TEST_F(RegionInstanceViewTest, ViewsBuiltWithoutHooksTakeTheProcessDefault) {
  HookLog::reset();
  RegionCacheHooks hooks;
  hooks.invalidate = &HookLog::record;
  set_region_default_cache_hooks(hooks);
  // The spec's L2 snippet builds its view from the two spans alone.
  RegionInstanceView snippet(payload_span(), counter_span());
  set_region_default_cache_hooks(RegionCacheHooks{});
  RegionPayloadView s{};
  ASSERT_TRUE(snippet.payload().read(0, 8, s));
  EXPECT_EQ(HookLog::calls, 1) << "the hooks are the ones in force when the view was built";
  // A view built after the default was cleared calls nothing.
  RegionInstanceView plain = make();
  ASSERT_TRUE(plain.payload().read(0, 8, s));
  EXPECT_EQ(HookLog::calls, 1);
}

TEST_F(RegionInstanceViewTest, PayloadAccessOutsideThePartFailsStickily) {
  struct Range { uint64_t off, n; };
  for (const Range r : {Range{kPayloadBytes + 1, 0}, Range{kPayloadBytes, 1}, Range{250, 7},
                        Range{8, ~uint64_t{0}}, Range{~uint64_t{0}, 2}}) {
    SCOPED_TRACE(r.off);
    RegionInstanceView v = make();
    RegionPayloadView s{};
    EXPECT_FALSE(v.payload().read(r.off, r.n, s));
    EXPECT_TRUE(v.failed());
    EXPECT_NE(std::strstr(v.error().message, "outside"), nullptr) << v.error().message;
    EXPECT_EQ(s.local_addr, 0u);
    // Sticky: in-range calls fail from now on, and the first error stays.
    const std::string first = v.error().message;
    EXPECT_FALSE(v.payload().read(0, 1, s));
    EXPECT_FALSE(v.payload().write(0, "x", 1));
    EXPECT_FALSE(v.counter().notify(0, 1, RegionNotifyOp::Set));
    RegionSignalTestResult cs{};
    EXPECT_FALSE(v.counter().test(0, 0, RegionWaitCmp::EQ, cs));
    int32_t obs = 0;
    EXPECT_FALSE(v.counter().wait(0, 0, RegionWaitCmp::EQ, 10, obs));
    EXPECT_EQ(first, v.error().message);
    EXPECT_EQ(slot(0), 0);
    EXPECT_EQ(payload_[0], 0);
  }
  RegionInstanceView w = make();
  EXPECT_FALSE(w.payload().write(kPayloadBytes - 3, "abcd", 4));
  EXPECT_TRUE(w.failed());
  EXPECT_EQ(payload_[kPayloadBytes - 3], 0) << "nothing written on a refused write";
}

TEST_F(RegionInstanceViewTest, NullSourceWriteFails) {
  RegionInstanceView v = make();
  EXPECT_FALSE(v.payload().write(0, nullptr, 4));
  EXPECT_TRUE(v.failed());
}

TEST_F(RegionInstanceViewTest, CounterAccessOutsideOrMisalignedFails) {
  for (uint64_t off : {uint64_t{384}, uint64_t{381}, uint64_t{2}, uint64_t{65}, ~uint64_t{0} - 1}) {
    SCOPED_TRACE(off);
    RegionInstanceView v = make();
    RegionSignalTestResult s{};
    EXPECT_FALSE(v.counter().test(off, 0, RegionWaitCmp::EQ, s));
    EXPECT_TRUE(v.failed());
    RegionInstanceView w = make();
    EXPECT_FALSE(w.counter().notify(off, 7, RegionNotifyOp::Set));
    EXPECT_TRUE(w.failed());
  }
  RegionInstanceView v = make();
  EXPECT_TRUE(v.counter().notify(380, 9, RegionNotifyOp::Set)) << "the last slot-sized word";
  EXPECT_EQ(slot(380), 9);
}

TEST_F(RegionInstanceViewTest, NotifySetAndAdd) {
  RegionInstanceView v = make();
  ASSERT_TRUE(v.counter().notify(64, 5, RegionNotifyOp::Set));
  EXPECT_EQ(slot(64), 5);
  ASSERT_TRUE(v.counter().notify(64, 3, RegionNotifyOp::Add));
  EXPECT_EQ(slot(64), 8);
  ASSERT_TRUE(v.counter().notify(64, -10, RegionNotifyOp::Add));
  EXPECT_EQ(slot(64), -2);
  ASSERT_TRUE(v.counter().notify(64, std::numeric_limits<int32_t>::min(), RegionNotifyOp::Set));
  EXPECT_EQ(slot(64), std::numeric_limits<int32_t>::min());
  EXPECT_EQ(slot(0), 0) << "neighbouring slots untouched";
  EXPECT_EQ(slot(128), 0);
  EXPECT_FALSE(v.counter().notify(64, 1, static_cast<RegionNotifyOp>(7)));
  EXPECT_TRUE(v.failed());
}

TEST_F(RegionInstanceViewTest, TestComparesSigned) {
  RegionInstanceView v = make();
  counter_[320 / 4] = -3;
  struct C { RegionWaitCmp cmp; int32_t value; bool matched; };
  for (const C c : {C{RegionWaitCmp::EQ, -3, true}, C{RegionWaitCmp::NE, -3, false},
                    C{RegionWaitCmp::GT, -4, true}, C{RegionWaitCmp::GE, 1, false},
                    C{RegionWaitCmp::LT, 0, true}, C{RegionWaitCmp::LE, -4, false}}) {
    RegionSignalTestResult s{};
    ASSERT_TRUE(v.counter().test(320, c.value, c.cmp, s));
    EXPECT_EQ(s.observed, -3);
    EXPECT_EQ(s.matched, c.matched) << static_cast<int>(c.cmp);
  }
}

TEST_F(RegionInstanceViewTest, WaitReturnsAtOnceWhenTheConditionHolds) {
  RegionInstanceView v = make();
  counter_[0] = 4;
  int32_t observed = 0;
  const uint64_t t0 = VirtualClock::peek();
  EXPECT_TRUE(v.counter().wait(0, 3, RegionWaitCmp::GT, 1000, observed));
  EXPECT_EQ(observed, 4);
  EXPECT_EQ(VirtualClock::peek(), t0);
}

TEST_F(RegionInstanceViewTest, WaitReturnsFalseOnceTheClockPassesTheTimeout) {
  VirtualClock::set_auto_advance(100);  // every clock read is 100 ns later
  RegionInstanceView v = make();
  int32_t observed = -1;
  const uint64_t t0 = VirtualClock::peek();
  EXPECT_FALSE(v.counter().wait(0, 1, RegionWaitCmp::EQ, 50'000, observed));
  EXPECT_EQ(observed, 0);
  EXPECT_GE(VirtualClock::peek() - t0, 50'000u);
  EXPECT_LE(VirtualClock::peek() - t0, 50'000u + 300)
      << "stops at the first read past the deadline";
  EXPECT_FALSE(v.failed()) << "a timeout is not a view failure";
  // Zero timeout: one look.
  EXPECT_FALSE(v.counter().wait(0, 1, RegionWaitCmp::EQ, 0, observed));
}

TEST_F(RegionInstanceViewTest, ConstructionRejectsUnusableParts) {
  RegionInstanceView no_payload(RegionPartLocalSpan{0, 64}, counter_span(), kVirtualClock);
  EXPECT_TRUE(no_payload.failed());
  RegionInstanceView no_counter(payload_span(), RegionPartLocalSpan{0, 384}, kVirtualClock);
  EXPECT_TRUE(no_counter.failed());
  RegionInstanceView misaligned(payload_span(),
                                RegionPartLocalSpan{counter_span().base + 2, 64},
                                kVirtualClock);
  EXPECT_TRUE(misaligned.failed());
  RegionInstanceView no_clock(payload_span(), counter_span(), spsc_queue::MonotonicClock{});
  EXPECT_TRUE(no_clock.failed());
  RegionInstanceView default_clock(payload_span(), counter_span());
  EXPECT_FALSE(default_clock.failed());
}

TEST_F(RegionInstanceViewTest, MovedViewKeepsWorking) {
  RegionInstanceView a = make();
  RegionInstanceView b = std::move(a);
  ASSERT_TRUE(b.counter().notify(128, 11, RegionNotifyOp::Set));
  EXPECT_EQ(slot(128), 11);
  RegionPayloadView s{};
  ASSERT_TRUE(b.payload().read(0, 8, s));
  EXPECT_EQ(s.local_addr, reinterpret_cast<uintptr_t>(payload_.data()));
}

// A release Set on the counter publishes the payload written before it to a
// thread that acquires the counter (checked for real under --config=tsan).
TEST_F(RegionInstanceViewTest, ReleaseSetPublishesEarlierPayloadWrites) {
  // Both threads read the clock, and the virtual one is single-threaded: the
  // views keep the process clock (their waits never come near the timeout).
  const spsc_queue::MonotonicClock steady{&RegionInstanceView::steady_now_ns};
  constexpr int kRounds = 2000;
  std::thread producer([this, steady] {
    RegionInstanceView v(payload_span(), counter_span(), steady, RegionCacheHooks{});
    for (int i = 1; i <= kRounds; ++i) {
      int32_t seen = 0;
      // Wait until the consumer took the previous value.
      while (!v.counter().wait(64, i - 1, RegionWaitCmp::EQ, ~uint64_t{0} >> 2, seen)) {
      }
      const uint32_t word = static_cast<uint32_t>(i) * 2654435761u;
      // EXPECT, not ASSERT: the consumer must always get its Set.
      EXPECT_TRUE(v.payload().write(0, &word, sizeof(word)));
      EXPECT_TRUE(v.counter().notify(0, i, RegionNotifyOp::Set));
    }
  });
  RegionInstanceView v(payload_span(), counter_span(), steady, RegionCacheHooks{});
  int mismatches = 0;
  for (int i = 1; i <= kRounds; ++i) {
    int32_t seen = 0;
    while (!v.counter().wait(0, i, RegionWaitCmp::EQ, ~uint64_t{0} >> 2, seen)) {
    }
    RegionPayloadView s{};
    ASSERT_TRUE(v.payload().read(0, 4, s));
    uint32_t word = 0;
    std::memcpy(&word, reinterpret_cast<const void*>(s.local_addr), 4);
    mismatches += word != static_cast<uint32_t>(i) * 2654435761u;
    ASSERT_TRUE(v.counter().notify(64, i, RegionNotifyOp::Set));
  }
  producer.join();
  EXPECT_EQ(mismatches, 0);
}

}  // namespace
}  // namespace spsq_l2_test
