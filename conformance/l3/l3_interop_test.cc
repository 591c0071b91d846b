// Interop: the L3 queue under test against the reference L2 endpoint, each on
// its own thread, sharing nothing but the region. L2 echoes every input back
// reversed; L3 checks every byte. Real concurrency, so timeouts are failure
// bounds only (the L3 side polls try_* calls; nothing sleeps).
#include <atomic>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#include "aicpu/region_instance_view.h"
#include "common/region_template.h"
#include "testkit/loop_bound.h"
#include "conformance/l3/l3_fixture.h"

namespace spsq_conf {
namespace {

// The L2 side's own clock: only contract names of the endpoint are used.
uint64_t SteadyNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// The reference L2: echo DATA reversed until STOP, then drain and return.
std::string RunReferenceL2(const std::array<uint64_t, wire::kScalarCount>& scalars) {
  spsc_queue::SpscQueueEndpointBinding b{};
  if (!spsc_queue::decode_endpoint_binding(scalars.data(), scalars.size(), &b)) {
    return "reference L2 rejected the binding";
  }
  RegionInstanceView view(RegionPartLocalSpan{b.payload_base, b.payload_bytes},
                          RegionPartLocalSpan{b.counter_base, b.counter_bytes});
  spsc_queue::MonotonicClock clock{};
  clock.now_ns = &SteadyNs;
  spsc_queue::SpscQueueEndpoint<RegionInstanceView, 2> ep(b, std::move(view), clock);
  if (!ep.live()) return std::string("reference L2 not live: ") + ep.error().message;
  const uint64_t kWait = 20000000000ull;  // 20 s: a failure bound only
  for (;;) {
    spsc_queue::SpscQueueInputHandle h{};
    if (!ep.input().peek(kWait, h)) return std::string("L2 peek: ") + ep.error().message;
    if (h.opcode == spsc_queue::SpscQueueOpcode::STOP) {
      if (!ep.input().release(h) || !ep.input().drained()) return "L2 could not drain";
      return "";
    }
    spsc_queue::SpscQueueOutputReservation r{};
    if (!ep.output().reserve(h.payload_nbytes, kWait, r)) {
      return std::string("L2 reserve: ") + ep.error().message;
    }
    for (uint64_t i = 0; i < h.payload_nbytes; ++i) {
      reinterpret_cast<uint8_t*>(r.payload.local_addr)[i] =
          reinterpret_cast<const uint8_t*>(h.payload.local_addr)[h.payload_nbytes - 1 - i];
    }
    if (!ep.output().publish(r, spsc_queue::SpscQueueOpcode::DATA) || !ep.input().release(h)) {
      return std::string("L2 publish/release: ") + ep.error().message;
    }
  }
}

std::vector<uint8_t> Payload(uint64_t i) {
  std::vector<uint8_t> v((i * 37) % 1500);
  for (size_t k = 0; k < v.size(); ++k) v[k] = static_cast<uint8_t>(i * 7 + k);
  return v;
}

TEST(L3Interop, DuplexWithTheReferenceL2Endpoint) {
  SPSQ_CLAUSES("S0.PURPOSE.1", "S0.USE.1", "S4.STOP.3");
  VirtualClock::reset();
  QueueParams p;
  p.depth = 8;
  p.input_arena = 4096;
  p.output_arena = 4096;
  p.shadow = false;  // the other thread's stores are not this view's business
  QueueRegion region(p);
  region.view_state().log = nullptr;
  std::unique_ptr<L3Adapter> l3 = make_l3_adapter();
  const auto scalars = region.scalars();
  ASSERT_TRUE(l3->open(scalars.data(), scalars.size(), region.view(), &VirtualClock::now_ns));
  std::string l2_error = "did not run";
  std::thread l2([&] { l2_error = RunReferenceL2(scalars); });

  const uint64_t kMessages = 300;
  const uint64_t kSpinBound = uint64_t{1} << 32;
  uint64_t sent = 0, received = 0;
  std::vector<uint8_t> buf(4096);
  LoopBound exchange("the exchange with the reference L2", kSpinBound);
  while (received < kMessages && exchange.next()) {
    if (sent < kMessages) {
      const auto v = Payload(sent);
      const L3Status s = l3->try_enqueue(v.data(), v.size());
      if (s == L3Status::kOk) ++sent;
      else if (s != L3Status::kNoProgress) break;
    }
    L3Message m;
    const L3Status s = l3->try_dequeue_into(buf.data(), buf.size(), &m);
    if (s == L3Status::kOk) {
      auto want = Payload(received);
      std::vector<uint8_t> got(buf.begin(), buf.begin() + static_cast<long>(m.payload_nbytes));
      std::vector<uint8_t> reversed(want.rbegin(), want.rend());
      ASSERT_EQ(got, reversed) << "output " << received;
      ASSERT_EQ(m.seq, received + 1);
      ++received;
    } else if (s != L3Status::kNoProgress) {
      break;
    } else {
      std::this_thread::yield();
    }
  }
  EXPECT_EQ(received, kMessages) << "L3: " << l3->error().message;
  L3Status stop = L3Status::kNoProgress;
  LoopBound retry("try_request_stop until there is room", kSpinBound);
  while (stop == L3Status::kNoProgress && retry.next()) {
    stop = l3->try_request_stop();
    if (stop == L3Status::kNoProgress) std::this_thread::yield();
  }
  EXPECT_EQ(stop, L3Status::kOk);
  l2.join();
  EXPECT_EQ(l2_error, "");
  EXPECT_TRUE(l3->live()) << l3->error().message;
  EXPECT_EQ(region.memory().load_counter(wire::kPeerFlag), 0);
  EXPECT_EQ(region.memory().load_counter(wire::kInitiatorFlag), 0);
}

}  // namespace
}  // namespace spsq_conf
