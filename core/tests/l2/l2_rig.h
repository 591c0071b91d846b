// The fixture every L2 endpoint test builds on: one queue region of the
// conformance harness (guarded memory, the recording and fault-injecting
// HarnessView, the virtual clock), its scripted L3 peer, and a
// SpscQueueEndpoint over the view whose log the test reads back.
#ifndef SPSQ_TESTS_L2_L2_RIG_H_
#define SPSQ_TESTS_L2_L2_RIG_H_

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/spsc_queue_endpoint.h"
#include "common/spsq_error.h"
#include "testkit/queue_region.h"
#include "testkit/scripted_l3.h"
#include "testkit/virtual_clock.h"
#include "model/wire_model.h"
#include "gtest/gtest.h"

namespace spsq_l2_test {

using spsc_queue::SpscQueueErrorKind;
using spsc_queue::SpscQueueInputHandle;
using spsc_queue::SpscQueueOp;
using spsc_queue::SpscQueueOpcode;
using spsc_queue::SpscQueueOutputReservation;
using spsq_conf::Access;
using spsq_conf::AccessKind;
using spsq_conf::AccessLog;
using spsq_conf::Enqueue;
using spsq_conf::HarnessView;
using spsq_conf::QueueParams;
using spsq_conf::QueueRegion;
using spsq_conf::ScriptedL3;
using spsq_conf::ViewCall;
using spsq_conf::ViewState;
using spsq_conf::VirtualClock;
using spsq_conf::wire::kData;
using spsq_conf::wire::kError;
using spsq_conf::wire::kInitiatorFlag;
using spsq_conf::wire::kInputHead;
using spsq_conf::wire::kInputTail;
using spsq_conf::wire::kOutputHead;
using spsq_conf::wire::kOutputTail;
using spsq_conf::wire::kPeerFlag;
using spsq_conf::wire::kStop;

template <uint64_t N = 1>
using Endpoint = spsc_queue::SpscQueueEndpoint<HarnessView, N>;

// n bytes seed, seed+1, ... so every payload is recognisable.
inline std::vector<uint8_t> pattern(uint64_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (uint64_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + i);
  return v;
}

inline std::vector<uint8_t> span_bytes(const uint8_t* p, uint64_t n) {
  return p == nullptr ? std::vector<uint8_t>{} : std::vector<uint8_t>(p, p + n);
}

// One 32-byte descriptor slot as the tests compare it.
struct RawDescriptor {
  uint64_t seq = 0;
  uint64_t opcode = 0;
  uint64_t payload_offset = 0;
  uint64_t payload_nbytes = 0;
  bool operator==(const RawDescriptor& o) const {
    return seq == o.seq && opcode == o.opcode && payload_offset == o.payload_offset &&
           payload_nbytes == o.payload_nbytes;
  }
};

class L2Test : public ::testing::Test {
 protected:
  static constexpr uint64_t kSession = 0x5e5510aa00000001ull;
  static constexpr uint64_t kTransaction = 4242;
  // Default queue: depth 4, 256-byte arenas. Layout by hand: input ring 0,
  // output ring 128, input arena 256, output arena 512, payload 768 bytes.
  static constexpr uint64_t kInRing = 0;
  static constexpr uint64_t kOutRing = 128;
  static constexpr uint64_t kInArena = 256;
  static constexpr uint64_t kOutArena = 512;

  void SetUp() override {
    VirtualClock::reset();
    use_region(4, 256, 256);
  }

  void TearDown() override { expect_clean_view(); }

  // Out-of-span accesses and endless waits are violations of the view.
  void expect_clean_view() {
    EXPECT_TRUE(region_->view_state().violations.empty())
        << "the endpoint misused its view (" << region_->view_state().violations.front()
        << "):\n"
        << log().dump();
  }

  static QueueParams params(uint64_t depth, uint64_t in, uint64_t out) {
    QueueParams p;
    p.depth = depth;
    p.input_arena = in;
    p.output_arena = out;
    p.session = kSession;
    p.transaction = kTransaction;
    // Tests fill lent output spans in place, as L2 code does: not stores
    // behind the view's back. And the memory stays coherent whatever
    // SPSQ_COHERENCE says: these tests look at the shared bytes themselves.
    p.shadow = false;
    p.coherence_from_env = false;
    return p;
  }

  // The view the reference's own tests want: an injected fault fails that
  // call and shows in failed(), yet later calls are served, so the test sees
  // what the endpoint does next (raise its flag); a blocking call that keeps
  // waiting without progress is a violation, not a hang.
  static std::unique_ptr<QueueRegion> make_region(uint64_t depth, uint64_t in, uint64_t out) {
    auto region = std::make_unique<QueueRegion>(params(depth, in, out), spsq_conf::Side::kL2);
    ViewState& s = region->view_state();
    s.sticky_faults = false;
    s.transient_faults_report_failed = true;
    s.wait_budget = 10'000;
    return region;
  }

