// Harness 4: the L2 descriptor stream. The fuzzer plays the L3 side of one
// queue against an L2 endpoint under test, SPSQ_CERT_ENDPOINT<FuzzView, N>
// (N = 1 and 4) from a certification config ("spsq_cert/config.h", see
// fuzz/l2_stream.bzl): an honest L3 that enqueues, stops and consumes
// outputs, the same L3 turned hostile (counter values, descriptor bytes,
// crafted descriptors, payload scribbles, the abort flag), and the L2 code
// calling the endpoint (peek, release in any order, reserve, publish, misuse,
// timeouts on a virtual clock), interleaved as the input says.
//
// The endpoint is reached only through L2StreamEndpoint
// (fuzz/l2_stream_endpoint.h: EndpointAccess behind a virtual interface, the
// one source compiled per certification), so this file is compiled once for
// every endpoint; the wire is spoken through fuzz/wire_model.h and the view is
// FuzzView: nothing here includes the reference or any endpoint. Where the
// spec leaves a choice open (the OPEN.* and AMB.* clauses), every legal answer
// passes.
//
// Input: fuzz/l2_stream_input.h. Each call and every step are judged (fuzz/README.md):
//   - the view saw no access outside the spans or outside L2's regions;
//   - poison is sticky and first-error-wins, and a dead endpoint writes nothing;
//   - the abort flag is raised exactly once, and only for local poison;
//   - every new error is one the step can explain;
//   - a handle never exposes bytes outside its arena and obeys the arena rule;
//   - head never passes what was acquired and is the completed FIFO prefix;
//   - the output tail moves one step per publish, in the contract's publish order;
//   - where the harness can predict the endpoint (its L3 was honest about the
//     counters involved), try_peek / try_reserve answer one of the legal ways;
//   - while everyone is honest nothing poisons, and every message arrives
//     byte-exact, in order, in both directions.
// The judgments are the oracles of fuzz/l2_stream_oracles.h and
// fuzz/stream_oracles.h, each naming the catalogue clauses it charges; the
// harness drives the steps, keeps the endpoint, its world and the model (what
// the endpoint may answer), fills each oracle's observation and reports its
// verdict with SPSQ_FUZZ_REPORT. The step loop is fuzz/stream_skeleton.h's.
#include <any>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "model/wire_model.h"
#include "fuzz/fuzz_bytes.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/fuzz_memory.h"
#include "fuzz/fuzz_time.h"
#include "fuzz/fuzz_view.h"
#include "fuzz/hostile_peer.h"
#include "fuzz/l2_stream_endpoint.h"
#include "fuzz/l2_stream_input.h"
#include "fuzz/l2_stream_oracles.h"
#include "fuzz/oracle_verdict.h"
#include "fuzz/stream_oracles.h"
#include "fuzz/stream_skeleton.h"
#include "fuzz/wire_model.h"

namespace spsq_fuzz {
namespace {

namespace wire = spsq_conf::wire;

// Step kinds: the 17 op kinds, then the extended ops behind kL2Extended.
constexpr int kKinds = kL2OpCount + kL2ExtCount;
constexpr uint8_t kLongWait = kL2OpCount + kExtLongWait;
constexpr uint8_t kMisuse2 = kL2OpCount + kExtMisuse;

const char* const kOpNames[kKinds] = {
    "l3_send",         "l3_stop",        "l3_consume",    "l2_try_peek",      "l2_peek",
    "l2_release",      "l2_try_reserve", "l2_reserve",    "l2_publish",       "l2_misuse",
    "hostile_counter", "hostile_desc",   "hostile_craft", "hostile_scribble", "hostile_abort",
    "clock_advance",   "view_fault",     "l2_long_wait",  "l2_misuse_ext"};
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
  const StreamArenas arenas = read_arenas(b, in, 8);
  c.in = arenas.in;
  c.out = arenas.out;
  c.binding_fault = arenas.binding_fault;
  return c;
}

// The endpoint's error() as the harness keeps it (first-error-wins).
struct ErrorSnap {
  uint32_t kind = 0, op = 0;
  uint64_t session = 0, txn = 0;
  char message[256] = {};
};

// The answers a call may legally give (bits): l2_stream_oracles.h names them
// and judges each call's answer against them.
using namespace l2_answers;

class L2Stream {
 public:
  // The shared hostile peer applies its edits through the private hooks below.
  template <class Harness>
  friend void spsq_fuzz::run_hostile_edit(Harness& h, uint8_t which, FuzzReader& in);

  using Handle = L2StreamEndpoint::Handle;
  using Reservation = L2StreamEndpoint::Reservation;

  explicit L2Stream(const Config& c)
      : cfg_(c),
        mi_(c.max_inflight),
        region_(c.depth, c.in, c.out),
        lay_(region_.layout()),
        // Fault 6: L2 code forgot the clock.
        owned_(l2_stream_make_endpoint(mi_, binding(region_, c.binding_fault),
                                       FuzzView(&region_, &init_view()), c.binding_fault != 6)),
        ep_(*owned_) {
    check_construction();
  }

  void run(FuzzReader& in) { run_stream(*this, in); }

 private:
  // The shared step loop calls read_kind, begin_step, step, trace and end_step.
  template <class Harness>
  friend void spsq_fuzz::run_stream(Harness& h, FuzzReader& in);

  uint8_t read_kind(FuzzReader& in) {
    const uint8_t b = in.u8();
    return b == kL2Extended ? static_cast<uint8_t>(kL2OpCount + in.u8() % kL2ExtCount)
                            : static_cast<uint8_t>(b % kL2OpCount);
  }

