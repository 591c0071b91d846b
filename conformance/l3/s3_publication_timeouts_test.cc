// Spec section 3, "Publication, Counters And Timeouts", from the L3 side: the
// producer sequence, the signal slots and their writers, counter checks,
// timeouts and the remote abort. Every blocking L3 call is walked down its
// no-room path (expires at its deadline, not poison) and its happy path
// (room appears mid-wait).
#include <limits>
#include <string>
#include <vector>

#include "testkit/loop_bound.h"
#include "testkit/publish_order.h"
#include "conformance/l3/l3_fixture.h"

namespace spsq_conf {
namespace {

constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
constexpr uint64_t kEndOfTime = ~uint64_t{0};
constexpr size_t npos = AccessLog::npos;

class L3Publication : public L3Suite {
 protected:
  void FillInputArena() {
    const auto b = Bytes(layout().input_arena_bytes, 1);
    ASSERT_EQ(l3().try_enqueue(b.data(), b.size()), L3Status::kOk);
  }
  // L2 takes and releases one input.
  void TakeOneInput() {
    Message m;
    ASSERT_TRUE(peer().poll_input(&m));
    peer().release_inputs(1);
  }
  // The input tail L3 published, as the scripted L2 reads it.
  int32_t InputTail() { return peer().counter(wire::kInputTail); }
  // Dequeues (takes and releases) n outputs through the adapter.
  void DequeueOutputs(uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) {
      L3Message m;
      ASSERT_EQ(l3().try_peek(&m), L3Status::kOk) << "output " << i;
      ASSERT_EQ(l3().release(m), L3Status::kOk);
    }
  }
};

// ---------------------------------------------------------- blocking calls

TEST_F(L3Publication, EnqueueOnAFullRingEndsAtItsDeadlineWithoutPoison) {
  const auto b = Bytes(16, 3);
  uint64_t t0 = 0;
  {
    SPSQ_JUDGING("S3.TO.6/enqueue-ring", "S4.NOPROG.4");
    SPSQ_SETUP(FillInputRing());
    t0 = VirtualClock::peek();
    EXPECT_EQ(l3().enqueue(b.data(), b.size(), 5000), L3Status::kTimedOut);
  }
  {
    SPSQ_JUDGING("S3.TO.8/enqueue-ring");
    EXPECT_EQ(VirtualClock::peek() - t0, 5000u) << "enqueue(5000) ended early or late";
  }
  {
    SPSQ_JUDGING("S3.TO.6/enqueue-ring", "S4.NOPROG.4");
    ExpectHealthy("enqueue timed out on a full ring");
  }
  {
    SPSQ_JUDGING("S3.TO.6/enqueue-ring");
    EXPECT_EQ(InputTail(), static_cast<int32_t>(layout().depth)) << "nothing was published";
  }
  SPSQ_JUDGING("S3.TO.6/recovers");
  peer().drain_inputs();
  EXPECT_EQ(l3().enqueue(b.data(), b.size(), 5000), L3Status::kOk) << "room after the timeout";
}

TEST_F(L3Publication, EnqueueOnAFullArenaEndsAtItsDeadlineWithoutPoison) {
  const auto b = Bytes(64, 4);
  uint64_t t0 = 0;
  {
    SPSQ_JUDGING("S3.TO.6/enqueue-arena", "S4.NOPROG.4");
    FillInputArena();
    t0 = VirtualClock::peek();
    EXPECT_EQ(l3().enqueue(b.data(), b.size(), 6000), L3Status::kTimedOut);
  }
  {
    SPSQ_JUDGING("S3.TO.8/enqueue-arena");
    EXPECT_EQ(VirtualClock::peek() - t0, 6000u) << "enqueue(6000) ended early or late";
  }
  {
    SPSQ_JUDGING("S3.TO.6/enqueue-arena", "S4.NOPROG.4");
    ExpectHealthy("enqueue timed out on a full arena");
  }
  {
    SPSQ_JUDGING("S3.TO.6/enqueue-arena");
    EXPECT_EQ(InputTail(), 1) << "nothing was published";
  }
  SPSQ_JUDGING("S3.TO.6/recovers");
  peer().drain_inputs();
  EXPECT_EQ(l3().enqueue(b.data(), b.size(), 6000), L3Status::kOk) << "room after the timeout";
}

TEST_F(L3Publication, PeekAndDequeueOnAnEmptyQueueEndAtTheirDeadlines) {
  uint64_t t0 = VirtualClock::peek();
  L3Message m;
  {
    SPSQ_JUDGING("S3.TO.6/peek", "S4.NOPROG.4/l3-peek");
    EXPECT_EQ(l3().peek(3000, &m), L3Status::kTimedOut);
  }
  {
    SPSQ_JUDGING("S3.TO.8/peek");
    EXPECT_EQ(VirtualClock::peek() - t0, 3000u) << "peek(3000) ended early or late";
  }
  {
    SPSQ_JUDGING("S3.TO.6/peek", "S4.NOPROG.4/l3-peek");
    ExpectHealthy("peek timed out");
  }
  t0 = VirtualClock::peek();
  std::vector<uint8_t> buf(64, 0xEE);
  {
    SPSQ_JUDGING("S3.TO.6/dequeue", "S4.NOPROG.4/l3-dequeue");
    EXPECT_EQ(l3().dequeue_into(buf.data(), buf.size(), 4000, &m), L3Status::kTimedOut);
  }
  {
    SPSQ_JUDGING("S3.TO.8/dequeue");
    EXPECT_EQ(VirtualClock::peek() - t0, 4000u) << "dequeue_into(4000) ended early or late";
  }
  {
    SPSQ_JUDGING("S3.TO.6/dequeue");
    EXPECT_EQ(buf, std::vector<uint8_t>(64, 0xEE)) << "a timed-out dequeue wrote the buffer";
  }
  {
    SPSQ_JUDGING("S3.TO.6/dequeue", "S4.NOPROG.4/l3-dequeue");
    ExpectHealthy("dequeue_into timed out");
  }
  {
    SPSQ_JUDGING("S3.TO.6/peek", "S3.TO.6/dequeue");  // nothing released
    EXPECT_EQ(peer().counter(wire::kOutputHead), 0);
  }
  SPSQ_JUDGING("S3.TO.6/recovers");
  Outputs(1, 8);
  EXPECT_EQ(l3().dequeue_into(buf.data(), buf.size(), 4000, &m), L3Status::kOk);
  EXPECT_EQ(std::vector<uint8_t>(buf.begin(), buf.begin() + 8), Bytes(8, 0));
}

TEST_F(L3Publication, RequestStopWithNoRoomEndsAtItsDeadlineWithoutPoison) {
  uint64_t t0 = 0;
  {
    SPSQ_JUDGING("S3.TO.6/stop", "S4.NOPROG.4");
    SPSQ_SETUP(FillInputRing());
    t0 = VirtualClock::peek();
    EXPECT_EQ(l3().request_stop(5000), L3Status::kTimedOut);
  }
  {
    SPSQ_JUDGING("S3.TO.8/stop");
    EXPECT_EQ(VirtualClock::peek() - t0, 5000u) << "request_stop(5000) ended early or late";
  }
  {
    SPSQ_JUDGING("S3.TO.6/stop", "S4.NOPROG.4");
    ExpectHealthy("request_stop timed out on a full ring");
  }
  {
    SPSQ_JUDGING("S3.TO.6/stop");
    EXPECT_EQ(InputTail(), static_cast<int32_t>(layout().depth)) << "no STOP was published";
  }
  SPSQ_JUDGING("S3.TO.6/recovers");
  peer().drain_inputs();
  EXPECT_EQ(l3().request_stop(5000), L3Status::kOk) << "room for STOP after the timeout";
  Message m;
  ASSERT_TRUE(peer().poll_input(&m));
  EXPECT_EQ(m.opcode, wire::kStop);
}

// The smallest positive timeout is a wait like any other: each blocking call
// with no room tries, waits 1 ns and times out; none refuses it as a usage error.
TEST_F(L3Publication, OneNanosecondTimeoutsExpireLikeAnyOther) {
  const auto b = Bytes(16, 5);
  auto expires = [&](const char* call, L3Status st, uint64_t t0) {
    EXPECT_EQ(st, L3Status::kTimedOut) << call << "(1 ns): " << l3_status_name(st) << ", "
                                       << l3().error().message;
    EXPECT_EQ(VirtualClock::peek() - t0, 1u) << call << "(1 ns) ended early or late";
    ExpectHealthy(call);
  };
  L3Message m;
  std::vector<uint8_t> buf(64);
  {
    SPSQ_JUDGING("S3.TO.8/one-ns");
    uint64_t t0 = VirtualClock::peek();
    expires("peek", l3().peek(1, &m), t0);
    t0 = VirtualClock::peek();
    expires("dequeue_into", l3().dequeue_into(buf.data(), buf.size(), 1, &m), t0);
    SPSQ_SETUP(FillInputRing());
    t0 = VirtualClock::peek();
    expires("enqueue", l3().enqueue(b.data(), b.size(), 1), t0);
    t0 = VirtualClock::peek();
    expires("request_stop", l3().request_stop(1), t0);
    EXPECT_EQ(InputTail(), static_cast<int32_t>(layout().depth)) << "nothing was published";
  }
}

// The Python surface's rule (S3.PYTO.1): timeout <= 0 raises ValueError,
// REJECTED through the driver protocol, the queue live and untouched. Each
// call could progress at once, so an attempt would show. A queue judged by
// the C++ L3 API reads timeout 0 otherwise (AMB.TIMEOUTZERO).
TEST_F(L3Publication, TimeoutZeroIsAValueErrorOnThePythonSurface) {
  SPSQ_CLAUSES("S3.PYTO.1");
  if (std::string(l3().surface()) != "python") {
    GTEST_SKIP() << "not applicable: " << l3().name()
                 << " is judged by the C++ L3 API, where timeout 0 is AMB.TIMEOUTZERO";
  }
  const auto b = Bytes(8, 1);
  std::vector<uint8_t> buf(64);
  L3Message m;
  for (int call = 0; call < 4; ++call) {
    Rebuild(QueueParams());
    Outputs(1);
    const uint64_t t0 = VirtualClock::peek();
    const char* name[] = {"enqueue", "request_stop", "peek", "dequeue_into"};
    const L3Status s = call == 0   ? l3().enqueue(b.data(), b.size(), 0)
                       : call == 1 ? l3().request_stop(0)
                       : call == 2 ? l3().peek(0, &m)
                                   : l3().dequeue_into(buf.data(), buf.size(), 0, &m);
    EXPECT_EQ(s, L3Status::kRejected) << name[call] << "(timeout 0): ValueError expected, saw "
                                      << l3_status_name(s);
    EXPECT_EQ(VirtualClock::peek(), t0) << name[call] << "(timeout 0) waited";
    ExpectHealthy(name[call]);
    EXPECT_EQ(peer().counter(wire::kInputTail), 0) << name[call] << ": published";
    EXPECT_EQ(peer().counter(wire::kOutputHead), 0) << name[call] << ": released an output";
  }
}

// Positive timeouts at the values a narrower or signed timeout type breaks on:
// the smallest, both sides of 32 bits, the sign bit, the largest. Every
// blocking call with no room ends at exactly start + T, saturated at 2^64 - 1.
constexpr uint64_t kBoundaryTimeouts[] = {1, (uint64_t{1} << 32) - 1, uint64_t{1} << 32,
                                          uint64_t{1} << 63, kEndOfTime};

uint64_t DeadlineOf(uint64_t start, uint64_t timeout) {
  return timeout > kEndOfTime - start ? kEndOfTime : start + timeout;
}

enum class Blocking { kPeek, kDequeueInto, kEnqueue, kRequestStop };
constexpr Blocking kBlockingCalls[] = {Blocking::kPeek, Blocking::kDequeueInto,
                                       Blocking::kEnqueue, Blocking::kRequestStop};

class L3BoundaryTimeouts : public L3Publication {
 protected:
  static const char* Name(Blocking c) {
    switch (c) {
      case Blocking::kPeek: return "peek";
      case Blocking::kDequeueInto: return "dequeue_into";
      case Blocking::kEnqueue: return "enqueue";
      case Blocking::kRequestStop: return "request_stop";
    }
    return "?";
  }
  // A fresh queue on which `c` has no room: the output empty, for enqueue and
  // request_stop the input ring full. Call it through SPSQ_SETUP.
  void NoRoomFor(Blocking c) {
    Rebuild(QueueParams());
    VirtualClock::reset();
    if (c == Blocking::kEnqueue || c == Blocking::kRequestStop) SPSQ_SETUP(FillInputRing());
  }
  L3Status Call(Blocking c, uint64_t timeout) {
    const auto b = Bytes(16, 7);
    std::vector<uint8_t> buf(64);
    L3Message m;
    switch (c) {
      case Blocking::kPeek: return l3().peek(timeout, &m);
      case Blocking::kDequeueInto: return l3().dequeue_into(buf.data(), buf.size(), timeout, &m);
      case Blocking::kEnqueue: return l3().enqueue(b.data(), b.size(), timeout);
      case Blocking::kRequestStop: return l3().request_stop(timeout);
    }
    return L3Status::kFailed;
  }
};

TEST_F(L3BoundaryTimeouts, EachEndsAtItsDeadlineWithoutPoison) {
  SPSQ_CLAUSES("S3.TO.8/timeouts", "S3.TO.6/timeouts", "S4.NOPROG.4/timeouts");
  // A python-surface queue takes "a finite positive timeout" in seconds
  // (S3.PYTO.1); the deadline's saturation at 2^64 - 1 is the C++ API's
  // unsigned nanoseconds. So timeouts of 2^63 ns (292 years) and more are
  // judged on the C++ surface only.
  const bool python = std::string(l3().surface()) == "python";
  for (uint64_t t : kBoundaryTimeouts) {
    if (python && t >= (uint64_t{1} << 63)) continue;
    for (Blocking c : kBlockingCalls) {
      const std::string call = std::string(Name(c)) + "(" + std::to_string(t) + ")";
      SPSQ_SETUP(NoRoomFor(c));
      const int32_t tail = InputTail();
      const uint64_t t0 = VirtualClock::peek();
      const L3Status st = Call(c, t);
      {
        SPSQ_JUDGING("S3.TO.8/timeouts");
        EXPECT_EQ(VirtualClock::peek(), DeadlineOf(t0, t)) << call << " from " << t0;
      }
      SPSQ_JUDGING("S3.TO.6/timeouts", "S4.NOPROG.4/timeouts");
      EXPECT_EQ(st, L3Status::kTimedOut) << call << ": " << l3_status_name(st) << ", "
                                         << l3().error().message;
      ExpectHealthy(call.c_str());
      EXPECT_EQ(InputTail(), tail) << call << " published";
    }
  }
}

TEST_F(L3BoundaryTimeouts, WithARaisedPeerFlagEachReportsRemoteAbort) {
  SPSQ_CLAUSES("S3.TO.7/timeouts");
  for (uint64_t t : kBoundaryTimeouts) {
    for (Blocking c : kBlockingCalls) {
      const std::string call = std::string(Name(c)) + "(" + std::to_string(t) + ")";
      SPSQ_SETUP(NoRoomFor(c));
      peer().set_peer_flag(1);
      const uint64_t t0 = VirtualClock::peek();
      const L3Status st = Call(c, t);
      EXPECT_EQ(st, L3Status::kFailed) << call << ": " << l3_status_name(st);
      EXPECT_LE(VirtualClock::peek(), DeadlineOf(t0, t)) << call << ": ended past the deadline";
      EXPECT_FALSE(l3().live()) << call;
      ExpectKind(wire::kRemoteAborted, call);
      EXPECT_EQ(l3_flag(), 0) << call << ": remote abort raised the local flag";
    }
  }
}

// A wake-up that brings too little room does not restart the timeout.
TEST_F(L3Publication, AWakeUpWithTooLittleRoomStillEndsAtTheDeadline) {
  SPSQ_CLAUSES("S3.TO.8/rewait", "S3.TO.6/enqueue-arena");
  const uint64_t half = layout().input_arena_bytes / 2;
  const auto a = Bytes(half, 1);
  ASSERT_EQ(l3().try_enqueue(a.data(), a.size()), L3Status::kOk);
  ASSERT_EQ(l3().try_enqueue(a.data(), a.size()), L3Status::kOk);
  VirtualClock::after(300, [this] { TakeOneInput(); });  // half the arena: not enough
  const uint64_t t0 = VirtualClock::peek();
  const auto b = Bytes(half + half / 2, 2);
  EXPECT_EQ(l3().enqueue(b.data(), b.size(), 5000), L3Status::kTimedOut);
  EXPECT_EQ(VirtualClock::peek() - t0, 5000u) << "the wait must end at its first deadline";
  ExpectHealthy("enqueue woken with too little room");
  peer().drain_inputs();
  EXPECT_EQ(l3().try_enqueue(b.data(), b.size()), L3Status::kOk);
}

TEST_F(L3Publication, DeadlinesBeyondTheEndOfTimeSaturate) {
  SPSQ_CLAUSES("S3.TO.8/near-max", "S3.TO.6/peek", "S3.TO.6/enqueue-ring");
  // now + timeout overflows: the wait lasts to the end of time, no instant expiry.
  VirtualClock::reset(kEndOfTime - 100);
  L3Message m;
  EXPECT_EQ(l3().peek(1000000, &m), L3Status::kTimedOut);
  EXPECT_EQ(VirtualClock::peek(), kEndOfTime) << "the deadline wrapped: peek ended early";
  ExpectHealthy("peek near the end of time");
  VirtualClock::reset(kEndOfTime - 100);
  SPSQ_SETUP(FillInputRing());
  EXPECT_EQ(l3().enqueue(nullptr, 0, 1000000), L3Status::kTimedOut);
  EXPECT_EQ(VirtualClock::peek(), kEndOfTime) << "the deadline wrapped: enqueue ended early";
  ExpectHealthy("enqueue near the end of time");
  // Room near the end of time is still seen.
  VirtualClock::reset(kEndOfTime - 100000);
  const uint64_t t0 = VirtualClock::peek();
  VirtualClock::after(700, [this] { peer().drain_inputs(); });
  EXPECT_EQ(l3().enqueue(nullptr, 0, 1000000), L3Status::kOk);
  EXPECT_EQ(VirtualClock::peek() - t0, 700u);
}

TEST_F(L3Publication, BlockingCallsSucceedWhenL2ActsInTime) {
  SPSQ_CLAUSES("S0.USE.1", "S3.TO.8/progress", "S3.TO.8/near-max-progress");
  uint64_t t0 = VirtualClock::peek();
  VirtualClock::after(400, [this] { Outputs(1); });
  L3Message m;
  ASSERT_EQ(l3().peek(5000, &m), L3Status::kOk);
  EXPECT_EQ(VirtualClock::peek() - t0, 400u) << "peek returned late or early";
  EXPECT_EQ(m.seq, 1u);
  ASSERT_EQ(l3().release(m), L3Status::kOk);
  t0 = VirtualClock::peek();
  VirtualClock::after(450, [this] { Outputs(1); });
  std::vector<uint8_t> buf(64);
  ASSERT_EQ(l3().dequeue_into(buf.data(), buf.size(), 5000, &m), L3Status::kOk);
  EXPECT_EQ(VirtualClock::peek() - t0, 450u) << "dequeue_into returned late or early";
  SPSQ_SETUP(FillInputRing());
  t0 = VirtualClock::peek();
  VirtualClock::after(400, [this] { peer().drain_inputs(); });
  const auto b = Bytes(16, 3);
  EXPECT_EQ(l3().enqueue(b.data(), b.size(), 5000), L3Status::kOk) << "ring room at +400";
  EXPECT_EQ(VirtualClock::peek() - t0, 400u) << "enqueue returned late or early";
  peer().drain_inputs();
  FillInputArena();
  t0 = VirtualClock::peek();
  VirtualClock::after(350, [this] { peer().drain_inputs(); });
  EXPECT_EQ(l3().enqueue(b.data(), b.size(), 5000), L3Status::kOk) << "arena room at +350";
  EXPECT_EQ(VirtualClock::peek() - t0, 350u) << "enqueue returned late or early";
  peer().drain_inputs();
  SPSQ_SETUP(FillInputRing());
  t0 = VirtualClock::peek();
  VirtualClock::after(250, [this] { TakeOneInput(); });
  EXPECT_EQ(l3().request_stop(5000), L3Status::kOk) << "room for STOP at +250";
  EXPECT_EQ(VirtualClock::peek() - t0, 250u) << "request_stop returned late or early";
  // A wait whose deadline saturates at 2^64 - 1 still sees progress.
  VirtualClock::reset(kEndOfTime - 100000);
  t0 = VirtualClock::peek();
  VirtualClock::after(600, [this] { Outputs(1); });
  ASSERT_EQ(l3().peek(1000000, &m), L3Status::kOk);
  EXPECT_EQ(VirtualClock::peek() - t0, 600u);
  ExpectHealthy("blocking calls");
}

// ---------------------------------------------------------- producer order

class L3ProducerOrder : public L3Publication {
 protected:
  // Enqueues n bytes and judges the producer sequence of that publication.
  // Each check sits in a block of the cases it judges and of `at`, the
  // S3.PUB.1 position case the publication stands for (none at an ordinary
  // position): a wrong order after a skip FAILs both the order's case and
  // after-skip.
  template <typename... Position>
  void Judge(const char* where, uint64_t n, Position... at) {
    const auto bytes = Bytes(n, static_cast<uint8_t>(n + 9));
    const uint64_t k = peer().inputs_taken();
    const size_t mark = log().mark();
    Message m;
    {
      SPSQ_JUDGING("S3.PUB.1/reserve-write", at...);
      ASSERT_EQ(l3().try_enqueue(n ? bytes.data() : nullptr, n), L3Status::kOk) << where;
      ASSERT_TRUE(peer().poll_input(&m)) << where;
    }
    const uint64_t off = n != 0 ? m.offset : 0;
    const PublishOrder s =
        FindPublishOrder(log(), mark, layout().input_slot(k), layout().input_arena,
                         layout().input_arena_bytes, off, n, wire::kInputTail);
    const std::string trace = std::string(where) + ":\n" + log().dump(mark);
    {
      SPSQ_JUDGING("S3.PUB.1/reserve-write", at...);
      EXPECT_EQ(m.seq, k + 1) << where;
      EXPECT_EQ(m.payload, bytes) << where << ": the enqueued bytes reach L2";
      EXPECT_EQ(s.stray, npos) << "arena bytes written outside the message's span: " << trace;
    }
    if (n != 0) {
      {
        SPSQ_JUDGING("S3.PUB.1/visible-fields", "S3.PUB.2/before-seq", "S3.PUB.2/before-tail",
                     at...);
        EXPECT_NE(s.payload_done, npos) << "payload not written through the view: " << trace;
      }
      {
        SPSQ_JUDGING("S3.PUB.1/visible-fields", at...);
        EXPECT_LT(s.payload_done, s.body_first) << "payload visible before the fields: "
                                                << trace;
      }
      {
        SPSQ_JUDGING("S3.PUB.2/before-seq", "S3.PUB.2/no-late-payload", at...);
        EXPECT_LT(s.payload_last, s.seq_first) << "payload written after the seq: " << trace;
      }
      {
        SPSQ_JUDGING("S3.PUB.2/before-tail", at...);
        EXPECT_LT(s.payload_last, s.tail) << "payload written after the tail: " << trace;
      }
    }
    {
      SPSQ_JUDGING("S3.PUB.1/fields-seq", "W.ORDER.1/body-first", at...);
      EXPECT_NE(s.body_done, npos) << "descriptor bytes 8..31 not all written: " << trace;
      EXPECT_LT(s.body_done, s.seq_first) << "all of bytes 8..31 precede the seq: " << trace;
    }
    {
      SPSQ_JUDGING("S3.PUB.1/seq-tail", "W.ORDER.1/seq-then-tail", at...);
      EXPECT_NE(s.seq_done, npos) << "no write of the seq: " << trace;
      EXPECT_NE(s.tail, npos) << "no tail publish: " << trace;
    }
    {
      SPSQ_JUDGING("W.ORDER.1/seq-separate", at...);
      EXPECT_FALSE(s.seq_with_body) << "seq written together with bytes 8..31: " << trace;
    }
    {
      SPSQ_JUDGING("S3.PUB.1/fields-seq", "W.ORDER.1/no-late-body", at...);
      EXPECT_LT(s.body_last, s.seq_first) << "bytes 8..31 written after the seq: " << trace;
    }
    {
      SPSQ_JUDGING("S3.PUB.1/seq-tail", "W.ORDER.1/seq-then-tail", at...);
      EXPECT_LT(s.seq_done, s.tail) << "the seq precedes the tail: " << trace;
      EXPECT_EQ(InputTail(), wire::low32(k + 1)) << where;
    }
    peer().release_inputs(1);
  }
};

// The positions S3.PUB.1 names open a block of their own too: it records the
// case and takes what fails there outside the helper's blocks.
TEST_F(L3ProducerOrder, ProducerSequencePayloadFieldsSeqTail) {
  if (!l3().uses_view()) GTEST_SKIP() << l3().name() << " does not run on the harness view";
  const uint64_t arena = layout().input_arena_bytes;
  Judge("first message, 24 bytes", 24);
  {
    SPSQ_JUDGING("S3.PUB.1/zero-byte");
    Judge("zero-byte message", 0, "S3.PUB.1/zero-byte");
  }
  Judge("40 bytes", 40);
  {
    SPSQ_JUDGING("S3.PUB.1/exact-end");
    Judge("ends exactly at the arena end", arena - 64, "S3.PUB.1/exact-end");
  }
  Judge("200 bytes from the arena start", 200);
  {
    SPSQ_JUDGING("S3.PUB.1/after-skip");
    Judge("100 bytes after skipping the arena tail", 100, "S3.PUB.1/after-skip");
  }
  LoopBound fill("fill the input ring to its wrap", layout().depth);
  while (peer().inputs_taken() % layout().depth != 0 && fill.next()) Judge("filler", 8);
  {
    SPSQ_JUDGING("S3.PUB.1/reused-slot");
    Judge("slot 0 reused after a ring wrap", 24, "S3.PUB.1/reused-slot");
  }
  // Every publication went through without poisoning L3.
  SPSQ_JUDGING("S3.PUB.1/reserve-write");
  ExpectHealthy("producer sequence");
}

TEST_F(L3Publication, CountersHoldTheLow32BitsOfTheCounts) {
  SPSQ_CLAUSES("S3.CTR.1/tail", "S3.CTR.1/head", "W.CTR.1/set-op", "W.CTR.1/value");
  if (!l3().uses_view()) GTEST_SKIP() << l3().name() << " does not run on the harness view";
  const uint64_t depth = layout().depth;
  for (uint64_t k = 1; k <= 3 * depth; ++k) {
    size_t mark = log().mark();
    ASSERT_EQ(l3().try_enqueue(nullptr, 0), L3Status::kOk);
    EXPECT_EQ(InputTail(), wire::low32(k)) << "after " << k << " inputs";
    for (size_t i = mark; i < log().size(); ++i) {
      const auto& a = log()[i];
      if (a.kind != AccessKind::kNotify || a.offset != wire::kInputTail) continue;
      EXPECT_EQ(a.op, 0u) << "a plain Set: " << a.describe();
      EXPECT_EQ(a.value, wire::low32(k)) << a.describe();
    }
    peer().drain_inputs();
    Outputs(1);
    L3Message m;
    ASSERT_EQ(l3().try_peek(&m), L3Status::kOk);
    mark = log().mark();
    ASSERT_EQ(l3().release(m), L3Status::kOk);
    EXPECT_EQ(peer().counter(wire::kOutputHead), wire::low32(k)) << "after " << k << " releases";
    size_t sets = 0;
    for (size_t i = mark; i < log().size(); ++i) {
      const auto& a = log()[i];
      if (a.kind != AccessKind::kNotify || a.offset != wire::kOutputHead) continue;
      ++sets;
      EXPECT_EQ(a.op, 0u) << "a plain Set: " << a.describe();
      EXPECT_EQ(a.value, wire::low32(k)) << a.describe();
    }
    EXPECT_GE(sets, 1u) << "release published no head";
  }
}

TEST_F(L3Publication, FollowsL2ProgressObservedInSteps) {
  const uint64_t depth = layout().depth;
  uint64_t next_seq = 1;
  // L2 advances the output tail by `step` at once; L3 hands out each in order.
  auto follow = [&](uint64_t step) {
    Outputs(step, 0);
    for (uint64_t i = 0; i < step; ++i) {
      L3Message m;
      ASSERT_EQ(l3().try_peek(&m), L3Status::kOk) << "step " << step;
      EXPECT_EQ(m.seq, next_seq++);
      ASSERT_EQ(l3().release(m), L3Status::kOk);
    }
    ExpectHealthy("stepped progress");
  };
  {
    SPSQ_JUDGING("S3.CTR.2/step-one");
    ASSERT_NO_FATAL_FAILURE(follow(1));
  }
  {
    SPSQ_JUDGING("S3.CTR.2/step-depth", "W.CTR.2/full-depth", "S3.CTR.3/exact-depth");
    ASSERT_NO_FATAL_FAILURE(follow(depth));
  }
  {
    SPSQ_JUDGING("S3.CTR.2/step-mixed");
    ASSERT_NO_FATAL_FAILURE(follow(depth - 1));
    ASSERT_NO_FATAL_FAILURE(follow(1));
  }
  {
    SPSQ_JUDGING("S3.CTR.2/step-depth", "W.CTR.2/full-depth", "S3.CTR.3/exact-depth");
    ASSERT_NO_FATAL_FAILURE(follow(depth));
  }
  // The input head advanced by L2 by depth at once (from 0, then from depth),
  // then 1.
  {
    SPSQ_JUDGING("S3.CTR.2/head-steps", "W.CTR.2/full-depth", "S3.CTR.3/exact-depth");
    for (int round = 0; round < 3; ++round) {
      SPSQ_SETUP(FillInputRing());
      EXPECT_EQ(l3().try_enqueue(nullptr, 0), L3Status::kNoProgress);
      peer().drain_inputs();
    }
    ExpectHealthy("input head stepped by depth");
  }
  SPSQ_JUDGING("S3.CTR.2/head-steps");
  SPSQ_SETUP(FillInputRing());
  TakeOneInput();
  EXPECT_EQ(l3().try_enqueue(nullptr, 0), L3Status::kOk) << "one slot freed by a step of 1";
  ExpectHealthy("stepped progress");
}

TEST_F(L3Publication, ImpossibleCountersPoisonL3) {
  const int32_t depth = static_cast<int32_t>(layout().depth);
  auto tail = [&](int32_t raw) {
    Rebuild(QueueParams());
    Outputs(1);  // a valid message at index 0: only the counter can refuse
    peer().set_output_tail(raw);
    L3Message m;
    EXPECT_EQ(l3().try_peek(&m), L3Status::kFailed) << "output tail " << raw;
    ExpectPoisoned(wire::kInvalidDescriptor, "impossible output tail");
  };
  {
    SPSQ_JUDGING("S3.CTR.3/over-depth", "W.CTR.2/over-depth", "S4.POISON.5/l3-tail");
    tail(depth + 1);
  }
  {
    SPSQ_JUDGING("S3.CTR.3/minus-1", "W.CTR.2/negative", "S4.POISON.5/l3-tail");
    tail(-1);
  }
  {
    SPSQ_JUDGING("S3.CTR.3/int-min", "W.CTR.2/negative", "S4.POISON.5/l3-tail");
    tail(kMin);
  }
  {
    SPSQ_JUDGING("S3.CTR.3/int-max", "W.CTR.2/sign-edge", "S4.POISON.5/l3-tail");
    tail(kMax);
  }
  {
    SPSQ_JUDGING("S3.CTR.3/sign-edge", "W.CTR.2/sign-edge", "S4.POISON.5/l3-tail");
    tail(kMin + 1);
    tail(kMax - depth + 1);
  }
  // The input head L2 publishes, with the ring full so L3 must read it.
  auto head = [&](int32_t raw) {
    Rebuild(QueueParams());
    SPSQ_SETUP(FillInputRing());
    peer().set_input_head(raw);
    EXPECT_EQ(l3().try_enqueue(nullptr, 0), L3Status::kFailed) << "input head " << raw;
    ExpectPoisoned(wire::kInvalidDescriptor, "impossible input head");
  };
  {
    SPSQ_JUDGING("S3.CTR.3/head", "W.CTR.2/over-depth", "S4.POISON.5/l3-head");
    head(depth + 1);
  }
  {
    SPSQ_JUDGING("S3.CTR.3/head", "W.CTR.2/negative", "S4.POISON.5/l3-head");
    head(-1);
    head(kMin);
  }
  {
    SPSQ_JUDGING("S3.CTR.3/head", "W.CTR.2/sign-edge", "S4.POISON.5/l3-head");
    head(kMax);
  }
}

TEST_F(L3Publication, CountersMovingBackwardsOrJumpingAfterAWrapPoisonL3) {
  SPSQ_CLAUSES("S3.CTR.3/backwards", "S3.CTR.3/after-wrap", "W.CTR.2/negative",
               "W.CTR.2/over-depth");
  const uint64_t depth = layout().depth;
  const uint64_t seen = 2 * depth + 1;
  for (int64_t ahead : {static_cast<int64_t>(depth) + 1, int64_t{-1}}) {
    Rebuild(QueueParams());
    Outputs(1, 0);
    DequeueOutputs(1);
    for (uint64_t i = 1; i < seen; ++i) {
      Outputs(1, 0);
      DequeueOutputs(1);
    }
    Outputs(1, 0);
    peer().set_output_tail(
        wire::low32(static_cast<uint64_t>(static_cast<int64_t>(seen) + ahead)));
    L3Message m;
    EXPECT_EQ(l3().try_peek(&m), L3Status::kFailed) << "output tail " << ahead << " from "
                                                   << seen;
    ExpectPoisoned(wire::kInvalidDescriptor, "impossible output tail after a ring wrap");
  }
  // The input head moving backwards, with the ring full again.
  Rebuild(QueueParams());
  SPSQ_SETUP(FillInputRing());
  peer().drain_inputs();
  SPSQ_SETUP(FillInputRing());  // needed room: L3 read head == depth
  peer().set_input_head(static_cast<int32_t>(depth) - 1);
  EXPECT_EQ(l3().try_enqueue(nullptr, 0), L3Status::kFailed);
  ExpectPoisoned(wire::kInvalidDescriptor, "input head moved backwards");
}

TEST_F(L3Publication, SignalsSitOnTheirSlotsWithTheirWriters) {
  if (!l3().uses_view()) GTEST_SKIP() << l3().name() << " does not run on the harness view";
  // One walk that makes L3 touch every signal: publish inputs up to a full
  // ring, read the input head, consume one output, wait on the peer flag,
  // poison on a hostile tail.
  SPSQ_SETUP(FillInputRing());
  {
    SPSQ_JUDGING("S3.SIG.3/l3");
    EXPECT_EQ(l3().try_enqueue(nullptr, 0), L3Status::kNoProgress);  // reads the input head
  }
  Outputs(1, 24);
  const size_t mark = log().mark();
  L3Message m;
  std::vector<uint8_t> buf(24);
  {
    // The consumer uses the payload, into a buffer of exactly its size.
    SPSQ_JUDGING("S3.PUB.5/desc-payload");
    ASSERT_EQ(l3().try_peek(&m), L3Status::kOk);
    ASSERT_EQ(l3().read_into(m, buf.data(), buf.size()), L3Status::kOk) << l3().error().message;
    EXPECT_EQ(buf, Bytes(24, 0));
  }
  {
    const size_t tail_read = log().find([](const spsq_conf::Access& a) {
      return (a.kind == AccessKind::kTest || a.kind == AccessKind::kWait) && a.offset == 128;
    }, mark);
    const uint64_t slot = layout().output_slot(0);
    const size_t desc_read = log().find([slot](const spsq_conf::Access& a) {
      return a.kind == AccessKind::kRead && a.offset < slot + 32 && slot < a.offset + a.nbytes;
    }, mark);
    const uint64_t arena = layout().output_arena;
    const size_t payload_read = log().find([arena](const spsq_conf::Access& a) {
      return a.kind == AccessKind::kRead && a.offset < arena + 24 && arena < a.offset + a.nbytes;
    }, mark);
    {
      SPSQ_JUDGING("S3.PUB.5/tail-desc");
      ASSERT_NE(tail_read, npos) << log().dump(mark);
      ASSERT_NE(desc_read, npos) << log().dump(mark);
      EXPECT_LT(tail_read, desc_read);
    }
    {
      SPSQ_JUDGING("S3.PUB.5/desc-payload");
      ASSERT_NE(payload_read, npos) << "the payload was never made readable:\n"
                                    << log().dump(mark);
      EXPECT_LT(desc_read, payload_read) << "payload used before the descriptor was read";
    }
  }
  {
    SPSQ_JUDGING("S3.PUB.5/head-after-release");
    EXPECT_EQ(peer().counter(wire::kOutputHead), 0) << "head before release";
    ASSERT_EQ(l3().release(m), L3Status::kOk);
    EXPECT_EQ(peer().counter(wire::kOutputHead), 1);
  }
  L3Message wait;
  {
    SPSQ_JUDGING("S3.SIG.7/l3");
    EXPECT_EQ(l3().peek(1000, &wait), L3Status::kTimedOut);  // samples the peer flag
  }
  peer().set_output_tail(-1);
  {
    SPSQ_JUDGING("S3.SIG.6/l3");
    EXPECT_EQ(l3().try_peek(&wait), L3Status::kFailed);  // raises the initiator flag
  }
  bool touched[6] = {};
  for (const auto& a : log().entries()) {
    if (a.part != RegionMemory::kCounter || !a.is_shared_access()) continue;
    {
      SPSQ_JUDGING("S3.SIG.1/l3");
      ASSERT_EQ(a.offset % 64, 0u) << a.describe();
      ASSERT_LT(a.offset, 384u) << a.describe();
    }
    touched[a.offset / 64] = true;
    if (a.kind == AccessKind::kNotify) {
      SPSQ_JUDGING("W.FLAG.3/l3", "S3.SIG.3/l3", "S3.SIG.4/l3", "S3.SIG.7/l3");
      EXPECT_TRUE(a.offset == 0 || a.offset == 192 || a.offset == 256)
          << "L3 wrote an L2-owned signal: " << a.describe();
    }
  }
  {
    SPSQ_JUDGING("S3.SIG.2/l3");
    EXPECT_TRUE(touched[0]) << "S3.SIG.2: L3 publishes the input tail at 0";
  }
  {
    SPSQ_JUDGING("S3.SIG.3/l3");
    EXPECT_TRUE(touched[1]) << "S3.SIG.3: L3 reads the input head at 64";
  }
  {
    SPSQ_JUDGING("S3.SIG.4/l3");
    EXPECT_TRUE(touched[2]) << "S3.SIG.4: L3 reads the output tail at 128";
  }
  {
    SPSQ_JUDGING("S3.SIG.5/l3");
    EXPECT_TRUE(touched[3]) << "S3.SIG.5: L3 publishes the output head at 192";
  }
  {
    SPSQ_JUDGING("S3.SIG.6/l3");
    EXPECT_TRUE(touched[4]) << "S3.SIG.6: L3 raises its flag at 256";
  }
  {
    SPSQ_JUDGING("S3.SIG.7/l3");
    EXPECT_TRUE(touched[5]) << "S3.SIG.7: L3 samples the peer flag at 320";
  }
}

// ---------------------------------------------------------- remote abort

TEST_F(L3Publication, RemoteAbortIsReportedWithoutRaisingTheInitiatorFlag) {
  auto raised = [&](int32_t flag) {
    Rebuild(QueueParams());
    peer().set_peer_flag(flag);
    const uint64_t t0 = VirtualClock::peek();
    L3Message m;
    // These judge the caller's block: the flag value's case and the report.
    EXPECT_EQ(l3().peek(2000, &m), L3Status::kFailed) << "flag " << flag;
    EXPECT_LE(VirtualClock::peek() - t0, 2000u) << "ended past the deadline";
    EXPECT_FALSE(l3().live());
    ExpectKind(wire::kRemoteAborted, "peek, flag " + std::to_string(flag));
    {
      SPSQ_JUDGING("S4.POISON.13/l3");
      EXPECT_EQ(l3_flag(), 0);
    }
    ExpectRejectsEverything("after remote abort");
    SPSQ_JUDGING("S4.POISON.13/l3");
    EXPECT_EQ(l3_flag(), 0);
  };
  {
    SPSQ_JUDGING("W.FLAG.2/one", "S3.TO.7/peek", "S4.POISON.12/l3-peek");
    raised(1);
  }
  {
    SPSQ_JUDGING("W.FLAG.2/two", "S3.TO.7/peek", "S4.POISON.12/l3-peek");
    raised(2);
  }
  {
    SPSQ_JUDGING("W.FLAG.2/int-max", "S3.TO.7/peek", "S4.POISON.12/l3-peek");
    raised(kMax);
  }
}

TEST_F(L3Publication, PeerFlagBelowOneIsNotRaised) {
  // `flag_case` joins each call's block: a flag taken as raised FAILs its
  // value's case, the call's timeout case and S3.TO.7/down together.
  auto not_raised = [&](int32_t flag, const char* flag_case) {
    Rebuild(QueueParams());
    peer().set_peer_flag(flag);
    {
      SPSQ_JUDGING(flag_case, "S3.TO.7/down", "S3.TO.6/peek");
      L3Message m;
      EXPECT_EQ(l3().peek(2000, &m), L3Status::kTimedOut) << "flag " << flag << " is not raised";
      ExpectHealthy(("peek, L2 flag " + std::to_string(flag)).c_str());
    }
    SPSQ_JUDGING(flag_case, "S3.TO.7/down", "S3.TO.6/enqueue-ring");
    SPSQ_SETUP(FillInputRing());
    EXPECT_EQ(l3().enqueue(nullptr, 0, 2000), L3Status::kTimedOut) << "flag " << flag;
    ExpectHealthy(("enqueue, L2 flag " + std::to_string(flag)).c_str());
  };
  {
    SPSQ_JUDGING("W.FLAG.2/zero", "S3.TO.7/down");
    not_raised(0, "W.FLAG.2/zero");
  }
  {
    SPSQ_JUDGING("W.FLAG.2/minus-1", "S3.TO.7/down");
    not_raised(-1, "W.FLAG.2/minus-1");
  }
  {
    SPSQ_JUDGING("W.FLAG.2/int-min", "S3.TO.7/down");
    not_raised(kMin, "W.FLAG.2/int-min");
  }
}

// Every blocking L3 call that expires with the L2 flag up reports remote abort.
TEST_F(L3Publication, EveryExpiredBlockingCallReportsRemoteAbort) {
  SPSQ_CLAUSES("S3.TO.7/enqueue", "S3.TO.7/dequeue", "S3.TO.7/stop", "S4.POISON.12",
               "S4.POISON.13");
  const auto b = Bytes(16, 1);
  std::vector<uint8_t> buf(64);
  L3Message m;
  for (int which = 0; which < 4; ++which) {
    Rebuild(QueueParams());
    const char* what = "";
    L3Status s = L3Status::kOk;
    if (which == 0) {
      what = "enqueue on a full ring";
      SPSQ_SETUP(FillInputRing());
      peer().set_peer_flag(1);
      s = l3().enqueue(b.data(), b.size(), 1500);
    } else if (which == 1) {
      what = "enqueue on a full arena";
      FillInputArena();
      peer().set_peer_flag(1);
      s = l3().enqueue(b.data(), b.size(), 1500);
    } else if (which == 2) {
      what = "dequeue_into on an empty queue";
      peer().set_peer_flag(1);
      s = l3().dequeue_into(buf.data(), buf.size(), 1500, &m);
    } else {
      what = "request_stop with no room";
      SPSQ_SETUP(FillInputRing());
      peer().set_peer_flag(1);
      s = l3().request_stop(1500);
    }
    EXPECT_EQ(s, L3Status::kFailed) << what << ": " << l3_status_name(s);
    EXPECT_FALSE(l3().live()) << what;
    ExpectKind(wire::kRemoteAborted, what);
    EXPECT_EQ(l3_flag(), 0) << what << ": remote abort must not raise the initiator flag";
  }
}

// The flag rises in the middle of a positive wait: remote abort is reported
// by the deadline, and never before the flag rose. Every blocking call, on
// each of its no-room paths.
TEST_F(L3Publication, APeerFlagRaisedDuringTheWaitIsReportedByTheDeadline) {
  SPSQ_CLAUSES("S3.TO.7/mid-wait", "S4.POISON.12", "S4.POISON.13");
  enum class Call { kPeek, kEnqueueRing, kEnqueueArena, kDequeue, kStop };
  const struct {
    const char* name;
    Call call;
    uint64_t rise, timeout;  // the flag rises at +rise of a `timeout` ns wait
  } cases[] = {
      {"peek on an empty queue", Call::kPeek, 500, 1000},
      {"enqueue on a full ring", Call::kEnqueueRing, 700, 2000},
      {"enqueue on a full arena", Call::kEnqueueArena, 400, 1500},
      {"dequeue_into on an empty queue", Call::kDequeue, 600, 1200},
      {"request_stop with no room", Call::kStop, 300, 900},
  };
  const auto b = Bytes(16, 2);
  for (const auto& c : cases) {
    Rebuild(QueueParams());
    if (c.call == Call::kEnqueueRing || c.call == Call::kStop) {
      SPSQ_SETUP(FillInputRing());
    }
    if (c.call == Call::kEnqueueArena) FillInputArena();
    const uint64_t t0 = VirtualClock::peek();
    VirtualClock::after(c.rise, [this] { peer().set_peer_flag(1); });
    std::vector<uint8_t> buf(64);
    L3Message m;
    L3Status s = L3Status::kOk;
    switch (c.call) {
      case Call::kPeek: s = l3().peek(c.timeout, &m); break;
      case Call::kEnqueueRing:
      case Call::kEnqueueArena: s = l3().enqueue(b.data(), b.size(), c.timeout); break;
      case Call::kDequeue: s = l3().dequeue_into(buf.data(), buf.size(), c.timeout, &m); break;
      case Call::kStop: s = l3().request_stop(c.timeout); break;
    }
    const uint64_t took = VirtualClock::peek() - t0;
    EXPECT_EQ(s, L3Status::kFailed) << c.name << ": flag raised at +" << c.rise << " of "
                                    << c.timeout << " ns: " << l3_status_name(s);
    EXPECT_FALSE(l3().live()) << c.name;
    ExpectKind(wire::kRemoteAborted, c.name);
    EXPECT_GE(took, c.rise) << c.name << ": remote abort before the flag rose";
    EXPECT_LE(took, c.timeout) << c.name << ": ended past its deadline";
    EXPECT_EQ(l3_flag(), 0) << c.name << ": remote abort must not raise the initiator flag";
  }
}

}  // namespace
}  // namespace spsq_conf
