#include "fuzz/stream_oracles.h"

#include <cstdint>
#include <cstring>
#include <string>

#include "testkit/layout_fields.h"
#include "fuzz/oracle_test_util.h"
#include "fuzz/wire_model.h"
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

// Four bytes of message seq 3 as its producer wrote them (salt 9).
struct Pattern {
  uint8_t bytes[4];
  Pattern() {
    for (uint64_t i = 0; i < 4; ++i) bytes[i] = pattern_byte(9, 3, i);
  }
  MessageBytes message() const {
    MessageBytes m;
    m.bytes = bytes;
    m.nbytes = 4;
    m.salt = 9;
    m.seq = 3;
    m.what = "output";
    m.at = 2;
    return m;
  }
};

TEST(FirstUnlike, FindsTheFirstByteOffThePattern) {
  Pattern p;
  EXPECT_EQ(first_unlike(p.bytes, 4, 9, 3), 4u);
  EXPECT_EQ(first_unlike(p.bytes, 4, 9, 4), 0u);  // another message's pattern
  p.bytes[2] ^= 1;
  EXPECT_EQ(first_unlike(p.bytes, 4, 9, 3), 2u);
  EXPECT_EQ(first_unlike(p.bytes, 2, 9, 3), 2u);  // only n bytes are read
}

TEST(PublishedBytes, TheBytesTheProducerWroteAndNoOther) {
  Pattern p;
  EXPECT_PASSES(published_bytes(p.message()));
  p.bytes[3] ^= 0x80;
  EXPECT_FINDING(published_bytes(p.message()), "S0.PURPOSE.1,S3.PUB.2");
  EXPECT_NE(std::strstr(Verdict::finding().text, "output 2 byte 3"), nullptr);
  MessageBytes empty = p.message();
  empty.nbytes = 0;
  EXPECT_PASSES(published_bytes(empty));
}

TEST(DeliveredBytes, TheBytesThatWereSentAndNoOther) {
  Pattern p;
  EXPECT_PASSES(delivered_bytes(p.message()));
  MessageBytes other = p.message();
  other.seq = 4;
  EXPECT_FINDING(delivered_bytes(other), "S0.PURPOSE.1,S3.PUB.5");
  p.bytes[0] ^= 1;
  EXPECT_FINDING(delivered_bytes(p.message()), "S0.PURPOSE.1,S3.PUB.5");
}

TEST(SameLayout, EveryFieldCounts) {
  const spsq_conf::LayoutFields a{2, 0, 64, 128, 64, 192, 128, 320, 384};
  EXPECT_TRUE(same_layout(a, a));
  for (int f = 0; f < 9; ++f) {
    spsq_conf::LayoutFields b = a;
    uint64_t* fields[9] = {&b.depth,       &b.input_ring,        &b.output_ring,
                           &b.input_arena, &b.input_arena_bytes, &b.output_arena,
                           &b.output_arena_bytes, &b.payload_bytes, &b.counter_bytes};
    *fields[f] += 64;
    EXPECT_FALSE(same_layout(a, b)) << "field " << f;
  }
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
