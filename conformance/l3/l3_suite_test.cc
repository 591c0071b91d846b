// The L3 queue against a scripted and hostile L2: the clauses that bind L3
// (spec sections 1, 3, 4 and the wire contract), through the L3Adapter.
#include <cstring>
#include <limits>
#include <vector>

#include "conformance/l3/l3_fixture.h"

namespace spsq_conf {
namespace {

constexpr int32_t kMin = std::numeric_limits<int32_t>::min();

class L3Suite : public L3Test {
 protected:
  // Publishes `n` DATA outputs from the scripted L2.
  void Outputs(uint64_t n, uint64_t bytes = 8) {
    for (uint64_t i = 0; i < n; ++i) {
      ASSERT_EQ(peer().publish_data(Bytes(bytes, static_cast<uint8_t>(i))), Enqueue::kOk);
    }
  }
  void ExpectRejectsEverything(const char* context) {
    const size_t mark = log().mark();
    L3Message m;
    uint8_t buf[64];
    EXPECT_EQ(l3().try_enqueue(buf, 8), L3Status::kFailed) << context;
    EXPECT_EQ(l3().enqueue(buf, 8, 1000), L3Status::kFailed) << context;
    EXPECT_EQ(l3().try_peek(&m), L3Status::kFailed) << context;
    EXPECT_EQ(l3().peek(1000, &m), L3Status::kFailed) << context;
    EXPECT_EQ(l3().try_dequeue_into(buf, sizeof(buf), &m), L3Status::kFailed) << context;
    EXPECT_EQ(l3().try_request_stop(), L3Status::kFailed) << context;
    if (l3().uses_view()) {
      EXPECT_EQ(log().shared_accesses_since(mark), 0u) << context << ":\n" << log().dump(mark);
    }
  }
};

TEST_F(L3Suite, TaskArgScalarsAreTheBindingInSpecOrder) {
  SPSQ_CLAUSES("S1.BIND.ORDER", "S1.MAGIC.1", "S0.BIND.1", "W.CONST.1");
  uint64_t s[10] = {};
  ASSERT_TRUE(l3().chip_task_arg_scalars(s, 10));
  const auto want = region().scalars();
  for (size_t i = 0; i < 10; ++i) EXPECT_EQ(s[i], want[i]) << "scalar " << i;
  EXPECT_EQ(s[0], 0x5350535100010000ull);
}

TEST_F(L3Suite, LayoutMirrorsTheWire) {
  SPSQ_CLAUSES("S2.LAYOUT.3", "S2.LAYOUT.1", "W.LAYOUT.1");
  for (uint64_t depth : {uint64_t{1}, uint64_t{4}, uint64_t{64}}) {
    QueueParams p;
    p.depth = depth;
    p.input_arena = 192;
    p.output_arena = 320;
    Rebuild(p);
    const LayoutFields l = l3().layout();
    EXPECT_EQ(l.depth, depth);
    EXPECT_EQ(l.input_ring, 0u);
    EXPECT_EQ(l.output_ring, layout().output_ring);
    EXPECT_EQ(l.input_arena, layout().input_arena);
    EXPECT_EQ(l.input_arena_bytes, 192u);
    EXPECT_EQ(l.output_arena, layout().output_arena);
    EXPECT_EQ(l.output_arena_bytes, 320u);
    EXPECT_EQ(l.payload_bytes, layout().payload_bytes);
    EXPECT_EQ(l.counter_bytes, 384u);
  }
}

TEST_F(L3Suite, TryEnqueueReportsAFullRingWithoutPoison) {
  SPSQ_CLAUSES("S1.TRYENQ.1", "S1.TRYENQ.3", "S2.CAP.1", "S2.DEPTH.1", "S4.NOPROG.1");
  for (uint64_t i = 0; i < layout().depth; ++i) {
    ASSERT_EQ(l3().try_enqueue(nullptr, 0), L3Status::kOk) << "input " << i + 1;
  }
  EXPECT_EQ(l3().try_enqueue(nullptr, 0), L3Status::kNoProgress) << "depth + 1";
  ExpectHealthy("ring full");
  const auto got = peer().drain_inputs();
  ASSERT_EQ(got.size(), layout().depth) << "capacity is exactly depth";
  for (uint64_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i].seq, i + 1);
  EXPECT_EQ(l3().try_enqueue(nullptr, 0), L3Status::kOk);
}

TEST_F(L3Suite, TryEnqueueReportsAFullArenaWithoutPoison) {
  SPSQ_CLAUSES("S1.TRYENQ.2", "S1.TRYENQ.3", "S4.NOPROG.2", "W.ARENA.2");
  const auto big = Bytes(200, 1);
  ASSERT_EQ(l3().try_enqueue(big.data(), big.size()), L3Status::kOk);
  const auto mid = Bytes(100, 2);
  EXPECT_EQ(l3().try_enqueue(mid.data(), mid.size()), L3Status::kNoProgress);
  ExpectHealthy("arena full");
  peer().drain_inputs();
  EXPECT_EQ(l3().try_enqueue(mid.data(), mid.size()), L3Status::kOk);
  Message m;
  ASSERT_TRUE(peer().poll_input(&m));
  EXPECT_EQ(m.payload, mid);
}

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

TEST_F(L3Suite, NoOutputIsNoProgress) {
  SPSQ_CLAUSES("S1.TRYPEEK.1", "S4.NOPROG.3");
  L3Message m;
  uint8_t buf[8];
  EXPECT_EQ(l3().try_peek(&m), L3Status::kNoProgress);
  EXPECT_EQ(l3().try_dequeue_into(buf, sizeof(buf), &m), L3Status::kNoProgress);
  ExpectHealthy("empty output queue");
}

TEST_F(L3Suite, APeekedHandleStaysActiveUntilReleased) {
  SPSQ_CLAUSES("S4.L3OUT.1", "S4.L3OUT.2", "S4.OWN.1");
  Outputs(2);
  L3Message a, b;
  ASSERT_EQ(l3().peek(1000, &a), L3Status::kOk);
  EXPECT_EQ(a.seq, 1u);
  ASSERT_EQ(l3().try_peek(&b), L3Status::kOk);
  EXPECT_EQ(b.seq, 1u) << "try_peek returns the same active handle";
  EXPECT_EQ(b.payload_offset, a.payload_offset);
  EXPECT_EQ(peer().counter(wire::kOutputHead), 0) << "released before release()";
  ASSERT_EQ(l3().release(a), L3Status::kOk);
  EXPECT_EQ(peer().counter(wire::kOutputHead), 1);
  ASSERT_EQ(l3().try_peek(&b), L3Status::kOk);
  EXPECT_EQ(b.seq, 2u);
}

TEST_F(L3Suite, ReleasingTheWrongHandlePoisons) {
  SPSQ_CLAUSES("S4.L3OUT.3", "S4.POISON.9", "S4.POISON.11", "W.FLAG.1", "S1.DIAG.1");
  Outputs(2);
  L3Message a;
  ASSERT_EQ(l3().peek(1000, &a), L3Status::kOk);
  L3Message wrong = a;
  wrong.seq = 2;
  EXPECT_EQ(l3().release(wrong), L3Status::kFailed);
  ExpectPoisoned(0, "wrong handle");
  EXPECT_EQ(peer().counter(wire::kOutputHead), 0);
  EXPECT_EQ(l3().error().session_instance_id_bits, region().params().session);
  EXPECT_EQ(l3().error().transaction_id, region().params().transaction);
}

TEST_F(L3Suite, DequeueIntoCopiesAndReleasesInOneCall) {
  SPSQ_CLAUSES("S1.DEQ.1", "S2.ERROR.1", "S2.OPC.4", "S2.SEQ.3", "S0.PURPOSE.1");
  std::vector<uint8_t> err(32);
  wire::encode_descriptor(wire::Descriptor{9, wire::kStop, 1, 1}, err.data());  // looks like a descriptor
  ASSERT_EQ(peer().publish(wire::kError, err.data(), err.size()), Enqueue::kOk);
  Outputs(1, 40);
  std::vector<uint8_t> buf(64);
  L3Message m;
  ASSERT_EQ(l3().try_dequeue_into(buf.data(), buf.size(), &m), L3Status::kOk);
  EXPECT_EQ(m.opcode, wire::kError);
  EXPECT_EQ(std::vector<uint8_t>(buf.begin(), buf.begin() + 32), err);
  EXPECT_EQ(peer().counter(wire::kOutputHead), 1) << "dequeue_into releases";
  ASSERT_EQ(l3().dequeue_into(buf.data(), buf.size(), 1000, &m), L3Status::kOk);
  EXPECT_EQ(m.seq, 2u);
  EXPECT_EQ(std::vector<uint8_t>(buf.begin(), buf.begin() + 40), Bytes(40, 0));
  EXPECT_EQ(peer().counter(wire::kOutputHead), 2);
  ExpectHealthy("after ERROR and DATA");
}

TEST_F(L3Suite, ErrorOutputDoesNotPoison) {
  SPSQ_CLAUSES("S2.ERROR.2", "S4.NOPROG.5");
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(peer().publish(wire::kError, nullptr, 0), Enqueue::kOk);
    L3Message m;
    ASSERT_EQ(l3().try_peek(&m), L3Status::kOk);
    EXPECT_EQ(m.opcode, wire::kError);
    ASSERT_EQ(l3().release(m), L3Status::kOk);
  }
  ExpectHealthy("three ERROR outputs");
}

