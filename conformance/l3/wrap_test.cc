// W.CTR.3 for L3: the 32-bit counters wrap (and cross the int32 sign
// boundary) in normal operation. 2^32 + 2 * depth messages go through the L3
// queue under test in each direction, through its adapter, on the harness
// view in lean mode (ViewState::lean: bounds and contract checks only, no
// log, no shadow diff, no fault plan), or on LeanView, which checks the same
// inline, where the adapter offers it (L3Adapter::make_lean): the run of lean_wrap_driver.h, the
// input ring produced and the output ring consumed. SPSQ_WRAP_MESSAGES
// overrides the count (a quick local check leaves W.CTR.3 UNTESTED); under
// sanitizers the full run is skipped. Built once, with its
// dependencies (the adapter, the queue) in compilation mode opt, and run only
// by the certification's report test.
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "testkit/clauses.h"
#include "testkit/lean_wrap_driver.h"
#include "testkit/queue_region.h"
#include "testkit/virtual_clock.h"
#include "model/wire_model.h"
#include "conformance/l3/l3_adapter.h"
#include "gtest/gtest.h"

namespace spsq_conf {
namespace {

// The two directions run on two threads; the virtual clock is one test
// thread's. Only try_* calls are made here, which never wait.
uint64_t FixedClock() { return VirtualClock::kDefaultStart; }

// One direction's queue and L3 adapter, on the lean harness view.
class WrapRun {
 public:
  WrapRun() : region_(lean_wrap::Params()) {
    ViewState& s = region_.view_state();
    s.lean = true;
    s.log = nullptr;
    s.faults = nullptr;
    l3_ = make_l3_adapter();
    // The implementation's lean path, where its adapter offers one.
    if (std::unique_ptr<L3Adapter> lean = l3_->make_lean()) l3_ = std::move(lean);
    const auto scalars = region_.scalars();
    opened_ = l3_->open(scalars.data(), scalars.size(), region_.view(), &FixedClock);
  }
  bool live() { return opened_ && l3_->live(); }
  std::string error() { return l3_->error().message; }
  int32_t l3_flag() { return region_.memory().load_counter(wire::kInitiatorFlag); }
  QueueRegion& region() { return region_; }

  // L3 produces on the input ring (zero-byte DATA) the peer drains, a batch
  // at a time through try_enqueue_n (one adapter call per batch, each
  // message a try_enqueue of its own).
  std::string Produce(uint64_t total) {
    return lean_wrap::EndpointProducesBatches(
        region_.memory(), region_.layout(), lean_wrap::Ring{true}, total,
        [&](uint64_t, uint64_t count, uint64_t* put) -> std::string {
          const L3Status s = l3_->try_enqueue_n(count, put);
          if (*put == count && s == L3Status::kOk) return {};
          return std::string("try_enqueue returned ") + l3_status_name(s) + ": " + error();
        });
  }

  // L3 consumes the output ring the peer fills: each dequeued with its seq,
  // kChunk at a time through try_dequeue_into_n, every message then checked.
  std::string Consume(uint64_t total) {
    return lean_wrap::PeerProducesBatches(
        region_.memory(), region_.layout(), lean_wrap::Ring{false}, total,
        [&](uint64_t first, uint64_t count, uint64_t* taken) -> std::string {
          for (uint64_t at = 0; at < count;) {
            const uint64_t n = count - at < kChunk ? count - at : kChunk;
            uint64_t done = 0;
            const L3Status s = l3_->try_dequeue_into_n(buf_, sizeof(buf_), msgs_, n, &done);
            for (uint64_t i = 0; i < done; ++i) {
              const L3Message& msg = msgs_[i];
              const uint64_t seq = first + at + i;
              if (msg.seq != seq || msg.opcode != wire::kData || msg.payload_nbytes != 0) {
                *taken = at + i;
                return "try_dequeue_into gave seq " + std::to_string(msg.seq) + " opcode " +
                       std::to_string(msg.opcode) + " nbytes " +
                       std::to_string(msg.payload_nbytes) + ", want seq " +
                       std::to_string(seq) + " zero-byte DATA";
              }
            }
            if (done < n) {
              *taken = at + done;
              return std::string("try_dequeue_into returned ") + l3_status_name(s) +
                     ", want seq " + std::to_string(first + at + done) + ": " + error();
            }
            at += n;
          }
          return {};
        });
  }

 private:
  // Messages per try_dequeue_into_n: their records stay in the L1 cache.
  static constexpr uint64_t kChunk = 64;

  QueueRegion region_;
  std::unique_ptr<L3Adapter> l3_;
  bool opened_ = false;
  uint8_t buf_[8];
  L3Message msgs_[kChunk];
};

TEST(L3Wrap, CountersWrapAndTrafficContinuesInBothDirections) {
  SPSQ_CLAUSES("W.CTR.3/consumer", "W.CTR.3/producer", "W.CTR.3/sign");
  if (lean_wrap::SkipFullRunUnderSanitizer()) {
    GTEST_SKIP() << "sanitizer build: 2^33 instrumented queue operations take hours; the "
                    "uninstrumented certification runs the wrap";
  }
  const uint64_t depth = lean_wrap::Params().depth;
  const uint64_t total = lean_wrap::MessageCount(depth);
  WrapRun input, output;
  ASSERT_TRUE(input.live()) << "open() refused a valid binding: " << input.error();
  ASSERT_TRUE(output.live()) << "open() refused a valid binding: " << output.error();
  std::string output_error, input_error;
  lean_wrap::RunBoth(lean_wrap::Ring{false}, [&] { return output.Consume(total); },
                     lean_wrap::Ring{true}, [&] { return input.Produce(total); }, &output_error,
                     &input_error);
  EXPECT_EQ(output_error, "") << "consumer";
  EXPECT_EQ(input_error, "") << "producer";
  for (WrapRun* run : {&input, &output}) {
    EXPECT_TRUE(run->live()) << run->error();
    EXPECT_EQ(run->l3_flag(), 0);
    std::set<std::string> violated;
    run->region().check_invariants(Side::kL3, "after the wrap run", {}, &violated);
    EXPECT_TRUE(violated.empty()) << "broken: " << *violated.begin();
  }
  lean_wrap::SkipIfShortened(total, depth);
}

}  // namespace
}  // namespace spsq_conf