  struct Sent {  // one message as its producer published it
    uint64_t opcode, offset, nbytes;
    bool crafted;
  };
  struct Held {
    Handle h;
    uint64_t k;
    bool data;  // counts against the window (not STOP)
  };
  // Another queue, for a cross-queue handle (built on first use).
  struct Foreign {
    FuzzMemory mem;
    FuzzViewState vs;
    std::unique_ptr<L2StreamEndpoint> ep;
    Handle h;
    bool have = false;
    bool tried_h = false;  // its first input was set up and peeked
    Reservation r;
    bool have_r = false, tried_r = false;
    Foreign(const Config& c)
        : mem(c.depth, c.in, c.out),
          ep(l2_stream_make_endpoint(c.max_inflight, binding(mem, -1), FuzzView(&mem, &vs),
                                     true)) {}
  };

  FuzzViewState& init_view() {
    vs_.role = FuzzRole::L2;
    vs_.half_waits = cfg_.half_waits;
    if (cfg_.binding_fault == 7) {  // the mapping was already gone
      spsq_conf::fail_view(&vs_.failed, &vs_.error, "view failed before use");
    }
    return vs_;
  }

  // The binding L3 hands over, decoded by the endpoint's own decoder, then
  // (faults 0-5) one field broken through the names the spec lists.
  static std::any binding(const FuzzMemory& m, int fault) {
    const auto s = wire::binding_scalars(
        wire::binding_for(m.layout(), m.payload_base(), m.counter_base(), kSession, kTxn));
    std::any b;
    SPSQ_FUZZ_REPORT(l2_binding_decoded(l2_stream_decode_binding(s.data(), s.size(), fault, &b)));
    return b;
  }

  SPSQ_FUZZ_NO_COVERAGE ErrorSnap snap() const {
    ErrorSnap s;
    s.kind = ep_.kind();
    s.op = ep_.op();
    s.session = ep_.session();
    s.txn = ep_.transaction();
    const size_t cap = ep_.message_capacity();
    const size_t n = strnlen(ep_.message(), cap < sizeof(s.message) ? cap : sizeof(s.message));
    std::memcpy(s.message, ep_.message(), n < sizeof(s.message) ? n : sizeof(s.message) - 1);
    return s;
  }
  uint32_t kind() const { return ep_.kind(); }
  const char* message() const { return ep_.message(); }

  // ------------------------------------------------------------ construction

  SPSQ_FUZZ_NO_COVERAGE void check_construction() {
    const ErrorSnap e = snap();
    // Judged further only when constructed as the contract allows; layout()
    // is asked only of such an endpoint.
    const bool valid = cfg_.binding_fault < 0 && mi_ <= cfg_.depth;
    L2Construction o;
    o.flag_writes = vs_.own_flag_writes;
    o.binding_fault = cfg_.binding_fault;
    o.window = mi_;
    o.depth = cfg_.depth;
    o.live = ep_.live();
    o.kind = e.kind;
    o.op = e.op;
    o.session = e.session;
    o.txn = e.txn;
    o.want_session = kSession;
    o.want_txn = kTxn;
    o.message = e.message;
    if (valid && o.live) o.layout = ep_.layout();
    o.want = spsq_conf::LayoutFields{lay_.depth,         lay_.input_ring,
                                     lay_.output_ring,   lay_.input_arena,
                                     lay_.input_arena_bytes, lay_.output_arena,
                                     lay_.output_arena_bytes, lay_.payload_bytes,
                                     wire::kCounterBytes};
    SPSQ_FUZZ_REPORT(l2_construction(o));
    live_ok_ = valid;
  }

  // ------------------------------------------------------------ steps

  void begin_step() {
    vs_.begin_step();
    live_before_ = ep_.live();
    // Once dead the error must never change: the snapshot of the first dead
    // step is the one every later step is compared with.
    if (live_before_) {
      have_dead_error_ = false;
    } else if (!have_dead_error_) {
      err_before_ = snap();
      have_dead_error_ = true;
    }
    calls_before_ = vs_.calls;
    writes_before_ = vs_.writes;
    misuse_step_ = false;
    call_step_ = false;
    call_op_ = 0;
  }

  void step(uint8_t kind, FuzzReader& in) {
    switch (kind) {
      case kL3Send:
        l3_send(in.u16() % (cfg_.in + 1), wire::kData);
        break;
      case kL3Stop:
        l3_send(0, wire::kStop);
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
        l2_publish((in.u8() & 1) ? wire::kError : wire::kData);
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
        honesty_.hostile = true;
        region_.set_counter(wire::kInitiatorFlag, static_cast<int32_t>(in.u32()));
        break;
      case kClockAdvance:
        advance_clock(in.u16() * 1000ull);
        break;
      case kViewFault:
        vs_.fault_in = 1 + in.u8() % 8;
        honesty_.fault = true;
        break;
      case kLongWait: {
        const uint8_t flags = in.u8();
        const uint16_t n = in.u16();
        const uint64_t timeout = UINT64_MAX - in.u16() * 997ull;
        if (flags & 1) {
          l2_reserve(n % (cfg_.out + 65), timeout, flags & 2, /*blocking=*/true);
        } else {
          l2_peek(timeout, flags & 2, n % (cfg_.in + 1), /*blocking=*/true);
        }
        break;
      }
      case kMisuse2: {
        const uint8_t v = in.u8() % kL2MisuseExtCount;
        l2_misuse(static_cast<uint8_t>(kL2MisuseCount + v), in.u8());
        break;
      }
    }
  }

  // The clock stops at its end: after a wait that ran to a saturated
  // deadline, advancing it must not wrap it back to the start.
  static void advance_clock(uint64_t ns) {
    FuzzTime::advance(ns <= UINT64_MAX - FuzzTime::now() ? ns : UINT64_MAX - FuzzTime::now());
  }

  // An endpoint call starts: a non-poison kind left by an earlier refusal
  // is cleared by it (S3.TO.5), unless this call may leave one again.
  void calling() {
    call_step_ = true;
    soft_ok_ = false;
  }

  bool abort_raised() const { return region_.counter(wire::kInitiatorFlag) >= 1; }

