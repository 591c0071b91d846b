// LeanView checks what the harness view's lean mode checks: in-span calls
// are served inline, everything else reaches the harness view, which records
// the violation and fails the view; an Add is a violation too.
#include "testkit/lean_view.h"

#include <cstdint>
#include <cstring>

#include "testkit/virtual_clock.h"
#include "gtest/gtest.h"

namespace spsq_conf {
namespace {

enum class Notify : uint32_t { Set = 0, Add = 1 };
enum class Cmp : uint32_t { EQ = 0, NE = 1 };
struct Sample {
  bool matched;
  int32_t observed;
};
struct Borrowed {
  uint64_t local_addr;  // an integer address, as the runtime's
  uint64_t nbytes;
};

class LeanViewTest : public ::testing::Test {
 protected:
  LeanViewTest() : memory_(256, 384) {
    VirtualClock::reset();
    state_.memory = &memory_;
    state_.payload_span = 200;  // claims less than memory holds
    state_.counter_span = 384;
    state_.lean = true;
  }
  RegionMemory memory_;
  ViewState state_;
};

TEST_F(LeanViewTest, ServesCallsInsideTheSpans) {
  LeanView v{HarnessView(&state_)};
  const uint8_t desc[32] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                            17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};
  for (const uint64_t n : {uint64_t{32}, uint64_t{24}, uint64_t{8}, uint64_t{3}}) {
    std::memset(memory_.payload(), 0, 64);
    ASSERT_TRUE(v.payload().write(8, desc, n));
    EXPECT_EQ(std::memcmp(memory_.payload() + 8, desc, n), 0) << n << " bytes";
    EXPECT_EQ(memory_.payload()[8 + n], 0) << "nothing past " << n << " bytes";
  }
  // A span written back onto itself (filled in place), short or long, and
  // copies between overlapping spans keep the bytes a plain copy would give.
  for (uint8_t i = 0; i < 200; ++i) memory_.payload()[i] = i;
  for (const uint64_t n : {uint64_t{8}, uint64_t{13}, uint64_t{32}, uint64_t{100}}) {
    ASSERT_TRUE(v.payload().write(40, memory_.payload() + 40, n));
    for (uint64_t i = 0; i < 200; ++i) ASSERT_EQ(memory_.payload()[i], i) << n << " bytes";
  }
  uint8_t want[200];
  std::memcpy(want, memory_.payload(), sizeof(want));
  std::memmove(want + 4, want, 30);
  ASSERT_TRUE(v.payload().write(4, memory_.payload(), 30));
  EXPECT_EQ(std::memcmp(memory_.payload(), want, sizeof(want)), 0);
  Borrowed out{};
  ASSERT_TRUE(v.payload().read(168, 32, out));
  EXPECT_EQ(out.local_addr, reinterpret_cast<uint64_t>(memory_.payload() + 168));
  ASSERT_TRUE(v.counter().notify(64, 7, Notify::Set));
  Sample s{};
  ASSERT_TRUE(v.counter().test(64, 7, Cmp::EQ, s));
  EXPECT_TRUE(s.matched);
  EXPECT_EQ(s.observed, 7);
  EXPECT_EQ(v.payload().span().logical_bytes, 200u);
  // The edges: a zero-byte read at the span's end, the last slot that fits.
  ASSERT_TRUE(v.payload().read(200, 0, out));
  ASSERT_TRUE(v.counter().notify(320, 9, Notify::Set));
  EXPECT_EQ(memory_.load_counter(320), 9);
  EXPECT_TRUE(state_.violations.empty());
  EXPECT_FALSE(v.failed());
}

// The state is shared by every copy of the view: a failure recorded through
// another copy stops the lean view's inline paths at once, and a lean view
// made on a failed state serves nothing either.
TEST_F(LeanViewTest, AFailureThroughAnotherCopyStopsEveryCall) {
  LeanView v{HarnessView(&state_)};
  HarnessView other(&state_);
  ASSERT_TRUE(v.counter().notify(64, 1, Notify::Set));
  Borrowed out{};
  ASSERT_FALSE(other.payload().read(250, 8, out)) << "past the claimed span";
  const uint8_t b[4] = {5, 6, 7, 8};
  Sample s{};
  LeanView late{HarnessView(&state_)};  // made after the failure
  for (LeanView* lean : {&v, &late}) {
    EXPECT_TRUE(lean->failed());
    EXPECT_FALSE(lean->payload().read(0, 0, out)) << "a zero-byte read";
    EXPECT_FALSE(lean->payload().read(0, 32, out));
    EXPECT_FALSE(lean->payload().write(0, b, 4));
    EXPECT_FALSE(lean->counter().notify(64, 2, Notify::Set));
    EXPECT_FALSE(lean->counter().test(64, 1, Cmp::EQ, s));
  }
  EXPECT_EQ(memory_.payload()[0], 0) << "nothing written after the failure";
  EXPECT_EQ(memory_.load_counter(64), 1) << "no signal written after the failure";
  // A state whose failure a test clears serves again through a new view.
  state_.failed = false;
  LeanView fresh{HarnessView(&state_)};
  EXPECT_TRUE(fresh.counter().notify(64, 3, Notify::Set));
  EXPECT_EQ(memory_.load_counter(64), 3);
}

TEST_F(LeanViewTest, HandsEverythingElseToTheHarnessView) {
  const uint8_t b[4] = {};
  Borrowed out{};
  Sample s{};
  struct Case {
    const char* what;
    bool (*call)(LeanView&, const uint8_t*, Borrowed&, Sample&);
  };
  const Case cases[] = {
      {"read past the claimed span",
       [](LeanView& v, const uint8_t*, Borrowed& o, Sample&) {
         return v.payload().read(199, 2, o);
       }},
      {"zero-byte read just past the claimed span",
       [](LeanView& v, const uint8_t*, Borrowed& o, Sample&) {
         return v.payload().read(201, 0, o);
       }},
      {"write past the claimed span",
       [](LeanView& v, const uint8_t* p, Borrowed&, Sample&) {
         return v.payload().write(198, p, 4);
       }},
      {"write from a null source",
       [](LeanView& v, const uint8_t*, Borrowed&, Sample&) {
         return v.payload().write(0, nullptr, 4);
       }},
      {"notify off the stride",
       [](LeanView& v, const uint8_t*, Borrowed&, Sample&) {
         return v.counter().notify(4, 1, Notify::Set);
       }},
      {"notify on the stride past the counter span",
       [](LeanView& v, const uint8_t*, Borrowed&, Sample&) {
         return v.counter().notify(384, 1, Notify::Set);
       }},
      {"notify with op Add (signals are Set)",
       [](LeanView& v, const uint8_t*, Borrowed&, Sample&) {
         return v.counter().notify(64, 1, Notify::Add);
       }},
      {"notify with an unknown op",
       [](LeanView& v, const uint8_t*, Borrowed&, Sample&) {
         return v.counter().notify(0, 1, static_cast<Notify>(5));
       }},
      {"test with an unknown compare",
       [](LeanView& v, const uint8_t*, Borrowed&, Sample& x) {
         return v.counter().test(0, 1, static_cast<Cmp>(9), x);
       }},
  };
  for (const Case& c : cases) {
    state_.failed = false;
    state_.violations.clear();
    LeanView v{HarnessView(&state_)};
    EXPECT_FALSE(c.call(v, b, out, s)) << c.what;
    EXPECT_EQ(state_.violations.size(), 1u) << c.what;
    EXPECT_TRUE(v.failed()) << c.what;
    EXPECT_FALSE(v.counter().notify(0, 1, Notify::Set)) << c.what << ": a failed view stays failed";
  }
}

TEST_F(LeanViewTest, AStateThatIsNotLeanIsServedByTheHarnessViewAlone) {
  AccessLog log;
  state_.lean = false;
  state_.log = &log;
  LeanView v{HarnessView(&state_)};
  ASSERT_TRUE(v.counter().notify(0, 3, Notify::Set));
  EXPECT_EQ(log.size(), 1u) << "recorded, as the harness view records outside lean mode";
}

}  // namespace
}  // namespace spsq_conf
