// SPSQ_JUDGING: a failure inside the block carries the block's clauses in its
// GoogleTest trace (what the verdict engine reads), and one outside does not.
#include "testkit/clauses.h"

#include <string>
#include <vector>

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

// The messages of the failures `fn` reports, kept from the running test.
std::vector<std::string> FailuresOf(void (*fn)()) {
  ::testing::TestPartResultArray results;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &results);
    fn();
  }
  std::vector<std::string> messages;
  for (int i = 0; i < results.size(); ++i) {
    messages.push_back(results.GetTestPartResult(i).message());
  }
  return messages;
}

TEST(Judging, AFailureAfterTheBlockCarriesNoTrace) {
  const std::vector<std::string> failures = FailuresOf(&FailAfterTheBlockClosed);
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].find(kJudgingTrace), std::string::npos) << failures[0];
}

// The innermost block is listed first: the engine attributes to that one.
TEST(Judging, NestedBlocksListTheInnermostFirst) {
  const std::vector<std::string> failures = FailuresOf(&FailInNestedBlocks);
  ASSERT_EQ(failures.size(), 1u);
  const std::string& message = failures[0];
  const size_t inner = message.find("spsq-judging: W.ERR.1");
  const size_t outer = message.find("spsq-judging: S4.POISON.5");
  ASSERT_NE(inner, std::string::npos) << message;
  ASSERT_NE(outer, std::string::npos) << message;
  EXPECT_LT(inner, outer) << message;
}

}  // namespace
}  // namespace spsq_conf
