// Spec section 2, "Layout And Descriptor", from the L2 side: the layout and
// its validation, capacity, arena placement, descriptor bytes, opcodes.
#include <cstring>
#include <vector>

#include "conformance/l2/l2_fixture.h"

namespace spsq_conf {
namespace {

class LayoutDescriptor : public L2Test {
 protected:
  // Rejection without any shared access or flag (construction errors).
  template <uint64_t N = 1>
  void ExpectRejected(const Binding& b, const char* what) {
    const size_t mark = log().mark();
    auto e = q().make_endpoint_from<N>(b);
    EXPECT_FALSE(e->live()) << what << ": accepted";
    EXPECT_NE(EndpointAccess<EndpointT<N>>::kind(*e), wire::kKindNone) << what;
    EXPECT_EQ(log().shared_accesses_since(mark), 0u) << what << ":\n" << log().dump(mark);
    EXPECT_EQ(peer().l2_flag(), 0) << what;
  }
  wire::Descriptor OutputSlot(uint64_t k) {
    uint8_t b[32];
    q().memory().read(layout().output_slot(k), b, 32);
    return wire::decode_descriptor(b);
  }
};

TEST_F(LayoutDescriptor, LayoutMatchesTheWireModel) {
  SPSQ_CLAUSES("S2.LAYOUT.1", "S2.LAYOUT.2", "W.LAYOUT.1", "W.LAYOUT.2");
  struct P {
    uint64_t depth, in, out;
  };
  std::vector<P> cases = {{1, 64, 64}, {4, 128, 192}, {8, 192, 64}, {2, 64, 128}};
  for (uint64_t d = 1; d <= 1024; d *= 2) cases.push_back(P{d, 4096, 192});
  cases.push_back(P{3 * 0 + 16, 64 * 7, 64 * 13});
  for (const P& c : cases) {
    QueueParams p;
    p.depth = c.depth;
    p.input_arena = c.in;
    p.output_arena = c.out;
    Rebuild(p, false);
    auto e = q().make_endpoint<1>();
    ASSERT_TRUE(e->live()) << c.depth;
    const LayoutFields l = EndpointAccess<EndpointT<1>>::layout(*e);
    const wire::Layout& m = layout();
    EXPECT_EQ(l.depth, c.depth);
    EXPECT_EQ(l.input_ring, 0u) << c.depth;
    EXPECT_EQ(l.output_ring, m.output_ring) << c.depth;
    EXPECT_EQ(l.input_arena, m.input_arena) << c.depth;
    EXPECT_EQ(l.input_arena_bytes, c.in);
    EXPECT_EQ(l.output_arena, m.output_arena) << c.depth;
    EXPECT_EQ(l.output_arena_bytes, c.out);
    EXPECT_EQ(l.payload_bytes, m.payload_bytes) << c.depth;
    EXPECT_EQ(l.counter_bytes, 384u);
    // Diagram order: input ring, output ring, input arena, output arena.
    EXPECT_LE(l.input_ring + c.depth * 32, l.output_ring);
    EXPECT_LE(l.output_ring + c.depth * 32, l.input_arena);
    EXPECT_LE(l.input_arena + c.in, l.output_arena);
    EXPECT_EQ(l.output_arena + c.out, l.payload_bytes);
  }
}

TEST_F(LayoutDescriptor, DepthMustBeAPowerOfTwoAtMostTwoToThe30) {
  SPSQ_CLAUSES("S2.DEPTH.2");
  for (uint64_t bad : {uint64_t{0}, uint64_t{3}, uint64_t{6}, uint64_t{12}, uint64_t{1} << 31,
                       uint64_t{1} << 32, ~uint64_t{0}}) {
    wire::BindingFields f = q().fields();
    f.depth = bad;
    ExpectRejected(q().binding_with(f), "bad depth");
  }
}

TEST_F(LayoutDescriptor, DepthTwoToThe30IsAccepted) {
  SPSQ_CLAUSES("S2.DEPTH.2", "S2.DEPTH.1");
  QueueParams p;
  p.depth = wire::kMaxDepth;
  p.input_arena = 64;
  p.output_arena = 64;
  Rebuild(p, false);  // ~64 GiB of lazily mapped payload; only touched pages cost
  auto e = q().make_endpoint<1>();
  ASSERT_TRUE(e->live()) << EndpointAccess<EndpointT<1>>::message(*e);
  ASSERT_EQ(peer().enqueue_data(Bytes(8, 1)), ScriptedL3::Enqueue::kOk);
  Handle h{};
  ASSERT_TRUE(e->input().try_peek(h));
  EXPECT_EQ(HandleBytes(h), Bytes(8, 1));
  ASSERT_TRUE(e->input().release(h));
  Reservation r{};
  ASSERT_TRUE(e->output().try_reserve(0, r));
  ASSERT_TRUE(e->output().publish(r, Api::opcode_value(wire::kData)));
  ScriptedL3::Message m;
  ASSERT_TRUE(peer().poll_output(&m));
  EXPECT_EQ(m.seq, 1u);
}

TEST_F(LayoutDescriptor, ArenasMustBePositiveMultiplesOf64) {
  SPSQ_CLAUSES("S2.ARENA.3");
  for (uint64_t bad : {uint64_t{0}, uint64_t{32}, uint64_t{65}, uint64_t{100}}) {
    wire::BindingFields f = q().fields();
    f.input_arena_bytes = bad;
    ExpectRejected(q().binding_with(f), "bad input arena");
    f = q().fields();
    f.output_arena_bytes = bad;
    ExpectRejected(q().binding_with(f), "bad output arena");
  }
}

TEST_F(LayoutDescriptor, BindingSizesMustMatchTheLayout) {
  SPSQ_CLAUSES("S2.BINDSIZE.1");
  const uint64_t good = layout().payload_bytes;
  for (uint64_t bad : {good - 64, good + 64, good - 1, uint64_t{0}}) {
    wire::BindingFields f = q().fields();
    f.payload_bytes = bad;
    q().view_state().payload_span = bad;  // view agrees with the binding, layout does not
    ExpectRejected(q().binding_with(f), "payload_bytes");
  }
  q().view_state().payload_span = good;
  for (uint64_t bad : {uint64_t{0}, uint64_t{383}, uint64_t{385}, uint64_t{768}}) {
    wire::BindingFields f = q().fields();
    f.counter_bytes = bad;
    q().view_state().counter_span = bad;
    ExpectRejected(q().binding_with(f), "counter_bytes");
  }
  q().view_state().counter_span = 384;
}

TEST_F(LayoutDescriptor, BindingSizesMustMatchTheViewSpans) {
  SPSQ_CLAUSES("S2.BINDSIZE.2");
  const uint64_t good = layout().payload_bytes;
  for (uint64_t span : {good - 1, good + 1, good + 64}) {
    q().view_state().payload_span = span;
    ExpectRejected(q().binding(), "payload span");
  }
  q().view_state().payload_span = good;
  for (uint64_t span : {uint64_t{383}, uint64_t{385}}) {
    q().view_state().counter_span = span;
    ExpectRejected(q().binding(), "counter span");
  }
  q().view_state().counter_span = 384;
}

TEST_F(LayoutDescriptor, OutputCapacityIsExactlyDepth) {
  SPSQ_CLAUSES("S2.CAP.1", "S2.DEPTH.1", "S4.NOPROG.1");
  for (uint64_t depth : {uint64_t{1}, uint64_t{2}, uint64_t{4}, uint64_t{8}}) {
    if (depth < kN) continue;
    QueueParams p;
    p.depth = depth;
    Rebuild(p);
    for (uint64_t i = 0; i < depth; ++i) {
      ASSERT_TRUE(send(wire::kData, {})) << "output " << i + 1 << " of depth " << depth;
    }
    Reservation r{};
    EXPECT_FALSE(try_reserve(0, r)) << "depth " << depth << ": a message beyond capacity";
    ExpectHealthy("ring full");
    const auto got = peer().drain_outputs();
    ASSERT_EQ(got.size(), depth);
    for (uint64_t i = 0; i < depth; ++i) EXPECT_EQ(got[i].seq, i + 1);
    EXPECT_TRUE(send(wire::kData, {})) << "room again after L3 released";
  }
}

TEST_F(LayoutDescriptor, InputCapacityIsExactlyDepth) {
  SPSQ_CLAUSES("S2.CAP.1", "S2.DEPTH.1", "S3.CTR.2");
  for (uint64_t depth : {uint64_t{1}, uint64_t{2}, uint64_t{4}, uint64_t{8}}) {
    if (depth < kN) continue;
    QueueParams p;
    p.depth = depth;
    Rebuild(p);
    for (uint64_t i = 0; i < depth; ++i) {
      ASSERT_EQ(peer().enqueue_data(Bytes(3, static_cast<uint8_t>(i))), ScriptedL3::Enqueue::kOk);
    }
    EXPECT_EQ(peer().counter(wire::kInputTail), static_cast<int32_t>(depth));
    for (uint64_t i = 0; i < depth; ++i) {
      Handle h{};
      ASSERT_TRUE(try_peek(h)) << "input " << i + 1 << " of " << depth << " published at once";
      EXPECT_EQ(Api::seq(h), i + 1);
      EXPECT_EQ(HandleBytes(h), Bytes(3, static_cast<uint8_t>(i)));
      ASSERT_TRUE(release(h));
    }
    ExpectHealthy("all consumed");
  }
}

TEST_F(LayoutDescriptor, OutputPayloadsAreContiguousAndSkipTheArenaTail) {
  SPSQ_CLAUSES("S2.FIT.1", "S2.WRAP.1", "W.ARENA.1", "W.ARENA.4", "S2.ARENA.2", "S2.OFF.1");
  // Output arena 256: 100 at 0, 100 at 100, then 100 would cross 256: skip to 0.
  // The last one skips too, and fits the literal room bound: the arena is
  // idle there, and a message that fits only on an idle arena is AMB.ROOM's
  // case, judged in interpretations_test.cc.
  const uint64_t sizes[] = {100, 100, 100, 1, 3, 63, 160};
  const uint64_t want_pos[] = {0, 100, 0, 100, 101, 104, 0};
  const uint8_t* base = q().memory().payload();
  for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
    Reservation r{};
    ASSERT_TRUE(try_reserve(sizes[i], r)) << "message " << i;
    EXPECT_EQ(Api::payload(r), base + layout().output_arena + want_pos[i])
        << "message " << i << " of " << sizes[i] << " bytes";
    const auto bytes = Bytes(sizes[i], static_cast<uint8_t>(i));
    q().l2_store(Api::payload(r), bytes.data(), bytes.size());
    ASSERT_TRUE(publish(r, wire::kData));
    ScriptedL3::Message m;
    ASSERT_TRUE(peer().poll_output(&m)) << "message " << i;  // offset judged by the model
    EXPECT_EQ(m.offset, layout().output_arena + want_pos[i]);
    EXPECT_EQ(m.payload, bytes);
    peer().release_outputs(1);
  }
}

TEST_F(LayoutDescriptor, MessageLargerThanTheArenaIsRefusedWithoutPoison) {
  SPSQ_CLAUSES("S2.FIT.2");
  Reservation r{};
  EXPECT_FALSE(try_reserve(layout().output_arena_bytes + 1, r));
  ExpectHealthy("try_reserve(arena + 1)");
  EXPECT_FALSE(reserve(layout().output_arena_bytes + 1, 1000, r));
  ExpectHealthy("reserve(arena + 1)");
  EXPECT_FALSE(try_reserve(~uint64_t{0}, r));
  ExpectHealthy("try_reserve(2^64 - 1)");
  ASSERT_TRUE(try_reserve(layout().output_arena_bytes, r)) << "a message of the arena's size";
  ASSERT_TRUE(publish(r, wire::kData));
}

TEST_F(LayoutDescriptor, InputPlacementsWithSkipAreAcceptedAtTheirOffsets) {
  SPSQ_CLAUSES("S2.WRAP.1", "W.ARENA.1", "W.ARENA.4", "S2.OFF.1", "S2.FIT.1");
  const uint64_t sizes[] = {100, 100, 100, 7, 1, 200};
  const uint8_t* base = q().memory().payload();
  for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
    const uint64_t want = peer().next_input_offset(sizes[i]);
    ASSERT_EQ(peer().enqueue_data(Bytes(sizes[i], static_cast<uint8_t>(i))),
              ScriptedL3::Enqueue::kOk);
    Handle h{};
    ASSERT_TRUE(try_peek(h)) << "input " << i;
    EXPECT_EQ(Api::payload(h), base + want) << "input " << i;
    EXPECT_EQ(HandleBytes(h), Bytes(sizes[i], static_cast<uint8_t>(i)));
    ASSERT_TRUE(release(h));
  }
}

