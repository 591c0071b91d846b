// PolicyView (view.h): the contract's shape over a policy that notes what it
// is handed, so the plumbing is checked apart from any instrument's semantics.
#include "testkit/view.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace spsq_conf {
namespace {

enum class TheirOp : uint32_t { kSet = 0, kAdd = 1 };
enum class TheirCmp : uint32_t { kEq = 0, kLe = 5 };
struct IntegerSpan {
  uint64_t local_addr;
  uint64_t nbytes;
};
struct PointerSpan {
  const uint8_t* local_addr;
  uint32_t nbytes;
};
struct TheirSample {
  bool matched;
  int32_t observed;
};
struct TheirPartSpan {
  uint64_t base;
  uint64_t logical_bytes;
};

// Serves a 64-byte payload; every counter call answers `answer` (false: the
// call fails) and notes its numbers.
struct NotingPolicy {
  uint8_t bytes[64] = {};
  bool answer = true;
  uint64_t off = 0, n = 0, timeout = 0;
  int32_t value = 0;
  uint32_t number = 99;
  ViewError err;

  bool failed() const { return !answer; }
  const ViewError& error() const { return err; }
  ViewSpan payload_span() const { return {reinterpret_cast<uint64_t>(bytes), sizeof(bytes)}; }
  ViewSpan counter_span() const { return {7, 384}; }
  bool on_read(uint64_t o, uint64_t k, uint8_t** addr) {
    off = o;
    n = k;
    *addr = bytes + o;
    return answer;
  }
  bool on_write(uint64_t o, const void*, uint64_t k) {
    off = o;
    n = k;
    return answer;
  }
  bool on_notify(uint64_t o, int32_t v, uint32_t op) {
    off = o;
    value = v;
    number = op;
    return answer;
  }
  bool on_test(uint64_t o, int32_t v, uint32_t cmp, int32_t* observed, bool* matched) {
    off = o;
    value = v;
    number = cmp;
    *observed = 41;
    *matched = true;
    return answer;
  }
  bool on_wait(uint64_t o, int32_t v, uint32_t cmp, uint64_t t, int32_t* observed) {
    off = o;
    value = v;
    number = cmp;
    timeout = t;
    *observed = 43;
    return answer;
  }
};
using NotingView = PolicyView<NotingPolicy>;

TEST(PolicyView, SpansConvertToTheEndpointsStruct) {
  NotingView v;
  const TheirPartSpan p = v.payload().span();
  const TheirPartSpan c = v.counter().span();
  EXPECT_EQ(p.base, reinterpret_cast<uint64_t>(v.bytes));
  EXPECT_EQ(p.logical_bytes, 64u);
  EXPECT_EQ(c.base, 7u);
  EXPECT_EQ(c.logical_bytes, 384u);
}

TEST(PolicyView, ReadLendsAnIntegerOrAPointerAddress) {
  NotingView v;
  IntegerSpan as_int{};
  ASSERT_TRUE(v.payload().read(8, 16, as_int));
  EXPECT_EQ(as_int.local_addr, reinterpret_cast<uint64_t>(v.bytes + 8));
  EXPECT_EQ(as_int.nbytes, 16u);
  PointerSpan as_ptr{};
  ASSERT_TRUE(v.payload().read(4, 2, as_ptr));
  EXPECT_EQ(as_ptr.local_addr, v.bytes + 4);
  EXPECT_EQ(as_ptr.nbytes, 2u);
}

TEST(PolicyView, AFailedCallLeavesTheOutParametersAlone) {
  NotingView v;
  v.answer = false;
  IntegerSpan out{1, 2};
  EXPECT_FALSE(v.payload().read(0, 4, out));
  EXPECT_EQ(out.local_addr, 1u);
  EXPECT_EQ(out.nbytes, 2u);
  TheirSample sample{false, -1};
  EXPECT_FALSE(v.counter().test(64, 3, TheirCmp::kEq, sample));
  EXPECT_FALSE(sample.matched);
  EXPECT_EQ(sample.observed, -1);
  EXPECT_TRUE(v.failed());
}

TEST(PolicyView, EnumsReachThePolicyAsTheirNumbers) {
  NotingView v;
  ASSERT_TRUE(v.counter().notify(128, -5, TheirOp::kAdd));
  EXPECT_EQ(v.off, 128u);
  EXPECT_EQ(v.value, -5);
  EXPECT_EQ(v.number, 1u);
  TheirSample sample{};
  ASSERT_TRUE(v.counter().test(192, 9, TheirCmp::kLe, sample));
  EXPECT_EQ(v.number, 5u);
  EXPECT_TRUE(sample.matched);
  EXPECT_EQ(sample.observed, 41);
  int32_t observed = 0;
  ASSERT_TRUE(v.counter().wait(256, 2, TheirCmp::kEq, 1000, observed));
  EXPECT_EQ(v.number, 0u);
  EXPECT_EQ(v.timeout, 1000u);
  EXPECT_EQ(observed, 43);
  ASSERT_TRUE(v.payload().write(32, v.bytes, 8));
  EXPECT_EQ(v.off, 32u);
  EXPECT_EQ(v.n, 8u);
}

}  // namespace
}  // namespace spsq_conf
