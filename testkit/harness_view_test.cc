// The harness view against look-alike contract types, the way any
// implementation's endpoint would call it.
#include "testkit/harness_view.h"

#include <cstring>

#include "testkit/coherence/coherent_memory.h"
#include "testkit/virtual_clock.h"
#include "gtest/gtest.h"

namespace spsq_conf {
namespace {

// A third party's contract types (names differ from the reference's on purpose).
struct TheirSpan {
  uint64_t base;
  uint64_t logical_bytes;
};
enum class TheirNotify : uint32_t { Set = 0, Add = 1 };
enum class TheirCmp : uint32_t { EQ = 0, NE = 1, GT = 2, GE = 3, LT = 4, LE = 5 };
struct TheirSample {
  bool matched;
  int32_t observed;
};
struct TheirPayloadSpan {
  void* local_addr;  // void* instead of uint8_t*: still fine
  uint64_t nbytes;
};

class HarnessViewTest : public ::testing::Test {
 protected:
  HarnessViewTest() : memory_(256, 384) {
    VirtualClock::reset();
    memory_.enable_shadow();
    state_.memory = &memory_;
    state_.payload_span = 256;
    state_.counter_span = 384;
    state_.log = &log_;
    state_.faults = &faults_;
  }
  RegionMemory memory_;
  AccessLog log_;
  FaultPlan faults_;
  ViewState state_;
};

TEST_F(HarnessViewTest, SpansConvertToTheImplementationsStruct) {
  HarnessView v(&state_);
  TheirSpan s = v.payload().span();
  EXPECT_EQ(s.base, reinterpret_cast<uint64_t>(memory_.payload()));
  EXPECT_EQ(s.logical_bytes, 256u);
  EXPECT_EQ(v.counter().span().logical_bytes, 384u);
  EXPECT_EQ(log_.size(), 0u);  // span() is not a shared access
}

TEST_F(HarnessViewTest, ReadLendsWriteCopiesAndBothAreLogged) {
  HarnessView v(&state_);
  const uint8_t bytes[3] = {7, 8, 9};
  ASSERT_TRUE(v.payload().write(40, bytes, 3));
  TheirPayloadSpan out{};
  ASSERT_TRUE(v.payload().read(40, 3, out));
  EXPECT_EQ(out.local_addr, memory_.payload() + 40);
  EXPECT_EQ(out.nbytes, 3u);
  EXPECT_EQ(memory_.payload()[41], 8);
  ASSERT_EQ(log_.size(), 2u);
  EXPECT_EQ(log_[0].kind, AccessKind::kWrite);
  EXPECT_TRUE(log_[0].writes_payload(41, 2));
  EXPECT_FALSE(log_[0].writes_payload(42, 2));
  EXPECT_EQ(log_[1].kind, AccessKind::kRead);
}

TEST_F(HarnessViewTest, OutOfSpanAccessIsAViolationAndFailsTheView) {
  HarnessView v(&state_);
  TheirPayloadSpan out{};
  EXPECT_FALSE(v.payload().read(250, 7, out));
  EXPECT_TRUE(v.failed());
  ASSERT_EQ(state_.violations.size(), 1u);
  EXPECT_NE(state_.violations[0].find("outside the payload span"), std::string::npos);
  // Sticky: later valid calls fail too.
  EXPECT_FALSE(v.payload().read(0, 1, out));
  EXPECT_NE(std::string(v.error().message).find("payload read"), std::string::npos);
}

TEST_F(HarnessViewTest, OffsetOverflowIsCaught) {
  HarnessView v(&state_);
  uint8_t b = 0;
  EXPECT_FALSE(v.payload().write(~uint64_t{0} - 1, &b, 4));
  EXPECT_EQ(state_.violations.size(), 1u);
}

TEST_F(HarnessViewTest, ClaimedSpanLargerThanMemoryIsBoundedByRealMemory) {
  state_.payload_span = 1 << 20;  // a lying span must not let accesses escape
  HarnessView v(&state_);
  TheirPayloadSpan out{};
  EXPECT_FALSE(v.payload().read(300, 1, out));
  EXPECT_EQ(state_.violations.size(), 1u);
}

TEST_F(HarnessViewTest, CounterCallsUseSignalSlotsOnly) {
  HarnessView v(&state_);
  EXPECT_TRUE(v.counter().notify(64, 5, TheirNotify::Set));
  EXPECT_TRUE(v.counter().notify(64, 2, TheirNotify::Add));
  EXPECT_EQ(memory_.load_counter(64), 7);
  TheirSample s{};
  EXPECT_TRUE(v.counter().test(64, 7, TheirCmp::GE, s));
  EXPECT_TRUE(s.matched);
  EXPECT_EQ(s.observed, 7);
  EXPECT_TRUE(v.counter().test(64, 7, TheirCmp::LT, s));
  EXPECT_FALSE(s.matched);
  EXPECT_FALSE(v.counter().notify(68, 1, TheirNotify::Set));  // not a slot
  EXPECT_EQ(state_.violations.size(), 1u);
}

TEST_F(HarnessViewTest, CounterOutsideTheSpanIsAViolation) {
  HarnessView v(&state_);
  TheirSample s{};
  EXPECT_FALSE(v.counter().test(384, 0, TheirCmp::EQ, s));
  EXPECT_EQ(state_.violations.size(), 1u);
}

TEST_F(HarnessViewTest, WaitAdvancesVirtualTimeToTheDeadlineWhenNothingHappens) {
  HarnessView v(&state_);
  const uint64_t t0 = VirtualClock::peek();
  int32_t observed = -1;
  EXPECT_FALSE(v.counter().wait(0, 0, TheirCmp::NE, 5000, observed));
  EXPECT_EQ(observed, 0);
  EXPECT_EQ(VirtualClock::peek(), t0 + 5000);
  ASSERT_EQ(log_.size(), 1u);
  EXPECT_EQ(log_[0].kind, AccessKind::kWait);
  EXPECT_EQ(log_[0].timeout_ns, 5000u);
}

TEST_F(HarnessViewTest, WaitRunsScheduledPeerActionsBeforeTheDeadline) {
  HarnessView v(&state_);
  const uint64_t t0 = VirtualClock::peek();
  VirtualClock::after(300, [&] { memory_.store_counter(0, 1); });
  int32_t observed = 0;
  EXPECT_TRUE(v.counter().wait(0, 0, TheirCmp::NE, 5000, observed));
  EXPECT_EQ(observed, 1);
  EXPECT_EQ(VirtualClock::peek(), t0 + 300);
}

TEST_F(HarnessViewTest, WaitWithZeroTimeoutChecksOnce) {
  HarnessView v(&state_);
  const uint64_t t0 = VirtualClock::peek();
  VirtualClock::after(1, [&] { memory_.store_counter(0, 1); });
  int32_t observed = 0;
  EXPECT_FALSE(v.counter().wait(0, 0, TheirCmp::NE, 0, observed));
  EXPECT_EQ(VirtualClock::peek(), t0);
}

TEST_F(HarnessViewTest, InjectedFaultFailsThatCallAndStaysFailed) {
  HarnessView v(&state_);
  faults_.arm(ViewCall::kNotify, 2);
  EXPECT_TRUE(v.counter().notify(0, 1, TheirNotify::Set));
  EXPECT_FALSE(v.counter().notify(0, 2, TheirNotify::Set));
  EXPECT_EQ(memory_.load_counter(0), 1);  // the failed notify did nothing
  EXPECT_TRUE(v.failed());
  EXPECT_EQ(log_.count_kind(AccessKind::kInjectedFault), 1u);
  TheirSample s{};
  EXPECT_FALSE(v.counter().test(0, 0, TheirCmp::EQ, s));
  EXPECT_TRUE(state_.violations.empty());  // a fault is not the endpoint's misuse
}

TEST_F(HarnessViewTest, TransientFaultFailsOnlyThatCall) {
  state_.sticky_faults = false;
  HarnessView v(&state_);
  faults_.arm(ViewCall::kWrite, 1);
  const uint8_t b = 1;
  EXPECT_FALSE(v.payload().write(0, &b, 1));
  EXPECT_FALSE(v.failed());
  EXPECT_NE(std::string(v.error().message).find("injected fault: write call 1"), std::string::npos);
  EXPECT_TRUE(v.payload().write(0, &b, 1));
  EXPECT_EQ(memory_.payload()[0], 1);
}

TEST_F(HarnessViewTest, ReportedTransientFaultShowsAsFailedYetLaterCallsAreServed) {
  state_.sticky_faults = false;
  state_.transient_faults_report_failed = true;
  HarnessView v(&state_);
  faults_.arm(ViewCall::kWait, 1);
  memory_.store_counter(64, 1);  // the condition holds: only the fault fails the wait
  int32_t observed = 0;
  EXPECT_FALSE(v.counter().wait(64, 1, TheirCmp::EQ, 1000, observed));
  EXPECT_TRUE(v.failed()) << "a failed wait, not a timeout";
  EXPECT_NE(std::string(v.error().message).find("injected fault: wait call 1"), std::string::npos);
  EXPECT_TRUE(v.counter().notify(320, 1, TheirNotify::Set));
  EXPECT_EQ(memory_.load_counter(320), 1);
  EXPECT_TRUE(state_.violations.empty());
}

TEST_F(HarnessViewTest, WaitsBeyondTheBudgetAreAViolation) {
  state_.wait_budget = 3;
  HarnessView v(&state_);
  memory_.store_counter(0, 1);
  int32_t observed = 0;
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(v.counter().wait(0, 1, TheirCmp::EQ, 1000, observed));
  EXPECT_FALSE(v.failed());
  EXPECT_FALSE(v.counter().wait(0, 1, TheirCmp::EQ, 1000, observed));
  EXPECT_TRUE(v.failed());
  ASSERT_EQ(state_.violations.size(), 1u);
  EXPECT_NE(state_.violations[0].find("wait budget"), std::string::npos);
  EXPECT_EQ(VirtualClock::peek(), VirtualClock::kDefaultStart) << "no wait moved time";
}

// An endpoint that waits 1 ms past its deadline can never get there at the
// end of time: each wait returns at once, and it waits again. By default the
// view refuses the wait after a budget of such waits in a row, and says why.
TEST_F(HarnessViewTest, WaitingPastTheDeadlineAtTheEndOfTimeRunsOutOfTheIdleWaitBudget) {
  EXPECT_EQ(ViewState().idle_wait_budget, ViewState::kIdleWaitBudget) << "on by default";
  state_.idle_wait_budget = 1000;
  VirtualClock::reset(~uint64_t{0} - 5);
  HarnessView v(&state_);
  int32_t observed = 0;
  uint64_t calls = 0;
  // The defective endpoint: its own deadline is now + 1 ms, which the view's
  // clock (saturated at 2^64 - 1) never passes.
  while (calls < 10000 && v.counter().wait(0, 1, TheirCmp::EQ, 1000000, observed) == false &&
         !v.failed()) {
    ++calls;
  }
  EXPECT_EQ(calls, 1000u) << "the 1001st idle wait is refused";
  EXPECT_TRUE(v.failed());
  EXPECT_NE(state_.exhausted.find("kept waiting past its deadline: 1000 "), std::string::npos)
      << state_.exhausted;
  EXPECT_TRUE(state_.violations.empty()) << "running out of a budget is no contract misuse";
  // Further calls are refused at once and stay cheap: the log is bounded.
  for (int i = 0; i < 100; ++i) EXPECT_FALSE(v.counter().wait(0, 1, TheirCmp::EQ, 1, observed));
  EXPECT_LE(log_.size(), 1101u);
}

TEST_F(HarnessViewTest, AWaitThatHeldRestartsTheIdleWaitCount) {
  state_.idle_wait_budget = 3;
  HarnessView v(&state_);
  int32_t observed = 0;
  for (int round = 0; round < 4; ++round) {
    for (int i = 0; i < 3; ++i) EXPECT_FALSE(v.counter().wait(0, 1, TheirCmp::EQ, 10, observed));
    memory_.store_counter(0, 1);
    // Over the count, yet served: its condition holds.
    EXPECT_TRUE(v.counter().wait(0, 1, TheirCmp::EQ, 10, observed));
    memory_.store_counter(0, 0);
  }
  EXPECT_FALSE(v.failed()) << state_.exhausted;
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(v.counter().wait(0, 1, TheirCmp::EQ, 10, observed));
  EXPECT_FALSE(v.failed());
  EXPECT_FALSE(v.counter().wait(0, 1, TheirCmp::EQ, 10, observed));
  EXPECT_TRUE(v.failed()) << "the fourth idle wait in a row";
}

TEST(AccessLogTest, KeepsAtMostItsCapacityAndCountsTheRest) {
  AccessLog log;
  EXPECT_EQ(log.capacity(), AccessLog::kDefaultCapacity);
  log.set_capacity(10);
  Access a;
  for (uint64_t i = 0; i < 15; ++i) {
    a.offset = i;
    log.add(a);
  }
  EXPECT_EQ(log.size(), 10u);
  EXPECT_EQ(log.dropped(), 5u);
  EXPECT_NE(log.dump().find("and 5 more, not kept (log full)"), std::string::npos);
  log.clear();
  EXPECT_EQ(log.dropped(), 0u);
}

TEST(AccessLogTest, ListsTheFirstAndLastEntriesOfALongRange) {
  AccessLog log;
  const size_t n = AccessLog::kDumpEntries + 50;
  for (size_t i = 0; i < n; ++i) log.add(Access());
  const std::string text = log.dump();
  EXPECT_NE(text.find("#0 "), std::string::npos);
  EXPECT_NE(text.find("#" + std::to_string(n - 1) + " "), std::string::npos);
  EXPECT_EQ(text.find("#" + std::to_string(AccessLog::kDumpEntries / 2) + " "), std::string::npos);
  EXPECT_NE(text.find("... 50 entries not listed ..."), std::string::npos);
}

TEST_F(HarnessViewTest, StoresBehindTheViewsBackAreLoggedAtTheNextCall) {
  HarnessView v(&state_);
  TheirPayloadSpan out{};
  ASSERT_TRUE(v.payload().read(0, 32, out));
  static_cast<uint8_t*>(out.local_addr)[5] = 1;  // written through a borrowed span
  TheirSample s{};
  ASSERT_TRUE(v.counter().test(0, 0, TheirCmp::EQ, s));
  const size_t i = log_.find([](const Access& a) { return a.kind == AccessKind::kUnaccountedStore; });
  ASSERT_NE(i, AccessLog::npos);
  EXPECT_EQ(log_[i].offset, 5u);
  EXPECT_EQ(log_[i].nbytes, 1u);
  // A self-copy write (flush in place) accounts for lent bytes.
  static_cast<uint8_t*>(out.local_addr)[6] = 1;
  memory_.sync_shadow(RegionMemory::kPayload, 6, 1);  // as if L2 code declared it
  ASSERT_TRUE(v.payload().write(0, out.local_addr, 32));
  EXPECT_EQ(log_.count_kind(AccessKind::kUnaccountedStore), 1u);
}

TEST_F(HarnessViewTest, EndlessPollingWithoutWaitingIsCaught) {
  state_.log = nullptr;  // a million entries would only cost memory here
  HarnessView v(&state_);
  TheirSample s{};
  bool ok = true;
  for (uint64_t i = 0; ok && i <= HarnessView::kSpinLimit; ++i) {
    ok = v.counter().test(0, 1, TheirCmp::EQ, s);
  }
  EXPECT_FALSE(ok);
  ASSERT_EQ(state_.violations.size(), 1u);
  EXPECT_NE(state_.violations[0].find("polls"), std::string::npos);
}

// Lean mode (the L3 counter wrap's hot path): nothing recorded, no fault
// plan, no shadow diff, no spin detection; the contract checks remain.
TEST_F(HarnessViewTest, LeanModeKeepsTheChecksAndRecordsNothing) {
  state_.lean = true;
  faults_.arm(ViewCall::kWrite, 1);  // not consulted in lean mode
  HarnessView v(&state_);
  const uint8_t b[2] = {4, 5};
  ASSERT_TRUE(v.payload().write(10, b, 2));
  EXPECT_EQ(memory_.payload()[11], 5);
  EXPECT_FALSE(faults_.fired());
  TheirPayloadSpan out{};
  ASSERT_TRUE(v.payload().read(10, 2, out));
  static_cast<uint8_t*>(out.local_addr)[0] = 9;  // behind the view's back: no diff
  ASSERT_TRUE(v.counter().notify(64, 7, TheirNotify::Set));
  EXPECT_EQ(memory_.load_counter(64), 7);
  TheirSample s{};
  for (uint64_t i = 0; i <= HarnessView::kSpinLimit + 1; ++i) {
    ASSERT_TRUE(v.counter().test(64, 7, TheirCmp::EQ, s)) << "no spin detection, call " << i;
  }
  EXPECT_TRUE(s.matched);
  int32_t seen = 0;
  const uint64_t t0 = VirtualClock::peek();
  EXPECT_FALSE(v.counter().wait(64, 8, TheirCmp::EQ, 500, seen));
  EXPECT_EQ(VirtualClock::peek(), t0 + 500) << "wait keeps its virtual-time semantics";
  EXPECT_EQ(seen, 7);
  EXPECT_EQ(log_.size(), 0u) << log_.dump();
  EXPECT_TRUE(state_.violations.empty());
  EXPECT_FALSE(v.failed());
  // Still checked: the stride, the op, the bounds; each fails the view.
  EXPECT_FALSE(v.counter().notify(4, 1, TheirNotify::Set));
  ASSERT_EQ(state_.violations.size(), 1u);
  EXPECT_NE(state_.violations[0].find("signal slot"), std::string::npos);
  EXPECT_TRUE(v.failed());
  EXPECT_FALSE(v.payload().write(0, b, 1)) << "a failed view stays failed";
  ViewState bounds = state_;
  bounds.failed = false;
  bounds.violations.clear();
  EXPECT_FALSE(HarnessView(&bounds).payload().read(255, 2, out));
  EXPECT_EQ(bounds.violations.size(), 1u) << "out of the payload span";
  ViewState op = bounds;
  op.failed = false;
  op.violations.clear();
  EXPECT_FALSE(HarnessView(&op).counter().notify(0, 1, static_cast<TheirNotify>(7)));
  EXPECT_EQ(op.violations.size(), 1u) << "unknown notify op";
  EXPECT_EQ(log_.size(), 0u) << "violations are not logged in lean mode either";
}

// ------------------------------------------------- non-coherent payload

// The view as one side (L2) of a non-coherent payload over memory_ (DRAM);
// the test plays the peer on DRAM, as the scripted peers do.
class NonCoherentViewTest : public HarnessViewTest {
 protected:
  explicit NonCoherentViewTest(CachePolicy policy = CachePolicy::kAdversarial, uint64_t seed = 0)
      : model_(memory_.payload(), 256, policy, seed) {
    model_.set_write_back_hook([this](uint64_t off, uint64_t n) {
      memory_.sync_shadow(RegionMemory::kPayload, off, n);
    });
    state_.coherence = &model_;
    state_.side = Side::kL2;
  }
  uint8_t* copy() { return model_.side_base(Side::kL2); }
  NonCoherentPayload model_;
};

TEST_F(NonCoherentViewTest, TheSpanIsTheSidesCopyAndReadsLendFromIt) {
  HarnessView v(&state_);
  TheirSpan s = v.payload().span();
  EXPECT_EQ(s.base, reinterpret_cast<uint64_t>(copy()));
  EXPECT_NE(s.base, reinterpret_cast<uint64_t>(memory_.payload()));
  EXPECT_EQ(s.logical_bytes, 256u);
  TheirPayloadSpan out{};
  ASSERT_TRUE(v.payload().read(40, 3, out));
  EXPECT_EQ(out.local_addr, copy() + 40);
  EXPECT_EQ(log_.size(), 1u);
}

TEST_F(NonCoherentViewTest, AReadRefetchesWhatThePeerPutInDram) {
  HarnessView v(&state_);
  const uint8_t old_bytes[4] = {1, 1, 1, 1};
  const uint8_t new_bytes[4] = {2, 2, 2, 2};
  memory_.write(100, old_bytes, 4);
  TheirPayloadSpan out{};
  ASSERT_TRUE(v.payload().read(100, 4, out));
  EXPECT_EQ(std::memcmp(out.local_addr, old_bytes, 4), 0);
  memory_.write(100, new_bytes, 4);  // the peer, after the endpoint's read
  EXPECT_EQ(std::memcmp(out.local_addr, old_bytes, 4), 0) << "a borrowed span is not refreshed";
  const TheirPayloadSpan kept = out;
  ASSERT_TRUE(v.payload().read(100, 4, out));
  EXPECT_EQ(std::memcmp(out.local_addr, new_bytes, 4), 0) << "a fresh read invalidates";
  EXPECT_EQ(kept.local_addr, out.local_addr);
  EXPECT_EQ(log_.count_kind(AccessKind::kUnaccountedStore), 0u);
}

TEST_F(NonCoherentViewTest, AWriteCopiesIntoTheCopyAndFlushesWholeLines) {
  HarnessView v(&state_);
  const uint8_t bytes[3] = {7, 8, 9};
  copy()[70] = 0x44;  // a raw store into the same line, never written through the view
  ASSERT_TRUE(v.payload().write(80, bytes, 3));
  EXPECT_EQ(copy()[81], 8);
  EXPECT_EQ(memory_.payload()[81], 8) << "the write flushed";
  EXPECT_EQ(memory_.payload()[70], 0x44) << "a write-back moves the whole line";
  EXPECT_TRUE(model_.dirty_lines(Side::kL2, 0, 256).empty());
  TheirSample s{};
  ASSERT_TRUE(v.counter().test(0, 0, TheirCmp::EQ, s));
  EXPECT_EQ(log_.count_kind(AccessKind::kUnaccountedStore), 0u)
      << "the cache's write-back is accounted: " << log_.dump();
}

TEST_F(NonCoherentViewTest, AWriteFromTheSpanItselfFlushesInPlace) {
  HarnessView v(&state_);
  TheirPayloadSpan out{};
  ASSERT_TRUE(v.payload().read(128, 64, out));
  std::memset(out.local_addr, 0x6B, 64);  // L2 code fills the lent span
  EXPECT_EQ(memory_.payload()[130], 0) << "unflushed: DRAM still old";
  EXPECT_EQ(model_.dirty_lines(Side::kL2, 0, 256), std::vector<uint64_t>{2});
  ASSERT_TRUE(v.payload().write(128, out.local_addr, 64));
  EXPECT_EQ(memory_.payload()[130], 0x6B);
  EXPECT_EQ(memory_.payload()[191], 0x6B);
}

TEST_F(NonCoherentViewTest, AnUnflushedStoreNeverReachesDramUnderAdversarial) {
  HarnessView v(&state_);
  TheirPayloadSpan out{};
  ASSERT_TRUE(v.payload().read(0, 16, out));
  std::memset(out.local_addr, 0x11, 16);
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(v.counter().notify(128, i, TheirNotify::Set));
    TheirSample s{};
    ASSERT_TRUE(v.counter().test(0, 0, TheirCmp::EQ, s));
  }
  EXPECT_EQ(memory_.payload()[0], 0);
  EXPECT_EQ(memory_.load_counter(128), 99) << "counters stay coherent";
}

TEST_F(NonCoherentViewTest, EveryCounterCallIsASyncPoint) {
  HarnessView v(&state_);
  const uint64_t before = model_.steps();
  TheirSample s{};
  ASSERT_TRUE(v.counter().notify(64, 1, TheirNotify::Set));
  ASSERT_TRUE(v.counter().test(64, 1, TheirCmp::EQ, s));
  int32_t seen = 0;
  ASSERT_TRUE(v.counter().wait(64, 1, TheirCmp::EQ, 100, seen));
  EXPECT_EQ(model_.steps(), before + 3);
  TheirPayloadSpan out{};
  ASSERT_TRUE(v.payload().read(0, 8, out));  // a sync point, then the invalidate
  EXPECT_EQ(model_.steps(), before + 5);
  ASSERT_TRUE(v.payload().write(0, out.local_addr, 8));  // the flush only
  EXPECT_EQ(model_.steps(), before + 6);
}

class RandomNonCoherentViewTest : public NonCoherentViewTest {
 protected:
  RandomNonCoherentViewTest() : NonCoherentViewTest(CachePolicy::kRandom, 3) {}
};

TEST_F(RandomNonCoherentViewTest, SpontaneousWriteBacksHappenAtCounterCallsAndAreAccounted) {
  HarnessView v(&state_);
  std::memset(copy(), 0x2D, 256);  // as if L2 code had stored everywhere
  TheirSample s{};
  for (int i = 0; i < 64 && model_.movements_total() < 4; ++i) {
    ASSERT_TRUE(v.counter().test(0, 0, TheirCmp::EQ, s));
  }
  ASSERT_EQ(model_.movements_total(), 4u) << "every line written back in the end";
  for (const auto& m : model_.movements()) {
    EXPECT_EQ(m.cause, NonCoherentPayload::Cause::kSpontaneous);
  }
  EXPECT_EQ(memory_.payload()[255], 0x2D);
  ASSERT_TRUE(v.counter().test(0, 0, TheirCmp::EQ, s));
  EXPECT_EQ(log_.count_kind(AccessKind::kUnaccountedStore), 0u) << log_.dump();
}

TEST_F(NonCoherentViewTest, ChecksFaultsAndTheLogBehaveAsWhenCoherent) {
  HarnessView v(&state_);
  TheirPayloadSpan out{};
  EXPECT_FALSE(v.payload().read(250, 7, out));
  ASSERT_EQ(state_.violations.size(), 1u);
  EXPECT_NE(state_.violations[0].find("outside the payload span"), std::string::npos);
  EXPECT_TRUE(v.failed());
  state_.failed = false;
  state_.violations.clear();
  faults_.arm(ViewCall::kWrite, 1);
  const uint8_t b = 1;
  EXPECT_FALSE(v.payload().write(0, &b, 1));
  EXPECT_EQ(copy()[0], 0) << "a faulted write does nothing";
  EXPECT_EQ(log_.count_kind(AccessKind::kInjectedFault), 1u);
  EXPECT_TRUE(state_.violations.empty());
}

TEST_F(NonCoherentViewTest, LeanModeGoesThroughTheModelAndKeepsItsChecks) {
  state_.lean = true;
  HarnessView v(&state_);
  const uint8_t b[2] = {4, 5};
  ASSERT_TRUE(v.payload().write(10, b, 2));
  EXPECT_EQ(copy()[11], 5);
  EXPECT_EQ(memory_.payload()[11], 5) << "lean or not, a write flushes";
  memory_.payload()[20] = 6;  // the peer
  TheirPayloadSpan out{};
  ASSERT_TRUE(v.payload().read(20, 1, out));
  EXPECT_EQ(out.local_addr, copy() + 20);
  EXPECT_EQ(*static_cast<uint8_t*>(out.local_addr), 6) << "lean or not, a read invalidates";
  const uint64_t before = model_.steps();
  TheirSample s{};
  ASSERT_TRUE(v.counter().notify(64, 7, TheirNotify::Set));
  ASSERT_TRUE(v.counter().test(64, 7, TheirCmp::EQ, s));
  EXPECT_TRUE(s.matched);
  EXPECT_EQ(model_.steps(), before + 2);
  EXPECT_EQ(log_.size(), 0u) << log_.dump();
  EXPECT_FALSE(v.payload().read(255, 2, out));
  EXPECT_EQ(state_.violations.size(), 1u) << "out of the payload span";
}

TEST_F(HarnessViewTest, NoStateMeansFailed) {
  HarnessView v;
  EXPECT_TRUE(v.failed());
  EXPECT_STRNE(v.error().message, "");
}

}  // namespace
}  // namespace spsq_conf