TEST_F(LayoutDescriptor, DescriptorSlotsAre32LittleEndianBytes) {
  SPSQ_CLAUSES("S2.DESC.1", "W.DESC.1", "S2.SEQ.1", "W.SEQ.1", "S0.PURPOSE.1");
  const uint64_t depth = layout().depth;
  for (uint64_t k = 0; k < 2 * depth + 1; ++k) {
    const auto bytes = Bytes(5 + k % 3, static_cast<uint8_t>(k));
    ASSERT_TRUE(send(k % 2 ? wire::kError : wire::kData, bytes)) << k;
    uint8_t raw[32];
    q().memory().read(layout().output_slot(k), raw, 32);
    const wire::Descriptor d = wire::decode_descriptor(raw);
    EXPECT_EQ(raw[0], static_cast<uint8_t>(k + 1)) << "seq is little-endian at byte 0";
    EXPECT_EQ(d.seq, k + 1) << "slot " << k % depth;
    EXPECT_EQ(d.opcode, k % 2 ? wire::kError : wire::kData);
    EXPECT_EQ(d.nbytes, bytes.size());
    ScriptedL3::Message m;
    ASSERT_TRUE(peer().poll_output(&m));
    EXPECT_EQ(m.payload, bytes) << "message " << k << " in order";
    peer().release_outputs(1);
  }
}

