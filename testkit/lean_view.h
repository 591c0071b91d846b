// LeanView: a RegionView for the counter-wrap runs (lean_wrap_driver.h),
// whose 2^33 view calls would otherwise cost more than the endpoint: the test
// view (testkit/view.h) with the lean policy.
//
// It wraps a HarnessView in lean mode (ViewState::lean) and serves inline the
// calls lean mode serves inline: a live view, an access inside the smaller of
// the claimed span and real memory, a counter slot on the 64-byte stride, a
// Set, a known compare. It works out those limits once and keeps them in the
// state (ViewState::lean_limits), which clears them when the view fails, so
// one load per call tells it both. Any other call goes to the
// HarnessView, which judges and reports it as it always does (a violation in
// ViewState::violations, a failed view). So it checks what lean mode checks,
// and one thing more: an Add, which lean mode performs (its log is what
// judges the op, and lean mode keeps none), is a violation here, since the
// wire contract writes every signal with a plain Set. A state that is not
// lean, is non-coherent or keeps a shadow copy is served by the HarnessView
// alone.
//
// For a view whose state does not change under it while it runs (the wrap's
// spans are fixed), and shared by copies as HarnessView is.
#ifndef SPSQ_CONFORMANCE_HARNESS_LEAN_VIEW_H_
#define SPSQ_CONFORMANCE_HARNESS_LEAN_VIEW_H_

#include <cstdint>
#include <cstring>
#include <string>

#include "testkit/harness_view.h"
#include "model/view_parts.h"
#include "testkit/view.h"

namespace spsq_conf {

// Copies n bytes, loading all before storing (the spans may overlap, or be
// the same: an endpoint that filled its span in place writes it back). A
// descriptor (32 bytes) or one field (8) is a few 8-byte moves rather than a
// libc call (a wrap run writes 2^33 of them), and 8-byte loads, the width an
// endpoint stores its fields with, so each load is served from the store
// buffer instead of stalling on a wider one. Only a longer copy onto itself
// is skipped: a short one costs less than the test.
inline void lean_copy(uint8_t* dst, const uint8_t* src, uint64_t n) {
  if (n >= 8 && n <= 32) {
    const uint64_t last = n - 8;  // the last word may overlap the one before
    const uint64_t second = last < 8 ? last : 8;
    const uint64_t third = last < 16 ? last : 16;
    uint64_t a, b, c, d;
    std::memcpy(&a, src, 8);
    std::memcpy(&b, src + second, 8);
    std::memcpy(&c, src + third, 8);
    std::memcpy(&d, src + last, 8);
    std::memcpy(dst, &a, 8);
    std::memcpy(dst + second, &b, 8);
    std::memcpy(dst + third, &c, 8);
    std::memcpy(dst + last, &d, 8);
  } else if (n != 0 && dst != src) {
    std::memmove(dst, src, n);
  }
}

// The lean policy (testkit/view.h), as the comment at the top says.
class LeanPolicy {
 public:
  explicit LeanPolicy(HarnessView v) : inner_(v) {
    ViewState* s = v.state();
    if (s == nullptr || !s->lean || s->coherence != nullptr || s->memory == nullptr ||
        s->memory->shadow_enabled()) {
      return;  // every call goes to the harness view
    }
    const uint64_t counter_limit = s->counter_span < s->memory->counter_bytes()
                                       ? s->counter_span
                                       : s->memory->counter_bytes();
    if (counter_limit < 4) return;  // no slot fits: the harness view judges each call
    const uint64_t payload_limit = s->payload_span < s->memory->payload_bytes()
                                       ? s->payload_span
                                       : s->memory->payload_bytes();
    // The last slot starts at counter_limit - 4.
    if (!s->failed) s->lean_limits = LeanLimits{payload_limit + 1, counter_limit - 3};
    limits_ = &s->lean_limits;
    payload_ = s->memory->payload();
    payload_span_ = s->payload_span;
    counter_span_ = s->counter_span;
    counter_ = s->memory->counter();
  }

  bool failed() const { return inner_.failed(); }
  const HarnessViewError& error() const { return inner_.error(); }

  HarnessSpan payload_span() const {
    return lean() ? HarnessSpan{reinterpret_cast<uint64_t>(payload_), payload_span_}
                  : inner_.payload_span();
  }
  HarnessSpan counter_span() const {
    return lean() ? HarnessSpan{reinterpret_cast<uint64_t>(counter_), counter_span_}
                  : inner_.counter_span();
  }

