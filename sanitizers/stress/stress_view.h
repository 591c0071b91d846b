// StressView: a minimal thread-safe RegionView (wire-contract.md, "The
// RegionView contract") over real memory, for the stress tests' two parties.
//
// Why not the conformance harness's HarnessView: its wait() drives the
// process-global VirtualClock, which one thread owns (a second thread's wait
// races it, and a wait that finds its condition false jumps virtual time to
// the deadline instead of waiting for the peer); its recording mode keeps an
// access log and a shadow diff that would book the peer thread's stores as
// stores behind the view's back. A stress needs neither, but needs waits that
// really wait for another thread. So this view keeps only the contract:
//   - counters are the int32 slots at their offsets, stored with release,
//     added with acq_rel, loaded with acquire (test and wait), so a tail
//     published after a payload and a descriptor orders them for the reader;
//   - payload read lends [offset, offset + n) in place; write copies (host
//     memory is coherent: nothing to flush);
//   - every access is bounds-checked against its span; a failure is sticky;
//   - wait polls (yielding) until the comparison holds or the timeout passes
//     on the steady clock.
// A copy is a handle onto the same memory with a failure state of its own.
// It is the test view (testkit/view.h) with the stress policy.
#ifndef SPSQ_SANITIZERS_STRESS_STRESS_VIEW_H_
#define SPSQ_SANITIZERS_STRESS_STRESS_VIEW_H_

#include <time.h>

#include <cstdint>
#include <cstring>
#include <thread>

#include "model/view_parts.h"
#include "testkit/view.h"

namespace spsq_stress {

using spsq_conf::ViewError;
using spsq_conf::ViewSpan;

inline uint64_t steady_now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// The stress tests' access policy (testkit/view.h), as the comment at the
// top says.
class StressPolicy {
 public:
  StressPolicy(uint8_t* payload, uint64_t payload_bytes, uint8_t* counter, uint64_t counter_bytes)
      : payload_(payload), payload_bytes_(payload_bytes), counter_(counter),
        counter_bytes_(counter_bytes) {}

  bool failed() const { return failed_; }
  const ViewError& error() const { return error_; }

  ViewSpan payload_span() const {
    return ViewSpan{reinterpret_cast<uint64_t>(payload_), payload_bytes_};
  }
  ViewSpan counter_span() const {
    return ViewSpan{reinterpret_cast<uint64_t>(counter_), counter_bytes_};
  }

  bool on_read(uint64_t off, uint64_t n, uint8_t** addr) {
    if (!inside(off, n, payload_bytes_, "payload read")) return false;
    *addr = payload_ + off;
    return true;
  }
  bool on_write(uint64_t off, const void* src, uint64_t n) {
    if (!inside(off, n, payload_bytes_, "payload write")) return false;
    if (n == 0) return true;
    if (src == nullptr) return fail("payload write from a null source");
    uint8_t* dst = payload_ + off;
    if (dst != src) std::memmove(dst, src, n);
    return true;
  }

  bool on_notify(uint64_t off, int32_t value, uint32_t op) {
    int32_t* p = slot(off, "counter notify");
    if (p == nullptr) return false;
    switch (op) {
      case 0: __atomic_store_n(p, value, __ATOMIC_RELEASE); return true;
      case 1: __atomic_fetch_add(p, value, __ATOMIC_ACQ_REL); return true;
    }
    return fail("counter notify with an unknown op");
  }
  bool on_test(uint64_t off, int32_t cmp_value, uint32_t cmp, int32_t* observed,
               bool* matched) {
    int32_t* p = slot(off, "counter test");
    if (p == nullptr) return false;
    const int32_t seen = __atomic_load_n(p, __ATOMIC_ACQUIRE);
    bool known = false;
    const bool held = spsq_conf::wait_cmp_holds(seen, cmp, cmp_value, &known);
    if (!known) return fail("counter test with an unknown compare");
    *matched = held;
    *observed = seen;
    return true;
  }
  bool on_wait(uint64_t off, int32_t cmp_value, uint32_t cmp, uint64_t timeout_ns,
               int32_t* observed) {
    int32_t* p = slot(off, "counter wait");
    if (p == nullptr) return false;
    const uint64_t start = steady_now_ns();
    for (uint64_t polls = 0;; ++polls) {
      *observed = __atomic_load_n(p, __ATOMIC_ACQUIRE);
      bool known = false;
      if (spsq_conf::wait_cmp_holds(*observed, cmp, cmp_value, &known)) return true;
      if (!known) return fail("counter wait with an unknown compare");
      // Read the clock now and then only: the peer usually moves first.
      if (timeout_ns == 0 || (polls % 64 == 63 && steady_now_ns() - start >= timeout_ns)) {
        return false;
      }
      std::this_thread::yield();
    }
  }

 private:
  bool fail(const char* what) { return spsq_conf::fail_view(&failed_, &error_, what); }
  bool inside(uint64_t off, uint64_t n, uint64_t limit, const char* what) {
    if (failed_) return false;
    if (spsq_conf::in_span(off, n, limit)) return true;
    return fail(spsq_conf::outside_span(what, off, n, limit).text);
  }
  int32_t* slot(uint64_t off, const char* what) {
    if (!inside(off, 4, counter_bytes_, what)) return nullptr;
    if (off % 4 != 0) {
      fail("counter slot misaligned");
      return nullptr;
    }
    return reinterpret_cast<int32_t*>(counter_ + off);
  }

  uint8_t* payload_;
  uint64_t payload_bytes_;
  uint8_t* counter_;
  uint64_t counter_bytes_;
  bool failed_ = false;
  ViewError error_;
};

using StressView = spsq_conf::PolicyView<StressPolicy>;

}  // namespace spsq_stress

#endif  // SPSQ_SANITIZERS_STRESS_STRESS_VIEW_H_
