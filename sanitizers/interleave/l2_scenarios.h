// Scenarios that run an L2 endpoint under test against the wire-level L3
// peer in lockstep. The endpoint is any template T<View, N> written to the
// RegionView contract, reached only through spsq_conf::EndpointAccess (the
// certification's adapter, if any, decides the names): the binding is the
// wire model's ten scalars, decoded by EndpointAccess::decode, and handles,
// reservations and opcodes are read and made through EndpointAccess.
//
// Each execution checks: FIFO and exactly-once delivery both ways (every
// payload carries a pattern derived from its index, re-checked before
// release so bytes overwritten while held are caught), capacity exactly
// depth on the output ring, STOP drain, and no poison on either side.
//
// An L2Variant puts the payload under the non-coherent model (visibility
// mode: see sched_view.h) and picks what the L2 code around the endpoint does
// with the bytes it is lent; the default is the plain use the certification
// stage judges every endpoint by, coherently.
#ifndef SPSQ_SANITIZERS_INTERLEAVE_L2_SCENARIOS_H_
#define SPSQ_SANITIZERS_INTERLEAVE_L2_SCENARIOS_H_

#include <array>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "model/wire_model.h"
#include "sanitizers/interleave/l3_peer.h"
#include "sanitizers/interleave/sched_view.h"
#include "sanitizers/interleave/scheduler.h"
// The endpoint's headers, then endpoint_access.h and any adapter.
#include "spsq_cert/config.h"

