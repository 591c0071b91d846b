// Seeds for the L2 descriptor-stream harness: the traffic of real queue
// sessions (the spec's example flow, ping-pong across arena wrap, STOP
// drain), then the same sessions with one fault each.
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/fuzz_bytes.h"
#include "fuzz/l2_stream_input.h"
#include "fuzz/seedgen.h"

namespace spsq_fuzz {
namespace {

// A script in the harness's op encoding.
class L2Script {
 public:
  // max_inflight 1 or 4; depth index into the harness's table; arenas in 64-byte units (1..8).
  L2Script(bool window4, uint8_t depth_index, uint8_t in64, uint8_t out64, uint8_t salt = 3) {
    w_.u8(static_cast<uint8_t>((window4 ? 1 : 0) | (depth_index << 1) | (salt << 4)));
    w_.u8(static_cast<uint8_t>((in64 - 1) | ((out64 - 1) << 3)));
  }
  L2Script& send(uint16_t n) {
    op(kL3Send).u16(n);
    return *this;
  }
  L2Script& stop() {
    op(kL3Stop);
    return *this;
  }
  L2Script& consume() {
    op(kL3Consume);
    return *this;
  }
  L2Script& try_peek() {
    op(kL2TryPeek);
    return *this;
  }
  L2Script& peek(uint8_t timeout, bool send_while_waiting = false, uint16_t n = 0) {
    op(kL2Peek).u8(timeout).u8(send_while_waiting ? 1 : 0).u16(n);
    return *this;
  }
  L2Script& release(uint8_t which) {
    op(kL2Release).u8(which);
    return *this;
  }
  L2Script& try_reserve(uint16_t n) {
    op(kL2TryReserve).u16(n);
    return *this;
  }
  L2Script& reserve(uint16_t n, uint8_t timeout, bool consume_while_waiting = false) {
    op(kL2Reserve).u16(n).u8(timeout).u8(consume_while_waiting ? 1 : 0);
    return *this;
  }
  L2Script& publish(bool error = false) {
    op(kL2Publish).u8(error ? 1 : 0);
    return *this;
  }
  L2Script& misuse(L2Misuse v, uint8_t arg = 0) {
    op(kL2Misuse).u8(v).u8(arg);
    return *this;
  }
  L2Script& counter(uint8_t slot, uint8_t mode, uint32_t v) {
    op(kHostileCounter).u8(slot).u8(mode).u32(v);
    return *this;
  }
  L2Script& desc(uint8_t slot, uint8_t field, uint8_t mode, uint64_t v) {
    op(kHostileDesc).u8(slot).u8(field).u8(mode).u64(v);
    return *this;
  }
  L2Script& craft(uint8_t opcode, uint8_t off_mode, uint16_t n, uint8_t seq_mode) {
    op(kHostileCraft).u8(opcode).u8(off_mode).u16(n).u8(seq_mode);
    return *this;
  }
  L2Script& scribble(uint16_t off, uint8_t v) {
    op(kHostileScribble).u16(off).u8(v);
    return *this;
  }
  L2Script& abort_flag(uint32_t v) {
    op(kHostileAbort).u32(v);
    return *this;
  }
  L2Script& advance(uint16_t us) {
    op(kClockAdvance).u16(us);
    return *this;
  }
  L2Script& fault(uint8_t after) {
    op(kViewFault).u8(after);
    return *this;
  }
  // Extended ops (kL2Extended).
  L2Script& long_wait(bool reserve, bool peer_acts, uint16_t n, uint16_t v) {
    op(kL2Extended).u8(kExtLongWait).u8((reserve ? 1 : 0) | (peer_acts ? 2 : 0)).u16(n).u16(v);
    return *this;
  }
  L2Script& misuse_ext(L2Misuse v, uint8_t arg = 0) {
    op(kL2Extended).u8(kExtMisuse).u8(static_cast<uint8_t>(v - kL2MisuseCount)).u8(arg);
    return *this;
  }

  std::vector<uint8_t> bytes() const { return w_.bytes(); }

