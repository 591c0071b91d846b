// W.CTR.3: the 32-bit counters wrap (and cross the int32 sign boundary) in
// normal operation: the run of lean_wrap_driver.h through the L2 endpoint,
// the input ring consumed and the output ring produced, over the lean view
// (lean_view.h). The certification runs it once (MaxInflight does not touch
// counters).
// The endpoint's calls are inlined into the run's two functions (flatten,
// below). Inlined that deep, GCC's flow analysis reports maybe-uninitialized
// on an endpoint's out-parameters that its own checks set on every path that
// uses them (the reference's among them): not a finding about the endpoint.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <memory>
#include <string>

#include "testkit/lean_view.h"
#include "testkit/lean_wrap_driver.h"
#include "conformance/l2/l2_typed.h"

namespace spsq_conf {
namespace {

// The recording view costs far more than the endpoint, and 2^33 calls of it
// would take hours: the run is on the lean view (lean_view.h), which checks
// what the harness view checks in lean mode; every other test uses the full
// harness view.
using FastEndpoint = SPSQ_CERT_ENDPOINT<LeanView, 1>;
using FastApi = EndpointAccess<FastEndpoint>;

// One direction's queue and endpoint over the lean view.
class WrapRun {
 public:
  WrapRun() : queue_(lean_wrap::Params()) {
    ViewState& s = queue_.view_state();
    s.lean = true;
    s.log = nullptr;
    s.faults = nullptr;
    endpoint_.reset(new FastEndpoint(TypedBinding(queue_), LeanView(queue_.view()),
                                     FastApi::clock(&VirtualClock::now_ns)));
  }
  Queue& queue() { return queue_; }
  bool live() const { return endpoint_->live(); }
  int32_t l2_flag() { return queue_.memory().load_counter(wire::kPeerFlag); }

  // The endpoint consumes the input ring the peer fills. Both runs capture
  // the endpoint's address by value: a member read through `this` would be
  // loaded again after every store the endpoint makes.
  std::string Consume(uint64_t total) {
    FastEndpoint* const ep = endpoint_.get();
    return lean_wrap::PeerProduces(
        queue_.memory(), queue_.layout(), lean_wrap::Ring{true}, total,
        [ep](uint64_t seq) -> std::string {
          FastApi::Handle h{};
          switch (TakeOne(*ep, seq, &h)) {
            case kOk: return {};
            case kSeq: return "seq " + std::to_string(FastApi::seq(h));
            case kFirst: return "try_peek: " + std::string(FastApi::message(*ep));
            case kSecond: break;
          }
          return "release: " + std::string(FastApi::message(*ep));
        });
  }

  // The endpoint produces on the output ring the peer drains.
  std::string Produce(uint64_t total) {
    FastEndpoint* const ep = endpoint_.get();
    return lean_wrap::EndpointProduces(
        queue_.memory(), queue_.layout(), lean_wrap::Ring{false}, total,
        [ep](uint64_t) -> std::string {
          if (PutOne(*ep) == kOk) return {};
          return FastApi::message(*ep);
        });
  }

 private:
  // One message's endpoint calls, inlined into one function (flatten): each
  // of the endpoint's checks still runs, without a call for each. Which call
  // failed, for the caller to describe.
  enum Step { kOk, kFirst, kSeq, kSecond };
  __attribute__((flatten)) static Step TakeOne(FastEndpoint& e, uint64_t seq,
                                               FastApi::Handle* h) {
    if (!e.input().try_peek(*h)) return kFirst;
    if (FastApi::seq(*h) != seq) return kSeq;
    return e.input().release(*h) ? kOk : kSecond;
  }
  __attribute__((flatten)) static Step PutOne(FastEndpoint& e) {
    FastApi::Reservation r{};
    if (!e.output().try_reserve(0, r)) return kFirst;
    return e.output().publish(r, FastApi::opcode_value(wire::kData)) ? kOk : kSecond;
  }

  Queue queue_;
  std::unique_ptr<FastEndpoint> endpoint_;
};

TEST(Wrap, CountersWrapAndTrafficContinuesInBothDirections) {
  SPSQ_CLAUSES("W.CTR.3/consumer", "W.CTR.3/producer", "W.CTR.3/sign");
  // Not run at all under sanitizers: only the wrap itself goes untested; the
  // other tests judge the counters below 2^32.
  if (lean_wrap::SkipFullRunUnderSanitizer()) {
    GTEST_SKIP() << "sanitizer build: 2^33 instrumented queue operations take hours; the "
                    "uninstrumented certification runs the wrap";
  }
  SPSQ_CLAUSES("S3.CTR.1", "S3.CTR.2");
  const uint64_t depth = lean_wrap::Params().depth;
  const uint64_t total = lean_wrap::MessageCount(depth);
  WrapRun input, output;
  ASSERT_TRUE(input.live());
  ASSERT_TRUE(output.live());
  std::string input_error, output_error;
  lean_wrap::RunBoth(lean_wrap::Ring{true}, [&] { return input.Consume(total); },
                     lean_wrap::Ring{false}, [&] { return output.Produce(total); }, &input_error,
                     &output_error);
  EXPECT_EQ(input_error, "") << "consumer";
  EXPECT_EQ(output_error, "") << "producer";
  EXPECT_TRUE(input.live());
  EXPECT_TRUE(output.live());
  EXPECT_EQ(input.l2_flag(), 0);
  EXPECT_EQ(output.l2_flag(), 0);
  input.queue().check_invariants("input run after the wrap");
  output.queue().check_invariants("output run after the wrap");
  lean_wrap::SkipIfShortened(total, depth);
}

}  // namespace
}  // namespace spsq_conf
