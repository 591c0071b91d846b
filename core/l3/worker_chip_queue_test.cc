// The reference L3 WorkerChipQueue's own behaviour, where the conformance suite
// (//conformance/l3, which judges the spec's clauses through the L3 adapter)
// cannot look: the C++ API's usage errors and their messages, owner cookies
// across queues, the read_into path, the poison flag written once, the
// producer's replay check of a released input descriptor, and free() against
// the region ledger. Single threaded on the virtual clock of //core/testing;
// nothing sleeps.
#include <chrono>
#include <cstring>
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
using spsq_testing::ViewScript;
using spsq_testing::VirtualClock;
using spsq_runtime::RegionInstance;
using spsq_runtime::RegionLedger;
using Status = WorkerChipQueueStatus;
using L3Queue = BasicWorkerChipQueue<RecordingView>;
using std::chrono::milliseconds;
using std::chrono::nanoseconds;

constexpr uint64_t kSession = 0x5e55109bull;
constexpr uint64_t kTxn = 42;

std::vector<uint8_t> pattern(uint64_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (uint64_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + 7 * i);
  return v;
}

// One queue: a RegionInstance, the L3 handle and an L2 endpoint over it, plus
// raw access to its descriptors and counters.
template <uint64_t MaxInflight = 1>
struct Rig {
  using L2 = SpscQueueEndpoint<RecordingView, MaxInflight>;

  Rig(uint64_t depth, uint64_t in, uint64_t out, uint64_t session = kSession) {
    VirtualClock::reset();
    SpscQueueLayout::create(depth, in, out, &layout);
    std::string why;
    instance = RegionInstance::materialize({0, session, kTxn}, layout.payload_bytes,
                                           layout.counter_bytes, ledger, &why);
    binding = SpscQueueEndpointBinding{kSpscQueueMagicVersion,
                                       session,
                                       kTxn,
                                       instance->payload().base,
                                       layout.payload_bytes,
                                       instance->counter().base,
                                       layout.counter_bytes,
                                       depth,
                                       in,
                                       out};
    l3 = std::make_unique<L3Queue>(binding, view(&l3_script), VirtualClock::clock(), instance);
    l2 = std::make_unique<L2>(binding, view(&l2_script), VirtualClock::clock());
  }

  // Whatever a test did, neither side may touch memory outside its spans or
  // keep waiting without progress.
  ~Rig() {
    EXPECT_EQ(l3_script.out_of_span, 0u) << l3_script.log.str();
    EXPECT_EQ(l2_script.out_of_span, 0u);
    EXPECT_EQ(l3_script.wait_overruns, 0u);
  }

  RecordingView view(ViewScript* script) const {
    return RecordingView(instance->payload(), instance->counter(), script);
  }

  uint8_t* payload() const { return reinterpret_cast<uint8_t*>(instance->payload().base); }
  int32_t counter(uint64_t off) const {
    return __atomic_load_n(reinterpret_cast<int32_t*>(instance->counter().base + off),
                           __ATOMIC_ACQUIRE);
  }
  void set_counter(uint64_t off, int32_t v) const {
    __atomic_store_n(reinterpret_cast<int32_t*>(instance->counter().base + off), v,
                     __ATOMIC_RELEASE);
  }
  SpscQueueDescriptor input_desc(uint64_t k) const {
    return decode_descriptor(payload() + layout.input_slot_offset(k));
  }

  // L2 echo of one input: output kind = same bytes, opcode DATA.
  void l2_publish(const std::vector<uint8_t>& bytes, SpscQueueOpcode op = SpscQueueOpcode::DATA) {
    SpscQueueOutputReservation r{};
    ASSERT_TRUE(l2->output().try_reserve(bytes.size(), r)) << l2->error().message;
    if (!bytes.empty()) std::memcpy(spsc_queue::payload_data(r), bytes.data(), bytes.size());
    ASSERT_TRUE(l2->output().publish(r, op)) << l2->error().message;
  }

  std::shared_ptr<RegionLedger> ledger = std::make_shared<RegionLedger>();
  std::shared_ptr<RegionInstance> instance;
  SpscQueueLayout layout{};
  SpscQueueEndpointBinding binding{};
  // The views log into these (the endpoints own the views themselves).
  ViewScript l3_script;
  ViewScript l2_script;
  std::unique_ptr<L3Queue> l3;
  std::unique_ptr<L2> l2;
};

