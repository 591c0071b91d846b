// RegionInstanceView: the RegionView an L2 endpoint uses on the host (and the
// simulation's stand-in for the AICPU one). It maps a RegionInstance's
// PAYLOAD and COUNTER parts, checks every offset against them, and fails
// stickily: after the first failure every call returns false.
//
// Counters are int32 slots accessed with acquire loads and release stores on
// the slot itself (not standalone fences, which TSan cannot see), so a tail
// published with a release Set orders the payload and descriptor writes
// before it for any consumer that acquires that tail.
#ifndef SPSQ_AICPU_REGION_INSTANCE_VIEW_H_
#define SPSQ_AICPU_REGION_INSTANCE_VIEW_H_

#include <cinttypes>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "aicpu/region_view_types.h"
#include "common/spsq_clock.h"

// Cache maintenance a device build hooks in; the host needs none.
struct RegionCacheHooks {
  void (*invalidate)(const void* addr, uint64_t nbytes) = nullptr;  // before reads
  void (*flush)(const void* addr, uint64_t nbytes) = nullptr;       // after writes
};

// The hooks every view takes unless its constructor is given others: none
// until a device build (or the simulation's non-coherent mode,
// region/payload_caches.h) installs them, once, before views are made. The
// spec's L2 snippet builds its view without hooks, so this is how its
// payload reads and writes reach the cache.
void set_region_default_cache_hooks(RegionCacheHooks hooks);
RegionCacheHooks region_default_cache_hooks();

class RegionInstanceView {
 public:
  class Payload {
   public:
    RegionPartLocalSpan span() const { return view_->payload_; }
    // Makes [offset, offset + nbytes) readable and lends it; no copy. `Out`
    // is any struct with `local_addr` (an integer or a pointer) and `nbytes`,
    // e.g. RegionPayloadView or spsc_queue::SpscQueuePayloadView.
    template <class Out>
    bool read(uint64_t offset, uint64_t nbytes, Out& out);
    // Copies nbytes from src (which may be the span itself) and flushes.
    bool write(uint64_t offset, const void* src, uint64_t nbytes);

   private:
    friend class RegionInstanceView;
    explicit Payload(RegionInstanceView* view) : view_(view) {}
    RegionInstanceView* view_;
  };

  class Counter {
   public:
    RegionPartLocalSpan span() const { return view_->counter_; }
    bool notify(uint64_t offset, int32_t value, RegionNotifyOp op);
    // `Sample` is any struct with `matched` and `observed`.
    template <class Sample>
    bool test(uint64_t offset, int32_t cmp_value, RegionWaitCmp cmp, Sample& sample);
    // Polls with backoff (pause, then yield) until the comparison holds or
    // timeout_ns passes on the view's clock.
    bool wait(uint64_t offset, int32_t cmp_value, RegionWaitCmp cmp, uint64_t timeout_ns,
              int32_t& observed);

   private:
    friend class RegionInstanceView;
    explicit Counter(RegionInstanceView* view) : view_(view) {}
    int32_t* slot(uint64_t offset, RegionViewOp op, const char* what);
    RegionInstanceView* view_;
  };

  RegionInstanceView(RegionPartLocalSpan payload, RegionPartLocalSpan counter);
  RegionInstanceView(RegionPartLocalSpan payload, RegionPartLocalSpan counter,
                     spsc_queue::MonotonicClock clock,
                     RegionCacheHooks hooks = region_default_cache_hooks());

  bool failed() const { return failed_; }
  const RegionViewError& error() const { return error_; }
  // Parts are small proxies, so a moved view keeps working.
  Payload payload() { return Payload(this); }
  Counter counter() { return Counter(this); }

  // The clock waits use by default: CLOCK_MONOTONIC in nanoseconds.
  static uint64_t steady_now_ns();

 private:
  void fail(RegionViewErrorKind kind, RegionViewOp op, const char* fmt, ...)
      __attribute__((format(printf, 4, 5)));
  uint8_t* check_range(const RegionPartLocalSpan& part, RegionViewOp op, const char* part_name,
                       uint64_t offset, uint64_t nbytes);

  RegionPartLocalSpan payload_;
  RegionPartLocalSpan counter_;
  spsc_queue::MonotonicClock clock_;
  RegionCacheHooks hooks_;
  bool failed_ = false;
  RegionViewError error_;
};

