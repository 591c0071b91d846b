// LoopBound inside real tests. A bounded loop's failure must reach the
// test's result (where the certification reads it), so the checks cannot
// intercept it: the tests of suite `Loops` fail on purpose, and main() runs
// them and then checks how each failed. It passes when they failed as they
// must: once each, with the loop's reason.
#include "testkit/loop_bound.h"

#include <cstdio>
#include <string>

#include "gtest/gtest.h"

namespace spsq_conf {
namespace {

uint64_t g_passes[3];

// A fill loop that a refusing endpoint never lets end.
TEST(Loops, AnEndlessLoopEndsAtItsBoundWithOneFailure) {
  LoopBound bound("fill the ring", 1000);
  while (bound.next()) ++g_passes[0];
  EXPECT_TRUE(bound.stopped());
}

// A check in a helper fails on every pass: the loop ends at the first.
void FailingCheck() { ASSERT_EQ(1, 2) << "the endpoint refused"; }

TEST(Loops, ACheckThatFailsEndsTheLoopAtTheFirstFailure) {
  LoopBound bound("drain the ring", 1000);
  while (bound.next()) {
    ++g_passes[1];
    FailingCheck();
  }
}

// A loop that ends by itself after exactly `limit` passes is no failure.
TEST(Loops, ALoopThatEndsByItselfAtTheLimitPasses) {
  LoopBound bound("exact", 5);
  uint64_t left = 5;
  while (left != 0 && bound.next()) {
    --left;
    ++g_passes[2];
  }
  EXPECT_FALSE(bound.stopped());
}

// Failures, and the text of the first, of one test of suite Loops.
int Failures(const char* name, std::string* first) {
  const ::testing::UnitTest& u = *::testing::UnitTest::GetInstance();
  for (int i = 0; i < u.total_test_suite_count(); ++i) {
    const ::testing::TestSuite& s = *u.GetTestSuite(i);
    for (int j = 0; j < s.total_test_count(); ++j) {
      const ::testing::TestInfo& t = *s.GetTestInfo(j);
      if (std::string(t.name()) != name) continue;
      int n = 0;
      for (int k = 0; k < t.result()->total_part_count(); ++k) {
        const ::testing::TestPartResult& p = t.result()->GetTestPartResult(k);
        if (!p.failed()) continue;
        if (n++ == 0) *first = p.message();
      }
      return n;
    }
  }
  return -1;
}

bool Check(bool ok, const char* what) {
  std::printf("%s: %s\n", ok ? "ok" : "WRONG", what);
  return ok;
}

}  // namespace
}  // namespace spsq_conf

int main(int argc, char** argv) {
  using spsq_conf::Check;
  using spsq_conf::Failures;
  using spsq_conf::g_passes;
  ::testing::InitGoogleTest(&argc, argv);
  // The deliberate failures are not this binary's result: no XML of them.
  ::testing::GTEST_FLAG(output) = "";
  const int failed = RUN_ALL_TESTS();  // nonzero: the tests failed, as they must
  std::printf("---- the failures above are deliberate; what matters: ----\n");
  std::string first;
  bool ok = Check(failed != 0, "the deliberate failures reached the tests' results");
  ok &= Check(Failures("AnEndlessLoopEndsAtItsBoundWithOneFailure", &first) == 1 &&
                  first.find("fill the ring: the loop did not end within 1000 passes") !=
                      std::string::npos &&
                  g_passes[0] == 1000,
              "an endless loop ran 1000 passes and failed once, saying so");
  ok &= Check(Failures("ACheckThatFailsEndsTheLoopAtTheFirstFailure", &first) == 1 &&
                  first.find("the endpoint refused") != std::string::npos && g_passes[1] == 1,
              "a failing check ended the loop after one pass, with its own failure only");
  ok &= Check(Failures("ALoopThatEndsByItselfAtTheLimitPasses", &first) == 0 && g_passes[2] == 5,
              "a loop that ended by itself at the limit passed");
  std::printf("%d passed, %d failed\n", ok ? 1 : 0, ok ? 0 : 1);
  return ok ? 0 : 1;
}