void expect_poison(const Rig<>& rig, SpscQueueErrorKind kind, SpscQueueOp op,
                   const char* text) {
  EXPECT_FALSE(rig.l3->live());
  EXPECT_EQ(rig.l3->error().kind, kind) << rig.l3->error().message;
  EXPECT_EQ(rig.l3->error().op, op) << operation_name(rig.l3->error().op);
  EXPECT_NE(std::string(rig.l3->error().message).find(text), std::string::npos)
      << rig.l3->error().message;
  EXPECT_TRUE(rig.l3->error().has_identity());
  EXPECT_EQ(rig.l3->error().session_instance_id_bits, kSession);
  EXPECT_EQ(rig.l3->error().transaction_id, kTxn);
  EXPECT_EQ(rig.counter(kInitiatorAbortOffset), 1);  // local poison raises @256
  EXPECT_EQ(rig.counter(kPeerAbortOffset), 0);       // never the peer's flag
}

// ---- zero-byte input -------------------------------------------------------

TEST(WorkerChipQueue, ZeroByteMessageWithABufferSendsNoBytes) {
  Rig<> rig(2, 64, 64);
  const uint8_t b = 5;
  ASSERT_EQ(rig.l3->input().try_enqueue(&b, 0), Status::OK);
  const SpscQueueDescriptor d = rig.input_desc(0);
  EXPECT_EQ(d.seq, 1u);
  EXPECT_EQ(d.payload_offset, 0u);
  EXPECT_EQ(d.payload_nbytes, 0u);
}

// ---- the C++ API's usage errors ---------------------------------------------

TEST(WorkerChipQueue, NonPositiveTimeoutsAreUsageErrors) {
  Rig<> rig(2, 64, 64);
  const auto p = pattern(8, 1);
  WorkerChipMessage m{};
  std::vector<uint8_t> buf(8);
  const Status results[] = {
      rig.l3->input().enqueue(p.data(), 8, nanoseconds(0)),
      rig.l3->input().enqueue(p.data(), 8, nanoseconds(-5)),
      rig.l3->input().request_stop(nanoseconds(0)),
      rig.l3->output().peek(milliseconds(-1), &m),
      rig.l3->output().dequeue_into(buf.data(), 8, nanoseconds(0)),
  };
  for (Status s : results) EXPECT_EQ(s, Status::REJECTED);
  EXPECT_EQ(rig.l3->last_error().kind, SpscQueueErrorKind::BAD_ARGUMENT);
  EXPECT_EQ(rig.l3->last_error().op, SpscQueueOp::L3_OUTPUT_PEEK);
  EXPECT_NE(std::string(rig.l3->last_error().message).find("timeout must be positive, got 0 ns"),
            std::string::npos)
      << rig.l3->last_error().message;
  EXPECT_EQ(rig.l3->last_error().transaction_id, kTxn);
  EXPECT_TRUE(rig.l3->live());
  EXPECT_EQ(rig.l3_script.log.count(AccessKind::kCounterWait), 0u);
  EXPECT_EQ(rig.counter(kInputDescTailOffset), 0);  // nothing was attempted
  EXPECT_EQ(rig.counter(kInitiatorAbortOffset), 0);
  EXPECT_FALSE(rig.l3->input().stop_published());
}

// ---- ownership ----------------------------------------------------------------

TEST(WorkerChipQueue, ReadingAReleasedHandlePoisons) {
  Rig<> rig(4, 64, 64);
  rig.l2_publish(pattern(4, 1));
  WorkerChipMessage m{};
  ASSERT_EQ(rig.l3->output().try_peek(&m), Status::OK);
  ASSERT_EQ(rig.l3->output().release(m), Status::OK);
  uint8_t buf[4];
  EXPECT_EQ(rig.l3->output().read_into(m, buf, 4), Status::FAILED);
  expect_poison(rig, SpscQueueErrorKind::OWNERSHIP, SpscQueueOp::L3_OUTPUT_READ,
                "not the active output message");
}

TEST(WorkerChipQueue, HandleOfAnotherQueuePoisons) {
  Rig<> rig(4, 64, 64);
  Rig<> other(4, 64, 64);
  rig.l2_publish(pattern(4, 1));
  other.l2_publish(pattern(4, 1));
  WorkerChipMessage mine{}, theirs{};
  ASSERT_EQ(rig.l3->output().try_peek(&mine), Status::OK);
  ASSERT_EQ(other.l3->output().try_peek(&theirs), Status::OK);
  EXPECT_NE(mine.owner_cookie, theirs.owner_cookie);
  EXPECT_EQ(rig.l3->output().release(theirs), Status::FAILED);
  expect_poison(rig, SpscQueueErrorKind::OWNERSHIP, SpscQueueOp::L3_OUTPUT_RELEASE,
                "not the active output message");
  EXPECT_TRUE(other.l3->live());
}

