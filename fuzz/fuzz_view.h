// FuzzView: a RegionView (wire-contract.md, "The RegionView contract") for
// the stateful harnesses. It is the harness's eyes on the endpoint under test:
//   - every access is bounds-checked against the spans and against what the
//     endpoint's role may touch (an L2 endpoint never writes the input ring,
//     the input arena or an L3-owned counter); a violation aborts the run;
//   - accesses are logged per harness step (publish order, head writes);
//   - writes of the role's own abort flag are counted (raised exactly once);
//   - a failure can be injected N calls ahead, and then sticks, like a real
//     view whose mapping went away;
//   - counter waits never spin: when the condition does not hold, an optional
//     peer step runs once, and then the virtual clock jumps (all the way to
//     the wait's timeout, or half of it, by the harness's choice: the view
//     then returns false before the timeout, which the contract does not
//     rule out; AMB.WAITFALSE).
//
// It is the test view (testkit/view.h, which names none of an endpoint's
// types, so it compiles with any endpoint under test) with the fuzzers'
// policy. The policy stays this lean (fixed logs, no shadow memory, no fault
// plan) because it runs on every fuzz step: testkit's harness policy records
// far more per call than a fuzzer can afford.
#ifndef SPSQ_FUZZ_FUZZ_VIEW_H_
#define SPSQ_FUZZ_FUZZ_VIEW_H_

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "model/view_parts.h"
#include "testkit/view.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/fuzz_memory.h"
#include "fuzz/fuzz_time.h"
#include "fuzz/wire_model.h"

namespace spsq_fuzz {

enum class FuzzRole { L2, L3 };

using spsq_conf::ViewError;
using spsq_conf::ViewSpan;

// Notify ops (wire-contract.md, The RegionView contract): Set = 0.
inline constexpr uint32_t kNotifySet = 0;

// The compare by number (view_parts.h). The endpoint uses the view through
// the calls and values W.VIEW.1's list gives (RegionWaitCmp EQ=0 .. LE=5); a
// number outside them is the endpoint's, not the view's (W.VIEW.3 binds the
// view's wait).
inline bool fuzz_cmp_holds(int32_t observed, uint32_t cmp, int32_t value) {
  bool known = false;
  const bool held = spsq_conf::wait_cmp_holds(observed, cmp, value, &known);
  SPSQ_FUZZ_CLAUSE_CHECK("W.VIEW.1", known, "unknown compare %u", cmp);
  return held;
}

enum class AccessKind : uint8_t { READ, WRITE, NOTIFY, TEST, WAIT };

struct Access {
  AccessKind kind;
  uint64_t offset;
  uint64_t nbytes;  // payload accesses
  int32_t value;    // notify value
};

// Shared between the harness and the view the endpoint owns (views move).
struct FuzzViewState {
  static constexpr int kLogCapacity = 64;

  FuzzRole role = FuzzRole::L2;
  uint64_t calls = 0;            // every payload or counter access, ever
  uint64_t writes = 0;           // the payload writes and notifies among them
  uint64_t own_flag_writes = 0;  // notify attempts on the role's own abort flag
  Access log[kLogCapacity];      // accesses of the current harness step
  int logged = 0;                // may exceed kLogCapacity; only the first are kept
  Access notes[kLogCapacity];    // successful notifies of the current step
  int noted = 0;
  int fault_in = 0;  // > 0: the fault_in-th next access fails
  bool failed = false;
  ViewError error;
  void (*wait_hook)(void*) = nullptr;  // peer step, run once by the next unmatched wait
  void* wait_hook_arg = nullptr;
  // A wait whose condition does not hold returns false after half its
  // timeout (+1 ns), as a view that wakes early may (AMB.WAITFALSE).
  bool half_waits = false;
  uint64_t waits = 0;             // waits of the current harness step
  uint64_t cut_short = 0;         // false returns before the timeout, ever
  bool last_cut_short = false;    // the latest wait was one of them

  void begin_step() { logged = noted = 0; waits = 0; }
  void record(AccessKind k, uint64_t off, uint64_t n, int32_t v) {
    ++calls;
    writes += k == AccessKind::WRITE || k == AccessKind::NOTIFY;
    if (logged < kLogCapacity) log[logged] = Access{k, off, n, v};
    ++logged;
  }
};

// The fuzzers' access policy (testkit/view.h), as the comment at the top
// says.
class FuzzPolicy {
 public:
  FuzzPolicy(FuzzMemory* region, FuzzViewState* state) : r_(region), s_(state) {}

  bool failed() const { return s_->failed; }
  const ViewError& error() const { return s_->error; }

  ViewSpan payload_span() const { return {r_->payload_base(), r_->layout().payload_bytes}; }
  ViewSpan counter_span() const { return {r_->counter_base(), wire::kCounterBytes}; }

  bool on_read(uint64_t offset, uint64_t nbytes, uint8_t** addr) {
    s_->record(AccessKind::READ, offset, nbytes, 0);
    if (!admit()) return false;
    check_payload(offset, nbytes, /*write=*/false);
    *addr = r_->payload() + offset;
    return true;
  }

  bool on_write(uint64_t offset, const void* src, uint64_t nbytes) {
    s_->record(AccessKind::WRITE, offset, nbytes, 0);
    if (!admit()) return false;
    check_payload(offset, nbytes, /*write=*/true);
    if (nbytes != 0) std::memmove(r_->payload() + offset, src, nbytes);
    return true;
  }

