// Seeds for the L3 output-stream harness: real sessions seen from L3
// (enqueue, outputs, STOP, dequeue), then the same sessions with one fault each.
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/fuzz_bytes.h"
#include "fuzz/l3_stream_input.h"
#include "fuzz/seedgen.h"

namespace spsq_fuzz {
namespace {

class L3Script {
 public:
  // depth 1 << depth_shift; arenas in 64-byte units (1..8).
  L3Script(uint8_t depth_shift, uint8_t in64, uint8_t out64, uint8_t salt = 5) {
    w_.u8(static_cast<uint8_t>(depth_shift | (salt << 4)));
    w_.u8(static_cast<uint8_t>((in64 - 1) | ((out64 - 1) << 3)));
  }
  L3Script& take() { return op(kL2Take); }
  L3Script& put(uint16_t n, bool error = false) {
    op(kL2Put);
    w_.u16(n).u8(error ? 1 : 0);
    return *this;
  }
  L3Script& try_enqueue(uint16_t n) {
    op(kL3TryEnqueue);
    w_.u16(n);
    return *this;
  }
  L3Script& enqueue(uint16_t n, uint8_t timeout, bool take_while_waiting = false) {
    op(kL3Enqueue);
    w_.u16(n).u8(timeout).u8(take_while_waiting ? 1 : 0);
    return *this;
  }
  L3Script& try_stop() { return op(kL3TryStop); }
  L3Script& stop(uint8_t timeout, bool take_while_waiting = false) {
    op(kL3Stop);
    w_.u8(timeout).u8(take_while_waiting ? 1 : 0);
    return *this;
  }
  L3Script& try_peek() { return op(kL3TryPeek); }
  L3Script& peek(uint8_t timeout, bool put_while_waiting = false, uint16_t n = 0) {
    op(kL3Peek);
    w_.u8(timeout).u8(put_while_waiting ? 1 : 0).u16(n);
    return *this;
  }
  L3Script& read(uint8_t mode) {
    op(kL3Read);
    w_.u8(mode);
    return *this;
  }
  L3Script& release() { return op(kL3Release); }
  L3Script& dequeue() { return op(kL3Dequeue); }
  L3Script& misuse(L3Misuse v, uint8_t arg = 0) {
    op(kL3Misuse);
    w_.u8(v).u8(arg);
    return *this;
  }
  L3Script& counter(uint8_t slot, uint8_t mode, uint32_t v) {
    op(kL3HostileCounter);
    w_.u8(slot).u8(mode).u32(v);
    return *this;
  }
  L3Script& desc(uint8_t slot, uint8_t field, uint8_t mode, uint64_t v) {
    op(kL3HostileDesc);
    w_.u8(slot).u8(field).u8(mode).u64(v);
    return *this;
  }
  L3Script& craft(uint8_t opcode, uint8_t off_mode, uint16_t n, uint8_t seq_mode) {
    op(kL3HostileCraft);
    w_.u8(opcode).u8(off_mode).u16(n).u8(seq_mode);
    return *this;
  }
  L3Script& scribble(uint16_t off, uint8_t v) {
    op(kL3HostileScribble);
    w_.u16(off).u8(v);
    return *this;
  }
  L3Script& abort_flag(uint32_t v) {
    op(kL3HostileAbort);
    w_.u32(v);
    return *this;
  }
  L3Script& fault(uint8_t after) {
    op(kL3ViewFault);
    w_.u8(after);
    return *this;
  }
  L3Script& free_queue() { return op(kL3Free); }

  std::vector<uint8_t> bytes() const { return w_.bytes(); }

