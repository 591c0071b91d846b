// Construction: the documented validation order, the error each defect gets,
// and that a failed construction touches no shared memory and never raises
// the abort flag.
#include <cstring>
#include <functional>

#include "tests/l2/l2_rig.h"

namespace spsq_testing {
namespace {

using spsc_queue::MonotonicClock;
using spsc_queue::SpscQueueEndpointBinding;

// One way to build an endpoint wrong.
struct Defects {
  std::function<void(SpscQueueEndpointBinding&)> binding = [](SpscQueueEndpointBinding&) {};
  RegionPartLocalSpan (*payload_span)(RegionPartLocalSpan) = [](RegionPartLocalSpan s) { return s; };
  RegionPartLocalSpan (*counter_span)(RegionPartLocalSpan) = [](RegionPartLocalSpan s) { return s; };
  bool view_failed = false;
  bool no_clock = false;
};

class ConstructionTest : public L2Test {
 protected:
  // Builds with the defects, then checks the failure and that the handle is
  // inert: every operation false, no shared access, no abort flag.
  template <uint64_t N = 1>
  void expect_rejected(const Defects& d, SpscQueueErrorKind kind, const char* needle,
                       bool identity = true) {
    SpscQueueEndpointBinding b = region_->binding();
    d.binding(b);
    RecordingView v(d.payload_span(region_->payload_span()), d.counter_span(region_->counter_span()),
                    &script_);
    if (d.view_failed) v.fail_now("device mapping lost");
    const MonotonicClock clock = d.no_clock ? MonotonicClock{} : VirtualClock::clock();
    // Something for every operation to find, so "false" is not just "empty".
    peer_->send(SpscQueueOpcode::DATA, pattern(8, 1));

    Endpoint<N> ep(b, std::move(v), clock);
    EXPECT_FALSE(ep.live());
    EXPECT_EQ(ep.error().kind, kind) << ep.error().message;
    EXPECT_EQ(ep.error().op, SpscQueueOp::INIT);
    EXPECT_NE(std::strstr(ep.error().message, needle), nullptr)
        << "message '" << ep.error().message << "' should name '" << needle << "'";
    EXPECT_EQ(ep.error().has_identity(), identity);
    if (identity) {
      EXPECT_EQ(ep.error().transaction_id, b.transaction_id);
      EXPECT_EQ(ep.error().session_instance_id_bits, b.session_instance_id_bits);
    }

    SpscQueueInputHandle h{};
    SpscQueueOutputReservation r{};
    const uint64_t t0 = VirtualClock::now();
    EXPECT_FALSE(ep.input().try_peek(h));
    EXPECT_FALSE(ep.input().peek(1000, h));
    EXPECT_FALSE(ep.input().release(h));
    EXPECT_FALSE(ep.input().drained());
    EXPECT_FALSE(ep.output().try_reserve(8, r));
    EXPECT_FALSE(ep.output().reserve(8, 1000, r));
    EXPECT_FALSE(ep.output().publish(r, SpscQueueOpcode::DATA));
    EXPECT_EQ(VirtualClock::now(), t0) << "a dead handle must not wait";
    EXPECT_EQ(ep.error().kind, kind) << "the construction error must stay the first error";

    EXPECT_TRUE(script_.log.empty()) << script_.log.str();
    EXPECT_EQ(peer_->peer_abort_flag(), 0);
    EXPECT_EQ(peer_->input_head(), 0);
    EXPECT_EQ(peer_->output_tail(), 0);
  }
};

TEST_F(ConstructionTest, ValidBindingIsLiveWithTheContractLayout) {
  auto ep = open();
  expect_healthy(*ep);
  const spsc_queue::SpscQueueLayout& l = ep->layout();
  EXPECT_EQ(l.depth, 4u);
  EXPECT_EQ(l.input_desc_offset, 0u);
  EXPECT_EQ(l.depth * 32, 128u);
  EXPECT_EQ(l.output_desc_offset, 128u);
  EXPECT_EQ(l.depth * 32, 128u);
  EXPECT_EQ(l.input_arena_offset, 256u);
  EXPECT_EQ(l.input_arena_bytes, 256u);
  EXPECT_EQ(l.output_arena_offset, 512u);
  EXPECT_EQ(l.output_arena_bytes, 256u);
  EXPECT_EQ(l.payload_bytes, 768u);
  EXPECT_EQ(l.counter_bytes, 384u);
  EXPECT_EQ(l.input_desc_tail_offset, 0u);
  EXPECT_EQ(l.input_desc_head_offset, 64u);
  EXPECT_EQ(l.output_desc_tail_offset, 128u);
  EXPECT_EQ(l.output_desc_head_offset, 192u);
  EXPECT_EQ(l.initiator_abort_offset, 256u);
  EXPECT_EQ(l.peer_abort_offset, 320u);
  EXPECT_FALSE(ep->input().drained());
}

TEST_F(ConstructionTest, GoldenLayoutsMatchTheHandComputedOnes) {
  // Wire-contract golden vectors, checked through a live endpoint.
  struct G { uint64_t depth, in, out, out_ring, in_arena, out_arena, payload; };
  for (const G& g : {G{1, 64, 64, 32, 64, 128, 192}, G{4, 128, 192, 128, 256, 384, 576},
                     G{8, 192, 64, 256, 512, 704, 768}, G{2, 64, 128, 64, 128, 192, 320}}) {
    use_region(g.depth, g.in, g.out);
    auto ep = open();
    ASSERT_TRUE(ep->live()) << ep->error().message;
    EXPECT_EQ(ep->layout().output_desc_offset, g.out_ring);
    EXPECT_EQ(ep->layout().input_arena_offset, g.in_arena);
    EXPECT_EQ(ep->layout().output_arena_offset, g.out_arena);
    EXPECT_EQ(ep->layout().payload_bytes, g.payload);
  }
}

TEST_F(ConstructionTest, WrongMagicVersionIsBadBindingWithoutIdentity) {
  Defects d;
  d.binding = [](SpscQueueEndpointBinding& b) { b.magic_version = 0x5350535100010001ull; };
  expect_rejected(d, SpscQueueErrorKind::BAD_BINDING, "magic_version", /*identity=*/false);
}

TEST_F(ConstructionTest, WrongMajorVersionIsBadBinding) {
  Defects d;
  d.binding = [](SpscQueueEndpointBinding& b) { b.magic_version = 0x5350535100020000ull; };
  expect_rejected(d, SpscQueueErrorKind::BAD_BINDING, "magic_version", false);
}

TEST_F(ConstructionTest, ZeroTransactionIdIsBadBindingWithoutIdentity) {
  Defects d;
  d.binding = [](SpscQueueEndpointBinding& b) { b.transaction_id = 0; };
  expect_rejected(d, SpscQueueErrorKind::BAD_BINDING, "transaction_id", false);
}

TEST_F(ConstructionTest, ZeroSessionBitsAreAccepted) {
  SpscQueueEndpointBinding b = region_->binding();
  b.session_instance_id_bits = 0;
  Endpoint<1> ep(b, view(), VirtualClock::clock());
  EXPECT_TRUE(ep.live()) << ep.error().message;
}

TEST_F(ConstructionTest, MissingClockIsBadArgument) {
  Defects d;
  d.no_clock = true;
  expect_rejected(d, SpscQueueErrorKind::BAD_ARGUMENT, "clock");
}

TEST_F(ConstructionTest, FailedViewIsEndpointErrorNamingTheViewError) {
  Defects d;
  d.view_failed = true;
  expect_rejected(d, SpscQueueErrorKind::ENDPOINT_ERROR, "device mapping lost");
}

TEST_F(ConstructionTest, PayloadSpanShorterThanBindingIsBadBinding) {
  Defects d;
  d.payload_span = [](RegionPartLocalSpan s) { return RegionPartLocalSpan{s.base, s.logical_bytes - 1}; };
  expect_rejected(d, SpscQueueErrorKind::BAD_BINDING, "span");
}

TEST_F(ConstructionTest, PayloadSpanLongerThanBindingIsBadBinding) {
  Defects d;
  d.payload_span = [](RegionPartLocalSpan s) { return RegionPartLocalSpan{s.base, s.logical_bytes + 64}; };
  expect_rejected(d, SpscQueueErrorKind::BAD_BINDING, "span");
}

TEST_F(ConstructionTest, CounterSpanOtherThanBindingIsBadBinding) {
  Defects d;
  d.counter_span = [](RegionPartLocalSpan s) { return RegionPartLocalSpan{s.base, 320}; };
  expect_rejected(d, SpscQueueErrorKind::BAD_BINDING, "span");
}

TEST_F(ConstructionTest, PayloadBytesDisagreeingWithLayoutIsBadBinding) {
  // View and binding agree with each other, not with the layout.
  Defects d;
  d.binding = [](SpscQueueEndpointBinding& b) { b.payload_bytes -= 64; };
  d.payload_span = [](RegionPartLocalSpan s) { return RegionPartLocalSpan{s.base, s.logical_bytes - 64}; };
  expect_rejected(d, SpscQueueErrorKind::BAD_BINDING, "layout");
}

TEST_F(ConstructionTest, CounterBytesDisagreeingWithLayoutIsBadBinding) {
  Defects d;
  d.binding = [](SpscQueueEndpointBinding& b) { b.counter_bytes = 320; };
  d.counter_span = [](RegionPartLocalSpan s) { return RegionPartLocalSpan{s.base, 320}; };
  expect_rejected(d, SpscQueueErrorKind::BAD_BINDING, "layout");
}

TEST_F(ConstructionTest, ArenaSizesDisagreeingWithPayloadBytesIsBadBinding) {
  Defects d;
  d.binding = [](SpscQueueEndpointBinding& b) { b.output_arena_bytes = 192; };
  expect_rejected(d, SpscQueueErrorKind::BAD_BINDING, "layout");
}

TEST_F(ConstructionTest, InvalidDepthsAndArenasAreBadBinding) {
  const std::function<void(SpscQueueEndpointBinding&)> defects[] = {
      [](SpscQueueEndpointBinding& b) { b.depth = 0; },
      [](SpscQueueEndpointBinding& b) { b.depth = 3; },
      [](SpscQueueEndpointBinding& b) { b.depth = uint64_t{1} << 31; },
      [](SpscQueueEndpointBinding& b) { b.input_arena_bytes = 0; },
      [](SpscQueueEndpointBinding& b) { b.input_arena_bytes = 100; },
      [](SpscQueueEndpointBinding& b) { b.output_arena_bytes = 0; },
      [](SpscQueueEndpointBinding& b) { b.output_arena_bytes = 65; },
      [](SpscQueueEndpointBinding& b) { b.output_arena_bytes = ~uint64_t{0} - 63; },
  };
  for (const auto& f : defects) {
    script_.log.clear();
    Defects d;
    d.binding = f;
    expect_rejected(d, SpscQueueErrorKind::BAD_BINDING, "layout");
  }
}

TEST_F(ConstructionTest, MaxInflightAboveDepthIsBadArgument) {
  Defects d;
  expect_rejected<8>(d, SpscQueueErrorKind::BAD_ARGUMENT, "MaxInflight");
  script_.log.clear();
  expect_rejected<5>(d, SpscQueueErrorKind::BAD_ARGUMENT, "MaxInflight");
}

TEST_F(ConstructionTest, MaxInflightZeroIsBadArgument) {
  expect_rejected<0>(Defects{}, SpscQueueErrorKind::BAD_ARGUMENT, "MaxInflight");
}

TEST_F(ConstructionTest, MaxInflightFromOneToDepthIsAccepted) {
  EXPECT_TRUE(open<1>()->live());
  EXPECT_TRUE(open<2>()->live());
  EXPECT_TRUE(open<3>()->live());
  EXPECT_TRUE(open<4>()->live());
  use_region(1, 64, 64);
  EXPECT_TRUE(open<1>()->live());
}

// --- the order: with two defects, the earlier check names the error ---

TEST_F(ConstructionTest, OrderBindingBeforeClockAndView) {
  Defects d;
  d.binding = [](SpscQueueEndpointBinding& b) { b.magic_version = 0; };
  d.no_clock = true;
  d.view_failed = true;
  expect_rejected(d, SpscQueueErrorKind::BAD_BINDING, "magic_version", false);
}

TEST_F(ConstructionTest, OrderTransactionBeforeClock) {
  Defects d;
  d.binding = [](SpscQueueEndpointBinding& b) { b.transaction_id = 0; };
  d.no_clock = true;
  expect_rejected(d, SpscQueueErrorKind::BAD_BINDING, "transaction_id", false);
}

TEST_F(ConstructionTest, OrderClockBeforeView) {
  Defects d;
  d.no_clock = true;
  d.view_failed = true;
  d.payload_span = [](RegionPartLocalSpan s) { return RegionPartLocalSpan{s.base, 1}; };
  expect_rejected(d, SpscQueueErrorKind::BAD_ARGUMENT, "clock");
}

TEST_F(ConstructionTest, OrderViewFailureBeforeSpans) {
  Defects d;
  d.view_failed = true;
  d.payload_span = [](RegionPartLocalSpan s) { return RegionPartLocalSpan{s.base, 1}; };
  expect_rejected(d, SpscQueueErrorKind::ENDPOINT_ERROR, "device mapping lost");
}

TEST_F(ConstructionTest, OrderSpansBeforeLayout) {
  Defects d;
  d.binding = [](SpscQueueEndpointBinding& b) { b.depth = 3; };
  d.counter_span = [](RegionPartLocalSpan s) { return RegionPartLocalSpan{s.base, 64}; };
  expect_rejected(d, SpscQueueErrorKind::BAD_BINDING, "span");
}

TEST_F(ConstructionTest, OrderLayoutBeforeMaxInflight) {
  Defects d;
  d.binding = [](SpscQueueEndpointBinding& b) { b.depth = 3; };
  expect_rejected<8>(d, SpscQueueErrorKind::BAD_BINDING, "layout");
}

}  // namespace
}  // namespace spsq_testing