  // ------------------------------------------------------------ honest L3

  // Enqueues one message if the ring and the arena have room, as an honest
  // producer that only knows the head counter L2 publishes.
  bool l3_send(uint64_t n, uint64_t opcode) {
    if (stop_sent_) return false;
    uint64_t head = 0;
    const int32_t word = region_.counter(wire::kInputHead);
    if (!wire::reconstruct(l3_head_, word, lay_.depth, &head) || head > l3_pub_) {
      L2HeadRead o;
      o.possible = false;
      o.tampered = input_counters_tampered_;
      o.word = word;
      o.known = l3_head_;
      o.published = l3_pub_;
      SPSQ_FUZZ_REPORT(l2_input_head_read(o));
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
    publish_input(wire::Descriptor{seq, opcode, p.offset, n});
    sent_.push_back(Sent{opcode, p.offset, n, false});
    cursor_after_.push_back(p.next);
    l3_cursor_ = p.next;
    if (opcode == wire::kStop) stop_sent_ = true;
    return true;
  }

  // Descriptor bytes 8..31, then seq, then the tail counter.
  void publish_input(const wire::Descriptor& d) {
    publish_descriptor(region_.payload() + lay_.input_slot(l3_pub_), d);
    ++l3_pub_;
    region_.set_counter(wire::kInputTail, wire::low32(l3_pub_));
  }

  // Takes one output message, checks it against what L2 published, releases it.
  void l3_consume() {
    if (output_counters_tampered_) return;  // the harness's L3 no longer knows the truth
    uint64_t tail = 0;
    L2TailRead o;
    o.word = region_.counter(wire::kOutputTail);
    o.known = l3_out_tail_;
    o.possible = wire::reconstruct(l3_out_tail_, o.word, lay_.depth, &tail);
    o.tail = tail;
    o.consumed = l3_consumed_;
    o.depth = lay_.depth;
    SPSQ_FUZZ_REPORT(l2_output_tail_read(o));
    l3_out_tail_ = tail;
    if (tail == l3_consumed_) return;
    const uint64_t k = l3_consumed_;
    if (!output_area_tampered_) check_output_message(k);
    ++l3_consumed_;
    region_.set_counter(wire::kOutputHead, wire::low32(l3_consumed_));
  }

  SPSQ_FUZZ_NO_COVERAGE void check_output_message(uint64_t k) {
    L2OutputMessage o;
    o.k = k;
    o.published = k < out_sent_.size();
    o.d = region_.desc_at(lay_.output_slot(k));
    o.dir = output_of(lay_);
    o.cursor = l3_out_cursor_;
    if (o.published) {
      const Sent& s = out_sent_[k];
      o.opcode = s.opcode;
      o.offset = s.offset;
      o.nbytes = s.nbytes;
    }
    o.payload = region_.payload();
    o.salt = cfg_.salt ^ 0xa5;
    uint64_t next = 0;
    SPSQ_FUZZ_REPORT(l2_output_message(o, &next));
    l3_out_cursor_ = next;
  }

  // ------------------------------------------------------------ L2 input

  bool input_predictable() const {
    return live_before_ && !input_counters_tampered_ && !vs_.failed && vs_.fault_in == 0;
  }

  // Every DATA handle the window allows is held: peeking now is the misuse
  // AMB.WINDOW grades (no extra DATA handle; A, B or C).
  bool window_held_full() const { return held_data_ >= mi_; }

  // The legal answers of the next try_peek, from the model.
  SPSQ_FUZZ_NO_COVERAGE uint32_t predict_peek() const {
    uint32_t a = 0;
    if (stop_acquired_) {
      // A descriptor after STOP poisons with INVALID_DESCRIPTOR (S4.STOP.11).
      a = l3_pub_ > acquired_ ? kPoisonDesc : kNothing;
    } else if (acquired_ == l3_pub_) {
      a = kNothing;
    } else {
      const wire::Descriptor d = region_.desc_at(lay_.input_slot(acquired_));
      uint64_t next = 0;
      const bool valid = desc_valid(input_of(lay_), d, acquired_, consumer_cursor_, &next);
      // An input ERROR shaped like DATA: delivered (OPEN.ERRIN A) or poison (B).
      wire::Descriptor as_data = d;
      as_data.opcode = wire::kData;
      const bool error_in = d.opcode == wire::kError &&
                            desc_valid(input_of(lay_), as_data, acquired_, consumer_cursor_, &next);
      const bool phys_full = data_out_ >= mi_;
      if (valid && d.opcode == wire::kStop) {
        // STOP takes the extra slot whatever the window; a descriptor already
        // published behind it may poison as soon as STOP is acquired.
        a = kProgress | (l3_pub_ > acquired_ + 1 ? kPoisonDesc : 0);
      } else if (valid || error_in) {
        const uint32_t take = window_held_full() ? 0u
                              : phys_full        ? (kProgress | kNothing)  // AMB.WINDOWPHYS
                                                 : kProgress;
        a = error_in ? (take | kPoisonDesc | kPoisonLocal) : take;
      } else {
        // A bad descriptor poisons; the kind is INVALID_DESCRIPTOR where the
        // contract fixes it (seq, offsets off the arena rule), any otherwise.
        a = kPoisonDesc | (d.seq == acquired_ + 1 && !offset_only_fault(d) ? kPoisonLocal : 0);
      }
    }
    if (window_held_full()) a |= kNothing | kSoft | kPoisonLocal;  // AMB.WINDOW A, B, C
    if (abort_raised() && (a & kNothing)) a |= kRemoteAbort;       // AMB.TRYABORT B
    return a;
  }

  // The next input descriptor, for the clauses taking it breaks
  // (l2_next_input_clauses).
  SPSQ_FUZZ_NO_COVERAGE L2NextInput next_input() const {
    L2NextInput o;
    o.stop_acquired = stop_acquired_;
    o.acquired = acquired_;
    o.published = l3_pub_;
    if (!stop_acquired_ && acquired_ != l3_pub_) o.d = region_.desc_at(lay_.input_slot(acquired_));
    o.dir = input_of(lay_);
    o.cursor = consumer_cursor_;
    return o;
  }

  // A descriptor whose only fault is its offset (payload replay). A zero-byte
  // message with an offset is not one: no document fixes that kind (AMB.KINDS).
  bool offset_only_fault(const wire::Descriptor& d) const {
    if (!input_of(lay_).carries(d.opcode) || d.nbytes > lay_.input_arena_bytes) return false;
    if (d.opcode == wire::kStop && d.nbytes != 0) return false;
    if (d.nbytes == 0 && d.offset != 0) return false;
    return true;
  }

  static void hook_send(void* self) {
    auto* s = static_cast<L2Stream*>(self);
    s->l3_send(s->hook_size_, wire::kData);
  }

  void l2_peek(uint64_t timeout, bool hook, uint64_t hook_size, bool blocking) {
    calling();
    Handle h;
    if (blocking && timeout == 0) {
      const uint64_t t0 = FuzzTime::now();
      const bool ok = ep_.peek(0, &h);
      if (live_before_) check_no_attempt(ok, t0);
      check_dead_refuses(ok, "peek(0)");
      return;
    }
    const bool predict = !blocking && input_predictable();
    const uint32_t want = predict ? predict_peek() : 0;
    const bool held_full = window_held_full();
    // AMB.WINDOW: L2 code must not peek with a full window; the endpoint may
    // answer that misuse with a refusal that leaves a kind, or with poison.
    if (held_full) misuse_step_ = soft_ok_ = true;
    const uint64_t t0 = FuzzTime::now();
    const uint64_t cut0 = vs_.cut_short;
    if (hook) {
      hook_size_ = hook_size;
      vs_.wait_hook = &hook_send;
      vs_.wait_hook_arg = this;
    }
    const bool ok = blocking ? ep_.peek(timeout, &h) : ep_.try_peek(&h);
    vs_.wait_hook = nullptr;
    if (held_full && live_before_ && !ep_.live()) honesty_.misuse = true;
    check_dead_refuses(ok, blocking ? "peek" : "try_peek");
    if (ok) {
      SPSQ_FUZZ_REPORT(l2_peek_acquired(predict, want, predict ? next_input() : L2NextInput{}));
      on_acquired(h);
      return;
    }
    if (predict) check_refusal(want, "try_peek");
    if (blocking && ep_.live() && !held_full && kind() == wire::kKindNone) {
      L2Expired o;
      o.available = input_predictable() && predict_peek() == kProgress;
      check_expired(&o, t0, timeout, cut0);
    }
  }

  // A refusal (false) of a predicted call is one of the legal answers.
  SPSQ_FUZZ_NO_COVERAGE void check_refusal(uint32_t want, const char* call) {
    L2Refusal o;
    o.answers = want;
    o.call = call;
    o.next = next_input();
    o.live = ep_.live();
    o.kind = kind();
    o.message = message();
    SPSQ_FUZZ_REPORT(l2_refusal(o));
  }

  // A dead endpoint rejects every normal operation (S4.POISON.14).
  SPSQ_FUZZ_NO_COVERAGE void check_dead_refuses(bool ok, const char* call) {
    SPSQ_FUZZ_REPORT(l2_dead_refuses(live_before_, ok, call));
  }

  // timeout 0 on a blocking call: a live no-attempt.
  SPSQ_FUZZ_NO_COVERAGE void check_no_attempt(bool ok, uint64_t t0) {
    L2NoAttempt o;
    o.ok = ok;
    o.touched = vs_.calls != calls_before_;
    o.t0 = t0;
    o.now = FuzzTime::now();
    o.live = ep_.live();
    o.message = message();
    SPSQ_FUZZ_REPORT(l2_no_attempt(o));
  }

  // A blocking call that returned false on a live endpoint (`o` says what
  // the model has for it): the wait of [t0, now) and the peer's flag.
  SPSQ_FUZZ_NO_COVERAGE void check_expired(L2Expired* o, uint64_t t0, uint64_t timeout,
                                           uint64_t cut_before) {
    o->wait.t0 = t0;
    o->wait.now = FuzzTime::now();
    o->wait.timeout = timeout;
    o->wait.cut = vs_.cut_short != cut_before;
    o->wait.last_cut = vs_.last_cut_short;
    o->initiator_flag = region_.counter(wire::kInitiatorFlag);
    SPSQ_FUZZ_REPORT(l2_expired(*o));
  }

  // Payload offset of a span the endpoint lent (0 for an empty one).
  uint64_t offset_of(const uint8_t* p, uint64_t n) const {
    if (n == 0) return 0;
    return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p) - region_.payload_base());
  }

