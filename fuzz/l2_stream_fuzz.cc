// Harness 4: the L2 descriptor stream. The fuzzer plays the L3 side of one
// queue against the reference L2 endpoint (SpscQueueEndpoint<FuzzView, N>,
// N = 1 and 4): an honest L3 that enqueues, stops and consumes outputs, the
// same L3 turned hostile (counter values, descriptor bytes, crafted
// descriptors, payload scribbles, the abort flag), and the L2 code calling
// the endpoint (peek, release in any order, reserve, publish, misuse,
// timeouts on a virtual clock), interleaved as the input says.
//
// Input: fuzz/l2_stream_input.h. After every step (fuzz/README.md lists them):
//   - the view saw no access outside the spans or outside L2's regions;
//   - poison is sticky and first-error-wins, and a dead endpoint touches nothing;
//   - the abort flag is raised exactly once, and only for local poison;
//   - every new error is one the step can explain;
//   - a handle never exposes bytes outside its arena and obeys the arena rule;
//   - head moves one step per physical release and never passes what was acquired;
//   - the output tail moves one step per publish, in the contract's publish order;
//   - where the harness can predict the endpoint (its L3 was honest about the
//     counters involved), try_peek / try_reserve do exactly what the model says;
//   - while everyone is honest nothing poisons, and every message arrives
//     byte-exact, in order, in both directions.
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "common/region_template.h"
#include "fuzz/fuzz_bytes.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/fuzz_clock.h"
#include "fuzz/fuzz_region.h"
#include "fuzz/fuzz_view.h"
#include "fuzz/hostile_peer.h"
#include "fuzz/l2_stream_input.h"
#include "fuzz/wire_model.h"

namespace spsq_fuzz {
namespace {

using spsc_queue::SpscQueueError;
using spsc_queue::SpscQueueErrorKind;
using spsc_queue::SpscQueueInputHandle;
using spsc_queue::SpscQueueOpcode;
using spsc_queue::SpscQueueOp;
using spsc_queue::SpscQueueOutputReservation;

constexpr int kMaxOps = 2048;

// SPSQ_FUZZ_TRACE=1 prints every step (for reading a crash reproducer).
bool tracing() {
  static const bool on = std::getenv("SPSQ_FUZZ_TRACE") != nullptr;
  return on;
}

const char* const kOpNames[kL2OpCount] = {
    "l3_send",         "l3_stop",        "l3_consume",    "l2_try_peek",      "l2_peek",
    "l2_release",      "l2_try_reserve", "l2_reserve",    "l2_publish",       "l2_misuse",
    "hostile_counter", "hostile_desc",   "hostile_craft", "hostile_scribble", "hostile_abort",
    "clock_advance",   "view_fault"};
constexpr uint64_t kSession = 0x5e55000000000042ull;
constexpr uint64_t kTxn = 7;

struct Config {
  uint64_t max_inflight, depth, in, out, salt;
  bool half_waits;
  int binding_fault;  // -1: none
};

Config parse_config(FuzzReader& in) {
  Config c;
  const uint8_t a = in.u8(), b = in.u8();
  c.max_inflight = (a & 1) ? 4 : 1;
  static constexpr uint64_t kDepth1[4] = {1, 2, 4, 8}, kDepth4[4] = {4, 8, 16, 2};
  c.depth = (c.max_inflight == 1 ? kDepth1 : kDepth4)[(a >> 1) & 3];
  c.half_waits = (a >> 3) & 1;
  c.salt = a >> 4;
  c.in = 64 * (1 + (b & 7));
  c.out = 64 * (1 + ((b >> 3) & 7));
  c.binding_fault = (b >> 6) == 3 ? in.u8() % 8 : -1;
  return c;
}

bool local_poison(SpscQueueErrorKind k) {
  return k == SpscQueueErrorKind::INVALID_DESCRIPTOR || k == SpscQueueErrorKind::OWNERSHIP ||
         k == SpscQueueErrorKind::ENDPOINT_ERROR || k == SpscQueueErrorKind::BAD_ARGUMENT;
}

SPSQ_FUZZ_NO_COVERAGE bool same_error(const SpscQueueError& a, const SpscQueueError& b) {
  return a.kind == b.kind && a.op == b.op && a.has_identity() == b.has_identity() &&
         a.session_instance_id_bits == b.session_instance_id_bits &&
         a.transaction_id == b.transaction_id && std::strcmp(a.message, b.message) == 0;
}

// What the model expects of the next try_peek.
enum class PeekExpect { NOTHING, ACQUIRE, POISON, POISON_OR_NOTHING };

template <uint64_t MI>
class L2Stream {
 public:
  // The shared hostile peer applies its edits through the private hooks below.
  template <class Harness>
  friend void spsq_fuzz::run_hostile_edit(Harness& h, uint8_t which, FuzzReader& in);

  using Endpoint = spsc_queue::SpscQueueEndpoint<FuzzView, MI>;

  explicit L2Stream(const Config& c)
      : cfg_(c),
        region_(c.depth, c.in, c.out),
        lay_(region_.layout()),
        ep_(binding(), FuzzView(&region_, &init_view()), clock()) {
    check_construction();
  }

  void run(FuzzReader& in) {
    for (int n = 0; n < kMaxOps && !in.empty(); ++n) {
      const uint8_t kind = in.u8() % kL2OpCount;
      begin_step();
      step(kind, in);
      if (tracing()) trace(kind);
      end_step(kind);
    }
  }

 private:
  struct Sent {  // one input message as the harness's L3 published it
    uint64_t opcode, offset, nbytes;
    bool crafted;
  };
  struct Held {
    SpscQueueInputHandle h;
    uint64_t k;
  };