  bool on_notify(uint64_t offset, int32_t value, uint32_t op) {
    s_->record(AccessKind::NOTIFY, offset, 4, value);
    const bool own_flag = offset == own_abort_flag();
    if (own_flag) ++s_->own_flag_writes;
    if (!admit()) return false;
    check_counter(offset, /*write=*/true);
    SPSQ_FUZZ_CLAUSE_CHECK("W.CTR.1,W.FLAG.1", op == kNotifySet,
                           "counter %" PRIu64 " written with op %u, not Set", offset, op);
    SPSQ_FUZZ_CLAUSE_CHECK("W.FLAG.1", !own_flag || value == 1, "abort flag set to %d, not 1",
                           value);
    r_->set_counter(offset, value);
    FuzzViewState& s = *s_;
    SPSQ_FUZZ_CHECK(s.noted < FuzzViewState::kLogCapacity, "too many notifies in one step");
    s.notes[s.noted++] = Access{AccessKind::NOTIFY, offset, 4, value};
    return true;
  }

  bool on_test(uint64_t offset, int32_t cmp_value, uint32_t cmp, int32_t* observed,
               bool* matched) {
    s_->record(AccessKind::TEST, offset, 4, 0);
    if (!admit()) return false;
    check_counter(offset, /*write=*/false);
    *observed = r_->counter(offset);
    *matched = fuzz_cmp_holds(*observed, cmp, cmp_value);
    return true;
  }

  bool on_wait(uint64_t offset, int32_t cmp_value, uint32_t cmp, uint64_t timeout_ns,
               int32_t* observed) {
    s_->record(AccessKind::WAIT, offset, 4, 0);
    if (!admit()) return false;
    check_counter(offset, /*write=*/false);
    FuzzViewState& s = *s_;
    ++s.waits;
    s.last_cut_short = false;
    // One step is one call: a blocking call returns at its deadline
    // (S3.TO.8), and even a view that always wakes at half the time left
    // takes 64 waits to reach any deadline.
    SPSQ_FUZZ_CLAUSE_CHECK("S3.TO.8", s.waits < 100000,
                           "blocking call waits without end (%" PRIu64 " waits)", s.waits);
    *observed = r_->counter(offset);
    if (fuzz_cmp_holds(*observed, cmp, cmp_value)) return true;
    if (s.wait_hook != nullptr) {
      void (*hook)(void*) = s.wait_hook;
      s.wait_hook = nullptr;  // once per arming
      hook(s.wait_hook_arg);
      *observed = r_->counter(offset);
      if (fuzz_cmp_holds(*observed, cmp, cmp_value)) return true;
    }
    const bool cut = s.half_waits && timeout_ns > 1;
    FuzzTime::advance(cut ? timeout_ns / 2 + 1 : timeout_ns);
    s.cut_short += cut;
    s.last_cut_short = cut;
    return false;
  }

 private:
  // Counts down an injected fault; a failed view fails every later call.
  bool admit() {
    if (s_->failed) return false;
    if (s_->fault_in > 0 && --s_->fault_in == 0) {
      return spsq_conf::fail_view(&s_->failed, &s_->error, "injected view failure (harness)");
    }
    return true;
  }

  uint64_t own_abort_flag() const {
    return s_->role == FuzzRole::L2 ? wire::kPeerFlag : wire::kInitiatorFlag;
  }

  void check_payload(uint64_t off, uint64_t n, bool write) const {
    using spsq_conf::in_range;
    const ModelLayout& l = r_->layout();
    SPSQ_FUZZ_CLAUSE_CHECK("W.VIEW.1", spsq_conf::in_span(off, n, l.payload_bytes),
                    "%s of [%" PRIu64 ", +%" PRIu64 ") outside the %" PRIu64 "-byte payload span",
                    write ? "write" : "read", off, n, l.payload_bytes);
    const uint64_t ring = l.depth * 32;
    const bool in_ring = in_range(off, n, l.input_ring, ring);
    const bool out_ring = in_range(off, n, l.output_ring, ring);
    const bool in_arena = in_range(off, n, l.input_arena, l.input_arena_bytes);
    const bool out_arena = in_range(off, n, l.output_arena, l.output_arena_bytes);
    // The producer of a direction writes its ring and arena; both sides read
    // both, in reads of any extent inside the span (no sentence asks a read
    // to keep within one region).
    const bool l2 = s_->role == FuzzRole::L2;
    if (write) {
      SPSQ_FUZZ_CLAUSE_CHECK("S2.ARENA.1,S2.ARENA.2",
                             l2 ? (out_ring || out_arena) : (in_ring || in_arena),
                             "%s wrote [%" PRIu64 ", +%" PRIu64 "), which only its peer may write",
                             l2 ? "L2" : "L3", off, n);
    }
  }

  void check_counter(uint64_t off, bool write) const {
    SPSQ_FUZZ_CLAUSE_CHECK("S3.SIG.1,W.VIEW.1", off % 64 == 0 && off < wire::kCounterBytes,
                           "counter access at offset %" PRIu64, off);
    if (!write) return;
    const bool l2 = s_->role == FuzzRole::L2;
    const bool ok =
        l2 ? (off == wire::kInputHead || off == wire::kOutputTail || off == wire::kPeerFlag)
           : (off == wire::kInputTail || off == wire::kOutputHead || off == wire::kInitiatorFlag);
    // Each side writes only its own signals (S3.SIG.2-7 name the writers).
    SPSQ_FUZZ_CLAUSE_CHECK(
        l2 ? "S3.SIG.2,S3.SIG.5,S3.SIG.6,W.FLAG.3" : "S3.SIG.3,S3.SIG.4,S3.SIG.7,W.FLAG.3", ok,
        "%s wrote counter %" PRIu64 ", which only its peer may write", l2 ? "L2" : "L3", off);
  }

  FuzzMemory* r_;
  FuzzViewState* s_;
};

using FuzzView = spsq_conf::PolicyView<FuzzPolicy>;

}  // namespace spsq_fuzz

#endif  // SPSQ_FUZZ_FUZZ_VIEW_H_
