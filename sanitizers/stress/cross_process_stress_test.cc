// Cross-process stress: the L2 endpoint runs in a forked child that shares
// only the region mapping with L3. TSan cannot see across processes, so the
// proof is in the payload checks both sides run on every byte; the child
// reports its verdict through a pipe and its exit status.
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "gtest/gtest.h"
#include "sanitizers/stress/duplex_stress.h"
#include "sanitizers/stress/region_memory.h"
#include "sanitizers/stress/stress_case.h"

namespace spsq_stress {
namespace {

class CrossProcessStress : public testing::TestWithParam<Case> {};

TEST_P(CrossProcessStress, BothProcessesSeeEveryMessageOnceInOrderByteExact) {
  const Case c = GetParam();
  RegionMemory mem(c.depth, c.input_arena, c.output_arena);
  ASSERT_TRUE(mem.ok());
  const StressConfig cfg{c.depth, c.input_arena, c.output_arena, c.messages};
  const auto scalars = mem.scalars();
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The child knows the region only through the ten scalars.
    close(fds[0]);
    const std::string r =
        c.window == 1 ? run_l2<1>(scalars.data(), cfg) : run_l2<4>(scalars.data(), cfg);
    if (!r.empty() && write(fds[1], r.data(), r.size()) < 0) _exit(3);
    _exit(r.empty() ? 0 : 1);
  }
  close(fds[1]);
  const auto b = mem.binding();
  std::string l3_result;
  {
    spsc_queue::WorkerChipQueue l3(
        b,
        RegionInstanceView(RegionPartLocalSpan{b.payload_base, b.payload_bytes},
                           RegionPartLocalSpan{b.counter_base, b.counter_bytes}),
        spsc_queue::MonotonicClock{&stress_now_ns}, nullptr);
    l3_result = l3.live() ? run_l3(l3, cfg) : std::string("L3 not live: ") + l3.error().message;
  }
  std::string l2_result;
  char buf[512];
  for (ssize_t n; (n = read(fds[0], buf, sizeof(buf))) > 0;) l2_result.append(buf, n);
  close(fds[0]);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_EQ(l3_result, "");
  EXPECT_EQ(l2_result, "");
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
}


INSTANTIATE_TEST_SUITE_P(Matrix, CrossProcessStress,
                         testing::Values(Case{1, 64, 64, 1, 40000}, Case{2, 192, 64, 1, 40000},
                                         Case{8, 64, 192, 4, 40000},
                                         Case{1024, 192, 192, 4, 40000},
                                         Case{8, kMiB, kMiB, 4, 3000}),
                         PrintCase);

}  // namespace
}  // namespace spsq_stress
