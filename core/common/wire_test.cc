// Wire core internals: constants, binding, layout overflow, descriptor bytes,
// counters, arena rule. The layout's golden values and bounds are spec clauses,
// judged by conformance/l2 and l3 s2_layout_descriptor_test.
#include <cstring>
#include <limits>

#include "common/spsq_wire.h"
#include "gtest/gtest.h"

namespace spsc_queue {
namespace {

constexpr uint64_t kU64Max = std::numeric_limits<uint64_t>::max();

SpscQueueEndpointBinding sample_binding() {
  SpscQueueEndpointBinding b{};
  b.magic_version = kSpscQueueMagicVersion;
  b.session_instance_id_bits = 0x1122334455667788ull;
  b.transaction_id = 7;
  b.payload_base = 0x10000;
  b.payload_bytes = 576;
  b.counter_base = 0x20000;
  b.counter_bytes = 384;
  b.depth = 4;
  b.input_arena_bytes = 128;
  b.output_arena_bytes = 192;
  return b;
}

TEST(Constants, MatchWireContract) {
  EXPECT_EQ(kSpscQueueMagic, 0x53505351u);
  EXPECT_EQ(kSpscQueueMagicVersion, 0x5350535100010000ull);
  EXPECT_EQ(kSpscQueueEndpointBindingScalarCount, 10u);
  EXPECT_EQ(kDescriptorBytes, 32u);
  EXPECT_EQ(kCounterBytes, 384u);
  EXPECT_EQ(kMaxDepth, 1ull << 30);
  EXPECT_EQ(static_cast<uint64_t>(SpscQueueOpcode::DATA), 1u);
  EXPECT_EQ(static_cast<uint64_t>(SpscQueueOpcode::STOP), 2u);
  EXPECT_EQ(static_cast<uint64_t>(SpscQueueOpcode::ERROR), 3u);
  EXPECT_EQ(static_cast<uint32_t>(SpscQueueErrorKind::ENDPOINT_ERROR), 6u);
  EXPECT_EQ(static_cast<uint32_t>(SpscQueueErrorKind::REMOTE_ABORTED), 5u);
  EXPECT_EQ(static_cast<uint32_t>(SpscQueueOp::OUTPUT_PUBLISH), 6u);
  EXPECT_EQ(kInputDescTailOffset, 0u);
  EXPECT_EQ(kInputDescHeadOffset, 64u);
  EXPECT_EQ(kOutputDescTailOffset, 128u);
  EXPECT_EQ(kOutputDescHeadOffset, 192u);
  EXPECT_EQ(kInitiatorAbortOffset, 256u);
  EXPECT_EQ(kPeerAbortOffset, 320u);
}

TEST(Binding, RoundTripsTenScalarsInSpecOrder) {
  const SpscQueueEndpointBinding b = sample_binding();
  uint64_t s[10] = {};
  ASSERT_TRUE(encode_endpoint_binding(b, s, 10));
  const uint64_t want[10] = {0x5350535100010000ull, 0x1122334455667788ull, 7, 0x10000, 576,
                             0x20000, 384, 4, 128, 192};
  for (int i = 0; i < 10; ++i) EXPECT_EQ(s[i], want[i]) << "scalar " << i;
  SpscQueueEndpointBinding d{};
  ASSERT_TRUE(decode_endpoint_binding(s, 10, &d));
  EXPECT_EQ(0, std::memcmp(&d, &b, sizeof(b)));
}

TEST(Binding, WrongCountsRejectedAndOutputUntouched) {
  uint64_t s[12] = {};
  ASSERT_TRUE(encode_endpoint_binding(sample_binding(), s, 10));
  for (size_t count : {size_t{0}, size_t{9}, size_t{11}, size_t{12}}) {
    SpscQueueEndpointBinding d{};
    d.depth = 0xabcdef;
    EXPECT_FALSE(decode_endpoint_binding(s, count, &d)) << count;
    EXPECT_EQ(d.depth, 0xabcdefu) << "output touched for count " << count;
    EXPECT_EQ(check_endpoint_binding(s, count), SpscBindingStatus::WRONG_COUNT);
    uint64_t out[12] = {};
    EXPECT_FALSE(encode_endpoint_binding(sample_binding(), out, count)) << count;
    EXPECT_EQ(out[0], 0u);
  }
}

TEST(Binding, EverySingleBitFlipOfMagicVersionRejected) {
  uint64_t s[10] = {};
  ASSERT_TRUE(encode_endpoint_binding(sample_binding(), s, 10));
  for (int bit = 0; bit < 64; ++bit) {
    uint64_t t[10];
    std::memcpy(t, s, sizeof(s));
    t[0] ^= uint64_t{1} << bit;
    SpscQueueEndpointBinding d{};
    d.transaction_id = 99;
    EXPECT_FALSE(decode_endpoint_binding(t, 10, &d)) << "bit " << bit;
    EXPECT_EQ(d.transaction_id, 99u);
    const SpscBindingStatus st = check_endpoint_binding(t, 10);
    if (bit < 16) {
      EXPECT_EQ(st, SpscBindingStatus::WRONG_MINOR) << bit;
    } else if (bit < 32) {
      EXPECT_EQ(st, SpscBindingStatus::WRONG_MAJOR) << bit;
    } else {
      EXPECT_EQ(st, SpscBindingStatus::BAD_MAGIC) << bit;
    }
    SpscQueueEndpointBinding b = sample_binding();
    b.magic_version = t[0];
    uint64_t out[10] = {};
    EXPECT_FALSE(encode_endpoint_binding(b, out, 10)) << bit;
  }
}

TEST(Binding, ZeroTransactionRejectedOnEncodeAndDecode) {
  SpscQueueEndpointBinding b = sample_binding();
  b.transaction_id = 0;
  uint64_t out[10] = {};
  EXPECT_FALSE(encode_endpoint_binding(b, out, 10));
  EXPECT_EQ(out[0], 0u);
  uint64_t s[10] = {};
  ASSERT_TRUE(encode_endpoint_binding(sample_binding(), s, 10));
  s[2] = 0;
  SpscQueueEndpointBinding d{};
  EXPECT_FALSE(decode_endpoint_binding(s, 10, &d));
  EXPECT_EQ(check_endpoint_binding(s, 10), SpscBindingStatus::ZERO_TRANSACTION);
}

TEST(Binding, ZeroSessionBitsAccepted) {
  SpscQueueEndpointBinding b = sample_binding();
  b.session_instance_id_bits = 0;
  uint64_t s[10] = {};
  ASSERT_TRUE(encode_endpoint_binding(b, s, 10));
  SpscQueueEndpointBinding d{};
  ASSERT_TRUE(decode_endpoint_binding(s, 10, &d));
  EXPECT_EQ(d.session_instance_id_bits, 0u);
  EXPECT_EQ(d.transaction_id, 7u);
}

TEST(Binding, NullPointersRejected) {
  SpscQueueEndpointBinding d{};
  EXPECT_FALSE(decode_endpoint_binding(nullptr, 10, &d));
  uint64_t s[10] = {};
  ASSERT_TRUE(encode_endpoint_binding(sample_binding(), s, 10));
  EXPECT_FALSE(decode_endpoint_binding(s, 10, nullptr));
  EXPECT_FALSE(encode_endpoint_binding(sample_binding(), nullptr, 10));
}

TEST(Layout, HugeArenasRejectedWithoutWrapAround) {
  const uint64_t near_max = kU64Max & ~uint64_t{63};  // largest 64-multiple
  SpscQueueLayout l{};
  l.depth = 77;
  EXPECT_EQ(SpscQueueLayout::create_checked(1, near_max, 64, &l), SpscLayoutStatus::OVERFLOW);
  EXPECT_EQ(SpscQueueLayout::create_checked(1, 64, near_max, &l), SpscLayoutStatus::OVERFLOW);
  EXPECT_EQ(SpscQueueLayout::create_checked(1, near_max - 64, 64, &l),
            SpscLayoutStatus::OVERFLOW);
  const uint64_t half = (near_max / 2) & ~uint64_t{63};
  EXPECT_EQ(SpscQueueLayout::create_checked(1u << 30, half, half, &l),
            SpscLayoutStatus::OVERFLOW);
  EXPECT_EQ(l.depth, 77u);
  // The largest input arena that still fits beside a 64-byte output arena.
  const uint64_t fits = near_max - 64 - 64;
  ASSERT_TRUE(SpscQueueLayout::create(1, fits, 64, &l));
  EXPECT_EQ(l.payload_bytes, near_max);
}

TEST(Descriptor, LittleEndianBytes) {
  SpscQueueDescriptor d{0x0102030405060708ull, 1, 0x1122334455667788ull, 0xa0};
  uint8_t bytes[32];
  encode_descriptor(d, bytes);
  const uint8_t want[32] = {0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,   // seq
                            0x01, 0, 0, 0, 0, 0, 0, 0,                         // opcode
                            0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,   // offset
                            0xa0, 0, 0, 0, 0, 0, 0, 0};                        // nbytes
  EXPECT_EQ(0, std::memcmp(bytes, want, 32));
  const SpscQueueDescriptor back = decode_descriptor(want);
  EXPECT_EQ(back.seq, d.seq);
  EXPECT_EQ(static_cast<uint64_t>(back.opcode), 1u);
  EXPECT_EQ(back.payload_offset, d.payload_offset);
  EXPECT_EQ(back.payload_nbytes, 0xa0u);
  uint8_t body[24];
  encode_descriptor_body(d, body);
  EXPECT_EQ(0, std::memcmp(body, want + 8, 24));
  EXPECT_EQ(expected_seq(0), 1u);
}

TEST(Counter, Low32IsSignedTruncation) {
  EXPECT_EQ(counter_low32(0), 0);
  EXPECT_EQ(counter_low32(0x7fffffffull), 0x7fffffff);
  EXPECT_EQ(counter_low32(0x80000000ull), std::numeric_limits<int32_t>::min());
  EXPECT_EQ(counter_low32(0xffffffffull), -1);
  EXPECT_EQ(counter_low32(0x100000000ull), 0);
  EXPECT_EQ(counter_low32(0x100000005ull), 5);
}

TEST(Counter, ReconstructionAcrossSignBoundaryAndWrap) {
  const uint64_t depth = 8;
  const uint64_t starts[] = {0, 0x7ffffffcull, 0xfffffffcull, 0x1fffffffbull, 5};
  for (uint64_t local : starts) {
    for (uint64_t delta = 0; delta <= depth; ++delta) {
      uint64_t out = 0;
      ASSERT_TRUE(reconstruct_counter(local, counter_low32(local + delta), depth, &out))
          << local << "+" << delta;
      EXPECT_EQ(out, local + delta);
    }
    uint64_t out = 424242;
    EXPECT_FALSE(reconstruct_counter(local, counter_low32(local + depth + 1), depth, &out));
    EXPECT_EQ(out, 424242u);
    EXPECT_FALSE(reconstruct_counter(local, counter_low32(local - 1), depth, &out));
    EXPECT_FALSE(reconstruct_counter(local, counter_low32(local + 0x80000000ull), depth, &out));
    EXPECT_EQ(out, 424242u);
  }
  uint64_t out = 0;
  EXPECT_TRUE(reconstruct_counter(1ull << 30, counter_low32((1ull << 31)), 1ull << 30, &out));
  EXPECT_EQ(out, 1ull << 31);
}

TEST(Arena, PlacementContiguousSkipAndZeroByte) {
  SpscArenaPlacement p{};
  ASSERT_TRUE(arena_place(0, 0, 1000, 128, &p));
  EXPECT_EQ(p.payload_offset, 0u);
  EXPECT_EQ(p.next_cursor, 0u);
  ASSERT_TRUE(arena_place(0, 64, 1000, 128, &p));
  EXPECT_EQ(p.payload_offset, 1000u);
  EXPECT_EQ(p.next_cursor, 64u);
  ASSERT_TRUE(arena_place(100, 28, 1000, 128, &p));  // exactly to the end: no skip
  EXPECT_EQ(p.payload_offset, 1100u);
  EXPECT_EQ(p.next_cursor, 128u);
  ASSERT_TRUE(arena_place(100, 29, 1000, 128, &p));  // one past the end: skip 28
  EXPECT_EQ(p.payload_offset, 1000u);
  EXPECT_EQ(p.start_cursor, 128u);
  EXPECT_EQ(p.next_cursor, 157u);
  ASSERT_TRUE(arena_place(300, 10, 1000, 128, &p));  // pos = 300 mod 128 = 44
  EXPECT_EQ(p.payload_offset, 1044u);
  EXPECT_FALSE(arena_place(0, 129, 1000, 128, &p));
  EXPECT_FALSE(arena_place(kU64Max - 5, 10, 0, 128, &p));
}

TEST(Arena, RoomCheckIsOverlapNotBareDistance) {
  SpscArenaPlacement p{};
  // Idle arena (released == cursor == 65), a full-arena message skips 63 bytes.
  ASSERT_TRUE(arena_place(65, 128, 0, 128, &p));
  EXPECT_EQ(p.next_cursor - 65, 191u);  // bare distance would refuse forever
  EXPECT_TRUE(arena_has_room(65, 65, p, 128));
  // 64 unreleased bytes at [0,64): a 64-byte message at [64,128) fits,
  ASSERT_TRUE(arena_place(64, 64, 0, 128, &p));
  EXPECT_TRUE(arena_has_room(0, 64, p, 128));
  // a 65-byte one would skip onto them.
  ASSERT_TRUE(arena_place(64, 65, 0, 128, &p));
  EXPECT_FALSE(arena_has_room(0, 64, p, 128));
  ASSERT_TRUE(arena_place(64, 0, 0, 128, &p));
  EXPECT_TRUE(arena_has_room(0, 64, p, 128));
}

TEST(Error, FormatNamesKindOpAndIdentity) {
  SpscQueueError e = make_error(SpscQueueErrorKind::INVALID_DESCRIPTOR,
                                SpscQueueOp::INPUT_TRY_PEEK, "seq %d, want %d", 3, 2);
  char line[512];
  format_error(e, line, sizeof(line));
  EXPECT_STREQ(line, "INVALID_DESCRIPTOR in INPUT_TRY_PEEK: seq 3, want 2");
  set_error_identity(&e, 0xabcull, 9);
  format_error(e, line, sizeof(line));
  EXPECT_STREQ(line,
               "INVALID_DESCRIPTOR in INPUT_TRY_PEEK: seq 3, want 2 [session 0x0000000000000abc, "
               "transaction 9]");
  EXPECT_STREQ(e.message, "seq 3, want 2 [session 0x0000000000000abc, transaction 9]");
  set_error_identity(&e, 0xdef, 10);  // keeps the first identity
  EXPECT_EQ(e.transaction_id, 9u);
  EXPECT_STREQ(e.message, "seq 3, want 2 [session 0x0000000000000abc, transaction 9]");
  std::string long_text(400, 'x');
  e = make_error(SpscQueueErrorKind::OWNERSHIP, SpscQueueOp::OUTPUT_PUBLISH, "%s",
                 long_text.c_str());
  EXPECT_EQ(std::strlen(e.message), kSpscQueueErrorMessageBytes - 1);
}

}  // namespace
}  // namespace spsc_queue