 private:
  L3Script& op(L3Op k) {
    w_.u8(k);
    return *this;
  }
  FuzzWriter w_;
};

}  // namespace

void l3_stream_seeds(std::vector<Seed>* out) {
  auto add = [&](const std::string& name, const L3Script& s) { out->push_back({name, s.bytes()}); };

  // The spec's example from L3: two inputs, outputs drained, two more, STOP.
  L3Script example(2, 4, 4);  // depth 4, 256-byte arenas
  example.try_enqueue(24).try_enqueue(40).take().take().put(32).put(16);
  example.try_peek().read(0).release().dequeue().put(48).dequeue();
  example.try_enqueue(24).try_enqueue(8).try_stop().take().take().take().put(64).dequeue();
  example.try_enqueue(8).try_peek();
  add("example_flow", example);

  // One message in flight, wrapping both arenas.
  L3Script ping(0, 2, 2);  // depth 1, 128-byte arenas
  for (int i = 0; i < 24; ++i) {
    ping.try_enqueue(static_cast<uint16_t>(40 + 13 * i)).take();
    ping.put(static_cast<uint16_t>(24 + 7 * i), i % 5 == 4).try_peek().read(i % 4 == 1 ? 1 : 0);
    ping.release();
  }
  add("ping_pong_arena_wrap", ping);

  // Blocking calls: the peer acts while L3 waits, then real timeouts.
  L3Script blocking(1, 1, 4);  // depth 2, 64-byte input arena
  blocking.enqueue(64, 3).enqueue(64, 5, true).enqueue(64, 2).peek(4, true, 20).release();
  blocking.peek(6).peek(0).stop(3, true).stop(2);
  add("blocking_waits_and_timeouts", blocking);

  // Usage errors never poison; reads with small and null buffers.
  L3Script usage(2, 1, 1);
  usage.put(16).try_peek().read(2).read(3).read(1).release().put(0).try_peek().read(3).release();
  usage.misuse(kL3NullBuffer).misuse(kL3TooBig, 3).misuse(kL3BadTimeout, 4);
  usage.misuse(kL3BadTimeout, 5).try_stop().try_enqueue(8).try_stop();
  add("usage_errors", usage);

  const struct {
    const char* name;
    void (*apply)(L3Script&);
  } faults[] = {
      {"hostile_seq_skip", [](L3Script& s) { s.craft(1, 0, 16, 2).try_peek(); }},
      {"hostile_opcode_stop", [](L3Script& s) { s.craft(2, 0, 0, 0).try_peek(); }},
      {"hostile_opcode_invalid", [](L3Script& s) { s.craft(0, 0, 16, 0).try_peek(); }},
      {"hostile_replay_offset", [](L3Script& s) { s.craft(1, 0x81, 17, 0).try_peek(); }},
      {"hostile_offset_outside", [](L3Script& s) { s.craft(1, 2, 8, 0).try_peek(); }},
      {"hostile_zero_byte_offset", [](L3Script& s) { s.craft(3, 3, 0, 0).try_peek(); }},
      {"hostile_tail_jump", [](L3Script& s) { s.counter(2, 0, 9).try_peek(); }},
      {"hostile_in_head_jump",
       [](L3Script& s) {
         for (int i = 0; i < 4; ++i) s.try_enqueue(8);
         s.counter(1, 0, 5).try_enqueue(8);
       }},
      {"hostile_released_input_desc",
       [](L3Script& s) {
         s.desc(0, 2, 0, 8).try_enqueue(60).take().try_enqueue(200).try_enqueue(200);
       }},
      {"hostile_abort_then_timeout", [](L3Script& s) { s.abort_flag(1).try_peek().peek(4); }},
      {"hostile_scribble", [](L3Script& s) { s.put(16).scribble(3, 0xee).try_peek().read(0); }},
      {"view_fault_on_enqueue", [](L3Script& s) { s.fault(2).try_enqueue(8); }},
      {"misuse_release_stale", [](L3Script& s) { s.misuse(kL3ReleaseStale); }},
      {"misuse_read_stale", [](L3Script& s) { s.misuse(kL3ReadStale); }},
      {"misuse_release_bad_seq", [](L3Script& s) { s.put(8).try_peek().misuse(kL3ReleaseBadSeq); }},
      {"free_then_calls", [](L3Script& s) { s.free_queue().try_enqueue(8).try_peek().take(); }},
  };
  for (const auto& f : faults) {
    L3Script s(2, 4, 4);  // depth 4, 256-byte arenas
    s.try_enqueue(16).take().put(24).try_peek().read(0).release();
    f.apply(s);
    add(f.name, s);
  }

  for (uint8_t f = 0; f < 6; ++f) {
    FuzzWriter w;
    w.u8(0x02).u8(0xc0 | 0x09).u8(f).u8(kL3TryEnqueue).u16(8).u8(kL3TryPeek);
    out->push_back({"bad_binding_" + std::to_string(f), w.bytes()});
  }
}

}  // namespace spsq_fuzz
