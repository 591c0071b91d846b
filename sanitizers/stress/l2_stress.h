// A duplex stress of an L2 endpoint under test against a wire-level L3 peer
// (sanitizers/interleave/l3_peer.h, written from the spec), one party per
// thread or process over one shared region. The endpoint is the
// certification config's SPSQ_CERT_ENDPOINT<View, SPSQ_CERT_MAX_INFLIGHT>,
// reached only through spsq_conf::EndpointAccess: the binding is the wire
// model's ten scalars, decoded by EndpointAccess::decode.
//
// L3 streams inputs then STOP (which races the outputs still in flight) and
// drains outputs; L2 holds up to MaxInflight inputs, answers each with one or
// two outputs (some ERROR), releases its batch newest first (out of order when
// MaxInflight > 1; with all inputs held and the window full it acquires STOP
// into the STOP slot first), then releases STOP and checks drained(). Both sides check
// every payload byte (payload_check.h), L3 also every descriptor's seq,
// opcode, size and offset (the arena rule). A party that fails raises the
// control page's flag so the other gives up at once instead of timing out;
// the only clock use is a hang guard: no progress for the stall time fails.
#ifndef SPSQ_SANITIZERS_STRESS_L2_STRESS_H_
#define SPSQ_SANITIZERS_STRESS_L2_STRESS_H_

#include <array>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "model/wire_model.h"
#include "sanitizers/interleave/l3_peer.h"
#include "sanitizers/stress/payload_check.h"
#include "sanitizers/stress/shared_region.h"
#include "sanitizers/stress/stress_plan.h"
#include "sanitizers/stress/stress_view.h"
#include "sanitizers/stress/traffic.h"
// The endpoint under test, endpoint_access.h and any adapter.
#include "spsq_cert/config.h"

#if __has_include("aicpu/region_instance_view.h")
// The endpoint's own view, when its config provides the contract header.
#include "aicpu/region_instance_view.h"
#define SPSQ_STRESS_HAS_OWN_VIEW 1
#else
#define SPSQ_STRESS_HAS_OWN_VIEW 0
#endif