  FuzzViewState& init_view() {
    vs_.role = FuzzRole::L2;
    vs_.half_waits = cfg_.half_waits;
    if (cfg_.binding_fault == 7) {  // the mapping was already gone
      vs_.failed = true;
      std::snprintf(vs_.error.message, sizeof(vs_.error.message), "view failed before use");
    }
    return vs_;
  }

  // Fault 6: L2 code forgot the clock.
  spsc_queue::MonotonicClock clock() const {
    return cfg_.binding_fault == 6 ? spsc_queue::MonotonicClock{} : FuzzClock::clock();
  }

  spsc_queue::SpscQueueEndpointBinding binding() const {
    spsc_queue::SpscQueueEndpointBinding b = region_.binding(kSession, kTxn);
    switch (cfg_.binding_fault) {
      case 0:
        b.payload_bytes += 64;
        break;
      case 1:
        b.transaction_id = 0;
        break;
      case 2:
        b.magic_version += 1;
        break;
      case 3:
        b.depth *= 2;
        break;
      case 4:
        b.counter_bytes = 320;
        break;
      case 5:
        b.input_arena_bytes += 1;
        break;
      default:
        break;
    }
    return b;
  }

  // ------------------------------------------------------------ construction

  SPSQ_FUZZ_NO_COVERAGE void check_construction() {
    const SpscQueueError& e = ep_.error();
    SPSQ_FUZZ_CHECK(vs_.calls == 0, "construction made %" PRIu64 " shared accesses", vs_.calls);
    SPSQ_FUZZ_CHECK(vs_.own_flag_writes == 0, "construction raised the abort flag");
    const bool bad_binding = cfg_.binding_fault >= 0;
    const bool bad_window = MI > cfg_.depth;
    if (!bad_binding && !bad_window) {
      SPSQ_FUZZ_CHECK(ep_.live() && e.kind == SpscQueueErrorKind::NONE,
                      "valid construction failed: %s", e.message);
      const spsc_queue::SpscQueueLayout& l = ep_.layout();
      SPSQ_FUZZ_CHECK(l.depth == lay_.depth && l.output_desc_offset == lay_.output_ring &&
                          l.input_arena_offset == lay_.input_arena &&
                          l.output_arena_offset == lay_.output_arena &&
                          l.payload_bytes == lay_.payload_bytes,
                      "layout() differs from the contract");
      live_ok_ = true;
      return;
    }
    SPSQ_FUZZ_CHECK(!ep_.live(), "construction with a bad %s is live",
                    bad_binding ? "binding" : "MaxInflight");
    SPSQ_FUZZ_CHECK(e.op == SpscQueueOp::INIT, "construction error op %u",
                    static_cast<unsigned>(e.op));
    // Faults 0-5 break the binding, 6 the clock, 7 the view; a window wider than
    // depth is BAD_ARGUMENT. With two problems either report is right.
    SpscQueueErrorKind want = SpscQueueErrorKind::BAD_ARGUMENT;
    if (cfg_.binding_fault == 7) want = SpscQueueErrorKind::ENDPOINT_ERROR;
    if (cfg_.binding_fault >= 0 && cfg_.binding_fault < 6) want = SpscQueueErrorKind::BAD_BINDING;
    SPSQ_FUZZ_CHECK(e.kind == want || (bad_window && e.kind == SpscQueueErrorKind::BAD_ARGUMENT),
                    "construction fault %d (window %d) gave kind %u: %s", cfg_.binding_fault,
                    bad_window, static_cast<unsigned>(e.kind), e.message);
    // Identity is reported only once magic and transaction id were accepted.
    const bool identity = cfg_.binding_fault != 1 && cfg_.binding_fault != 2;
    SPSQ_FUZZ_CHECK(e.has_identity() == identity, "identity %d on construction error",
                    e.has_identity());
    SPSQ_FUZZ_CHECK(
        !identity || (e.session_instance_id_bits == kSession && e.transaction_id == kTxn),
        "wrong identity on construction error");
    SPSQ_FUZZ_CHECK(e.message[0] != '\0', "construction error without a message");
  }

  // ------------------------------------------------------------ steps

  void begin_step() {
    vs_.begin_step();
    live_before_ = ep_.live();
    err_before_ = ep_.error();
    calls_before_ = vs_.calls;
    misuse_step_ = false;
  }

  void step(uint8_t kind, FuzzReader& in) {
    switch (kind) {
      case kL3Send:
        l3_send(in.u16() % (cfg_.in + 1), kOpData);
        break;
      case kL3Stop:
        l3_send(0, kOpStop);
        break;
      case kL3Consume:
        l3_consume();
        break;
      case kL2TryPeek:
        l2_peek(0, false, 0, /*blocking=*/false);
        break;
      case kL2Peek: {
        const uint64_t t = in.u8() * 997ull;
        const bool hook = in.u8() & 1;
        l2_peek(t, hook, in.u16() % (cfg_.in + 1), /*blocking=*/true);
        break;
      }
      case kL2Release:
        l2_release(in.u8());
        break;
      case kL2TryReserve:
        l2_reserve(in.u16() % (cfg_.out + 65), 0, false, false);
        break;
      case kL2Reserve: {
        const uint64_t n = in.u16() % (cfg_.out + 65);
        const uint64_t t = in.u8() * 997ull;
        l2_reserve(n, t, in.u8() & 1, /*blocking=*/true);
        break;
      }
      case kL2Publish:
        l2_publish((in.u8() & 1) ? kOpError : kOpData);
        break;
      case kL2Misuse: {
        const uint8_t v = in.u8() % kL2MisuseCount;
        l2_misuse(v, in.u8());
        break;
      }
      case kHostileCounter:
      case kHostileDesc:
      case kHostileCraft:
        run_hostile_edit(*this, static_cast<uint8_t>(kind - kHostileCounter), in);
        break;
      case kHostileScribble: {
        const uint16_t off = in.u16();
        hostile_scribble(off, in.u8());
        break;
      }
      case kHostileAbort:
        hostile_ = true;
        region_.set_counter(kInitiatorAbort, static_cast<int32_t>(in.u32()));
        break;
      case kClockAdvance:
        FuzzClock::advance(in.u16() * 1000ull);
        break;
      case kViewFault:
        vs_.fault_in = 1 + in.u8() % 8;
        fault_ = true;
        break;
    }
  }

