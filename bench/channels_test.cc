// Correctness of what the benchmarks time, never its speed: every channel
// delivers every message once, in order and intact (stamps and their sum),
// across ring and arena wrap, and a channel that loses or corrupts a message
// is reported rather than timed.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "bench/anchor_boost.h"
#include "bench/anchor_cacheline.h"
#include "bench/anchor_moodycamel.h"
#include "bench/anchor_ring.h"
#include "bench/drivers.h"
#include "bench/spsq_channels.h"
#include "bench/spsq_pair.h"
#include "bench/stamp.h"

namespace spsq_bench {
namespace {

// Small enough to wrap: 8 descriptors, 64 KiB arenas (4 messages of 16 KiB).
constexpr SpsqShape kShape{8, 64 * 1024, 64 * 1024};
constexpr Placement kUnpinned{};
constexpr uint64_t kMessages = 300;  // > 8 ring wraps for every size below

template <class Tx, class Rx>
void expect_stream_intact(Tx& tx, Rx& rx, uint64_t nbytes) {
  StreamRun<Tx, Rx> run(tx, rx, nbytes, kUnpinned);
  ASSERT_TRUE(run.send_batch(kMessages / 3));
  ASSERT_TRUE(run.send_batch(kMessages - kMessages / 3));
  const RunResult r = run.finish();
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.sent, kMessages);
  EXPECT_EQ(r.received, kMessages);
  EXPECT_EQ(r.stamp_sum, kMessages * (kMessages - 1) / 2);
}

template <class ReqTx, class ReqRx, class RespTx, class RespRx>
void expect_round_trips_intact(ReqTx& req_tx, ReqRx& req_rx, RespTx& resp_tx, RespRx& resp_rx,
                               uint64_t nbytes) {
  RoundTripRun<ReqTx, ReqRx, RespTx, RespRx> run(req_tx, req_rx, resp_tx, resp_rx, nbytes,
                                                  kUnpinned);
  for (uint64_t i = 0; i < kMessages; ++i) ASSERT_TRUE(run.round_trip()) << "round trip " << i;
  const RunResult r = run.finish();
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.received, kMessages);
  EXPECT_EQ(r.stamp_sum, kMessages * (kMessages - 1) / 2);
}

TEST(StampChecker, AcceptsInOrderAndNamesTheFirstBadMessage) {
  uint8_t msg[64] = {};
  StampChecker c;
  stamp(msg, sizeof(msg), 0);
  c.check(msg, sizeof(msg), sizeof(msg));
  stamp(msg, sizeof(msg), 1);
  c.check(msg, sizeof(msg), sizeof(msg));
  EXPECT_TRUE(c.ok());
  EXPECT_EQ(c.sum(), 1u);
  stamp(msg, sizeof(msg), 3);  // index 2 lost
  c.check(msg, sizeof(msg), sizeof(msg));
  EXPECT_FALSE(c.ok());
  EXPECT_NE(std::string(c.why()).find("message 2"), std::string::npos) << c.why();
}

TEST(StampChecker, CatchesATornPayloadAndAWrongSize) {
  uint8_t msg[64] = {};
  stamp(msg, sizeof(msg), 0);
  msg[63] = 0xFF;  // tail stamp torn
  StampChecker torn;
  torn.check(msg, sizeof(msg), sizeof(msg));
  EXPECT_FALSE(torn.ok());
  stamp(msg, sizeof(msg), 0);
  StampChecker short_msg;
  short_msg.check(msg, 32, sizeof(msg));
  EXPECT_FALSE(short_msg.ok());
  EXPECT_NE(std::string(short_msg.why()).find("32 bytes (want 64)"), std::string::npos);
}

// A receiver that skips every 10th message: the run must say so.
class LossyRingReceiver {
 public:
  LossyRingReceiver(PaddedRing& ring, uint64_t nbytes) : inner_(ring, nbytes), scratch_(nbytes) {}
  uint64_t try_recv(StampChecker& checker) {
    if (++calls_ % 10 == 0) {
      StampChecker ignore;
      return inner_.try_recv(ignore);
    }
    return inner_.try_recv(checker);
  }
  bool live() const { return true; }
  std::string error() const { return {}; }

 private:
  RingReceiver inner_;
  AlignedBuffer scratch_;
  uint64_t calls_ = 0;
};