TEST(WorkerChipQueue, TooSmallReadBufferIsAUsageErrorAndKeepsTheMessage) {
  Rig<> rig(4, 64, 64);
  rig.l2_publish(pattern(16, 1));
  WorkerChipMessage m{};
  ASSERT_EQ(rig.l3->output().try_peek(&m), Status::OK);
  std::vector<uint8_t> buf(16);
  EXPECT_EQ(rig.l3->output().read_into(m, buf.data(), 15), Status::REJECTED);
  EXPECT_STREQ(rig.l3->last_error().message,
               "buffer of 15 bytes cannot hold the 16-byte message at seq 1 "
               "[session 0x000000005e55109b, transaction 42]");
  EXPECT_EQ(rig.l3->output().try_dequeue_into(buf.data(), 8), Status::REJECTED);
  EXPECT_TRUE(rig.l3->live());
  ASSERT_EQ(rig.l3->output().try_dequeue_into(buf.data(), 16), Status::OK);
  EXPECT_EQ(buf, pattern(16, 1));
}

// ---- poison and abort flags -----------------------------------------------------

TEST(WorkerChipQueue, LocalPoisonRaisesTheInitiatorFlagOnce) {
  Rig<> rig(4, 64, 64);
  rig.l2_publish(pattern(4, 1));
  WorkerChipMessage m{};
  ASSERT_EQ(rig.l3->output().try_peek(&m), Status::OK);
  WorkerChipMessage wrong = m;
  wrong.payload_nbytes = 3;
  EXPECT_EQ(rig.l3->output().release(wrong), Status::FAILED);
  EXPECT_EQ(rig.counter(kInitiatorAbortOffset), 1);
  rig.set_counter(kInitiatorAbortOffset, 0);  // observe any second Set
  EXPECT_EQ(rig.l3->output().release(wrong), Status::FAILED);
  EXPECT_EQ(rig.l3->input().enqueue(nullptr, 0, milliseconds(1)), Status::FAILED);
  EXPECT_EQ(rig.counter(kInitiatorAbortOffset), 0);
  // L2 sees the raised flag as remote abort once its wait expires.
  rig.set_counter(kInitiatorAbortOffset, 1);
  SpscQueueInputHandle h{};
  EXPECT_FALSE(rig.l2->input().peek(1000, h));
  EXPECT_EQ(rig.l2->error().kind, SpscQueueErrorKind::REMOTE_ABORTED);
  EXPECT_EQ(rig.counter(kPeerAbortOffset), 0);  // L2 does not raise its own
}

// ---- hostile L2: the producer's own replay check -----------------------------

TEST(WorkerChipQueue, CorruptedReleasedInputDescriptorPoisonsReplay) {
  Rig<> rig(2, 64, 64);
  const auto p = pattern(32, 1);
  ASSERT_EQ(rig.l3->input().try_enqueue(p.data(), 32), Status::OK);
  ASSERT_EQ(rig.l3->input().try_enqueue(p.data(), 32), Status::OK);
  // L2 "releases" the first after rewriting its offset: replay must catch it.
  SpscQueueDescriptor d = rig.input_desc(0);
  d.payload_offset += 8;
  encode_descriptor(d, rig.payload() + rig.layout.input_slot_offset(0));
  rig.set_counter(kInputDescHeadOffset, 1);
  EXPECT_EQ(rig.l3->input().try_enqueue(p.data(), 32), Status::FAILED);
  expect_poison(rig, SpscQueueErrorKind::INVALID_DESCRIPTOR, SpscQueueOp::L3_ENQUEUE,
                "payload replay");
}

// ---- free ---------------------------------------------------------------------

TEST(WorkerChipQueue, FreeIsLogicalAndLaterCallsAreRejected) {
  Rig<> rig(2, 64, 64);
  const uint64_t txn = rig.instance->id().transaction_id;
  rig.l3->free();
  EXPECT_TRUE(rig.l3->freed());
  EXPECT_FALSE(rig.l3->live());
  EXPECT_TRUE(rig.l3->region().released());
  EXPECT_EQ(rig.l3->region().payload().base, 0u);
  // The rig (standing in for a running L2 task) still holds the instance.
  EXPECT_TRUE(rig.ledger->is_live(0, txn));
  EXPECT_EQ(rig.l3->input().try_enqueue(nullptr, 0), Status::REJECTED);
  EXPECT_STREQ(rig.l3->last_error().message, "the queue handle was freed [session 0x000000005e55109b, transaction 42]");
  WorkerChipMessage m{};
  EXPECT_EQ(rig.l3->output().peek(milliseconds(1), &m), Status::REJECTED);
  EXPECT_EQ(rig.counter(kInputDescTailOffset), 0);
  EXPECT_EQ(rig.counter(kInitiatorAbortOffset), 0);  // free is not poison
  rig.l2.reset();
  rig.instance.reset();
  EXPECT_FALSE(rig.ledger->is_live(0, txn));  // last holder gone: reclaimed
}

}  // namespace
}  // namespace spsc_queue
