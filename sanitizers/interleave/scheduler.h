// A deterministic lockstep scheduler for two cooperating threads, in the
// CHESS / loom style: exactly one thread runs at a time, and control may move
// to the other thread only at a choice point (before every shared access).
// explore() enumerates every schedule up to a preemption bound by depth-first
// search over the choice points; a failing schedule is returned as a list of
// decisions that replay() reproduces exactly.
//
// Visibility (optional, a scenario's pending_moves/apply_move): at a choice
// point the scheduler may also make one of the moves a non-coherent memory
// could make on its own at that moment (write back a dirty line, drop a stale
// one), then choose again at the same point. Such a move is a decision of its
// own, 2 + k for the k-th pending move, bounded per execution by
// visibility_bound as switches are by preemption_bound.
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
  // Visibility mode, both or neither. pending_moves(point) counts the moves
  // the memory could make now that are worth offering at this choice point
  // (`point` tells one point from the next; the scenario may leave out a
  // move it offered at an earlier point when nothing it depends on changed
  // since); apply_move(k) makes the k-th and names it. Called only by the
  // thread whose turn it is.
  std::function<size_t(uint64_t point)> pending_moves;
  std::function<std::string(size_t)> apply_move;
  // Appended to a failure (what the memory holds), when given.
  std::function<std::string()> explain;
  // How move descriptions name the threads ("thread 0" when empty) and the
  // access a move precedes (point()'s arguments; "what [offset, +nbytes)"
  // when empty).
  std::string names[2];
  std::function<std::string(const char* what, uint64_t offset, uint64_t nbytes)> name_access;
};

// A decision at a choice point.
inline constexpr uint8_t kStay = 0;
inline constexpr uint8_t kSwitch = 1;
inline constexpr uint8_t kFirstMove = 2;  // 2 + k: pending move k
// Pending moves past this many are not offered at a point (a decision is a byte).
inline constexpr uint32_t kMaxMovesOffered = 255 - kFirstMove;

struct ExploreResult {
  uint64_t schedules = 0;
  uint64_t max_choice_points = 0;
  bool failed = false;
  std::string failure;
  // Decisions in order: 0 stay, 1 switch, 2 + k pending move k (then the
  // same point decides again).
  std::vector<uint8_t> schedule;
  // The failing schedule's visibility moves, named, in order.
  std::vector<std::string> moves;
  bool exhausted = true;  // false when max_schedules stopped the search
};

struct ExploreOptions {
  int preemption_bound = 2;
  uint64_t max_schedules = 200000;
  uint64_t max_steps = 200000;  // per execution: past it, the run is a livelock
  int visibility_bound = 2;     // visibility moves per execution (visibility mode only)
};

// The alternatives one choice offered; the search tries each in turn.
struct Choice {
  bool can_switch = false;
  uint32_t moves = 0;  // pending moves offered (0 once the budget is spent)
};

// One execution. Thread bodies call point() before every shared access and
// blocked() when they cannot progress until the other thread runs.
class Run {
 public:
  // `what`, `offset` and `nbytes` name the access about to happen (for the
  // description of a visibility move made here).
  void point(const char* what = nullptr, uint64_t offset = 0, uint64_t nbytes = 0);
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
                               std::vector<Choice>*);
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
  int moves_made_ = 0;
  const std::vector<uint8_t>* prefix_ = nullptr;
  std::vector<uint8_t>* trace_ = nullptr;   // decision per choice
  std::vector<Choice>* choices_ = nullptr;  // what each choice offered
  const ExploreOptions* options_ = nullptr;
  const Scenario* scenario_ = nullptr;
  std::vector<std::string> moves_;  // the visibility moves made, named
};

ExploreResult explore(const std::function<Scenario()>& factory, const ExploreOptions& options);
// Runs exactly the given schedule; failed/failure say what it found.
ExploreResult replay(const std::function<Scenario()>& factory, const std::vector<uint8_t>& schedule,
                     const ExploreOptions& options);

// A schedule as text: '0' stay, '1' switch, 'a'..'z' pending move 0..25,
// "(k)" pending move k from 26 on. Coherent schedules are 0s and 1s.
std::string schedule_to_string(const std::vector<uint8_t>& schedule);
bool schedule_from_string(const std::string& text, std::vector<uint8_t>* schedule);

}  // namespace spsq_sched

#endif  // SPSQ_SANITIZERS_INTERLEAVE_SCHEDULER_H_