  // ------------------------------------------------------------ honest L3

  // Enqueues one message if the ring and the arena have room, as an honest
  // producer that only knows the head counter L2 publishes.
  bool l3_send(uint64_t n, uint64_t opcode) {
    if (stop_sent_) return false;
    uint64_t head = 0;
    if (!reconstruct(l3_head_, region_.counter(kInputHead), lay_.depth, &head) || head > l3_pub_) {
      SPSQ_FUZZ_CHECK(input_counters_tampered_,
                      "L2's input head %d is impossible (known %" PRIu64 ", published %" PRIu64 ")",
                      region_.counter(kInputHead), l3_head_, l3_pub_);
      return false;
    }
    l3_head_ = head;
    const uint64_t released_cursor = l3_head_ == 0 ? 0 : cursor_after_[l3_head_ - 1];
    const Placement p = place(l3_cursor_, n, lay_.input_arena, lay_.input_arena_bytes);
    if (!has_room(l3_pub_, l3_head_, lay_.depth, l3_cursor_, released_cursor, p, n,
                  lay_.input_arena_bytes)) {
      return false;
    }
    const uint64_t seq = l3_pub_ + 1;
    for (uint64_t i = 0; i < n; ++i)
      region_.payload()[p.offset + i] = pattern_byte(cfg_.salt, seq, i);
    publish_input(ModelDesc{seq, opcode, p.offset, n});
    sent_.push_back(Sent{opcode, p.offset, n, false});
    cursor_after_.push_back(p.next);
    l3_cursor_ = p.next;
    if (opcode == kOpStop) stop_sent_ = true;
    return true;
  }

  // Descriptor bytes 8..31, then seq, then the tail counter.
  void publish_input(const ModelDesc& d) {
    uint8_t* slot = region_.payload() + lay_.input_slot(l3_pub_);
    put64(slot + 8, d.opcode);
    put64(slot + 16, d.offset);
    put64(slot + 24, d.nbytes);
    put64(slot, d.seq);
    ++l3_pub_;
    region_.set_counter(kInputTail, low32(l3_pub_));
  }

  // Takes one output message, checks it against what L2 published, releases it.
  void l3_consume() {
    if (output_counters_tampered_) return;  // the harness's L3 no longer knows the truth
    uint64_t tail = 0;
    const int32_t word = region_.counter(kOutputTail);
    SPSQ_FUZZ_CHECK(reconstruct(l3_out_tail_, word, lay_.depth, &tail),
                    "L2's output tail %d is impossible (known %" PRIu64 ")", word, l3_out_tail_);
    SPSQ_FUZZ_CHECK(tail - l3_consumed_ <= lay_.depth,
                    "L2 published %" PRIu64 " outputs past L3's head %" PRIu64 " (depth %" PRIu64
                    ")",
                    tail, l3_consumed_, lay_.depth);
    l3_out_tail_ = tail;
    if (tail == l3_consumed_) return;
    const uint64_t k = l3_consumed_;
    if (!output_area_tampered_) check_output_message(k);
    ++l3_consumed_;
    region_.set_counter(kOutputHead, low32(l3_consumed_));
  }

  SPSQ_FUZZ_NO_COVERAGE void check_output_message(uint64_t k) {
    SPSQ_FUZZ_CHECK(k < out_sent_.size(), "output %" PRIu64 " appeared without a publish", k);
    const ModelDesc d = region_.desc_at(lay_.output_slot(k));
    const Sent& s = out_sent_[k];
    uint64_t next = 0;
    SPSQ_FUZZ_CHECK(desc_valid(output_of(lay_), d, k, l3_out_cursor_, &next),
                    "L2 published an invalid descriptor at output %" PRIu64 ": seq %" PRIu64
                    " op %" PRIu64 " off %" PRIu64 " n %" PRIu64,
                    k, d.seq, d.opcode, d.offset, d.nbytes);
    SPSQ_FUZZ_CHECK(d.opcode == s.opcode && d.offset == s.offset && d.nbytes == s.nbytes,
                    "output %" PRIu64 " is not the message L2 published", k);
    for (uint64_t i = 0; i < d.nbytes; ++i) {
      SPSQ_FUZZ_CHECK(region_.payload()[d.offset + i] == pattern_byte(cfg_.salt ^ 0xa5, k + 1, i),
                      "output %" PRIu64 " byte %" PRIu64 " differs from what L2 wrote", k, i);
    }
    l3_out_cursor_ = next;
  }

  // ------------------------------------------------------------ L2 input

  bool input_predictable() const {
    return live_before_ && !input_counters_tampered_ && !vs_.failed && vs_.fault_in == 0;
  }

