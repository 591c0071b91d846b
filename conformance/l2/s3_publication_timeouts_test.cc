// Spec section 3, "Publication And Timeouts", from the L2 side: signal slots,
// 32-bit counters and their reconstruction, the producer sequence as the
// recording view saw it, the consumer order, and timeouts on the virtual
// clock (each blocking call down its no-room path, to its exact deadline,
// and up its happy path).
//
// Compiled twice (certify/l2.bzl): once for every certification, through the
// suite's endpoint interface; and per certification with SPSQ_L2_TYPED, which
// keeps only the tests of the implementation's own RegionInstanceView.
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "testkit/loop_bound.h"
#include "testkit/publish_order.h"
#if SPSQ_L2_TYPED
#include "conformance/l2/l2_typed.h"
#include "conformance/l2/view_cache_hooks.h"
#else
#include "conformance/l2/l2_fixture.h"
#endif

namespace spsq_conf {
namespace {

#if !SPSQ_L2_TYPED

constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
constexpr uint64_t kEndOfTime = ~uint64_t{0};
constexpr size_t npos = AccessLog::npos;

class Publication : public L2Test {
 protected:
  // Fills the output ring with zero-byte DATA messages L3 has not taken.
  void FillOutputRing() {
    for (uint64_t i = 0; i < layout().depth; ++i) ASSERT_TRUE(send(wire::kData, {}));
  }
  // Fills the output arena with one message from the cursor to the arena's end,
  // every earlier output drained (the ring keeps room). It never needs the
  // idle-arena exception, so it fills the arena under either room reading
  // (AMB.ROOM), and no 64-byte reservation fits until L3 releases it.
  void FillOutputArena() {
    peer().drain_outputs();
    const uint64_t arena = layout().output_arena_bytes;
    ASSERT_TRUE(send(wire::kData, Bytes(arena - peer().output_cursor() % arena, 2)));
  }
  // Consumes (takes and releases) `n` DATA inputs published by the scripted L3.
  void ConsumeInputs(uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) {
      ASSERT_EQ(peer().enqueue(wire::kData, nullptr, 0), ScriptedL3::Enqueue::kOk);
      Handle h{};
      ASSERT_TRUE(try_peek(h)) << "input " << i;
      ASSERT_TRUE(release(h));
    }
  }
  void RecordTimeoutOp(const char* what, uint32_t in_progress) {
    if (op() == wire::kOpTimeout) {
      SPSQ_READING("AMB.TIMEOUTOP", "A", "REMOTE_ABORTED carries op TIMEOUT");
      return;
    }
    // Reading B is the operation in progress, not any other op.
    EXPECT_EQ(op(), in_progress)
        << "AMB.TIMEOUTOP: REMOTE_ABORTED of a " << what << " carries TIMEOUT (A) or the "
        << "operation in progress, op " << in_progress << " (B); saw op " << op();
    SPSQ_READING("AMB.TIMEOUTOP", "B", "REMOTE_ABORTED carries op " + std::to_string(op()));
  }
};

TEST_F(Publication, SignalsSitOnTheirSlotsWithTheirWriters) {
  SPSQ_CLAUSES("S3.SIG.1/l2", "S0.USE.1");
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
  ExpectPoisoned(wire::kInvalidDescriptor, wire::kOpInputTryPeek, "replayed seq");
  std::vector<bool> touched(6, false);
  for (const auto& a : log().entries()) {
    if (a.part != RegionMemory::kCounter || !a.is_shared_access()) continue;
    ASSERT_EQ(a.offset % 64, 0u) << a.describe();
    ASSERT_LT(a.offset, 384u) << a.describe();
    touched[a.offset / 64] = true;
    if (a.kind == AccessKind::kNotify) {
      SPSQ_JUDGING("W.FLAG.3/l2");
      EXPECT_TRUE(a.offset == 64 || a.offset == 128 || a.offset == 320)
          << "L2 wrote an L3-owned signal: " << a.describe();
    }
  }
  {
    SPSQ_JUDGING("S3.SIG.2/l2");
    EXPECT_TRUE(touched[0]) << "S3.SIG.2: L2 never read the input tail at offset 0";
  }
  {
    SPSQ_JUDGING("S3.SIG.3/l2");
    EXPECT_TRUE(touched[1]) << "S3.SIG.3: L2 never published the input head at offset 64";
  }
  {
    SPSQ_JUDGING("S3.SIG.4/l2");
    EXPECT_TRUE(touched[2]) << "S3.SIG.4: L2 never published the output tail at offset 128";
  }
  {
    SPSQ_JUDGING("S3.SIG.5/l2");
    EXPECT_TRUE(touched[3]) << "S3.SIG.5: L2 never read the output head at offset 192";
  }
  {
    SPSQ_JUDGING("S3.SIG.6/l2");
    EXPECT_TRUE(touched[4]) << "S3.SIG.6: L2 never sampled the initiator flag at offset 256";
  }
  SPSQ_JUDGING("S3.SIG.7/l2");
  EXPECT_TRUE(touched[5]) << "S3.SIG.7: L2 never raised its flag at offset 320";
}

// Every notify of `offset` in [from, end) must be a Set of `want`.
void ExpectSets(const AccessLog& log, size_t from, uint64_t offset, int32_t want,
                const std::string& context) {
  size_t n = 0;
  for (size_t i = from; i < log.size(); ++i) {
    const auto& a = log[i];
    if (a.kind != AccessKind::kNotify || !a.ok || a.offset != offset) continue;
    ++n;
    {
      SPSQ_JUDGING("W.CTR.1/set-op");
      EXPECT_EQ(a.op, 0u) << context << ": head/tail updates are plain Sets: " << a.describe();
    }
    SPSQ_JUDGING("W.CTR.1/value");
    EXPECT_EQ(a.value, want) << context << ": the slot holds int32(count): " << a.describe();
  }
  EXPECT_GE(n, 1u) << context << ": no notify of counter offset " << offset << "\n"
                   << log.dump(from);
}

TEST_F(Publication, CountersHoldTheLow32BitsOfTheCounts) {
  const uint64_t depth = layout().depth;
  for (uint64_t k = 1; k <= 3 * depth; ++k) {
    {
      SPSQ_JUDGING("S3.CTR.1/tail");
      const size_t mark = log().mark();
      ASSERT_TRUE(send(wire::kData, Bytes(2, 1)));
      EXPECT_EQ(peer().counter(wire::kOutputTail), wire::low32(k)) << "after " << k << " outputs";
      ExpectSets(log(), mark, wire::kOutputTail, wire::low32(k), "output " + std::to_string(k));
      peer().drain_outputs();
    }
    SPSQ_JUDGING("S3.CTR.1/head");
    ASSERT_EQ(peer().enqueue_data(Bytes(2, 2)), ScriptedL3::Enqueue::kOk);
    Handle h{};
    ASSERT_TRUE(try_peek(h));
    const size_t mark = log().mark();
    ASSERT_TRUE(release(h));
    EXPECT_EQ(peer().counter(wire::kInputHead), wire::low32(k)) << "after " << k << " releases";
    ExpectSets(log(), mark, wire::kInputHead, wire::low32(k), "release " + std::to_string(k));
  }
}

TEST_F(Publication, FollowsPeerProgressObservedInSteps) {
  // Not poisoned by any of the steps: judged on the whole walk.
  SPSQ_CLAUSES("S3.CTR.2", "W.CTR.2/full-depth");
  const uint64_t depth = layout().depth;
  uint64_t next_seq = 1;
  // Steps of 1, then depth at once, then depth - 1 and 1.
  size_t pass = 0;
  for (uint64_t step : {uint64_t{1}, depth, depth - 1, uint64_t{1}}) {
    SPSQ_JUDGING(nth_case(pass++, {"S3.CTR.2/step-one", "S3.CTR.2/step-depth",
                                   "S3.CTR.2/step-mixed", "S3.CTR.2/step-mixed"}));
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
  // Output head advanced by L3 by depth at once, then 1 and depth - 1, with the
  // ring full each time the producer needs room.
  {
    SPSQ_JUDGING("S3.CTR.2/head-steps");
    for (uint64_t round = 0; round < 3; ++round) {
      FillOutputRing();
      peer().drain_outputs();
    }
    FillOutputRing();
    ScriptedL3::Message m;
    ASSERT_TRUE(peer().poll_output(&m));
    peer().release_outputs(1);
    ASSERT_TRUE(send(wire::kData, {})) << "one slot freed by a head step of 1";
    peer().drain_outputs();
    FillOutputRing();
  }
  ExpectHealthy("stepped progress");
}

struct HostileValue {
  const char* name;
  int32_t value;
};

TEST_F(Publication, ImpossibleInputTailPoisons) {
  const int32_t depth = static_cast<int32_t>(layout().depth);
  const HostileValue values[] = {{"depth + 1", depth + 1}, {"-1", -1},
                                 {"INT32_MIN", kMin},      {"INT32_MAX", kMax},
                                 {"INT32_MIN + 1", kMin + 1}, {"2^31 - depth", kMax - depth + 1}};
  for (const HostileValue& v : values) {
    const size_t i = &v - values;
    SPSQ_JUDGING(nth_case(i, {"S3.CTR.3/over-depth", "S3.CTR.3/minus-1", "S3.CTR.3/int-min",
                              "S3.CTR.3/int-max", "S3.CTR.3/sign-edge", "S3.CTR.3/sign-edge"}),
                 nth_case(i, {"W.CTR.2/over-depth", "W.CTR.2/negative", "W.CTR.2/negative",
                              "W.CTR.2/sign-edge", "W.CTR.2/sign-edge", "W.CTR.2/sign-edge"}),
                 "S4.POISON.5");
    Rebuild(q().params());
    // A valid message sits at index 0, so only the counter check can refuse.
    ASSERT_EQ(peer().enqueue_data(Bytes(4, 1)), ScriptedL3::Enqueue::kOk);
    peer().set_input_tail(v.value);
    Handle h{};
    EXPECT_FALSE(try_peek(h)) << v.name << ": a message was handed out under an impossible tail";
    ExpectPoisoned(wire::kInvalidDescriptor, wire::kOpInputTryPeek, v.name);
  }
}

// The check is on the delta from the local count, not on the raw value: after
// the count passed depth (ring wrapped), depth + 1 ahead and 1 behind poison.
TEST_F(Publication, ImpossibleInputTailAfterARingWrapPoisons) {
  SPSQ_CLAUSES("S3.CTR.3/after-wrap", "W.CTR.2/over-depth", "W.CTR.2/negative");
  const uint64_t depth = layout().depth;
  const uint64_t seen = 2 * depth + 1;
  for (int64_t ahead : {static_cast<int64_t>(depth) + 1, int64_t{-1}}) {
    Rebuild(q().params());
    ConsumeInputs(seen);
    ASSERT_EQ(peer().enqueue_data(Bytes(4, 1)), ScriptedL3::Enqueue::kOk);
    peer().set_input_tail(wire::low32(static_cast<uint64_t>(static_cast<int64_t>(seen) + ahead)));
    Handle h{};
    EXPECT_FALSE(try_peek(h)) << "tail " << ahead << " from the " << seen << " seen";
    ExpectPoisoned(wire::kInvalidDescriptor, wire::kOpInputTryPeek,
                   "impossible tail after a ring wrap");
  }
}

TEST_F(Publication, InputTailMovingBackwardsPoisons) {
  SPSQ_CLAUSES("S3.CTR.3/backwards", "W.CTR.2/negative");
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(peer().enqueue(wire::kData, nullptr, 0), ScriptedL3::Enqueue::kOk);
  }
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
  ExpectPoisoned(wire::kInvalidDescriptor, wire::kOpInputTryPeek, "tail 3 -> 1");
}

TEST_F(Publication, TailExactlyDepthAheadIsAccepted) {
  SPSQ_CLAUSES("S3.CTR.3/exact-depth", "W.CTR.2/full-depth");
  // Twice: from count 0, then from count depth (the 32-bit slot reused).
  uint64_t next_seq = 1;
  for (int round = 0; round < 2; ++round) {
    for (uint64_t i = 0; i < layout().depth; ++i) {
      ASSERT_EQ(peer().enqueue(wire::kData, nullptr, 0), ScriptedL3::Enqueue::kOk);
    }
    for (uint64_t i = 0; i < layout().depth; ++i) {
      Handle h{};
      ASSERT_TRUE(try_peek(h)) << "delta == depth is legal (round " << round << ")";
      EXPECT_EQ(Api::seq(h), next_seq++);
      ASSERT_TRUE(release(h));
    }
  }
  ExpectHealthy("delta == depth");
}

TEST_F(Publication, ImpossibleOutputHeadPoisons) {
  const int32_t depth = static_cast<int32_t>(layout().depth);
  const HostileValue values[] = {{"published + 1", depth + 1}, {"-1", -1},
                                 {"INT32_MIN", kMin},          {"INT32_MAX", kMax}};
  for (const HostileValue& v : values) {
    SPSQ_JUDGING("S3.CTR.3/head",
                 nth_case(&v - values, {"W.CTR.2/over-depth", "W.CTR.2/negative",
                                        "W.CTR.2/negative", "W.CTR.2/sign-edge"}),
                 "S4.POISON.5");
    Rebuild(q().params());
    FillOutputRing();
    peer().set_output_head(v.value);  // the ring is full: L2 must read the head
    Reservation r{};
    EXPECT_FALSE(try_reserve(0, r)) << v.name;
    ExpectPoisoned(wire::kInvalidDescriptor, wire::kOpOutputTryReserve, v.name);
  }
}

TEST_F(Publication, OutputHeadMovingBackwardsPoisons) {
  SPSQ_CLAUSES("S3.CTR.3/backwards", "S3.CTR.3/head", "W.CTR.2/negative");
  const int32_t depth = static_cast<int32_t>(layout().depth);
  FillOutputRing();
  peer().drain_outputs();
  FillOutputRing();  // needed room: the producer read head == depth
  peer().set_output_head(depth - 1);
  Reservation r{};
  EXPECT_FALSE(try_reserve(0, r)) << "head depth -> depth - 1 with the ring full";
  ExpectPoisoned(wire::kInvalidDescriptor, wire::kOpOutputTryReserve,
                 "output head moved backwards");
}

// ---------------------------------------------------------- producer order

class ProducerOrder : public Publication {
 public:
  // Publishes `n` bytes as L2 code does and judges the producer sequence.
  // Returns the reading of the flush open point it showed ('A' or 'B').
  char Judge(const char* where, uint64_t n) {
    Reservation r{};
    EXPECT_TRUE(try_reserve(n, r)) << where;
    if (!ep().live()) return '?';
    const auto bytes = Bytes(n, static_cast<uint8_t>(n + 5));
    if (n != 0) q().l2_store(Api::payload(r), bytes.data(), n);  // as the AIV kernel would
    const uint64_t off =
        n != 0 ? static_cast<uint64_t>(Api::payload(r) - q().endpoint_payload()) : 0;
    const uint64_t k = peer().outputs_taken();
    const size_t mark = log().mark();
    EXPECT_TRUE(publish(r, wire::kData)) << where;
    const PublishOrder s =
        FindPublishOrder(log(), mark, layout().output_slot(k), layout().output_arena,
                         layout().output_arena_bytes, off, n, wire::kOutputTail);
    const std::string trace = std::string(where) + ":\n" + log().dump(mark);
    EXPECT_NE(s.body_done, npos) << "descriptor bytes 8..31 not all written: " << trace;
    EXPECT_NE(s.seq_done, npos) << "no write of the seq: " << trace;
    EXPECT_NE(s.tail, npos) << "no tail publish: " << trace;
    if (judge_descriptor_) {
      // W.ORDER.1 / S3.PUB.1: bytes 8..31, then the seq alone, then the tail.
      EXPECT_FALSE(s.seq_with_body) << "seq written in the same write as bytes 8..31: "
                                    << trace;
      EXPECT_LT(s.body_done, s.seq_first) << "all of bytes 8..31 precede the seq: " << trace;
      EXPECT_LT(s.body_last, s.seq_first) << "bytes 8..31 written after the seq: " << trace;
      EXPECT_LT(s.seq_done, s.tail) << "the seq precedes the tail: " << trace;
    }
    EXPECT_EQ(s.stray, npos) << "publish wrote arena bytes outside the message's span: "
                             << trace;
    char reading = 'B';
    if (s.payload_last != npos) {
      // Who flushes is OPEN.FLUSH; when publish does, the order is fixed.
      reading = 'A';
      EXPECT_NE(s.payload_done, npos) << "publish flushed only part of the span: " << trace;
      EXPECT_LT(s.payload_done, s.body_first) << "payload visible before the fields: " << trace;
      EXPECT_LT(s.payload_last, s.seq_first) << "payload written after the seq: " << trace;
      EXPECT_LT(s.payload_last, s.tail) << "payload written after the tail: " << trace;
    }
    ScriptedL3::Message m;
    if (!peer().poll_output(&m)) {  // nothing taken: nothing for the peer to release
      ADD_FAILURE() << where << ": no output to take after publish";
      return reading;
    }
    EXPECT_EQ(m.seq, k + 1) << where;
    EXPECT_EQ(m.offset, off) << where << ": the descriptor names the reserved span";
    EXPECT_EQ(m.payload, bytes) << where << ": the bytes L2 code stored reach L3";
    peer().release_outputs(1);
    return reading;
  }

