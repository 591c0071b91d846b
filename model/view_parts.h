// The parts every RegionView of this repository's instruments shares (the
// conformance harness's, the fuzzers', the stress tests' and the interleaving
// explorer's), written from wire-contract.md, "The RegionView contract". The
// contract's shape is written once, in testkit/view.h; each instrument's
// access policy (its own speed, threads or choice points) uses these parts,
// inline, on its hot paths. Names nothing of any implementation.
#ifndef SPSQ_CONFORMANCE_MODEL_VIEW_PARTS_H_
#define SPSQ_CONFORMANCE_MODEL_VIEW_PARTS_H_

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <utility>

namespace spsq_conf {

// What span() returns: {base, logical_bytes}, converting to the endpoint's own
// span struct (or any struct with those members), so a view names none of an
// endpoint's types.
struct ViewSpan {
  uint64_t base = 0;
  uint64_t logical_bytes = 0;

  template <class T, class = decltype(std::declval<T&>().base = 0),
            class = decltype(std::declval<T&>().logical_bytes = 0)>
  operator T() const {  // NOLINT: implicit by design
    T t{};
    t.base = base;
    t.logical_bytes = logical_bytes;
    return t;
  }
};

// What error() of a failed view carries (the contract reads its message).
struct ViewError {
  char message[256] = {};
};

// Fails a view for good: the first reason stays, as the contract's sticky
// failure wants. Returns false, what the failing call returns.
inline bool fail_view(bool* failed, ViewError* error, const char* why) {
  if (!*failed) std::snprintf(error->message, sizeof(error->message), "%s", why);
  *failed = true;
  return false;
}

// RegionWaitCmp semantics by number: EQ=0, NE=1, GT=2, GE=3, LT=4, LE=5.
// False (and *known false) for any other number.
inline bool wait_cmp_holds(int32_t observed, uint32_t cmp, int32_t value, bool* known) {
  *known = true;
  switch (cmp) {
    case 0: return observed == value;
    case 1: return observed != value;
    case 2: return observed > value;
    case 3: return observed >= value;
    case 4: return observed < value;
    case 5: return observed <= value;
  }
  *known = false;
  return false;
}

// [off, off + n) lies inside a span of `limit` bytes (overflow-safe).
inline bool in_span(uint64_t off, uint64_t n, uint64_t limit) {
  return off <= limit && n <= limit - off;
}

// [off, off + n) lies inside [start, start + len) (overflow-safe).
inline bool in_range(uint64_t off, uint64_t n, uint64_t start, uint64_t len) {
  return off >= start && in_span(off - start, n, len);
}

// The text of an access outside its span, for a view's error or a run's
// failure report.
struct OutsideText {
  char text[200] = {};
};
inline OutsideText outside_span(const char* what, uint64_t off, uint64_t n, uint64_t limit) {
  OutsideText t;
  std::snprintf(t.text, sizeof(t.text),
                "%s outside its span: [%" PRIu64 ", +%" PRIu64 ") past %" PRIu64 " bytes", what,
                off, n, limit);
  return t;
}

}  // namespace spsq_conf

#endif  // SPSQ_CONFORMANCE_MODEL_VIEW_PARTS_H_
