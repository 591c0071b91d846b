// The harness's wire model against the numbers written in the spec and the
// wire contract (never against an implementation).
#include "model/wire_model.h"

#include <array>
#include <cstdint>
#include <limits>

#include "gtest/gtest.h"

namespace spsq_conf {
namespace wire {
namespace {

TEST(WireModel, PackedMagicVersion) {
  EXPECT_EQ(kMagicVersion, 0x5350535100010000ull);
  EXPECT_EQ(kMagic, 0x53505351u);  // "SPSQ"
}

TEST(WireModel, GoldenLayoutVectors) {
  struct V {
    uint64_t depth, in, out, out_ring, in_arena, out_arena, payload;
  } vectors[] = {{1, 64, 64, 32, 64, 128, 192},
                 {4, 128, 192, 128, 256, 384, 576},
                 {8, 192, 64, 256, 512, 704, 768},
                 {2, 64, 128, 64, 128, 192, 320}};
  for (const V& v : vectors) {
    Layout l;
    ASSERT_TRUE(compute_layout(v.depth, v.in, v.out, &l)) << v.depth;
    EXPECT_EQ(l.input_ring, 0u);
    EXPECT_EQ(l.output_ring, v.out_ring);
    EXPECT_EQ(l.input_arena, v.in_arena);
    EXPECT_EQ(l.output_arena, v.out_arena);
    EXPECT_EQ(l.payload_bytes, v.payload);
    EXPECT_EQ(l.counter_bytes, 384u);
  }
}

TEST(WireModel, LayoutRejectsBadInputsAndLeavesOutputUntouched) {
  Layout l;
  l.depth = 77;
  EXPECT_FALSE(compute_layout(0, 64, 64, &l));
  EXPECT_FALSE(compute_layout(3, 64, 64, &l));
  EXPECT_FALSE(compute_layout(uint64_t{1} << 31, 64, 64, &l));
  EXPECT_FALSE(compute_layout(4, 0, 64, &l));
  EXPECT_FALSE(compute_layout(4, 65, 64, &l));
  EXPECT_FALSE(compute_layout(4, 64, 100, &l));
  // Arenas so large the sum overflows 64 bits.
  EXPECT_FALSE(compute_layout(kMaxDepth, ~uint64_t{63}, 64, &l));
  EXPECT_FALSE(compute_layout(1, 64, ~uint64_t{63}, &l));
  EXPECT_EQ(l.depth, 77u);
  ASSERT_TRUE(compute_layout(kMaxDepth, 64, 64, &l));
  EXPECT_EQ(l.output_ring, kMaxDepth * 32);
  EXPECT_EQ(l.payload_bytes, kMaxDepth * 64 + 128);
}

TEST(WireModel, UncheckedPayloadBytesIsTheFormulaWithoutChecks) {
  // Equal to the checked layout wherever that one exists.
  for (const auto& v : {std::array<uint64_t, 3>{1, 64, 64}, {4, 128, 192}, {8, 192, 64}}) {
    Layout l;
    ASSERT_TRUE(compute_layout(v[0], v[1], v[2], &l));
    EXPECT_EQ(unchecked_payload_bytes(v[0], v[1], v[2]), l.payload_bytes);
  }
  // Values the rules refuse: 4 * 2 * 32 = 256 of rings, arenas rounded up to 64 between.
  EXPECT_EQ(unchecked_payload_bytes(4, 72, 64), 256u + 128 + 64);
  EXPECT_EQ(unchecked_payload_bytes(3, 64, 8), 192u + 64 + 8);
  // Sums wrap instead of failing: 2^64 - 64 of input arena after 64 of rings.
  EXPECT_EQ(unchecked_payload_bytes(1, ~uint64_t{63}, 64), 64u);
}

TEST(WireModel, DescriptorBytesAreLittleEndianAtFixedOffsets) {
  uint8_t b[32] = {};
  encode_descriptor(Descriptor{0x0102030405060708ull, 2, 0x1122, 0xAABB}, b);
  EXPECT_EQ(b[0], 0x08);
  EXPECT_EQ(b[7], 0x01);
  EXPECT_EQ(b[8], 2);
  EXPECT_EQ(b[16], 0x22);
  EXPECT_EQ(b[17], 0x11);
  EXPECT_EQ(b[24], 0xBB);
  EXPECT_EQ(b[25], 0xAA);
  const Descriptor d = decode_descriptor(b);
  EXPECT_EQ(d.seq, 0x0102030405060708ull);
  EXPECT_EQ(d.opcode, 2u);
  EXPECT_EQ(d.offset, 0x1122u);
  EXPECT_EQ(d.nbytes, 0xAABBu);
  EXPECT_EQ(seq_of(0), 1u);
}

TEST(WireModel, Le64FieldsAtAnyAlignment) {
  uint8_t b[24] = {};
  for (int at = 0; at < 8; ++at) {
    store_le64(b + at, 0x8877665544332211ull);
    for (int i = 0; i < 8; ++i) EXPECT_EQ(b[at + i], 0x11 * (i + 1)) << at << " " << i;
    EXPECT_EQ(load_le64(b + at), 0x8877665544332211ull) << at;
  }
}

TEST(WireModel, CounterLow32AndReconstructionAcrossSignAndWrap) {
  EXPECT_EQ(low32(5), 5);
  EXPECT_EQ(low32(0x80000000ull), std::numeric_limits<int32_t>::min());
  EXPECT_EQ(low32(0xFFFFFFFFull), -1);
  EXPECT_EQ(low32(0x100000003ull), 3);
  uint64_t out = 0;
  // Across the sign boundary: 2^31 - 1 -> 2^31 + 1.
  ASSERT_TRUE(reconstruct(0x7FFFFFFFull, low32(0x80000001ull), 4, &out));
  EXPECT_EQ(out, 0x80000001ull);
  // Across the 32-bit wrap: 2^32 - 2 -> 2^32 + 2.
  ASSERT_TRUE(reconstruct(0xFFFFFFFEull, low32(0x100000002ull), 4, &out));
  EXPECT_EQ(out, 0x100000002ull);
  // delta == depth is legal, depth + 1 and negative are not.
  EXPECT_TRUE(reconstruct(10, 14, 4, &out));
  out = 99;
  EXPECT_FALSE(reconstruct(10, 15, 4, &out));
  EXPECT_FALSE(reconstruct(10, 9, 4, &out));
  EXPECT_FALSE(reconstruct(0, -1, 4, &out));
  EXPECT_FALSE(reconstruct(0, std::numeric_limits<int32_t>::min(), 1u << 30, &out));
  EXPECT_FALSE(reconstruct(0, std::numeric_limits<int32_t>::max(), 1u << 30, &out));
  EXPECT_EQ(out, 99u);
}

TEST(WireModel, ArenaPlacementSkipsTheTailAndNeverRounds) {
  Placement p;
  ASSERT_TRUE(place(0, 3, 1000, 128, &p));
  EXPECT_EQ(p.offset, 1000u);
  EXPECT_EQ(p.next, 3u);
  ASSERT_TRUE(place(3, 1, 1000, 128, &p));
  EXPECT_EQ(p.offset, 1003u);  // not rounded up
  // pos 100 + 40 > 128: skip to the start; the cursor skips 28 bytes.
  ASSERT_TRUE(place(100, 40, 1000, 128, &p));
  EXPECT_TRUE(p.skipped);
  EXPECT_EQ(p.offset, 1000u);
  EXPECT_EQ(p.start, 128u);
  EXPECT_EQ(p.next, 168u);
  // Exactly to the end: no skip.
  ASSERT_TRUE(place(100, 28, 1000, 128, &p));
  EXPECT_FALSE(p.skipped);
  EXPECT_EQ(p.offset, 1100u);
  EXPECT_FALSE(place(0, 129, 1000, 128, &p));
  ASSERT_TRUE(place(77, 0, 1000, 128, &p));
  EXPECT_EQ(p.offset, 0u);
  EXPECT_EQ(p.next, 77u);
}

TEST(WireModel, RoomBoundAndTheIdleArenaReading) {
  Placement p;
  // Cursor at 100 of 128, everything released, message of 120 bytes.
  ASSERT_TRUE(place(100, 120, 0, 128, &p));
  EXPECT_FALSE(has_room(100, 100, p, 128, /*idle_exception=*/false));  // literal bound: 148 > 128
  EXPECT_TRUE(has_room(100, 100, p, 128, /*idle_exception=*/true));
  // With 10 bytes unreleased the bound applies either way.
  EXPECT_FALSE(has_room(90, 100, p, 128, true));
  ASSERT_TRUE(place(0, 64, 0, 128, &p));
  EXPECT_TRUE(has_room(0, 0, p, 128, false));
}

TEST(WireModel, BindingScalarsInSpecOrder) {
  BindingFields b;
  b.session_instance_id_bits = 2;
  b.transaction_id = 3;
  b.payload_base = 4;
  b.payload_bytes = 5;
  b.counter_base = 6;
  b.counter_bytes = 7;
  b.depth = 8;
  b.input_arena_bytes = 9;
  b.output_arena_bytes = 10;
  const auto s = binding_scalars(b);
  EXPECT_EQ(s[0], kMagicVersion);
  for (size_t i = 1; i < kScalarCount; ++i) EXPECT_EQ(s[i], i + 1) << i;
}

TEST(WireModel, BindingFromScalarsInSpecOrder) {
  const uint64_t s[kScalarCount] = {11, 12, 13, 14, 15, 16, 17, 18, 19, 20};
  const BindingFields b = binding_from_scalars(s);
  EXPECT_EQ(b.magic_version, 11u);
  EXPECT_EQ(b.session_instance_id_bits, 12u);
  EXPECT_EQ(b.transaction_id, 13u);
  EXPECT_EQ(b.payload_base, 14u);
  EXPECT_EQ(b.payload_bytes, 15u);
  EXPECT_EQ(b.counter_base, 16u);
  EXPECT_EQ(b.counter_bytes, 17u);
  EXPECT_EQ(b.depth, 18u);
  EXPECT_EQ(b.input_arena_bytes, 19u);
  EXPECT_EQ(b.output_arena_bytes, 20u);
}

TEST(WireModel, BindingForLayout) {
  Layout l;
  ASSERT_TRUE(compute_layout(4, 128, 192, &l));
  const BindingFields b = binding_for(l, 0x1000, 0x9000, 0x5e55, 7);
  const auto s = binding_scalars(b);
  const uint64_t want[kScalarCount] = {kMagicVersion, 0x5e55, 7,   0x1000, l.payload_bytes,
                                       0x9000,        384,    4,   128,    192};
  for (size_t i = 0; i < kScalarCount; ++i) EXPECT_EQ(s[i], want[i]) << i;
}

}  // namespace
}  // namespace wire
}  // namespace spsq_conf