TEST_F(L3Suite, RequestStopPublishesAZeroByteStop) {
  SPSQ_CLAUSES("S1.STOPAPI.1", "S4.STOP.1", "S4.STOP.4", "W.STOP.1");
  for (int variant = 0; variant < 2; ++variant) {
    Rebuild(QueueParams());
    const auto b = Bytes(10, 1);
    ASSERT_EQ(l3().try_enqueue(b.data(), b.size()), L3Status::kOk);
    const uint64_t t0 = VirtualClock::peek();
    ASSERT_EQ(variant ? l3().request_stop(5000) : l3().try_request_stop(), L3Status::kOk);
    EXPECT_EQ(VirtualClock::peek(), t0) << "nothing to wait for: STOP is published at once";
    const auto in = peer().drain_inputs();
    ASSERT_EQ(in.size(), 2u);
    EXPECT_EQ(in[1].opcode, wire::kStop);
    EXPECT_EQ(in[1].nbytes, 0u);
    EXPECT_EQ(in[1].offset, 0u);
  }
}

TEST_F(L3Suite, InputAfterStopIsRejectedLocally) {
  SPSQ_CLAUSES("S4.STOP.2");
  ASSERT_EQ(l3().try_request_stop(), L3Status::kOk);
  const int32_t tail = peer().counter(wire::kInputTail);
  const auto b = Bytes(4, 1);
  const L3Status s = l3().try_enqueue(b.data(), b.size());
  EXPECT_NE(s, L3Status::kOk);
  EXPECT_NE(s, L3Status::kFailed) << "rejected locally, not poisoned";
  EXPECT_NE(l3().enqueue(b.data(), b.size(), 1000), L3Status::kOk);
  EXPECT_EQ(peer().counter(wire::kInputTail), tail) << "nothing published after STOP";
  ExpectHealthy("input after STOP");
}

