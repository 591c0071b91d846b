#include "aicpu/region_instance_view.h"

#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <thread>

namespace {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

RegionCacheHooks g_default_hooks;

}  // namespace

void set_region_default_cache_hooks(RegionCacheHooks hooks) { g_default_hooks = hooks; }

RegionCacheHooks region_default_cache_hooks() { return g_default_hooks; }

uint64_t RegionInstanceView::steady_now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

RegionInstanceView::RegionInstanceView(RegionPartLocalSpan payload, RegionPartLocalSpan counter)
    : RegionInstanceView(payload, counter, spsc_queue::MonotonicClock{&steady_now_ns}) {}

RegionInstanceView::RegionInstanceView(RegionPartLocalSpan payload, RegionPartLocalSpan counter,
                                       spsc_queue::MonotonicClock clock, RegionCacheHooks hooks)
    : payload_(payload), counter_(counter), clock_(clock), hooks_(hooks) {
  if (payload_.base == 0 && payload_.logical_bytes != 0) {
    fail(RegionViewErrorKind::INVALID_VIEW, RegionViewOp::CONSTRUCT,
         "payload part has no base address");
  } else if (counter_.base == 0 && counter_.logical_bytes != 0) {
    fail(RegionViewErrorKind::INVALID_VIEW, RegionViewOp::CONSTRUCT,
         "counter part has no base address");
  } else if (counter_.base % alignof(int32_t) != 0) {
    fail(RegionViewErrorKind::INVALID_VIEW, RegionViewOp::CONSTRUCT,
         "counter base 0x%" PRIx64 " is not 4-byte aligned", counter_.base);
  } else if (!clock_.valid()) {
    fail(RegionViewErrorKind::INVALID_VIEW, RegionViewOp::CONSTRUCT, "no clock for waits");
  }
}

void RegionInstanceView::fail(RegionViewErrorKind kind, RegionViewOp op, const char* fmt, ...) {
  if (failed_) return;  // the first failure is the one worth reporting
  failed_ = true;
  error_.kind = kind;
  error_.op = op;
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(error_.message, sizeof(error_.message), fmt, args);
  va_end(args);
}

bool RegionInstanceView::Counter::wait(uint64_t offset, int32_t cmp_value, RegionWaitCmp cmp,
                                       uint64_t timeout_ns, int32_t& observed) {
  int32_t* p = slot(offset, RegionViewOp::WAIT, "counter wait");
  if (p == nullptr) return false;
  if (!region_wait_cmp_known(cmp)) {
    view_->fail(RegionViewErrorKind::INVALID_ENUM, RegionViewOp::WAIT,
                "counter wait with unknown comparison %u", static_cast<unsigned>(cmp));
    return false;
  }
  const uint64_t start = view_->clock_.now_ns();
  for (uint32_t spins = 0;; ++spins) {
    observed = __atomic_load_n(p, __ATOMIC_ACQUIRE);
    if (region_wait_cmp_holds(observed, cmp, cmp_value)) return true;
    if (view_->clock_.now_ns() - start >= timeout_ns) return false;
    if (spins < 64) {
      cpu_relax();
    } else {
      std::this_thread::yield();  // never burn the whole timeout on one core
    }
  }
}
