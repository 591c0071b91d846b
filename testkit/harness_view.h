// HarnessView: a RegionView (wire-contract.md, "The RegionView contract")
// over RegionMemory that checks, records and can fail every call: the test
// view (testkit/view.h) with the harness's policy.
//
// Copies of a view are handles onto one ViewState: the endpoint may move its
// view around while the test keeps inspecting the same log and failure state.
//
// Every call:
//   - notes stores that bypassed the view since the last call (shadow diff),
//   - consults the FaultPlan (an injected failure is sticky, as on hardware),
//   - bounds-checks against the smaller of the claimed span and real memory:
//     an access outside is a violation, logged, and fails the view,
//   - is appended to the AccessLog with the virtual time.
// (ViewState::lean keeps only the bounds and contract checks, for hot loops.)
//
// With ViewState::coherence set, the payload part is non-coherent
// (testkit/coherence): the endpoint is one side of NonCoherentPayload,
// span() hands out that side's private copy, read() invalidates the span
// (the endpoint then sees what DRAM holds), write() copies into the copy and
// flushes the span (DRAM gets whole lines), and every counter call is a point
// where the side's cache may act on its own. Counters stay coherent.
// wait() never sleeps: when its condition does not hold it runs the next
// VirtualClock action before the deadline, or advances time to the deadline.
#ifndef SPSQ_CONFORMANCE_HARNESS_HARNESS_VIEW_H_
#define SPSQ_CONFORMANCE_HARNESS_HARNESS_VIEW_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "testkit/access_log.h"
#include "testkit/fault_plan.h"
#include "testkit/region_memory.h"
#include "testkit/side.h"
#include "model/view_parts.h"
#include "testkit/view.h"

namespace spsq_conf {

// Only pointed to here: the model's header (testkit/coherence) is a large
// one, and every source compiled against an endpoint includes this one.
class NonCoherentPayload;
uint8_t* coherent_side_base(const NonCoherentPayload* payload, Side side);

// The span and error types every instrument's view shares (view_parts.h).
using HarnessSpan = ViewSpan;
using HarnessViewError = ViewError;

// One past the smaller of payload_span and real memory, and one past the
// last counter slot offset; 0 when nothing may be served inline.
struct LeanLimits {
  uint64_t payload_end = 0;
  uint64_t slot_end = 0;
};

struct ViewState {
  RegionMemory* memory = nullptr;
  uint64_t payload_span = 0;  // logical_bytes the view claims (tests may lie)
  uint64_t counter_span = 0;
  AccessLog* log = nullptr;    // optional
  FaultPlan* faults = nullptr; // optional
  bool failed = false;
  HarnessViewError error;
  // Injected faults fail the view for good (as the reference view does) or
  // only the one call, so the endpoint can still raise its abort flag.
  bool sticky_faults = true;
  // With sticky_faults off, an injected fault leaves failed() false, so a
  // failed wait() reads as a timeout. Set, it makes failed() true while later
  // calls are still served: the endpoint takes the failed wait for one, and
  // can still raise its flag.
  bool transient_faults_report_failed = false;
  bool transient_fault_reported = false;
  // wait() gives up after half its timeout (+1 ns) when the condition does
  // not hold, as a view that wakes early may. The contract does not say what
  // such a false return means to the endpoint (AMB.WAITFALSE): it may wait
  // again until its own deadline (A) or take it as the deadline (B).
  bool short_waits = false;
  uint64_t cut_short = 0;       // waits that returned false before their timeout
  bool last_cut_short = false;  // the latest wait was one of them
  // Hang guard (0: none): a wait() beyond this many is a violation instead,
  // so an endpoint that keeps waiting without progress fails its test rather
  // than hanging it (a wait whose condition holds does not move time).
  uint64_t wait_budget = 0;
  uint64_t waits = 0;
  std::vector<std::string> violations;  // contract misuse seen by the view
  uint64_t idle_tests = 0;              // test() calls since time last moved
  uint64_t idle_tests_time = 0;
  // Lean mode (default off), for hot loops of billions of calls (the L3
  // counter wrap): nothing is logged (even with `log` set), no shadow diff,
  // no fault plan, no spin detection, no virtual-clock reads outside wait().
  // Still checked, as always: a failed view stays failed, bounds against the
  // claimed span and real memory, counter slots on the 64-byte stride, the
  // notify op and compare numbers, a null write source; each is a violation.
  bool lean = false;
  // Where a lean view (testkit/lean_view.h) may serve calls inline; set
  // when one is made, and cleared while the view is failed (fail() clears
  // it), so that one load tells the lean view both how far it may go and
  // that the view is live. Hence `failed` is only ever set through fail()
  // or fail_now().
  LeanLimits lean_limits;
  // Non-coherent payload (default off): the model over memory's payload, and
  // the side the endpoint plays in it. Lean mode's inline paths apply only
  // when this is null; everything else behaves as without it.
  NonCoherentPayload* coherence = nullptr;
  Side side = Side::kL2;
  // (Last: the fields the lean paths read stay together above.)
  // The default hang guard, on in every view: wait() calls in a row whose
  // condition did not hold (a wait whose condition holds restarts the
  // count). An endpoint that waits past its deadline where virtual time
  // cannot move (at the end of time) would call wait() forever; beyond this
  // many the call is refused and `exhausted` says why. No test lets a
  // correct endpoint time out nearly this often in a row. (Counted in wait()
  // alone, so the lean hot paths pay nothing.) 0: no guard.
  static constexpr uint64_t kIdleWaitBudget = 100000;
  uint64_t idle_wait_budget = kIdleWaitBudget;
  uint64_t idle_waits = 0;
  // Why the view stopped serving an endpoint that ran out of a budget (empty:
  // it did not). Not a contract misuse: the test's own clauses FAIL with it.
  std::string exhausted;
  // A view that is already failed when handed to the endpoint.
  void fail_now(const char* why);
  // The payload base the endpoint sees: its side's copy, or the memory.
  uint8_t* payload_base() const {
    return coherence != nullptr ? coherent_side_base(coherence, side) : memory->payload();
  }
};

// The harness's access policy (testkit/view.h): checks, records and can fail
// every call, as the comment at the top says.
class HarnessPolicy {
 public:
  // test() polls at one virtual instant beyond this count mean an endpoint
  // spins instead of waiting: a violation (it would burn a core forever).
  static constexpr uint64_t kSpinLimit = 1000000;

