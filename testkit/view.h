// PolicyView: the RegionView contract (wire-contract.md, "The RegionView
// contract") written once, for every view of this repository's instruments.
//
// The view is the contract's shape: failed() and error(), payload() and
// counter() with span(), read(), write(), notify(), test() and wait(). Reads
// and tests fill the endpoint's own out-parameter structs and take its own
// RegionNotifyOp / RegionWaitCmp enums, through the members and numbers the
// contract gives them, so a view names none of an endpoint's types and one
// view instantiates any endpoint written to the contract.
//
// What an access does is the Policy's: checks and how a breach is reported,
// logging, injected faults, scheduling points, atomics, what a wait does to
// time. A Policy provides, with the enums as numbers:
//
//   bool failed() const;
//   const ViewError& error() const;
//   ViewSpan payload_span() const;
//   ViewSpan counter_span() const;
//   bool on_read(uint64_t off, uint64_t n, uint8_t** addr);  // *addr: lent span
//   bool on_write(uint64_t off, const void* src, uint64_t n);
//   bool on_notify(uint64_t off, int32_t value, uint32_t op);
//   bool on_test(uint64_t off, int32_t cmp_value, uint32_t cmp, int32_t* observed,
//                bool* matched);
//   bool on_wait(uint64_t off, int32_t cmp_value, uint32_t cmp, uint64_t timeout_ns,
//                int32_t* observed);
//
// Each returns false on failure, as the contract's call does. PolicyView<P>
// is a P: its constructors, state and extras keep their names (a view type is
// an alias, e.g. HarnessView = PolicyView<HarnessPolicy>). The parts hold the
// view by pointer, so an endpoint takes them per call, as the contract's
// calls read (view.payload().read(...)). Everything here is inline: a lean
// policy's hot paths compile to what a hand-written view's would.
#ifndef SPSQ_TESTKIT_VIEW_H_
#define SPSQ_TESTKIT_VIEW_H_

#include <cstdint>
#include <type_traits>

#include "model/view_parts.h"

namespace spsq_conf {

// Fills a read's out-parameter: the contract allows an integer or a pointer
// `local_addr`.
template <class Out>
inline void lend_span(uint8_t* addr, uint64_t nbytes, Out& out) {
  using Addr = std::remove_reference_t<decltype(out.local_addr)>;
  using Size = std::remove_reference_t<decltype(out.nbytes)>;
  if constexpr (std::is_pointer_v<Addr>) {
    out.local_addr = reinterpret_cast<Addr>(addr);
  } else {
    out.local_addr = static_cast<Addr>(reinterpret_cast<uintptr_t>(addr));
  }
  out.nbytes = static_cast<Size>(nbytes);
}

template <class Policy>
class PolicyView : public Policy {
 public:
  using Policy::Policy;
  PolicyView() = default;

  class Payload {
   public:
    explicit Payload(PolicyView* v) : v_(v) {}
    ViewSpan span() const { return v_->payload_span(); }
    template <class Out>
    bool read(uint64_t offset, uint64_t nbytes, Out& out) {
      uint8_t* addr = nullptr;
      if (!v_->on_read(offset, nbytes, &addr)) return false;
      lend_span(addr, nbytes, out);
      return true;
    }
    bool write(uint64_t offset, const void* src, uint64_t nbytes) {
      return v_->on_write(offset, src, nbytes);
    }

   private:
    PolicyView* v_;
  };

  class Counter {
   public:
    explicit Counter(PolicyView* v) : v_(v) {}
    ViewSpan span() const { return v_->counter_span(); }
    template <class Op>
    bool notify(uint64_t offset, int32_t value, Op op) {
      return v_->on_notify(offset, value, static_cast<uint32_t>(op));
    }
    template <class Cmp, class Sample>
    bool test(uint64_t offset, int32_t cmp_value, Cmp cmp, Sample& sample) {
      int32_t observed = 0;
      bool matched = false;
      if (!v_->on_test(offset, cmp_value, static_cast<uint32_t>(cmp), &observed, &matched)) {
        return false;
      }
      sample.matched = matched;
      sample.observed = observed;
      return true;
    }
    template <class Cmp>
    bool wait(uint64_t offset, int32_t cmp_value, Cmp cmp, uint64_t timeout_ns,
              int32_t& observed) {
      return v_->on_wait(offset, cmp_value, static_cast<uint32_t>(cmp), timeout_ns, &observed);
    }

   private:
    PolicyView* v_;
  };

  Payload payload() { return Payload(this); }
  Counter counter() { return Counter(this); }
};

}  // namespace spsq_conf

#endif  // SPSQ_TESTKIT_VIEW_H_