TEST_F(LayoutDescriptor, ZeroByteMessagesUseOffsetZero) {
  SPSQ_CLAUSES("S2.ZERO.1");
  ASSERT_TRUE(send(wire::kData, Bytes(10, 1)));  // moves the arena cursor
  ASSERT_TRUE(send(wire::kData, {}));
  const wire::Descriptor d = OutputSlot(1);
  EXPECT_EQ(d.offset, 0u);
  EXPECT_EQ(d.nbytes, 0u);
  ASSERT_EQ(peer().enqueue_data(Bytes(10, 2)), ScriptedL3::Enqueue::kOk);
  ASSERT_EQ(peer().enqueue(wire::kData, nullptr, 0), ScriptedL3::Enqueue::kOk);
  Handle h{};
  ASSERT_TRUE(try_peek(h));
  ASSERT_TRUE(release(h));
  ASSERT_TRUE(try_peek(h));
  EXPECT_EQ(Api::nbytes(h), 0u);
  EXPECT_EQ(Api::seq(h), 2u);
  ASSERT_TRUE(release(h));
  ExpectHealthy("zero-byte both ways");
}

TEST_F(LayoutDescriptor, ZeroByteInputWithAnOffsetPoisons) {
  SPSQ_CLAUSES("S2.ZERO.2", "W.STOP.1");
  peer().publish_raw(wire::Descriptor{1, wire::kData, layout().input_arena, 0});
  Handle h{};
  EXPECT_FALSE(try_peek(h));
  ExpectPoisoned(wire::kInvalidDescriptor, "zero-byte DATA with payload_offset != 0");
}

