// W.CTR.3 for L3: the 32-bit counters wrap (and cross the int32 sign
// boundary) in normal operation. 2^32 + 2 * depth messages go through the L3
// queue under test in each direction, through its adapter, on the harness
// view in lean mode (ViewState::lean: bounds and contract checks only, no
// log, no shadow diff, no fault plan), so the run is bounded by the queue's
// own speed. The scripted L2 side is plain memory stores and loads here.
// SPSQ_WRAP_MESSAGES overrides the count (a quick local check leaves W.CTR.3
// UNTESTED); under sanitizers the full run is skipped. Built once, with its
// dependencies (the adapter, the queue) in compilation mode opt, and run only
// by the certification's report test.
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <thread>

#include "conformance/harness/clauses.h"
#include "conformance/harness/queue_region.h"
#include "conformance/harness/virtual_clock.h"
#include "conformance/harness/wire_model.h"
#include "conformance/l3/l3_adapter.h"
#include "gtest/gtest.h"

namespace spsq_conf {
namespace {

// The two directions run on two threads; the virtual clock is one test
// thread's. Only try_* calls are made here, which never wait.
uint64_t FixedClock() { return VirtualClock::kDefaultStart; }

uint64_t MessageCount(uint64_t depth) {
  const char* env = std::getenv("SPSQ_WRAP_MESSAGES");
  if (env != nullptr) return std::strtoull(env, nullptr, 0);
  return (uint64_t{1} << 32) + 2 * depth;
}

// One direction's run on a queue of its own: a string describing the first
// failure, or empty.
class WrapRun {
 public:
  WrapRun() : region_(Params()) {
    ViewState& s = region_.view_state();
    s.lean = true;
    s.log = nullptr;
    s.faults = nullptr;
    l3_ = make_l3_adapter();
    const auto scalars = region_.scalars();
    opened_ = l3_->open(scalars.data(), scalars.size(), region_.view(), &FixedClock);
  }
  static QueueParams Params() {
    QueueParams p;
    p.depth = 1024;
    p.input_arena = 64;
    p.output_arena = 64;
    p.shadow = false;
    return p;
  }
  bool live() { return opened_ && l3_->live(); }
  std::string error() { return l3_->error().message; }
  int32_t l3_flag() { return region_.memory().load_counter(wire::kInitiatorFlag); }
  QueueRegion& region() { return region_; }

  // L3 enqueues zero-byte DATA until the ring is full; L2 checks the batch
  // (tail, every descriptor) and releases it with one head update.
  std::string Input(uint64_t total) {
    const wire::Layout& l = region_.layout();
    RegionMemory& m = region_.memory();
    for (uint64_t k = 0; k < total;) {
      const uint64_t batch = total - k < l.depth ? total - k : l.depth;
      for (uint64_t i = 0; i < batch; ++i) {
        const L3Status s = l3_->try_enqueue(nullptr, 0);
        if (s != L3Status::kOk) {
          return "input message " + std::to_string(k + i) + ": try_enqueue returned " +
                 l3_status_name(s) + " (input head counter " +
                 std::to_string(m.load_counter(wire::kInputHead)) + "): " + error();
        }
      }
      k += batch;
      if (m.load_counter(wire::kInputTail) != wire::low32(k)) {
        return "input tail " + std::to_string(m.load_counter(wire::kInputTail)) + " after " +
               std::to_string(k) + " messages, want int32(uint32(" + std::to_string(k) + "))";
      }
      for (uint64_t j = k - batch; j < k; ++j) {
        const wire::Descriptor d = wire::decode_descriptor(m.payload() + l.input_slot(j));
        if (d.seq != j + 1 || d.opcode != wire::kData || d.nbytes != 0 || d.offset != 0) {
          return "input descriptor " + std::to_string(j) + ": seq " + std::to_string(d.seq) +
                 " opcode " + std::to_string(d.opcode) + " offset " + std::to_string(d.offset) +
                 " nbytes " + std::to_string(d.nbytes) + ", want seq " + std::to_string(j + 1) +
                 " zero-byte DATA";
        }
      }
      m.store_counter(wire::kInputHead, wire::low32(k));  // L2 releases the batch
    }
    return "";
  }

