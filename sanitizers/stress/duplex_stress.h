// A duplex stress run: L3 (WorkerChipQueue) streams inputs and drains
// outputs at once; L2 (SpscQueueEndpoint<RegionInstanceView, W>) holds up to
// W inputs, answers each with one or two outputs (some ERROR), releases its
// batch newest first (out of order when W > 1), and drains STOP, which L3
// publishes while outputs are still in flight. Both sides check every byte.
// Progress is bounded by message counts; the only clock use is the timeout
// of blocking calls, which turns a deadlock into a failure instead of a hang.
#ifndef SPSQ_SANITIZERS_STRESS_DUPLEX_STRESS_H_
#define SPSQ_SANITIZERS_STRESS_DUPLEX_STRESS_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "aicpu/region_instance_view.h"
#include "common/region_template.h"
#include "l3/worker_chip_queue.h"
#include "runtime/l2_binding.h"
#include "sanitizers/stress/payload_check.h"
#include "sanitizers/stress/traffic.h"

namespace spsq_stress {

struct StressConfig {
  uint64_t depth;
  uint64_t input_arena;
  uint64_t output_arena;
  uint64_t messages;  // DATA inputs
};

// Blocking calls give up after this long without progress: a hang guard.
inline constexpr std::chrono::nanoseconds kStallTimeout = std::chrono::seconds(20);

inline uint64_t stress_now_ns() { return RegionInstanceView::steady_now_ns(); }

// The L2 task body. Returns an empty string on success.
template <uint64_t W>
std::string run_l2(const uint64_t* scalars, const StressConfig& cfg) {
  using spsc_queue::SpscQueueOpcode;
  spsc_queue::SpscQueueEndpointBinding b{};
  if (!spsc_queue::decode_endpoint_binding(scalars, 10, &b)) return "L2: binding decode failed";
  spsc_queue::SpscQueueEndpoint<RegionInstanceView, W> q(
      b, spsq_runtime::binding_view(b), spsc_queue::MonotonicClock{&stress_now_ns});
  if (!q.live()) return std::string("L2: endpoint not live: ") + q.error().message;
  const uint64_t stall = static_cast<uint64_t>(kStallTimeout.count());
  std::vector<spsc_queue::SpscQueueInputHandle> held;
  std::vector<uint64_t> held_index;
  uint64_t next_input = 0, next_output = 0;
  bool stop = false;
  spsc_queue::SpscQueueInputHandle stop_handle{};
  auto fail = [&](const std::string& what) {
    return "L2: " + what + (q.live() ? "" : std::string(" [") + q.error().message + "]");
  };
  while (!stop || !held.empty()) {
    // Acquire while the window has room, and always once it is empty.
    while (!stop && held.size() < W) {
      spsc_queue::SpscQueueInputHandle h{};
      const bool got = held.empty() ? q.input().peek(stall, h) : q.input().try_peek(h);
      if (!got) {
        if (!q.live() || held.empty()) return fail("input peek made no progress");
        break;
      }
      if (static_cast<uint64_t>(h.opcode) == static_cast<uint64_t>(SpscQueueOpcode::STOP)) {
        if (next_input != cfg.messages) return fail("STOP before every input arrived");
        stop = true;
        stop_handle = h;
        break;
      }
      const uint64_t n = message_size(next_input, cfg.input_arena);
      if (static_cast<uint64_t>(h.opcode) != static_cast<uint64_t>(SpscQueueOpcode::DATA) ||
          h.payload_nbytes != n) {
        return fail("input " + std::to_string(next_input) + " has opcode " +
                    std::to_string(static_cast<uint64_t>(h.opcode)) + " and " +
                    std::to_string(h.payload_nbytes) +
                    " bytes, want DATA and " + std::to_string(n));
      }
      const std::string bad =
          check_payload(spsc_queue::payload_data(h), n, kInputStream, next_input, "input");
      if (!bad.empty()) return fail(bad);
      held.push_back(h);
      held_index.push_back(next_input++);
    }
    // Answer the batch newest first, then release it (out of order for W > 1).
    while (!held.empty()) {
      const spsc_queue::SpscQueueInputHandle h = held.back();
      const uint64_t index = held_index.back();
      const std::string bad = check_payload(spsc_queue::payload_data(h), h.payload_nbytes,
                                            kInputStream, index,
                                            "held input");
      if (!bad.empty()) return fail(bad + " (overwritten while held)");
      for (uint64_t k = 0; k < outputs_for(index); ++k) {
        const uint64_t n = message_size(next_output, cfg.output_arena);
        spsc_queue::SpscQueueOutputReservation r{};
        if (!q.output().reserve(n, stall, r)) return fail("output reserve made no progress");
        fill_payload(spsc_queue::payload_data(r), n, kOutputStream, next_output);
        const SpscQueueOpcode op =
            output_is_error(next_output) ? SpscQueueOpcode::ERROR : SpscQueueOpcode::DATA;
        if (!q.output().publish(r, op)) return fail("publish failed");
        ++next_output;
      }
      if (!q.input().release(h)) return fail("input release failed");
      held.pop_back();
      held_index.pop_back();
    }
  }
  if (!q.input().release(stop_handle)) return fail("STOP release failed");
  if (!q.input().drained()) return fail("drained() is false after STOP was released");
  return std::string();
}

// The L3 side over an existing queue. Returns an empty string on success.
inline std::string run_l3(spsc_queue::WorkerChipQueue& q, const StressConfig& cfg) {
  using spsc_queue::WorkerChipQueueStatus;
  const uint64_t want_outputs = total_outputs(cfg.messages);
  std::vector<uint8_t> in(cfg.input_arena), out(cfg.output_arena);
  uint64_t sent = 0, received = 0;
  bool stop_sent = false;
  auto fail = [&](const std::string& what) {
    return "L3: " + what + (q.live() ? "" : std::string(" [") + q.error().message + "]");
  };
  // L3 cannot wait on both directions at once, so when neither moved it
  // yields and polls both again; idling for kStallTimeout is a hang.
  uint64_t idle_since_ns = 0;
  uint64_t idle_polls = 0;
  while (!stop_sent || received < want_outputs) {
    bool progress = false;
    if (sent < cfg.messages) {
      const uint64_t n = message_size(sent, cfg.input_arena);
      fill_payload(in.data(), n, kInputStream, sent);
      const void* buf = n ? in.data() : nullptr;
      const WorkerChipQueueStatus st = q.input().try_enqueue(buf, n);
      if (st == WorkerChipQueueStatus::OK) {
        ++sent;
        progress = true;
      } else if (st != WorkerChipQueueStatus::WOULD_BLOCK) {
        return fail("enqueue " + std::to_string(sent));
      }
    } else if (!stop_sent) {
      // STOP races the outputs L2 is still publishing.
      const WorkerChipQueueStatus st = q.input().try_request_stop();
      if (st == WorkerChipQueueStatus::OK) {
        stop_sent = true;
        progress = true;
      } else if (st != WorkerChipQueueStatus::WOULD_BLOCK) {
        return fail("request_stop");
      }
    }
    spsc_queue::WorkerChipMessage m{};
    const WorkerChipQueueStatus st = q.output().try_peek(&m);
    if (st == WorkerChipQueueStatus::OK) {
      const uint64_t n = message_size(received, cfg.output_arena);
      const uint64_t want_op = output_is_error(received) ? 3 : 1;
      if (static_cast<uint64_t>(m.opcode) != want_op || m.payload_nbytes != n) {
        return fail("output " + std::to_string(received) + " has opcode " +
                    std::to_string(static_cast<uint64_t>(m.opcode)) + " and " +
                    std::to_string(m.payload_nbytes) +
                    " bytes, want " + std::to_string(want_op) + " and " + std::to_string(n));
      }
      if (q.output().read_into(m, out.data(), out.size()) != WorkerChipQueueStatus::OK) {
        return fail("read_into");
      }
      const std::string bad = check_payload(out.data(), n, kOutputStream, received, "output");
      if (!bad.empty()) return fail(bad);
      if (q.output().release(m) != WorkerChipQueueStatus::OK) return fail("release");
      ++received;
      progress = true;
    } else if (st != WorkerChipQueueStatus::WOULD_BLOCK) {
      return fail(std::string("output peek: ") + spsc_queue::worker_chip_queue_status_name(st));
    }
    if (progress) {
      idle_polls = 0;
      continue;
    }
    std::this_thread::yield();
    if (idle_polls++ % 1024 != 0) continue;  // read the clock now and then only
    const uint64_t now = stress_now_ns();
    if (idle_polls == 1) idle_since_ns = now;
    if (now - idle_since_ns > static_cast<uint64_t>(kStallTimeout.count())) {
      return fail("no progress for " + std::to_string(kStallTimeout.count() / 1000000) +
                  " ms after " + std::to_string(sent) + " inputs and " +
                  std::to_string(received) + " outputs" + (stop_sent ? ", STOP sent" : ""));
    }
  }
  const WorkerChipQueueStatus after_stop = q.input().try_enqueue(nullptr, 0);
  if (after_stop != WorkerChipQueueStatus::REJECTED) {
    return fail(std::string("an input after STOP returned ") +
                spsc_queue::worker_chip_queue_status_name(after_stop) + ", want REJECTED: " +
                q.last_error().message);
  }
  if (!q.live()) return fail("queue poisoned at the end");
  return std::string();
}

}  // namespace spsq_stress

#endif  // SPSQ_SANITIZERS_STRESS_DUPLEX_STRESS_H_