TEST_F(LayoutDescriptor, OpcodesOnTheWire) {
  SPSQ_CLAUSES("S2.OPC.1", "S2.OPC.2", "W.ENUM.1", "W.DIR.1");
  ASSERT_EQ(peer().enqueue_data(Bytes(4, 9)), ScriptedL3::Enqueue::kOk);
  Handle h{};
  ASSERT_TRUE(try_peek(h));
  EXPECT_EQ(Api::opcode(h), 1u) << "DATA is opcode 1";
  EXPECT_EQ(HandleBytes(h), Bytes(4, 9));
  ASSERT_TRUE(release(h));
  ASSERT_TRUE(send(wire::kData, Bytes(4, 1)));
  ASSERT_TRUE(send(wire::kError, Bytes(4, 2)));
  EXPECT_EQ(OutputSlot(0).opcode, 1u);
  EXPECT_EQ(OutputSlot(1).opcode, 3u);
}

TEST_F(LayoutDescriptor, ErrorOutputIsANormalMessage) {
  SPSQ_CLAUSES("S2.OPC.4", "S2.ERROR.1", "S4.NOPROG.5");
  // Payload bytes that look like a descriptor: the queue must not read them.
  std::vector<uint8_t> bytes(32);
  wire::encode_descriptor(wire::Descriptor{99, wire::kStop, 7, 7}, bytes.data());
  ASSERT_TRUE(send(wire::kError, bytes));
  ExpectHealthy("after publishing ERROR");
  ScriptedL3::Message m;
  ASSERT_TRUE(peer().poll_output(&m));
  EXPECT_EQ(m.opcode, wire::kError);
  EXPECT_EQ(m.payload, bytes);
  peer().release_outputs(1);
  ASSERT_TRUE(send(wire::kData, Bytes(4, 4))) << "traffic continues after ERROR";
}

