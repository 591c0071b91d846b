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

}  // namespace

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
    fail("payload part has no base address");
  } else if (counter_.base == 0 && counter_.logical_bytes != 0) {
    fail("counter part has no base address");
  } else if (counter_.base % alignof(int32_t) != 0) {
    fail("counter base 0x%" PRIx64 " is not 4-byte aligned", counter_.base);
  } else if (!clock_.valid()) {
    fail("no clock for waits");
  }
}

void RegionInstanceView::fail(const char* fmt, ...) {
  if (failed_) return;  // the first failure is the one worth reporting
  failed_ = true;
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(error_.message, sizeof(error_.message), fmt, args);
  va_end(args);
}

bool RegionInstanceView::check_range(const RegionPartLocalSpan& part, const char* part_name,
                                     uint64_t offset, uint64_t nbytes) {
  if (failed_) return false;
  if (offset > part.logical_bytes || nbytes > part.logical_bytes - offset) {
    fail("%s access [%" PRIu64 ", +%" PRIu64 ") outside the %" PRIu64 "-byte part", part_name,
         offset, nbytes, part.logical_bytes);
    return false;
  }
  return true;
}

bool RegionInstanceView::Payload::read(uint64_t offset, uint64_t nbytes, RegionPayloadSpan& out) {
  if (!view_->check_range(view_->payload_, "payload read", offset, nbytes)) return false;
  uint8_t* addr = reinterpret_cast<uint8_t*>(view_->payload_.base) + offset;
  if (view_->hooks_.invalidate != nullptr) view_->hooks_.invalidate(addr, nbytes);
  out.local_addr = addr;
  out.nbytes = nbytes;
  return true;
}

bool RegionInstanceView::Payload::write(uint64_t offset, const void* src, uint64_t nbytes) {
  if (!view_->check_range(view_->payload_, "payload write", offset, nbytes)) return false;
  if (src == nullptr && nbytes != 0) {
    view_->fail("payload write of %" PRIu64 " bytes from a null source", nbytes);
    return false;
  }
  uint8_t* addr = reinterpret_cast<uint8_t*>(view_->payload_.base) + offset;
  if (addr != src && nbytes != 0) std::memmove(addr, src, nbytes);
  if (view_->hooks_.flush != nullptr) view_->hooks_.flush(addr, nbytes);
  return true;
}

int32_t* RegionInstanceView::Counter::slot(uint64_t offset, const char* what) {
  if (!view_->check_range(view_->counter_, what, offset, sizeof(int32_t))) return nullptr;
  if (offset % sizeof(int32_t) != 0) {
    view_->fail("%s at offset %" PRIu64 " is not 4-byte aligned", what, offset);
    return nullptr;
  }
  return reinterpret_cast<int32_t*>(view_->counter_.base + offset);
}

bool RegionInstanceView::Counter::notify(uint64_t offset, int32_t value, RegionNotifyOp op) {
  int32_t* p = slot(offset, "counter notify");
  if (p == nullptr) return false;
  switch (op) {
    case RegionNotifyOp::Set:
      __atomic_store_n(p, value, __ATOMIC_RELEASE);
      return true;
    case RegionNotifyOp::Add:
      __atomic_fetch_add(p, value, __ATOMIC_ACQ_REL);
      return true;
  }
  view_->fail("counter notify with unknown op %u", static_cast<unsigned>(op));
  return false;
}

bool RegionInstanceView::Counter::test(uint64_t offset, int32_t cmp_value, RegionWaitCmp cmp,
                                       RegionCounterSample& sample) {
  int32_t* p = slot(offset, "counter test");
  if (p == nullptr) return false;
  sample.observed = __atomic_load_n(p, __ATOMIC_ACQUIRE);
  sample.matched = region_wait_cmp_holds(sample.observed, cmp, cmp_value);
  return true;
}

bool RegionInstanceView::Counter::wait(uint64_t offset, int32_t cmp_value, RegionWaitCmp cmp,
                                       uint64_t timeout_ns, int32_t& observed) {
  int32_t* p = slot(offset, "counter wait");
  if (p == nullptr) return false;
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