  bool on_read(uint64_t offset, uint64_t nbytes, uint8_t** addr) {
    if (!payload_ok(offset, nbytes)) {
      const Lent lent = slow_read(offset, nbytes);
      *addr = lent.addr;
      return lent.ok;
    }
    *addr = payload_ + offset;
    return true;
  }
  bool on_write(uint64_t offset, const void* src, uint64_t nbytes) {
    if (!payload_ok(offset, nbytes) || (src == nullptr && nbytes != 0)) {
      return slow_write(offset, src, nbytes);
    }
    lean_copy(payload_ + offset, static_cast<const uint8_t*>(src), nbytes);
    return true;
  }
  bool on_notify(uint64_t offset, int32_t value, uint32_t op) {
    if (op > 1 || !slot_ok(offset)) return slow_notify(offset, value, op);
    if (op == 1) return add_refused(offset);
    __atomic_store_n(slot(offset), value, __ATOMIC_RELEASE);
    return true;
  }
  bool on_test(uint64_t offset, int32_t cmp_value, uint32_t cmp, int32_t* observed,
               bool* matched) {
    if (!slot_ok(offset)) return slow_test(offset, cmp_value, cmp, observed, matched);
    bool known = false;
    const int32_t seen = __atomic_load_n(slot(offset), __ATOMIC_ACQUIRE);
    const bool held = wait_cmp_holds(seen, cmp, cmp_value, &known);
    if (!known) return slow_test(offset, cmp_value, cmp, observed, matched);
    *matched = held;
    *observed = seen;
    return true;
  }
  // Waiting moves virtual time: always the harness view's.
  bool on_wait(uint64_t offset, int32_t cmp_value, uint32_t cmp, uint64_t timeout_ns,
               int32_t* observed) {
    return inner_.on_wait(offset, cmp_value, cmp, timeout_ns, observed);
  }

 private:
  // The harness view's paths, out of line and cold: the inline ones stay
  // small enough for the endpoint's hot functions to inline them. A read's
  // span comes back by value: had the caller's out-pointer been passed on,
  // its variable would live in memory, and every read would store to it.
  struct Lent {
    bool ok;
    uint8_t* addr;
  };
  __attribute__((noinline, cold)) Lent slow_read(uint64_t offset, uint64_t nbytes) {
    uint8_t* addr = nullptr;
    const bool ok = inner_.on_read(offset, nbytes, &addr);
    return {ok, addr};
  }
  __attribute__((noinline, cold)) bool slow_write(uint64_t offset, const void* src,
                                                  uint64_t nbytes) {
    return inner_.on_write(offset, src, nbytes);
  }
  __attribute__((noinline, cold)) bool slow_notify(uint64_t offset, int32_t value, uint32_t op) {
    return inner_.on_notify(offset, value, op);
  }
  __attribute__((noinline, cold)) bool slow_test(uint64_t offset, int32_t cmp_value, uint32_t cmp,
                                                 int32_t* observed, bool* matched) {
    return inner_.on_test(offset, cmp_value, cmp, observed, matched);
  }

  // Only reached while lean (slot_ok held): the state is the wrapped view's.
  __attribute__((noinline, cold)) bool add_refused(uint64_t offset) {
    ViewState* s = inner_.state();
    const std::string why = "counter notify with op Add at counter offset " +
                            std::to_string(offset) + ": signals are written with a plain Set";
    s->violations.push_back(why);
    s->fail_now(why.c_str());
    return false;
  }

  bool lean() const { return limits_ != &kNotLean; }
  // in_span(offset, nbytes, limit) and a live view, in one load of the
  // state: the end is limit + 1, or 0 once the view failed.
  bool payload_ok(uint64_t offset, uint64_t nbytes) const {
    const uint64_t end = limits_->payload_end;
    return offset < end && nbytes < end - offset;
  }
  // in_span(offset, 4, limit) on the stride and a live view: the end is
  // limit - 3, or 0 once the view failed.
  bool slot_ok(uint64_t offset) const {
    return offset % 64 == 0 && offset < limits_->slot_end;
  }
  int32_t* slot(uint64_t offset) const { return reinterpret_cast<int32_t*>(counter_ + offset); }

  // A view that cannot be served inline has no room here, so every call
  // goes to inner_, which knows better.
  static constexpr LeanLimits kNotLean{};
  HarnessView inner_;
  // The state's lean_limits (harness_view.h): the smaller of the claimed
  // span and real memory, and whether the view is live, which the state
  // shares with every copy of the view.
  const LeanLimits* limits_ = &kNotLean;
  uint8_t* payload_ = nullptr;
  uint64_t payload_span_ = 0;  // what span() claims, as the state says
  uint8_t* counter_ = nullptr;
  uint64_t counter_span_ = 0;
};

using LeanView = PolicyView<LeanPolicy>;

}  // namespace spsq_conf

#endif  // SPSQ_CONFORMANCE_HARNESS_LEAN_VIEW_H_