TEST(StreamRun, ReportsALossyChannel) {
  PaddedRing ring(8, 64);
  RingSender tx(ring, 64);
  LossyRingReceiver rx(ring, 64);
  StreamRun<RingSender, LossyRingReceiver> run(tx, rx, 64, kUnpinned);
  // The batch may fail early (the peer gives up) or complete; either way
  // finish() must not call the run intact.
  run.send_batch(100);
  const RunResult r = run.finish();
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.error.empty());
}

TEST(SpsqChannels, StreamL3ToL2DeliversEverything) {
  for (uint64_t n : {8u, 64u, 4096u, 16384u}) {
    SCOPED_TRACE(n);
    SpsqPair<1> q1(kShape);
    ASSERT_TRUE(q1.ok()) << q1.error();
    SpsqL3Sender<1> tx1(q1, n);
    SpsqL2Receiver<1> rx1(q1, n);
    expect_stream_intact(tx1, rx1, n);
    EXPECT_EQ(q1.error(), "");

    SpsqPair<4> q4(kShape);
    ASSERT_TRUE(q4.ok()) << q4.error();
    SpsqL3Sender<4> tx4(q4, n);
    SpsqL2Receiver<4> rx4(q4, n);
    expect_stream_intact(tx4, rx4, n);
    EXPECT_EQ(q4.error(), "");
  }
}

TEST(SpsqChannels, StreamL2ToL3DeliversEverything) {
  for (uint64_t n : {8u, 64u, 4096u, 16384u}) {
    SCOPED_TRACE(n);
    SpsqPair<4> q(kShape);
    ASSERT_TRUE(q.ok()) << q.error();
    SpsqL2Sender<4> tx(q, n);
    SpsqL3Receiver<4> rx(q, n);
    expect_stream_intact(tx, rx, n);
    EXPECT_EQ(q.error(), "");
  }
}

TEST(SpsqChannels, RoundTripsComeBackIntact) {
  for (uint64_t n : {64u, 4096u}) {
    SCOPED_TRACE(n);
    SpsqPair<1> q(kShape);
    ASSERT_TRUE(q.ok()) << q.error();
    SpsqL3Sender<1> req_tx(q, n);
    SpsqL2Receiver<1> req_rx(q, n);
    SpsqL2Sender<1> resp_tx(q, n);
    SpsqL3Receiver<1> resp_rx(q, n);
    expect_round_trips_intact(req_tx, req_rx, resp_tx, resp_rx, n);
    EXPECT_EQ(q.error(), "");
  }
}

TEST(SpsqChannels, AMessageLargerThanTheArenaIsReportedNotTimed) {
  SpsqPair<1> q(kShape);
  ASSERT_TRUE(q.ok());
  const uint64_t too_big = kShape.input_arena_bytes + 64;
  SpsqL3Sender<1> tx(q, too_big);
  // It can never be reserved; a run must not claim it was sent.
  EXPECT_FALSE(tx.try_send());
  EXPECT_TRUE(tx.live());  // ordinary refusal, not poison
}

TEST(Anchors, StreamsDeliverEverything) {
  BoostQueue<64> bq(8);
  BoostSender<64> btx(bq);
  BoostReceiver<64> brx(bq);
  expect_stream_intact(btx, brx, 64);

  MoodyQueue<4096> mq(8);
  MoodySender<4096> mtx(mq);
  MoodyReceiver<4096> mrx(mq);
  expect_stream_intact(mtx, mrx, 4096);

  PaddedRing ring(8, 8);
  RingSender rtx(ring, 8);
  RingReceiver rrx(ring, 8);
  expect_stream_intact(rtx, rrx, 8);
}

TEST(Anchors, RoundTripsComeBackIntact) {
  BoostQueue<64> breq(8), bresp(8);
  BoostSender<64> a(breq);
  BoostReceiver<64> b(breq);
  BoostSender<64> c(bresp);
  BoostReceiver<64> d(bresp);
  expect_round_trips_intact(a, b, c, d, 64);

  PaddedRing rreq(8, 4096), rresp(8, 4096);
  RingSender e(rreq, 4096);
  RingReceiver f(rreq, 4096);
  RingSender g(rresp, 4096);
  RingReceiver h(rresp, 4096);
  expect_round_trips_intact(e, f, g, h, 4096);
}

TEST(Anchors, CacheLinePingPongAnswersEveryPing) {
  CacheLinePingPong line;
  uint64_t answered = 0;
  std::thread peer([&] { answered = line.serve(); });
  for (uint64_t i = 0; i < kMessages; ++i) line.ping(i);
  line.stop();
  peer.join();
  EXPECT_EQ(answered, kMessages);
}

}  // namespace
}  // namespace spsq_bench
