// Spec section 2, "Layout And Descriptor", from the L3 side: the layout L3
// reports, the input descriptors it writes, the bindings it refuses and the
// ERROR outputs it takes.
#include <memory>
#include <string>
#include <vector>

#include "conformance/l3/l3_fixture.h"

namespace spsq_conf {
namespace {

TEST_F(L3Suite, LayoutMirrorsTheWire) {
  SPSQ_CLAUSES("S2.LAYOUT.3", "S2.LAYOUT.1", "W.LAYOUT.1/depths", "W.LAYOUT.1/arenas");
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

TEST_F(L3Suite, InputDescriptorsOnTheWire) {
  SPSQ_CLAUSES("S3.CTR.2");  // L3 follows the head L2 releases, message by message
  const uint64_t sizes[] = {5, 0, 40, 1, 0, 63, 7, 9, 100};
  for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
    const auto b = Bytes(sizes[i], static_cast<uint8_t>(i));
    ASSERT_EQ(l3().try_enqueue(b.data(), b.size()), L3Status::kOk) << i;
    uint8_t raw[32];
    region().memory().read(layout().input_slot(i), raw, 32);
    const wire::Descriptor d = wire::decode_descriptor(raw);
    {
      SPSQ_JUDGING("S2.DESC.1/input", "W.DESC.1/input");
      EXPECT_EQ(raw[0], static_cast<uint8_t>(i + 1)) << "seq little-endian at byte 0";
    }
    {
      SPSQ_JUDGING("S2.SEQ.1", "W.DESC.1/input");
      EXPECT_EQ(d.seq, i + 1);
    }
    {
      SPSQ_JUDGING("S2.OPC.1/values", "S2.OPC.2/input", "W.DIR.1/input-data-stop");
      EXPECT_EQ(d.opcode, 1u) << "DATA is 1";
    }
    {
      SPSQ_JUDGING("S2.DESC.1/input");
      EXPECT_EQ(d.nbytes, sizes[i]);
    }
    if (sizes[i] == 0) {
      SPSQ_JUDGING("S2.ZERO.1/input");
      EXPECT_EQ(d.offset, 0u) << "zero-byte: offset 0";
    }
    Message m;  // the model judges offsets (relative to the payload base) and order
    {
      SPSQ_JUDGING("S2.OFF.1/input", "S2.OPC.2/input");
      ASSERT_TRUE(peer().poll_input(&m)) << i;
      EXPECT_EQ(m.payload, b);
    }
    peer().release_inputs(1);
  }
  {
    SPSQ_JUDGING("S2.OPC.1/values", "S2.OPC.3", "W.ENUM.1/stop-input", "W.DIR.1/input-data-stop");
    ASSERT_EQ(l3().try_request_stop(), L3Status::kOk);
    uint8_t raw[32];
    region().memory().read(layout().input_slot(9), raw, 32);
    EXPECT_EQ(wire::decode_descriptor(raw).opcode, 2u) << "STOP is 2";
  }
  // Golden layout vectors, from L3's side.
  SPSQ_JUDGING("W.LAYOUT.2");
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
  // Scalar `scalar` set to `value`, on a fresh adapter over the live region:
  // refused, no shared access, no flag. Judges the caller's block.
  // payload_bytes, and the view's span, are what the layout formula gives
  // unchecked: the size checks agree, so only the rule under test can refuse.
  auto rejected = [&](const std::string& name, int scalar, uint64_t value) {
    auto s = region().scalars();
    s[scalar] = value;
    s[4] = wire::unchecked_payload_bytes(s[7], s[8], s[9]);
    region().view_state().payload_span = s[4];  // a lying span; accesses stay inside
    std::unique_ptr<L3Adapter> other = make_l3_adapter();
    const size_t mark = log().mark();
    const bool opened = other->open(s.data(), s.size(), region().view(), &VirtualClock::now_ns);
    EXPECT_FALSE(opened && other->live()) << name << " accepted";
    EXPECT_EQ(log().shared_accesses_since(mark), 0u) << name;
    EXPECT_EQ(l3_flag(), 0) << name;
    other.reset();
    region().view_state().payload_span = layout().payload_bytes;
  };
  {
    SPSQ_JUDGING("S2.DEPTH.2/zero");
    rejected("depth 0", 7, 0);
  }
  {
    SPSQ_JUDGING("S2.DEPTH.2/non-pow2");
    rejected("depth 3", 7, 3);
    rejected("depth 6", 7, 6);
    rejected("depth 12", 7, 12);
    // Its top bit alone is in range.
    rejected("depth 2^30 + 2^29", 7, (uint64_t{1} << 30) + (uint64_t{1} << 29));
  }
  {
    SPSQ_JUDGING("S2.DEPTH.2/over-max");
    rejected("depth 2^31", 7, uint64_t{1} << 31);
    rejected("depth 2^32", 7, uint64_t{1} << 32);
    rejected("depth 2^63", 7, uint64_t{1} << 63);
    rejected("depth 2^64 - 1", 7, ~uint64_t{0});
  }
  {
    SPSQ_JUDGING("S2.ARENA.3/zero");
    rejected("output arena 0", 9, 0);
    rejected("input arena 0", 8, 0);
  }
  {
    SPSQ_JUDGING("S2.ARENA.3/sub-64");
    rejected("input arena 32", 8, 32);
  }
  {
    SPSQ_JUDGING("S2.ARENA.3/non-multiple");
    rejected("input arena 65", 8, 65);
    rejected("output arena 100", 9, 100);
  }
  {
    SPSQ_JUDGING("S2.ARENA.3/weaker-multiple");
    // Multiples of 8 and of 32, under and over 64: what a weaker check accepts.
    for (uint64_t bad : {8, 32, 72, 96}) {
      rejected("input arena " + std::to_string(bad), 8, bad);
      rejected("output arena " + std::to_string(bad), 9, bad);
    }
  }
}

TEST_F(L3Suite, ErrorOutputDoesNotPoison) {
  SPSQ_CLAUSES("S2.ERROR.2/l3-output", "S4.NOPROG.5");
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(peer().publish(wire::kError, nullptr, 0), Enqueue::kOk);
    L3Message m;
    ASSERT_EQ(l3().try_peek(&m), L3Status::kOk);
    EXPECT_EQ(m.opcode, wire::kError);
    ASSERT_EQ(l3().release(m), L3Status::kOk);
  }
  ExpectHealthy("three ERROR outputs");
}

// The positions the arena rule treats specially, for the next output the
// scripted L2 publishes (a 256-byte arena): index 0; placed at the arena
// start by a skip; right after such a skip; ending exactly at the arena end;
// in a reused slot after a ring wrap.
class L3Layout : public L3Suite {
 protected:
  enum class Pos { kFirst, kSkip, kAfterSkip, kExactEnd, kRingWrap };
  static constexpr Pos kPositions[] = {Pos::kFirst, Pos::kSkip, Pos::kAfterSkip, Pos::kExactEnd,
                                       Pos::kRingWrap};
  static std::string At(const std::string& what, Pos p) {
    static const char* const names[] = {"first message", "placed by a skip", "right after a skip",
                                        "exact fit at the arena end", "after a ring wrap"};
    return what + ", " + names[static_cast<int>(p)];
  }
  // Valid outputs, dequeued by L3, up to `p`; the size of the next one.
  uint64_t AdvanceOutput(Pos p) {
    EXPECT_EQ(layout().output_arena_bytes, 256u) << "positions assume the default arena";
    std::vector<uint64_t> before;
    uint64_t next = 8;
    switch (p) {
      case Pos::kFirst: break;
      case Pos::kSkip: before = {100, 100}; next = 100; break;
      case Pos::kAfterSkip: before = {100, 100, 100}; break;
      case Pos::kExactEnd: before = {100, 100}; next = 56; break;
      case Pos::kRingWrap: before.assign(layout().depth + 1, 64); break;
    }
    for (uint64_t n : before) {
      EXPECT_EQ(peer().publish_data(Bytes(n, 4)), Enqueue::kOk);
      std::vector<uint8_t> buf(n + 1);
      L3Message m;
      EXPECT_EQ(l3().try_dequeue_into(buf.data(), buf.size(), &m), L3Status::kOk) << At("", p);
    }
    return next;
  }
  wire::Descriptor NextValid(uint64_t n) {
    const uint64_t k = peer().outputs_published();
    return wire::Descriptor{wire::seq_of(k), wire::kData, n == 0 ? 0 : peer().next_output_offset(n),
                            n};
  }
  // The crafted output `d` at the next index: L3 refuses it and poisons.
  void ExpectOutputPoisons(const wire::Descriptor& d, uint32_t want_kind, const std::string& what) {
    const uint64_t k = peer().outputs_published();
    const int32_t in_tail = peer().counter(wire::kInputTail);
    if (d.nbytes != 0 && d.nbytes <= 256 && d.offset <= layout().payload_bytes - d.nbytes) {
      const auto b = Bytes(d.nbytes, 6);
      peer().write_output_payload(d.offset, b.data(), b.size());
    }
    peer().publish_raw(d);
    L3Message m;
    EXPECT_EQ(l3().try_peek(&m), L3Status::kFailed) << what << ": handed to the application";
    ExpectPoisoned(want_kind, what.c_str());
    EXPECT_EQ(peer().counter(wire::kOutputHead), wire::low32(k)) << what << ": consumed";
    EXPECT_EQ(peer().counter(wire::kInputTail), in_tail) << what << ": S2.POISON.1: a message";
  }
};

// "A zero-byte message of any opcode has offset 0" names no kind, and the
// contract's INVALID_DESCRIPTOR "on any other offset" is the replay of a
// message of n > 0 bytes: the poison is judged, the kind recorded (AMB.KINDS).
TEST_F(L3Layout, ZeroByteOutputWithAnOffsetPoisonsAtEveryPosition) {
  SPSQ_CLAUSES("S2.ZERO.2/l3-output", "AMB.KINDS/zero-offset");
  for (Pos p : kPositions) {
    for (int variant = 0; variant < 4; ++variant) {
      Rebuild(QueueParams());
      const wire::Descriptor valid = NextValid(AdvanceOutput(p));
      const uint64_t offsets[] = {valid.offset, layout().output_arena, 1, ~uint64_t{0}};
      ExpectOutputPoisons(wire::Descriptor{valid.seq, wire::kData, offsets[variant], 0}, 0,
                          At("zero-byte at offset " + std::to_string(offsets[variant]), p));
      NoteKind("zero-offset", {wire::kInvalidDescriptor});
    }
  }
}

TEST_F(L3Layout, StopOnTheOutputPoisonsL3AtEveryPosition) {
  SPSQ_CLAUSES("S2.STOP.1/l3-output");
  for (Pos p : kPositions) {
    for (bool sized : {false, true}) {
      Rebuild(QueueParams());
      const uint64_t n = AdvanceOutput(p);
      wire::Descriptor d = NextValid(sized ? n : 0);
      d.opcode = wire::kStop;
      ExpectOutputPoisons(d, 0, At(sized ? "sized STOP" : "zero-byte STOP", p));
    }
  }
}

TEST_F(L3Layout, OutputSeqOtherThanIndexPlusOnePoisonsL3AtEveryPosition) {
  SPSQ_CLAUSES("W.SEQ.1/l3-output");
  for (Pos p : kPositions) {
    for (int variant = 0; variant < 5; ++variant) {
      Rebuild(QueueParams());
      wire::Descriptor d = NextValid(AdvanceOutput(p));
      const uint64_t k = d.seq - 1;
      if (variant == 1 && k == 0) continue;
      const uint64_t bad[] = {0, k, k + 2, (uint64_t{1} << 32) + k + 1, ~uint64_t{0}};
      d.seq = bad[variant];
      ExpectOutputPoisons(d, wire::kInvalidDescriptor, At("seq " + std::to_string(d.seq), p));
    }
  }
  // The previous lap's descriptor left in a reused slot.
  Rebuild(QueueParams());
  AdvanceOutput(Pos::kRingWrap);
  const uint64_t k = peer().outputs_published();
  peer().set_output_tail(wire::low32(k + 1));
  L3Message m;
  EXPECT_EQ(l3().try_peek(&m), L3Status::kFailed) << "the previous lap's output again";
  ExpectPoisoned(wire::kInvalidDescriptor, "stale output slot");
}

TEST_F(L3Layout, InvalidOutputOpcodesPoisonL3AtEveryPosition) {
  SPSQ_CLAUSES("S2.OPC.1/l3-invalid", "W.DIR.1/l3-output-invalid");
  SPSQ_EXERCISES("AMB.KINDS");
  for (Pos p : kPositions) {
    for (uint64_t opcode : {uint64_t{0}, uint64_t{4}, (uint64_t{1} << 32) | 1, ~uint64_t{0}}) {
      Rebuild(QueueParams());
      wire::Descriptor d = NextValid(AdvanceOutput(p));
      d.opcode = opcode;
      ExpectOutputPoisons(d, 0, At("opcode " + std::to_string(opcode), p));
    }
  }
}

TEST_F(L3Layout, ErrorOutputsWithPayloadAreNormalMessagesAfterAWrap) {
  SPSQ_CLAUSES("S2.ERROR.2/l3-output", "S2.ERROR.1/l3-output");
  // Payload bytes that look like a descriptor, in every slot of two laps.
  std::vector<uint8_t> bytes(40);
  wire::encode_descriptor(wire::Descriptor{77, wire::kStop, 3, 3}, bytes.data());
  for (uint64_t i = 0; i < 2 * layout().depth + 1; ++i) {
    bytes[39] = static_cast<uint8_t>(i);
    ASSERT_EQ(peer().publish(wire::kError, bytes.data(), bytes.size()), Enqueue::kOk) << i;
    std::vector<uint8_t> buf(64, 0);
    L3Message m;
    ASSERT_EQ(l3().try_dequeue_into(buf.data(), buf.size(), &m), L3Status::kOk) << i;
    EXPECT_EQ(m.opcode, wire::kError) << i;
    EXPECT_EQ(m.seq, i + 1);
    EXPECT_EQ(std::vector<uint8_t>(buf.begin(), buf.begin() + 40), bytes) << i;
    ExpectHealthy("ERROR output");
  }
  const auto b = Bytes(8, 1);
  EXPECT_EQ(l3().try_enqueue(b.data(), b.size()), L3Status::kOk) << "input after ERROR outputs";
}

TEST_F(L3Layout, InputLargerThanTheArenaIsRefused) {
  SPSQ_CLAUSES("S2.FIT.2/l3-enqueue");
  const uint64_t arena = layout().input_arena_bytes;
  std::vector<uint8_t> big(arena + 64, 1);
  auto refused = [&](L3Status st, const std::string& what) {
    EXPECT_NE(st, L3Status::kOk) << what << ": a message larger than the arena was sent";
    EXPECT_NE(st, L3Status::kFailed) << what << ": refusing a message that cannot fit is not "
                                                "poison: " << l3().error().message;
    EXPECT_TRUE(l3().live()) << what;
    if (KindsReported()) {
      const uint32_t kind = l3().error().kind;
      EXPECT_TRUE(kind == wire::kKindNone || kind == wire::kBadArgument)
          << what << ": a live refusal reports NONE or BAD_ARGUMENT, saw " << wire::kind_name(kind);
    }
    EXPECT_EQ(l3_flag(), 0) << what;
    record_observation("fit2.l3_answer", l3_status_name(st));
  };
  auto rounds = [&](const char* where) {
    const int32_t tail = peer().counter(wire::kInputTail);
    refused(l3().try_enqueue(big.data(), arena + 1), std::string(where) + ": try_enqueue(+1)");
    refused(l3().try_enqueue(big.data(), arena + 64), std::string(where) + ": try_enqueue(+64)");
    const uint64_t t0 = VirtualClock::peek();
    refused(l3().enqueue(big.data(), arena + 1, 1000), std::string(where) + ": enqueue(+1)");
    EXPECT_LE(VirtualClock::peek() - t0, 1000u) << where << ": enqueue waited past its deadline";
    refused(l3().try_enqueue(big.data(), ~uint64_t{0}), std::string(where) + ": 2^64 - 1");
    refused(l3().try_enqueue(big.data(), uint64_t{1} << 63), std::string(where) + ": 2^63");
    EXPECT_EQ(peer().counter(wire::kInputTail), tail) << where << ": published";
    // A message of the arena's size, on a lap boundary, is sent whole.
    ASSERT_EQ(l3().try_enqueue(big.data(), arena), L3Status::kOk) << where;
    Message m;
    ASSERT_TRUE(peer().poll_input(&m)) << where;
    EXPECT_EQ(m.nbytes, arena);
    EXPECT_EQ(m.offset, layout().input_arena);
    peer().release_inputs(1);
  };
  rounds("first message");
  for (uint64_t i = 0; i < 4 * layout().depth; ++i) {
    ASSERT_EQ(l3().try_enqueue(big.data(), arena / 8), L3Status::kOk) << i;
    Message m;
    ASSERT_TRUE(peer().poll_input(&m));
    peer().release_inputs(1);
  }
  rounds("after a ring wrap");
}

TEST_F(L3Layout, OverflowingLayoutsAreRejected) {
  SPSQ_CLAUSES("W.LAYOUT.1/overflow");
  // Each wraps 2^64 to payload_bytes 64 without overflow checks.
  const uint64_t cases[][3] = {{1, ~uint64_t{0} - 63, 64},
                               {1, 64, ~uint64_t{0} - 63},
                               {1, uint64_t{1} << 63, uint64_t{1} << 63}};
  for (const auto& c : cases) {
    auto s = region().scalars();
    s[7] = c[0];
    s[8] = c[1];
    s[9] = c[2];
    s[4] = wire::unchecked_payload_bytes(c[0], c[1], c[2]);  // 64: the sums wrapped
    region().view_state().payload_span = s[4];
    std::unique_ptr<L3Adapter> other = make_l3_adapter();
    const size_t mark = log().mark();
    const bool opened = other->open(s.data(), s.size(), region().view(), &VirtualClock::now_ns);
    EXPECT_FALSE(opened && other->live()) << "in " << c[1] << ", out " << c[2] << " accepted";
    EXPECT_EQ(log().shared_accesses_since(mark), 0u);
    other.reset();
    region().view_state().payload_span = layout().payload_bytes;
  }
  EXPECT_EQ(l3_flag(), 0);
}

TEST_F(L3Layout, L3WritesInputPayloadOnlyToTheInputArena) {
  SPSQ_CLAUSES("S2.ARENA.1/l3-writes", "S2.ARENA.2/l3-reads");
  if (!l3().uses_view()) GTEST_SKIP() << "not applicable: " << l3().name()
                                      << " does not run on the harness view";
  const wire::Layout l = layout();  // a copy: Rebuild() replaces the region
  auto inside = [](uint64_t off, uint64_t n, uint64_t lo, uint64_t bytes) {
    return off >= lo && n <= bytes && off - lo <= bytes - n;
  };
  const size_t mark = log().mark();
  for (uint64_t i = 0; i < 3 * l.depth; ++i) {
    const auto b = Bytes(40 + i, static_cast<uint8_t>(i));
    ASSERT_EQ(l3().try_enqueue(b.data(), b.size()), L3Status::kOk) << i;
    Message in;
    ASSERT_TRUE(peer().poll_input(&in));
    EXPECT_EQ(in.payload, b);
    peer().release_inputs(1);
    const uint64_t where = peer().next_output_offset(b.size());
    ASSERT_EQ(peer().publish_data(b), Enqueue::kOk);
    std::vector<uint8_t> buf(64);
    L3Message m;
    const size_t before = log().mark();
    ASSERT_EQ(l3().try_dequeue_into(buf.data(), buf.size(), &m), L3Status::kOk) << i;
    // The consumer took the payload from where the producer put it.
    EXPECT_NE(log().find([&](const Access& a) {
                return a.kind == AccessKind::kRead && a.part == 0 &&
                       inside(where, b.size(), a.offset, a.nbytes);
              }, before), AccessLog::npos) << "output " << i << " not read from the output arena";
  }
  for (size_t i = mark; i < log().size(); ++i) {
    const Access& a = log()[i];
    if (a.part != 0 || a.nbytes == 0 || a.kind != AccessKind::kWrite) continue;
    EXPECT_TRUE(inside(a.offset, a.nbytes, l.input_ring, l.ring_bytes) ||
                inside(a.offset, a.nbytes, l.input_arena, l.input_arena_bytes))
        << "L3 wrote outside its ring and the input arena: " << a.describe();
  }
}

}  // namespace
}  // namespace spsq_conf
