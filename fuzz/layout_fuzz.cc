// Harness 2: (depth, input arena, output arena) -> SpscQueueLayout::create.
//
// Input (fuzz/layout_input.h): a shape byte, then depth, input arena, output
// arena and a slot index as little-endian uint64. The shape bits say how each
// raw value becomes an argument, so valid layouts (power-of-two depth, 64-byte
// multiple arenas) are as easy to reach as invalid ones.
//
// The harness recomputes the layout in 128-bit arithmetic: an overflow the
// core misses cannot hide behind the same overflow here. Accepted layouts
// must match that model field by field and satisfy every ordering, alignment
// and non-overlap invariant; rejected ones leave the output untouched and
// name a rule the input really breaks.
#include <cinttypes>
#include <cstdint>
#include <cstring>

#include "common/spsq_wire.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/layout_input.h"

namespace {

using spsc_queue::SpscLayoutStatus;
using spsc_queue::SpscQueueLayout;
using u128 = unsigned __int128;

constexpr u128 kU64Max = ~uint64_t{0};

SPSQ_FUZZ_NO_COVERAGE u128 align_up(u128 v, u128 a) { return (v + a - 1) / a * a; }

struct Model {
  bool depth_ok, in_ok, out_ok, fits;
  u128 ring, input_arena_offset, output_arena_offset, payload_bytes;
};

SPSQ_FUZZ_NO_COVERAGE Model model(uint64_t depth, uint64_t in, uint64_t out) {
  Model m;
  m.depth_ok = depth >= 1 && depth <= (uint64_t{1} << 30) && (depth & (depth - 1)) == 0;
  m.in_ok = in > 0 && in % 64 == 0;
  m.out_ok = out > 0 && out % 64 == 0;
  m.ring = u128{depth} * 32;
  m.input_arena_offset = align_up(2 * m.ring, 64);
  m.output_arena_offset = align_up(m.input_arena_offset + in, 64);
  m.payload_bytes = m.output_arena_offset + out;
  m.fits = m.payload_bytes <= kU64Max;
  return m;
}

SPSQ_FUZZ_NO_COVERAGE bool reason_is_true(SpscLayoutStatus st, uint64_t depth, uint64_t in,
                                          uint64_t out, const Model& m) {
  switch (st) {
    case SpscLayoutStatus::OK:
      return m.depth_ok && m.in_ok && m.out_ok && m.fits;
    case SpscLayoutStatus::DEPTH_ZERO:
      return depth == 0;
    case SpscLayoutStatus::DEPTH_NOT_POWER_OF_TWO:
      return depth != 0 && (depth & (depth - 1)) != 0;
    case SpscLayoutStatus::DEPTH_TOO_LARGE:
      return depth > (uint64_t{1} << 30);
    case SpscLayoutStatus::INPUT_ARENA_ZERO:
      return in == 0;
    case SpscLayoutStatus::INPUT_ARENA_NOT_64_MULTIPLE:
      return in % 64 != 0;
    case SpscLayoutStatus::OUTPUT_ARENA_ZERO:
      return out == 0;
    case SpscLayoutStatus::OUTPUT_ARENA_NOT_64_MULTIPLE:
      return out % 64 != 0;
    // Overflow is only a true reason when every value rule holds.
    case SpscLayoutStatus::OVERFLOW:
      return m.depth_ok && m.in_ok && m.out_ok && !m.fits;
  }
  return false;
}

// [a, a + an) and [b, b + bn) do not share a byte.
SPSQ_FUZZ_NO_COVERAGE bool disjoint(u128 a, u128 an, u128 b, u128 bn) {
  return a + an <= b || b + bn <= a;
}

SPSQ_FUZZ_NO_COVERAGE void check_accepted(const SpscQueueLayout& l, const Model& m, uint64_t depth,
                                          uint64_t in, uint64_t out, uint64_t k) {
  SPSQ_FUZZ_CHECK(l.depth == depth, "depth %" PRIu64, l.depth);
  SPSQ_FUZZ_CHECK(l.input_arena_bytes == in && l.output_arena_bytes == out, "arena sizes");
  SPSQ_FUZZ_CHECK(l.input_desc_offset == 0, "input ring at %" PRIu64,
                  l.input_desc_offset);
  SPSQ_FUZZ_CHECK(l.output_desc_offset - l.input_desc_offset == m.ring,
                  "ring bytes");
  SPSQ_FUZZ_CHECK(l.output_desc_offset == m.ring, "output ring at %" PRIu64,
                  l.output_desc_offset);
  SPSQ_FUZZ_CHECK(l.input_arena_offset == m.input_arena_offset, "input arena at %" PRIu64,
                  l.input_arena_offset);
  SPSQ_FUZZ_CHECK(l.output_arena_offset == m.output_arena_offset, "output arena at %" PRIu64,
                  l.output_arena_offset);
  SPSQ_FUZZ_CHECK(l.payload_bytes == m.payload_bytes, "payload_bytes %" PRIu64, l.payload_bytes);

  // Ordering: input ring, output ring, input arena, output arena, end.
  const u128 in_ring_end = u128{l.input_desc_offset} + m.ring;
  const u128 out_ring_end = u128{l.output_desc_offset} + m.ring;
  const u128 in_arena_end = u128{l.input_arena_offset} + l.input_arena_bytes;
  const u128 out_arena_end = u128{l.output_arena_offset} + l.output_arena_bytes;
  SPSQ_FUZZ_CHECK(in_ring_end <= l.output_desc_offset, "input ring runs into output ring");
  SPSQ_FUZZ_CHECK(out_ring_end <= l.input_arena_offset, "output ring runs into input arena");
  SPSQ_FUZZ_CHECK(in_arena_end <= l.output_arena_offset, "input arena runs into output arena");
  SPSQ_FUZZ_CHECK(out_arena_end == l.payload_bytes, "output arena does not end the payload");
  // Alignment: rings 8, arenas 64.
  SPSQ_FUZZ_CHECK(l.input_desc_offset % 8 == 0 && l.output_desc_offset % 8 == 0,
                  "ring alignment");
  SPSQ_FUZZ_CHECK(l.input_arena_offset % 64 == 0 && l.output_arena_offset % 64 == 0,
                  "arena alignment");
  // Pairwise non-overlap of the four regions.
  const u128 start[4] = {l.input_desc_offset, l.output_desc_offset, l.input_arena_offset,
                         l.output_arena_offset};
  const u128 len[4] = {m.ring, m.ring, l.input_arena_bytes,
                       l.output_arena_bytes};
  for (int a = 0; a < 4; ++a) {
    SPSQ_FUZZ_CHECK(start[a] + len[a] <= l.payload_bytes, "region %d past payload_bytes", a);
    for (int b = a + 1; b < 4; ++b) {
      SPSQ_FUZZ_CHECK(disjoint(start[a], len[a], start[b], len[b]), "regions %d and %d overlap", a,
                      b);
    }
  }
  // Counter region: 384 bytes, six int32 slots on a 64-byte stride, in spec order.
  SPSQ_FUZZ_CHECK(l.counter_bytes == 384, "counter_bytes %" PRIu64, l.counter_bytes);
  const uint64_t slots[6] = {l.input_desc_tail_offset,      l.input_desc_head_offset,
                             l.output_desc_tail_offset,     l.output_desc_head_offset,
                             l.initiator_abort_offset, l.peer_abort_offset};
  for (int i = 0; i < 6; ++i) {
    SPSQ_FUZZ_CHECK(slots[i] == uint64_t(64) * i, "signal %d at %" PRIu64, i, slots[i]);
  }
  // Descriptor slot k lies inside its ring, at (k mod depth) * 32, for any k.
  const uint64_t ks[3] = {k, k + depth, depth - 1};
  for (uint64_t kk : ks) {
    const u128 want = u128{kk % depth} * 32;
    const uint64_t is = l.input_slot_offset(kk);
    const uint64_t os = l.output_slot_offset(kk);
    SPSQ_FUZZ_CHECK(is == l.input_desc_offset + want, "input slot %" PRIu64, kk);
    SPSQ_FUZZ_CHECK(os == l.output_desc_offset + want, "output slot %" PRIu64, kk);
    SPSQ_FUZZ_CHECK(u128{is} + 32 <= in_ring_end && u128{os} + 32 <= out_ring_end,
                    "slot %" PRIu64 " leaves its ring", kk);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const spsq_fuzz::LayoutInput args = spsq_fuzz::parse_layout_input(data, size);
  const Model m = model(args.depth, args.input_arena, args.output_arena);

  SpscQueueLayout sentinel;
  std::memset(&sentinel, 0xa5, sizeof(sentinel));
  SpscQueueLayout l = sentinel;
  const SpscLayoutStatus st =
      SpscQueueLayout::create_checked(args.depth, args.input_arena, args.output_arena, &l);
  SPSQ_FUZZ_CHECK(reason_is_true(st, args.depth, args.input_arena, args.output_arena, m),
                  "status '%s' is false for depth %" PRIu64 " in %" PRIu64 " out %" PRIu64,
                  spsc_queue::layout_status_name(st), args.depth, args.input_arena,
                  args.output_arena);

  SpscQueueLayout l2 = sentinel;
  const bool ok = SpscQueueLayout::create(args.depth, args.input_arena, args.output_arena, &l2);
  SPSQ_FUZZ_CHECK(ok == (st == SpscLayoutStatus::OK), "create and create_checked disagree");
  SPSQ_FUZZ_CHECK(std::memcmp(&l, &l2, sizeof(l)) == 0, "create and create_checked differ");
  SPSQ_FUZZ_CHECK(
      !SpscQueueLayout::create(args.depth, args.input_arena, args.output_arena, nullptr),
      "create accepted a null output");
  if (!ok) {
    SPSQ_FUZZ_CHECK(std::memcmp(&l, &sentinel, sizeof(l)) == 0, "rejected layout was written");
    return 0;
  }
  check_accepted(l, m, args.depth, args.input_arena, args.output_arena, args.slot_index);
  return 0;
}