  SPSQ_FUZZ_NO_COVERAGE PeekExpect predict_peek() const {
    if (stop_acquired_) return l3_pub_ > acquired_ ? PeekExpect::POISON : PeekExpect::NOTHING;
    if (acquired_ == l3_pub_) return PeekExpect::NOTHING;
    const ModelDesc d = region_.desc_at(lay_.input_slot(acquired_));
    uint64_t next = 0;
    const bool valid = desc_valid(input_of(lay_), d, acquired_, consumer_cursor_, &next);
    const bool window_full = data_out_ >= MI;
    if (!valid) return window_full ? PeekExpect::POISON_OR_NOTHING : PeekExpect::POISON;
    if (d.opcode == kOpData && window_full) return PeekExpect::NOTHING;
    return PeekExpect::ACQUIRE;
  }

  static void hook_send(void* self) {
    auto* s = static_cast<L2Stream*>(self);
    s->l3_send(s->hook_size_, kOpData);
  }

  void l2_peek(uint64_t timeout, bool hook, uint64_t hook_size, bool blocking) {
    SpscQueueInputHandle h{};
    if (blocking && timeout == 0) {
      const uint64_t t0 = FuzzClock::now();
      const bool ok = ep_.input().peek(0, h);
      check_no_attempt(ok, t0);
      return;
    }
    const bool predict = !blocking && input_predictable();
    const PeekExpect want = predict ? predict_peek() : PeekExpect::NOTHING;
    const uint64_t t0 = FuzzClock::now();
    if (hook) {
      hook_size_ = hook_size;
      vs_.wait_hook = &hook_send;
      vs_.wait_hook_arg = this;
    }
    const bool ok = blocking ? ep_.input().peek(timeout, h) : ep_.input().try_peek(h);
    vs_.wait_hook = nullptr;
    if (ok) {
      SPSQ_FUZZ_CHECK(!predict || want == PeekExpect::ACQUIRE, "try_peek acquired, model says %d",
                      static_cast<int>(want));
      on_acquired(h);
      return;
    }
    if (predict) {
      SPSQ_FUZZ_CHECK(want != PeekExpect::ACQUIRE,
                      "try_peek refused message %" PRIu64 " the model says is available: %s",
                      acquired_ + 1, ep_.error().message);
      if (want == PeekExpect::POISON) {
        SPSQ_FUZZ_CHECK(ep_.error().kind == SpscQueueErrorKind::INVALID_DESCRIPTOR,
                        "bad descriptor %" PRIu64 " did not poison (kind %u)", acquired_ + 1,
                        static_cast<unsigned>(ep_.error().kind));
      }
      if (want == PeekExpect::NOTHING) {
        SPSQ_FUZZ_CHECK(ep_.live(), "try_peek with nothing to take poisoned: %s",
                        ep_.error().message);
      }
    }
    if (blocking && ep_.live())
      check_expired(t0, timeout, input_predictable() && predict_peek() == PeekExpect::ACQUIRE);
  }

  // timeout 0 on a blocking call: a live no-attempt.
  SPSQ_FUZZ_NO_COVERAGE void check_no_attempt(bool ok, uint64_t t0) {
    SPSQ_FUZZ_CHECK(!ok, "a zero timeout made progress");
    SPSQ_FUZZ_CHECK(vs_.calls == calls_before_, "a zero timeout touched shared memory");
    SPSQ_FUZZ_CHECK(FuzzClock::now() == t0, "a zero timeout waited");
  }

  // A blocking call that returned false on a live endpoint: the deadline
  // passed with nothing to do and the peer's abort flag down.
  SPSQ_FUZZ_NO_COVERAGE void check_expired(uint64_t t0, uint64_t timeout, bool available) {
    SPSQ_FUZZ_CHECK(!available, "blocking call gave up with work available");
    SPSQ_FUZZ_CHECK(FuzzClock::now() - t0 >= timeout,
                    "blocking call returned after %" PRIu64 " of %" PRIu64 " ns",
                    FuzzClock::now() - t0, timeout);
    SPSQ_FUZZ_CHECK(region_.counter(kInitiatorAbort) < 1,
                    "timeout expired with the initiator abort flag at %d and no REMOTE_ABORTED",
                    region_.counter(kInitiatorAbort));
  }

  SPSQ_FUZZ_NO_COVERAGE void check_handle(const SpscQueueInputHandle& h, uint64_t* next_cursor) {
    SPSQ_FUZZ_CHECK(!stop_acquired_, "acquired seq %" PRIu64 " after STOP", h.seq);
    SPSQ_FUZZ_CHECK(h.seq == acquired_ + 1, "acquired seq %" PRIu64 ", want %" PRIu64, h.seq,
                    acquired_ + 1);
    const uint64_t opcode = static_cast<uint64_t>(h.opcode);
    SPSQ_FUZZ_CHECK(opcode == kOpData || opcode == kOpStop, "acquired opcode %" PRIu64, opcode);
    SPSQ_FUZZ_CHECK(opcode == kOpStop || data_out_ < MI,
                    "acquired DATA past the window of %" PRIu64, MI);
    // The handle obeys the arena rule and stays inside the input arena.
    const ModelDesc d{h.seq, static_cast<uint64_t>(h.opcode), h.payload_offset, h.payload_nbytes};
    SPSQ_FUZZ_CHECK(desc_valid(input_of(lay_), d, acquired_, consumer_cursor_, next_cursor),
                    "handle seq %" PRIu64 " breaks the contract: op %" PRIu64 " [%" PRIu64
                    ", +%" PRIu64 ")",
                    h.seq, static_cast<uint64_t>(h.opcode), h.payload_offset, h.payload_nbytes);
    if (h.payload_nbytes == 0) {
      SPSQ_FUZZ_CHECK(spsc_queue::payload_data(h) == nullptr, "zero-byte handle exposes a pointer");
    } else {
      SPSQ_FUZZ_CHECK(spsc_queue::payload_data(h) == region_.payload() + h.payload_offset,
                      "handle payload pointer is not its offset");
    }
    // What L3 sent, byte-exact, when nothing tampered with it (a forged head
    // counter makes the harness's L3 overwrite slots L2 has not consumed).
    const uint64_t k = acquired_;
    if (k < sent_.size() && !sent_[k].crafted && !input_desc_tampered_ &&
        !input_counters_tampered_) {
      const Sent& s = sent_[k];
      SPSQ_FUZZ_CHECK(
          static_cast<uint64_t>(h.opcode) == s.opcode && h.payload_offset == s.offset &&
              h.payload_nbytes == s.nbytes,
          "handle seq %" PRIu64 " is not the message L3 sent", h.seq);
      if (!payload_tampered_) {
        for (uint64_t i = 0; i < h.payload_nbytes; ++i) {
          SPSQ_FUZZ_CHECK(spsc_queue::payload_data(h)[i] == pattern_byte(cfg_.salt, h.seq, i),
                          "handle seq %" PRIu64 " byte %" PRIu64 " differs from what L3 sent",
                          h.seq, i);
        }
      }
    }
  }

