#include "python/virtual_clock.h"

#include <atomic>

namespace spsq_python {
namespace {
std::atomic<uint64_t> g_now_ns{0};
}  // namespace

uint64_t virtual_clock_tick_ns() {
  return g_now_ns.fetch_add(kVirtualClockStepNs, std::memory_order_relaxed) + kVirtualClockStepNs;
}

uint64_t virtual_clock_peek_ns() { return g_now_ns.load(std::memory_order_relaxed); }

}  // namespace spsq_python