  SPSQ_FUZZ_NO_COVERAGE void check_handle(const Handle& h, uint64_t* next_cursor) {
    L2Handle o;
    o.seq = ep_.handle_seq(h);
    o.opcode = ep_.handle_opcode(h);
    o.nbytes = ep_.handle_nbytes(h);
    o.bytes = ep_.handle_payload(h);
    o.offset = offset_of(o.bytes, o.nbytes);
    o.stop_acquired = stop_acquired_;
    o.acquired = acquired_;
    o.held_data = held_data_;
    o.window = mi_;
    o.dir = input_of(lay_);
    o.cursor = consumer_cursor_;
    // What L3 sent, byte-exact, when nothing tampered with it (a forged head
    // counter makes the harness's L3 overwrite slots L2 has not consumed).
    const uint64_t k = acquired_;
    if (k < sent_.size() && !sent_[k].crafted && !input_desc_tampered_ &&
        !input_counters_tampered_) {
      o.sent_known = true;
      o.sent_opcode = sent_[k].opcode;
      o.sent_offset = sent_[k].offset;
      o.sent_nbytes = sent_[k].nbytes;
      o.bytes_known = !payload_tampered_;
      o.salt = cfg_.salt;
    }
    SPSQ_FUZZ_REPORT(l2_handle(o, next_cursor));
  }

