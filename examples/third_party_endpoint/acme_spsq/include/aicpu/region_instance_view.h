// RegionInstanceView: the host implementation of the RegionView contract
// (wire-contract.md) over two locally mapped spans, PAYLOAD and COUNTER.
//
//   RegionInstanceView view(RegionPartLocalSpan{payload_base, payload_bytes},
//                           RegionPartLocalSpan{counter_base, counter_bytes});
//   view.payload().read(offset, nbytes, out);   // borrowed range, no copy
//   view.payload().write(offset, src, nbytes);  // copy, then flush
//   view.counter().notify(offset, value, RegionNotifyOp::Set);
//   view.counter().test(offset, value, RegionWaitCmp::GE, sample);
//   view.counter().wait(offset, value, RegionWaitCmp::NE, timeout_ns, observed);
//
// Invariants:
//   - Every access is bounds-checked against the span's logical_bytes; nothing
//     outside [base, base + logical_bytes) is ever touched.
//   - A counter is the int32 slot at `offset` (4-byte aligned). Loads are
//     acquire, stores release, on the slot itself: the release store of a
//     tail orders the descriptor and payload bytes written before it.
//   - Failures are sticky: the first one is kept in error() and failed()
//     stays true; every later call returns false without touching memory.
//     A wait that times out is not a failure (the view stays usable);
//     error() then reports kind TIMEOUT until a real failure replaces it.
//
// The view does not own the memory: it is a value type, copyable and movable.
// Host memory is coherent, so read() has nothing to invalidate and write()
// nothing to flush (a device view does both here); ordering against the
// peer comes from the counters' release store / acquire load.
#ifndef SPSQ_INDEPENDENT_AICPU_REGION_INSTANCE_VIEW_H_
#define SPSQ_INDEPENDENT_AICPU_REGION_INSTANCE_VIEW_H_

#include <time.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "aicpu/region_view_types.h"

class RegionInstanceView {
 public:
  // A default view is invalid: every call fails.
  RegionInstanceView() { fail(RegionViewErrorKind::INVALID_VIEW, RegionViewOp::CONSTRUCT, 0,
                              "default-constructed view"); }

  RegionInstanceView(RegionPartLocalSpan payload, RegionPartLocalSpan counter)
      : payload_(payload), counter_(counter) {
    if (!span_valid(payload_)) {
      fail(RegionViewErrorKind::INVALID_VIEW, RegionViewOp::CONSTRUCT, 0,
           "payload span is null, empty or wraps the address space");
    } else if (!span_valid(counter_) || counter_.base % sizeof(int32_t) != 0) {
      fail(RegionViewErrorKind::INVALID_VIEW, RegionViewOp::CONSTRUCT, 0,
           "counter span is null, empty, misaligned or wraps the address space");
    }
  }

  bool failed() const { return failed_; }
  const RegionViewError& error() const { return error_; }

  class Payload {
   public:
    RegionPartLocalSpan span() const { return v_->payload_; }

    // Makes [offset, offset + nbytes) readable; sets out.local_addr (an
    // integer or a pointer, whatever Out declares) and out.nbytes.
    template <class Out>
    bool read(uint64_t offset, uint64_t nbytes, Out& out) {
      uint8_t* p = v_->payload_range(offset, nbytes, RegionViewOp::PAYLOAD_READ);
      if (p == nullptr) return false;
      using Addr = std::remove_reference_t<decltype(out.local_addr)>;
      using Size = std::remove_reference_t<decltype(out.nbytes)>;
      out.local_addr = to_addr<Addr>(p);
      out.nbytes = static_cast<Size>(nbytes);
      return true;
    }

    // Copies nbytes from src to [offset, offset + nbytes), then flushes.
    bool write(uint64_t offset, const void* src, uint64_t nbytes) {
      uint8_t* p = v_->payload_range(offset, nbytes, RegionViewOp::PAYLOAD_WRITE);
      if (p == nullptr) return false;
      if (nbytes != 0) {
        if (src == nullptr) {
          v_->fail(RegionViewErrorKind::INVALID_VIEW, RegionViewOp::PAYLOAD_WRITE, 0,
                   "payload write from a null source");
          return false;
        }
        std::memcpy(p, src, static_cast<size_t>(nbytes));
      }
      return true;
    }

   private:
    friend class RegionInstanceView;
    explicit Payload(RegionInstanceView* v) : v_(v) {}

    template <class Addr>
    static Addr to_addr(uint8_t* p) {
      if constexpr (std::is_pointer_v<Addr>) {
        return reinterpret_cast<Addr>(p);
      } else {
        return static_cast<Addr>(reinterpret_cast<uintptr_t>(p));
      }
    }

    RegionInstanceView* v_;
  };

  class Counter {
   public:
    RegionPartLocalSpan span() const { return v_->counter_; }

    bool notify(uint64_t offset, int32_t value, RegionNotifyOp op) {
      int32_t* slot = v_->counter_slot(offset, RegionViewOp::NOTIFY);
      if (slot == nullptr) return false;
      switch (op) {
        case RegionNotifyOp::Set:
          __atomic_store_n(slot, value, __ATOMIC_RELEASE);
          return true;
        case RegionNotifyOp::Add:
          // GCC/Clang define signed atomic addition as two's-complement wrap.
          __atomic_fetch_add(slot, value, __ATOMIC_ACQ_REL);
          return true;
      }
      v_->fail(RegionViewErrorKind::INVALID_ENUM, RegionViewOp::NOTIFY, 0,
               "notify with an unknown RegionNotifyOp");
      return false;
    }

