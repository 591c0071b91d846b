// The fixture every L2 endpoint test builds on: one queue's host memory, the
// scripted L3 peer writing raw bytes into it, and a SpscQueueEndpoint over a
// RecordingView whose log the test reads back.
#ifndef SPSQ_TESTS_L2_L2_RIG_H_
#define SPSQ_TESTS_L2_L2_RIG_H_

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/spsc_queue_endpoint.h"
#include "common/spsq_error.h"
#include "gtest/gtest.h"
#include "testing/host_region.h"
#include "testing/recording_view.h"
#include "testing/scripted_l3_peer.h"
#include "testing/virtual_clock.h"

namespace spsq_testing {

using spsc_queue::SpscQueueErrorKind;
using spsc_queue::SpscQueueInputHandle;
using spsc_queue::SpscQueueOpcode;
using spsc_queue::SpscQueueOp;
using spsc_queue::SpscQueueOutputReservation;

template <uint64_t N = 1>
using Endpoint = spsc_queue::SpscQueueEndpoint<RecordingView, N>;

constexpr uint64_t kData = 1;
constexpr uint64_t kStop = 2;
constexpr uint64_t kError = 3;

// n bytes seed, seed+1, ... so every payload is recognisable.
inline std::vector<uint8_t> pattern(uint64_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (uint64_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + i);
  return v;
}

inline std::vector<uint8_t> span_bytes(const uint8_t* p, uint64_t n) {
  return p == nullptr ? std::vector<uint8_t>{} : std::vector<uint8_t>(p, p + n);
}

class L2Test : public ::testing::Test {
 protected:
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

  void TearDown() override {
    EXPECT_EQ(script_.out_of_span, 0u) << "endpoint accessed memory outside its spans:\n"
                                       << script_.log.str();
    EXPECT_EQ(script_.wait_overruns, 0u) << "a blocking call kept waiting without progress";
  }

  void use_region(uint64_t depth, uint64_t in, uint64_t out) {
    region_ = std::make_unique<HostRegion>(depth, in, out);
    peer_ = std::make_unique<ScriptedL3Peer>(region_.get());
  }

  RecordingView view() {
    return RecordingView(region_->payload_span(), region_->counter_span(), &script_);
  }

  template <uint64_t N = 1>
  std::unique_ptr<Endpoint<N>> open() {
    return std::make_unique<Endpoint<N>>(region_->binding(), view(), VirtualClock::clock());
  }

  // Asserts terminal local poison: kind and op, identity, and the L2 abort
  // flag Set to 1 exactly once.
  template <class E>
  void expect_poisoned(const E& ep, SpscQueueErrorKind kind, SpscQueueOp op) {
    EXPECT_FALSE(ep.live());
    EXPECT_EQ(ep.error().kind, kind) << ep.error().message;
    EXPECT_EQ(ep.error().op, op) << ep.error().message;
    EXPECT_TRUE(ep.error().has_identity());
    EXPECT_EQ(ep.error().transaction_id, region_->binding().transaction_id);
    EXPECT_EQ(ep.error().session_instance_id_bits, region_->binding().session_instance_id_bits);
    EXPECT_NE(ep.error().message[0], '\0');
    EXPECT_EQ(peer_->peer_abort_flag(), 1);
    EXPECT_EQ(script_.log.count(AccessKind::kCounterNotify, kPeerAbortFlag), 1u)
        << script_.log.str();
  }

  template <class E>
  void expect_healthy(const E& ep) {
    EXPECT_TRUE(ep.live());
    EXPECT_EQ(ep.error().kind, SpscQueueErrorKind::NONE) << ep.error().message;
    EXPECT_EQ(peer_->peer_abort_flag(), 0);
  }

  std::unique_ptr<HostRegion> region_;
  std::unique_ptr<ScriptedL3Peer> peer_;
  ViewScript script_;
};

}  // namespace spsq_testing

#endif  // SPSQ_TESTS_L2_L2_RIG_H_
