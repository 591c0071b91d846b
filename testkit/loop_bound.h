// The bound of a loop that waits on the endpoint: a fill loop that runs
// until the ring refuses, a drain loop until it is empty, a retry loop until
// the endpoint makes progress. A defective endpoint may never let such a
// loop end, and a check inside it would fail once a pass, millions of times.
// A LoopBound ends the loop at the first failure its body added to the test
// (that failure says what went wrong), or after `limit` passes with one
// failure saying the loop did not end:
//
//   LoopBound bound("fill the input ring", 2 * depth);
//   while (peer().inputs_taken() % depth != 0 && bound.next()) Judge("filler", 8);
//
// next() comes last in the condition: a loop that ends by itself after
// exactly `limit` passes is no failure.
#ifndef SPSQ_CONFORMANCE_HARNESS_LOOP_BOUND_H_
#define SPSQ_CONFORMANCE_HARNESS_LOOP_BOUND_H_

#include <cstdint>
#include <string>
#include <utility>

#include "gtest/gtest.h"

namespace spsq_conf {

class LoopBound {
 public:
  LoopBound(std::string what, uint64_t limit) : what_(std::move(what)), limit_(limit) {
    seen_ = part_count();
  }

  // True when another pass may run: fewer than `limit` so far, and no
  // failure (or skip) recorded since the loop began.
  bool next() {
    if (stopped_) return false;
    if (body_failed()) return stop();
    if (passes_ == limit_) {
      ADD_FAILURE() << what_ << ": the loop did not end within " << limit_
                    << " passes (the endpoint never let it)";
      return stop();
    }
    ++passes_;
    return true;
  }
  uint64_t passes() const { return passes_; }
  // Whether the loop was ended by the bound or a failure, not by itself.
  bool stopped() const { return stopped_; }

 private:
  static const ::testing::TestResult* result() {
    const ::testing::TestInfo* t = ::testing::UnitTest::GetInstance()->current_test_info();
    return t == nullptr ? nullptr : t->result();
  }
  static int part_count() {
    const ::testing::TestResult* r = result();
    return r == nullptr ? 0 : r->total_part_count();
  }
  // Looks only at the parts recorded since the last look.
  bool body_failed() {
    const ::testing::TestResult* r = result();
    if (r == nullptr) return false;
    const int n = r->total_part_count();
    bool failed = false;
    for (int i = seen_; i < n; ++i) {
      const ::testing::TestPartResult& p = r->GetTestPartResult(i);
      failed = failed || p.failed() || p.skipped();
    }
    seen_ = n;
    return failed;
  }
  bool stop() {
    stopped_ = true;
    return false;
  }

  std::string what_;
  uint64_t limit_;
  uint64_t passes_ = 0;
  int seen_ = 0;
  bool stopped_ = false;
};

}  // namespace spsq_conf

#endif  // SPSQ_CONFORMANCE_HARNESS_LOOP_BOUND_H_
