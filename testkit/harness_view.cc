#include "testkit/harness_view.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <utility>

#include "testkit/coherence/coherent_memory.h"
#include "testkit/virtual_clock.h"

namespace spsq_conf {
namespace {

const HarnessViewError kNoStateError = {"harness view has no state"};

void log_entry(ViewState* s, const Access& a_in) {
  if (s->log == nullptr || s->lean) return;
  Access a = a_in;
  a.time_ns = VirtualClock::peek();
  s->log->add(std::move(a));
}

void fail(ViewState* s, const char* message) {
  s->lean_limits = LeanLimits{};  // a lean view then hands every call here
  if (s->failed) return;
  s->failed = true;
  std::snprintf(s->error.message, sizeof(s->error.message), "%s", message);
}

void violation(ViewState* s, int part, uint64_t offset, uint64_t nbytes, const std::string& what) {
  s->violations.push_back(what);
  Access a;
  a.kind = AccessKind::kViolation;
  a.part = part;
  a.offset = offset;
  a.nbytes = nbytes;
  a.ok = false;
  a.note = what;
  log_entry(s, a);
  fail(s, what.c_str());
}

void note_unaccounted(ViewState* s) {
  if (!s->memory->shadow_enabled()) return;
  for (const RegionMemory::Change& c : s->memory->take_unaccounted_changes()) {
    Access a;
    a.kind = AccessKind::kUnaccountedStore;
    a.part = c.part;
    a.offset = c.offset;
    a.nbytes = c.nbytes;
    a.note = "bytes changed without a view write (no flush)";
    log_entry(s, a);
  }
}

// The common start of every call. False: the call fails now (already failed
// view or an injected fault), and has been logged as such.
bool begin(ViewState* s, ViewCall call, Access* a) {
  if (s->lean) return !s->failed;  // no shadow diff, no fault plan, nothing logged
  note_unaccounted(s);
  if (s->failed) {
    a->ok = false;
    a->note = "view already failed";
    log_entry(s, *a);
    return false;
  }
  if (s->faults != nullptr && s->faults->should_fail(call)) {
    char text[96];
    std::snprintf(text, sizeof(text), "injected fault: %s call %" PRIu64, view_call_name(call),
                  s->faults->calls(call));
    if (s->sticky_faults) {
      fail(s, text);
    } else {
      std::snprintf(s->error.message, sizeof(s->error.message), "%s", text);
      if (s->transient_faults_report_failed) s->transient_fault_reported = true;
    }
    Access f = *a;
    f.kind = AccessKind::kInjectedFault;
    f.ok = false;
    f.note = text;
    log_entry(s, f);
    return false;
  }
  return true;
}

bool in_bounds(ViewState* s, RegionMemory::Part part, uint64_t offset, uint64_t nbytes,
               const char* what) {
  const uint64_t claimed = part == RegionMemory::kPayload ? s->payload_span : s->counter_span;
  const uint64_t real = s->memory->size(part);
  const uint64_t limit = claimed < real ? claimed : real;
  if (in_span(offset, nbytes, limit)) return true;
  char text[200];
  std::snprintf(text, sizeof(text),
                "%s [%" PRIu64 ", +%" PRIu64 ") outside the %s span of %" PRIu64 " bytes", what,
                offset, nbytes, part == RegionMemory::kPayload ? "payload" : "counter", limit);
  violation(s, part, offset, nbytes, text);
  return false;
}

bool counter_slot_ok(ViewState* s, uint64_t offset, const char* what) {
  if (!in_bounds(s, RegionMemory::kCounter, offset, 4, what)) return false;
  if (offset % 64 != 0) {
    char text[160];
    std::snprintf(text, sizeof(text),
                  "%s at counter offset %" PRIu64 ": not a signal slot (64-byte stride)", what,
                  offset);
    violation(s, RegionMemory::kCounter, offset, 4, text);
    return false;
  }
  return true;
}

int32_t* slot(ViewState* s, uint64_t offset) {
  return reinterpret_cast<int32_t*>(s->memory->counter() + offset);
}

// A counter call is a synchronisation point: the side's cache may move
// lines on its own there (write-backs reach the shadow through the model's
// hook, set by whoever built it).
void cache_point(ViewState* s) {
  if (s != nullptr && s->coherence != nullptr) s->coherence->cache_may_act(s->side);
}

}  // namespace

uint8_t* coherent_side_base(const NonCoherentPayload* payload, Side side) {
  return payload->side_base(side);
}

void ViewState::fail_now(const char* why) { fail(this, why); }

const HarnessViewError& HarnessPolicy::error() const {
  return s_ == nullptr ? kNoStateError : s_->error;
}

bool HarnessPolicy::do_read(uint64_t offset, uint64_t nbytes, uint8_t** addr) {
  Access a;
  a.kind = AccessKind::kRead;
  a.offset = offset;
  a.nbytes = nbytes;
  if (s_ == nullptr || !begin(s_, ViewCall::kRead, &a)) return false;
  if (!in_bounds(s_, RegionMemory::kPayload, offset, nbytes, "payload read")) return false;
  if (s_->coherence != nullptr) {
    // "makes [offset, offset + nbytes) readable": the lines are refetched,
    // so the borrowed span shows what DRAM holds now.
    s_->coherence->cache_may_act(s_->side);
    s_->coherence->invalidate(s_->side, offset, nbytes);
  }
  *addr = s_->payload_base() + offset;
  log_entry(s_, a);
  return true;
}

bool HarnessPolicy::do_write(uint64_t offset, const void* src, uint64_t nbytes) {
  Access a;
  a.kind = AccessKind::kWrite;
  a.offset = offset;
  a.nbytes = nbytes;
  if (s_ == nullptr || !begin(s_, ViewCall::kWrite, &a)) return false;
  if (!in_bounds(s_, RegionMemory::kPayload, offset, nbytes, "payload write")) return false;
  if (src == nullptr && nbytes != 0) {
    violation(s_, RegionMemory::kPayload, offset, nbytes, "payload write from a null source");
    return false;
  }
  uint8_t* dst = s_->payload_base() + offset;
  if (nbytes != 0 && dst != src) std::memmove(dst, src, nbytes);
  // "copies and flushes the span": whole lines reach DRAM.
  if (s_->coherence != nullptr) s_->coherence->flush(s_->side, offset, nbytes);
  s_->memory->sync_shadow(RegionMemory::kPayload, offset, nbytes);
  s_->idle_tests = 0;
  log_entry(s_, a);
  return true;
}

bool HarnessPolicy::do_notify(uint64_t offset, int32_t value, uint32_t op) {
  Access a;
  a.kind = AccessKind::kNotify;
  a.part = RegionMemory::kCounter;
  a.offset = offset;
  a.nbytes = 4;
  a.value = value;
  a.op = op;
  cache_point(s_);
  if (s_ == nullptr || !begin(s_, ViewCall::kNotify, &a)) return false;
  if (!counter_slot_ok(s_, offset, "counter notify")) return false;
  int32_t* p = slot(s_, offset);
  if (op == 0) {
    __atomic_store_n(p, value, __ATOMIC_RELEASE);
  } else if (op == 1) {
    __atomic_fetch_add(p, value, __ATOMIC_ACQ_REL);
  } else {
    violation(s_, RegionMemory::kCounter, offset, 4, "counter notify with an unknown op");
    return false;
  }
  s_->memory->sync_shadow(RegionMemory::kCounter, offset, 4);
  s_->idle_tests = 0;
  log_entry(s_, a);
  return true;
}

bool HarnessPolicy::do_test(uint64_t offset, int32_t cmp_value, uint32_t cmp,
                                   int32_t* observed, bool* matched) {
  Access a;
  a.kind = AccessKind::kTest;
  a.part = RegionMemory::kCounter;
  a.offset = offset;
  a.nbytes = 4;
  a.value = cmp_value;
  a.op = cmp;
  cache_point(s_);
  if (s_ == nullptr || !begin(s_, ViewCall::kTest, &a)) return false;
  if (!counter_slot_ok(s_, offset, "counter test")) return false;
  if (!s_->lean) {
    const uint64_t now = VirtualClock::peek();
    if (now != s_->idle_tests_time) {
      s_->idle_tests_time = now;
      s_->idle_tests = 0;
    }
    if (++s_->idle_tests > HarnessPolicy::kSpinLimit) {
      violation(s_, RegionMemory::kCounter, offset, 4,
                "endpoint polls counter().test() without waiting or making progress");
      return false;
    }
  }
  bool known = false;
  *observed = __atomic_load_n(slot(s_, offset), __ATOMIC_ACQUIRE);
  *matched = wait_cmp_holds(*observed, cmp, cmp_value, &known);
  if (!known) {
    violation(s_, RegionMemory::kCounter, offset, 4, "counter test with an unknown compare");
    return false;
  }
  a.observed = *observed;
  a.ok = *matched;
  log_entry(s_, a);
  return true;
}

bool HarnessPolicy::do_wait(uint64_t offset, int32_t cmp_value, uint32_t cmp,
                                   uint64_t timeout_ns, int32_t* observed) {
  Access a;
  a.kind = AccessKind::kWait;
  a.part = RegionMemory::kCounter;
  a.offset = offset;
  a.nbytes = 4;
  a.value = cmp_value;
  a.op = cmp;
  a.timeout_ns = timeout_ns;
  cache_point(s_);
  if (s_ == nullptr || !begin(s_, ViewCall::kWait, &a)) return false;
  if (!counter_slot_ok(s_, offset, "counter wait")) return false;
  if (s_->wait_budget != 0 && ++s_->waits > s_->wait_budget) {
    violation(s_, RegionMemory::kCounter, offset, 4,
              "endpoint keeps calling counter().wait() without end (over the wait budget)");
    return false;
  }
  // A wait whose condition holds is served whatever the count.
  bool holds_now = false;
  bool cmp_known = false;
  if (s_->idle_wait_budget != 0 && s_->idle_waits >= s_->idle_wait_budget) {
    holds_now = wait_cmp_holds(__atomic_load_n(slot(s_, offset), __ATOMIC_ACQUIRE), cmp,
                               cmp_value, &cmp_known);
  }
  if (s_->idle_wait_budget != 0 && s_->idle_waits >= s_->idle_wait_budget && cmp_known &&
      !holds_now) {
    char text[200];
    std::snprintf(text, sizeof(text),
                  "the endpoint kept waiting past its deadline: %" PRIu64
                  " counter().wait() calls in a row ended without their condition holding",
                  s_->idle_waits);
    if (s_->exhausted.empty()) s_->exhausted = text;
    fail(s_, text);
    a.ok = false;
    a.note = text;
    log_entry(s_, a);
    return false;
  }
  const uint64_t start = VirtualClock::peek();
  const uint64_t span = s_->short_waits && timeout_ns > 1 ? timeout_ns / 2 + 1 : timeout_ns;
  const uint64_t deadline = start > ~uint64_t{0} - span ? ~uint64_t{0} : start + span;
  bool known = false;
  bool held = false;
  for (;;) {
    *observed = __atomic_load_n(slot(s_, offset), __ATOMIC_ACQUIRE);
    held = wait_cmp_holds(*observed, cmp, cmp_value, &known);
    if (!known) {
      violation(s_, RegionMemory::kCounter, offset, 4, "counter wait with an unknown compare");
      return false;
    }
    if (held || timeout_ns == 0) break;
    if (VirtualClock::run_next_before(deadline)) continue;
    VirtualClock::advance_to(deadline);
    *observed = __atomic_load_n(slot(s_, offset), __ATOMIC_ACQUIRE);
    held = wait_cmp_holds(*observed, cmp, cmp_value, &known);
    break;
  }
  s_->idle_tests = 0;
  s_->last_cut_short = !held && span < timeout_ns;
  s_->cut_short += s_->last_cut_short;
  s_->idle_waits = held ? 0 : s_->idle_waits + 1;
  if (s_->lean) return held;
  a.observed = *observed;
  a.ok = held;
  log_entry(s_, a);  // stamped with the time the wait returned
  return held;
}

}  // namespace spsq_conf