  // L2 publishes a ring of zero-byte DATA with one tail update; L3 dequeues
  // each (seq checked) and must have published the head of the batch.
  std::string Output(uint64_t total) {
    const wire::Layout& l = region_.layout();
    RegionMemory& m = region_.memory();
    uint8_t desc[32] = {};
    wire::store_le64(desc + wire::kOpcodeAt, wire::kData);
    uint8_t buf[8];
    for (uint64_t k = 0; k < total;) {
      const uint64_t batch = total - k < l.depth ? total - k : l.depth;
      for (uint64_t i = 0; i < batch; ++i) {
        wire::store_le64(desc, k + i + 1);
        std::memcpy(m.payload() + l.output_slot(k + i), desc, sizeof(desc));
      }
      m.store_counter(wire::kOutputTail, wire::low32(k + batch));
      for (uint64_t i = 0; i < batch; ++i) {
        L3Message msg;
        const L3Status s = l3_->try_dequeue_into(buf, sizeof(buf), &msg);
        if (s != L3Status::kOk || msg.seq != k + i + 1 || msg.opcode != wire::kData ||
            msg.payload_nbytes != 0) {
          return "output " + std::to_string(k + i) + " (output tail counter " +
                 std::to_string(m.load_counter(wire::kOutputTail)) + "): try_dequeue_into " +
                 l3_status_name(s) + ", seq " + std::to_string(msg.seq) + ", want " +
                 std::to_string(k + i + 1) + ": " + error();
        }
      }
      k += batch;
      if (m.load_counter(wire::kOutputHead) != wire::low32(k)) {
        return "output head " + std::to_string(m.load_counter(wire::kOutputHead)) + " after " +
               std::to_string(k) + " dequeues, want int32(uint32(" + std::to_string(k) + "))";
      }
    }
    return "";
  }

 private:
  QueueRegion region_;
  std::unique_ptr<L3Adapter> l3_;
  bool opened_ = false;
};

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SPSQ_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SPSQ_SANITIZED 1
#endif
#endif

TEST(L3Wrap, CountersWrapAndTrafficContinuesInBothDirections) {
  SPSQ_CLAUSES("W.CTR.3");
#ifdef SPSQ_SANITIZED
  if (std::getenv("SPSQ_WRAP_MESSAGES") == nullptr) {
    GTEST_SKIP() << "sanitizer build: 2^33 instrumented queue operations take hours; the "
                    "uninstrumented certification runs the wrap";
  }
#endif
  const uint64_t total = MessageCount(WrapRun::Params().depth);
  WrapRun input, output;
  ASSERT_TRUE(input.live()) << "open() refused a valid binding: " << input.error();
  ASSERT_TRUE(output.live()) << "open() refused a valid binding: " << output.error();
  // The directions are independent queues: run them on two threads.
  std::string input_error, output_error;
  std::thread t([&] { input_error = input.Input(total); });
  output_error = output.Output(total);
  t.join();
  EXPECT_EQ(input_error, "");
  EXPECT_EQ(output_error, "");
  for (WrapRun* run : {&input, &output}) {
    EXPECT_TRUE(run->live()) << run->error();
    EXPECT_EQ(run->l3_flag(), 0);
    std::set<std::string> violated;
    run->region().check_invariants(Side::kL3, "after the wrap run", {}, &violated);
    EXPECT_TRUE(violated.empty()) << "broken: " << *violated.begin();
  }
  RecordProperty("messages_per_direction", std::to_string(total));
  if (total < (uint64_t{1} << 32) + WrapRun::Params().depth) {
    GTEST_SKIP() << "SPSQ_WRAP_MESSAGES=" << total
                 << ": a shortened run does not cross 2^32 and proves nothing about the wrap";
  }
}

}  // namespace
}  // namespace spsq_conf
