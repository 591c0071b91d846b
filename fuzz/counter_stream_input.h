// Input format of the counter-stream harness, shared with the seed generator.
//   u8  depth shift      depth = 1 << (v % 31), so 1 .. 2^30
//   u8  start mode       where the 64-bit truth starts (CounterStart)
//   u64 start raw
//   then ops, 5 bytes each: u8 kind (CounterOp, taken mod kCounterOpCount), u32 arg
// At most kCounterMaxOps ops are read. The truth stays below 2^63 + 2^44
// (start < 2^63, every op moves it by at most 2^31), so it never wraps 64 bits.
#ifndef SPSQ_FUZZ_COUNTER_STREAM_INPUT_H_
#define SPSQ_FUZZ_COUNTER_STREAM_INPUT_H_

#include <cstdint>

namespace spsq_fuzz {

enum CounterStart : uint8_t {
  kStartRaw = 0,             // raw mod 2^63
  kStartBelowSign = 1,       // 2^31 - 1 - (raw mod 2^16): the int32 sign boundary
  kStartBelowWrap = 2,       // 2^32 - 1 - (raw mod 2^16): the first 32-bit wrap
  kStartBelowLaterWrap = 3,  // m * 2^32 - 1 - (raw mod 2^16), m = 1 + (raw >> 16) mod 2^30
  kCounterStartCount = 4,
};

enum CounterOp : uint8_t {
  kOpStepLegal = 0,   // advance by arg mod (depth + 1): must reconstruct exactly
  kOpStepTooFar = 1,  // advance by depth + 1 + arg mod (2^31 - depth - 1): must reject
  kOpStepBack = 2,    // show a value 1 + arg mod 2^31 behind: must reject
  kOpCorrupt = 3,     // show int32(arg): accept iff the model finds it in [local, local+depth]
  kOpBitFlip = 4,     // a legal step (arg & 0x7ffffff) with bit (arg >> 27) flipped
  kOpReanchor = 5,    // both sides move to just below the next multiple of 2^31
  kOpStepDepth = 6,   // advance by exactly depth: the largest legal step
  kCounterOpCount = 7,
};

inline constexpr int kCounterMaxOps = 8192;
inline constexpr uint64_t kCounterStartLimit = uint64_t{1} << 63;

inline uint64_t counter_start_value(uint8_t mode, uint64_t raw) {
  switch (mode % kCounterStartCount) {
    case kStartRaw:
      return raw % kCounterStartLimit;
    case kStartBelowSign:
      return (uint64_t{1} << 31) - 1 - (raw & 0xffff);
    case kStartBelowWrap:
      return (uint64_t{1} << 32) - 1 - (raw & 0xffff);
    default: {
      const uint64_t m = 1 + ((raw >> 16) & ((uint64_t{1} << 30) - 1));
      return (m << 32) - 1 - (raw & 0xffff);
    }
  }
}

}  // namespace spsq_fuzz

#endif  // SPSQ_FUZZ_COUNTER_STREAM_INPUT_H_
