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

void Run::point() {
  std::unique_lock<std::mutex> lock(mu_);
  if (failed_) throw Stop{};
  check_budget();
  const int me = current_;
  const int other = 1 - me;
  if (done_[other]) return;  // nothing to interleave with
  const size_t index = trace_->size();
  const bool allowed = preemptions_ < options_->preemption_bound;
  uint8_t decision = 0;
  if (index < prefix_->size()) decision = (*prefix_)[index];
  if (!allowed) decision = 0;
  trace_->push_back(decision);
  can_preempt_->push_back(allowed && decision == 0);
  if (decision == 1) {
    ++preemptions_;
    switch_to(other, lock);
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
                      std::vector<bool>* can_preempt) {
  Scenario scenario = factory();
  Run run;
  run.prefix_ = &prefix;
  run.trace_ = trace;
  run.can_preempt_ = can_preempt;
  run.options_ = &options;
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
  if (r.failed) r.schedule = *trace;
  return r;
}

ExploreResult explore(const std::function<Scenario()>& factory, const ExploreOptions& options) {
  ExploreResult total;
  std::vector<uint8_t> prefix;
  for (;;) {
    if (total.schedules >= options.max_schedules) {
      total.exhausted = false;
      return total;
    }
    std::vector<uint8_t> trace;
    std::vector<bool> can_preempt;
    ExploreResult one = run_one(factory, prefix, options, &trace, &can_preempt);
    ++total.schedules;
    if (trace.size() > total.max_choice_points) total.max_choice_points = trace.size();
    if (one.failed) {
      total.failed = true;
      total.failure = one.failure;
      total.schedule = one.schedule;
      return total;
    }
    // Backtrack: the deepest choice point that stayed but could have switched.
    size_t i = trace.size();
    while (i > 0 && !can_preempt[i - 1]) --i;
    if (i == 0) return total;
    prefix.assign(trace.begin(), trace.begin() + (i - 1));
    prefix.push_back(1);
  }
}

ExploreResult replay(const std::function<Scenario()>& factory, const std::vector<uint8_t>& schedule,
                     const ExploreOptions& options) {
  std::vector<uint8_t> trace;
  std::vector<bool> can_preempt;
  return run_one(factory, schedule, options, &trace, &can_preempt);
}

std::string schedule_to_string(const std::vector<uint8_t>& schedule) {
  std::string s;
  s.reserve(schedule.size());
  for (uint8_t d : schedule) s.push_back(d ? '1' : '0');
  return s;
}

bool schedule_from_string(const std::string& text, std::vector<uint8_t>* schedule) {
  schedule->clear();
  for (char c : text) {
    if (c != '0' && c != '1') return false;
    schedule->push_back(c == '1');
  }
  return true;
}

}  // namespace spsq_sched
