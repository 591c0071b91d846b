// The endpoint's own RegionInstanceView orders a publication: payload bytes
// written through the view, then a counter notify Set, are seen by a peer
// that waits on that counter and then reads the payload (a release store and
// an acquire load on the counter slot). On x86 a relaxed store or load
// behaves the same at run time, so this binary is built with
// ThreadSanitizer inside the plain build (certify/transitions.bzl, tsan_binary): a
// missing release or acquire is then a data race on the payload, reported
// while this test runs, and the report fails it (certify_run reads the
// report from the log and the binary's exit status).
//
// Built on the endpoint's config alone (the certification's contract check,
// the harness's views and fixture are not part of this build): everything it
// compiles is compiled again under ThreadSanitizer.
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "testkit/clauses.h"
#include "testkit/region_memory.h"
#include "conformance/l2/own_view.h"  // last: see its header comment

#if defined(__SANITIZE_THREAD__)
#define SPSQ_OWN_VIEW_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SPSQ_OWN_VIEW_TSAN 1
#endif
#endif
#ifndef SPSQ_OWN_VIEW_TSAN
#define SPSQ_OWN_VIEW_TSAN 0
#endif

namespace spsq_conf {
namespace {

constexpr uint64_t kSlots = 4;
constexpr uint64_t kSlotBytes = 200;  // each slot spans four 64-byte lines
constexpr int32_t kMessages = 2000;
constexpr uint64_t kTail = 0;   // written by the producer
constexpr uint64_t kHead = 64;  // written by the consumer
constexpr uint64_t kGenerousNs = 30'000'000'000ull;

std::vector<uint8_t> Message(int32_t i) {
  std::vector<uint8_t> v(kSlotBytes);
  for (uint64_t k = 0; k < kSlotBytes; ++k) v[k] = static_cast<uint8_t>(i * 7 + k);
  return v;
}

uint64_t SlotOffset(int32_t i) { return static_cast<uint64_t>(i) % kSlots * kSlotBytes; }

struct MessagePassing {
  template <class N>
  static void run() {
    using Op = typename N::NotifyOp;
    using Cmp = typename N::WaitCmp;
    RegionMemory m(kSlots * kSlotBytes, 384);
    std::string producer_error;
    std::thread producer([&] {
      auto view = OwnViewOver<N>(m);
      for (int32_t i = 1; i <= kMessages; ++i) {
        int32_t observed = 0;
        // The slot is free once the consumer released message i - kSlots.
        if (i > static_cast<int32_t>(kSlots) &&
            !view.counter().wait(kHead, i - static_cast<int32_t>(kSlots), Cmp::GE, kGenerousNs,
                                 observed)) {
          producer_error = "producer: wait for the head failed at message " + std::to_string(i);
          return;
        }
        const auto bytes = Message(i);
        if (!view.payload().write(SlotOffset(i), bytes.data(), bytes.size()) ||
            !view.counter().notify(kTail, i, Op::Set)) {
          producer_error = std::string("producer: ") + view.error().message;
          return;
        }
      }
    });
    auto view = OwnViewOver<N>(m);
    int32_t wrong = 0;
    for (int32_t i = 1; i <= kMessages; ++i) {
      int32_t observed = 0;
      if (!view.counter().wait(kTail, i, Cmp::GE, kGenerousNs, observed)) {
        ADD_FAILURE() << "consumer: wait for message " << i << " failed (observed " << observed
                      << "): " << view.error().message;
        break;
      }
      struct {
        uint64_t local_addr;
        uint64_t nbytes;
      } out{0, 0};
      if (!view.payload().read(SlotOffset(i), kSlotBytes, out)) {
        ADD_FAILURE() << "consumer: read failed: " << view.error().message;
        break;
      }
      const auto want = Message(i);
      const uint8_t* got = reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(out.local_addr));
      if (std::memcmp(got, want.data(), want.size()) != 0) ++wrong;
      if (!view.counter().notify(kHead, i, Op::Set)) {
        ADD_FAILURE() << "consumer: notify of the head failed: " << view.error().message;
        break;
      }
    }
    producer.join();
    EXPECT_EQ(producer_error, "");
    EXPECT_EQ(wrong, 0) << "messages read with bytes other than those written before the tail";
  }
};

TEST(OwnViewOrder, PayloadWriteThenNotifyIsSeenAfterWait) {
  SPSQ_CLAUSES("S3.PUB.2/own-view-order");
  if (!SPSQ_OWN_VIEW_TSAN) {
    GTEST_SKIP() << "built without ThreadSanitizer: a missing release or acquire cannot be "
                    "seen (certify/l2.bzl builds this test with it)";
  }
  JudgeOwnView<MessagePassing>();
}

}  // namespace
}  // namespace spsq_conf
