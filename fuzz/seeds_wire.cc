// Seeds for the wire harnesses (binding decode, layout, counter stream).
#include <cstdint>
#include <string>
#include <vector>

#include "common/spsq_wire.h"
#include "fuzz/counter_stream_input.h"
#include "fuzz/fuzz_bytes.h"
#include "fuzz/layout_input.h"
#include "fuzz/seedgen.h"

namespace spsq_fuzz {
namespace {

using spsc_queue::SpscQueueEndpointBinding;
using spsc_queue::SpscQueueLayout;

// Queue shapes L3 creates: the spec's example, the contract's golden vectors,
// and the extremes (max depth, one-message queue).
struct Shape {
  const char* name;
  uint64_t depth, in, out;
};
constexpr Shape kShapes[] = {
    {"example_depth4_1MiB", 4, 1 << 20, 1 << 20},
    {"golden_1_64_64", 1, 64, 64},
    {"golden_4_128_192", 4, 128, 192},
    {"golden_8_192_64", 8, 192, 64},
    {"golden_2_64_128", 2, 64, 128},
    {"max_depth", uint64_t{1} << 30, 1 << 16, 1 << 16},
};

std::vector<uint8_t> scalar_bytes(const uint64_t* s, size_t n) {
  FuzzWriter w;
  for (size_t i = 0; i < n; ++i) w.u64(s[i]);
  return w.bytes();
}

// The binding L3 would hand over for `shape`, at plausible device addresses.
bool real_binding(const Shape& shape, uint64_t txn, uint64_t out[10]) {
  SpscQueueLayout l;
  if (!SpscQueueLayout::create(shape.depth, shape.in, shape.out, &l)) return false;
  SpscQueueEndpointBinding b{};
  b.magic_version = spsc_queue::kSpscQueueMagicVersion;
  b.session_instance_id_bits = 0x0000000100000000ull | txn;
  b.transaction_id = txn;
  b.payload_base = 0x12c0000000ull + txn * 0x100000000ull;
  b.payload_bytes = l.payload_bytes;
  b.counter_base = 0x12b0000000ull + txn * 0x1000;
  b.counter_bytes = l.counter_bytes;
  b.depth = l.depth;
  b.input_arena_bytes = l.input_arena_bytes;
  b.output_arena_bytes = l.output_arena_bytes;
  return spsc_queue::encode_endpoint_binding(b, out, 10);
}

void binding_seeds(std::vector<Seed>* out) {
  uint64_t txn = 1;
  for (const Shape& shape : kShapes) {
    uint64_t s[11] = {};
    if (!real_binding(shape, txn++, s)) continue;
    out->push_back({std::string("binding_") + shape.name, scalar_bytes(s, 10)});
  }
  // One fault each, injected into the example's binding.
  uint64_t base[11] = {};
  real_binding(kShapes[0], 7, base);
  struct Fault {
    const char* name;
    int index;
    uint64_t value;
    size_t count;
  };
  const Fault faults[] = {
      {"fault_minor_1_1", 0, 0x5350535100010001ull, 10},
      {"fault_major_2_0", 0, 0x5350535100020000ull, 10},
      {"fault_magic_byteswapped", 0, 0x0000010051535053ull, 10},
      {"fault_zero_transaction", 2, 0, 10},
      {"fault_nine_scalars", 0, base[0], 9},
      {"fault_eleven_scalars", 10, 0, 11},
      {"zero_session_bits", 1, 0, 10},
  };
  for (const Fault& f : faults) {
    uint64_t s[11];
    for (int i = 0; i < 11; ++i) s[i] = base[i];
    s[f.index] = f.value;
    out->push_back({f.name, scalar_bytes(s, f.count)});
  }
}

void layout_seeds(std::vector<Seed>* out) {
  for (const Shape& shape : kShapes) {
    out->push_back({std::string("layout_") + shape.name,
                    encode_layout_input({shape.depth, shape.in, shape.out, 5})});
  }
  // The largest arenas that still fit 64 bits at depth 1, and one byte more.
  const uint64_t kTop = ~uint64_t{0} - 63;  // largest 64-multiple
  const uint64_t fit_in = kTop - 128;       // 64 (rings) + in + 64 (out) == kTop
  out->push_back({"layout_edge_fits", encode_layout_input({1, fit_in, 64, 0})});
  out->push_back({"layout_edge_overflows", encode_layout_input({1, fit_in + 64, 64, 0})});
  out->push_back({"layout_depth_not_pow2", encode_layout_input({12, 128, 128, 0})});
  out->push_back({"layout_depth_2_31", encode_layout_input({uint64_t{1} << 31, 64, 64, 0})});
  out->push_back({"layout_arena_not_64", encode_layout_input({4, 100, 64, 0})});
  // The shaped form: depth 2^10, arenas 64 * 16 each.
  FuzzWriter w;
  w.u8(kLayoutDepthShift | kLayoutInputTimes64 | kLayoutOutputTimes64)
      .u64(10)
      .u64(16)
      .u64(16)
      .u64(3);
  out->push_back({"layout_shaped_1024", w.bytes()});
}

// A producer that publishes `batches` of the given sizes, as a counter stream.
std::vector<uint8_t> counter_traffic(uint8_t depth_shift, uint8_t start, uint64_t raw,
                                     const std::vector<std::pair<uint8_t, uint32_t>>& ops) {
  FuzzWriter w;
  w.u8(depth_shift).u8(start).u64(raw);
  for (const auto& op : ops) w.u8(op.first).u32(op.second);
  return w.bytes();
}

void counter_seeds(std::vector<Seed>* out) {
  // depth 4: one message at a time, then full batches, across the sign boundary.
  std::vector<std::pair<uint8_t, uint32_t>> singles;
  for (int i = 0; i < 24; ++i) singles.push_back({kOpStepLegal, 1});
  out->push_back({"depth4_singles_across_sign", counter_traffic(2, kStartBelowSign, 9, singles)});
  out->push_back({"depth4_singles_across_wrap", counter_traffic(2, kStartBelowWrap, 9, singles)});
  std::vector<std::pair<uint8_t, uint32_t>> batches;
  for (int i = 0; i < 12; ++i) batches.push_back({kOpStepDepth, 0});
  out->push_back(
      {"depth4_full_batches_across_wrap", counter_traffic(2, kStartBelowWrap, 20, batches)});
  // depth 2^30: huge strides cross the sign boundary and the wrap in a few steps.
  std::vector<std::pair<uint8_t, uint32_t>> strides;
  for (int i = 0; i < 10; ++i) strides.push_back({kOpStepDepth, 0});
  out->push_back({"depth_2_30_strides", counter_traffic(30, kStartRaw, 0, strides)});
  // A later wrap, with a stalled consumer (zero steps) and re-anchoring.
  out->push_back({"depth8_later_wrap_stalls", counter_traffic(3, kStartBelowLaterWrap, 0x12345678,
                                                              {{kOpStepLegal, 0},
                                                               {kOpStepLegal, 8},
                                                               {kOpStepLegal, 3},
                                                               {kOpStepLegal, 0},
                                                               {kOpReanchor, 2},
                                                               {kOpStepLegal, 7},
                                                               {kOpStepLegal, 5}})});
  // Faults a hostile writer injects between honest publications.
  out->push_back({"depth4_faults", counter_traffic(2, kStartBelowSign, 3,
                                                   {{kOpStepLegal, 2},
                                                    {kOpStepTooFar, 0},
                                                    {kOpStepBack, 0},
                                                    {kOpStepLegal, 4},
                                                    {kOpCorrupt, 0x80000000u},
                                                    {kOpCorrupt, 0x7fffffffu},
                                                    {kOpBitFlip, 31u << 27},
                                                    {kOpBitFlip, 1},
                                                    {kOpStepLegal, 1}})});
}

}  // namespace

void wire_seeds(const std::string& harness, std::vector<Seed>* out) {
  if (harness == "binding_decode") binding_seeds(out);
  if (harness == "layout") layout_seeds(out);
  if (harness == "counter_stream") counter_seeds(out);
}

}  // namespace spsq_fuzz
