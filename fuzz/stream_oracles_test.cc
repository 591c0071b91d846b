#include "fuzz/stream_oracles.h"

#include <cstdint>
#include <cstring>
#include <string>

#include "fuzz/oracle_test_util.h"
#include "gtest/gtest.h"

namespace spsq_fuzz {
namespace {

WaitExpiry waited(uint64_t t0, uint64_t now, uint64_t timeout) {
  WaitExpiry w;
  w.t0 = t0;
  w.now = now;
  w.timeout = timeout;
  return w;
}

TEST(WaitExpired, TheWholeTimeoutPassesAndLessIsS3To8) {
  EXPECT_PASSES(wait_expired(waited(100, 1100, 1000)));
  EXPECT_FALSE(wait_expired(waited(100, 1100, 1000)).said());
  EXPECT_FINDING(wait_expired(waited(100, 1099, 1000)), "S3.TO.8");
}

TEST(WaitExpired, ExactRefusesAWaitPastTheTimeout) {
  WaitExpiry w = waited(100, 1200, 1000);
  EXPECT_PASSES(wait_expired(w));
  w.exact = true;
  EXPECT_FINDING(wait_expired(w), "S3.TO.8");
  w.now = 1100;
  EXPECT_PASSES(wait_expired(w));
}

TEST(WaitExpired, ATimeoutPastTheClocksEndWaitsUntilThatEnd) {
  const uint64_t t0 = UINT64_MAX - 10;
  EXPECT_PASSES(wait_expired(waited(t0, UINT64_MAX, UINT64_MAX)));
  // A deadline that wrapped around returns at once.
  EXPECT_FINDING(wait_expired(waited(t0, t0, UINT64_MAX)), "S3.TO.8");
}

TEST(WaitExpired, AnEarlyFalseWaitMayEndTheCallReadingB) {
  WaitExpiry w = waited(0, 501, 1000);
  w.cut = w.last_cut = true;
  const Verdict v = wait_expired(w);
  EXPECT_FALSE(v.failed());
  ASSERT_NE(v.reading, nullptr);
  EXPECT_STREQ(v.reading, "AMB.WAITFALSE");
  EXPECT_STREQ(Verdict::stated().what, "B");
  // Only right after such a wait: an earlier one does not excuse returning early.
  w.last_cut = false;
  EXPECT_FINDING(wait_expired(w), "S3.TO.8");
}

TEST(WaitExpired, WaitingAgainToTheDeadlineIsReadingA) {
  WaitExpiry w = waited(0, 1000, 1000);
  w.cut = true;
  const Verdict v = wait_expired(w);
  EXPECT_FALSE(v.failed());
  ASSERT_NE(v.reading, nullptr);
  EXPECT_STREQ(Verdict::stated().what, "A");
}

TEST(Verdict, AFindingCarriesItsMessageAndCondition) {
  const Verdict v = wait_expired(waited(0, 7, 1000));
  ASSERT_TRUE(v.failed());
  const OracleNote& n = Verdict::finding();
  EXPECT_NE(std::strstr(n.text, "after 7 of 1000 ns"), nullptr);
  EXPECT_NE(std::strstr(n.file, "stream_oracles.h"), nullptr);
  EXPECT_GT(n.line, 0);
  EXPECT_NE(std::strstr(n.what, "waited"), nullptr);
}

TEST(Verdict, ReportPrintsTheStageProtocolAndAbortsOnAFinding) {
  const Verdict v = wait_expired(waited(0, 7, 1000));
  EXPECT_DEATH(report_verdict(v), "spsq-finding: clauses=S3.TO.8 at .*stream_oracles.h:[0-9]+: ");
  WaitExpiry w = waited(0, 501, 1000);
  w.cut = w.last_cut = true;
  testing::internal::CaptureStderr();
  report_verdict(wait_expired(w));
  report_verdict(wait_expired(w));  // the same reading is stated once
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(err.find("spsq-reading: AMB.WAITFALSE=B at "), 0u) << err;
  EXPECT_EQ(err.find("spsq-reading:", 1), std::string::npos) << err;
}

}  // namespace
}  // namespace spsq_fuzz