// The per-message calls are inline so they fold into the endpoint's hot path
// (an out-of-line call per access was a fifth of the instructions per message).
// Local address of [offset, offset + nbytes) of `part`, or nullptr (and the
// view fails) when the view already failed or the range leaves the part.
inline uint8_t* RegionInstanceView::check_range(const RegionPartLocalSpan& part, RegionViewOp op,
                                                const char* part_name, uint64_t offset,
                                                uint64_t nbytes) {
  if (failed_) return nullptr;
  if (offset > part.logical_bytes || nbytes > part.logical_bytes - offset) {
    fail(RegionViewErrorKind::OUT_OF_BOUNDS, op,
         "%s access [%" PRIu64 ", +%" PRIu64 ") outside the %" PRIu64 "-byte part", part_name,
         offset, nbytes, part.logical_bytes);
    return nullptr;
  }
  return reinterpret_cast<uint8_t*>(part.base) + offset;
}

template <class Out>
inline bool RegionInstanceView::Payload::read(uint64_t offset, uint64_t nbytes, Out& out) {
  uint8_t* addr =
      view_->check_range(view_->payload_, RegionViewOp::PAYLOAD_READ, "payload read", offset, nbytes);
  if (addr == nullptr) return false;
  if (view_->hooks_.invalidate != nullptr) view_->hooks_.invalidate(addr, nbytes);
  using Addr = std::remove_reference_t<decltype(out.local_addr)>;
  if constexpr (std::is_pointer_v<Addr>) {
    out.local_addr = reinterpret_cast<Addr>(addr);
  } else {
    out.local_addr = static_cast<Addr>(reinterpret_cast<uintptr_t>(addr));
  }
  out.nbytes = nbytes;
  return true;
}

inline bool RegionInstanceView::Payload::write(uint64_t offset, const void* src, uint64_t nbytes) {
  uint8_t* addr = view_->check_range(view_->payload_, RegionViewOp::PAYLOAD_WRITE, "payload write",
                                     offset, nbytes);
  if (addr == nullptr) return false;
  if (src == nullptr && nbytes != 0) {
    view_->fail(RegionViewErrorKind::INVALID_VIEW, RegionViewOp::PAYLOAD_WRITE,
                "payload write of %" PRIu64 " bytes from a null source", nbytes);
    return false;
  }
  if (addr != src && nbytes != 0) std::memmove(addr, src, nbytes);
  if (view_->hooks_.flush != nullptr) view_->hooks_.flush(addr, nbytes);
  return true;
}

inline int32_t* RegionInstanceView::Counter::slot(uint64_t offset, RegionViewOp op,
                                                  const char* what) {
  uint8_t* addr = view_->check_range(view_->counter_, op, what, offset, sizeof(int32_t));
  if (addr == nullptr) return nullptr;
  if (offset % sizeof(int32_t) != 0) {
    view_->fail(RegionViewErrorKind::OUT_OF_BOUNDS, op,
                "%s at offset %" PRIu64 " is not 4-byte aligned", what, offset);
    return nullptr;
  }
  return reinterpret_cast<int32_t*>(addr);
}

inline bool RegionInstanceView::Counter::notify(uint64_t offset, int32_t value, RegionNotifyOp op) {
  int32_t* p = slot(offset, RegionViewOp::NOTIFY, "counter notify");
  if (p == nullptr) return false;
  switch (op) {
    case RegionNotifyOp::Set:
      __atomic_store_n(p, value, __ATOMIC_RELEASE);
      return true;
    case RegionNotifyOp::Add:
      __atomic_fetch_add(p, value, __ATOMIC_ACQ_REL);
      return true;
  }
  view_->fail(RegionViewErrorKind::INVALID_ENUM, RegionViewOp::NOTIFY,
              "counter notify with unknown op %u", static_cast<unsigned>(op));
  return false;
}

template <class Sample>
inline bool RegionInstanceView::Counter::test(uint64_t offset, int32_t cmp_value,
                                              RegionWaitCmp cmp, Sample& sample) {
  int32_t* p = slot(offset, RegionViewOp::TEST, "counter test");
  if (p == nullptr) return false;
  if (!region_wait_cmp_known(cmp)) {
    view_->fail(RegionViewErrorKind::INVALID_ENUM, RegionViewOp::TEST,
                "counter test with unknown comparison %u", static_cast<unsigned>(cmp));
    return false;
  }
  sample.observed = __atomic_load_n(p, __ATOMIC_ACQUIRE);
  sample.matched = region_wait_cmp_holds(sample.observed, cmp, cmp_value);
  return true;
}

#endif  // SPSQ_AICPU_REGION_INSTANCE_VIEW_H_