  void on_acquired(const SpscQueueInputHandle& h) {
    uint64_t next = 0;
    check_handle(h, &next);
    held_.push_back(Held{h, acquired_});
    released_.push_back(false);
    consumer_cursor_ = next;
    if (static_cast<uint64_t>(h.opcode) == kOpStop) {
      stop_acquired_ = true;
      stop_k_ = acquired_;
    } else {
      ++data_out_;
    }
    ++acquired_;
  }

  void l2_release(uint8_t which) {
    if (held_.empty()) return;
    const size_t i = which % held_.size();
    const Held hd = held_[i];
    const bool ok = ep_.input().release(hd.h);
    if (!live_before_) return;
    if (!ok) {
      SPSQ_FUZZ_CHECK(vs_.failed, "release of held seq %" PRIu64 " failed: %s", hd.h.seq,
                      ep_.error().message);
      return;
    }
    on_released(i);
  }

  // The model's side of a successful release: the completed FIFO prefix is
  // physically released, one head write per entry.
  void on_released(size_t i) {
    const Held hd = held_[i];
    held_.erase(held_.begin() + static_cast<std::ptrdiff_t>(i));
    released_[hd.k] = true;
    last_released_ = hd.h;
    have_released_ = true;
    const uint64_t head_before = phys_head_;
    while (phys_head_ < acquired_ && released_[phys_head_]) {
      if (phys_head_ != stop_k_ || !stop_acquired_) --data_out_;
      ++phys_head_;
    }
    SPSQ_FUZZ_CHECK(static_cast<uint64_t>(notes_at(kInputHead)) == phys_head_ - head_before,
                    "release wrote the head %d times, the FIFO prefix moved %" PRIu64,
                    notes_at(kInputHead), phys_head_ - head_before);
  }

  // ------------------------------------------------------------ L2 output

  bool output_predictable() const {
    return live_before_ && !output_counters_tampered_ && !output_area_tampered_ && !vs_.failed &&
           vs_.fault_in == 0;
  }

  static void hook_consume(void* self) { static_cast<L2Stream*>(self)->l3_consume(); }

  void l2_reserve(uint64_t n, uint64_t timeout, bool hook, bool blocking) {
    if (active_) return;  // a second reservation is misuse, driven by kL2Misuse
    SpscQueueOutputReservation r{};
    if (blocking && timeout == 0) {
      const uint64_t t0 = FuzzClock::now();
      check_no_attempt(ep_.output().reserve(n, 0, r), t0);
      return;
    }
    const bool predict = !blocking && output_predictable();
    const bool room = predict && output_room(n);
    const uint64_t t0 = FuzzClock::now();
    if (hook) {
      vs_.wait_hook = &hook_consume;
      vs_.wait_hook_arg = this;
    }
    const bool ok = blocking ? ep_.output().reserve(n, timeout, r) : ep_.output().try_reserve(n, r);
    vs_.wait_hook = nullptr;
    if (predict) {
      SPSQ_FUZZ_CHECK(ok == room, "try_reserve(%" PRIu64 ") returned %d, the model says %d: %s", n,
                      ok, room, ep_.error().message);
      SPSQ_FUZZ_CHECK(ep_.live(), "try_reserve(%" PRIu64 ") poisoned: %s", n, ep_.error().message);
    }
    if (ok) {
      on_reserved(r, n);
      return;
    }
    if (blocking && ep_.live() && n <= lay_.output_arena_bytes) {
      check_expired(t0, timeout, output_predictable() && output_room(n));
    }
  }

  SPSQ_FUZZ_NO_COVERAGE bool output_room(uint64_t n) const {
    const uint64_t released_cursor = l3_consumed_ == 0 ? 0 : out_cursor_after_[l3_consumed_ - 1];
    const Placement p = place(out_cursor_, n, lay_.output_arena, lay_.output_arena_bytes);
    return has_room(out_pub_, l3_consumed_, lay_.depth, out_cursor_, released_cursor, p, n,
                    lay_.output_arena_bytes);
  }

