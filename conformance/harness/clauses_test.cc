// SPSQ_JUDGING: a failure inside the block carries the block's clauses in its
// GoogleTest trace (what the verdict engine reads), and one outside does not.
#include "conformance/harness/clauses.h"

#include "gtest/gtest.h"
#include "gtest/gtest-spi.h"

namespace spsq_conf {
namespace {

void FailInsideAJudgingBlock() {
  SPSQ_JUDGING("W.FLAG.1", "S4.POISON.11/l2-first");
  ADD_FAILURE() << "flag not raised";
}

void FailAfterTheBlockClosed() {
  { SPSQ_JUDGING("W.FLAG.1"); }
  ADD_FAILURE() << "main assertion";
}

void FailInNestedBlocks() {
  SPSQ_JUDGING("S4.POISON.5");
  SPSQ_JUDGING("W.ERR.1");
  ADD_FAILURE() << "inner";
}

TEST(Judging, AFailureInsideTheBlockIsTracedToItsClauses) {
  EXPECT_NONFATAL_FAILURE(FailInsideAJudgingBlock(),
                          "spsq-judging: W.FLAG.1 S4.POISON.11/l2-first");
}

TEST(Judging, AFailureAfterTheBlockCarriesNoTrace) {
  ::testing::TestPartResultArray results;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &results);
    FailAfterTheBlockClosed();
  }
  ASSERT_EQ(results.size(), 1);
  EXPECT_EQ(std::string(results.GetTestPartResult(0).message()).find(kJudgingTrace),
            std::string::npos)
      << results.GetTestPartResult(0).message();
}

// The innermost block is listed first: the engine attributes to that one.
TEST(Judging, NestedBlocksListTheInnermostFirst) {
  ::testing::TestPartResultArray results;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &results);
    FailInNestedBlocks();
  }
  ASSERT_EQ(results.size(), 1);
  const std::string message = results.GetTestPartResult(0).message();
  const size_t inner = message.find("spsq-judging: W.ERR.1");
  const size_t outer = message.find("spsq-judging: S4.POISON.5");
  ASSERT_NE(inner, std::string::npos) << message;
  ASSERT_NE(outer, std::string::npos) << message;
  EXPECT_LT(inner, outer) << message;
}

}  // namespace
}  // namespace spsq_conf
