// What the L3 queue does to shared memory, seen through the recording,
// fault-injecting view of the conformance harness: the producer's publish
// order, the consumer's head publish, poison on view failures, and no access
// at all for usage errors or after free().
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "common/region_template.h"
#include "testkit/queue_region.h"
#include "testkit/virtual_clock.h"
#include "model/wire_model.h"
#include "gtest/gtest.h"
#include "l3/worker_chip_queue.h"

namespace spsc_queue {
namespace {

using spsq_conf::Access;
using spsq_conf::AccessKind;
using spsq_conf::AccessLog;
using spsq_conf::HarnessView;
using spsq_conf::QueueParams;
using spsq_conf::QueueRegion;
using spsq_conf::ViewCall;
using spsq_conf::ViewState;
using spsq_conf::VirtualClock;
using Status = WorkerChipQueueStatus;
using std::chrono::milliseconds;

// Values Set into one counter slot, in order.
std::vector<int32_t> notified(const AccessLog& log, uint64_t offset) {
  std::vector<int32_t> v;
  for (const Access& a : log.entries()) {
    if (a.kind == AccessKind::kNotify && a.offset == offset && a.ok) v.push_back(a.value);
  }
  return v;
}

// One queue in a harness region: the L3 handle over the region's view (its
// log and fault plan) and an L2 endpoint over a view of its own. An injected
// fault fails that call and shows in failed(), yet later calls are served, so
// the queue can still raise its flag.
struct Recorded {
  Recorded(uint64_t depth, uint64_t in, uint64_t out) {
    VirtualClock::reset();
    SpscQueueLayout::create(depth, in, out, &layout);
    QueueParams p;
    p.depth = depth;
    p.input_arena = in;
    p.output_arena = out;
    p.session = 3;
    p.transaction = 11;
    p.shadow = false;  // L2 fills its lent output spans in place
    p.coherence_from_env = false;
    region = std::make_unique<QueueRegion>(p, spsq_conf::Side::kL3);
    binding = spsq_conf::wire::binding_from_scalars<SpscQueueEndpointBinding>(
        region->scalars().data());
    ViewState& s = region->view_state();
    s.sticky_faults = false;
    s.transient_faults_report_failed = true;
    l2_state.memory = &region->memory();
    l2_state.payload_span = layout.payload_bytes;
    l2_state.counter_span = 384;
    l2_state.log = &l2_log;
    const MonotonicClock clock{&VirtualClock::now_ns};
    l3 = std::make_unique<BasicWorkerChipQueue<HarnessView>>(binding, region->view(), clock,
                                                             nullptr);
    l2 = std::make_unique<SpscQueueEndpoint<HarnessView>>(binding, HarnessView(&l2_state),
                                                          clock);
  }
  AccessLog& log() { return region->log(); }
  // A view write copies and flushes (harness_view.h): one entry per write.
  std::vector<Access> mutations() const {
    std::vector<Access> v;
    for (const Access& a : region->log().entries()) {
      if (a.kind == AccessKind::kWrite || a.kind == AccessKind::kNotify) v.push_back(a);
    }
    return v;
  }
  bool no_violations() const { return region->view_state().violations.empty(); }