  void on_acquired(const Handle& h) {
    uint64_t next = 0;
    check_handle(h, &next);
    const bool stop = ep_.handle_opcode(h) == wire::kStop;
    held_.push_back(Held{h, acquired_, !stop});
    released_.push_back(false);
    consumer_cursor_ = next;
    if (stop) {
      stop_acquired_ = true;
      stop_k_ = acquired_;
    } else {
      ++data_out_;
      ++held_data_;
    }
    ++acquired_;
  }

  void l2_release(uint8_t which) {
    if (held_.empty()) return;
    calling();
    const size_t i = which % held_.size();
    call_op_ = wire::kOpInputRelease;
    const bool ok = ep_.release(held_[i].h);
    check_dead_refuses(ok, "release");
    if (!live_before_) return;
    if (!ok) {
      SPSQ_FUZZ_REPORT(l2_release_refused(vs_.failed, ep_.handle_seq(held_[i].h), message()));
      soft_ok_ = true;  // a failed read without mutation may leave it live (AMB.READFAIL)
      return;
    }
    on_released(i);
  }

  // The model's side of a successful release: the completed FIFO prefix is
  // physically released (the head, checked after the step, follows it).
  void on_released(size_t i) {
    const Held hd = held_[i];
    held_.erase(held_.begin() + static_cast<std::ptrdiff_t>(i));
    released_[hd.k] = true;
    last_released_ = hd.h;
    have_released_ = true;
    if (hd.data) --held_data_;
    while (phys_head_ < acquired_ && released_[phys_head_]) {
      if (phys_head_ != stop_k_ || !stop_acquired_) --data_out_;
      ++phys_head_;
    }
  }

  // ------------------------------------------------------------ L2 output

  bool output_predictable() const {
    return live_before_ && !output_counters_tampered_ && !output_area_tampered_ && !vs_.failed &&
           vs_.fault_in == 0;
  }

  static void hook_consume(void* self) { static_cast<L2Stream*>(self)->l3_consume(); }

  void l2_reserve(uint64_t n, uint64_t timeout, bool hook, bool blocking) {
    if (active_) return;  // a second reservation is misuse, driven by kL2Misuse
    calling();
    Reservation r;
    if (blocking && timeout == 0) {
      const uint64_t t0 = FuzzTime::now();
      const bool ok = ep_.reserve(n, 0, &r);
      if (live_before_) check_no_attempt(ok, t0);
      check_dead_refuses(ok, "reserve(0)");
      return;
    }
    const bool predict = !blocking && output_predictable();
    const bool room = predict && output_room(n);
    const uint64_t t0 = FuzzTime::now();
    const uint64_t cut0 = vs_.cut_short;
    if (hook) {
      vs_.wait_hook = &hook_consume;
      vs_.wait_hook_arg = this;
    }
    const bool ok = blocking ? ep_.reserve(n, timeout, &r) : ep_.try_reserve(n, &r);
    vs_.wait_hook = nullptr;
    check_dead_refuses(ok, blocking ? "reserve" : "try_reserve");
    if (predict) check_reserve_answer(n, ok, room);
    if (ok) {
      on_reserved(r, n);
      return;
    }
    if (blocking && ep_.live() && n <= lay_.output_arena_bytes && kind() == wire::kKindNone) {
      L2Expired o;
      o.reserve = true;
      o.available = output_predictable() && output_room(n);
      o.room = room_at(n);
      check_expired(&o, t0, timeout, cut0);
    }
  }

  SPSQ_FUZZ_NO_COVERAGE void check_reserve_answer(uint64_t n, bool ok, bool room) {
    L2TryReserve o;
    o.ok = ok;
    o.room = room;
    o.at = room_at(n);
    o.live = ep_.live();
    o.kind = kind();
    o.initiator_flag = region_.counter(wire::kInitiatorFlag);
    o.message = message();
    SPSQ_FUZZ_REPORT(l2_try_reserve(o));
  }

  // The output side as the model keeps it, for a reservation of n bytes
  // (l2_refusal_clauses).
  L2Room room_at(uint64_t n) const {
    L2Room r;
    r.n = n;
    r.cursor = out_cursor_;
    r.released_cursor = released_out_cursor();
    r.arena = lay_.output_arena;
    r.arena_bytes = lay_.output_arena_bytes;
    r.published = out_pub_;
    r.consumed = l3_consumed_;
    r.depth = lay_.depth;
    return r;
  }

  uint64_t released_out_cursor() const {
    return l3_consumed_ == 0 ? 0 : out_cursor_after_[l3_consumed_ - 1];
  }

  SPSQ_FUZZ_NO_COVERAGE bool output_room(uint64_t n) const {
    const Placement p = place(out_cursor_, n, lay_.output_arena, lay_.output_arena_bytes);
    return has_room(out_pub_, l3_consumed_, lay_.depth, out_cursor_, released_out_cursor(), p, n,
                    lay_.output_arena_bytes);
  }

  SPSQ_FUZZ_NO_COVERAGE void on_reserved(const Reservation& r, uint64_t n) {
    const Placement p = place(out_cursor_, n, lay_.output_arena, lay_.output_arena_bytes);
    L2Reservation o;
    o.n = n;
    o.arena_bytes = lay_.output_arena_bytes;
    o.nbytes = ep_.reservation_nbytes(r);
    o.offset = offset_of(ep_.reservation_payload(r), o.nbytes);
    o.placed = p.offset;
    SPSQ_FUZZ_REPORT(l2_reservation(o));
    active_ = true;
    r_ = r;
    r_next_cursor_ = p.next;
  }

