// The driver's error paths, each against a small misbehaving testee
// (testdata/): one that exits, one that hangs, one that answers out of
// order, one that writes garbage, one that speaks another version, one that
// declares "reuse" and does not end a queue, one whose "reuse" is no boolean. Each
// protocol failure must be exactly one test failure naming the test, the
// last request and the testee's stderr; afterwards every call answers
// FAILED at once, and nothing hangs. A testee whose surface is not the one
// its certification was built for is refused. And one well-behaved testee on
// the python surface that cannot tell error kinds, and one that serves a
// test's queues one after another when (and only when) it declares "reuse".
#include <signal.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "certify/driver/driver_l3_adapter.h"
#include "testkit/queue_region.h"
#include "testkit/virtual_clock.h"
#include "gtest/gtest-spi.h"
#include "gtest/gtest.h"

namespace spsq_conf {
namespace {

class DriverErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    VirtualClock::reset();
    unsetenv("SPSQ_TESTEE_SURFACE");
  }
  void TearDown() override { unsetenv("SPSQ_TESTEE_SURFACE"); }

  // Opens a queue on `script`, with the frame bound at one second, and
  // returns the one failure it must have produced.
  std::string OpenFails(const char* script) {
    setenv("SPSQ_TESTEE", (std::string("certify/driver/testdata/") + script).c_str(), 1);
    setenv("SPSQ_TESTEE_FRAME_TIMEOUT_S", "1", 1);
    ::testing::TestPartResultArray failures;
    bool opened = true;
    {
      ::testing::ScopedFakeTestPartResultReporter capture(
          ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
      const auto s = region_.scalars();
      opened = adapter_.open(s.data(), s.size(), region_.view(), &VirtualClock::now_ns);
    }
    EXPECT_FALSE(opened) << script << ": open() succeeded";
    EXPECT_TRUE(adapter_.broken()) << script;
    EXPECT_EQ(failures.size(), 1) << script << ": one failure per protocol failure";
    return failures.size() == 0 ? "" : failures.GetTestPartResult(0).message();
  }

  // After a protocol failure: FAILED at once, no new failure, not live.
  void ExpectDeadQuietly() {
    ::testing::TestPartResultArray failures;
    {
      ::testing::ScopedFakeTestPartResultReporter capture(
          ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
      EXPECT_EQ(adapter_.try_enqueue(nullptr, 0), L3Status::kFailed);
      L3Message m;
      EXPECT_EQ(adapter_.peek(1000, &m), L3Status::kFailed);
      EXPECT_FALSE(adapter_.live());
      EXPECT_FALSE(adapter_.error().kind_known);
    }
    EXPECT_EQ(failures.size(), 0) << "a broken testee must answer FAILED without more failures: "
                                  << (failures.size() ? failures.GetTestPartResult(0).message() : "");
  }

  QueueRegion region_{QueueParams()};
  DriverL3Adapter adapter_;
};

TEST_F(DriverErrors, ATesteeThatExitsFailsTheTestWithItsStatus) {
  const std::string m = OpenFails("exits.py");
  EXPECT_NE(m.find("DriverErrors.ATesteeThatExitsFailsTheTestWithItsStatus"), std::string::npos) << m;
  EXPECT_NE(m.find("exited with status 3"), std::string::npos) << m;
  EXPECT_NE(m.find("\"op\":\"create\""), std::string::npos) << "the last request: " << m;
  EXPECT_NE(m.find("exits.py: giving up on purpose"), std::string::npos) << "stderr tail: " << m;
  ExpectDeadQuietly();
}

TEST_F(DriverErrors, ATesteeThatHangsIsKilledAtTheFrameBound) {
  const std::string m = OpenFails("hangs.py");
  EXPECT_NE(m.find("ATesteeThatHangsIsKilledAtTheFrameBound"), std::string::npos) << m;
  EXPECT_NE(m.find("the testee hangs"), std::string::npos) << m;
  EXPECT_NE(m.find("\"op\":\"create\""), std::string::npos) << m;
  EXPECT_NE(m.find("hangs.py: not answering"), std::string::npos) << m;
  ExpectDeadQuietly();
}

TEST_F(DriverErrors, AnAnswerOutOfOrderFailsTheTest) {
  const std::string m = OpenFails("out_of_order.py");
  EXPECT_NE(m.find("AnAnswerOutOfOrderFailsTheTest"), std::string::npos) << m;
  EXPECT_NE(m.find("out of order: id 2 where 1 was due"), std::string::npos) << m;
  EXPECT_NE(m.find("answering id 2"), std::string::npos) << m;
  ExpectDeadQuietly();
}

TEST_F(DriverErrors, GarbageInsteadOfAFrameFailsTheTest) {
  const std::string m = OpenFails("garbage.sh");
  EXPECT_NE(m.find("GarbageInsteadOfAFrameFailsTheTest"), std::string::npos) << m;
  EXPECT_NE(m.find("not a valid frame"), std::string::npos) << m;
  EXPECT_NE(m.find("exceeds 16 MiB"), std::string::npos) << m;
  EXPECT_NE(m.find("garbage.sh: about to print text"), std::string::npos) << m;
  ExpectDeadQuietly();
}

TEST_F(DriverErrors, AnotherProtocolVersionIsRefused) {
  const std::string m = OpenFails("wrong_version.py");
  EXPECT_NE(m.find("AnotherProtocolVersionIsRefused"), std::string::npos) << m;
  EXPECT_NE(m.find("speaks protocol version 2; this harness speaks version 1 only"),
            std::string::npos) << m;
  ExpectDeadQuietly();
}

TEST_F(DriverErrors, ASurfaceOtherThanTheCertificationsIsRefused) {
  // A certification built for the C++ surface runs stages a python-surface
  // testee is not judged by: the hello must agree with it.
  setenv("SPSQ_TESTEE_SURFACE", "cpp", 1);
  const std::string m = OpenFails("python_surface.py");
  EXPECT_NE(m.find("ASurfaceOtherThanTheCertificationsIsRefused"), std::string::npos) << m;
  EXPECT_NE(m.find("declares surface \"python\" but its certification was built for \"cpp\""),
            std::string::npos) << m;
  ExpectDeadQuietly();
}

TEST_F(DriverErrors, AMissingTesteeIsAClearError) {
  const std::string m = OpenFails("no_such_testee");
  EXPECT_NE(m.find("SPSQ_TESTEE: no executable certify/driver/testdata/no_such_testee"),
            std::string::npos) << m;
  ExpectDeadQuietly();
}

// A testee that follows the protocol: its surface reaches the suite, a kind
// it reports as null is not known, an op it does not offer skips the test
// with the reason (never a failure), and quit ends it without one.
TEST(Driver, PassesOnTheSurfaceUnknownKindsAndUnsupportedOps) {
  setenv("SPSQ_TESTEE", "certify/driver/testdata/python_surface.py", 1);
  setenv("SPSQ_TESTEE_FRAME_TIMEOUT_S", "20", 1);
  VirtualClock::reset();
  QueueRegion region{QueueParams()};
  ::testing::TestPartResultArray results;
  {
    ::testing::ScopedFakeTestPartResultReporter capture(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &results);
    DriverL3Adapter adapter;
    const auto s = region.scalars();
    ASSERT_TRUE(adapter.open(s.data(), s.size(), region.view(), &VirtualClock::now_ns));
    EXPECT_STREQ(adapter.surface(), "python");
    EXPECT_NE(std::string(adapter.name()).find("python surface"), std::string::npos);
    EXPECT_TRUE(adapter.live());
    const L3ErrorInfo e = adapter.error();
    EXPECT_FALSE(e.kind_known);
    EXPECT_EQ(e.message, "ValueError: timeout must be > 0");
    EXPECT_EQ(adapter.try_enqueue(nullptr, 0), L3Status::kRejected);
    EXPECT_FALSE(adapter.broken());
  }
  ASSERT_EQ(results.size(), 1) << "only the skip of the unsupported op";
  EXPECT_TRUE(results.GetTestPartResult(0).skipped());
  EXPECT_NE(std::string(results.GetTestPartResult(0).message())
                .find("the testee does not offer \"try_enqueue\""),
            std::string::npos) << results.GetTestPartResult(0).message();
}

// A testee that answered "quit" but does not exit within the bound is killed;
// every call was judged already, so no test fails for its teardown.
TEST(Driver, ATesteeSlowToExitAfterQuitIsKilledWithoutAFailure) {
  setenv("SPSQ_TESTEE", "certify/driver/testdata/lingers.py", 1);
  setenv("SPSQ_TESTEE_FRAME_TIMEOUT_S", "1", 1);
  VirtualClock::reset();
  QueueRegion region{QueueParams()};
  ::testing::TestPartResultArray results;
  {
    ::testing::ScopedFakeTestPartResultReporter capture(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &results);
    DriverL3Adapter adapter;
    const auto s = region.scalars();
    ASSERT_TRUE(adapter.open(s.data(), s.size(), region.view(), &VirtualClock::now_ns));
    EXPECT_FALSE(adapter.broken());
  }
  EXPECT_EQ(results.size(), 0) << results.GetTestPartResult(0).message();
}

TEST_F(DriverErrors, ABadFrameBoundIsAClearError) {
  setenv("SPSQ_TESTEE_FRAME_TIMEOUT_S", "soon", 1);
  setenv("SPSQ_TESTEE", "certify/driver/testdata/exits.py", 1);
  ::testing::TestPartResultArray failures;
  {
    ::testing::ScopedFakeTestPartResultReporter capture(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
    const auto s = region_.scalars();
    EXPECT_FALSE(adapter_.open(s.data(), s.size(), region_.view(), &VirtualClock::now_ns));
  }
  ASSERT_EQ(failures.size(), 1);
  EXPECT_NE(std::string(failures.GetTestPartResult(0).message())
                .find("SPSQ_TESTEE_FRAME_TIMEOUT_S=soon: want a whole number of seconds"),
            std::string::npos) << failures.GetTestPartResult(0).message();
}

TEST_F(DriverErrors, AnEndNotAnsweredOkFailsTheTest) {
  setenv("SPSQ_TESTEE", "certify/driver/testdata/reuses.py refuse_end", 1);
  setenv("SPSQ_TESTEE_FRAME_TIMEOUT_S", "20", 1);
  ::testing::TestPartResultArray failures;
  {
    ::testing::ScopedFakeTestPartResultReporter capture(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
    DriverL3Adapter adapter;
    const auto s = region_.scalars();
    ASSERT_TRUE(adapter.open(s.data(), s.size(), region_.view(), &VirtualClock::now_ns));
  }
  ASSERT_EQ(failures.size(), 1);
  const std::string m = failures.GetTestPartResult(0).message();
  EXPECT_NE(m.find("\"end\" answered \"unsupported\""), std::string::npos) << m;
  DriverL3Adapter::QuitParked();  // nothing is parked: the testee was killed
}

TEST_F(DriverErrors, AReuseThatIsNoBooleanIsRefused) {
  const std::string m = OpenFails("reuses.py bad_hello");
  EXPECT_NE(m.find("the hello's \"reuse\" must be true or false"), std::string::npos) << m;
  ExpectDeadQuietly();
}

// The error text of reuses.py: "pid P queue N".
std::string Identity(const char* mode, QueueRegion* region) {
  setenv("SPSQ_TESTEE", (std::string("certify/driver/testdata/reuses.py ") + mode).c_str(), 1);
  DriverL3Adapter adapter;
  const auto s = region->scalars();
  if (!adapter.open(s.data(), s.size(), region->view(), &VirtualClock::now_ns)) return "";
  return adapter.error().message;
}

// A testee that declares "reuse" serves the test's next queue in the same
// process (its second "create"), callbacks after "end" are refused, and the
// parked testee quits cleanly. One that does not declare it gets a process
// per queue.
TEST(Driver, ATesteeThatDeclaresReuseServesTheTestsNextQueue) {
  setenv("SPSQ_TESTEE_FRAME_TIMEOUT_S", "20", 1);
  VirtualClock::reset();
  QueueRegion region{QueueParams()};
  ::testing::TestPartResultArray results;
  std::string first, second, single_first, single_second;
  {
    ::testing::ScopedFakeTestPartResultReporter capture(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &results);
    first = Identity("reuse", &region);
    second = Identity("reuse", &region);
    DriverL3Adapter::QuitParked();
    single_first = Identity("single", &region);
    single_second = Identity("single", &region);
  }
  EXPECT_EQ(results.size(), 0) << results.GetTestPartResult(0).message();
  const std::string pid = first.substr(0, first.find(" queue"));
  EXPECT_EQ(first, pid + " queue 1");
  EXPECT_EQ(second, pid + " queue 2") << "the second queue must go to the same process";
  const int n = std::atoi(pid.c_str() + 4);
  ASSERT_GT(n, 0) << first;
  EXPECT_TRUE(::kill(n, 0) != 0 && errno == ESRCH) << "the parked testee must have exited";
  EXPECT_NE(single_first, single_second) << "without reuse, every queue is a new process";
  EXPECT_EQ(single_second.substr(single_second.find(" queue")), " queue 1");
}

}  // namespace
}  // namespace spsq_conf
