#include "sanitizers/interleave/scheduler.h"

#include <thread>

namespace spsq_sched {

void Run::check_budget() {
  if (++steps_ > options_->max_steps) {
    failed_ = true;
    failure_ = "livelock: no completion within " + std::to_string(options_->max_steps) + " steps";
    throw Stop{};
  }
}

void Run::switch_to(int next, std::unique_lock<std::mutex>& lock) {
  const int me = current_;
  current_ = next;
  cv_.notify_all();
  cv_.wait(lock, [&] { return current_ == me || failed_; });
  if (failed_) throw Stop{};
}

void Run::point(const char* what, uint64_t offset, uint64_t nbytes) {
  std::unique_lock<std::mutex> lock(mu_);
  if (failed_) throw Stop{};
  check_budget();
  const int me = current_;
  const int other = 1 - me;
  const bool visibility = static_cast<bool>(scenario_->pending_moves);
  if (done_[other] && !visibility) return;  // nothing to interleave with
  // Moves first, any number up to the budget, each a choice of its own; then
  // stay or switch.
  for (;;) {
    Choice c;
    c.can_switch = !done_[other] && preemptions_ < options_->preemption_bound;
    if (visibility && moves_made_ < options_->visibility_bound) {
      const size_t pending = scenario_->pending_moves(steps_);
      c.moves = static_cast<uint32_t>(pending < kMaxMovesOffered ? pending : kMaxMovesOffered);
    }
    // With the other thread finished only moves remain to choose.
    if (done_[other] && c.moves == 0) return;
    const size_t index = trace_->size();
    uint8_t decision = index < prefix_->size() ? (*prefix_)[index] : kStay;
    if (decision == kSwitch && !c.can_switch) decision = kStay;
    if (decision >= kFirstMove && static_cast<uint32_t>(decision - kFirstMove) >= c.moves) {
      decision = kStay;
    }
    trace_->push_back(decision);
    choices_->push_back(c);
    if (decision >= kFirstMove) {
      ++moves_made_;
      const std::string& name = scenario_->names[me];
      std::string text = "decision " + std::to_string(index) + ", before " +
                         (name.empty() ? "thread " + std::to_string(me) : name) + "'s ";
      if (what == nullptr) {
        text += "next access";
      } else if (scenario_->name_access) {
        text += scenario_->name_access(what, offset, nbytes);
      } else {
        text += std::string(what) + " [" + std::to_string(offset) + ", +" +
                std::to_string(nbytes) + ")";
      }
      moves_.push_back(text + ": " + scenario_->apply_move(decision - kFirstMove));
      continue;
    }
    if (decision == kSwitch) {
      ++preemptions_;
      switch_to(other, lock);
    }
    return;
  }
}

void Run::blocked() {
  std::unique_lock<std::mutex> lock(mu_);
  if (failed_) throw Stop{};
  check_budget();
  const int other = 1 - current_;
  if (done_[other]) {
    // The caller may have decided on state read before the other thread's
    // last writes (an access after the deciding one is a choice point too):
    // let it look again a few times before calling it a deadlock.
    if (++retries_after_done_ <= kRetriesAfterDone) return;
    failed_ = true;
    failure_ = "deadlock: thread " + std::to_string(current_) +
               " cannot progress and the other thread has finished";
    throw Stop{};
  }
  switch_to(other, lock);  // a forced switch, not a preemption
}

void Run::fail(const std::string& why) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!failed_) {
      failed_ = true;
      failure_ = "thread " + std::to_string(current_) + ": " + why;
    }
    cv_.notify_all();
  }
  throw Stop{};
}

void Run::thread_main(int me, const std::function<void(Run&)>& body) {
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return current_ == me || failed_; });
    if (failed_) return;
  }
  try {
    body(*this);
  } catch (const Stop&) {
  }
  std::lock_guard<std::mutex> lock(mu_);
  done_[me] = true;
  if (current_ == me) current_ = 1 - me;
  cv_.notify_all();
}