  SPSQ_FUZZ_NO_COVERAGE void on_reserved(const SpscQueueOutputReservation& r, uint64_t n) {
    SPSQ_FUZZ_CHECK(n <= lay_.output_arena_bytes,
                    "reserved %" PRIu64 " bytes of a %" PRIu64 "-byte arena", n,
                    lay_.output_arena_bytes);
    const Placement p = place(out_cursor_, n, lay_.output_arena, lay_.output_arena_bytes);
    SPSQ_FUZZ_CHECK(r.payload_nbytes == n && r.payload_offset == p.offset,
                    "reservation [%" PRIu64 ", +%" PRIu64 "), the arena rule says [%" PRIu64
                    ", +%" PRIu64 ")",
                    r.payload_offset, r.payload_nbytes, p.offset, n);
    if (n == 0) {
      SPSQ_FUZZ_CHECK(spsc_queue::payload_data(r) == nullptr,
                      "zero-byte reservation exposes a pointer");
    } else {
      SPSQ_FUZZ_CHECK(spsc_queue::payload_data(r) == region_.payload() + r.payload_offset,
                      "reservation pointer is not its offset");
    }
    active_ = true;
    r_ = r;
    r_next_cursor_ = p.next;
  }

  void l2_publish(uint64_t opcode) {
    if (!active_) return;
    const uint64_t seq = out_pub_ + 1;
    for (uint64_t i = 0; i < r_.payload_nbytes; ++i) {
      spsc_queue::payload_data(r_)[i] = pattern_byte(cfg_.salt ^ 0xa5, seq, i);
    }
    const bool ok = ep_.output().publish(r_, static_cast<SpscQueueOpcode>(opcode));
    active_ = false;  // consumed either way
    last_published_ = r_;
    have_published_ = true;
    if (!live_before_) return;
    if (!ok) {
      SPSQ_FUZZ_CHECK(vs_.failed, "publish of the active reservation failed: %s",
                      ep_.error().message);
      return;
    }
    check_publish(opcode, seq);
    out_sent_.push_back(Sent{opcode, r_.payload_offset, r_.payload_nbytes, false});
    out_cursor_after_.push_back(r_next_cursor_);
    out_cursor_ = r_next_cursor_;
    ++out_pub_;
  }

  // Payload, then descriptor bytes 8..31, then seq, then the tail counter.
  SPSQ_FUZZ_NO_COVERAGE void check_publish(uint64_t opcode, uint64_t seq) {
    const uint64_t slot = lay_.output_slot(out_pub_);
    const ModelDesc d = region_.desc_at(slot);
    SPSQ_FUZZ_CHECK(d.seq == seq && d.opcode == opcode && d.offset == r_.payload_offset &&
                        d.nbytes == r_.payload_nbytes,
                    "published descriptor differs from the reservation");
    for (uint64_t i = 0; i < r_.payload_nbytes; ++i) {
      SPSQ_FUZZ_CHECK(
          region_.payload()[r_.payload_offset + i] == pattern_byte(cfg_.salt ^ 0xa5, seq, i),
          "published payload byte %" PRIu64 " differs", i);
    }
    SPSQ_FUZZ_CHECK(vs_.logged <= FuzzViewState::kLogCapacity, "publish log overflow");
    int last_payload = -1, first_desc = vs_.logged, last_body = -1, first_seq = vs_.logged,
        last_seq = -1, tail = -1;
    for (int i = 0; i < vs_.logged; ++i) {
      const Access& a = vs_.log[i];
      if (a.kind == AccessKind::NOTIFY && a.offset == kOutputTail) tail = i;
      if (a.kind != AccessKind::WRITE) continue;
      const uint64_t lo = a.offset, hi = a.offset + a.nbytes;
      const bool touches_seq = lo < slot + 8 && hi > slot;
      const bool touches_body = lo < slot + 32 && hi > slot + 8;
      if (touches_seq || touches_body) {
        SPSQ_FUZZ_CHECK(!(touches_seq && touches_body), "seq written together with the body");
        if (first_desc == vs_.logged) first_desc = i;
        if (touches_body) last_body = i;
        if (touches_seq) {
          if (first_seq == vs_.logged) first_seq = i;
          last_seq = i;
        }
      } else {
        last_payload = i;
      }
    }
    SPSQ_FUZZ_CHECK(last_payload < first_desc, "payload written after the descriptor");
    SPSQ_FUZZ_CHECK(last_seq >= 0 && last_body < first_seq, "seq not written after bytes 8..31");
    SPSQ_FUZZ_CHECK(tail == vs_.logged - 1 && tail > last_seq,
                    "tail not published last, after seq");
  }

  // ------------------------------------------------------------ misuse

  void l2_misuse(uint8_t variant, uint8_t arg) {
    bool ok = false;
    switch (variant) {
      case kReleaseStale:
        if (!have_released_) return;
        ok = ep_.input().release(last_released_);
        break;
      case kReleaseBadSeq:
      case kReleaseBadOwner: {
        if (held_.empty()) return;
        SpscQueueInputHandle h = held_[arg % held_.size()].h;
        if (variant == kReleaseBadSeq) {
          h.seq += 1 + arg % 3;
        } else {
          h.owner_cookie ^= 0x1000;
        }
        // A forged handle equal to one L2 holds is that handle.
        for (size_t i = 0; i < held_.size(); ++i) {
          const SpscQueueInputHandle& g = held_[i].h;
          if (g.seq == h.seq && g.opcode == h.opcode && g.payload_offset == h.payload_offset &&
              g.payload_nbytes == h.payload_nbytes && g.owner_cookie == h.owner_cookie) {
            const bool legit = ep_.input().release(h);
            if (live_before_ && legit) on_released(i);
            if (live_before_ && !legit) SPSQ_FUZZ_CHECK(vs_.failed, "legit release failed");
            return;
          }
        }
        ok = ep_.input().release(h);
        break;
      }
      case kReserveTwice: {
        if (!active_) return;
        SpscQueueOutputReservation r{};
        ok = ep_.output().try_reserve(arg, r);
        break;
      }
      case kPublishStale:
        if (!have_published_) return;
        ok = ep_.output().publish(last_published_, SpscQueueOpcode::DATA);
        break;
      case kPublishBadOp: {
        if (!active_) return;
        static constexpr uint64_t kBad[3] = {kOpStop, kOpInvalid, 7};
        ok = ep_.output().publish(r_, static_cast<SpscQueueOpcode>(kBad[arg % 3]));
        active_ = false;
        break;
      }
    }
    misuse_step_ = true;
    if (!live_before_) return;
    misuse_ = true;
    SPSQ_FUZZ_CHECK(!ok, "misuse %u succeeded", variant);
    SPSQ_FUZZ_CHECK(!ep_.live(), "misuse %u did not poison", variant);
  }

