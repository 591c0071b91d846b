// Harness 3: a 64-bit truth sequence observed through the low-32 encoding.
//
// Input (fuzz/counter_stream_input.h): depth, a start value (raw, or just
// below the int32 sign boundary or a 2^32 wrap), then a stream of steps:
// legal ones, too-far and backward ones, and corruptions of the observed word.
//
// The consumer side is modelled by `local`, the value reconstruct_counter
// last accepted. Legal steps must reconstruct to the truth exactly; illegal
// ones must be rejected with the output untouched. Corruptions are judged by
// a model that works in 128-bit unsigned arithmetic instead of the core's
// signed 32-bit delta: the only 64-bit value that can explain an observed
// word is local + ((observed - local) mod 2^32), legal iff within depth.
#include <cinttypes>
#include <cstdint>

#include "common/spsq_wire.h"
#include "fuzz/counter_stream_input.h"
#include "fuzz/fuzz_bytes.h"
#include "fuzz/fuzz_check.h"

namespace {

using u128 = unsigned __int128;

// int32(uint32(v)) without relying on a narrowing conversion.
SPSQ_FUZZ_NO_COVERAGE int64_t low32_model(uint64_t v) {
  const int64_t m = static_cast<int64_t>(v & 0xffffffffu);
  return m >= (int64_t{1} << 31) ? m - (int64_t{1} << 32) : m;
}

SPSQ_FUZZ_NO_COVERAGE void check_word(uint64_t v, int32_t w) {
  SPSQ_FUZZ_CHECK(int64_t{w} == low32_model(v), "counter_low32(%" PRIu64 ") = %d", v, w);
}

// The word a writer stores for count v.
int32_t wire_word(uint64_t v) {
  const int32_t w = spsc_queue::counter_low32(v);
  check_word(v, w);
  return w;
}

struct Verdict {
  bool legal;
  uint64_t value;  // meaningful when legal
};

SPSQ_FUZZ_NO_COVERAGE Verdict model(uint64_t local, int32_t observed, uint64_t depth) {
  const u128 ahead = (static_cast<uint64_t>(static_cast<uint32_t>(observed)) + (u128{1} << 32) -
                      (local & 0xffffffffu)) %
                     (u128{1} << 32);
  const u128 v = u128{local} + ahead;
  if (ahead > depth) return {false, 0};
  return {true, static_cast<uint64_t>(v)};
}

SPSQ_FUZZ_NO_COVERAGE void check_observation(uint64_t local, int32_t observed, uint64_t depth,
                                             const Verdict& want, const char* what, bool ok,
                                             uint64_t out) {
  const Verdict m = model(local, observed, depth);
  SPSQ_FUZZ_CHECK(m.legal == want.legal && m.value == want.value, "%s: harness model disagrees",
                  what);
  SPSQ_FUZZ_CHECK(ok == want.legal,
                  "%s: local %" PRIu64 " observed %d depth %" PRIu64 ": core says %s", what, local,
                  observed, depth, ok ? "legal" : "illegal");
  if (!ok) {
    SPSQ_FUZZ_CHECK(out == 0x5a5a5a5a5a5a5a5aull, "%s: rejected reconstruction wrote", what);
    return;
  }
  SPSQ_FUZZ_CHECK(out == want.value,
                  "%s: local %" PRIu64 " observed %d: got %" PRIu64 " want %" PRIu64, what, local,
                  observed, out, want.value);
  SPSQ_FUZZ_CHECK(low32_model(out) == observed, "%s: reconstruction changes the low word", what);
}

// Feeds one observation to the core and checks it against the expectation.
void observe(uint64_t* local, int32_t observed, uint64_t depth, const Verdict& want,
             const char* what) {
  uint64_t out = 0x5a5a5a5a5a5a5a5aull;
  const bool ok = spsc_queue::reconstruct_counter(*local, observed, depth, &out);
  check_observation(*local, observed, depth, want, what, ok, out);
  if (ok) *local = out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace spsq_fuzz;
  FuzzReader in(data, size);
  const uint64_t depth = uint64_t{1} << (in.u8() % 31);
  const uint8_t mode = in.u8();
  uint64_t truth = counter_start_value(mode, in.u64());
  uint64_t local = truth;  // both sides agree on the start

  for (int ops = 0; ops < kCounterMaxOps && !in.empty(); ++ops) {
    const uint8_t kind = in.u8() % kCounterOpCount;
    const uint32_t arg = in.u32();
    SPSQ_FUZZ_CHECK(local == truth, "consumer and truth diverged");
    switch (kind) {
      case kOpStepLegal:
      case kOpStepDepth: {
        truth += kind == kOpStepDepth ? depth : arg % (depth + 1);
        observe(&local, wire_word(truth), depth, Verdict{true, truth}, "legal step");
        break;
      }
      case kOpStepTooFar: {
        const uint64_t span = (uint64_t{1} << 31) - depth - 1;
        const uint64_t next = truth + depth + 1 + arg % span;
        observe(&local, wire_word(next), depth, Verdict{false, 0}, "step past depth");
        break;
      }
      case kOpStepBack: {
        const uint64_t back = 1 + arg % (uint64_t{1} << 31);
        // The truth may sit below `back`; the word is what a confused writer
        // would store either way.
        observe(&local, wire_word(truth - back), depth, Verdict{false, 0}, "step backwards");
        break;
      }
      case kOpCorrupt: {
        const int32_t word = static_cast<int32_t>(arg);
        observe(&local, word, depth, model(local, word, depth), "corrupt word");
        truth = local;  // an accepted corruption is progress the consumer now owns
        break;
      }
      case kOpBitFlip: {
        const uint64_t step = (arg & 0x7ffffffu) % (depth + 1);
        const int32_t word = static_cast<int32_t>(static_cast<uint32_t>(wire_word(truth + step)) ^
                                                  (1u << (arg >> 27)));
        observe(&local, word, depth, model(local, word, depth), "bit flip");
        truth = local;
        break;
      }
      case kOpReanchor: {
        const uint64_t boundary = (truth | ((uint64_t{1} << 31) - 1)) + 1;
        truth = boundary - 1 - arg % (depth + 1);
        if (truth < local) truth = local;  // never move backwards
        local = truth;
        break;
      }
    }
  }
  return 0;
}