  SpscQueueLayout layout{};
  std::unique_ptr<QueueRegion> region;
  SpscQueueEndpointBinding binding{};
  AccessLog l2_log;
  ViewState l2_state;
  std::unique_ptr<BasicWorkerChipQueue<HarnessView>> l3;
  std::unique_ptr<SpscQueueEndpoint<HarnessView>> l2;
};

void expect_access(const Access& a, AccessKind kind, uint64_t offset, uint64_t nbytes) {
  EXPECT_EQ(a.kind, kind) << a.describe();
  EXPECT_EQ(a.offset, offset) << a.describe();
  EXPECT_EQ(a.nbytes, nbytes) << a.describe();
}

TEST(WorkerChipQueueView, EnqueuePublishesPayloadThenBodyThenSeqThenTail) {
  Recorded r(4, 128, 64);
  const std::vector<uint8_t> msg(40, 0xab);
  ASSERT_EQ(r.l3->input().try_enqueue(msg.data(), msg.size()), Status::OK);
  const auto m = r.mutations();
  ASSERT_EQ(m.size(), 4u) << r.log().dump();
  expect_access(m[0], AccessKind::kWrite, r.layout.input_arena_offset, 40);
  expect_access(m[1], AccessKind::kWrite, 8, 24);  // slot 0, bytes 8..31
  expect_access(m[2], AccessKind::kWrite, 0, 8);   // then seq
  expect_access(m[3], AccessKind::kNotify, kInputDescTailOffset, 4);
  EXPECT_EQ(m[3].value, 1);
  EXPECT_EQ(m[3].op, static_cast<uint32_t>(RegionNotifyOp::Set));
  EXPECT_TRUE(r.no_violations()) << r.log().dump();
}

TEST(WorkerChipQueueView, ReleasePublishesTheOutputHeadOnly) {
  Recorded r(4, 64, 128);
  SpscQueueOutputReservation res{};
  ASSERT_TRUE(r.l2->output().try_reserve(16, res));
  ASSERT_TRUE(r.l2->output().publish(res, SpscQueueOpcode::DATA));
  WorkerChipMessage msg{};
  ASSERT_EQ(r.l3->output().try_peek(&msg), Status::OK);
  EXPECT_TRUE(r.mutations().empty()) << "peek must not write";
  std::vector<uint8_t> buf(16);
  ASSERT_EQ(r.l3->output().read_into(msg, buf.data(), 16), Status::OK);
  ASSERT_EQ(r.l3->output().release(msg), Status::OK);
  const auto m = r.mutations();
  ASSERT_EQ(m.size(), 1u) << r.log().dump();
  expect_access(m[0], AccessKind::kNotify, kOutputDescHeadOffset, 4);
  EXPECT_EQ(m[0].value, 1);
  EXPECT_TRUE(r.no_violations()) << r.log().dump();
}

TEST(WorkerChipQueueView, PayloadWriteFailurePoisonsAndRaisesTheInitiatorFlag) {
  Recorded r(4, 128, 64);
  r.region->faults().arm(ViewCall::kWrite, 1);
  const std::vector<uint8_t> msg(8, 1);
  EXPECT_EQ(r.l3->input().try_enqueue(msg.data(), 8), Status::FAILED);
  EXPECT_EQ(r.l3->error().kind, SpscQueueErrorKind::ENDPOINT_ERROR);
  EXPECT_EQ(r.l3->error().op, SpscQueueOp::L3_ENQUEUE);
  EXPECT_NE(std::string(r.l3->error().message).find("injected fault"), std::string::npos)
      << r.l3->error().message;
  EXPECT_EQ(r.l3->error().transaction_id, 11u);
  EXPECT_EQ(notified(r.log(), kInitiatorAbortOffset), std::vector<int32_t>{1});
  EXPECT_TRUE(notified(r.log(), kInputDescTailOffset).empty());  // never published
  EXPECT_TRUE(notified(r.log(), kPeerAbortOffset).empty());
}

TEST(WorkerChipQueueView, HeadNotifyFailurePoisonsRelease) {
  Recorded r(4, 64, 64);
  SpscQueueOutputReservation res{};
  ASSERT_TRUE(r.l2->output().try_reserve(0, res));
  ASSERT_TRUE(r.l2->output().publish(res, SpscQueueOpcode::DATA));
  WorkerChipMessage msg{};
  ASSERT_EQ(r.l3->output().try_peek(&msg), Status::OK);
  r.region->faults().arm(ViewCall::kNotify, 1);
  EXPECT_EQ(r.l3->output().release(msg), Status::FAILED);
  EXPECT_EQ(r.l3->error().kind, SpscQueueErrorKind::ENDPOINT_ERROR);
  EXPECT_EQ(r.l3->error().op, SpscQueueOp::L3_OUTPUT_RELEASE);
  // The failed head notify, then the one abort-flag Set.
  EXPECT_EQ(notified(r.log(), kInitiatorAbortOffset), std::vector<int32_t>{1});
}

TEST(WorkerChipQueueView, UsageErrorsAndFreedHandlesTouchNoMemory) {
  Recorded r(2, 64, 64);
  const std::vector<uint8_t> msg(65, 1);
  WorkerChipMessage m{};
  EXPECT_EQ(r.l3->input().enqueue(msg.data(), 8, milliseconds(0)), Status::REJECTED);
  EXPECT_EQ(r.l3->input().try_enqueue(msg.data(), 65), Status::REJECTED);
  EXPECT_EQ(r.l3->input().try_enqueue(nullptr, 1), Status::REJECTED);
  EXPECT_EQ(r.l3->output().peek(milliseconds(-1), &m), Status::REJECTED);
  EXPECT_EQ(r.log().size(), 0u) << r.log().dump();
  r.l3->free();
  EXPECT_EQ(r.l3->input().try_enqueue(msg.data(), 8), Status::REJECTED);
  EXPECT_EQ(r.l3->input().try_request_stop(), Status::REJECTED);
  EXPECT_EQ(r.l3->output().try_peek(&m), Status::REJECTED);
  EXPECT_EQ(r.l3->output().release(m), Status::REJECTED);
  EXPECT_EQ(r.log().size(), 0u) << r.log().dump();
}

}  // namespace
}  // namespace spsc_queue