  // ------------------------------------------------------------ hostile L3

  void hostile_counter(uint64_t off, uint8_t mode, uint32_t v) {
    hostile_ = true;
    note_touched(spsq_fuzz::hostile_counter(region_, off, mode, v));
  }

  void hostile_desc(uint8_t slot, uint8_t field, uint8_t mode, uint64_t v) {
    hostile_ = true;
    note_touched(hostile_descriptor(region_, lay_, slot, field, mode, v));
  }

  void note_touched(uint32_t touched) {
    if (touched & kTouchedInputCounters) input_counters_tampered_ = true;
    if (touched & kTouchedOutputCounters) output_counters_tampered_ = true;
    if (touched & kTouchedInputRing) input_desc_tampered_ = true;
    if (touched & kTouchedOutputRing) output_area_tampered_ = true;
  }

  // Publishes the next input descriptor with chosen fields (honest tail bump).
  void hostile_craft(uint8_t op, uint8_t off_mode, uint16_t n, uint8_t seq_mode) {
    uint64_t head = 0;
    if (stop_sent_ && seq_mode % 4 == 0 && op % 4 == kOpStop) return;
    if (!reconstruct(l3_head_, region_.counter(kInputHead), lay_.depth, &head) || head > l3_pub_) {
      return;
    }
    l3_head_ = head;
    if (l3_pub_ - l3_head_ >= lay_.depth) return;  // even a hostile L3 keeps the ring sane here
    hostile_ = true;
    const ModelDesc d =
        hostile_next_descriptor(input_of(lay_), l3_pub_, &l3_cursor_, op, off_mode, n, seq_mode);
    publish_input(d);
    sent_.push_back(Sent{d.opcode, d.offset, d.nbytes, true});
    cursor_after_.push_back(l3_cursor_);
    if (d.opcode == kOpStop) stop_sent_ = true;
  }

  void hostile_scribble(uint16_t off, uint8_t v) {
    hostile_ = true;
    payload_tampered_ = true;
    region_.payload()[lay_.input_arena + off % lay_.input_arena_bytes] = v;
  }

  // ------------------------------------------------------------ after every step

  SPSQ_FUZZ_NO_COVERAGE void end_step(uint8_t kind) {
    const SpscQueueError& e = ep_.error();
    const bool dead_before = !live_before_;
    // A dead endpoint stays dead with the same error and touches nothing.
    if (dead_before) {
      SPSQ_FUZZ_CHECK(!ep_.live(), "a dead endpoint came back to life");
      SPSQ_FUZZ_CHECK(same_error(e, err_before_), "first error replaced: '%s' -> '%s'",
                      err_before_.message, e.message);
      SPSQ_FUZZ_CHECK(vs_.calls == calls_before_,
                      "dead endpoint made %" PRIu64 " shared accesses in step %u",
                      vs_.calls - calls_before_, kind);
    }
    if (!live_ok_) return;
    check_counter_writes();
    SPSQ_FUZZ_CHECK(ep_.live() == (e.kind == SpscQueueErrorKind::NONE),
                    "live() disagrees with error()");
    // A new error must be one this step can explain.
    if (live_before_ && !ep_.live()) {
      SPSQ_FUZZ_CHECK(
          e.has_identity() && e.session_instance_id_bits == kSession && e.transaction_id == kTxn,
          "poison without the RegionInstance identity");
      SPSQ_FUZZ_CHECK(e.message[0] != '\0' && std::memchr(e.message, 0, sizeof(e.message)),
                      "poison without a message");
      SPSQ_FUZZ_CHECK(
          e.op >= SpscQueueOp::TIMEOUT && e.op <= SpscQueueOp::OUTPUT_PUBLISH,
          "poison recorded op %u", static_cast<unsigned>(e.op));
      switch (e.kind) {
        case SpscQueueErrorKind::ENDPOINT_ERROR:
          SPSQ_FUZZ_CHECK(vs_.failed, "ENDPOINT_ERROR with a healthy view: %s", e.message);
          break;
        case SpscQueueErrorKind::REMOTE_ABORTED:
          SPSQ_FUZZ_CHECK(region_.counter(kInitiatorAbort) >= 1,
                          "REMOTE_ABORTED with the initiator flag at %d",
                          region_.counter(kInitiatorAbort));
          break;
        case SpscQueueErrorKind::OWNERSHIP:
        case SpscQueueErrorKind::BAD_ARGUMENT:
          SPSQ_FUZZ_CHECK(misuse_step_, "%s without misuse: %s",
                          spsc_queue::error_kind_name(e.kind), e.message);
          break;
        case SpscQueueErrorKind::INVALID_DESCRIPTOR:
          SPSQ_FUZZ_CHECK(hostile_, "INVALID_DESCRIPTOR from an honest L3: %s", e.message);
          break;
        default:
          SPSQ_FUZZ_CHECK(false, "poison of kind %u: %s", static_cast<unsigned>(e.kind), e.message);
      }
    }
    // The abort flag: raised exactly once, and only for local poison.
    const uint64_t want_flag = local_poison(e.kind) ? 1 : 0;
    SPSQ_FUZZ_CHECK(vs_.own_flag_writes == want_flag,
                    "abort flag written %" PRIu64 " times with error kind %u", vs_.own_flag_writes,
                    static_cast<unsigned>(e.kind));
    // Honest run: nothing poisons.
    if (!hostile_ && !misuse_ && !fault_) {
      SPSQ_FUZZ_CHECK(ep_.live(), "honest run poisoned: %s", e.message);
    }
    if (!fault_) {
      SPSQ_FUZZ_CHECK(ep_.input().drained() == (stop_acquired_ && phys_head_ > stop_k_),
                      "drained() is %d", ep_.input().drained());
    }
  }

