// RecordingView: a RegionView over host memory that logs every shared access
// in order (flushes included), fails the calls a FaultPlan names, counts any
// access outside its spans, and advances the VirtualClock inside wait().
//
// The endpoint owns its view, so everything a test inspects afterwards lives
// in a ViewScript the test owns and the view points at.
#ifndef SPSQ_TESTING_RECORDING_VIEW_H_
#define SPSQ_TESTING_RECORDING_VIEW_H_

#include <cinttypes>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>

#include "aicpu/region_view_types.h"
#include "testing/access_log.h"
#include "testing/fault_plan.h"
#include "testing/virtual_clock.h"

namespace spsq_testing {

struct ViewScript {
  AccessLog log;
  FaultPlan faults;
  // Runs inside wait() when the condition does not hold yet: the peer's move
  // while the endpoint blocks. If the condition then holds, wait succeeds
  // without advancing the clock; otherwise the clock jumps by the timeout.
  std::function<void()> during_wait;
  uint64_t out_of_span = 0;  // accesses outside the spans (always a bug)
  // A blocking call that keeps waiting without progress would hang a test on
  // a virtual clock; past this many waits the view reports a timeout instead
  // and counts the overrun, which the test then fails on.
  uint64_t wait_budget = 10'000;
  uint64_t wait_overruns = 0;
};

class RecordingView {
 public:
  class Payload {
   public:
    RegionPartLocalSpan span() const { return v_->payload_; }
    template <class Out>
    bool read(uint64_t offset, uint64_t nbytes, Out& out) {
      const bool ok = v_->admit(ViewCall::kPayloadRead, v_->payload_, offset, nbytes, "payload read");
      v_->log({AccessKind::kPayloadRead, offset, nbytes, 0, 0, ok});
      if (!ok) return false;
      out.local_addr = reinterpret_cast<uintptr_t>(v_->payload_addr(offset));
      out.nbytes = nbytes;
      return true;
    }
    bool write(uint64_t offset, const void* src, uint64_t nbytes) {
      const bool ok =
          v_->admit(ViewCall::kPayloadWrite, v_->payload_, offset, nbytes, "payload write");
      v_->log({AccessKind::kPayloadWrite, offset, nbytes, 0, 0, ok});
      if (!ok) return false;
      if (nbytes != 0) std::memmove(v_->payload_addr(offset), src, nbytes);
      v_->log({AccessKind::kFlush, offset, nbytes, 0, 0, true});
      return true;
    }

   private:
    friend class RecordingView;
    explicit Payload(RecordingView* v) : v_(v) {}
    RecordingView* v_;
  };

  class Counter {
   public:
    RegionPartLocalSpan span() const { return v_->counter_; }
    bool notify(uint64_t offset, int32_t value, RegionNotifyOp op) {
      const bool ok = v_->admit(ViewCall::kCounterNotify, v_->counter_, offset, 4, "notify");
      v_->log({AccessKind::kCounterNotify, offset, 4, value, static_cast<uint32_t>(op), ok});
      if (!ok) return false;
      int32_t* p = v_->counter_addr(offset);
      if (op == RegionNotifyOp::Set) {
        __atomic_store_n(p, value, __ATOMIC_RELEASE);
      } else {
        __atomic_fetch_add(p, value, __ATOMIC_ACQ_REL);
      }
      return true;
    }
    bool test(uint64_t offset, int32_t cmp_value, RegionWaitCmp cmp, RegionSignalTestResult& s) {
      const bool ok = v_->admit(ViewCall::kCounterTest, v_->counter_, offset, 4, "test");
      v_->log({AccessKind::kCounterTest, offset, 4, cmp_value, static_cast<uint32_t>(cmp), ok});
      if (!ok) return false;
      s.observed = __atomic_load_n(v_->counter_addr(offset), __ATOMIC_ACQUIRE);
      s.matched = region_wait_cmp_holds(s.observed, cmp, cmp_value);
      return true;
    }
    bool wait(uint64_t offset, int32_t cmp_value, RegionWaitCmp cmp, uint64_t timeout_ns,
              int32_t& observed) {
      const bool ok = v_->admit(ViewCall::kCounterWait, v_->counter_, offset, 4, "wait");
      v_->log({AccessKind::kCounterWait, offset, timeout_ns, cmp_value,
               static_cast<uint32_t>(cmp), ok});
      if (!ok) return false;
      const int32_t* p = v_->counter_addr(offset);
      observed = __atomic_load_n(p, __ATOMIC_ACQUIRE);
      if (v_->script_->wait_budget == 0) {
        ++v_->script_->wait_overruns;
        VirtualClock::advance(timeout_ns);
        return false;
      }
      --v_->script_->wait_budget;
      if (region_wait_cmp_holds(observed, cmp, cmp_value)) return true;
      if (v_->script_->during_wait) {
        v_->script_->during_wait();
        observed = __atomic_load_n(p, __ATOMIC_ACQUIRE);
        if (region_wait_cmp_holds(observed, cmp, cmp_value)) return true;
      }
      VirtualClock::advance(timeout_ns);
      return false;
    }

   private:
    friend class RecordingView;
    explicit Counter(RecordingView* v) : v_(v) {}
    RecordingView* v_;
  };

  RecordingView(RegionPartLocalSpan payload, RegionPartLocalSpan counter, ViewScript* script)
      : payload_(payload), counter_(counter), script_(script) {}

  bool failed() const { return failed_; }
  const RegionViewError& error() const { return error_; }
  Payload payload() { return Payload(this); }
  Counter counter() { return Counter(this); }

  // Puts the view in the failed state before it is handed over.
  void fail_now(const char* why) { fail("%s", why); }

 private:
  void log(const Access& a) { script_->log.add(a); }
  uint8_t* payload_addr(uint64_t off) { return reinterpret_cast<uint8_t*>(payload_.base) + off; }
  int32_t* counter_addr(uint64_t off) { return reinterpret_cast<int32_t*>(counter_.base + off); }

  // Decides whether a call goes ahead: injected faults, stickiness and span
  // checks, in that order.
  bool admit(ViewCall call, const RegionPartLocalSpan& part, uint64_t offset, uint64_t nbytes,
             const char* what) {
    const bool inject = script_->faults.next(call);
    if (failed_ && script_->faults.sticky) return false;
    if (inject) {
      fail("injected failure of %s call #%" PRIu64, what, script_->faults.count(call));
      return false;
    }
    const bool aligned = &part != &counter_ || offset % 4 == 0;
    if (offset > part.logical_bytes || nbytes > part.logical_bytes - offset || !aligned) {
      ++script_->out_of_span;
      fail("%s [%" PRIu64 ", +%" PRIu64 ") outside the %" PRIu64 "-byte part", what, offset,
           nbytes, part.logical_bytes);
      return false;
    }
    return true;
  }

  void fail(const char* fmt, ...) __attribute__((format(printf, 2, 3))) {
    if (failed_) return;
    failed_ = true;
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(error_.message, sizeof(error_.message), fmt, args);
    va_end(args);
  }

  RegionPartLocalSpan payload_;
  RegionPartLocalSpan counter_;
  ViewScript* script_;
  bool failed_ = false;
  RegionViewError error_{};
};

}  // namespace spsq_testing

#endif  // SPSQ_TESTING_RECORDING_VIEW_H_
