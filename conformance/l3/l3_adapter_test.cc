// The L3Adapter interface's own behaviour (not a section of the suite): the
// default runs of calls the counter wrap makes, try_enqueue_n and
// try_dequeue_into_n, as an adapter that does not override them (the testee
// driver's, a third party's) gives them. They must make exactly the single
// calls, in order, and stop at the first that does not return kOk.
#include <cstdint>
#include <vector>

#include "conformance/l3/l3_adapter.h"
#include "gtest/gtest.h"

namespace spsq_conf {
namespace {

// Answers try_enqueue and try_dequeue_into from a script; nothing else is
// called by the runs under test.
class ScriptedAdapter : public L3Adapter {
 public:
  std::vector<L3Status> answers;  // one per call, in order
  size_t calls = 0;
  std::vector<const void*> buffers;
  std::vector<uint64_t> capacities;

  const char* name() const override { return "scripted"; }
  bool open(const uint64_t*, size_t, HarnessView, uint64_t (*)()) override { return true; }
  bool uses_view() const override { return false; }
  bool live() override { return true; }
  L3ErrorInfo error() override { return {}; }
  bool chip_task_arg_scalars(uint64_t*, size_t) override { return false; }
  LayoutFields layout() override { return {}; }
  L3Status try_enqueue(const void* data, uint64_t nbytes) override {
    EXPECT_EQ(data, nullptr);
    EXPECT_EQ(nbytes, 0u);
    return next();
  }
  L3Status enqueue(const void*, uint64_t, uint64_t) override { return unexpected(); }
  L3Status try_request_stop() override { return unexpected(); }
  L3Status request_stop(uint64_t) override { return unexpected(); }
  L3Status try_peek(L3Message*) override { return unexpected(); }
  L3Status peek(uint64_t, L3Message*) override { return unexpected(); }
  L3Status read_into(const L3Message&, void*, uint64_t) override { return unexpected(); }
  L3Status release(const L3Message&) override { return unexpected(); }
  L3Status try_dequeue_into(void* buffer, uint64_t capacity, L3Message* m) override {
    buffers.push_back(buffer);
    capacities.push_back(capacity);
    const L3Status s = next();
    if (s == L3Status::kOk) m->seq = calls;  // the call's 1-based number
    return s;
  }
  L3Status dequeue_into(void*, uint64_t, uint64_t, L3Message*) override { return unexpected(); }
  void free() override {}

 private:
  L3Status next() {
    EXPECT_LT(calls, answers.size()) << "a call beyond the script";
    return calls < answers.size() ? answers[calls++] : L3Status::kFailed;
  }
  L3Status unexpected() {
    ADD_FAILURE() << "a call the runs never make";
    return L3Status::kFailed;
  }
};

constexpr L3Status kOk = L3Status::kOk;

TEST(L3AdapterRuns, EnqueueRunMakesCountCallsWhileTheyReturnOk) {
  ScriptedAdapter a;
  a.answers = {kOk, kOk, kOk};
  uint64_t done = 99;
  EXPECT_EQ(a.try_enqueue_n(3, &done), kOk);
  EXPECT_EQ(done, 3u);
  EXPECT_EQ(a.calls, 3u);
}

TEST(L3AdapterRuns, EnqueueRunStopsAtTheFirstOtherStatus) {
  ScriptedAdapter a;
  a.answers = {kOk, kOk, L3Status::kNoProgress, kOk};
  uint64_t done = 99;
  EXPECT_EQ(a.try_enqueue_n(4, &done), L3Status::kNoProgress);
  EXPECT_EQ(done, 2u);
  EXPECT_EQ(a.calls, 3u);
}

TEST(L3AdapterRuns, EmptyRunMakesNoCall) {
  ScriptedAdapter a;
  uint64_t done = 99;
  EXPECT_EQ(a.try_enqueue_n(0, &done), kOk);
  EXPECT_EQ(done, 0u);
  L3Message out[1];
  EXPECT_EQ(a.try_dequeue_into_n(nullptr, 0, out, 0, &done), kOk);
  EXPECT_EQ(done, 0u);
  EXPECT_EQ(a.calls, 0u);
}

TEST(L3AdapterRuns, DequeueRunFillsOneMessagePerCallAndStopsAtTheFirstOtherStatus) {
  ScriptedAdapter a;
  a.answers = {kOk, kOk, L3Status::kFailed, kOk};
  uint8_t buffer[8];
  L3Message out[4];
  uint64_t done = 99;
  EXPECT_EQ(a.try_dequeue_into_n(buffer, sizeof(buffer), out, 4, &done), L3Status::kFailed);
  EXPECT_EQ(done, 2u);
  EXPECT_EQ(a.calls, 3u);
  EXPECT_EQ(out[0].seq, 1u);
  EXPECT_EQ(out[1].seq, 2u);
  EXPECT_EQ(out[3].seq, 0u);  // never reached
  ASSERT_EQ(a.buffers.size(), 3u);
  for (size_t i = 0; i < a.buffers.size(); ++i) {
    EXPECT_EQ(a.buffers[i], buffer);
    EXPECT_EQ(a.capacities[i], sizeof(buffer));
  }
}

}  // namespace
}  // namespace spsq_conf
