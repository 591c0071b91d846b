// Spec section 2, "Layout And Descriptor", from the L3 side: the layout L3
// reports, the input descriptors it writes, the bindings it refuses and the
// ERROR outputs it takes.
#include <memory>
#include <vector>

#include "conformance/l3/l3_fixture.h"

namespace spsq_conf {
namespace {

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

}  // namespace
}  // namespace spsq_conf
