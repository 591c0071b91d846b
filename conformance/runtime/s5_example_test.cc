// Spec section 5, "Example", against the checkout: the shipped example lives
// at the spec's path and its L2 side opts into a window of four.
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "testkit/clauses.h"
#include "gtest/gtest.h"

namespace spsq_conf {
namespace {

TEST(RuntimeExample, TheShippedExampleLivesAtItsPath) {
  SPSQ_CLAUSES("S5.EX.1");
  const char* srcdir = std::getenv("TEST_SRCDIR");
  ASSERT_NE(srcdir, nullptr);
  // Runfiles link into the checkout: this source's real path leads to it.
  const std::string self =
      std::string(srcdir) + "/spsq_harness/conformance/runtime/s5_example_test.cc";
  char real[PATH_MAX];
  ASSERT_NE(realpath(self.c_str(), real), nullptr) << self;
  std::string root = real;
  root = root.substr(0, root.rfind("/conformance/runtime/"));
  const std::string dir = root + "/examples/workers/l3/worker_chip_message_queue/";
  for (const char* f : {"BUILD", "main.cc", "l2_orchestration.cc"}) {
    FILE* fp = std::fopen((dir + f).c_str(), "r");
    EXPECT_NE(fp, nullptr) << "examples/workers/l3/worker_chip_message_queue/" << f;
    if (fp != nullptr) std::fclose(fp);
  }
  // Section 5: the L2 side uses SpscQueueEndpoint<RegionInstanceView, 4>.
  FILE* fp = std::fopen((dir + "l2_orchestration.cc").c_str(), "r");
  ASSERT_NE(fp, nullptr);
  std::string text;
  char chunk[4096];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof(chunk), fp)) > 0) text.append(chunk, n);
  std::fclose(fp);
  EXPECT_NE(text.find("SpscQueueEndpoint<RegionInstanceView, 4>"), std::string::npos);
}

}  // namespace
}  // namespace spsq_conf
