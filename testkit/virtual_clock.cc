#include "testkit/virtual_clock.h"

#include <map>
#include <utility>

namespace spsq_conf {
namespace {

struct ClockState {
  uint64_t now = VirtualClock::kDefaultStart;
  uint64_t reads = 0;
  uint64_t auto_step = 0;
  uint64_t next_id = 0;
  // (time, scheduling order) -> action
  std::map<std::pair<uint64_t, uint64_t>, std::function<void()>> actions;
};

ClockState& state() {
  static ClockState s;
  return s;
}

// Runs the earliest action if it is due at or before t. Time jumps to the
// action's own time first, so the action observes it.
bool run_one_due(uint64_t t) {
  ClockState& s = state();
  if (s.actions.empty()) return false;
  auto it = s.actions.begin();
  if (it->first.first > t) return false;
  if (it->first.first > s.now) s.now = it->first.first;
  std::function<void()> fn = std::move(it->second);
  s.actions.erase(it);
  fn();
  return true;
}

}  // namespace

uint64_t VirtualClock::now_ns() {
  ClockState& s = state();
  ++s.reads;
  if (s.auto_step != 0) advance_to(s.now + s.auto_step);
  return s.now;
}

void VirtualClock::reset(uint64_t start) {
  ClockState& s = state();
  s.now = start;
  s.reads = 0;
  s.auto_step = 0;
  s.next_id = 0;
  s.actions.clear();
}

uint64_t VirtualClock::peek() { return state().now; }

void VirtualClock::advance_to(uint64_t t) {
  while (run_one_due(t)) {
  }
  if (t > state().now) state().now = t;
}

void VirtualClock::advance_by(uint64_t d) {
  const uint64_t now = state().now;
  advance_to(now > ~uint64_t{0} - d ? ~uint64_t{0} : now + d);
}

void VirtualClock::at(uint64_t t, std::function<void()> fn) {
  ClockState& s = state();
  if (t < s.now) t = s.now;
  s.actions.emplace(std::make_pair(t, s.next_id++), std::move(fn));
}

void VirtualClock::after(uint64_t d, std::function<void()> fn) {
  const uint64_t now = state().now;
  at(now > ~uint64_t{0} - d ? ~uint64_t{0} : now + d, std::move(fn));
}

bool VirtualClock::run_next_before(uint64_t deadline) {
  ClockState& s = state();
  if (s.actions.empty() || s.actions.begin()->first.first > deadline) return false;
  const uint64_t t = s.actions.begin()->first.first;
  while (!s.actions.empty() && s.actions.begin()->first.first == t) run_one_due(t);
  return true;
}

size_t VirtualClock::pending() { return state().actions.size(); }

uint64_t VirtualClock::reads() { return state().reads; }

void VirtualClock::set_auto_advance(uint64_t step_ns) { state().auto_step = step_ns; }

}  // namespace spsq_conf