  void l2_publish(uint64_t opcode) {
    if (!active_) return;
    calling();
    const uint64_t seq = out_pub_ + 1;
    const uint64_t n = ep_.reservation_nbytes(r_);
    uint8_t* dst = ep_.reservation_payload(r_);
    for (uint64_t i = 0; i < n; ++i) dst[i] = pattern_byte(cfg_.salt ^ 0xa5, seq, i);
    call_op_ = wire::kOpOutputPublish;
    const bool ok = ep_.publish(r_, opcode);
    active_ = false;  // consumed either way
    last_published_ = r_;
    have_published_ = true;
    check_dead_refuses(ok, "publish");
    if (!live_before_) return;
    if (!ok) {
      SPSQ_FUZZ_REPORT(l2_publish_refused(vs_.failed, message()));
      return;
    }
    const uint64_t off = offset_of(dst, n);
    check_publish(opcode, seq, off, n);
    out_sent_.push_back(Sent{opcode, off, n, false});
    out_cursor_after_.push_back(r_next_cursor_);
    out_cursor_ = r_next_cursor_;
    ++out_pub_;
  }

  // The descriptor and payload of a publish, then the order of its writes.
  SPSQ_FUZZ_NO_COVERAGE void check_publish(uint64_t opcode, uint64_t seq, uint64_t off,
                                           uint64_t n) {
    const uint64_t slot = lay_.output_slot(out_pub_);
    L2Published o;
    o.d = region_.desc_at(slot);
    o.seq = seq;
    o.opcode = opcode;
    o.offset = off;
    o.nbytes = n;
    o.payload = region_.payload();
    o.salt = cfg_.salt ^ 0xa5;
    SPSQ_FUZZ_REPORT(l2_published(o));
    SPSQ_FUZZ_REPORT(l2_publish_order(vs_.log, vs_.logged, FuzzViewState::kLogCapacity, slot));
  }

  // ------------------------------------------------------------ misuse

  // Another queue like this one, built on first use; null if it is not live.
  Foreign* foreign() {
    if (!foreign_) foreign_.reset(new Foreign(cfg_));
    return foreign_->ep->live() ? foreign_.get() : nullptr;
  }

  // A handle of another queue: the other queue's first input, taken once.
  bool foreign_handle(Handle* out) {
    if (!foreign_ || !foreign_->tried_h) {
      if (!foreign()) return false;
      foreign_->tried_h = true;
      FuzzMemory& m = foreign_->mem;
      const ModelLayout& l = m.layout();
      const uint64_t n = 1 + cfg_.salt % 8;
      for (uint64_t i = 0; i < n; ++i) m.payload()[l.input_arena + i] = pattern_byte(0, 1, i);
      m.put_desc_at(l.input_slot(0), wire::Descriptor{1, wire::kData, l.input_arena, n});
      m.set_counter(wire::kInputTail, 1);
      foreign_->have = foreign_->ep->try_peek(&foreign_->h);
      SPSQ_FUZZ_REPORT(l2_foreign_input(foreign_->have));
    }
    if (!foreign_->have) return false;
    *out = foreign_->h;
    return true;
  }

  // A reservation of another queue, of n bytes, taken once (the other queue
  // keeps it active: it is never published there).
  bool foreign_reservation(uint64_t n, Reservation* out) {
    Foreign* f = foreign();
    if (!f) return false;
    if (!f->tried_r) {
      f->tried_r = true;
      f->have_r = f->ep->try_reserve(n % (cfg_.out + 1), &f->r);
      SPSQ_FUZZ_REPORT(l2_foreign_reservation(f->have_r, f->ep->message()));
    }
    if (!f->have_r) return false;
    *out = f->r;
    return true;
  }

