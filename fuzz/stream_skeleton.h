// The frame l2_stream and l3_stream share: the step bound, the step loop
// (decode a kind, run it, trace it, judge it), the arenas byte of both input
// headers and the record of what the harness's own side did that the spec
// lets the side under test answer with poison. Each harness keeps what is
// its own: the endpoint or queue, its memory, view and clock, its ops and
// its model; the oracles that judge each step are in fuzz/*_oracles.h.
#ifndef SPSQ_FUZZ_STREAM_SKELETON_H_
#define SPSQ_FUZZ_STREAM_SKELETON_H_

#include <cstdint>
#include <cstdlib>

#include "fuzz/fuzz_bytes.h"

namespace spsq_fuzz {

// Steps per input: bounds a run's time whatever the input's length.
constexpr int kMaxStreamOps = 2048;

// SPSQ_FUZZ_TRACE=1 prints every step (for reading a crash reproducer).
inline bool stream_tracing() {
  static const bool on = std::getenv("SPSQ_FUZZ_TRACE") != nullptr;
  return on;
}

// The second header byte of both formats: input arena 64 * (1 + bits 0-2),
// output arena 64 * (1 + bits 3-5); bits 6-7 == 3 breaks construction in one
// of `faults` ways, named by one more byte.
struct StreamArenas {
  uint64_t in = 0, out = 0;
  int binding_fault = -1;  // -1: none
};
inline StreamArenas read_arenas(uint8_t b, FuzzReader& in, int faults) {
  StreamArenas a;
  a.in = 64 * (1 + (b & 7));
  a.out = 64 * (1 + ((b >> 3) & 7));
  a.binding_fault = (b >> 6) == 3 ? in.u8() % faults : -1;
  return a;
}

// What the harness's side has done so far that may explain a poison: while
// all three are false the run is honest, and nothing may fail.
struct Honesty {
  bool hostile = false;  // a hostile edit of shared memory or the abort flag
  bool misuse = false;   // a misuse the side under test answered with poison
  bool fault = false;    // an injected view fault
  bool honest() const { return !hostile && !misuse && !fault; }
};

// The step loop. Harness provides read_kind(FuzzReader&) -> uint8_t,
// begin_step(), step(kind, in), trace(kind) and end_step(kind).
template <class Harness>
void run_stream(Harness& h, FuzzReader& in) {
  for (int n = 0; n < kMaxStreamOps && !in.empty(); ++n) {
    const uint8_t kind = h.read_kind(in);
    h.begin_step();
    h.step(kind, in);
    if (stream_tracing()) h.trace(kind);
    h.end_step(kind);
  }
}

}  // namespace spsq_fuzz

#endif  // SPSQ_FUZZ_STREAM_SKELETON_H_
