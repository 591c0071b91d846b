// Cross-process stress of the L2 endpoint under test: the endpoint runs in a
// forked child that shares only the region mapping (and knows it only through
// the ten binding scalars), the wire-level L3 peer in the parent. TSan cannot
// see across processes, so the proof is in the checks both sides run on every
// byte; the child reports its verdict through a pipe and its exit status.
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "gtest/gtest.h"
#include "sanitizers/stress/l2_stress_case.h"

namespace spsq_stress {
namespace {

constexpr uint64_t kMessages = 8000;

// L2 in a forked child that shares only the region mapping, the L3 peer in
// this process; the child reports through a pipe and its exit status.
const auto two_processes = [](const SharedRegion& region, const StressPlan& plan, auto make_view,
                              std::string* l2, std::string* l3) {
  const Scalars scalars = region.scalars();
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(fds[0]);
    const std::string r = run_l2(scalars, make_view(region), plan, region.control());
    if (!r.empty() && write(fds[1], r.data(), r.size()) < 0) _exit(3);
    _exit(r.empty() ? 0 : 1);
  }
  close(fds[1]);
  *l3 = run_l3(region, plan);
  char buf[512];
  for (ssize_t n; (n = read(fds[0], buf, sizeof(buf))) > 0;) l2->append(buf, n);
  close(fds[0]);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  if (l2->empty() && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
    *l2 = "L2: the child process ended with status " + std::to_string(status);
  }
};

SPSQ_L2_STRESS_SUITE(CrossProcessStress, kMessages, two_processes)

INSTANTIATE_TEST_SUITE_P(
    Matrix, CrossProcessStress,
    testing::Values(StressCase{1, 64, 64, false}, StressCase{2, 192, 64, false},
                    StressCase{8, 64, 192, false}, StressCase{1024, 192, 192, false},
                    StressCase{8, kMiB, kMiB, true}),
    PrintCase);

}  // namespace
}  // namespace spsq_stress