TEST_F(LayoutDescriptor, StopOnTheOutputPoisons) {
  SPSQ_CLAUSES("S2.STOP.1", "S4.POISON.3", "W.DIR.1");
  Reservation r{};
  ASSERT_TRUE(try_reserve(0, r));
  EXPECT_FALSE(publish(r, wire::kStop));
  ExpectPoisoned(0, "publish(r, STOP)");
  RecordKind("output_stop");
  EXPECT_EQ(peer().counter(wire::kOutputTail), 0) << "nothing may be published";
}

TEST_F(LayoutDescriptor, StopOnTheOutputWithPayloadPoisons) {
  SPSQ_CLAUSES("S2.STOP.1", "S4.POISON.3");
  Reservation r{};
  ASSERT_TRUE(try_reserve(16, r));
  EXPECT_FALSE(publish(r, wire::kStop));
  ExpectPoisoned(0, "publish(r16, STOP)");
  EXPECT_EQ(peer().counter(wire::kOutputTail), 0);
}

TEST_F(LayoutDescriptor, InvalidOutputOpcodesNeverReachTheWire) {
  SPSQ_CLAUSES("W.DIR.1", "S2.OPC.1");
  for (uint64_t bad : {uint64_t{0}, uint64_t{4}, uint64_t{255}}) {
    QueueParams p = q().params();
    Rebuild(p);
    Reservation r{};
    ASSERT_TRUE(try_reserve(0, r));
    EXPECT_FALSE(publish(r, bad)) << "opcode " << bad;
    EXPECT_EQ(peer().counter(wire::kOutputTail), 0) << "opcode " << bad << " was published";
    // Refusing is required; poisoning is allowed, and then done properly.
    if (!ep().live()) ExpectPoisoned(0, "invalid output opcode");
  }
}

TEST_F(LayoutDescriptor, StopInputStartsShutdown) {
  SPSQ_CLAUSES("S2.OPC.3");
  ASSERT_EQ(peer().enqueue_stop(), ScriptedL3::Enqueue::kOk);
  EXPECT_FALSE(drained());
  Handle h{};
  ASSERT_TRUE(try_peek(h));
  EXPECT_EQ(Api::opcode(h), wire::kStop);
  EXPECT_EQ(Api::nbytes(h), 0u);
  ASSERT_TRUE(release(h));
  EXPECT_TRUE(drained());
}

