// Input format of the layout harness, shared with the seed generator.
//   u8  shape   bit 0: depth = 1 << (raw % 64)   (else raw)
//               bit 1: input arena = raw << 6     (else raw)
//               bit 2: output arena = raw << 6    (else raw)
//   u64 depth raw, u64 input arena raw, u64 output arena raw, u64 slot index
#ifndef SPSQ_FUZZ_LAYOUT_INPUT_H_
#define SPSQ_FUZZ_LAYOUT_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz/fuzz_bytes.h"

namespace spsq_fuzz {

inline constexpr uint8_t kLayoutDepthShift = 1;
inline constexpr uint8_t kLayoutInputTimes64 = 2;
inline constexpr uint8_t kLayoutOutputTimes64 = 4;

struct LayoutInput {
  uint64_t depth;
  uint64_t input_arena;
  uint64_t output_arena;
  uint64_t slot_index;
};

inline LayoutInput parse_layout_input(const uint8_t* data, size_t size) {
  FuzzReader in(data, size);
  const uint8_t shape = in.u8();
  LayoutInput a;
  const uint64_t d = in.u64(), i = in.u64(), o = in.u64();
  a.depth = (shape & kLayoutDepthShift) ? uint64_t{1} << (d % 64) : d;
  a.input_arena = (shape & kLayoutInputTimes64) ? i << 6 : i;
  a.output_arena = (shape & kLayoutOutputTimes64) ? o << 6 : o;
  a.slot_index = in.u64();
  return a;
}

// The raw bytes that make parse_layout_input return exactly these values.
inline std::vector<uint8_t> encode_layout_input(const LayoutInput& a) {
  FuzzWriter w;
  w.u8(0).u64(a.depth).u64(a.input_arena).u64(a.output_arena).u64(a.slot_index);
  return w.bytes();
}

}  // namespace spsq_fuzz

#endif  // SPSQ_FUZZ_LAYOUT_INPUT_H_
