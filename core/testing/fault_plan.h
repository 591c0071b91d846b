// Which view call fails: "the k-th call of each kind". A test sets k per kind
// (1-based, 0 = never) and the view consults the plan on every call.
#ifndef SPSQ_TESTING_FAULT_PLAN_H_
#define SPSQ_TESTING_FAULT_PLAN_H_

#include <cstdint>

namespace spsq_testing {

enum class ViewCall : uint32_t {
  kPayloadRead = 0,
  kPayloadWrite,
  kCounterNotify,
  kCounterTest,
  kCounterWait,
  kCount,
};

struct FaultPlan {
  uint64_t fail_at[static_cast<size_t>(ViewCall::kCount)] = {};
  uint64_t calls[static_cast<size_t>(ViewCall::kCount)] = {};
  // Sticky: after the injected failure every call fails, like
  // RegionInstanceView. Otherwise only the chosen call fails, so a test can
  // still see what the endpoint does next (e.g. raise its abort flag).
  bool sticky = false;
  uint64_t injected = 0;

  void fail(ViewCall c, uint64_t k) { fail_at[static_cast<size_t>(c)] = k; }
  uint64_t count(ViewCall c) const { return calls[static_cast<size_t>(c)]; }

  // Counts the call; true when it is the one to fail.
  bool next(ViewCall c) {
    const size_t i = static_cast<size_t>(c);
    ++calls[i];
    if (fail_at[i] == 0 || calls[i] != fail_at[i]) return false;
    ++injected;
    return true;
  }
};

}  // namespace spsq_testing

#endif  // SPSQ_TESTING_FAULT_PLAN_H_