 private:
  FuzzWriter& op(L2Op k) { return w_.u8(k); }
  FuzzWriter w_;
};

// The spec's example: two DATA inputs, outputs for them (one input gives two
// outputs), two more inputs and STOP, released out of order, drained.
L2Script example_flow() {
  L2Script s(true, 0, 4, 4);  // MaxInflight 4, depth 4, 256-byte arenas
  s.send(24).send(40).try_peek().try_peek().release(1);
  s.try_reserve(32).publish().try_reserve(16).publish().release(0);
  s.consume().consume().try_reserve(48).publish().consume();
  s.send(24).send(8).stop().try_peek().try_peek().try_peek();
  s.try_reserve(64).publish().release(2).release(0).release(0).consume();
  return s;
}

}  // namespace

// Sessions that need the extended ops; l2_stream only (differential reads
// kL2Extended as a view fault).
void l2_stream_extended_seeds(std::vector<Seed>* out) {
  auto add = [&](const char* name, const L2Script& s) { out->push_back({name, s.bytes()}); };

  // "Wait forever": now + timeout passes the clock's end, so the deadline
  // saturates. The peer sends (or consumes) during the wait, or nobody does
  // and the wait runs to the end of the clock; later timed calls and clock
  // steps there must still behave (v = 65535 leaves the deadline unsaturated).
  add("long_wait_peek_peer_sends",
      L2Script(false, 2, 4, 4).long_wait(false, true, 24, 0).release(0).send(8).try_peek());
  add("long_wait_peek_peer_sends_window4",
      L2Script(true, 0, 4, 4).long_wait(false, true, 24, 0).release(0).send(8).try_peek());
  add("long_wait_peek_to_clock_end", L2Script(false, 2, 4, 4)
                                         .long_wait(false, false, 0, 0)
                                         .peek(5)
                                         .advance(9)
                                         .reserve(8, 3)
                                         .send(16)
                                         .try_peek()
                                         .release(0));
  add("long_wait_reserve_peer_consumes", L2Script(false, 0, 2, 2)
                                             .try_reserve(8)
                                             .publish()
                                             .long_wait(true, true, 64, 65535)
                                             .publish()
                                             .long_wait(true, false, 32, 1)
                                             .consume()
                                             .try_reserve(8));

  // Publish misuse the 6 misuse variants cannot name, and a forged release,
  // on a live endpoint after some traffic (as the misuse seeds above).
  struct Misuse {
    const char* name;
    L2Misuse v;
    uint8_t arg;
    bool active;  // a reservation is active when the misuse happens
  };
  const Misuse misuse[] = {
      {"misuse_publish_never_idle", kPublishNever, 0, false},
      {"misuse_publish_never_active", kPublishNever, 0, true},
      {"misuse_publish_forged_bigger", kPublishForgedSize, 7, true},
      {"misuse_publish_forged_smaller", kPublishForgedSize, 0x83, true},
      {"misuse_publish_foreign_idle", kPublishForeign, 8, false},
      {"misuse_publish_foreign_active", kPublishForeign, 4, true},
      {"misuse_release_seq_zero", kReleaseSeqZero, 1, true},
  };
  for (const Misuse& m : misuse) {
    L2Script s(true, 0, 2, 2);
    s.send(8).send(8).try_peek().try_peek().release(0).try_reserve(8).publish();
    if (m.active) s.try_reserve(4);
    s.misuse_ext(m.v, m.arg).try_peek().release(0);
    add(m.name, s);
  }
  // Another queue's first reservation while this queue's first is active:
  // the two agree in seq, offset and size, only the owner tells them apart.
  add("misuse_publish_foreign_twin",
      L2Script(true, 0, 2, 2).try_reserve(8).misuse_ext(kPublishForeign, 8).try_reserve(8));
  add("misuse_release_seq_zero_window1",
      L2Script(false, 2, 4, 4).send(8).try_peek().misuse_ext(kReleaseSeqZero).try_peek());
}

void l2_stream_seeds(std::vector<Seed>* out) {
  auto add = [&](const char* name, const L2Script& s) { out->push_back({name, s.bytes()}); };
  add("example_flow_window4", example_flow());

  // Ping-pong with one message in flight, wrapping both arenas many times.
  L2Script ping(false, 0, 2, 2);  // MaxInflight 1, depth 1, 128-byte arenas
  for (int i = 0; i < 24; ++i) {
    ping.send(static_cast<uint16_t>(40 + 13 * i)).try_peek();
    ping.try_reserve(static_cast<uint16_t>(24 + 7 * i)).publish(i % 5 == 4).release(0).consume();
  }
  add("ping_pong_arena_wrap", ping);

  // Blocking calls: the peer acts while L2 waits, then real timeouts.
  L2Script blocking(false, 2, 4, 1);  // depth 4, 64-byte output arena
  blocking.peek(9, true, 30).release(0).peek(5).peek(0);
  blocking.reserve(64, 3).publish().reserve(64, 7, true).publish().reserve(64, 2).reserve(65, 4);
  add("blocking_waits_and_timeouts", blocking);

  // Zero-byte messages, full window, STOP behind held DATA.
  L2Script window(true, 1, 1, 1);  // MaxInflight 4, depth 8, 64-byte arenas
  for (int i = 0; i < 6; ++i) window.send(0);
  window.stop();
  for (int i = 0; i < 7; ++i) window.try_peek();
  window.release(3).release(0).release(0).try_peek().release(1).release(0).release(0);
  add("zero_byte_window_stop_drain", window);

  // Hostile L3: one fault per seed, each after some honest traffic.
  struct Hostile {
    const char* name;
    void (*apply)(L2Script&);
  };
  const Hostile hostile[] = {
      {"hostile_seq_skip", [](L2Script& s) { s.craft(1, 0, 16, 2).try_peek(); }},
      {"hostile_seq_zero", [](L2Script& s) { s.craft(1, 0, 16, 3).try_peek(); }},
      {"hostile_opcode_error", [](L2Script& s) { s.craft(3, 0, 16, 0).try_peek(); }},
      {"hostile_opcode_invalid", [](L2Script& s) { s.craft(0, 0, 16, 0).try_peek(); }},
      {"hostile_stop_with_payload", [](L2Script& s) { s.craft(2, 0, 8, 0).try_peek(); }},
      {"hostile_replay_offset", [](L2Script& s) { s.craft(1, 0x81, 17, 0).try_peek(); }},
      {"hostile_offset_outside", [](L2Script& s) { s.craft(1, 2, 8, 0).try_peek(); }},
      {"hostile_payload_too_big", [](L2Script& s) { s.craft(1, 0, 320, 0).try_peek(); }},
      {"hostile_after_stop", [](L2Script& s) { s.stop().try_peek().craft(1, 0, 8, 0).try_peek(); }},
      {"hostile_tail_jump", [](L2Script& s) { s.counter(0, 0, 9).try_peek(); }},
      {"hostile_tail_back", [](L2Script& s) { s.counter(0, 1, 2).try_peek(); }},
      {"hostile_out_head_jump",
       [](L2Script& s) {
         for (int i = 0; i < 4; ++i) s.try_reserve(8).publish();
         s.counter(3, 0, 5).try_reserve(8);
       }},
      {"hostile_released_desc",
       [](L2Script& s) {
         s.desc(4, 2, 0, 8).try_reserve(60).publish().try_reserve(60).publish().try_reserve(200);
       }},
      {"hostile_abort_then_timeout", [](L2Script& s) { s.abort_flag(1).try_peek().peek(4); }},
      {"hostile_abort_negative", [](L2Script& s) { s.abort_flag(0xffffffffu).peek(4); }},
      {"hostile_scribble", [](L2Script& s) { s.send(16).scribble(3, 0xee).try_peek(); }},
      {"view_fault_on_publish", [](L2Script& s) { s.try_reserve(8).fault(2).publish(); }},
      {"view_fault_on_release", [](L2Script& s) { s.fault(0).release(0); }},
  };
  for (const Hostile& h : hostile) {
    L2Script s(false, 2, 4, 4);  // MaxInflight 1, depth 4, 256-byte arenas
    s.send(16).try_peek().try_reserve(24).publish().consume();
    h.apply(s);
    add(h.name, s);
  }

  // L2 misuse, each on a live endpoint.
  struct Misuse {
    const char* name;
    L2Misuse v;
  };
  const Misuse misuse[] = {
      {"misuse_release_stale", kReleaseStale},        {"misuse_release_bad_seq", kReleaseBadSeq},
      {"misuse_release_bad_owner", kReleaseBadOwner}, {"misuse_reserve_twice", kReserveTwice},
      {"misuse_publish_stale", kPublishStale},        {"misuse_publish_stop", kPublishBadOp},
  };
  for (const Misuse& m : misuse) {
    L2Script s(true, 0, 2, 2);
    s.send(8).send(8).try_peek().try_peek().release(0).try_reserve(8).publish().try_reserve(4);
    s.misuse(m.v).try_peek().release(0);
    add(m.name, s);
  }

  // Construction that must fail: MaxInflight 4 over depth 2, and bad bindings.
  add("bad_window_depth2", L2Script(true, 3, 1, 1).send(8).try_peek());
  for (uint8_t f = 0; f < 8; ++f) {
    FuzzWriter w;
    w.u8(0x04).u8(0xc0 | 0x09).u8(f).u8(kL3Send).u16(8).u8(kL2TryPeek);
    out->push_back({"bad_binding_" + std::to_string(f), w.bytes()});
  }
}

}  // namespace spsq_fuzz