  void use_region(uint64_t depth, uint64_t in, uint64_t out) {
    if (region_) expect_clean_view();
    region_ = make_region(depth, in, out);
    peer_ = std::make_unique<ScriptedL3>(&region_->memory(), region_->layout());
  }

  static spsc_queue::SpscQueueEndpointBinding binding_of(const QueueRegion& r) {
    return spsq_conf::wire::binding_from_scalars<spsc_queue::SpscQueueEndpointBinding>(
        r.scalars().data());
  }
  static spsc_queue::MonotonicClock clock() {
    return spsc_queue::MonotonicClock{&VirtualClock::now_ns};
  }

  template <uint64_t N = 1>
  std::unique_ptr<Endpoint<N>> open() {
    return std::make_unique<Endpoint<N>>(binding_of(*region_), region_->view(), clock());
  }

  AccessLog& log() const { return region_->log(); }
  spsq_conf::FaultPlan& faults() const { return region_->faults(); }

  // --- the L3 side: the harness's scripted peer, raw memory for the rest ---

  // L3 publishes one input.
  void send(uint64_t opcode, const std::vector<uint8_t>& bytes = {}) {
    ASSERT_EQ(peer_->enqueue(opcode, bytes.data(), bytes.size()), Enqueue::kOk);
  }
  int32_t counter(uint64_t offset) const { return region_->memory().load_counter(offset); }
  void set_counter(uint64_t offset, int32_t v) { region_->memory().store_counter(offset, v); }
  // L3 releases outputs up to (not including) logical index `count`.
  void release_outputs(uint64_t count) {
    peer_->set_output_head(spsq_conf::wire::low32(count));
  }
  std::vector<uint8_t> bytes(uint64_t offset, uint64_t n) const {
    std::vector<uint8_t> v(n);
    region_->memory().read(offset, v.data(), n);
    return v;
  }
  RawDescriptor descriptor_at(uint64_t offset) const {
    const spsq_conf::wire::Descriptor d =
        spsq_conf::wire::decode_descriptor(region_->memory().payload() + offset);
    return RawDescriptor{d.seq, d.opcode, d.offset, d.nbytes};
  }
  void write_descriptor_at(uint64_t offset, const RawDescriptor& d) {
    uint8_t slot[32];
    spsq_conf::wire::encode_descriptor(
        spsq_conf::wire::Descriptor{d.seq, d.opcode, d.payload_offset, d.payload_nbytes}, slot);
    region_->memory().write(offset, slot, sizeof(slot));
  }
  RawDescriptor output_slot(uint64_t k) const {
    return descriptor_at(region_->layout().output_slot(k));
  }
  std::vector<uint8_t> output_payload(uint64_t k) const {
    const RawDescriptor d = output_slot(k);
    return bytes(d.payload_offset, d.payload_nbytes);
  }

  // --- reading the log ---

  size_t count(AccessKind kind, uint64_t offset) const {
    return log().count([&](const Access& a) { return a.kind == kind && a.offset == offset; });
  }
  // Values the endpoint Set into one counter slot, in order.
  std::vector<int32_t> notified(uint64_t offset) const {
    std::vector<int32_t> v;
    for (const Access& a : log().entries()) {
      if (a.kind == AccessKind::kNotify && a.offset == offset && a.ok) v.push_back(a.value);
    }
    return v;
  }
  std::vector<Access> only(AccessKind kind) const {
    std::vector<Access> v;
    for (const Access& a : log().entries()) {
      if (a.kind == kind) v.push_back(a);
    }
    return v;
  }

  // Asserts terminal local poison: kind and op, identity, and the L2 abort
  // flag Set to 1 exactly once.
  template <class E>
  void expect_poisoned(const E& ep, SpscQueueErrorKind kind, SpscQueueOp op) {
    EXPECT_FALSE(ep.live());
    EXPECT_EQ(ep.error().kind, kind) << ep.error().message;
    EXPECT_EQ(ep.error().op, op) << ep.error().message;
    EXPECT_TRUE(ep.error().has_identity());
    EXPECT_EQ(ep.error().transaction_id, kTransaction);
    EXPECT_EQ(ep.error().session_instance_id_bits, kSession);
    EXPECT_NE(ep.error().message[0], '\0');
    EXPECT_EQ(peer_->l2_flag(), 1);
    EXPECT_EQ(count(AccessKind::kNotify, kPeerFlag), 1u) << log().dump();
  }

  template <class E>
  void expect_healthy(const E& ep) {
    EXPECT_TRUE(ep.live());
    EXPECT_EQ(ep.error().kind, SpscQueueErrorKind::NONE) << ep.error().message;
    EXPECT_EQ(peer_->l2_flag(), 0);
  }

  std::unique_ptr<QueueRegion> region_;
  std::unique_ptr<ScriptedL3> peer_;
};

}  // namespace spsq_l2_test

#endif  // SPSQ_TESTS_L2_L2_RIG_H_
