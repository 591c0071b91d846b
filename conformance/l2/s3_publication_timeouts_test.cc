// Spec section 3, "Publication And Timeouts", from the L2 side: signal slots,
// 32-bit counters and their reconstruction, the producer sequence as the
// recording view saw it, the consumer order, and timeouts on the virtual
// clock.
#include <cstring>
#include <limits>
#include <vector>

#include "conformance/l2/l2_fixture.h"

namespace spsq_conf {
namespace {

constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax = std::numeric_limits<int32_t>::max();

class Publication : public L2Test {
 protected:
  bool IsNotify(const spsq_conf::Access& a, uint64_t offset) {
    return a.kind == AccessKind::kNotify && a.ok && a.offset == offset;
  }
};

TEST_F(Publication, SignalsSitOnTheirSlotsWithTheirWriters) {
  SPSQ_CLAUSES("S3.SIG.1", "S3.SIG.2", "S3.SIG.3", "S3.SIG.4", "S3.SIG.5", "S3.SIG.6",
               "S3.SIG.7", "W.FLAG.3", "S0.USE.1");
  // Duplex traffic, a full output ring (forces a head read), a timed-out wait
  // (samples the initiator flag), then a poison (raises the L2 flag).
  for (uint64_t i = 0; i < layout().depth; ++i) {
    ASSERT_EQ(peer().enqueue_data(Bytes(8, static_cast<uint8_t>(i))), ScriptedL3::Enqueue::kOk);
    Handle h{};
    ASSERT_TRUE(try_peek(h));
    ASSERT_TRUE(send(wire::kData, HandleBytes(h)));
    ASSERT_TRUE(release(h));
  }
  Reservation r{};
  EXPECT_FALSE(reserve(8, 1000, r));
  peer().publish_raw(wire::Descriptor{1, wire::kData, 0, 0});  // seq 1 again at index depth
  Handle h{};
  EXPECT_FALSE(try_peek(h));
  ExpectPoisoned(wire::kInvalidDescriptor, "replayed seq");
  std::vector<bool> touched(6, false);
  for (const auto& a : log().entries()) {
    if (a.part != RegionMemory::kCounter || !a.is_shared_access()) continue;
    ASSERT_EQ(a.offset % 64, 0u) << a.describe();
    ASSERT_LT(a.offset, 384u) << a.describe();
    touched[a.offset / 64] = true;
    if (a.kind == AccessKind::kNotify) {
      EXPECT_TRUE(a.offset == 64 || a.offset == 128 || a.offset == 320)
          << "L2 wrote an L3-owned signal: " << a.describe();
    }
  }
  EXPECT_TRUE(touched[0]) << "S3.SIG.2: L2 never read the input tail at offset 0";
  EXPECT_TRUE(touched[1]) << "S3.SIG.3: L2 never published the input head at offset 64";
  EXPECT_TRUE(touched[2]) << "S3.SIG.4: L2 never published the output tail at offset 128";
  EXPECT_TRUE(touched[3]) << "S3.SIG.5: L2 never read the output head at offset 192";
  EXPECT_TRUE(touched[4]) << "S3.SIG.6: L2 never sampled the initiator flag at offset 256";
  EXPECT_TRUE(touched[5]) << "S3.SIG.7: L2 never raised its flag at offset 320";
}

TEST_F(Publication, CountersHoldTheLow32BitsOfTheCounts) {
  SPSQ_CLAUSES("S3.CTR.1", "W.CTR.1");
  const uint64_t depth = layout().depth;
  for (uint64_t k = 1; k <= 3 * depth; ++k) {
    ASSERT_TRUE(send(wire::kData, Bytes(2, 1)));
    EXPECT_EQ(peer().counter(wire::kOutputTail), wire::low32(k)) << "after " << k << " outputs";
    peer().drain_outputs();
    ASSERT_EQ(peer().enqueue_data(Bytes(2, 2)), ScriptedL3::Enqueue::kOk);
    Handle h{};
    ASSERT_TRUE(try_peek(h));
    ASSERT_TRUE(release(h));
    EXPECT_EQ(peer().counter(wire::kInputHead), wire::low32(k)) << "after " << k << " releases";
  }
  for (const auto& a : log().entries()) {
    if (a.kind == AccessKind::kNotify && (a.offset == 64 || a.offset == 128)) {
      EXPECT_EQ(a.op, 0u) << "head/tail updates are plain Sets: " << a.describe();
    }
  }
}

TEST_F(Publication, FollowsPeerProgressObservedInSteps) {
  SPSQ_CLAUSES("S3.CTR.2", "W.CTR.2");
  const uint64_t depth = layout().depth;
  uint64_t next_seq = 1;
  // Steps of 1, then depth at once, then depth - 1 and 1.
  for (uint64_t step : {uint64_t{1}, depth, depth - 1, uint64_t{1}}) {
    for (uint64_t i = 0; i < step; ++i) {
      ASSERT_EQ(peer().enqueue(wire::kData, nullptr, 0), ScriptedL3::Enqueue::kOk);
    }
    for (uint64_t i = 0; i < step; ++i) {
      Handle h{};
      ASSERT_TRUE(try_peek(h)) << "step " << step;
      EXPECT_EQ(Api::seq(h), next_seq++);
      ASSERT_TRUE(release(h));
    }
  }
  // Output head advanced by L3 in steps, with the ring full each time.
  for (uint64_t round = 0; round < 3; ++round) {
    for (uint64_t i = 0; i < depth; ++i) ASSERT_TRUE(send(wire::kData, {}));
    peer().drain_outputs();
  }
  ExpectHealthy("stepped progress");
}

struct HostileValue {
  const char* name;
  int32_t value;
};

TEST_F(Publication, ImpossibleInputTailPoisons) {
  SPSQ_CLAUSES("S3.CTR.3", "W.CTR.2", "S4.POISON.5");
  const int32_t depth = static_cast<int32_t>(layout().depth);
  const HostileValue values[] = {{"depth + 1", depth + 1}, {"-1", -1},
                                 {"INT32_MIN", kMin},      {"INT32_MAX", kMax},
                                 {"INT32_MIN + 1", kMin + 1}, {"2^31 - depth", kMax - depth + 1}};
  for (const HostileValue& v : values) {
    Rebuild(q().params());
    // A valid message sits at index 0, so only the counter check can refuse.
    ASSERT_EQ(peer().enqueue_data(Bytes(4, 1)), ScriptedL3::Enqueue::kOk);
    peer().set_input_tail(v.value);
    Handle h{};
    EXPECT_FALSE(try_peek(h)) << v.name << ": a message was handed out under an impossible tail";
    ExpectPoisoned(wire::kInvalidDescriptor, v.name);
  }
}

TEST_F(Publication, InputTailMovingBackwardsPoisons) {
  SPSQ_CLAUSES("S3.CTR.3", "W.CTR.2");
  for (int i = 0; i < 3; ++i) ASSERT_EQ(peer().enqueue(wire::kData, nullptr, 0), ScriptedL3::Enqueue::kOk);
  Handle h{};
  ASSERT_TRUE(try_peek(h));
  ASSERT_TRUE(release(h));
  ASSERT_TRUE(try_peek(h));
  ASSERT_TRUE(release(h));
  peer().set_input_tail(1);  // L2 has seen 3
  // The endpoint may notice at its next tail read; drain what it holds first.
  bool poisoned = false;
  for (int i = 0; i < 3 && !poisoned; ++i) {
    if (try_peek(h)) {
      ASSERT_TRUE(release(h));
    } else {
      poisoned = !ep().live();
    }
  }
  ExpectPoisoned(wire::kInvalidDescriptor, "tail 3 -> 1");
}

TEST_F(Publication, TailExactlyDepthAheadIsAccepted) {
  SPSQ_CLAUSES("S3.CTR.3", "W.CTR.2");
  for (uint64_t i = 0; i < layout().depth; ++i) {
    ASSERT_EQ(peer().enqueue(wire::kData, nullptr, 0), ScriptedL3::Enqueue::kOk);
  }
  Handle h{};
  ASSERT_TRUE(try_peek(h)) << "delta == depth is legal";
  ExpectHealthy("delta == depth");
}

TEST_F(Publication, ImpossibleOutputHeadPoisons) {
  SPSQ_CLAUSES("S3.CTR.3", "W.CTR.2", "S4.POISON.5");
  const int32_t depth = static_cast<int32_t>(layout().depth);
  const HostileValue values[] = {{"published + 1", depth + 1}, {"-1", -1},
                                 {"INT32_MIN", kMin},          {"INT32_MAX", kMax}};
  for (const HostileValue& v : values) {
    Rebuild(q().params());
    for (int32_t i = 0; i < depth; ++i) ASSERT_TRUE(send(wire::kData, {}));
    peer().set_output_head(v.value);  // the ring is full: L2 must read the head
    Reservation r{};
    EXPECT_FALSE(try_reserve(0, r)) << v.name;
    ExpectPoisoned(wire::kInvalidDescriptor, v.name);
  }
}

// Finds the producer-sequence steps of one publish in the log.
struct PublishSteps {
  size_t payload = AccessLog::npos;  // write completing the payload span
  size_t fields = AccessLog::npos;   // first write covering bytes 8..31
  size_t seq = AccessLog::npos;      // write covering bytes 0..7
  size_t tail = AccessLog::npos;     // notify of the output tail
  bool seq_with_fields = false;      // one write covered 0..31 at once
};

PublishSteps FindSteps(const AccessLog& log, size_t from, uint64_t slot, uint64_t off,
                       uint64_t n) {
  PublishSteps s;
  if (n != 0) s.payload = log.written_by(from, off, n);
  for (size_t i = from; i < log.size(); ++i) {
    const auto& a = log[i];
    if (a.kind == AccessKind::kWrite && a.ok) {
      const bool body = a.offset < slot + 32 && a.offset + a.nbytes > slot + 8;
      const bool seq = a.offset < slot + 8 && a.offset + a.nbytes > slot;
      if (body && s.fields == AccessLog::npos) s.fields = i;
      if (seq && s.seq == AccessLog::npos) {
        s.seq = i;
        s.seq_with_fields = body;
      }
    }
    if (a.kind == AccessKind::kNotify && a.ok && a.offset == wire::kOutputTail &&
        s.tail == AccessLog::npos) {
      s.tail = i;
    }
  }
  return s;
}

TEST_F(Publication, ProducerSequencePayloadFieldsSeqTail) {
  SPSQ_CLAUSES("S3.PUB.1", "S3.PUB.2", "W.ORDER.1");
  for (uint64_t n : {uint64_t{40}, uint64_t{0}, uint64_t{256}}) {
    Rebuild(q().params());
    Reservation r{};
    ASSERT_TRUE(try_reserve(n, r));
    const auto bytes = Bytes(n, 5);
    q().l2_store(Api::payload(r), bytes.data(), n);
    const uint64_t off = n ? static_cast<uint64_t>(Api::payload(r) - q().memory().payload()) : 0;
    const size_t mark = log().mark();
    ASSERT_TRUE(publish(r, wire::kData));
    const PublishSteps s = FindSteps(log(), mark, layout().output_slot(0), off, n);
    const std::string trace = log().dump(mark);
    ASSERT_NE(s.fields, AccessLog::npos) << "no write of descriptor bytes 8..31:\n" << trace;
    ASSERT_NE(s.seq, AccessLog::npos) << "no write of the seq:\n" << trace;
    ASSERT_NE(s.tail, AccessLog::npos) << "no tail publish:\n" << trace;
    EXPECT_FALSE(s.seq_with_fields)
        << "seq written in the same write as bytes 8..31 (must follow them):\n" << trace;
    EXPECT_LT(s.fields, s.seq) << "descriptor fields must precede seq:\n" << trace;
    EXPECT_LT(s.seq, s.tail) << "seq must precede the tail:\n" << trace;
    if (s.payload != AccessLog::npos) {  // who flushes is OPEN.FLUSH; the order is not
      EXPECT_LT(s.payload, s.seq) << "payload visible before seq:\n" << trace;
    }
    ScriptedL3::Message m;
    ASSERT_TRUE(peer().poll_output(&m));
    EXPECT_EQ(m.payload, bytes);
  }
}

TEST_F(Publication, ConsumerObservesValidatesUsesThenReleases) {
  SPSQ_CLAUSES("S3.PUB.5");
  ASSERT_EQ(peer().enqueue_data(Bytes(24, 3)), ScriptedL3::Enqueue::kOk);
  const size_t mark = log().mark();
  Handle h{};
  ASSERT_TRUE(try_peek(h));
  const size_t tail_read = log().find([](const spsq_conf::Access& a) {
    return (a.kind == AccessKind::kTest || a.kind == AccessKind::kWait) && a.offset == 0;
  }, mark);
  const uint64_t slot = layout().input_slot(0);
  const size_t desc_read = log().find([slot](const spsq_conf::Access& a) {
    return a.kind == AccessKind::kRead && a.offset <= slot && a.offset + a.nbytes >= slot + 32;
  }, mark);
  ASSERT_NE(tail_read, AccessLog::npos) << log().dump(mark);
  ASSERT_NE(desc_read, AccessLog::npos) << log().dump(mark);
  EXPECT_LT(tail_read, desc_read) << "descriptor read before the tail was observed";
  EXPECT_EQ(log().count([](const spsq_conf::Access& a) {
              return a.kind == AccessKind::kNotify && a.offset == wire::kInputHead;
            }, mark), 0u) << "head published before release";
  EXPECT_EQ(HandleBytes(h), Bytes(24, 3));
  ASSERT_TRUE(release(h));
  EXPECT_EQ(peer().counter(wire::kInputHead), 1) << "release publishes the head";
}

TEST_F(Publication, RegionInstanceViewWriteCopiesTheSpan) {
  SPSQ_CLAUSES("S3.PUB.3");
  RegionMemory& m = q().memory();
  RegionInstanceView view(
      RegionPartLocalSpan{reinterpret_cast<uint64_t>(m.payload()), m.payload_bytes()},
      RegionPartLocalSpan{reinterpret_cast<uint64_t>(m.counter()), m.counter_bytes()});
  ASSERT_FALSE(view.failed()) << view.error().message;
  const auto bytes = Bytes(48, 4);
  ASSERT_TRUE(view.payload().write(layout().output_arena, bytes.data(), bytes.size()));
  EXPECT_EQ(std::memcmp(m.payload() + layout().output_arena, bytes.data(), bytes.size()), 0);
  // read() is a template over its out type (wire contract, "Source
  // compatibility"): any struct with local_addr and nbytes will do.
  struct Span {
    uint64_t local_addr = 0;
    uint64_t nbytes = 0;
  } span;
  ASSERT_TRUE(view.payload().read(layout().output_arena, 48, span));
  EXPECT_EQ(bytes_at(span.local_addr), m.payload() + layout().output_arena);
  EXPECT_EQ(span.nbytes, 48u);
  // A self-copy (flush in place) keeps the bytes.
  ASSERT_TRUE(view.payload().write(layout().output_arena, bytes_at(span.local_addr), 48));
  EXPECT_EQ(std::memcmp(m.payload() + layout().output_arena, bytes.data(), bytes.size()), 0);
  EXPECT_FALSE(view.payload().write(m.payload_bytes() - 8, bytes.data(), 16))
      << "a write past the span must fail";
  m.sync_shadow(RegionMemory::kPayload, 0, m.payload_bytes());  // not the endpoint's stores
}

TEST_F(Publication, TimeoutZeroIsALiveNoAttempt) {
  SPSQ_CLAUSES("S3.TO.1", "S3.TO.2", "S3.TO.3");
  ASSERT_EQ(peer().enqueue_data(Bytes(8, 1)), ScriptedL3::Enqueue::kOk);
  const uint64_t t0 = VirtualClock::peek();
  size_t mark = log().mark();
  Handle h{};
  EXPECT_FALSE(peek(0, h)) << "peek(0) must not acquire even with input ready";
  EXPECT_EQ(log().shared_accesses_since(mark), 0u) << log().dump(mark);
  EXPECT_EQ(VirtualClock::peek(), t0) << "peek(0) waited";
  ExpectHealthy("peek(0)");
  ASSERT_TRUE(try_peek(h)) << "the input is still there after peek(0)";
  EXPECT_EQ(Api::seq(h), 1u);
  ASSERT_TRUE(release(h));
  mark = log().mark();
  Reservation r{};
  EXPECT_FALSE(reserve(8, 0, r)) << "reserve(0 timeout) must not reserve";
  EXPECT_EQ(log().shared_accesses_since(mark), 0u) << log().dump(mark);
  EXPECT_EQ(VirtualClock::peek(), t0);
  ExpectHealthy("reserve(n, 0)");
  ASSERT_TRUE(try_reserve(8, r)) << "no reservation was left active by reserve(n, 0)";
  EXPECT_EQ(Api::payload(r), q().memory().payload() + layout().output_arena);
}

TEST_F(Publication, TryCallsNeverWait) {
  SPSQ_CLAUSES("S3.TO.4");
  const uint64_t t0 = VirtualClock::peek();
  Handle h{};
  EXPECT_FALSE(try_peek(h));
  for (uint64_t i = 0; i < layout().depth; ++i) ASSERT_TRUE(send(wire::kData, {}));
  Reservation r{};
  EXPECT_FALSE(try_reserve(0, r));
  EXPECT_EQ(log().count_kind(AccessKind::kWait), 0u) << log().dump();
  EXPECT_EQ(VirtualClock::peek(), t0);
  ExpectHealthy("try_* on empty input and full output");
}

TEST_F(Publication, FalseReturnsAreTellableApartByTheErrorKind) {
  SPSQ_CLAUSES("S3.TO.5", "AMB.EMPTYIN");
  Handle h{};
  EXPECT_FALSE(try_peek(h));
  EXPECT_EQ(kind(), wire::kKindNone) << "no-progress";
  EXPECT_TRUE(ep().live());
  SPSQ_READING("AMB.EMPTYIN", "A", "try_peek on an empty input: false, live, kind NONE");
  peer().publish_raw(wire::Descriptor{1, 77, 0, 0});
  EXPECT_FALSE(try_peek(h));
  EXPECT_NE(kind(), wire::kKindNone) << "validation failure must be visible in error().kind";
  EXPECT_FALSE(ep().live());
}

TEST_F(Publication, TimeoutUnderBackpressureIsNotPoison) {
  SPSQ_CLAUSES("S3.TO.6", "S4.NOPROG.4");
  uint64_t t0 = VirtualClock::peek();
  Handle h{};
  EXPECT_FALSE(peek(5000, h));
  EXPECT_GE(VirtualClock::peek() - t0, 5000u) << "peek returned before its timeout";
  ExpectHealthy("peek timed out on an empty queue");
  for (uint64_t i = 0; i < layout().depth; ++i) ASSERT_TRUE(send(wire::kData, {}));
  t0 = VirtualClock::peek();
  Reservation r{};
  EXPECT_FALSE(reserve(0, 7000, r));
  EXPECT_GE(VirtualClock::peek() - t0, 7000u);
  ExpectHealthy("reserve timed out on a full ring");
  peer().drain_outputs();
  EXPECT_TRUE(send(wire::kData, {}));
}

TEST_F(Publication, TimeoutNearTheEndOfTimeDoesNotWrap) {
  SPSQ_CLAUSES("S3.TO.6");
  VirtualClock::reset(~uint64_t{0} - 100);
  Handle h{};
  EXPECT_FALSE(peek(1000000, h)) << "deadline beyond 2^64 - 1";
  ExpectHealthy("peek near the end of time");
}

TEST_F(Publication, BlockingCallsSucceedWhenThePeerActsInTime) {
  SPSQ_CLAUSES("W.VIEW.3");
  const uint64_t t0 = VirtualClock::peek();
  VirtualClock::after(700, [this] {
    ASSERT_EQ(peer().enqueue_data(Bytes(8, 6)), ScriptedL3::Enqueue::kOk);
  });
  Handle h{};
  ASSERT_TRUE(peek(5000, h)) << "input published at +700 ns of a 5000 ns wait";
  EXPECT_EQ(VirtualClock::peek() - t0, 700u) << "returned late or early";
  EXPECT_EQ(HandleBytes(h), Bytes(8, 6));
  ASSERT_TRUE(release(h));
  for (uint64_t i = 0; i < layout().depth; ++i) ASSERT_TRUE(send(wire::kData, {}));
  VirtualClock::after(300, [this] { peer().drain_outputs(); });
  Reservation r{};
  ASSERT_TRUE(reserve(16, 5000, r)) << "L3 released at +300 ns of a 5000 ns wait";
  ASSERT_TRUE(publish(r, wire::kData));
  ExpectHealthy("blocking calls");
}

TEST_F(Publication, ExpiredWaitWithRaisedPeerFlagReportsRemoteAbort) {
  SPSQ_CLAUSES("S3.TO.7", "S4.POISON.12", "S4.POISON.13", "W.FLAG.2", "W.FLAG.3",
               "AMB.TIMEOUTOP");
  for (int32_t flag : {1, 2, kMax}) {
    Rebuild(q().params());
    peer().set_initiator_flag(flag);
    Handle h{};
    EXPECT_FALSE(peek(1000, h));
    EXPECT_FALSE(ep().live()) << "flag " << flag;
    EXPECT_EQ(kind(), wire::kRemoteAborted) << "flag " << flag << ": " << Api::message(ep());
    EXPECT_EQ(peer().l2_flag(), 0) << "remote abort must not raise the local flag";
    EXPECT_EQ(log().count([](const spsq_conf::Access& a) {
                return a.kind == AccessKind::kNotify && a.offset == wire::kPeerFlag;
              }), 0u);
    if (op() == wire::kOpTimeout) {
      SPSQ_READING("AMB.TIMEOUTOP", "A", "REMOTE_ABORTED carries op TIMEOUT");
    } else {
      // Reading B is the operation in progress, not any other op.
      EXPECT_EQ(op(), wire::kOpInputTryPeek)
          << "AMB.TIMEOUTOP: REMOTE_ABORTED of a peek carries TIMEOUT (A) or the operation in "
             "progress, INPUT_TRY_PEEK (B); saw op " << op();
      SPSQ_READING("AMB.TIMEOUTOP", "B", "REMOTE_ABORTED carries op " + std::to_string(op()));
    }
  }
  // Output side: a reserve that times out on a full ring.
  Rebuild(q().params());
  for (uint64_t i = 0; i < layout().depth; ++i) ASSERT_TRUE(send(wire::kData, {}));
  peer().set_initiator_flag(1);
  Reservation r{};
  EXPECT_FALSE(reserve(0, 1000, r));
  EXPECT_EQ(kind(), wire::kRemoteAborted);
  EXPECT_EQ(peer().l2_flag(), 0);
  if (op() == wire::kOpTimeout) {
    SPSQ_READING("AMB.TIMEOUTOP", "A", "REMOTE_ABORTED carries op TIMEOUT");
  } else {
    EXPECT_EQ(op(), wire::kOpOutputTryReserve)
        << "AMB.TIMEOUTOP: REMOTE_ABORTED of a reserve carries TIMEOUT (A) or the operation in "
           "progress, OUTPUT_TRY_RESERVE (B); saw op " << op();
    SPSQ_READING("AMB.TIMEOUTOP", "B", "REMOTE_ABORTED carries op " + std::to_string(op()));
  }
}

TEST_F(Publication, PeerFlagBelowOneIsNotRaised) {
  SPSQ_CLAUSES("W.FLAG.2", "S3.TO.6");
  for (int32_t flag : {0, -1, kMin}) {
    Rebuild(q().params());
    peer().set_initiator_flag(flag);
    Handle h{};
    EXPECT_FALSE(peek(1000, h));
    ExpectHealthy(("initiator flag " + std::to_string(flag)).c_str());
  }
}


TEST_F(Publication, AWaitNearTheEndOfTimeStillWaits) {
  SPSQ_CLAUSES("S3.TO.6", "W.VIEW.3");
  VirtualClock::reset(~uint64_t{0} - 100000);
  const uint64_t t0 = VirtualClock::peek();
  VirtualClock::after(700, [this] {
    ASSERT_EQ(peer().enqueue_data(Bytes(8, 6)), ScriptedL3::Enqueue::kOk);
  });
  Handle h{};
  ASSERT_TRUE(peek(1000000, h)) << "input published at +700 ns of a wait whose deadline "
                                   "saturates at 2^64 - 1";
  EXPECT_EQ(VirtualClock::peek() - t0, 700u);
  ASSERT_TRUE(release(h));
  ExpectHealthy("peek near the end of time");
}

TEST_F(Publication, AnExpiredWaitReturnsAtItsDeadline) {
  SPSQ_CLAUSES("S3.TO.6", "W.VIEW.3");
  uint64_t t0 = VirtualClock::peek();
  Handle h{};
  EXPECT_FALSE(peek(5000, h));
  EXPECT_EQ(VirtualClock::peek() - t0, 5000u) << "peek returned late or early";
  for (uint64_t i = 0; i < layout().depth; ++i) ASSERT_TRUE(send(wire::kData, {}));
  t0 = VirtualClock::peek();
  Reservation r{};
  EXPECT_FALSE(reserve(0, 7000, r));
  EXPECT_EQ(VirtualClock::peek() - t0, 7000u) << "reserve returned late or early";
  ExpectHealthy("expired waits");
}

TEST_F(Publication, APeerFlagRaisedDuringTheWaitIsReportedAtExpiry) {
  SPSQ_CLAUSES("S3.TO.7", "S4.POISON.12");
  VirtualClock::after(500, [this] { peer().set_initiator_flag(1); });
  Handle h{};
  EXPECT_FALSE(peek(1000, h));
  EXPECT_EQ(kind(), wire::kRemoteAborted) << "flag raised at +500 ns of a 1000 ns wait";
  EXPECT_FALSE(ep().live());
  EXPECT_EQ(peer().l2_flag(), 0);
}

}  // namespace
}  // namespace spsq_conf