  void l2_misuse(uint8_t variant, uint8_t arg) {
    bool ok = false;
    switch (variant) {
      case kReleaseStale:
        if (!have_released_) return;
        calling();
        call_op_ = wire::kOpInputRelease;
        ok = ep_.release(last_released_);
        break;
      case kReleaseBadSeq: {
        if (held_.empty()) return;
        Handle h = held_[arg % held_.size()].h;
        const uint64_t forged = ep_.handle_seq(h) + 1 + arg % 3;
        ep_.forge_seq(&h, forged);
        calling();
        // A forged handle equal, in every field the contract shows, to one L2
        // holds may be taken for that handle; any other must poison.
        for (size_t i = 0; i < held_.size(); ++i) {
          const Handle& g = held_[i].h;
          if (ep_.handle_seq(g) != forged || ep_.handle_opcode(g) != ep_.handle_opcode(h) ||
              ep_.handle_nbytes(g) != ep_.handle_nbytes(h) ||
              ep_.handle_payload(g) != ep_.handle_payload(h)) {
            continue;
          }
          call_op_ = wire::kOpInputRelease;
          const bool legit = ep_.release(h);
          check_dead_refuses(legit, "release");
          if (!live_before_) return;
          if (legit) {
            on_released(i);
          } else {
            misuse_step_ = honesty_.misuse = true;
            SPSQ_FUZZ_REPORT(l2_refused_release(ep_.live(), vs_.failed));
          }
          return;
        }
        call_op_ = wire::kOpInputRelease;
        ok = ep_.release(h);
        break;
      }
      case kReleaseBadOwner: {
        if (held_.empty()) return;
        Handle h;
        if (!foreign_handle(&h)) return;
        calling();
        call_op_ = wire::kOpInputRelease;
        ok = ep_.release(h);
        break;
      }
      case kReserveTwice: {
        if (!active_) return;
        calling();
        Reservation r;
        ok = ep_.try_reserve(arg, &r);
        misuse_step_ = true;
        if (!live_before_) {
          check_dead_refuses(ok, "try_reserve");
          return;
        }
        if (!ep_.live()) honesty_.misuse = true;
        // AMB.RESERVE: refused and live (A), poison (B), or the active
        // reservation again (C); a second, distinct one is FAIL.
        L2SecondReserve o;
        o.ok = ok;
        if (ok) {
          o.nbytes = ep_.reservation_nbytes(r);
          o.active_nbytes = ep_.reservation_nbytes(r_);
          o.payload = ep_.reservation_payload(r);
          o.active_payload = ep_.reservation_payload(r_);
          o.live = ep_.live();
        }
        SPSQ_FUZZ_REPORT(l2_second_reserve(o));
        if (ep_.live()) soft_ok_ = true;
        return;
      }
      case kPublishStale:
        if (!have_published_) return;
        calling();
        call_op_ = wire::kOpOutputPublish;
        ok = ep_.publish(last_published_, wire::kData);
        break;
      case kPublishBadOp: {
        if (!active_) return;
        calling();
        static constexpr uint64_t kBad[3] = {wire::kStop, wire::kInvalid, 7};
        call_op_ = wire::kOpOutputPublish;
        ok = ep_.publish(r_, kBad[arg % 3]);
        active_ = false;
        break;
      }
      // The variants below leave the model's active reservation alone: none of
      // them names it, so a refusal (failed view) leaves it with the endpoint.
      case kPublishNever: {
        calling();
        Reservation never = ep_.reservation();
        call_op_ = wire::kOpOutputPublish;
        ok = ep_.publish(never, wire::kData);
        break;
      }
      case kPublishForgedSize: {
        if (!active_) return;
        const uint64_t n = ep_.reservation_nbytes(r_), d = 1 + (arg & 63);
        Reservation forged = r_;
        ep_.forge_nbytes(&forged, (arg & 0x80) && n >= d ? n - d : n + d);
        calling();
        call_op_ = wire::kOpOutputPublish;
        ok = ep_.publish(forged, wire::kData);
        break;
      }
      case kPublishForeign: {
        Reservation theirs;
        if (!foreign_reservation(arg, &theirs)) return;
        calling();
        call_op_ = wire::kOpOutputPublish;
        ok = ep_.publish(theirs, wire::kData);
        break;
      }
      case kReleaseSeqZero: {
        if (held_.empty()) return;
        Handle h = held_[arg % held_.size()].h;
        ep_.forge_seq(&h, 0);  // seq is 1-based: no handle L2 holds has seq 0
        calling();
        call_op_ = wire::kOpInputRelease;
        ok = ep_.release(h);
        break;
      }
    }
    misuse_step_ = true;
    check_dead_refuses(ok, "misuse");
    if (!live_before_) return;
    honesty_.misuse = true;
    L2MisuseAnswer o;
    o.variant = variant;
    o.arg = arg;
    o.ok = ok;
    o.live = ep_.live();
    o.view_failed = vs_.failed;
    SPSQ_FUZZ_REPORT(l2_misuse_answer(o));
    if (ep_.live()) soft_ok_ = true;  // a failed view may refuse before judging
  }

  // ------------------------------------------------------------ hostile L3

  void hostile_counter(uint64_t off, uint8_t mode, uint32_t v) {
    honesty_.hostile = true;
    note_touched(spsq_fuzz::hostile_counter(region_, off, mode, v));
  }

  void hostile_desc(uint8_t slot, uint8_t field, uint8_t mode, uint64_t v) {
    honesty_.hostile = true;
    note_touched(hostile_descriptor(region_.payload(), lay_, slot, field, mode, v));
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
    if (stop_sent_ && seq_mode % 4 == 0 && op % 4 == wire::kStop) return;
    if (!wire::reconstruct(l3_head_, region_.counter(wire::kInputHead), lay_.depth, &head) ||
        head > l3_pub_) {
      return;
    }
    l3_head_ = head;
    if (l3_pub_ - l3_head_ >= lay_.depth) return;  // even a hostile L3 keeps the ring sane here
    honesty_.hostile = true;
    const wire::Descriptor d =
        hostile_next_descriptor(input_of(lay_), l3_pub_, &l3_cursor_, op, off_mode, n, seq_mode);
    publish_input(d);
    sent_.push_back(Sent{d.opcode, d.offset, d.nbytes, true});
    cursor_after_.push_back(l3_cursor_);
    if (d.opcode == wire::kStop) stop_sent_ = true;
  }

  void hostile_scribble(uint16_t off, uint8_t v) {
    honesty_.hostile = true;
    payload_tampered_ = true;
    region_.payload()[lay_.input_arena + off % lay_.input_arena_bytes] = v;
  }

  // ------------------------------------------------------------ after every step

  // The error is still the first one (compared in place: no copy per step).
  SPSQ_FUZZ_NO_COVERAGE bool error_unchanged() const {
    const ErrorSnap& b = err_before_;
    return ep_.kind() == b.kind && ep_.op() == b.op && ep_.session() == b.session &&
           ep_.transaction() == b.txn &&
           std::strncmp(ep_.message(), b.message, sizeof(b.message) - 1) == 0;
  }