ExploreResult run_one(const std::function<Scenario()>& factory, const std::vector<uint8_t>& prefix,
                      const ExploreOptions& options, std::vector<uint8_t>* trace,
                      std::vector<Choice>* choices) {
  Scenario scenario = factory();
  Run run;
  run.prefix_ = &prefix;
  run.trace_ = trace;
  run.choices_ = choices;
  run.options_ = &options;
  run.scenario_ = &scenario;
  std::thread t0([&] { run.thread_main(0, scenario.threads[0]); });
  std::thread t1([&] { run.thread_main(1, scenario.threads[1]); });
  t0.join();
  t1.join();
  ExploreResult r;
  r.schedules = 1;
  r.max_choice_points = trace->size();
  if (run.failed_) {
    r.failed = true;
    r.failure = run.failure_;
  } else if (scenario.final_check) {
    r.failure = scenario.final_check();
    r.failed = !r.failure.empty();
  }
  if (r.failed) {
    if (scenario.explain) r.failure += scenario.explain();
    r.schedule = *trace;
    r.moves = run.moves_;
  }
  return r;
}

namespace {

// The alternative after `*decision` at a choice that offered `c`, in the
// order 0, 1, then the moves; false when none is left.
bool next_decision(const Choice& c, uint8_t* decision) {
  if (*decision == kStay && c.can_switch) {
    *decision = kSwitch;
    return true;
  }
  const uint32_t next_move =
      *decision < kFirstMove ? 0 : static_cast<uint32_t>(*decision - kFirstMove + 1);
  if (next_move >= c.moves) return false;
  *decision = static_cast<uint8_t>(kFirstMove + next_move);
  return true;
}

}  // namespace

ExploreResult explore(const std::function<Scenario()>& factory, const ExploreOptions& options) {
  ExploreResult total;
  std::vector<uint8_t> prefix;
  for (;;) {
    if (total.schedules >= options.max_schedules) {
      total.exhausted = false;
      return total;
    }
    std::vector<uint8_t> trace;
    std::vector<Choice> choices;
    ExploreResult one = run_one(factory, prefix, options, &trace, &choices);
    ++total.schedules;
    if (trace.size() > total.max_choice_points) total.max_choice_points = trace.size();
    if (one.failed) {
      total.failed = true;
      total.failure = one.failure;
      total.schedule = one.schedule;
      total.moves = one.moves;
      return total;
    }
    // Backtrack: the deepest choice with an alternative not tried yet.
    size_t i = trace.size();
    uint8_t next = 0;
    for (; i > 0; --i) {
      next = trace[i - 1];
      if (next_decision(choices[i - 1], &next)) break;
    }
    if (i == 0) return total;
    prefix.assign(trace.begin(), trace.begin() + (i - 1));
    prefix.push_back(next);
  }
}

ExploreResult replay(const std::function<Scenario()>& factory, const std::vector<uint8_t>& schedule,
                     const ExploreOptions& options) {
  std::vector<uint8_t> trace;
  std::vector<Choice> choices;
  return run_one(factory, schedule, options, &trace, &choices);
}

std::string schedule_to_string(const std::vector<uint8_t>& schedule) {
  std::string s;
  s.reserve(schedule.size());
  for (uint8_t d : schedule) {
    if (d < kFirstMove) {
      s.push_back(d == kSwitch ? '1' : '0');
    } else if (d - kFirstMove < 26) {
      s.push_back(static_cast<char>('a' + (d - kFirstMove)));
    } else {
      s += "(" + std::to_string(d - kFirstMove) + ")";
    }
  }
  return s;
}

bool schedule_from_string(const std::string& text, std::vector<uint8_t>* schedule) {
  schedule->clear();
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '0' || c == '1') {
      schedule->push_back(static_cast<uint8_t>(c - '0'));
    } else if (c >= 'a' && c <= 'z') {
      schedule->push_back(static_cast<uint8_t>(kFirstMove + (c - 'a')));
    } else if (c == '(') {
      const size_t close = text.find(')', i);
      if (close == std::string::npos || close == i + 1 || close - i > 4) return false;
      uint32_t k = 0;
      for (size_t j = i + 1; j < close; ++j) {
        if (text[j] < '0' || text[j] > '9') return false;
        k = k * 10 + static_cast<uint32_t>(text[j] - '0');
      }
      if (k >= kMaxMovesOffered) return false;
      schedule->push_back(static_cast<uint8_t>(kFirstMove + k));
      i = close;
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace spsq_sched
