// A deterministic lockstep scheduler for two cooperating threads, in the
// CHESS / loom style: exactly one thread runs at a time, and control may move
// to the other thread only at a choice point (before every shared access).
// explore() enumerates every schedule up to a preemption bound by depth-first
// search over the choice points; a failing schedule is returned as a list of
// decisions that replay() reproduces exactly.
#ifndef SPSQ_SANITIZERS_INTERLEAVE_SCHEDULER_H_
#define SPSQ_SANITIZERS_INTERLEAVE_SCHEDULER_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace spsq_sched {

class Run;

// What one execution needs: two thread bodies and a final check, built fresh
// for every schedule (the state they share must be created by the factory).
struct Scenario {
  std::function<void(Run&)> threads[2];
  std::function<std::string()> final_check;  // empty string: passed
};

struct ExploreResult {
  uint64_t schedules = 0;
  uint64_t max_choice_points = 0;
  bool failed = false;
  std::string failure;
  std::vector<uint8_t> schedule;  // decisions at each choice point: 0 stay, 1 switch
  bool exhausted = true;          // false when max_schedules stopped the search
};

struct ExploreOptions {
  int preemption_bound = 2;
  uint64_t max_schedules = 200000;
  uint64_t max_steps = 200000;  // per execution: past it, the run is a livelock
};

// One execution. Thread bodies call point() before every shared access and
// blocked() when they cannot progress until the other thread runs.
class Run {
 public:
  void point();
  // Once the other thread has finished, blocked() returns (the caller looks
  // again) a few times, then fails the run as a deadlock.
  void blocked();
  // Records a failure; the calling thread stops at once, the other at its
  // next point().
  [[noreturn]] void fail(const std::string& why);
  int current() const { return current_; }

 private:
  friend ExploreResult run_one(const std::function<Scenario()>&, const std::vector<uint8_t>&,
                               const ExploreOptions&, std::vector<uint8_t>*,
                               std::vector<bool>*);
  struct Stop {};  // unwinds a thread after a failure

  void thread_main(int me, const std::function<void(Run&)>& body);
  void switch_to(int next, std::unique_lock<std::mutex>& lock);
  void check_budget();

  std::mutex mu_;
  std::condition_variable cv_;
  int current_ = 0;
  bool done_[2] = {false, false};
  bool failed_ = false;
  std::string failure_;
  uint64_t steps_ = 0;
  // blocked() calls tolerated once the other thread has finished.
  static constexpr int kRetriesAfterDone = 16;
  int retries_after_done_ = 0;
  int preemptions_ = 0;
  const std::vector<uint8_t>* prefix_ = nullptr;
  std::vector<uint8_t>* trace_ = nullptr;           // decision per choice point
  std::vector<bool>* can_preempt_ = nullptr;        // whether 1 was allowed there
  const ExploreOptions* options_ = nullptr;
};

ExploreResult explore(const std::function<Scenario()>& factory, const ExploreOptions& options);
// Runs exactly the given schedule; failed/failure say what it found.
ExploreResult replay(const std::function<Scenario()>& factory, const std::vector<uint8_t>& schedule,
                     const ExploreOptions& options);

std::string schedule_to_string(const std::vector<uint8_t>& schedule);
bool schedule_from_string(const std::string& text, std::vector<uint8_t>* schedule);

}  // namespace spsq_sched

#endif  // SPSQ_SANITIZERS_INTERLEAVE_SCHEDULER_H_
