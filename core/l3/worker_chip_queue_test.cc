// The L3 WorkerChipQueue against the reference L2 endpoint (duplex, capacity,
// arena wrap, backpressure, STOP, ERROR, ownership, remote abort) and against
// a hostile L2 that writes raw bytes. Single threaded on the virtual clock of
// //core/testing: a blocking call either sees the peer's move scripted into
// its wait or times out by advancing the clock; nothing sleeps.
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
// raw access for playing a hostile L2.
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
  // Hostile L2: writes output descriptor k and publishes tail = k + 1.
  void hostile_publish(uint64_t k, const SpscQueueDescriptor& d) const {
    encode_descriptor(d, payload() + layout.output_slot_offset(k));
    set_counter(kOutputDescTailOffset, counter_low32(k + 1));
  }

  // L2 echo of one input: output kind = same bytes, opcode DATA.
  void l2_publish(const std::vector<uint8_t>& bytes, SpscQueueOpcode op = SpscQueueOpcode::DATA) {
    SpscQueueOutputReservation r{};
    ASSERT_TRUE(l2->output().try_reserve(bytes.size(), r)) << l2->error().message;
    if (!bytes.empty()) std::memcpy(spsc_queue::payload_data(r), bytes.data(), bytes.size());
    ASSERT_TRUE(l2->output().publish(r, op)) << l2->error().message;
  }
  std::vector<uint8_t> l2_take(SpscQueueInputHandle* out = nullptr) {
    SpscQueueInputHandle h{};
    EXPECT_TRUE(l2->input().try_peek(h)) << l2->error().message;
    std::vector<uint8_t> bytes(spsc_queue::payload_data(h), spsc_queue::payload_data(h) + h.payload_nbytes);
    if (out != nullptr) *out = h;
    EXPECT_TRUE(l2->input().release(h)) << l2->error().message;
    return bytes;
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

// ---- construction, layout, scalars, region ---------------------------------

TEST(WorkerChipQueue, LayoutCarriesEveryWireContractField) {
  Rig<> rig(4, 128, 192);
  ASSERT_TRUE(rig.l3->live()) << rig.l3->error().message;
  const SpscQueueLayout& l = rig.l3->layout();
  EXPECT_EQ(l.depth, 4u);
  EXPECT_EQ(l.input_desc_offset, 0u);
  EXPECT_EQ(l.depth * 32, 128u);
  EXPECT_EQ(l.output_desc_offset, 128u);
  EXPECT_EQ(l.depth * 32, 128u);
  EXPECT_EQ(l.input_arena_offset, 256u);
  EXPECT_EQ(l.input_arena_bytes, 128u);
  EXPECT_EQ(l.output_arena_offset, 384u);
  EXPECT_EQ(l.output_arena_bytes, 192u);
  EXPECT_EQ(l.payload_bytes, 576u);
  EXPECT_EQ(l.counter_bytes, 384u);
  EXPECT_EQ(l.input_desc_tail_offset, 0u);
  EXPECT_EQ(l.input_desc_head_offset, 64u);
  EXPECT_EQ(l.output_desc_tail_offset, 128u);
  EXPECT_EQ(l.output_desc_head_offset, 192u);
  EXPECT_EQ(l.initiator_abort_offset, 256u);
  EXPECT_EQ(l.peer_abort_offset, 320u);
  EXPECT_EQ(l, rig.l2->layout());  // mirrored on both sides
}

TEST(WorkerChipQueue, ChipTaskArgScalarsAreTheTenFieldBindingInOrder) {
  Rig<> rig(8, 192, 64);
  const auto s = rig.l3->chip_task_arg_scalars();
  ASSERT_EQ(s.size(), 10u);
  EXPECT_EQ(s[0], 0x5350535100010000ull);
  EXPECT_EQ(s[1], kSession);
  EXPECT_EQ(s[2], kTxn);
  EXPECT_EQ(s[3], rig.instance->payload().base);
  EXPECT_EQ(s[4], 768u);
  EXPECT_EQ(s[5], rig.instance->counter().base);
  EXPECT_EQ(s[6], 384u);
  EXPECT_EQ(s[7], 8u);
  EXPECT_EQ(s[8], 192u);
  EXPECT_EQ(s[9], 64u);
  SpscQueueEndpointBinding decoded{};
  ASSERT_TRUE(decode_endpoint_binding(s.data(), s.size(), &decoded));
  EXPECT_EQ(decoded.payload_base, rig.binding.payload_base);
}

TEST(WorkerChipQueue, RegionProjectsTheSameInstance) {
  Rig<> rig(4, 128, 192);
  auto& region = rig.l3->region();
  EXPECT_FALSE(region.released());
  EXPECT_EQ(region.payload().base, rig.binding.payload_base);
  EXPECT_EQ(region.payload().logical_bytes, rig.binding.payload_bytes);
  EXPECT_EQ(region.counter().base, rig.binding.counter_base);
  EXPECT_EQ(region.counter().logical_bytes, 384u);
  EXPECT_EQ(region.id().transaction_id, kTxn);
}

TEST(WorkerChipQueue, ConstructionRejectsBadBindingsWithoutRaisingTheFlag) {
  Rig<> rig(4, 128, 192);
  struct Case {
    const char* name;
    void (*mutate)(SpscQueueEndpointBinding*);
    SpscQueueErrorKind kind;
    const char* text;
  };
  const Case cases[] = {
      {"magic", [](SpscQueueEndpointBinding* b) { b->magic_version ^= 1; },
       SpscQueueErrorKind::BAD_BINDING, "unsupported SPSQ version"},
      {"txn", [](SpscQueueEndpointBinding* b) { b->transaction_id = 0; },
       SpscQueueErrorKind::BAD_BINDING, "transaction_id is zero"},
      {"payload size", [](SpscQueueEndpointBinding* b) { b->payload_bytes += 64; },
       SpscQueueErrorKind::BAD_BINDING, "differ from the binding"},
      {"depth", [](SpscQueueEndpointBinding* b) { b->depth = 8; },
       SpscQueueErrorKind::BAD_BINDING, "differ from the layout"},
      {"arena", [](SpscQueueEndpointBinding* b) { b->input_arena_bytes = 100; },
       SpscQueueErrorKind::BAD_BINDING, "not a multiple of 64"},
  };
  for (const Case& c : cases) {
    SpscQueueEndpointBinding b = rig.binding;
    c.mutate(&b);
    L3Queue q(b, rig.view(&rig.l3_script), VirtualClock::clock(), nullptr);
    EXPECT_FALSE(q.live()) << c.name;
    EXPECT_EQ(q.error().kind, c.kind) << c.name;
    EXPECT_EQ(q.error().op, SpscQueueOp::INIT) << c.name;
    EXPECT_NE(std::string(q.error().message).find(c.text), std::string::npos)
        << c.name << ": " << q.error().message;
    char buf[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    EXPECT_EQ(q.input().try_enqueue(buf, 8), Status::FAILED) << c.name;
  }
  // A binding whose spans are right but which names another instance.
  SpscQueueEndpointBinding b = rig.binding;
  std::string why;
  auto other = RegionInstance::materialize({0, kSession, 43}, rig.layout.payload_bytes, 384,
                                           rig.ledger, &why);
  L3Queue q(b, rig.view(&rig.l3_script), VirtualClock::clock(), other);
  EXPECT_EQ(q.error().kind, SpscQueueErrorKind::BAD_BINDING);
  EXPECT_NE(std::string(q.error().message).find("does not describe RegionInstance"),
            std::string::npos);
  L3Queue no_clock(rig.binding, rig.view(&rig.l3_script), MonotonicClock{}, nullptr);
  EXPECT_EQ(no_clock.error().kind, SpscQueueErrorKind::BAD_ARGUMENT);
  EXPECT_EQ(rig.counter(kInitiatorAbortOffset), 0);
}

// ---- duplex traffic ---------------------------------------------------------

TEST(WorkerChipQueue, DuplexRoundTripsZeroByteSmallAndArenaSizedMessages) {
  Rig<> rig(4, 128, 192);
  const std::vector<std::vector<uint8_t>> inputs = {{}, pattern(5, 1), pattern(128, 9)};
  const std::vector<std::vector<uint8_t>> outputs = {{}, pattern(3, 40), pattern(192, 77)};
  for (size_t i = 0; i < inputs.size(); ++i) {
    const auto& in = inputs[i];
    ASSERT_EQ(rig.l3->input().enqueue(in.empty() ? nullptr : in.data(), in.size(), milliseconds(5)),
              Status::OK)
        << i << ": " << rig.l3->last_error().message;
    SpscQueueInputHandle h{};
    EXPECT_EQ(rig.l2_take(&h), in) << i;
    EXPECT_EQ(h.seq, i + 1);
    EXPECT_EQ(static_cast<uint64_t>(h.opcode), 1u);
    if (in.empty()) {
      EXPECT_EQ(h.payload_offset, 0u);
    }

    rig.l2_publish(outputs[i]);
    WorkerChipMessage m{};
    ASSERT_EQ(rig.l3->output().peek(milliseconds(5), &m), Status::OK);
    EXPECT_EQ(m.seq, i + 1);
    EXPECT_EQ(static_cast<uint64_t>(m.opcode), static_cast<uint64_t>(SpscQueueOpcode::DATA));
    EXPECT_EQ(m.payload_nbytes, outputs[i].size());
    std::vector<uint8_t> got(outputs[i].size() + 1, 0xee);
    ASSERT_EQ(rig.l3->output().read_into(m, got.data(), got.size()), Status::OK);
    got.pop_back();
    EXPECT_EQ(got, outputs[i]) << i;
    ASSERT_EQ(rig.l3->output().release(m), Status::OK);
  }
  EXPECT_TRUE(rig.l3->live());
  EXPECT_TRUE(rig.l2->live());
  EXPECT_EQ(rig.counter(kInputDescTailOffset), 3);
  EXPECT_EQ(rig.counter(kInputDescHeadOffset), 3);
  EXPECT_EQ(rig.counter(kOutputDescTailOffset), 3);
  EXPECT_EQ(rig.counter(kOutputDescHeadOffset), 3);
  EXPECT_EQ(rig.l3_script.log.count(AccessKind::kCounterWait), 0u);  // data was always there: nobody waited
}

TEST(WorkerChipQueue, ZeroByteMessageWithABufferSendsNoBytes) {
  Rig<> rig(2, 64, 64);
  const uint8_t b = 5;
  ASSERT_EQ(rig.l3->input().try_enqueue(&b, 0), Status::OK);
  const SpscQueueDescriptor d = rig.input_desc(0);
  EXPECT_EQ(d.seq, 1u);
  EXPECT_EQ(d.payload_offset, 0u);
  EXPECT_EQ(d.payload_nbytes, 0u);
}

TEST(WorkerChipQueue, InputHoldsExactlyDepthMessages) {
  Rig<> rig(4, 256, 64);
  for (int i = 0; i < 4; ++i) {
    const auto p = pattern(16, static_cast<uint8_t>(i));
    ASSERT_EQ(rig.l3->input().try_enqueue(p.data(), 16), Status::OK) << i;
  }
  const auto p = pattern(16, 99);
  EXPECT_EQ(rig.l3->input().try_enqueue(p.data(), 16), Status::WOULD_BLOCK);
  EXPECT_EQ(rig.l3->input().try_enqueue(nullptr, 0), Status::WOULD_BLOCK);
  EXPECT_EQ(rig.l3->last_error().kind, SpscQueueErrorKind::NONE);
  EXPECT_TRUE(rig.l3->live());
  EXPECT_EQ(rig.counter(kInitiatorAbortOffset), 0);
  EXPECT_EQ(rig.counter(kInputDescTailOffset), 4);
  EXPECT_EQ(rig.l2_take(), pattern(16, 0));
  ASSERT_EQ(rig.l3->input().try_enqueue(p.data(), 16), Status::OK);
  for (int i = 1; i < 4; ++i) EXPECT_EQ(rig.l2_take(), pattern(16, static_cast<uint8_t>(i)));
  EXPECT_EQ(rig.l2_take(), p);
}

TEST(WorkerChipQueue, OutputHoldsExactlyDepthMessages) {
  Rig<> rig(4, 64, 256);
  for (int i = 0; i < 4; ++i) rig.l2_publish(pattern(8, static_cast<uint8_t>(10 * i)));
  SpscQueueOutputReservation r{};
  EXPECT_FALSE(rig.l2->output().try_reserve(8, r));
  EXPECT_TRUE(rig.l2->live());
  std::vector<uint8_t> buf(8);
  WorkerChipMessage m{};
  ASSERT_EQ(rig.l3->output().try_dequeue_into(buf.data(), buf.size(), &m), Status::OK);
  EXPECT_EQ(buf, pattern(8, 0));
  EXPECT_EQ(m.seq, 1u);
  EXPECT_EQ(spsc_queue::payload_data(m), nullptr);  // released: no borrowed pointer escapes
  rig.l2_publish(pattern(8, 40));
  for (int i = 1; i <= 4; ++i) {
    ASSERT_EQ(rig.l3->output().dequeue_into(buf.data(), buf.size(), milliseconds(1), &m),
              Status::OK);
    EXPECT_EQ(buf, pattern(8, static_cast<uint8_t>(10 * i)));
    EXPECT_EQ(m.seq, static_cast<uint64_t>(i + 1));
  }
  EXPECT_EQ(rig.l3->output().try_dequeue_into(buf.data(), buf.size()), Status::WOULD_BLOCK);
}

TEST(WorkerChipQueue, InputArenaWrapsWithSkip) {
  Rig<> rig(4, 128, 64);
  const auto a = pattern(48, 1), b = pattern(48, 2), c = pattern(48, 3);
  ASSERT_EQ(rig.l3->input().try_enqueue(a.data(), 48), Status::OK);
  ASSERT_EQ(rig.l3->input().try_enqueue(b.data(), 48), Status::OK);
  // 96 of 128 bytes used: c would cross the end, so it must wait for space at
  // the arena start.
  EXPECT_EQ(rig.l3->input().try_enqueue(c.data(), 48), Status::WOULD_BLOCK);
  EXPECT_EQ(rig.l2_take(), a);
  ASSERT_EQ(rig.l3->input().try_enqueue(c.data(), 48), Status::OK);
  const uint64_t arena = rig.layout.input_arena_offset;
  EXPECT_EQ(rig.input_desc(0).payload_offset, arena);
  EXPECT_EQ(rig.input_desc(1).payload_offset, arena + 48);
  EXPECT_EQ(rig.input_desc(2).payload_offset, arena);  // skipped bytes 96..127
  EXPECT_EQ(rig.l2_take(), b);
  EXPECT_EQ(rig.l2_take(), c);
  // After the skip the cursor continues from 48 + 128: next lands at +48.
  ASSERT_EQ(rig.l3->input().try_enqueue(a.data(), 48), Status::OK);
  EXPECT_EQ(rig.input_desc(3).payload_offset, arena + 48);
  EXPECT_EQ(rig.l2_take(), a);
}

TEST(WorkerChipQueue, IdleArenaAcceptsAnyMessageThatFits) {
  Rig<> rig(4, 128, 64);
  const auto a = pattern(96, 1), full = pattern(128, 2);
  ASSERT_EQ(rig.l3->input().try_enqueue(a.data(), 96), Status::OK);
  EXPECT_EQ(rig.l2_take(), a);
  // Nothing unreleased: the full-arena message fits even though its skip
  // would make cursor - released exceed the arena.
  ASSERT_EQ(rig.l3->input().try_enqueue(full.data(), 128), Status::OK);
  EXPECT_EQ(rig.input_desc(1).payload_offset, rig.layout.input_arena_offset);
  EXPECT_EQ(rig.l2_take(), full);
}

TEST(WorkerChipQueue, OutputArenaWrapWithSkipIsAcceptedAndRead) {
  Rig<> rig(4, 64, 128);
  std::vector<uint8_t> buf(128);
  rig.l2_publish(pattern(80, 1));
  ASSERT_EQ(rig.l3->output().try_dequeue_into(buf.data(), 128), Status::OK);
  rig.l2_publish(pattern(80, 2));  // 80 + 80 > 128: placed at the arena start
  WorkerChipMessage m{};
  ASSERT_EQ(rig.l3->output().try_peek(&m), Status::OK);
  EXPECT_EQ(m.payload_offset, rig.layout.output_arena_offset);
  ASSERT_EQ(rig.l3->output().read_into(m, buf.data(), 128), Status::OK);
  EXPECT_EQ(std::vector<uint8_t>(buf.begin(), buf.begin() + 80), pattern(80, 2));
  EXPECT_EQ(rig.l3->output().release(m), Status::OK);
  EXPECT_TRUE(rig.l3->live());
}

// ---- backpressure and timeouts ----------------------------------------------

TEST(WorkerChipQueue, BlockingEnqueueTimesOutWithoutPoison) {
  Rig<> rig(2, 64, 64);
  const auto p = pattern(64, 1);
  ASSERT_EQ(rig.l3->input().try_enqueue(p.data(), 64), Status::OK);
  const uint64_t t0 = VirtualClock::now_ns();
  EXPECT_EQ(rig.l3->input().enqueue(p.data(), 64, milliseconds(3)), Status::TIMED_OUT);
  EXPECT_GE(VirtualClock::now_ns() - t0, 3000000u);
  EXPECT_TRUE(rig.l3->live());
  EXPECT_EQ(rig.l3->error().kind, SpscQueueErrorKind::NONE);
  EXPECT_EQ(rig.l3->last_error().kind, SpscQueueErrorKind::NONE);
  EXPECT_NE(std::string(rig.l3->last_error().message).find("timed out"), std::string::npos);
  EXPECT_EQ(rig.counter(kInitiatorAbortOffset), 0);
  EXPECT_EQ(rig.counter(kInputDescTailOffset), 1);
}

TEST(WorkerChipQueue, BlockingEnqueueProceedsWhenL2ReleasesDuringTheWait) {
  Rig<> rig(1, 64, 64);
  const auto a = pattern(40, 1), b = pattern(40, 2);
  ASSERT_EQ(rig.l3->input().try_enqueue(a.data(), 40), Status::OK);
  std::vector<uint8_t> seen;
  rig.l3_script.during_wait = [&] { seen = rig.l2_take(); };
  const uint64_t t0 = VirtualClock::now_ns();
  ASSERT_EQ(rig.l3->input().enqueue(b.data(), 40, milliseconds(50)), Status::OK);
  EXPECT_EQ(seen, a);
  EXPECT_EQ(VirtualClock::now_ns(), t0);  // no time passed: progress, not expiry
  rig.l3_script.during_wait = nullptr;
  EXPECT_EQ(rig.l2_take(), b);
}

TEST(WorkerChipQueue, PeekTimesOutOnEmptyOutputWithoutPoison) {
  Rig<> rig(2, 64, 64);
  WorkerChipMessage m{};
  EXPECT_EQ(rig.l3->output().try_peek(&m), Status::WOULD_BLOCK);
  EXPECT_EQ(rig.l3->output().peek(milliseconds(2), &m), Status::TIMED_OUT);
  std::vector<uint8_t> buf(8);
  EXPECT_EQ(rig.l3->output().dequeue_into(buf.data(), 8, milliseconds(2)), Status::TIMED_OUT);
  EXPECT_TRUE(rig.l3->live());
  EXPECT_EQ(rig.counter(kInitiatorAbortOffset), 0);
  // Progress during the wait is picked up.
  rig.l3_script.during_wait = [&] { rig.l2_publish(pattern(8, 3)); };
  ASSERT_EQ(rig.l3->output().dequeue_into(buf.data(), 8, milliseconds(2)), Status::OK);
  EXPECT_EQ(buf, pattern(8, 3));
}

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

TEST(WorkerChipQueue, MessageLargerThanTheArenaIsRefusedWithoutPoison) {
  Rig<> rig(2, 64, 64);
  const auto p = pattern(65, 1);
  EXPECT_EQ(rig.l3->input().try_enqueue(p.data(), 65), Status::REJECTED);
  EXPECT_EQ(rig.l3->input().enqueue(p.data(), 65, milliseconds(1)), Status::REJECTED);
  EXPECT_EQ(rig.l3->last_error().kind, SpscQueueErrorKind::BAD_ARGUMENT);
  EXPECT_EQ(rig.l3->last_error().op, SpscQueueOp::L3_ENQUEUE);
  EXPECT_STREQ(rig.l3->last_error().message, "message of 65 bytes exceeds the 64-byte input arena [session 0x000000005e55109b, transaction 42]");
  EXPECT_EQ(rig.l3->input().try_enqueue(nullptr, 8), Status::REJECTED);
  EXPECT_STREQ(rig.l3->last_error().message, "no buffer for a 8-byte message [session 0x000000005e55109b, transaction 42]");
  EXPECT_TRUE(rig.l3->live());
  EXPECT_EQ(rig.counter(kInputDescTailOffset), 0);
  EXPECT_EQ(rig.l3_script.log.count(AccessKind::kCounterWait), 0u);
  EXPECT_EQ(rig.l3->input().try_enqueue(p.data(), 64), Status::OK);
}

// ---- STOP and ERROR ---------------------------------------------------------

TEST(WorkerChipQueue, StopThenFurtherInputIsRejectedLocally) {
  Rig<> rig(4, 64, 64);
  const auto p = pattern(8, 1);
  ASSERT_EQ(rig.l3->input().try_enqueue(p.data(), 8), Status::OK);
  ASSERT_EQ(rig.l3->input().request_stop(milliseconds(1)), Status::OK);
  EXPECT_TRUE(rig.l3->input().stop_published());
  const SpscQueueDescriptor stop = rig.input_desc(1);
  EXPECT_EQ(stop.seq, 2u);
  EXPECT_EQ(static_cast<uint64_t>(stop.opcode), static_cast<uint64_t>(SpscQueueOpcode::STOP));
  EXPECT_EQ(stop.payload_offset, 0u);
  EXPECT_EQ(stop.payload_nbytes, 0u);

  EXPECT_EQ(rig.l3->input().try_enqueue(p.data(), 8), Status::REJECTED);
  EXPECT_STREQ(rig.l3->last_error().message, "input is closed: STOP was already published [session 0x000000005e55109b, transaction 42]");
  EXPECT_EQ(rig.l3->input().enqueue(nullptr, 0, milliseconds(1)), Status::REJECTED);
  EXPECT_EQ(rig.l3->input().try_request_stop(), Status::REJECTED);
  EXPECT_EQ(rig.l3->last_error().op, SpscQueueOp::L3_REQUEST_STOP);
  EXPECT_TRUE(rig.l3->live());
  EXPECT_EQ(rig.counter(kInputDescTailOffset), 2);
  EXPECT_EQ(rig.counter(kInitiatorAbortOffset), 0);

  // L2 drains the DATA and the STOP; outputs published before it returns
  // still reach L3.
  EXPECT_EQ(rig.l2_take(), p);
  SpscQueueInputHandle h{};
  rig.l2_take(&h);
  EXPECT_EQ(static_cast<uint64_t>(h.opcode), static_cast<uint64_t>(SpscQueueOpcode::STOP));
  EXPECT_TRUE(rig.l2->input().drained());
  rig.l2_publish(pattern(4, 9));
  std::vector<uint8_t> buf(4);
  ASSERT_EQ(rig.l3->output().dequeue_into(buf.data(), 4, milliseconds(1)), Status::OK);
  EXPECT_EQ(buf, pattern(4, 9));
}

TEST(WorkerChipQueue, RequestStopWaitsOnlyForRingRoom) {
  Rig<> rig(1, 64, 64);
  ASSERT_EQ(rig.l3->input().try_enqueue(nullptr, 0), Status::OK);
  EXPECT_EQ(rig.l3->input().try_request_stop(), Status::WOULD_BLOCK);
  EXPECT_EQ(rig.l3->input().request_stop(milliseconds(1)), Status::TIMED_OUT);
  EXPECT_FALSE(rig.l3->input().stop_published());
  rig.l3_script.during_wait = [&] { rig.l2_take(); };
  ASSERT_EQ(rig.l3->input().request_stop(milliseconds(1)), Status::OK);
  EXPECT_TRUE(rig.l3->input().stop_published());
  EXPECT_EQ(rig.input_desc(1).opcode, static_cast<uint64_t>(SpscQueueOpcode::STOP));
}

TEST(WorkerChipQueue, OutputErrorIsAnOrdinaryMessage) {
  Rig<> rig(2, 64, 64);
  const auto why = pattern(12, 5);
  rig.l2_publish(why, SpscQueueOpcode::ERROR);
  rig.l2_publish(pattern(4, 6));
  WorkerChipMessage m{};
  std::vector<uint8_t> buf(12);
  ASSERT_EQ(rig.l3->output().dequeue_into(buf.data(), 12, milliseconds(1), &m), Status::OK);
  EXPECT_EQ(static_cast<uint64_t>(m.opcode), static_cast<uint64_t>(SpscQueueOpcode::ERROR));
  EXPECT_EQ(buf, why);
  ASSERT_EQ(rig.l3->output().try_dequeue_into(buf.data(), 12, &m), Status::OK);
  EXPECT_EQ(static_cast<uint64_t>(m.opcode), static_cast<uint64_t>(SpscQueueOpcode::DATA));
  EXPECT_TRUE(rig.l3->live());
  EXPECT_TRUE(rig.l2->live());
  EXPECT_EQ(rig.counter(kInitiatorAbortOffset), 0);
  EXPECT_EQ(rig.counter(kPeerAbortOffset), 0);
}

// ---- ownership ----------------------------------------------------------------

TEST(WorkerChipQueue, TryPeekReturnsTheSameActiveHandleUntilReleased) {
  Rig<> rig(4, 64, 64);
  rig.l2_publish(pattern(4, 1));
  rig.l2_publish(pattern(4, 2));
  WorkerChipMessage a{}, b{}, c{};
  ASSERT_EQ(rig.l3->output().try_peek(&a), Status::OK);
  ASSERT_EQ(rig.l3->output().try_peek(&b), Status::OK);
  ASSERT_EQ(rig.l3->output().peek(milliseconds(1), &c), Status::OK);
  EXPECT_EQ(a.seq, 1u);
  EXPECT_EQ(b.seq, 1u);
  EXPECT_EQ(c.seq, 1u);
  EXPECT_EQ(a.payload_offset, b.payload_offset);
  EXPECT_EQ(a.owner_cookie, c.owner_cookie);
  EXPECT_EQ(rig.counter(kOutputDescHeadOffset), 0);
  ASSERT_EQ(rig.l3->output().release(a), Status::OK);
  EXPECT_EQ(rig.counter(kOutputDescHeadOffset), 1);
  ASSERT_EQ(rig.l3->output().try_peek(&b), Status::OK);
  EXPECT_EQ(b.seq, 2u);
}

TEST(WorkerChipQueue, ReleasingTheWrongHandlePoisons) {
  Rig<> rig(4, 64, 64);
  rig.l2_publish(pattern(4, 1));
  WorkerChipMessage m{};
  ASSERT_EQ(rig.l3->output().try_peek(&m), Status::OK);
  WorkerChipMessage wrong = m;
  wrong.seq = 2;
  EXPECT_EQ(rig.l3->output().release(wrong), Status::FAILED);
  expect_poison(rig, SpscQueueErrorKind::OWNERSHIP, SpscQueueOp::L3_OUTPUT_RELEASE,
                "not the active output message");
  // Terminal: every normal operation now fails, even the right release.
  EXPECT_EQ(rig.l3->output().release(m), Status::FAILED);
  EXPECT_EQ(rig.l3->input().try_enqueue(nullptr, 0), Status::FAILED);
  EXPECT_EQ(rig.l3->last_error().kind, SpscQueueErrorKind::OWNERSHIP);
  EXPECT_EQ(rig.counter(kOutputDescHeadOffset), 0);
}

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

TEST(WorkerChipQueue, PeerAbortFlagIsRemoteAbortWithoutRaisingOurs) {
  for (int32_t flag : {1, 2, 0x7fffffff}) {
    Rig<> rig(2, 64, 64);
    rig.set_counter(kPeerAbortOffset, flag);
    WorkerChipMessage m{};
    EXPECT_EQ(rig.l3->output().peek(milliseconds(1), &m), Status::FAILED) << flag;
    EXPECT_EQ(rig.l3->error().kind, SpscQueueErrorKind::REMOTE_ABORTED) << flag;
    EXPECT_EQ(rig.l3->error().transaction_id, kTxn);
    EXPECT_EQ(rig.l3->error().session_instance_id_bits, kSession);
    EXPECT_EQ(rig.counter(kInitiatorAbortOffset), 0) << flag;
    EXPECT_EQ(rig.l3->input().try_enqueue(nullptr, 0), Status::FAILED);
  }
  // A negative value is not a raised flag: the wait is an ordinary timeout.
  Rig<> rig(2, 64, 64);
  rig.set_counter(kPeerAbortOffset, -1);
  WorkerChipMessage m{};
  EXPECT_EQ(rig.l3->output().peek(milliseconds(1), &m), Status::TIMED_OUT);
  EXPECT_TRUE(rig.l3->live());
}

TEST(WorkerChipQueue, L2PoisonReachesL3AsRemoteAbortOnBlockingEnqueue) {
  Rig<> rig(1, 64, 64);
  ASSERT_EQ(rig.l3->input().try_enqueue(nullptr, 0), Status::OK);
  SpscQueueInputHandle h{};
  ASSERT_TRUE(rig.l2->input().try_peek(h));
  SpscQueueInputHandle wrong = h;
  wrong.seq = 9;
  EXPECT_FALSE(rig.l2->input().release(wrong));  // L2 poisons itself
  EXPECT_EQ(rig.counter(kPeerAbortOffset), 1);
  EXPECT_EQ(rig.l3->input().enqueue(nullptr, 0, milliseconds(1)), Status::FAILED);
  EXPECT_EQ(rig.l3->error().kind, SpscQueueErrorKind::REMOTE_ABORTED);
  EXPECT_EQ(rig.counter(kInitiatorAbortOffset), 0);
}

// ---- hostile L2 -----------------------------------------------------------------

struct HostileCase {
  const char* name;
  SpscQueueDescriptor (*desc)(const SpscQueueLayout&);
  const char* text;
};

TEST(WorkerChipQueue, HostileOutputDescriptorsPoison) {
  const HostileCase cases[] = {
      {"seq 0", [](const SpscQueueLayout& l) { return SpscQueueDescriptor{0, 1, l.output_arena_offset, 8}; },
       "sequence mismatch"},
      {"seq 2", [](const SpscQueueLayout& l) { return SpscQueueDescriptor{2, 1, l.output_arena_offset, 8}; },
       "sequence mismatch"},
      {"STOP on output", [](const SpscQueueLayout&) { return SpscQueueDescriptor{1, 2, 0, 0}; },
       "invalid opcode 2 (STOP)"},
      {"INVALID opcode", [](const SpscQueueLayout&) { return SpscQueueDescriptor{1, 0, 0, 0}; },
       "invalid opcode 0"},
      {"opcode 77", [](const SpscQueueLayout&) { return SpscQueueDescriptor{1, 77, 0, 0}; },
       "invalid opcode 77"},
      {"zero-byte offset", [](const SpscQueueLayout& l) { return SpscQueueDescriptor{1, 1, l.output_arena_offset, 0}; },
       "zero-byte message"},
      {"in input arena", [](const SpscQueueLayout& l) { return SpscQueueDescriptor{1, 1, l.input_arena_offset, 8}; },
       "outside its arena"},
      {"past arena end", [](const SpscQueueLayout& l) { return SpscQueueDescriptor{1, 1, l.output_arena_offset + 60, 8}; },
       "outside its arena"},
      {"huge nbytes", [](const SpscQueueLayout& l) { return SpscQueueDescriptor{1, 1, l.output_arena_offset, ~uint64_t{0}}; },
       "outside its arena"},
      {"replay offset", [](const SpscQueueLayout& l) { return SpscQueueDescriptor{1, 1, l.output_arena_offset + 8, 8}; },
       "payload replay mismatch"},
  };
  for (const HostileCase& c : cases) {
    SCOPED_TRACE(c.name);
    Rig<> rig(2, 64, 64);
    rig.hostile_publish(0, c.desc(rig.layout));
    WorkerChipMessage m{};
    EXPECT_EQ(rig.l3->output().try_peek(&m), Status::FAILED);
    expect_poison(rig, SpscQueueErrorKind::INVALID_DESCRIPTOR, SpscQueueOp::L3_OUTPUT_PEEK,
                  c.text);
    EXPECT_EQ(rig.counter(kOutputDescHeadOffset), 0);  // nothing consumed
  }
}

TEST(WorkerChipQueue, HostileOutputTailCountersPoison) {
  for (int32_t tail : {3, -1, static_cast<int32_t>(0x80000000u)}) {
    SCOPED_TRACE(tail);
    Rig<> rig(2, 64, 64);
    rig.set_counter(kOutputDescTailOffset, tail);  // more than depth ahead, or behind
    WorkerChipMessage m{};
    EXPECT_EQ(rig.l3->output().peek(milliseconds(1), &m), Status::FAILED);
    expect_poison(rig, SpscQueueErrorKind::INVALID_DESCRIPTOR, SpscQueueOp::L3_OUTPUT_PEEK,
                  "impossible tail counter");
  }
  // Exactly depth ahead is legal progress.
  Rig<> rig(2, 64, 64);
  rig.l2_publish({});
  rig.l2_publish({});
  WorkerChipMessage m{};
  EXPECT_EQ(rig.l3->output().try_peek(&m), Status::OK);
}

TEST(WorkerChipQueue, HostileInputHeadCounterPoisonsEnqueue) {
  Rig<> rig(2, 64, 64);
  ASSERT_EQ(rig.l3->input().try_enqueue(nullptr, 0), Status::OK);
  ASSERT_EQ(rig.l3->input().try_enqueue(nullptr, 0), Status::OK);
  rig.set_counter(kInputDescHeadOffset, 3);  // released more than was published
  EXPECT_EQ(rig.l3->input().try_enqueue(nullptr, 0), Status::FAILED);
  expect_poison(rig, SpscQueueErrorKind::INVALID_DESCRIPTOR, SpscQueueOp::L3_ENQUEUE,
                "impossible head counter");
}

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