  SPSQ_FUZZ_NO_COVERAGE void end_step(uint8_t kind) {
    // Only a new error, or a live endpoint's kind, needs the whole error.
    ErrorSnap& e = err_now_;  // the other fields are read only where it was taken
    e.kind = ep_.kind();
    const bool live = ep_.live();
    if ((live_before_ && !live) || (live && e.kind != wire::kKindNone)) e = snap();
    if (!live_before_) {
      L2DeadStep o;
      o.live = live;
      o.error_unchanged = error_unchanged();
      o.wrote = vs_.writes != writes_before_;
      o.step = kOpNames[kind];
      o.first = err_before_.message;
      o.now = message();
      SPSQ_FUZZ_REPORT(l2_dead_step(o));
    }
    if (!live_ok_) return;
    check_counter_writes();
    L2ErrorState es;
    es.live = live;
    es.kind = e.kind;
    es.soft_ok = soft_ok_;
    es.view_failed = vs_.failed;
    es.call_step = call_step_;
    es.step = kOpNames[kind];
    es.message = e.message;
    SPSQ_FUZZ_REPORT(l2_error_state(es));
    if (live && e.kind != wire::kKindNone) soft_ok_ = true;
    if (live_before_ && !live) {
      L2Poison o;
      o.kind = e.kind;
      o.op = e.op;
      o.session = e.session;
      o.txn = e.txn;
      o.want_session = kSession;
      o.want_txn = kTxn;
      o.message = e.message;
      o.call_op = call_op_;
      o.view_failed = vs_.failed;
      o.misuse_step = misuse_step_;
      o.hostile = honesty_.hostile;
      o.initiator_flag = region_.counter(wire::kInitiatorFlag);
      SPSQ_FUZZ_REPORT(l2_new_poison(o));
    }
    L2AbortFlag f;
    f.live = live;
    f.kind = e.kind;
    f.view_failed = vs_.failed;
    f.writes = vs_.own_flag_writes;
    SPSQ_FUZZ_REPORT(l2_abort_flag(f));
    if (honesty_.honest()) SPSQ_FUZZ_REPORT(l2_honest_run(live, message()));
    if (!honesty_.fault && live) {
      SPSQ_FUZZ_REPORT(l2_drained(ep_.drained(), stop_acquired_ && phys_head_ > stop_k_));
    }
  }

  void trace(uint8_t kind) const {
    std::fprintf(stderr,
                 "%-16s live %d | L3 pub %" PRIu64 " head %" PRIu64 " cursor %" PRIu64
                 " | L2 acq %" PRIu64 " head %" PRIu64 " cursor %" PRIu64
                 " held %zu | out pub %" PRIu64 " cursor %" PRIu64 " consumed %" PRIu64 " | %s\n",
                 kOpNames[kind], ep_.live(), l3_pub_, l3_head_, l3_cursor_, acquired_, phys_head_,
                 consumer_cursor_, held_.size(), out_pub_, out_cursor_, l3_consumed_, message());
  }

  // Head and tail writes of this step, as the view saw them (successful
  // notifies only: a failed one changes nothing). The head moves forward,
  // never past what was acquired, and ends on the completed FIFO prefix; the
  // tail moves one step per publish.
  SPSQ_FUZZ_NO_COVERAGE void check_counter_writes() {
    for (int i = 0; i < vs_.noted; ++i) {
      const Access& a = vs_.notes[i];
      if (a.offset == wire::kInputHead) {
        L2HeadWrite w;
        w.written = head_written_;
        w.value = a.value;
        w.depth = lay_.depth;
        w.acquired = acquired_;
        SPSQ_FUZZ_REPORT(l2_input_head_write(w, &head_written_));
      } else if (a.offset == wire::kOutputTail) {
        L2TailWrite w;
        w.written = tail_written_;
        w.value = a.value;
        w.tampered = output_counters_tampered_;
        w.l3_consumed = l3_consumed_;
        w.depth = lay_.depth;
        SPSQ_FUZZ_REPORT(l2_output_tail_write(w));
        ++tail_written_;
      }
    }
    if (ep_.live()) {
      L2Counters c;
      c.head_written = head_written_;
      c.phys_head = phys_head_;
      c.tail_written = tail_written_;
      c.published = out_pub_;
      SPSQ_FUZZ_REPORT(l2_counters_settled(c));
    }
  }

  // ------------------------------------------------------------ state

  Config cfg_;
  uint64_t mi_;  // MaxInflight: 1 or 4
  FuzzViewState vs_;
  FuzzMemory region_;
  ModelLayout lay_;
  std::unique_ptr<L2StreamEndpoint> owned_;
  L2StreamEndpoint& ep_;
  std::unique_ptr<Foreign> foreign_;

  bool live_ok_ = false;  // construction succeeded
  bool live_before_ = false;
  ErrorSnap err_before_{}, err_now_{};
  bool have_dead_error_ = false;
  uint64_t calls_before_ = 0, writes_before_ = 0;
  bool misuse_step_ = false, call_step_ = false;
  uint32_t call_op_ = 0;  // INPUT_RELEASE / OUTPUT_PUBLISH when the step made that call
  bool soft_ok_ = false;  // a live non-NONE kind is one a reading allows
  uint64_t head_written_ = 0, tail_written_ = 0;  // from the view's notify log

  // Honesty.
  Honesty honesty_;
  bool input_counters_tampered_ = false, output_counters_tampered_ = false;
  bool input_desc_tampered_ = false, output_area_tampered_ = false, payload_tampered_ = false;

  // The harness's L3: input producer.
  uint64_t l3_pub_ = 0, l3_head_ = 0, l3_cursor_ = 0;
  bool stop_sent_ = false;
  std::vector<Sent> sent_;
  std::vector<uint64_t> cursor_after_;
  uint64_t hook_size_ = 0;

  // L2's input, as the model tracks it: physically owned DATA (data_out_)
  // and held DATA handles (held_data_) differ after out-of-order releases.
  uint64_t acquired_ = 0, phys_head_ = 0, consumer_cursor_ = 0, data_out_ = 0, held_data_ = 0;
  bool stop_acquired_ = false;
  uint64_t stop_k_ = 0;
  std::vector<Held> held_;
  std::vector<bool> released_;
  Handle last_released_;
  bool have_released_ = false;

  // L2's output, as the model tracks it.
  uint64_t out_pub_ = 0, out_cursor_ = 0;
  std::vector<Sent> out_sent_;
  std::vector<uint64_t> out_cursor_after_;
  bool active_ = false;
  Reservation r_;
  uint64_t r_next_cursor_ = 0;
  Reservation last_published_;
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
  FuzzTime::reset();
  L2Stream s(cfg);
  s.run(in);
  return 0;
}