  void trace(uint8_t kind) const {
    std::fprintf(stderr,
                 "%-16s live %d | L3 pub %" PRIu64 " head %" PRIu64 " cursor %" PRIu64
                 " | L2 acq %" PRIu64 " head %" PRIu64 " cursor %" PRIu64
                 " held %zu | out pub %" PRIu64 " cursor %" PRIu64 " consumed %" PRIu64 " | %s\n",
                 kOpNames[kind], ep_.live(), l3_pub_, l3_head_, l3_cursor_, acquired_, phys_head_,
                 consumer_cursor_, held_.size(), out_pub_, out_cursor_, l3_consumed_,
                 ep_.error().message);
  }

  int notes_at(uint64_t offset) const {
    int n = 0;
    for (int i = 0; i < vs_.noted; ++i) n += vs_.notes[i].offset == offset;
    return n;
  }

  // Head and tail writes of this step, as the view saw them (successful
  // notifies only: a failed one changes nothing). Each moves by exactly one.
  SPSQ_FUZZ_NO_COVERAGE void check_counter_writes() {
    for (int i = 0; i < vs_.noted; ++i) {
      const Access& a = vs_.notes[i];
      if (a.offset == kInputHead) {
        SPSQ_FUZZ_CHECK(a.value == low32(head_written_ + 1), "input head written %d after %" PRIu64,
                        a.value, head_written_);
        ++head_written_;
        SPSQ_FUZZ_CHECK(head_written_ <= acquired_,
                        "input head %" PRIu64 " passed the %" PRIu64 " messages acquired",
                        head_written_, acquired_);
      } else if (a.offset == kOutputTail) {
        SPSQ_FUZZ_CHECK(a.value == low32(tail_written_ + 1),
                        "output tail written %d after %" PRIu64, a.value, tail_written_);
        ++tail_written_;
        SPSQ_FUZZ_CHECK(output_counters_tampered_ || tail_written_ <= l3_consumed_ + lay_.depth,
                        "output tail %" PRIu64 " passed L3's head %" PRIu64 " + depth",
                        tail_written_, l3_consumed_);
      }
    }
    if (ep_.live()) {
      SPSQ_FUZZ_CHECK(head_written_ == phys_head_, "input head %" PRIu64 ", model %" PRIu64,
                      head_written_, phys_head_);
      SPSQ_FUZZ_CHECK(tail_written_ == out_pub_, "output tail %" PRIu64 ", %" PRIu64 " published",
                      tail_written_, out_pub_);
    }
  }

  // ------------------------------------------------------------ state

  Config cfg_;
  FuzzViewState vs_;
  FuzzRegion region_;
  ModelLayout lay_;
  Endpoint ep_;

  bool live_ok_ = false;  // construction succeeded
  bool live_before_ = false;
  SpscQueueError err_before_{};
  uint64_t calls_before_ = 0;
  bool misuse_step_ = false;
  uint64_t head_written_ = 0, tail_written_ = 0;  // from the view's notify log

  // Honesty.
  bool hostile_ = false, misuse_ = false, fault_ = false;
  bool input_counters_tampered_ = false, output_counters_tampered_ = false;
  bool input_desc_tampered_ = false, output_area_tampered_ = false, payload_tampered_ = false;

  // The harness's L3: input producer.
  uint64_t l3_pub_ = 0, l3_head_ = 0, l3_cursor_ = 0;
  bool stop_sent_ = false;
  std::vector<Sent> sent_;
  std::vector<uint64_t> cursor_after_;
  uint64_t hook_size_ = 0;

  // L2's input, as the model tracks it.
  uint64_t acquired_ = 0, phys_head_ = 0, consumer_cursor_ = 0, data_out_ = 0;
  bool stop_acquired_ = false;
  uint64_t stop_k_ = 0;
  std::vector<Held> held_;
  std::vector<bool> released_;
  SpscQueueInputHandle last_released_{};
  bool have_released_ = false;

  // L2's output, as the model tracks it.
  uint64_t out_pub_ = 0, out_cursor_ = 0;
  std::vector<Sent> out_sent_;
  std::vector<uint64_t> out_cursor_after_;
  bool active_ = false;
  SpscQueueOutputReservation r_{};
  uint64_t r_next_cursor_ = 0;
  SpscQueueOutputReservation last_published_{};
  bool have_published_ = false;

  // The harness's L3: output consumer.
  uint64_t l3_consumed_ = 0, l3_out_tail_ = 0, l3_out_cursor_ = 0;
};

}  // namespace
}  // namespace spsq_fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace spsq_fuzz;
  FuzzReader in(data, size);
  const Config cfg = parse_config(in);
  FuzzClock::reset();
  if (cfg.max_inflight == 4) {
    L2Stream<4> s(cfg);
    s.run(in);
  } else {
    L2Stream<1> s(cfg);
    s.run(in);
  }
  return 0;
}