  HarnessPolicy() = default;
  explicit HarnessPolicy(ViewState* state) : s_(state) {}

  bool failed() const {
    return s_ == nullptr || s_->failed || s_->transient_fault_reported;
  }
  const HarnessViewError& error() const;
  ViewState* state() const { return s_; }

  HarnessSpan payload_span() const {
    return HarnessSpan{reinterpret_cast<uint64_t>(s_->payload_base()), s_->payload_span};
  }
  HarnessSpan counter_span() const {
    return HarnessSpan{reinterpret_cast<uint64_t>(s_->memory->counter()), s_->counter_span};
  }

  bool on_read(uint64_t offset, uint64_t nbytes, uint8_t** addr) {
    if (lean_ok(offset, nbytes)) {
      *addr = s_->memory->payload() + offset;
      return true;
    }
    return do_read(offset, nbytes, addr);
  }
  bool on_write(uint64_t offset, const void* src, uint64_t nbytes) {
    if (lean_ok(offset, nbytes) && (src != nullptr || nbytes == 0)) {
      uint8_t* dst = s_->memory->payload() + offset;
      if (nbytes != 0 && dst != src) std::memmove(dst, src, nbytes);
      if (s_->memory->shadow_enabled()) {
        s_->memory->sync_shadow(RegionMemory::kPayload, offset, nbytes);
      }
      s_->idle_tests = 0;
      return true;
    }
    return do_write(offset, src, nbytes);
  }

  bool on_notify(uint64_t offset, int32_t value, uint32_t op) {
    if (op <= 1 && lean_slot(offset)) {
      int32_t* p = reinterpret_cast<int32_t*>(s_->memory->counter() + offset);
      if (op == 0) {
        __atomic_store_n(p, value, __ATOMIC_RELEASE);
      } else {
        __atomic_fetch_add(p, value, __ATOMIC_ACQ_REL);
      }
      if (s_->memory->shadow_enabled()) {
        s_->memory->sync_shadow(RegionMemory::kCounter, offset, 4);
      }
      s_->idle_tests = 0;
      return true;
    }
    return do_notify(offset, value, op);
  }
  bool on_test(uint64_t offset, int32_t cmp_value, uint32_t cmp, int32_t* observed,
               bool* matched) {
    bool known = false;
    if (lean_slot(offset)) {
      *observed = __atomic_load_n(reinterpret_cast<int32_t*>(s_->memory->counter() + offset),
                                  __ATOMIC_ACQUIRE);
      *matched = wait_cmp_holds(*observed, cmp, cmp_value, &known);
    }
    return known || do_test(offset, cmp_value, cmp, observed, matched);
  }
  bool on_wait(uint64_t offset, int32_t cmp_value, uint32_t cmp, uint64_t timeout_ns,
               int32_t* observed) {
    return do_wait(offset, cmp_value, cmp, timeout_ns, observed);
  }

 private:
  // Lean mode's inline paths: a live coherent view and an access inside the
  // span (a signal slot, for the counters). Anything else takes the
  // out-of-line path, which reports it.
  bool lean_ok(uint64_t offset, uint64_t nbytes) const {
    if (s_ == nullptr || !s_->lean || s_->failed || s_->coherence != nullptr) return false;
    const uint64_t real = s_->memory->payload_bytes();
    const uint64_t limit = s_->payload_span < real ? s_->payload_span : real;
    return in_span(offset, nbytes, limit);
  }
  bool lean_slot(uint64_t offset) const {
    if (s_ == nullptr || !s_->lean || s_->failed || s_->coherence != nullptr) return false;
    const uint64_t real = s_->memory->counter_bytes();
    const uint64_t limit = s_->counter_span < real ? s_->counter_span : real;
    return offset % 64 == 0 && in_span(offset, 4, limit);
  }
  bool do_read(uint64_t offset, uint64_t nbytes, uint8_t** addr);
  bool do_write(uint64_t offset, const void* src, uint64_t nbytes);
  bool do_notify(uint64_t offset, int32_t value, uint32_t op);
  bool do_test(uint64_t offset, int32_t cmp_value, uint32_t cmp, int32_t* observed,
               bool* matched);
  bool do_wait(uint64_t offset, int32_t cmp_value, uint32_t cmp, uint64_t timeout_ns,
               int32_t* observed);

  ViewState* s_ = nullptr;
};

// Copies are handles onto one ViewState (see the top).
using HarnessView = PolicyView<HarnessPolicy>;

}  // namespace spsq_conf

#endif  // SPSQ_CONFORMANCE_HARNESS_HARNESS_VIEW_H_
