// Spec section 3, "Publication, Counters And Timeouts", from the L3 side: the
// producer sequence, the signal slots and their writers, counter checks,
// timeouts and the remote abort.
#include <limits>
#include <vector>

#include "conformance/l3/l3_fixture.h"

namespace spsq_conf {
namespace {

constexpr int32_t kMin = std::numeric_limits<int32_t>::min();

TEST_F(L3Suite, EnqueueTimesOutWithoutPoison) {
  SPSQ_CLAUSES("S3.TO.6", "S4.NOPROG.4");
  for (uint64_t i = 0; i < layout().depth; ++i) ASSERT_EQ(l3().try_enqueue(nullptr, 0), L3Status::kOk);
  const uint64_t t0 = VirtualClock::peek();
  EXPECT_EQ(l3().enqueue(nullptr, 0, 5000), L3Status::kTimedOut);
  EXPECT_GE(VirtualClock::peek() - t0, 5000u);
  ExpectHealthy("enqueue timed out");
  L3Message m;
  EXPECT_EQ(l3().peek(3000, &m), L3Status::kTimedOut);
  ExpectHealthy("peek timed out");
}

TEST_F(L3Suite, BlockingCallsSucceedWhenL2ActsInTime) {
  SPSQ_CLAUSES("S0.USE.1", "W.VIEW.3");
  VirtualClock::after(400, [this] { Outputs(1); });
  L3Message m;
  ASSERT_EQ(l3().peek(5000, &m), L3Status::kOk);
  EXPECT_EQ(m.seq, 1u);
  ASSERT_EQ(l3().release(m), L3Status::kOk);
  for (uint64_t i = 0; i < layout().depth; ++i) ASSERT_EQ(l3().try_enqueue(nullptr, 0), L3Status::kOk);
  VirtualClock::after(400, [this] { peer().drain_inputs(); });
  const auto b = Bytes(16, 3);
  EXPECT_EQ(l3().enqueue(b.data(), b.size(), 5000), L3Status::kOk);
}

TEST_F(L3Suite, ProducerSequencePayloadFieldsSeqTail) {
  SPSQ_CLAUSES("S3.PUB.1", "S3.PUB.2", "W.ORDER.1", "S3.CTR.1", "W.CTR.1");
  if (!l3().uses_view()) GTEST_SKIP() << l3().name() << " does not run on the harness view";
  const auto b = Bytes(24, 7);
  const size_t mark = log().mark();
  ASSERT_EQ(l3().try_enqueue(b.data(), b.size()), L3Status::kOk);
  const uint64_t slot = layout().input_slot(0);
  const uint64_t off = layout().input_arena;
  size_t payload = AccessLog::npos, fields = AccessLog::npos, seq = AccessLog::npos,
         tail = AccessLog::npos;
  for (size_t i = mark; i < log().size(); ++i) {
    const auto& a = log()[i];
    if (a.kind == AccessKind::kWrite && a.ok) {
      if (payload == AccessLog::npos && a.writes_payload(off, 24)) payload = i;
      if (fields == AccessLog::npos && a.offset < slot + 32 && a.offset + a.nbytes > slot + 8) fields = i;
      if (seq == AccessLog::npos && a.offset < slot + 8 && a.offset + a.nbytes > slot) {
        seq = i;
        EXPECT_LE(a.offset + a.nbytes, slot + 8) << "seq written together with bytes 8..31";
      }
    }
    if (tail == AccessLog::npos && a.kind == AccessKind::kNotify && a.offset == wire::kInputTail) tail = i;
  }
  const std::string trace = log().dump(mark);
  ASSERT_NE(payload, AccessLog::npos) << trace;
  ASSERT_NE(fields, AccessLog::npos) << trace;
  ASSERT_NE(seq, AccessLog::npos) << trace;
  ASSERT_NE(tail, AccessLog::npos) << trace;
  EXPECT_LT(payload, fields) << trace;
  EXPECT_LT(fields, seq) << trace;
  EXPECT_LT(seq, tail) << trace;
  EXPECT_EQ(peer().counter(wire::kInputTail), 1);
}

TEST_F(L3Suite, ImpossibleCountersPoisonL3) {
  SPSQ_CLAUSES("S3.CTR.3", "W.CTR.2", "S4.POISON.5");
  const int32_t depth = static_cast<int32_t>(layout().depth);
  for (int32_t raw : {depth + 1, -1, kMin, std::numeric_limits<int32_t>::max()}) {
    Rebuild(QueueParams());
    Outputs(1);  // a valid message at index 0: only the counter can refuse
    peer().set_output_tail(raw);
    L3Message m;
    EXPECT_EQ(l3().try_peek(&m), L3Status::kFailed) << "output tail " << raw;
    ExpectPoisoned(wire::kInvalidDescriptor, "impossible output tail");
  }
  // The input head L2 publishes: more than L3 published, with the ring full.
  Rebuild(QueueParams());
  for (int32_t i = 0; i < depth; ++i) ASSERT_EQ(l3().try_enqueue(nullptr, 0), L3Status::kOk);
  peer().set_input_head(depth + 1);
  EXPECT_EQ(l3().try_enqueue(nullptr, 0), L3Status::kFailed);
  ExpectPoisoned(wire::kInvalidDescriptor, "impossible input head");
}

TEST_F(L3Suite, SignalsSitOnTheirSlotsWithTheirWriters) {
  SPSQ_CLAUSES("S3.SIG.2", "S3.SIG.3", "S3.SIG.4", "S3.SIG.5", "S3.SIG.6", "S3.SIG.7",
               "S3.PUB.5", "S2.ARENA.1");
  if (!l3().uses_view()) GTEST_SKIP() << l3().name() << " does not run on the harness view";
  for (uint64_t i = 0; i < layout().depth; ++i) ASSERT_EQ(l3().try_enqueue(nullptr, 0), L3Status::kOk);
  EXPECT_EQ(l3().try_enqueue(nullptr, 0), L3Status::kNoProgress);  // reads the input head
  Outputs(1);
  const size_t mark = log().mark();
  L3Message m;
  ASSERT_EQ(l3().try_peek(&m), L3Status::kOk);
  const size_t tail_read = log().find([](const spsq_conf::Access& a) {
    return (a.kind == AccessKind::kTest || a.kind == AccessKind::kWait) && a.offset == 128;
  }, mark);
  const uint64_t slot = layout().output_slot(0);
  const size_t desc_read = log().find([slot](const spsq_conf::Access& a) {
    return a.kind == AccessKind::kRead && a.offset <= slot && a.offset + a.nbytes >= slot + 32;
  }, mark);
  ASSERT_NE(tail_read, AccessLog::npos) << log().dump(mark);
  ASSERT_NE(desc_read, AccessLog::npos) << log().dump(mark);
  EXPECT_LT(tail_read, desc_read);
  EXPECT_EQ(peer().counter(wire::kOutputHead), 0) << "head before release";
  ASSERT_EQ(l3().release(m), L3Status::kOk);
  EXPECT_EQ(peer().counter(wire::kOutputHead), 1);
  L3Message wait;
  EXPECT_EQ(l3().peek(1000, &wait), L3Status::kTimedOut);  // samples the peer flag
  peer().set_output_tail(-1);
  EXPECT_EQ(l3().try_peek(&wait), L3Status::kFailed);  // raises the initiator flag
  bool touched[6] = {};
  for (const auto& a : log().entries()) {
    if (a.part != RegionMemory::kCounter || !a.is_shared_access()) continue;
    ASSERT_EQ(a.offset % 64, 0u);
    touched[a.offset / 64] = true;
  }
  EXPECT_TRUE(touched[0]) << "S3.SIG.2: L3 publishes the input tail at 0";
  EXPECT_TRUE(touched[1]) << "S3.SIG.3: L3 reads the input head at 64";
  EXPECT_TRUE(touched[2]) << "S3.SIG.4: L3 reads the output tail at 128";
  EXPECT_TRUE(touched[3]) << "S3.SIG.5: L3 publishes the output head at 192";
  EXPECT_TRUE(touched[4]) << "S3.SIG.6: L3 raises its flag at 256";
  EXPECT_TRUE(touched[5]) << "S3.SIG.7: L3 samples the peer flag at 320";
}

TEST_F(L3Suite, RemoteAbortIsReportedWithoutRaisingTheInitiatorFlag) {
  SPSQ_CLAUSES("S3.TO.7", "S4.POISON.12", "S4.POISON.13", "W.FLAG.2", "S4.POISON.14",
               "S4.POISON.10");
  for (int32_t flag : {1, 7}) {
    Rebuild(QueueParams());
    peer().set_peer_flag(flag);
    L3Message m;
    EXPECT_EQ(l3().peek(2000, &m), L3Status::kFailed);
    EXPECT_FALSE(l3().live());
    EXPECT_EQ(l3().error().kind, wire::kRemoteAborted) << l3().error().message;
    EXPECT_EQ(l3_flag(), 0);
    ExpectRejectsEverything("after remote abort");
    EXPECT_EQ(l3_flag(), 0);
  }
  Rebuild(QueueParams());
  peer().set_peer_flag(-1);
  L3Message m;
  EXPECT_EQ(l3().peek(2000, &m), L3Status::kTimedOut) << "flag -1 is not raised";
  ExpectHealthy("flag -1");
}

}  // namespace
}  // namespace spsq_conf
