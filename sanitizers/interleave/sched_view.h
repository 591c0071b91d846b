// A RegionView (wire-contract.md, "The RegionView contract") over plain host
// memory that hands control to the scheduler before every shared access, so
// the explorer can interleave the peer between any two of them. Written from
// the contract only: the endpoint under test brings its own RegionNotifyOp,
// RegionWaitCmp, sample and span types, which the members accept generically.
#ifndef SPSQ_SANITIZERS_INTERLEAVE_SCHED_VIEW_H_
#define SPSQ_SANITIZERS_INTERLEAVE_SCHED_VIEW_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "conformance/model/view_parts.h"
#include "sanitizers/interleave/scheduler.h"

namespace spsq_sched {

// The memory of one region, owned by the scenario.
struct SchedRegion {
  std::vector<uint64_t> payload;  // uint64_t keeps it 8-byte aligned
  std::vector<uint64_t> counter;
  uint64_t payload_bytes = 0;
  uint64_t counter_bytes = 0;
  Run* run = nullptr;

  SchedRegion(uint64_t payload_size, uint64_t counter_size)
      : payload((payload_size + 7) / 8), counter((counter_size + 7) / 8),
        payload_bytes(payload_size), counter_bytes(counter_size) {}
  uint8_t* payload_base() { return reinterpret_cast<uint8_t*>(payload.data()); }
  uint8_t* counter_base() { return reinterpret_cast<uint8_t*>(counter.data()); }
};

// {base, logical_bytes} that converts to the endpoint's own span struct
// (RegionPartLocalSpan or any struct with those members), so SchedView names
// none of the endpoint's types.
using SchedSpan = spsq_conf::ViewSpan;

// Span is SchedSpan for an endpoint (or anything with base and
// logical_bytes).
template <class Span>
class SchedView {
 public:
  explicit SchedView(SchedRegion* region) : region_(region) {}

  class Payload {
   public:
    Span span() const { return Span{reinterpret_cast<uint64_t>(v_->region_->payload_base()),
                                    v_->region_->payload_bytes}; }
    template <class Out>
    bool read(uint64_t off, uint64_t n, Out& out) {
      if (!v_->enter(off, n, v_->region_->payload_bytes, "payload read")) return false;
      using Addr = decltype(out.local_addr);
      out.local_addr = reinterpret_cast<Addr>(v_->region_->payload_base() + off);
      out.nbytes = n;
      return true;
    }
    bool write(uint64_t off, const void* src, uint64_t n) {
      if (!v_->enter(off, n, v_->region_->payload_bytes, "payload write")) return false;
      uint8_t* dst = v_->region_->payload_base() + off;
      if (n != 0 && dst != src) std::memmove(dst, src, n);
      return true;
    }
    explicit Payload(SchedView* v) : v_(v) {}

   private:
    SchedView* v_;
  };

  class Counter {
   public:
    Span span() const { return Span{reinterpret_cast<uint64_t>(v_->region_->counter_base()),
                                    v_->region_->counter_bytes}; }
    template <class Op>
    bool notify(uint64_t off, int32_t value, Op op) {
      int32_t* p = v_->slot(off, "counter notify");
      if (p == nullptr) return false;
      if (static_cast<int>(op) == 0) {
        *p = value;
      } else if (static_cast<int>(op) == 1) {
        *p = static_cast<int32_t>(static_cast<uint32_t>(*p) + static_cast<uint32_t>(value));
      } else {
        return v_->fail("counter notify with unknown op");
      }
      return true;
    }
    template <class Cmp, class Sample>
    bool test(uint64_t off, int32_t cmp_value, Cmp cmp, Sample& sample) {
      int32_t* p = v_->slot(off, "counter test");
      if (p == nullptr) return false;
      sample.observed = *p;
      sample.matched = holds(*p, cmp, cmp_value);
      return true;
    }
    // Under lockstep scheduling a wait cannot block: it checks once and, if
    // the comparison does not hold, lets the other thread run.
    template <class Cmp>
    bool wait(uint64_t off, int32_t cmp_value, Cmp cmp, uint64_t, int32_t& observed) {
      int32_t* p = v_->slot(off, "counter wait");
      if (p == nullptr) return false;
      observed = *p;
      if (holds(*p, cmp, cmp_value)) return true;
      v_->region_->run->blocked();
      return false;
    }
    explicit Counter(SchedView* v) : v_(v) {}

   private:
    // An unknown compare number holds never (the explorer judges outcomes).
    template <class Cmp>
    static bool holds(int32_t observed, Cmp cmp, int32_t value) {
      bool known = false;
      return spsq_conf::wait_cmp_holds(observed, static_cast<uint32_t>(cmp), value, &known);
    }
    SchedView* v_;
  };

  bool failed() const { return failed_; }
  const spsq_conf::ViewError& error() const { return error_; }
  Payload payload() { return Payload(this); }
  Counter counter() { return Counter(this); }

 private:
  bool fail(const char* what) { return spsq_conf::fail_view(&failed_, &error_, what); }
  // A choice point, then the bounds check every access gets. An access
  // outside the spans fails the whole run: the endpoint broke its contract.
  bool enter(uint64_t off, uint64_t n, uint64_t limit, const char* what) {
    region_->run->point();
    if (failed_) return false;
    if (!spsq_conf::in_span(off, n, limit)) {
      region_->run->fail(spsq_conf::outside_span(what, off, n, limit).text);
    }
    return true;
  }
  int32_t* slot(uint64_t off, const char* what) {
    if (!enter(off, 4, region_->counter_bytes, what)) return nullptr;
    if (off % 4 != 0) region_->run->fail(std::string(what) + " misaligned");
    return reinterpret_cast<int32_t*>(region_->counter_base() + off);
  }

  SchedRegion* region_;
  bool failed_ = false;
  spsq_conf::ViewError error_;
};

}  // namespace spsq_sched

#endif  // SPSQ_SANITIZERS_INTERLEAVE_SCHED_VIEW_H_