 protected:
  // False: judge only the payload (the flush), not the descriptor's own order.
  bool judge_descriptor_ = true;
};

TEST_F(ProducerOrder, ProducerSequencePayloadFieldsSeqTail) {
  SPSQ_CLAUSES("S3.PUB.1/reserve-write", "S3.PUB.1/visible-fields", "S3.PUB.1/fields-seq",
               "S3.PUB.1/seq-tail", "S3.PUB.1/zero-byte", "S3.PUB.1/reused-slot",
               "S3.PUB.1/after-skip", "S3.PUB.1/exact-end", "S3.PUB.2/before-seq",
               "S3.PUB.2/before-tail", "S3.PUB.2/no-late-payload", "W.ORDER.1/body-first",
               "W.ORDER.1/seq-separate", "W.ORDER.1/seq-then-tail", "W.ORDER.1/no-late-body");
  const uint64_t arena = layout().output_arena_bytes;
  Judge("first message, 40 bytes", 40);
  Judge("zero-byte message", 0);
  Judge("56 bytes", 56 - 40);
  Judge("ends exactly at the arena end", arena - 56);
  Judge("200 bytes from the arena start", 200);
  Judge("100 bytes after skipping the arena tail", 100);
  LoopBound fill("fill the output ring to its wrap", layout().depth);
  while (peer().outputs_taken() % layout().depth != 0 && fill.next()) Judge("filler", 8);
  Judge("slot 0 reused after a ring wrap", 24);
  ExpectHealthy("producer sequence");
}

TEST_F(ProducerOrder, AIVOutputIsFlushedBeforePublishUnderEitherReading) {
  SPSQ_CLAUSES("S3.PUB.4/flush-order", "S3.PUB.4/span-exact", "S3.PUB.4/bytes-intact",
               "S3.PUB.4/after-skip", "S3.PUB.4/exact-end");
  // Graded as OPEN.FLUSH says: publish may flush (A) or leave it to L2 code
  // (B); only a flush after the descriptor, outside the span or bytes that
  // do not reach L3 intact are wrong. The descriptor's order is S3.PUB.1's.
  judge_descriptor_ = false;
  SPSQ_EXERCISES("W.ORDER.1", "S3.PUB.1");
  const uint64_t arena = layout().output_arena_bytes;
  std::string readings;
  readings += Judge("48 bytes", 48);
  readings += Judge("ends exactly at the arena end", arena - 48);
  readings += Judge("160 bytes", 160);
  readings += Judge("160 bytes after skipping the arena tail", 160);
  ExpectHealthy("flushes");
  if (readings.find_first_not_of('A') == std::string::npos) {
    SPSQ_READING("OPEN.FLUSH", "A", "publish() writes (flushes) the reserved span first");
  } else if (readings.find_first_not_of('B') == std::string::npos) {
    SPSQ_READING("OPEN.FLUSH", "B", "publish() leaves the payload flush to L2 code");
  } else {
    ADD_FAILURE() << "publish flushed some messages and not others: " << readings;
  }
}

TEST_F(Publication, ConsumerObservesValidatesUsesThenReleases) {
  SPSQ_CLAUSES("S3.PUB.5/tail-desc", "S3.PUB.5/desc-payload", "S3.PUB.5/head-after-release");
  ASSERT_EQ(peer().enqueue_data(Bytes(24, 3)), ScriptedL3::Enqueue::kOk);
  const size_t mark = log().mark();
  Handle h{};
  ASSERT_TRUE(try_peek(h));
  const size_t tail_read = log().find([](const spsq_conf::Access& a) {
    return (a.kind == AccessKind::kTest || a.kind == AccessKind::kWait) && a.offset == 0;
  }, mark);
  const uint64_t slot = layout().input_slot(0);
  const size_t desc_read = log().find([slot](const spsq_conf::Access& a) {
    return a.kind == AccessKind::kRead && a.offset < slot + 32 && slot < a.offset + a.nbytes;
  }, mark);
  const uint64_t arena = layout().input_arena;
  const std::vector<uint8_t> got = HandleBytes(h);  // L2 code uses the payload
  const size_t payload_read = log().find([arena](const spsq_conf::Access& a) {
    return a.kind == AccessKind::kRead && a.offset < arena + 24 && arena < a.offset + a.nbytes;
  }, mark);
  ASSERT_NE(tail_read, npos) << log().dump(mark);
  ASSERT_NE(desc_read, npos) << log().dump(mark);
  ASSERT_NE(payload_read, npos) << "the payload was never made readable:\n" << log().dump(mark);
  EXPECT_LT(tail_read, desc_read) << "descriptor read before the tail was observed";
  EXPECT_LT(desc_read, payload_read) << "payload used before the descriptor was read";
  EXPECT_EQ(log().count([](const spsq_conf::Access& a) {
              return a.kind == AccessKind::kNotify && a.offset == wire::kInputHead;
            }, mark), 0u) << "head published before release";
  EXPECT_EQ(got, Bytes(24, 3));
  ASSERT_TRUE(release(h));
  EXPECT_EQ(peer().counter(wire::kInputHead), 1) << "release publishes the head";
}

#else  // SPSQ_L2_TYPED

// ---------------------------------------------------------- RegionInstanceView

class PublicationTyped : public L2TypedTest {};

TEST_F(PublicationTyped, RegionInstanceViewWriteCopiesTheSpan) {
  SPSQ_CLAUSES("S3.PUB.3/copy", "S3.PUB.3/self-copy", "S3.PUB.3/bounds");
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

// The cache hooks a device build gives its RegionInstanceView, recorded.
struct HookCall {
  const uint8_t* addr;
  uint64_t nbytes;
  std::vector<uint8_t> bytes;  // what the span held when the hook ran
};
std::vector<HookCall>& Flushes() {
  static std::vector<HookCall> v;
  return v;
}
std::vector<HookCall>& Invalidates() {
  static std::vector<HookCall> v;
  return v;
}
void RecordFlush(const void* addr, uint64_t n) {
  const uint8_t* p = static_cast<const uint8_t*>(addr);
  Flushes().push_back({p, n, std::vector<uint8_t>(p, p + n)});
}
void RecordInvalidate(const void* addr, uint64_t n) {
  Invalidates().push_back({static_cast<const uint8_t*>(addr), n, {}});
}

using HookProbe = CacheHookProbe<&RecordFlush, &RecordInvalidate>;
template <class V>
using HasCacheHooks =
    TakesCacheHooks<V, RegionPartLocalSpan, typename TypedApi::Clock, HookProbe>;

template <class V>
void JudgeCacheHooks(RegionMemory& m, const wire::Layout& l) {
  if constexpr (HasCacheHooks<V>::value) {
    // The view's stores are the test's, not an endpoint's: keep the shadow.
    struct Resync {
      RegionMemory& m;
      ~Resync() { m.sync_shadow(RegionMemory::kPayload, 0, m.payload_bytes()); }
    } resync{m};
    Flushes().clear();
    Invalidates().clear();
    V view(RegionPartLocalSpan{reinterpret_cast<uint64_t>(m.payload()), m.payload_bytes()},
           RegionPartLocalSpan{reinterpret_cast<uint64_t>(m.counter()), m.counter_bytes()},
           TypedApi::clock(&VirtualClock::now_ns), HookProbe{});
    ASSERT_FALSE(view.failed()) << view.error().message;
    uint8_t* const dst = m.payload() + l.output_arena + 64;
    const std::vector<uint8_t> bytes(40, 0x5c);
    ASSERT_TRUE(view.payload().write(l.output_arena + 64, bytes.data(), bytes.size()));
    ASSERT_FALSE(Flushes().empty()) << "a payload write that never flushed";
    bool covered = false;
    for (const HookCall& f : Flushes()) {
      if (f.addr <= dst && dst + bytes.size() <= f.addr + f.nbytes) {
        covered = true;
        const auto from = f.bytes.begin() + (dst - f.addr);
        EXPECT_EQ(std::vector<uint8_t>(from, from + bytes.size()), bytes)
            << "the flush ran before the bytes were copied";
      }
    }
    EXPECT_TRUE(covered) << "no flush covered the written span";
    // A self-copy flushes in place too (L2 code making its own output visible).
    Flushes().clear();
    ASSERT_TRUE(view.payload().write(l.output_arena + 64, dst, bytes.size()));
    bool in_place = false;
    for (const HookCall& f : Flushes()) {
      in_place |= f.addr <= dst && dst + bytes.size() <= f.addr + f.nbytes;
    }
    EXPECT_TRUE(in_place) << "a self-copy write did not flush the span";
    // Reads: what a device build invalidates, recorded for the report.
    struct Span {
      uint64_t local_addr = 0;
      uint64_t nbytes = 0;
    } span;
    ASSERT_TRUE(view.payload().read(l.output_arena + 64, 40, span)) << view.error().message;
    bool invalidated = false;
    for (const HookCall& c : Invalidates()) {
      invalidated |= c.addr <= dst && dst + 40 <= c.addr + c.nbytes;
    }
    record_observation("view.read_invalidates", invalidated ? "yes" : "no");
    // Last: the view fails for good after a refused call.
    Flushes().clear();
    EXPECT_FALSE(view.payload().write(m.payload_bytes() - 8, bytes.data(), 16));
    EXPECT_TRUE(Flushes().empty()) << "a refused write flushed";
  } else {
    GTEST_SKIP() << "not applicable: this RegionInstanceView takes no cache hooks "
                    "(no flush to observe on host memory)";
  }
}

TEST_F(PublicationTyped, RegionInstanceViewWriteFlushesThroughItsCacheHook) {
  SPSQ_CLAUSES("S3.PUB.3/flush-hook");
  JudgeCacheHooks<RegionInstanceView>(q().memory(), layout());
}

#endif  // SPSQ_L2_TYPED

#if !SPSQ_L2_TYPED

// ---------------------------------------------------------- timeouts

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
  EXPECT_EQ(Api::payload(r), q().endpoint_payload() + layout().output_arena);
}

TEST_F(Publication, TryCallsNeverWait) {
  SPSQ_CLAUSES("S3.TO.4");
  const uint64_t t0 = VirtualClock::peek();
  Handle h{};
  EXPECT_FALSE(try_peek(h));
  Reservation r{};
  FillOutputArena();
  EXPECT_FALSE(try_reserve(8, r)) << "arena full";
  peer().drain_outputs();
  FillOutputRing();
  EXPECT_FALSE(try_reserve(0, r)) << "ring full";
  EXPECT_EQ(log().count_kind(AccessKind::kWait), 0u) << log().dump();
  EXPECT_EQ(VirtualClock::peek(), t0);
  ExpectHealthy("try_* on empty input, a full arena and a full ring");
}

TEST_F(Publication, FalseReturnsAreTellableApartByTheErrorKind) {
  SPSQ_CLAUSES("S3.TO.5", "AMB.EMPTYIN/fresh");
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

TEST_F(Publication, EmptyInputIsNoProgressAfterTrafficToo) {
  SPSQ_CLAUSES("AMB.EMPTYIN/drained", "AMB.EMPTYIN/wrapped");
  Handle h{};
  ConsumeInputs(1);
  EXPECT_FALSE(try_peek(h)) << "drained";
  ExpectHealthy("empty input after one message");
  ConsumeInputs(2 * layout().depth);
  EXPECT_FALSE(try_peek(h)) << "drained after the ring wrapped";
  ExpectHealthy("empty input after a ring wrap");
  SPSQ_READING("AMB.EMPTYIN", "A", "try_peek on a drained input: false, live, kind NONE");
}

TEST_F(Publication, TimedOutPeekEndsAtItsDeadlineWithoutPoison) {
  SPSQ_CLAUSES("S3.TO.6/peek", "S4.NOPROG.4");
  const uint64_t t0 = VirtualClock::peek();
  Handle h{};
  EXPECT_FALSE(peek(5000, h));
  {
    SPSQ_JUDGING("S3.TO.8/peek");
    EXPECT_EQ(VirtualClock::peek() - t0, 5000u) << "peek(5000) ended early or late";
  }
  ExpectHealthy("peek timed out on an empty queue");
  SPSQ_JUDGING("S3.TO.6/recovers");
  ASSERT_EQ(peer().enqueue_data(Bytes(8, 1)), ScriptedL3::Enqueue::kOk);
  ASSERT_TRUE(peek(5000, h)) << "input after a timed-out peek";
  EXPECT_EQ(Api::seq(h), 1u);
  ASSERT_TRUE(release(h));
}

TEST_F(Publication, TimedOutReserveOnAFullRingEndsAtItsDeadlineWithoutPoison) {
  SPSQ_CLAUSES("S3.TO.6/reserve-ring", "S4.NOPROG.4");
  FillOutputRing();
  const uint64_t t0 = VirtualClock::peek();
  Reservation r{};
  EXPECT_FALSE(reserve(0, 7000, r));
  {
    SPSQ_JUDGING("S3.TO.8/reserve-ring");
    EXPECT_EQ(VirtualClock::peek() - t0, 7000u) << "reserve(0, 7000) ended early or late";
  }
  ExpectHealthy("reserve timed out on a full ring");
  EXPECT_EQ(peer().counter(wire::kOutputTail), static_cast<int32_t>(layout().depth));
  SPSQ_JUDGING("S3.TO.6/recovers");
  peer().drain_outputs();
  ASSERT_TRUE(reserve(0, 7000, r)) << "room after a timed-out reserve";
  ASSERT_TRUE(publish(r, wire::kData));
}

TEST_F(Publication, TimedOutReserveOnAFullArenaEndsAtItsDeadlineWithoutPoison) {
  SPSQ_CLAUSES("S3.TO.6/reserve-arena", "S4.NOPROG.4");
  SPSQ_EXERCISES("S4.NOPROG.2");
  FillOutputArena();
  const uint64_t t0 = VirtualClock::peek();
  Reservation r{};
  EXPECT_FALSE(reserve(64, 6000, r));
  {
    SPSQ_JUDGING("S3.TO.8/reserve-arena");
    EXPECT_EQ(VirtualClock::peek() - t0, 6000u) << "reserve(64, 6000) ended early or late";
  }
  ExpectHealthy("reserve timed out on a full arena");
  EXPECT_EQ(peer().counter(wire::kOutputTail), 1);
  SPSQ_JUDGING("S3.TO.6/recovers");
  peer().drain_outputs();
  ASSERT_TRUE(reserve(64, 6000, r)) << "room after a timed-out reserve";
  ASSERT_TRUE(publish(r, wire::kData));
}

// A wake-up that brings too little room does not restart the timeout.
TEST_F(Publication, AWakeUpWithTooLittleRoomStillEndsAtTheDeadline) {
  SPSQ_CLAUSES("S3.TO.8/rewait", "S3.TO.6/reserve-arena");
  const uint64_t half = layout().output_arena_bytes / 2;
  ASSERT_TRUE(send(wire::kData, Bytes(half, 1)));
  ASSERT_TRUE(send(wire::kData, Bytes(half, 2)));
  VirtualClock::after(300, [this] {
    ScriptedL3::Message m;
    ASSERT_TRUE(peer().poll_output(&m));
    peer().release_outputs(1);  // frees half the arena: not enough for 3/4
  });
  const uint64_t t0 = VirtualClock::peek();
  Reservation r{};
  EXPECT_FALSE(reserve(half + half / 2, 5000, r)) << "3/4 of the arena with 1/2 free";
  EXPECT_EQ(VirtualClock::peek() - t0, 5000u) << "the wait must end at its first deadline";
  ExpectHealthy("reserve woken with too little room");
  peer().drain_outputs();
  ASSERT_TRUE(try_reserve(half + half / 2, r));
}

TEST_F(Publication, DeadlinesBeyondTheEndOfTimeSaturate) {
  // The wait ends at the end of time (S3.TO.8's case); an expiry there is no
  // poison (S3.TO.6's case of the call).
  // now + timeout overflows: the wait lasts to the end of time, no instant expiry.
  VirtualClock::reset(kEndOfTime - 100);
  Handle h{};
  {
    SPSQ_JUDGING("S3.TO.8/near-max");
    EXPECT_FALSE(peek(1000000, h)) << "deadline beyond 2^64 - 1";
    EXPECT_EQ(VirtualClock::peek(), kEndOfTime) << "the deadline wrapped: peek ended early";
  }
  {
    SPSQ_JUDGING("S3.TO.6/peek");
    ExpectHealthy("peek near the end of time");
  }
  VirtualClock::reset(kEndOfTime - 100);
  Reservation r{};
  {
    SPSQ_JUDGING("S3.TO.8/near-max");
    FillOutputRing();
    EXPECT_FALSE(reserve(0, 1000000, r));
    EXPECT_EQ(VirtualClock::peek(), kEndOfTime) << "the deadline wrapped: reserve ended early";
  }
  {
    SPSQ_JUDGING("S3.TO.6/reserve-ring");
    ExpectHealthy("reserve near the end of time");
  }
  // timeout_ns = 2^64 - 1 from an ordinary start.
  Rebuild(q().params());
  VirtualClock::reset();
  {
    SPSQ_JUDGING("S3.TO.8/max-timeout");
    EXPECT_FALSE(peek(kEndOfTime, h));
    EXPECT_EQ(VirtualClock::peek(), kEndOfTime) << "peek(2^64 - 1) wrapped to an early expiry";
  }
  {
    SPSQ_JUDGING("S3.TO.6/peek");
    ExpectHealthy("peek(2^64 - 1)");
  }
  VirtualClock::reset();
  {
    SPSQ_JUDGING("S3.TO.8/max-timeout");
    FillOutputRing();
    EXPECT_FALSE(reserve(0, kEndOfTime, r));
    EXPECT_EQ(VirtualClock::peek(), kEndOfTime) << "reserve(2^64 - 1) wrapped to an early expiry";
  }
  SPSQ_JUDGING("S3.TO.6/reserve-ring");
  ExpectHealthy("reserve(2^64 - 1)");
}

// Positive timeouts at the values a narrower or signed timeout type breaks on:
// the smallest, both sides of 32 bits, the sign bit, the largest. Each wait
// ends at exactly start + T, saturated at 2^64 - 1, and is no poison.
constexpr uint64_t kBoundaryTimeouts[] = {1, (uint64_t{1} << 32) - 1, uint64_t{1} << 32,
                                          uint64_t{1} << 63, kEndOfTime};

uint64_t DeadlineOf(uint64_t start, uint64_t timeout) {
  return timeout > kEndOfTime - start ? kEndOfTime : start + timeout;
}

TEST_F(Publication, BoundaryTimeoutsEndAtTheirDeadlineWithoutPoison) {
  SPSQ_CLAUSES("S3.TO.8/timeouts", "S3.TO.6/timeouts", "S4.NOPROG.4/timeouts");
  for (uint64_t t : kBoundaryTimeouts) {
    const std::string T = std::to_string(t);
    Rebuild(q().params());
    VirtualClock::reset();
    uint64_t t0 = VirtualClock::peek();
    Handle h{};
    EXPECT_FALSE(peek(t, h)) << "peek(" << T << ") on an empty input";
    {
      SPSQ_JUDGING("S3.TO.8/timeouts");
      EXPECT_EQ(VirtualClock::peek(), DeadlineOf(t0, t)) << "peek(" << T << ") from " << t0;
    }
    {
      SPSQ_JUDGING("S3.TO.6/timeouts", "S4.NOPROG.4/timeouts");
      ExpectHealthy(("peek(" + T + ")").c_str());
    }
    VirtualClock::reset();
    FillOutputRing();
    t0 = VirtualClock::peek();
    Reservation r{};
    EXPECT_FALSE(reserve(0, t, r)) << "reserve(0, " << T << ") on a full ring";
    {
      SPSQ_JUDGING("S3.TO.8/timeouts");
      EXPECT_EQ(VirtualClock::peek(), DeadlineOf(t0, t)) << "reserve(0, " << T << ") from " << t0;
    }
    SPSQ_JUDGING("S3.TO.6/timeouts", "S4.NOPROG.4/timeouts");
    ExpectHealthy(("reserve(0, " + T + ")").c_str());
    EXPECT_EQ(peer().counter(wire::kOutputTail), static_cast<int32_t>(layout().depth))
        << "reserve(0, " << T << ") published";
  }
}

TEST_F(Publication, BoundaryTimeoutsWithARaisedPeerFlagReportRemoteAbort) {
  SPSQ_CLAUSES("S3.TO.7/timeouts");
  for (uint64_t t : kBoundaryTimeouts) {
    const std::string T = std::to_string(t);
    for (bool reserving : {false, true}) {
      const std::string call = (reserving ? "reserve(0, " : "peek(") + T + ")";
      Rebuild(q().params());
      VirtualClock::reset();
      if (reserving) FillOutputRing();
      peer().set_initiator_flag(1);
      const uint64_t t0 = VirtualClock::peek();
      Handle h{};
      Reservation r{};
      EXPECT_FALSE(reserving ? reserve(0, t, r) : peek(t, h)) << call;
      EXPECT_LE(VirtualClock::peek(), DeadlineOf(t0, t)) << call << ": ended past the deadline";
      EXPECT_FALSE(ep().live()) << call;
      EXPECT_EQ(kind(), wire::kRemoteAborted) << call << ": " << Api::message(ep());
      EXPECT_EQ(peer().l2_flag(), 0) << call << ": remote abort raised the local flag";
    }
  }
}

TEST_F(Publication, AWaitNearTheEndOfTimeStillWaits) {
  SPSQ_CLAUSES("S3.TO.8/near-max-progress", "W.VIEW.3/peek");
  VirtualClock::reset(kEndOfTime - 100000);
  uint64_t t0 = VirtualClock::peek();
  VirtualClock::after(700, [this] {
    ASSERT_EQ(peer().enqueue_data(Bytes(8, 6)), ScriptedL3::Enqueue::kOk);
  });
  Handle h{};
  ASSERT_TRUE(peek(1000000, h)) << "input published at +700 ns of a wait whose deadline "
                                   "saturates at 2^64 - 1";
  EXPECT_EQ(VirtualClock::peek() - t0, 700u);
  ASSERT_TRUE(release(h));
  // timeout_ns = 2^64 - 1: L3 releases at +900.
  FillOutputRing();
  t0 = VirtualClock::peek();
  VirtualClock::after(900, [this] { peer().drain_outputs(); });
  Reservation r{};
  ASSERT_TRUE(reserve(0, kEndOfTime, r)) << "room at +900 ns of a 2^64 - 1 ns wait";
  EXPECT_EQ(VirtualClock::peek() - t0, 900u);
  ASSERT_TRUE(publish(r, wire::kData));
  ExpectHealthy("waits near the end of time");
}

TEST_F(Publication, BlockingCallsSucceedWhenThePeerActsInTime) {
  SPSQ_CLAUSES("W.VIEW.3/peek", "W.VIEW.3/reserve", "S3.TO.8/progress");
  uint64_t t0 = VirtualClock::peek();
  VirtualClock::after(700, [this] {
    ASSERT_EQ(peer().enqueue_data(Bytes(8, 6)), ScriptedL3::Enqueue::kOk);
  });
  Handle h{};
  ASSERT_TRUE(peek(5000, h)) << "input published at +700 ns of a 5000 ns wait";
  EXPECT_EQ(VirtualClock::peek() - t0, 700u) << "returned late or early";
  EXPECT_EQ(HandleBytes(h), Bytes(8, 6));
  ASSERT_TRUE(release(h));
  FillOutputRing();
  t0 = VirtualClock::peek();
  VirtualClock::after(300, [this] { peer().drain_outputs(); });
  Reservation r{};
  ASSERT_TRUE(reserve(16, 5000, r)) << "L3 released at +300 ns of a 5000 ns wait (ring)";
  EXPECT_EQ(VirtualClock::peek() - t0, 300u) << "returned late or early";
  ASSERT_TRUE(publish(r, wire::kData));
  peer().drain_outputs();
  FillOutputArena();
  t0 = VirtualClock::peek();
  VirtualClock::after(400, [this] { peer().drain_outputs(); });
  ASSERT_TRUE(reserve(64, 5000, r)) << "L3 released at +400 ns of a 5000 ns wait (arena)";
  EXPECT_EQ(VirtualClock::peek() - t0, 400u) << "returned late or early";
  ASSERT_TRUE(publish(r, wire::kData));
  ExpectHealthy("blocking calls");
}

TEST_F(Publication, ProgressAfterTheDeadlineIsLeftForTheNextCall) {
  SPSQ_CLAUSES("W.VIEW.3/too-late", "S3.TO.8/peek", "S3.TO.8/reserve-ring");
  uint64_t t0 = VirtualClock::peek();
  VirtualClock::after(1001, [this] {
    ASSERT_EQ(peer().enqueue_data(Bytes(8, 7)), ScriptedL3::Enqueue::kOk);
  });
  Handle h{};
  EXPECT_FALSE(peek(1000, h)) << "input published 1 ns after the deadline";
  EXPECT_EQ(VirtualClock::peek() - t0, 1000u);
  ExpectHealthy("peek expired before the input");
  VirtualClock::advance_by(1);
  ASSERT_TRUE(try_peek(h)) << "the late input is there for the next call";
  EXPECT_EQ(HandleBytes(h), Bytes(8, 7));
  ASSERT_TRUE(release(h));
  FillOutputRing();
  t0 = VirtualClock::peek();
  VirtualClock::after(2001, [this] { peer().drain_outputs(); });
  Reservation r{};
  EXPECT_FALSE(reserve(0, 2000, r)) << "room made 1 ns after the deadline";
  EXPECT_EQ(VirtualClock::peek() - t0, 2000u);
  ExpectHealthy("reserve expired before the room");
  VirtualClock::advance_by(1);
  ASSERT_TRUE(try_reserve(0, r));
  ASSERT_TRUE(publish(r, wire::kData));
}

TEST_F(Publication, ExpiredWaitWithRaisedPeerFlagReportsRemoteAbort) {
  // No assertion of its own: the fixture's invariant judges it on this walk.
  SPSQ_CLAUSES("W.FLAG.3/l2");
  size_t pass = 0;
  for (int32_t flag : {1, 2, kMax}) {
    {
      SPSQ_JUDGING("S3.TO.7/peek", "S4.POISON.12",
                   nth_case(pass++, {"W.FLAG.2/one", "W.FLAG.2/two", "W.FLAG.2/int-max"}));
      Rebuild(q().params());
      peer().set_initiator_flag(flag);
      const uint64_t t0 = VirtualClock::peek();
      Handle h{};
      EXPECT_FALSE(peek(1000, h));
      EXPECT_LE(VirtualClock::peek() - t0, 1000u)
          << "flag " << flag << ": ended past the deadline";
      EXPECT_FALSE(ep().live()) << "flag " << flag;
      EXPECT_EQ(kind(), wire::kRemoteAborted) << "flag " << flag << ": " << Api::message(ep());
    }
    {
      SPSQ_JUDGING("S4.POISON.13");
      EXPECT_EQ(peer().l2_flag(), 0) << "remote abort must not raise the local flag";
      EXPECT_EQ(log().count([](const spsq_conf::Access& a) {
                  return a.kind == AccessKind::kNotify && a.offset == wire::kPeerFlag;
                }), 0u);
    }
    SPSQ_JUDGING("AMB.TIMEOUTOP/peek");
    RecordTimeoutOp("peek", wire::kOpInputTryPeek);
  }
  // Output side: a reserve that times out on a full ring.
  {
    SPSQ_JUDGING("S3.TO.7/reserve-ring", "S4.POISON.12", "W.FLAG.2/one");
    Rebuild(q().params());
    FillOutputRing();
    peer().set_initiator_flag(1);
    Reservation r{};
    EXPECT_FALSE(reserve(0, 1000, r));
    EXPECT_EQ(kind(), wire::kRemoteAborted);
  }
  {
    SPSQ_JUDGING("S4.POISON.13");
    EXPECT_EQ(peer().l2_flag(), 0);
  }
  SPSQ_JUDGING("AMB.TIMEOUTOP/reserve");
  RecordTimeoutOp("reserve", wire::kOpOutputTryReserve);
}

TEST_F(Publication, ReserveOnAFullArenaWithRaisedPeerFlagReportsRemoteAbort) {
  SPSQ_CLAUSES("S3.TO.7/reserve-arena", "S4.POISON.12", "W.FLAG.2/one");
  FillOutputArena();
  peer().set_initiator_flag(1);
  Reservation r{};
  EXPECT_FALSE(reserve(64, 1000, r));
  EXPECT_FALSE(ep().live());
  EXPECT_EQ(kind(), wire::kRemoteAborted) << Api::message(ep());
  EXPECT_EQ(peer().l2_flag(), 0);
}

TEST_F(Publication, PeerFlagBelowOneIsNotRaised) {
  SPSQ_CLAUSES("S3.TO.7/down");
  size_t pass = 0;
  for (int32_t flag : {0, -1, kMin}) {
    const char* flag_case = nth_case(pass++, {"W.FLAG.2/zero", "W.FLAG.2/minus-1",
                                              "W.FLAG.2/int-min"});
    Rebuild(q().params());
    peer().set_initiator_flag(flag);
    {
      SPSQ_JUDGING(flag_case, "S3.TO.6/peek");
      Handle h{};
      EXPECT_FALSE(peek(1000, h));
      ExpectHealthy(("peek, initiator flag " + std::to_string(flag)).c_str());
    }
    SPSQ_JUDGING(flag_case, "S3.TO.6/reserve-ring");
    FillOutputRing();
    Reservation r{};
    EXPECT_FALSE(reserve(0, 1000, r));
    ExpectHealthy(("reserve, initiator flag " + std::to_string(flag)).c_str());
  }
}

// The flag rises in the middle of a positive wait: remote abort is reported
// by the deadline, and never before the flag rose. Both blocking calls, on
// each of their no-room paths.
TEST_F(Publication, APeerFlagRaisedDuringTheWaitIsReportedByTheDeadline) {
  SPSQ_CLAUSES("S3.TO.7/mid-wait", "S4.POISON.12");
  enum class Call { kPeek, kReserveRing, kReserveArena };
  const struct {
    const char* name;
    Call call;
    uint64_t rise, timeout;  // the flag rises at +rise of a `timeout` ns wait
  } cases[] = {
      {"peek on an empty input", Call::kPeek, 500, 1000},
      {"reserve on a full ring", Call::kReserveRing, 600, 2000},
      {"reserve on a full arena", Call::kReserveArena, 800, 1500},
  };
  for (const auto& c : cases) {
    Rebuild(q().params());
    if (c.call == Call::kReserveRing) FillOutputRing();
    if (c.call == Call::kReserveArena) FillOutputArena();
    const uint64_t t0 = VirtualClock::peek();
    VirtualClock::after(c.rise, [this] { peer().set_initiator_flag(1); });
    Handle h{};
    Reservation r{};
    // A 64-byte reservation waits on the full arena (the ring has room).
    const bool got = c.call == Call::kPeek ? peek(c.timeout, h)
                                           : reserve(c.call == Call::kReserveArena ? 64 : 0,
                                                     c.timeout, r);
    const uint64_t took = VirtualClock::peek() - t0;
    EXPECT_FALSE(got) << c.name << ": flag raised at +" << c.rise << " of " << c.timeout << " ns";
    EXPECT_EQ(kind(), wire::kRemoteAborted) << c.name << ": " << Api::message(ep());
    EXPECT_GE(took, c.rise) << c.name << ": remote abort before the flag rose";
    EXPECT_LE(took, c.timeout) << c.name << ": ended past its deadline";
    EXPECT_FALSE(ep().live()) << c.name;
    {
      SPSQ_JUDGING("S4.POISON.13");
      EXPECT_EQ(peer().l2_flag(), 0) << c.name << ": remote abort must not raise the local flag";
    }
    if (c.call == Call::kPeek) {
      SPSQ_JUDGING("AMB.TIMEOUTOP/peek");
      RecordTimeoutOp("peek", wire::kOpInputTryPeek);
    } else {
      SPSQ_JUDGING("AMB.TIMEOUTOP/reserve");
      RecordTimeoutOp("reserve", wire::kOpOutputTryReserve);
    }
  }
}

#endif  // !SPSQ_L2_TYPED

}  // namespace
}  // namespace spsq_conf
