// LeanView: a RegionView for the counter-wrap runs (lean_wrap_driver.h),
// whose 2^33 view calls would otherwise cost more than the endpoint.
//
// It wraps a HarnessView in lean mode (ViewState::lean) and serves inline the
// calls lean mode serves inline: a live view, an access inside the smaller of
// the claimed span and real memory, a counter slot on the 64-byte stride, a
// Set, a known compare. It reads those limits once, where lean mode reads
// them through the state on every call. Any other call goes to the
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
#include <type_traits>

#include "testkit/harness_view.h"
#include "model/view_parts.h"

namespace spsq_conf {

// Copies n bytes, loading all before storing (the spans may overlap). A
// descriptor (32 bytes) or one field (8) is a few 8-byte moves rather than a
// libc call (a wrap run writes 2^33 of them), and 8-byte loads, the width an
// endpoint stores its fields with, so each load is served from the store
// buffer instead of stalling on a wider one.
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
  } else if (n != 0) {
    std::memmove(dst, src, n);
  }
}

class LeanView {
 public:
  explicit LeanView(HarnessView v) : inner_(v) {
    const ViewState* s = v.state();
    if (s == nullptr || !s->lean || s->coherence != nullptr || s->memory == nullptr ||
        s->memory->shadow_enabled()) {
      return;  // every call goes to the harness view
    }
    failed_ = &s->failed;
    payload_ = s->memory->payload();
    payload_span_ = s->payload_span;
    counter_span_ = s->counter_span;
    payload_limit_ = s->payload_span < s->memory->payload_bytes() ? s->payload_span
                                                                   : s->memory->payload_bytes();
    counter_ = s->memory->counter();
    counter_limit_ = s->counter_span < s->memory->counter_bytes() ? s->counter_span
                                                                  : s->memory->counter_bytes();
  }

  bool failed() const { return inner_.failed(); }
  const HarnessViewError& error() const { return inner_.error(); }

  class Payload {
   public:
    explicit Payload(LeanView* v) : v_(v) {}
    HarnessSpan span() const {
      return v_->lean() ? HarnessSpan{reinterpret_cast<uint64_t>(v_->payload_), v_->payload_span_}
                        : v_->inner_.payload().span();
    }
    template <class Out>
    bool read(uint64_t offset, uint64_t nbytes, Out& out) {
      if (!v_->payload_ok(offset, nbytes)) return v_->slow_read(offset, nbytes, out);
      using Addr = std::remove_reference_t<decltype(out.local_addr)>;
      out.local_addr = reinterpret_cast<Addr>(v_->payload_ + offset);  // integer or pointer
      out.nbytes = nbytes;
      return true;
    }
    bool write(uint64_t offset, const void* src, uint64_t nbytes) {
      if (!v_->payload_ok(offset, nbytes) || (src == nullptr && nbytes != 0)) {
        return v_->slow_write(offset, src, nbytes);
      }
      uint8_t* dst = v_->payload_ + offset;
      if (dst != src) lean_copy(dst, static_cast<const uint8_t*>(src), nbytes);
      return true;
    }

   private:
    LeanView* v_;
  };

  class Counter {
   public:
    explicit Counter(LeanView* v) : v_(v) {}
    HarnessSpan span() const {
      return v_->lean() ? HarnessSpan{reinterpret_cast<uint64_t>(v_->counter_), v_->counter_span_}
                        : v_->inner_.counter().span();
    }
    template <class Op>
    bool notify(uint64_t offset, int32_t value, Op op) {
      const uint32_t n = static_cast<uint32_t>(op);
      if (n > 1 || !v_->slot_ok(offset)) return v_->slow_notify(offset, value, op);
      if (n == 1) return v_->add_refused(offset);
      __atomic_store_n(v_->slot(offset), value, __ATOMIC_RELEASE);
      return true;
    }
    template <class Cmp, class Sample>
    bool test(uint64_t offset, int32_t cmp_value, Cmp cmp, Sample& sample) {
      if (!v_->slot_ok(offset)) return v_->slow_test(offset, cmp_value, cmp, sample);
      bool known = false;
      const int32_t observed = __atomic_load_n(v_->slot(offset), __ATOMIC_ACQUIRE);
      const bool matched =
          wait_cmp_holds(observed, static_cast<uint32_t>(cmp), cmp_value, &known);
      if (!known) return v_->slow_test(offset, cmp_value, cmp, sample);
      sample.matched = matched;
      sample.observed = observed;
      return true;
    }
    // Waiting moves virtual time: always the harness view's.
    template <class Cmp>
    bool wait(uint64_t offset, int32_t cmp_value, Cmp cmp, uint64_t timeout_ns,
              int32_t& observed) {
      return v_->inner_.counter().wait(offset, cmp_value, cmp, timeout_ns, observed);
    }

   private:
    LeanView* v_;
  };

  Payload payload() { return Payload(this); }
  Counter counter() { return Counter(this); }

 private:
  // The harness view's paths, out of line and cold: the inline ones stay
  // small enough for the endpoint's hot functions to inline them.
  template <class Out>
  __attribute__((noinline, cold)) bool slow_read(uint64_t offset, uint64_t nbytes, Out& out) {
    return inner_.payload().read(offset, nbytes, out);
  }
  __attribute__((noinline, cold)) bool slow_write(uint64_t offset, const void* src,
                                                  uint64_t nbytes) {
    return inner_.payload().write(offset, src, nbytes);
  }
  template <class Op>
  __attribute__((noinline, cold)) bool slow_notify(uint64_t offset, int32_t value, Op op) {
    return inner_.counter().notify(offset, value, op);
  }
  template <class Cmp, class Sample>
  __attribute__((noinline, cold)) bool slow_test(uint64_t offset, int32_t cmp_value, Cmp cmp,
                                                 Sample& sample) {
    return inner_.counter().test(offset, cmp_value, cmp, sample);
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

  bool lean() const { return failed_ != &kNotLean; }
  bool live() const { return !*failed_; }
  bool payload_ok(uint64_t offset, uint64_t nbytes) const {
    return live() && in_span(offset, nbytes, payload_limit_);
  }
  bool slot_ok(uint64_t offset) const {
    return live() && offset % 64 == 0 && in_span(offset, 4, counter_limit_);
  }
  int32_t* slot(uint64_t offset) const { return reinterpret_cast<int32_t*>(counter_ + offset); }

  // A view that cannot be served inline reads as failed here, so every call
  // goes to inner_, which knows better.
  static constexpr bool kNotLean = true;
  HarnessView inner_;
  const bool* failed_ = &kNotLean;  // the state's sticky failure
  uint8_t* payload_ = nullptr;
  uint64_t payload_span_ = 0;   // what span() claims, as the state says
  uint64_t payload_limit_ = 0;  // the smaller of that and real memory
  uint8_t* counter_ = nullptr;
  uint64_t counter_span_ = 0;
  uint64_t counter_limit_ = 0;
};

}  // namespace spsq_conf

#endif  // SPSQ_CONFORMANCE_HARNESS_LEAN_VIEW_H_
