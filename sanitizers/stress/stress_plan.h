// What the L2 and L3 stress stages share besides the traffic and the payload
// checks: a case of the matrix and its test-name suffix, the plan a run
// follows (with the environment knobs SPSQ_STRESS_MESSAGES and
// SPSQ_STRESS_STALL_SECONDS) and the hang guard. Nothing here names an
// endpoint, so both stages' headers include it.
#ifndef SPSQ_SANITIZERS_STRESS_STRESS_PLAN_H_
#define SPSQ_SANITIZERS_STRESS_STRESS_PLAN_H_

#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "sanitizers/stress/stress_view.h"

namespace spsq_stress {

inline constexpr uint64_t kMiB = 1 << 20;

struct StressCase {
  uint64_t depth, input_arena, output_arena;
  bool big;  // 1 MiB arenas: fewer messages
};

struct StressPlan {
  uint64_t depth, input_arena, output_arena;
  uint64_t messages;  // DATA inputs
  uint64_t stall_ns;  // no progress for this long fails the run
};

// Environment knobs for deep runs: SPSQ_STRESS_MESSAGES (DATA inputs per case
// with small arenas; 1 MiB arenas get a twentieth) and SPSQ_STRESS_STALL_SECONDS.
inline uint64_t env_u64(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v, &end, 10);
  return end != nullptr && *end == '\0' && n > 0 ? n : fallback;
}

inline StressPlan plan_for(const StressCase& c, uint64_t default_messages) {
  const uint64_t n = env_u64("SPSQ_STRESS_MESSAGES", default_messages);
  const uint64_t stall_s = env_u64("SPSQ_STRESS_STALL_SECONDS", 5);
  return StressPlan{c.depth, c.input_arena, c.output_arena,
                    c.big ? (n / 20 > 0 ? n / 20 : 1) : n, stall_s * 1000000000ull};
}

// The case matrices of the two binaries of either stage: depth 1, 2, 8, 1024
// x arenas 64 (wrap-heavy), 192 and 1 MiB (roomy).
inline std::vector<StressCase> two_thread_matrix() {
  return {StressCase{1, 64, 64, false},    StressCase{1, 192, 192, false},
          StressCase{2, 64, 192, false},   StressCase{2, 192, 64, false},
          StressCase{8, 64, 64, false},    StressCase{8, 192, 192, false},
          StressCase{1024, 64, 64, false}, StressCase{1024, 192, 192, false},
          StressCase{8, kMiB, kMiB, true}, StressCase{1024, kMiB, 192, true}};
}

inline std::vector<StressCase> cross_process_matrix() {
  return {StressCase{1, 64, 64, false}, StressCase{2, 192, 64, false},
          StressCase{8, 64, 192, false}, StressCase{1024, 192, 192, false},
          StressCase{8, kMiB, kMiB, true}};
}

inline std::string PrintCase(const testing::TestParamInfo<StressCase>& info) {
  const StressCase& c = info.param;
  return "depth" + std::to_string(c.depth) + "_in" + std::to_string(c.input_arena) + "_out" +
         std::to_string(c.output_arena);
}

// The cross-process arrangement of either stage: `child()` runs in a forked
// child (which shares with this process only what is mapped MAP_SHARED) and
// returns its report, which reaches `*report` through a pipe; `parent()` runs
// here meanwhile. False, with `*report` naming the exit status, when the child
// did not end normally.
template <class Child, class Parent>
bool run_forked(Child child, Parent parent, std::string* report) {
  int fds[2];
  if (pipe(fds) != 0) {
    *report = "no pipe to the child";
    return false;
  }
  const pid_t pid = fork();
  if (pid < 0) {
    *report = "fork failed";
    return false;
  }
  if (pid == 0) {
    close(fds[0]);
    const std::string r = child();
    for (size_t at = 0; at < r.size();) {
      const ssize_t n = write(fds[1], r.data() + at, r.size() - at);
      if (n <= 0) _exit(3);
      at += static_cast<size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  parent();
  std::string text;
  char buf[512];
  for (ssize_t n; (n = read(fds[0], buf, sizeof(buf))) > 0;) {
    text.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    *report = "the child process ended with status " + std::to_string(status);
    return false;
  }
  *report = text;
  return true;
}

// The hang guard of a party that polls: idle() after a poll that moved
// nothing is true once nothing has moved for `stall_ns` (the only clock use of
// a run; the clock is read now and then only, the peer usually moves first).
class StallGuard {
 public:
  explicit StallGuard(uint64_t stall_ns) : stall_ns_(stall_ns), since_(steady_now_ns()) {}
  void progress() { idle_polls_ = 0; }
  bool stalled() {
    if (idle_polls_++ % 1024 != 0) return false;
    const uint64_t now = steady_now_ns();
    if (idle_polls_ == 1) since_ = now;
    return now - since_ > stall_ns_;
  }

 private:
  uint64_t stall_ns_;
  uint64_t since_;
  uint64_t idle_polls_ = 0;
};

}  // namespace spsq_stress

#endif  // SPSQ_SANITIZERS_STRESS_STRESS_PLAN_H_