TEST_F(L3Suite, RequestStopWaitsNeitherForL2NorForOutputs) {
  SPSQ_CLAUSES("S4.STOP.5", "S4.STOP.3");
  Outputs(2);
  const uint64_t t0 = VirtualClock::peek();
  ASSERT_EQ(l3().request_stop(1000000), L3Status::kOk);
  EXPECT_LT(VirtualClock::peek() - t0, 1000000u) << "request_stop waited for L2";
  EXPECT_EQ(peer().counter(wire::kOutputHead), 0) << "request_stop drained outputs";
  uint8_t buf[16];
  L3Message m;
  ASSERT_EQ(l3().try_dequeue_into(buf, sizeof(buf), &m), L3Status::kOk) << "outputs after STOP";
  ASSERT_EQ(l3().try_dequeue_into(buf, sizeof(buf), &m), L3Status::kOk);
  EXPECT_EQ(m.seq, 2u);
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

struct Hostile {
  const char* name;
  wire::Descriptor d;
  uint32_t kind;
};

TEST_F(L3Suite, HostileOutputsPoisonL3) {
  SPSQ_CLAUSES("S4.POISON.1", "S4.POISON.2", "S4.POISON.3", "S4.POISON.4", "S2.STOP.1",
               "S2.ZERO.2", "W.SEQ.1", "W.DIR.1", "W.ARENA.3", "S2.POISON.1", "S4.POISON.6",
               "AMB.KINDS");
  const wire::Layout& l = layout();
  const Hostile cases[] = {
      {"seq 0", {0, wire::kData, 0, 0}, wire::kInvalidDescriptor},
      {"seq 2 at index 0", {2, wire::kData, 0, 0}, wire::kInvalidDescriptor},
      {"opcode 0", {1, 0, 0, 0}, wire::kInvalidDescriptor},
      {"opcode 9", {1, 9, 0, 0}, wire::kInvalidDescriptor},
      {"STOP on the output", {1, wire::kStop, 0, 0}, wire::kInvalidDescriptor},
      {"payload in the input arena", {1, wire::kData, l.input_arena, 8}, wire::kInvalidDescriptor},
      {"payload past the end", {1, wire::kData, l.payload_bytes - 4, 8}, wire::kInvalidDescriptor},
      {"zero-byte with an offset", {1, wire::kData, l.output_arena, 0}, wire::kInvalidDescriptor},
      {"replay: one byte off", {1, wire::kData, l.output_arena + 1, 8}, wire::kInvalidDescriptor},
  };
  for (const Hostile& c : cases) {
    Rebuild(QueueParams());
    peer().publish_raw(c.d);
    L3Message m;
    EXPECT_EQ(l3().try_peek(&m), L3Status::kFailed) << c.name;
    ExpectPoisoned(c.kind, c.name);
    EXPECT_EQ(peer().counter(wire::kInputTail), 0) << c.name << ": no message to L2 about it";
  }
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

TEST_F(L3Suite, PoisonIsTerminalAndFreeStaysValid) {
  SPSQ_CLAUSES("S4.POISON.10", "S4.POISON.14", "S4.POISON.15");
  peer().publish_raw(wire::Descriptor{5, wire::kData, 0, 0});
  L3Message m;
  EXPECT_EQ(l3().try_peek(&m), L3Status::kFailed);
  ExpectPoisoned(wire::kInvalidDescriptor, "bad seq");
  const uint32_t kind = l3().error().kind;
  ExpectRejectsEverything("after poison");
  EXPECT_EQ(l3().error().kind, kind) << "the first error stays";
  l3().free();  // cleanup after poison
  EXPECT_FALSE(l3().live());
}

TEST_F(L3Suite, ZeroSessionBitsAreAccepted) {
  SPSQ_CLAUSES("S1.SESSION.1");
  QueueParams p;
  p.session = 0;
  Rebuild(p);
  ASSERT_EQ(l3().try_enqueue(nullptr, 0), L3Status::kOk);
  ExpectHealthy("session 0");
}

// Liveness from L3's side: its input must accept any message that fits the
// arena once L2 released everything, and it must accept every placement of
// the arena rule on its output.
TEST_F(L3Suite, LivenessSweepsInBothDirections) {
  SPSQ_CLAUSES("LIVE.1", "LIVE.2", "W.ARENA.1", "W.ARENA.4", "S2.WRAP.1", "S2.FIT.1", "AMB.ROOM");
  for (uint64_t arena = 64; arena <= 512; arena += 64) {
    const uint64_t sizes[] = {0, 1, 63, 64, 65, arena / 2, arena - 1, arena};
    for (uint64_t a : sizes) {
      for (uint64_t b : sizes) {
        for (uint64_t s : sizes) {
          if (a > arena || b > arena || s > arena) continue;
          QueueParams p;
          p.depth = 2;
          p.input_arena = arena;
          p.output_arena = arena;
          Rebuild(p);
          for (uint64_t n : {a, b, s}) {
            const auto bytes = Bytes(n, static_cast<uint8_t>(n));
            ASSERT_EQ(l3().try_enqueue(bytes.data(), n), L3Status::kOk)
                << "arena " << arena << " sizes " << a << "," << b << "," << s
                << ": L3 refused " << n << " bytes with everything released";
            Message in;
            ASSERT_TRUE(peer().poll_input(&in));
            ASSERT_EQ(in.payload, bytes);
            peer().release_inputs(1);
            ASSERT_EQ(peer().publish_data(bytes), Enqueue::kOk);
            std::vector<uint8_t> buf(arena + 1);
            L3Message m;
            ASSERT_EQ(l3().try_dequeue_into(buf.data(), buf.size(), &m), L3Status::kOk)
                << "arena " << arena << ": L3 refused an output placed by the rule";
            ASSERT_EQ(std::vector<uint8_t>(buf.begin(), buf.begin() + n), bytes);
          }
          if (HasFailure()) return;
        }
      }
    }
  }
}

TEST_F(L3Suite, InputDescriptorsOnTheWire) {
  SPSQ_CLAUSES("S2.DESC.1", "W.DESC.1", "S2.SEQ.1", "S2.OFF.1", "S2.ZERO.1", "S2.OPC.1",
               "S2.OPC.2", "S2.OPC.3", "W.ENUM.1", "W.LAYOUT.2", "S3.CTR.2");
  const uint64_t sizes[] = {5, 0, 40, 1, 0, 63, 7, 9, 100};
  for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
    const auto b = Bytes(sizes[i], static_cast<uint8_t>(i));
    ASSERT_EQ(l3().try_enqueue(b.data(), b.size()), L3Status::kOk) << i;
    uint8_t raw[32];
    region().memory().read(layout().input_slot(i), raw, 32);
    const wire::Descriptor d = wire::decode_descriptor(raw);
    EXPECT_EQ(raw[0], static_cast<uint8_t>(i + 1)) << "seq little-endian at byte 0";
    EXPECT_EQ(d.seq, i + 1);
    EXPECT_EQ(d.opcode, 1u) << "DATA is 1";
    EXPECT_EQ(d.nbytes, sizes[i]);
    if (sizes[i] == 0) {
      EXPECT_EQ(d.offset, 0u) << "zero-byte: offset 0";
    }
    Message m;  // the model judges offsets (relative to the payload base) and order
    ASSERT_TRUE(peer().poll_input(&m)) << i;
    EXPECT_EQ(m.payload, b);
    peer().release_inputs(1);
  }
  ASSERT_EQ(l3().try_request_stop(), L3Status::kOk);
  uint8_t raw[32];
  region().memory().read(layout().input_slot(9), raw, 32);
  EXPECT_EQ(wire::decode_descriptor(raw).opcode, 2u) << "STOP is 2";
  // Golden layout vectors, from L3's side.
  const uint64_t golden[4][7] = {{1, 64, 64, 32, 64, 128, 192},
                                 {4, 128, 192, 128, 256, 384, 576},
                                 {8, 192, 64, 256, 512, 704, 768},
                                 {2, 64, 128, 64, 128, 192, 320}};
  for (const auto& g : golden) {
    QueueParams p;
    p.depth = g[0];
    p.input_arena = g[1];
    p.output_arena = g[2];
    Rebuild(p);
    const LayoutFields l = l3().layout();
    EXPECT_EQ(l.output_ring, g[3]);
    EXPECT_EQ(l.input_arena, g[4]);
    EXPECT_EQ(l.output_arena, g[5]);
    EXPECT_EQ(l.payload_bytes, g[6]);
  }
}

TEST_F(L3Suite, InvalidBindingsAreRejected) {
  SPSQ_CLAUSES("S2.DEPTH.2", "S2.ARENA.3");
  struct Bad {
    const char* name;
    int scalar;
    uint64_t value;
  } cases[] = {{"depth 3", 7, 3}, {"depth 0", 7, 0}, {"depth 2^31", 7, uint64_t{1} << 31},
               {"input arena 65", 8, 65}, {"output arena 0", 9, 0}};
  for (const Bad& c : cases) {
    auto s = region().scalars();
    s[c.scalar] = c.value;
    std::unique_ptr<L3Adapter> other = make_l3_adapter();
    const size_t mark = log().mark();
    const bool opened = other->open(s.data(), s.size(), region().view(), &VirtualClock::now_ns);
    EXPECT_FALSE(opened && other->live()) << c.name << " accepted";
    EXPECT_EQ(log().shared_accesses_since(mark), 0u) << c.name;
  }
  EXPECT_EQ(l3_flag(), 0);
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

TEST_F(L3Suite, FailedSharedMutationPoisons) {
  SPSQ_CLAUSES("S4.POISON.7", "S4.POISON.8", "W.VIEW.2");
  if (!l3().uses_view()) GTEST_SKIP() << l3().name() << " does not run on the harness view";
  for (ViewCall call : {ViewCall::kWrite, ViewCall::kNotify}) {
    Rebuild(QueueParams());
    region().view_state().sticky_faults = false;  // the flag can still be raised
    region().faults().arm(call, 1);
    const auto b = Bytes(16, 1);
    EXPECT_EQ(l3().try_enqueue(b.data(), b.size()), L3Status::kFailed) << view_call_name(call);
    ASSERT_TRUE(region().faults().fired());
    ExpectPoisoned(wire::kEndpointError, view_call_name(call));
    EXPECT_EQ(peer().counter(wire::kInputTail), 0) << "published after a failed write";
  }
}

TEST_F(L3Suite, BlockingCallSamplesThePeerFlag) {
  SPSQ_CLAUSES("OPEN.ABORTSAMPLE");
  Outputs(1);
  peer().set_peer_flag(1);
  L3Message m;
  const L3Status first = l3().peek(1000, &m);
  Rebuild(QueueParams());
  peer().set_peer_flag(1);
  const uint64_t t0 = VirtualClock::peek();
  EXPECT_EQ(l3().peek(1000, &m), L3Status::kFailed);
  EXPECT_EQ(l3().error().kind, wire::kRemoteAborted);
  const uint64_t waited = VirtualClock::peek() - t0;
  EXPECT_LE(waited, 1000u);
  if (first == L3Status::kOk && waited == 1000) {
    SPSQ_READING("OPEN.ABORTSAMPLE", "A", "L3: flag sampled only after the wait expired");
  } else {
    SPSQ_READING("OPEN.ABORTSAMPLE", "B", "L3: flag sampled early");
  }
}

TEST_F(L3Suite, TheSectionFiveScenarioFromL3) {
  SPSQ_CLAUSES("S5.EX.3", "S5.EX.9", "S2.SEQ.2");
  auto header = [](uint64_t id, uint64_t a, uint64_t b) {
    std::vector<uint8_t> h(64, 0);
    wire::store_le64(h.data(), id);
    wire::store_le64(h.data() + 8, a);
    wire::store_le64(h.data() + 16, b);
    return h;
  };
  // An initial pair of DATA inputs (request ids 0, 0).
  for (uint64_t mode : {1, 2}) {
    const auto h = header(0, mode, 0);
    ASSERT_EQ(l3().try_enqueue(h.data(), h.size()), L3Status::kOk);
  }
  Message in;
  ASSERT_TRUE(peer().poll_input(&in));
  ASSERT_TRUE(peer().poll_input(&in));
  for (uint64_t kind : {20, 10, 11}) {
    const auto h = header(0, kind, 0);
    ASSERT_EQ(peer().publish_data(h), Enqueue::kOk);
  }
  peer().release_inputs(2);
  // L3 drains the three outputs.
  std::vector<uint8_t> buf(64);
  std::vector<uint64_t> kinds;
  L3Message m;
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(l3().dequeue_into(buf.data(), buf.size(), 1000, &m), L3Status::kOk);
    kinds.push_back(wire::load_le64(buf.data() + 8));
    EXPECT_EQ(m.seq, static_cast<uint64_t>(i + 1));
  }
  // Another pair (request ids 0 and 7), then STOP.
  for (uint64_t id : {0, 7}) {
    const auto h = header(id, 3, 0);
    ASSERT_EQ(l3().try_enqueue(h.data(), h.size()), L3Status::kOk);
  }
  ASSERT_EQ(l3().request_stop(1000), L3Status::kOk);
  Message a, b, stop;
  ASSERT_TRUE(peer().poll_input(&a));
  ASSERT_TRUE(peer().poll_input(&b));
  ASSERT_TRUE(peer().poll_input(&stop));
  EXPECT_EQ(stop.opcode, wire::kStop);
  const auto combined = header(wire::load_le64(a.payload.data()), 30, wire::load_le64(b.payload.data()));
  ASSERT_EQ(peer().publish_data(combined), Enqueue::kOk);
  peer().release_inputs(3);
  ASSERT_EQ(l3().dequeue_into(buf.data(), buf.size(), 1000, &m), L3Status::kOk);
  kinds.push_back(wire::load_le64(buf.data() + 8));
  EXPECT_EQ(m.seq, 4u) << "the transport seq, not a request id";
  EXPECT_EQ(wire::load_le64(buf.data()), 0u);
  EXPECT_EQ(wire::load_le64(buf.data() + 16), 7u);
  EXPECT_EQ(kinds, (std::vector<uint64_t>{20, 10, 11, 30}));
  ExpectHealthy("scenario");
}

}  // namespace
}  // namespace spsq_conf
