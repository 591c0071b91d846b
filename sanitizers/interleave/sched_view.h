// A RegionView (wire-contract.md, "The RegionView contract") over a
// SchedRegion (sched_region.h) that hands control to the scheduler before
// every shared access, so the explorer can interleave the peer between any two
// of them: the test view (testkit/view.h) with the explorer's policy. The
// endpoint under test brings its own RegionNotifyOp, RegionWaitCmp, sample and
// span types, which the view accepts generically.
//
// Visibility mode: each view is one side's (the endpoint's L2, the peer's
// L3) and behaves as the contract says a correct view does: read()
// invalidates the range before lending it from the side's copy, write()
// copies into the side's copy and flushes the range. Counters stay coherent.
// The cache's own write-backs and drops are the scheduler's to choose
// (SchedRegion::count_moves / apply_move).
#ifndef SPSQ_SANITIZERS_INTERLEAVE_SCHED_VIEW_H_
#define SPSQ_SANITIZERS_INTERLEAVE_SCHED_VIEW_H_

#include <cstdint>
#include <cstring>
#include <string>

#include "model/view_parts.h"
#include "sanitizers/interleave/sched_region.h"
#include "testkit/side.h"
#include "testkit/view.h"

namespace spsq_sched {

// The explorer's access policy (testkit/view.h): a choice point before every
// access, then the bounds check; lockstep waits.
class SchedPolicy {
 public:
  // `side` matters in visibility mode only: whose cache the view goes through.
  explicit SchedPolicy(SchedRegion* region, Side side = Side::kL2)
      : region_(region), side_(side) {}

  bool failed() const { return failed_; }
  const spsq_conf::ViewError& error() const { return error_; }

  spsq_conf::ViewSpan payload_span() const {
    return {reinterpret_cast<uint64_t>(region_->payload_base(side_)), region_->payload_bytes};
  }
  spsq_conf::ViewSpan counter_span() const {
    return {reinterpret_cast<uint64_t>(region_->counter_base()), region_->counter_bytes};
  }

  bool on_read(uint64_t off, uint64_t n, uint8_t** addr) {
    if (!enter(off, n, region_->payload_bytes, "payload read")) return false;
    SchedRegion& region = *region_;
    if (region.cache) {
      region.cache->invalidate(side_, off, n);
      region.touched(off, n);
    }
    *addr = region.payload_base(side_) + off;
    return true;
  }
  bool on_write(uint64_t off, const void* src, uint64_t n) {
    if (!enter(off, n, region_->payload_bytes, "payload write")) return false;
    SchedRegion& region = *region_;
    uint8_t* dst = region.payload_base(side_) + off;
    if (n != 0 && dst != src) std::memmove(dst, src, n);
    if (region.cache) {
      region.cache->flush(side_, off, n);
      region.touched(off, n);
    }
    return true;
  }

  bool on_notify(uint64_t off, int32_t value, uint32_t op) {
    int32_t* p = slot(off, "counter notify");
    if (p == nullptr) return false;
    if (op == 0) {
      *p = value;
    } else if (op == 1) {
      *p = static_cast<int32_t>(static_cast<uint32_t>(*p) + static_cast<uint32_t>(value));
    } else {
      return fail("counter notify with unknown op");
    }
    return true;
  }
  bool on_test(uint64_t off, int32_t cmp_value, uint32_t cmp, int32_t* observed,
               bool* matched) {
    int32_t* p = slot(off, "counter test");
    if (p == nullptr) return false;
    *observed = *p;
    *matched = holds(*p, cmp, cmp_value);
    return true;
  }
  // Under lockstep scheduling a wait cannot block: it checks once and, if
  // the comparison does not hold, lets the other thread run.
  bool on_wait(uint64_t off, int32_t cmp_value, uint32_t cmp, uint64_t, int32_t* observed) {
    int32_t* p = slot(off, "counter wait");
    if (p == nullptr) return false;
    *observed = *p;
    if (holds(*p, cmp, cmp_value)) return true;
    region_->run->blocked();
    return false;
  }

 private:
  // An unknown compare number holds never (the explorer judges outcomes).
  static bool holds(int32_t observed, uint32_t cmp, int32_t value) {
    bool known = false;
    return spsq_conf::wait_cmp_holds(observed, cmp, value, &known);
  }
  bool fail(const char* what) { return spsq_conf::fail_view(&failed_, &error_, what); }
  // A choice point, then the bounds check every access gets. An access
  // outside the spans fails the whole run: the endpoint broke its contract.
  bool enter(uint64_t off, uint64_t n, uint64_t limit, const char* what) {
    region_->run->point(what, off, n);
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
  Side side_;
  bool failed_ = false;
  spsq_conf::ViewError error_;
};

// span() returns {base, logical_bytes}, which converts to the endpoint's own
// span struct (or any struct with those members).
using SchedView = spsq_conf::PolicyView<SchedPolicy>;

}  // namespace spsq_sched

#endif  // SPSQ_SANITIZERS_INTERLEAVE_SCHED_VIEW_H_