namespace spsq_sched {

struct L2ScenarioSpec {
  const char* name;
  uint64_t depth;
  uint64_t input_arena, output_arena;
  uint64_t messages;      // DATA inputs before STOP
  uint64_t input_bytes;   // per input
  uint64_t output_bytes;  // per output (one output per input)
  bool newest_first;      // release held inputs newest first (out of order)
  bool capacity_exact;    // the output arena never limits: ring-full means depth outstanding
};

// How the L2 code makes an output: the bytes go into the reservation through
// payload.local_addr.
enum class OutputFill {
  // Fill, publish: the endpoint makes the bytes visible (OPEN.FLUSH reading A).
  kFillThenPublish,
  // Fill, write the span in place through the L2 code's view (a flush),
  // publish: visible under either reading.
  kFillFlushThenPublish,
  // Broken: publish, then fill. No choice point lies between the tail and the
  // stores, so coherently the peer can never see the gap.
  kPublishThenFill,
};

struct L2Variant {
  bool visibility = false;  // the payload through the non-coherent model
  OutputFill fill = OutputFill::kFillThenPublish;
  // Broken: the L2 code zeroes each input it was lent before releasing it.
  // The peer never reads the input arena and an invalidate discards the dirty
  // line, so only a write-back at the wrong moment turns it into lost input.
  bool wipe_inputs = false;
};

// The explorer's peer: every shared access a choice point.
using L3Peer = BasicL3Peer<SchedView>;

inline uint8_t input_byte(uint64_t i, uint64_t j) {
  return static_cast<uint8_t>(i * 31 + j * 7 + 1);
}
inline uint8_t output_byte(uint64_t i, uint64_t j) {
  return static_cast<uint8_t>(i * 17 + j * 5 + 3);
}
inline bool is_error_output(uint64_t i) { return i % 3 == 2; }

inline uint64_t frozen_clock_ns() { return 1; }  // scenarios only use try_* calls

// The layout parts [at, at + n) overlaps, for naming cache lines.
inline std::string layout_parts(const WireLayout& l, uint64_t at, uint64_t n) {
  const struct {
    const char* name;
    uint64_t begin, bytes;
  } parts[] = {{"input ring", 0, l.out_ring},
               {"output ring", l.out_ring, l.out_ring},
               {"input arena", l.in_arena, l.in_bytes},
               {"output arena", l.out_arena, l.out_bytes}};
  std::string text;
  for (const auto& p : parts) {
    if (at < p.begin + p.bytes && p.begin < at + n) text += (text.empty() ? "" : " + ") +
                                                           std::string(p.name);
  }
  return text.empty() ? "padding" : text;
}

template <template <class, uint64_t> class Endpoint, uint64_t Window>
std::function<Scenario()> l2_scenario(const L2ScenarioSpec& spec,
                                      const L2Variant& variant = L2Variant{}) {
  using View = SchedView;
  using EP = Endpoint<View, Window>;
  using Access = spsq_conf::EndpointAccess<EP>;
  using Handle = typename Access::Handle;
  using Reservation = typename Access::Reservation;

  struct State {
    WireLayout layout;
    SchedRegion region;
    L3Peer peer;
    std::unique_ptr<EP> ep;
    uint64_t outputs_published = 0;
    bool drained = false;
    uint64_t received = 0;
    State(const WireLayout& l, bool visibility)
        : layout(l),
          region(l.payload_bytes, wire::kCounterBytes, visibility),
          peer(SchedView(&region, Side::kL3), l) {}
  };

  return [spec, variant]() {
    WireLayout layout;
    const bool valid = WireLayout::from_model(spec.depth, spec.input_arena, spec.output_arena,
                                              &layout);
    auto st = std::make_shared<State>(layout, variant.visibility);
    // The binding L3 hands over, in the wire model's scalar order.
    spsq_conf::wire::BindingFields fields;
    fields.session_instance_id_bits = 0x5eed;
    fields.transaction_id = 1;
    fields.payload_base = reinterpret_cast<uint64_t>(st->region.payload_base(Side::kL2));
    fields.payload_bytes = st->layout.payload_bytes;
    fields.counter_base = reinterpret_cast<uint64_t>(st->region.counter_base());
    fields.counter_bytes = wire::kCounterBytes;
    fields.depth = spec.depth;
    fields.input_arena_bytes = spec.input_arena;
    fields.output_arena_bytes = spec.output_arena;
    const auto scalars = spsq_conf::wire::binding_scalars(fields);
    Scenario s;
    if (variant.visibility) {
      st->region.part_name = [l = st->layout](uint64_t at, uint64_t n) {
        return layout_parts(l, at, n);
      };
      s.pending_moves = [st](uint64_t point) { return st->region.count_moves(point); };
      s.apply_move = [st](size_t k) { return st->region.apply_move(k); };
      s.explain = [st] { return st->region.explain(); };
      s.names[0] = "L3";
      s.names[1] = "L2";
      s.name_access = [l = st->layout](const char* what, uint64_t at, uint64_t n) {
        std::string text = std::string(what) + " [" + std::to_string(at) + ", +" +
                           std::to_string(n) + ")";
        if (std::strncmp(what, "payload", 7) == 0) text += " (" + layout_parts(l, at, n) + ")";
        return text;
      };
    }

    // Thread 0: the L3 peer sends inputs then STOP, and drains outputs.
    s.threads[0] = [st, spec, valid](Run& run) {
      st->region.run = &run;
      if (!valid) run.fail("the wire model rejects the scenario's layout");
      uint64_t sent = 0;
      bool stop_sent = false;
      std::vector<uint8_t> buf(spec.input_bytes);
      while (!(stop_sent && st->received == spec.messages)) {
        bool progress = false;
        if (!stop_sent) {
          for (uint64_t j = 0; j < spec.input_bytes; ++j) buf[j] = input_byte(sent, j);
          const bool stop = sent == spec.messages;
          const L3Peer::Result r =
              stop ? st->peer.try_send(wire::kStop, nullptr, 0)
                   : st->peer.try_send(wire::kData, buf.data(), spec.input_bytes);
          if (r == L3Peer::Result::FAILED) run.fail("L3 send: " + st->peer.error());
          if (r == L3Peer::Result::OK) {
            progress = true;
            if (stop) stop_sent = true; else ++sent;
          }
        }
        L3Peer::Message m;
        const L3Peer::Result r = st->peer.try_receive(&m);
        if (r == L3Peer::Result::FAILED) run.fail("L3 receive: " + st->peer.error());
        if (r == L3Peer::Result::OK) {
          const uint64_t i = st->received;
          const uint64_t want_op = is_error_output(i) ? wire::kError : wire::kData;
          if (static_cast<uint64_t>(m.opcode) != want_op || m.nbytes != spec.output_bytes) {
            run.fail("output " + std::to_string(i) + ": opcode " + std::to_string(m.opcode) +
                     ", " + std::to_string(m.nbytes) + " bytes");
          }
          for (uint64_t j = 0; j < m.nbytes; ++j) {
            if (m.bytes[j] != output_byte(i, j)) {
              run.fail("output " + std::to_string(i) + " byte " + std::to_string(j) +
                       " is " + std::to_string(m.bytes[j]) + ", want " +
                       std::to_string(output_byte(i, j)) + " (lost, reordered or torn)");
            }
          }
          if (st->peer.release() != L3Peer::Result::OK) run.fail("L3 release: " + st->peer.error());
          ++st->received;
          progress = true;
        }
        if (!progress) run.blocked();
      }
    };

    // Thread 1: the L2 endpoint holds up to Window inputs, answers each with
    // one output, releases in the chosen order, then drains STOP.
    s.threads[1] = [st, spec, scalars, variant](Run& run) {
      st->region.run = &run;
      typename Access::Binding binding{};
      if (!Access::decode(scalars.data(), scalars.size(), &binding)) {
        run.fail("the endpoint's decoder rejected a valid binding");
      }
      st->ep = std::make_unique<EP>(binding, View(&st->region),
                                    Access::clock(&frozen_clock_ns));
      EP& ep = *st->ep;
      auto die = [&](const std::string& what) {
        run.fail(what + ": " + std::string(Access::message(ep)));
      };
      if (!ep.live()) die("endpoint not live after construction");
      struct Held {
        Handle h;
        uint64_t index;
      };
      std::vector<Held> held;
      Handle stop{};
      bool stop_acquired = false;
      uint64_t acquired = 0;
      auto verify = [&](const Held& x) {
        if (Access::nbytes(x.h) != spec.input_bytes) die("input size changed");
        const uint8_t* bytes = Access::payload(x.h);
        for (uint64_t j = 0; j < spec.input_bytes; ++j) {
          if (bytes[j] != input_byte(x.index, j)) {
            run.fail("input " + std::to_string(x.index) + " byte " + std::to_string(j) + " is " +
                     std::to_string(bytes[j]) + ", want " +
                     std::to_string(input_byte(x.index, j)) + " (overwritten while held?)");
          }
        }
      };
      for (;;) {
        bool progress = false;
        bool peek_failed = false;
        if (!stop_acquired) {
          Handle h{};
          if (ep.input().try_peek(h)) {
            progress = true;
            if (Access::opcode(h) == wire::kStop) {
              stop = h;
              stop_acquired = true;
            } else {
              held.push_back(Held{h, acquired++});
              verify(held.back());
            }
          } else {
            if (!ep.live()) die("input try_peek poisoned");
            peek_failed = true;
          }
        }
        if (!held.empty() && (held.size() == Window || stop_acquired || peek_failed)) {
          const size_t pick = spec.newest_first ? held.size() - 1 : 0;
          const Held x = held[pick];
          verify(x);
          Reservation r{};
          // Outstanding outputs only fall while try_reserve runs (L3 may
          // release at any of its choice points), so the count before the call
          // is the most the endpoint can have seen: below depth, the ring had
          // room all along.
          const uint64_t outstanding = st->outputs_published - st->peer.outputs_released();
          if (!ep.output().try_reserve(spec.output_bytes, r)) {
            if (!ep.live()) die("output try_reserve poisoned");
            if (spec.capacity_exact && outstanding < spec.depth) {
              run.fail("output ring refused a message with " + std::to_string(outstanding) +
                       " outstanding; capacity must be exactly depth " +
                       std::to_string(spec.depth));
            }
            run.blocked();
            continue;
          }
          const uint64_t i = st->outputs_published;
          uint8_t* out = Access::payload(r);
          auto fill = [&] {
            for (uint64_t j = 0; j < spec.output_bytes; ++j) out[j] = output_byte(i, j);
          };
          if (variant.fill != OutputFill::kPublishThenFill) fill();
          if (variant.fill == OutputFill::kFillFlushThenPublish && spec.output_bytes != 0) {
            // The L2 code's own view of the region: the span it filled, written
            // in place, is flushed.
            View mine(&st->region, Side::kL2);
            const uint64_t offset =
                static_cast<uint64_t>(out - st->region.payload_base(Side::kL2));
            if (!mine.payload().write(offset, out, spec.output_bytes)) {
              run.fail("the L2 code's flush of its output failed");
            }
          }
          const auto op = Access::opcode_value(is_error_output(i) ? wire::kError : wire::kData);
          if (!ep.output().publish(r, op)) die("publish failed");
          ++st->outputs_published;
          if (variant.fill == OutputFill::kPublishThenFill) fill();
          if (variant.wipe_inputs && spec.input_bytes != 0) {
            std::memset(const_cast<uint8_t*>(Access::payload(x.h)), 0, spec.input_bytes);
          }
          if (!ep.input().release(x.h)) die("input release failed");
          held.erase(held.begin() + static_cast<std::ptrdiff_t>(pick));
          progress = true;
        }
        if (stop_acquired && held.empty()) {
          if (!ep.input().release(stop)) die("STOP release failed");
          if (!ep.input().drained()) run.fail("drained() is false after STOP was released");
          st->drained = true;
          return;
        }
        if (!progress) run.blocked();
      }
    };

    s.final_check = [st, spec]() -> std::string {
      if (!st->ep) return "the endpoint was never constructed";
      if (!st->ep->live()) return "endpoint poisoned: " + std::string(Access::message(*st->ep));
      if (!st->drained) return "endpoint never drained";
      if (st->received != spec.messages) return "L3 received " + std::to_string(st->received);
      if (st->peer.flag(wire::kPeerFlag) != 0) return "L2 raised its abort flag";
      return std::string();
    };
    return s;
  };
}

}  // namespace spsq_sched

#endif  // SPSQ_SANITIZERS_INTERLEAVE_L2_SCENARIOS_H_
