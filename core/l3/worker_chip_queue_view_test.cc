// What the L3 queue does to shared memory, seen through the recording,
// fault-injecting view of //core/testing: the producer's publish order, the
// consumer's head publish, poison on view failures, and no access at all for
// usage errors or after free().
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "common/region_template.h"
#include "gtest/gtest.h"
#include "l3/worker_chip_queue.h"
#include "region/region_instance.h"
#include "testing/recording_view.h"
#include "testing/virtual_clock.h"

namespace spsc_queue {
namespace {

using spsq_testing::AccessKind;
using spsq_testing::RecordingView;
using spsq_testing::ViewCall;
using spsq_testing::ViewScript;
using spsq_testing::VirtualClock;
using Status = WorkerChipQueueStatus;
using std::chrono::milliseconds;

struct Recorded {
  Recorded(uint64_t depth, uint64_t in, uint64_t out) {
    VirtualClock::reset();
    SpscQueueLayout::create(depth, in, out, &layout);
    std::string why;
    instance = spsq_runtime::RegionInstance::materialize({0, 3, 11}, layout.payload_bytes, 384,
                                                         ledger, &why);
    binding = SpscQueueEndpointBinding{kSpscQueueMagicVersion, 3, 11,
                                       instance->payload().base, layout.payload_bytes,
                                       instance->counter().base, 384, depth, in, out};
    l3 = std::make_unique<BasicWorkerChipQueue<RecordingView>>(
        binding, RecordingView(instance->payload(), instance->counter(), &l3_script),
        VirtualClock::clock(), instance);
    l2 = std::make_unique<SpscQueueEndpoint<RecordingView>>(
        binding, RecordingView(instance->payload(), instance->counter(), &l2_script),
        VirtualClock::clock());
  }
  std::vector<spsq_testing::Access> mutations() const {
    return l3_script.log.only({AccessKind::kPayloadWrite, AccessKind::kFlush,
                               AccessKind::kCounterNotify});
  }