namespace spsq_stress {

using Scalars = std::array<uint64_t, spsq_conf::wire::kScalarCount>;

inline StressView stress_view(const SharedRegion& r) {
  return StressView(r.payload(), r.layout().payload_bytes, r.counter(), r.layout().counter_bytes);
}

#if SPSQ_STRESS_HAS_OWN_VIEW
// The endpoint's RegionInstanceView over the region, built from its span type.
inline RegionInstanceView own_view(const SharedRegion& r) {
  using Span = std::decay_t<decltype(std::declval<RegionInstanceView&>().payload().span())>;
  Span payload{}, counter{};
  payload.base = reinterpret_cast<uint64_t>(r.payload());
  payload.logical_bytes = r.layout().payload_bytes;
  counter.base = reinterpret_cast<uint64_t>(r.counter());
  counter.logical_bytes = r.layout().counter_bytes;
  return RegionInstanceView(payload, counter);
}
#endif

inline constexpr uint64_t kWindow = SPSQ_CERT_MAX_INFLIGHT;
// Blocking calls wait in slices this long, so a failed peer is noticed soon.
inline constexpr uint64_t kSliceNs = 20000000;

// The L2 task body over `view`. Returns an empty string on success.
template <class View>
std::string run_l2(const Scalars& scalars, View view, const StressPlan& plan, Control& control) {
  using EP = SPSQ_CERT_ENDPOINT<View, kWindow>;
  using A = spsq_conf::EndpointAccess<EP>;
  using Handle = typename A::Handle;
  using Reservation = typename A::Reservation;
  typename A::Binding b{};
  if (!A::decode(scalars.data(), scalars.size(), &b)) return "L2: the binding did not decode";
  const auto q = std::make_unique<EP>(b, std::move(view), A::clock(&steady_now_ns));
  uint64_t next_input = 0, next_output = 0;
  uint64_t last_progress = steady_now_ns();
  auto fail = [&](const std::string& what) {
    control.abandoned.store(1);
    return "L2: " + what + " after " + std::to_string(next_input) + " inputs and " +
           std::to_string(next_output) + " outputs" +
           (q->live() ? std::string() : std::string(" [") + A::message(*q) + "]");
  };
  // A blocking call in slices: true once it succeeds; false with *why set when
  // the endpoint is poisoned, the peer gave up, or nothing moved for the stall.
  auto blocking = [&](auto&& call, const char* what, std::string* why,
                      const char* stalled = "(liveness)") {
    while (!call(kSliceNs)) {
      if (!q->live()) {
        *why = fail(std::string(what) + " poisoned the endpoint");
        return false;
      }
      if (control.abandoned.load() != 0) {
        *why = "L2: gave up, L3 failed";
        return false;
      }
      if (steady_now_ns() - last_progress > plan.stall_ns) {
        *why = fail(std::string(what) + " made no progress within the stall time " + stalled);
        return false;
      }
    }
    last_progress = steady_now_ns();
    return true;
  };
  if (!q->live()) return fail("endpoint not live after construction");
  std::vector<Handle> held;
  std::vector<uint64_t> held_index;
  bool stop = false;
  Handle stop_handle{};
  std::string why;
  while (!stop || !held.empty()) {
    // Acquire while the window has room, waiting only when it is empty.
    while (!stop && held.size() < kWindow) {
      Handle h{};
      if (held.empty()) {
        if (!blocking([&](uint64_t t) { return q->input().peek(t, h); }, "input peek", &why)) {
          return why;
        }
      } else if (!q->input().try_peek(h)) {
        if (!q->live()) return fail("input try_peek poisoned the endpoint");
        break;
      }
      if (A::opcode(h) == spsq_conf::wire::kStop) {
        if (next_input != plan.messages) return fail("STOP before every input arrived");
        stop = true;
        stop_handle = h;
        break;
      }
      const uint64_t n = message_size(next_input, plan.input_arena);
      if (A::opcode(h) != spsq_conf::wire::kData || A::nbytes(h) != n) {
        return fail("input " + std::to_string(next_input) + " has opcode " +
                    std::to_string(A::opcode(h)) + " and " + std::to_string(A::nbytes(h)) +
                    " bytes, want DATA and " + std::to_string(n));
      }
      const std::string bad = check_payload(A::payload(h), n, kInputStream, next_input, "input");
      if (!bad.empty()) return fail(bad);
      held.push_back(h);
      held_index.push_back(next_input++);
    }
    // Every DATA input is held and the window is full: STOP, which L3 can
    // publish next (the ring has room when depth > MaxInflight), must still
    // be acquirable, into the extra STOP slot (spec section 4).
    if (!stop && next_input == plan.messages && held.size() == kWindow &&
        plan.depth > kWindow) {
      Handle h{};
      if (!blocking([&](uint64_t t) { return q->input().peek(t, h); },
                    "STOP peek with the window full", &why, "(STOP slot)")) {
        return why;
      }
      if (A::opcode(h) != spsq_conf::wire::kStop) {
        return fail("after the last DATA input, opcode " + std::to_string(A::opcode(h)) +
                    ", want STOP");
      }
      stop = true;
      stop_handle = h;
    }
    // Answer the batch newest first, then release it (out of order if > 1).
    while (!held.empty()) {
      const Handle h = held.back();
      const uint64_t index = held_index.back();
      const std::string bad =
          check_payload(A::payload(h), A::nbytes(h), kInputStream, index, "held input");
      if (!bad.empty()) return fail(bad + " (overwritten while held)");
      for (uint64_t k = 0; k < outputs_for(index); ++k) {
        const uint64_t n = message_size(next_output, plan.output_arena);
        Reservation r{};
        if (!blocking([&](uint64_t t) { return q->output().reserve(n, t, r); }, "output reserve",
                      &why)) {
          return why;
        }
        if (A::nbytes(r) != n) return fail("a reservation of " + std::to_string(n) + " bytes");
        fill_payload(A::payload(r), n, kOutputStream, next_output);
        const uint64_t op = output_is_error(next_output) ? spsq_conf::wire::kError
                                                         : spsq_conf::wire::kData;
        if (!q->output().publish(r, A::opcode_value(op))) return fail("publish failed");
        ++next_output;
      }
      if (!q->input().release(h)) return fail("input release failed");
      held.pop_back();
      held_index.pop_back();
    }
  }
  if (!q->input().release(stop_handle)) return fail("STOP release failed");
  if (!q->input().drained()) return fail("drained() is false after STOP was released");
  if (!q->live()) return fail("endpoint poisoned at the end");
  return std::string();
}

// The L3 side: the wire-level peer over the harness's own view.
inline std::string run_l3(const SharedRegion& region, const StressPlan& plan) {
  Control& control = region.control();
  spsq_sched::WireLayout l;
  if (!spsq_sched::WireLayout::from_model(plan.depth, plan.input_arena, plan.output_arena, &l)) {
    return "L3: the wire model rejects the layout";
  }
  spsq_sched::BasicL3Peer<StressView> peer(stress_view(region), l);
  using Result = spsq_sched::BasicL3Peer<StressView>::Result;
  const uint64_t want_outputs = total_outputs(plan.messages);
  std::vector<uint8_t> in(plan.input_arena);
  uint64_t sent = 0, received = 0;
  bool stop_sent = false;
  auto fail = [&](const std::string& what) {
    control.abandoned.store(1);
    return "L3: " + what + " after " + std::to_string(sent) + " inputs and " +
           std::to_string(received) + " outputs";
  };
  uint64_t idle_polls = 0, idle_since = 0;
  while (!stop_sent || received < want_outputs) {
    bool progress = false;
    if (!stop_sent) {
      const bool stop = sent == plan.messages;
      const uint64_t n = stop ? 0 : message_size(sent, plan.input_arena);
      if (!stop) fill_payload(in.data(), n, kInputStream, sent);
      const Result r = stop ? peer.try_send(spsq_conf::wire::kStop, nullptr, 0)
                            : peer.try_send(spsq_conf::wire::kData, in.data(), n);
      if (r == Result::FAILED) return fail("send: " + peer.error());
      if (r == Result::OK) {
        progress = true;
        if (stop) {
          stop_sent = true;
        } else {
          ++sent;
        }
      }
    }
    typename spsq_sched::BasicL3Peer<StressView>::Message m;
    const Result r = peer.try_receive(&m);
    if (r == Result::FAILED) return fail("receive: " + peer.error());
    if (r == Result::OK) {
      if (received == want_outputs) return fail("an output beyond the last one");
      const uint64_t n = message_size(received, plan.output_arena);
      const uint64_t want_op =
          output_is_error(received) ? spsq_conf::wire::kError : spsq_conf::wire::kData;
      if (m.opcode != want_op || m.nbytes != n) {
        return fail("output " + std::to_string(received) + " has opcode " +
                    std::to_string(m.opcode) + " and " + std::to_string(m.nbytes) +
                    " bytes, want " + std::to_string(want_op) + " and " + std::to_string(n));
      }
      const std::string bad = check_payload(m.bytes.data(), n, kOutputStream, received, "output");
      if (!bad.empty()) return fail(bad);
      if (peer.release() != Result::OK) return fail("release: " + peer.error());
      ++received;
      progress = true;
    }
    if (progress) {
      idle_polls = 0;
      continue;
    }
    if (control.abandoned.load() != 0) return "L3: gave up, L2 failed";
    std::this_thread::yield();
    if (idle_polls++ % 1024 != 0) continue;  // read the clock now and then only
    const uint64_t now = steady_now_ns();
    if (idle_polls == 1) idle_since = now;
    // Twice L2's stall time: when both wait, L2 (which knows what it waits
    // for) reports first.
    if (now - idle_since > 2 * plan.stall_ns) {
      return fail(std::string("no progress within the stall time (liveness)") +
                  (stop_sent ? ", STOP sent" : ""));
    }
  }
  if (peer.flag(spsq_conf::wire::kPeerFlag) != 0) return fail("L2 raised its abort flag");
  return std::string();
}

}  // namespace spsq_stress

#endif  // SPSQ_SANITIZERS_STRESS_L2_STRESS_H_