    // One acquire load; sets sample.matched and sample.observed.
    template <class Sample>
    bool test(uint64_t offset, int32_t cmp_value, RegionWaitCmp cmp, Sample& sample) {
      int32_t* slot = v_->counter_slot(offset, RegionViewOp::TEST);
      if (slot == nullptr) return false;
      const int32_t observed = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
      bool known = false;
      const bool matched = region_wait_cmp_holds(observed, cmp, cmp_value, &known);
      if (!known) {
        v_->fail(RegionViewErrorKind::INVALID_ENUM, RegionViewOp::TEST, observed,
                 "test with an unknown RegionWaitCmp");
        return false;
      }
      sample.matched = matched;
      sample.observed = observed;
      return true;
    }

    // Polls until the comparison holds (true) or timeout_ns passed on
    // CLOCK_MONOTONIC (false, not a failure). The backoff is bounded so a
    // waiter reacts within ~kMaxSleepNs and never oversleeps its deadline.
    bool wait(uint64_t offset, int32_t cmp_value, RegionWaitCmp cmp, uint64_t timeout_ns,
              int32_t& observed) {
      int32_t* slot = v_->counter_slot(offset, RegionViewOp::WAIT);
      if (slot == nullptr) return false;
      const uint64_t start = monotonic_ns();
      const uint64_t deadline =
          timeout_ns > UINT64_MAX - start ? UINT64_MAX : start + timeout_ns;
      uint64_t sleep_ns = kMinSleepNs;
      for (uint32_t round = 0;; ++round) {
        observed = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
        bool known = false;
        if (region_wait_cmp_holds(observed, cmp, cmp_value, &known)) return true;
        if (!known) {
          v_->fail(RegionViewErrorKind::INVALID_ENUM, RegionViewOp::WAIT, observed,
                   "wait with an unknown RegionWaitCmp");
          return false;
        }
        const uint64_t now = monotonic_ns();
        if (now >= deadline) {
          v_->note_timeout(observed);
          return false;
        }
        if (round < kSpinRounds) {
          cpu_relax();
          continue;
        }
        const uint64_t left = deadline - now;
        sleep_for(sleep_ns < left ? sleep_ns : left);
        if (sleep_ns < kMaxSleepNs) sleep_ns *= 2;
      }
    }

   private:
    friend class RegionInstanceView;
    explicit Counter(RegionInstanceView* v) : v_(v) {}

    static constexpr uint32_t kSpinRounds = 128;
    static constexpr uint64_t kMinSleepNs = 1000;
    static constexpr uint64_t kMaxSleepNs = 64000;

    static uint64_t monotonic_ns() {
      timespec ts{};
      clock_gettime(CLOCK_MONOTONIC, &ts);
      return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull +
             static_cast<uint64_t>(ts.tv_nsec);
    }
    static void sleep_for(uint64_t ns) {
      timespec ts{};
      ts.tv_sec = static_cast<time_t>(ns / 1000000000ull);
      ts.tv_nsec = static_cast<long>(ns % 1000000000ull);
      nanosleep(&ts, nullptr);
    }
    static void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#elif defined(__aarch64__)
      __asm__ __volatile__("yield");
#endif
    }

    RegionInstanceView* v_;
  };

  Payload payload() { return Payload(this); }
  Counter counter() { return Counter(this); }

 private:
  static bool span_valid(const RegionPartLocalSpan& s) {
    return s.base != 0 && s.logical_bytes != 0 && s.logical_bytes <= UINT64_MAX - s.base;
  }
  static bool in_span(uint64_t offset, uint64_t nbytes, uint64_t span_bytes) {
    return offset <= span_bytes && nbytes <= span_bytes - offset;
  }

  uint8_t* payload_range(uint64_t offset, uint64_t nbytes, RegionViewOp op) {
    if (failed_) return nullptr;
    if (!in_span(offset, nbytes, payload_.logical_bytes)) {
      fail(RegionViewErrorKind::OUT_OF_BOUNDS, op, 0, "payload range outside the span");
      return nullptr;
    }
    return reinterpret_cast<uint8_t*>(static_cast<uintptr_t>(payload_.base + offset));
  }

  int32_t* counter_slot(uint64_t offset, RegionViewOp op) {
    if (failed_) return nullptr;
    if (offset % sizeof(int32_t) != 0 ||
        !in_span(offset, sizeof(int32_t), counter_.logical_bytes)) {
      fail(RegionViewErrorKind::OUT_OF_BOUNDS, op, 0,
           "counter slot misaligned or outside the span");
      return nullptr;
    }
    return reinterpret_cast<int32_t*>(static_cast<uintptr_t>(counter_.base + offset));
  }

  void fail(RegionViewErrorKind kind, RegionViewOp op, int32_t observed, const char* what) {
    if (failed_) return;  // the first failure is the one reported
    failed_ = true;
    set_error(kind, op, observed, what);
  }

  void note_timeout(int32_t observed) {
    if (!failed_) set_error(RegionViewErrorKind::TIMEOUT, RegionViewOp::WAIT, observed,
                            "wait timed out");
  }

  void set_error(RegionViewErrorKind kind, RegionViewOp op, int32_t observed, const char* what) {
    error_ = RegionViewError{};
    error_.kind = kind;
    error_.op = op;
    error_.observed = observed;
    std::strncpy(error_.message, what, sizeof(error_.message) - 1);
  }

  RegionPartLocalSpan payload_{};
  RegionPartLocalSpan counter_{};
  bool failed_ = false;
  RegionViewError error_{};
};

#endif  // SPSQ_INDEPENDENT_AICPU_REGION_INSTANCE_VIEW_H_