  std::shared_ptr<spsq_runtime::RegionLedger> ledger =
      std::make_shared<spsq_runtime::RegionLedger>();
  std::shared_ptr<spsq_runtime::RegionInstance> instance;
  SpscQueueLayout layout{};
  SpscQueueEndpointBinding binding{};
  ViewScript l3_script, l2_script;
  std::unique_ptr<BasicWorkerChipQueue<RecordingView>> l3;
  std::unique_ptr<SpscQueueEndpoint<RecordingView>> l2;
};

void expect_access(const spsq_testing::Access& a, AccessKind kind, uint64_t offset,
                   uint64_t nbytes) {
  EXPECT_EQ(a.kind, kind) << a.str();
  EXPECT_EQ(a.offset, offset) << a.str();
  EXPECT_EQ(a.nbytes, nbytes) << a.str();
}

TEST(WorkerChipQueueView, EnqueuePublishesPayloadThenBodyThenSeqThenTail) {
  Recorded r(4, 128, 64);
  const std::vector<uint8_t> msg(40, 0xab);
  ASSERT_EQ(r.l3->input().try_enqueue(msg.data(), msg.size()), Status::OK);
  const auto m = r.mutations();
  ASSERT_EQ(m.size(), 7u) << r.l3_script.log.str();
  expect_access(m[0], AccessKind::kPayloadWrite, r.layout.input_arena_offset, 40);
  expect_access(m[1], AccessKind::kFlush, r.layout.input_arena_offset, 40);
  expect_access(m[2], AccessKind::kPayloadWrite, 8, 24);  // slot 0, bytes 8..31
  expect_access(m[3], AccessKind::kFlush, 8, 24);
  expect_access(m[4], AccessKind::kPayloadWrite, 0, 8);   // then seq
  expect_access(m[5], AccessKind::kFlush, 0, 8);
  expect_access(m[6], AccessKind::kCounterNotify, kInputDescTailOffset, 4);
  EXPECT_EQ(m[6].value, 1);
  EXPECT_EQ(m[6].mode, static_cast<uint32_t>(RegionNotifyOp::Set));
  EXPECT_EQ(r.l3_script.out_of_span, 0u);
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
  ASSERT_EQ(m.size(), 1u) << r.l3_script.log.str();
  expect_access(m[0], AccessKind::kCounterNotify, kOutputDescHeadOffset, 4);
  EXPECT_EQ(m[0].value, 1);
  EXPECT_EQ(r.l3_script.out_of_span, 0u);
}

TEST(WorkerChipQueueView, PayloadWriteFailurePoisonsAndRaisesTheInitiatorFlag) {
  Recorded r(4, 128, 64);
  r.l3_script.faults.fail(ViewCall::kPayloadWrite, 1);
  const std::vector<uint8_t> msg(8, 1);
  EXPECT_EQ(r.l3->input().try_enqueue(msg.data(), 8), Status::FAILED);
  EXPECT_EQ(r.l3->error().kind, SpscQueueErrorKind::ENDPOINT_ERROR);
  EXPECT_EQ(r.l3->error().op, SpscQueueOp::L3_ENQUEUE);
  EXPECT_NE(std::string(r.l3->error().message).find("injected failure"), std::string::npos)
      << r.l3->error().message;
  EXPECT_EQ(r.l3->error().transaction_id, 11u);
  EXPECT_EQ(r.l3_script.log.notified(kInitiatorAbortOffset), std::vector<int32_t>{1});
  EXPECT_TRUE(r.l3_script.log.notified(kInputDescTailOffset).empty());  // never published
  EXPECT_TRUE(r.l3_script.log.notified(kPeerAbortOffset).empty());
}

TEST(WorkerChipQueueView, HeadNotifyFailurePoisonsRelease) {
  Recorded r(4, 64, 64);
  SpscQueueOutputReservation res{};
  ASSERT_TRUE(r.l2->output().try_reserve(0, res));
  ASSERT_TRUE(r.l2->output().publish(res, SpscQueueOpcode::DATA));
  WorkerChipMessage msg{};
  ASSERT_EQ(r.l3->output().try_peek(&msg), Status::OK);
  r.l3_script.faults.fail(ViewCall::kCounterNotify, 1);
  EXPECT_EQ(r.l3->output().release(msg), Status::FAILED);
  EXPECT_EQ(r.l3->error().kind, SpscQueueErrorKind::ENDPOINT_ERROR);
  EXPECT_EQ(r.l3->error().op, SpscQueueOp::L3_OUTPUT_RELEASE);
  // The failed head notify, then the one abort-flag Set.
  EXPECT_EQ(r.l3_script.log.notified(kInitiatorAbortOffset), std::vector<int32_t>{1});
}

TEST(WorkerChipQueueView, UsageErrorsAndFreedHandlesTouchNoMemory) {
  Recorded r(2, 64, 64);
  const std::vector<uint8_t> msg(65, 1);
  WorkerChipMessage m{};
  EXPECT_EQ(r.l3->input().enqueue(msg.data(), 8, milliseconds(0)), Status::REJECTED);
  EXPECT_EQ(r.l3->input().try_enqueue(msg.data(), 65), Status::REJECTED);
  EXPECT_EQ(r.l3->input().try_enqueue(nullptr, 1), Status::REJECTED);
  EXPECT_EQ(r.l3->output().peek(milliseconds(-1), &m), Status::REJECTED);
  EXPECT_TRUE(r.l3_script.log.empty()) << r.l3_script.log.str();
  r.l3->free();
  EXPECT_EQ(r.l3->input().try_enqueue(msg.data(), 8), Status::REJECTED);
  EXPECT_EQ(r.l3->input().try_request_stop(), Status::REJECTED);
  EXPECT_EQ(r.l3->output().try_peek(&m), Status::REJECTED);
  EXPECT_EQ(r.l3->output().release(m), Status::REJECTED);
  EXPECT_TRUE(r.l3_script.log.empty()) << r.l3_script.log.str();
}

}  // namespace
}  // namespace spsc_queue