TEST_F(LayoutDescriptor, SeqIsTransportNotARequestId) {
  SPSQ_CLAUSES("S2.SEQ.2", "S2.SEQ.3");
  // Request ids live in a payload header; the queue carries them untouched.
  const uint64_t ids[] = {7, 7, 0};
  for (uint64_t id : ids) {
    std::vector<uint8_t> header(64, 0);
    wire::store_le64(header.data(), id);
    ASSERT_EQ(peer().enqueue_data(header), ScriptedL3::Enqueue::kOk);
  }
  for (uint64_t i = 0; i < 3; ++i) {
    Handle h{};
    ASSERT_TRUE(try_peek(h));
    EXPECT_EQ(Api::seq(h), i + 1) << "seq counts messages, whatever the request id";
    const auto bytes = HandleBytes(h);
    ASSERT_EQ(bytes.size(), 64u);
    EXPECT_EQ(wire::load_le64(bytes.data()), ids[i]);
    ASSERT_TRUE(send(wire::kData, bytes));
    ASSERT_TRUE(release(h));
  }
  const auto out = peer().drain_outputs();
  ASSERT_EQ(out.size(), 3u);
  for (uint64_t i = 0; i < 3; ++i) {
    EXPECT_EQ(out[i].seq, i + 1);
    EXPECT_EQ(wire::load_le64(out[i].payload.data()), ids[i]);
  }
}

TEST_F(LayoutDescriptor, InfrastructureFailuresPoisonInsteadOfSendingError) {
  SPSQ_CLAUSES("S2.POISON.1");
  ASSERT_TRUE(send(wire::kData, Bytes(4, 1)));
  peer().publish_raw(wire::Descriptor{9, wire::kData, 0, 0});  // bad seq
  Handle h{};
  EXPECT_FALSE(try_peek(h));
  ExpectPoisoned(wire::kInvalidDescriptor, "seq mismatch");
  EXPECT_EQ(peer().counter(wire::kOutputTail), 1) << "no ERROR message for a poison";
}


TEST_F(LayoutDescriptor, AnExactFitAtTheArenaEndDoesNotSkip) {
  SPSQ_CLAUSES("W.ARENA.1", "S2.WRAP.1");
  // pos + n == arena_bytes fits: only pos + n > arena_bytes skips.
  const uint64_t half = layout().output_arena_bytes / 2;
  const uint8_t* base = q().memory().payload();
  for (uint64_t i = 0; i < 3; ++i) {
    Reservation r{};
    ASSERT_TRUE(try_reserve(half, r)) << "output " << i;
    EXPECT_EQ(Api::payload(r), base + layout().output_arena + (i % 2) * half) << "output " << i;
    const auto bytes = Bytes(half, static_cast<uint8_t>(i));
    q().l2_store(Api::payload(r), bytes.data(), bytes.size());
    ASSERT_TRUE(publish(r, wire::kData));
    ScriptedL3::Message m;
    ASSERT_TRUE(peer().poll_output(&m)) << "output " << i;
    EXPECT_EQ(m.offset, layout().output_arena + (i % 2) * half);
    peer().release_outputs(1);
  }
  const uint64_t in_half = layout().input_arena_bytes / 2;
  for (uint64_t i = 0; i < 3; ++i) {
    const uint64_t want = peer().next_input_offset(in_half);
    EXPECT_EQ(want, layout().input_arena + (i % 2) * in_half) << "the model's own rule";
    ASSERT_EQ(peer().enqueue_data(Bytes(in_half, static_cast<uint8_t>(i))),
              ScriptedL3::Enqueue::kOk);
    Handle h{};
    ASSERT_TRUE(try_peek(h)) << "input " << i << " ending exactly at the arena end";
    EXPECT_EQ(Api::payload(h), base + want) << "input " << i;
    ASSERT_TRUE(release(h));
  }
  ExpectHealthy("exact fits");
}

}  // namespace
}  // namespace spsq_conf
