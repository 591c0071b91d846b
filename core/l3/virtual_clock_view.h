// VirtualClockView: RegionInstanceView for single-threaded tests where time
// matters. Counter waits never spin: if the condition does not hold, the
// scripted peer step (if any) runs once, and if it still does not hold the
// virtual clock jumps to the deadline. A blocking call therefore either sees
// the peer's progress or times out, deterministically and without sleeping.
#ifndef SPSQ_L3_VIRTUAL_CLOCK_VIEW_H_
#define SPSQ_L3_VIRTUAL_CLOCK_VIEW_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>

#include "aicpu/region_instance_view.h"
#include "aicpu/region_view_types.h"
#include "common/spsq_clock.h"

namespace spsq_l3_testing {

// One process-wide virtual time line (MonotonicClock holds a plain function
// pointer). Tests reset it in SetUp.
struct VirtualClock {
  static uint64_t& now() {
    static uint64_t t = 0;
    return t;
  }
  static uint64_t now_ns() { return now(); }
  static void reset(uint64_t t = 1000) { now() = t; }
  static void advance(uint64_t ns) { now() += ns; }
  static spsc_queue::MonotonicClock clock() { return spsc_queue::MonotonicClock{&now_ns}; }
};

// What happens while a waiter waits. Shared between the test and the view.
struct WaitScript {
  std::function<void()> peer_step;  // runs at most once per wait
  uint64_t waits = 0;               // waits entered
  uint64_t timed_out = 0;           // waits that ended at the deadline
};

class VirtualClockView {
 public:
  class Counter {
   public:
    RegionPartLocalSpan span() const { return view_->inner_.counter().span(); }
    bool notify(uint64_t offset, int32_t value, RegionNotifyOp op) {
      return view_->inner_.counter().notify(offset, value, op);
    }
    bool test(uint64_t offset, int32_t cmp_value, RegionWaitCmp cmp, RegionCounterSample& s) {
      return view_->inner_.counter().test(offset, cmp_value, cmp, s);
    }
    bool wait(uint64_t offset, int32_t cmp_value, RegionWaitCmp cmp, uint64_t timeout_ns,
              int32_t& observed) {
      WaitScript& script = *view_->script_;
      ++script.waits;
      RegionCounterSample s{};
      if (!test(offset, cmp_value, cmp, s)) return false;
      if (!s.matched && script.peer_step) {
        script.peer_step();
        if (!test(offset, cmp_value, cmp, s)) return false;
      }
      observed = s.observed;
      if (s.matched) return true;
      ++script.timed_out;
      VirtualClock::advance(timeout_ns);
      return false;
    }

   private:
    friend class VirtualClockView;
    explicit Counter(VirtualClockView* view) : view_(view) {}
    VirtualClockView* view_;
  };

  VirtualClockView(RegionPartLocalSpan payload, RegionPartLocalSpan counter,
                   std::shared_ptr<WaitScript> script)
      : inner_(payload, counter, VirtualClock::clock()), script_(std::move(script)) {}

  bool failed() const { return inner_.failed(); }
  const RegionViewError& error() const { return inner_.error(); }
  RegionInstanceView::Payload payload() { return inner_.payload(); }
  Counter counter() { return Counter(this); }

 private:
  RegionInstanceView inner_;
  std::shared_ptr<WaitScript> script_;
};

}  // namespace spsq_l3_testing

#endif  // SPSQ_L3_VIRTUAL_CLOCK_VIEW_H_
