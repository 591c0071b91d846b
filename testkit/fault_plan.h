// The fault-injecting instrument: makes the k-th read, write, notify, test or
// wait a harness view performs fail (return false, view marked failed), the
// way a real RegionInstance command can fail. Counting starts at arm().
#ifndef SPSQ_CONFORMANCE_HARNESS_FAULT_PLAN_H_
#define SPSQ_CONFORMANCE_HARNESS_FAULT_PLAN_H_

#include <cstdint>

namespace spsq_conf {

enum class ViewCall : int { kRead = 0, kWrite, kNotify, kTest, kWait, kCount };

const char* view_call_name(ViewCall call);

class FaultPlan {
 public:
  // Fail the n-th call (1-based) of `call` counted from now. n == 0 disarms.
  void arm(ViewCall call, uint64_t n) {
    target_ = call;
    countdown_ = n;
    fired_ = false;
  }
  // Fail the n-th call of any kind counted from now (a fuzzer picks the
  // access, not the call kind). n == 0 disarms.
  void arm_any(uint64_t n) { arm(ViewCall::kCount, n); }
  void disarm() { countdown_ = 0; }
  bool armed() const { return countdown_ != 0; }

  // Called by the view for every call; true when this one must fail.
  bool should_fail(ViewCall call) {
    ++calls_[static_cast<int>(call)];
    if (countdown_ == 0 || (target_ != ViewCall::kCount && call != target_)) return false;
    if (--countdown_ != 0) return false;
    fired_ = true;
    return true;
  }

  bool fired() const { return fired_; }
  uint64_t calls(ViewCall call) const { return calls_[static_cast<int>(call)]; }

 private:
  ViewCall target_ = ViewCall::kRead;
  uint64_t countdown_ = 0;
  bool fired_ = false;
  uint64_t calls_[static_cast<int>(ViewCall::kCount)] = {};
};

inline const char* view_call_name(ViewCall call) {
  switch (call) {
    case ViewCall::kRead: return "read";
    case ViewCall::kWrite: return "write";
    case ViewCall::kNotify: return "notify";
    case ViewCall::kTest: return "test";
    case ViewCall::kWait: return "wait";
    case ViewCall::kCount: break;
  }
  return "?";
}

}  // namespace spsq_conf

#endif  // SPSQ_CONFORMANCE_HARNESS_FAULT_PLAN_H_
