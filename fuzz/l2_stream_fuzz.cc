// Harness 4: the L2 descriptor stream. The fuzzer plays the L3 side of one
// queue against an L2 endpoint under test, SPSQ_CERT_ENDPOINT<FuzzView, N>
// (N = 1 and 4) from a certification config ("spsq_cert/config.h", see
// fuzz/l2_stream.bzl): an honest L3 that enqueues, stops and consumes
// outputs, the same L3 turned hostile (counter values, descriptor bytes,
// crafted descriptors, payload scribbles, the abort flag), and the L2 code
// calling the endpoint (peek, release in any order, reserve, publish, misuse,
// timeouts on a virtual clock), interleaved as the input says.
//
// The endpoint is reached only through spsq_conf::EndpointAccess /
// EndpointTypes (conformance/l2/endpoint_access.h), so adapter endpoints
// work; the wire is spoken through fuzz/wire_model.h and the view is
// FuzzView: nothing here includes the reference. Where the spec leaves a
// choice open (the OPEN.* and AMB.* clauses), every legal answer passes.
//
// Input: fuzz/l2_stream_input.h. After every step (fuzz/README.md lists them):
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
// Each check names the catalogue clauses it judges (SPSQ_FUZZ_CLAUSE_CHECK).
// The checks after every step are the oracles of fuzz/l2_stream_oracles.h and
// fuzz/stream_oracles.h, reported with SPSQ_FUZZ_REPORT; the step loop is
// fuzz/stream_skeleton.h's. What stays here is the endpoint, its world and
// model, and the checks of one call's answer against that model.
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
#include "fuzz/l2_stream_input.h"
#include "fuzz/l2_stream_oracles.h"
#include "fuzz/oracle_verdict.h"
#include "fuzz/stream_oracles.h"
#include "fuzz/stream_skeleton.h"
#include "fuzz/wire_model.h"
#include "spsq_cert/config.h"

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

// The answers a call may legally give (bits): progress, ordinary
// no-progress (live, kind NONE), a refusal with a non-poison kind (live),
// poison that names the descriptor (INVALID_DESCRIPTOR), poison of any local
// kind (misuse, or a fault whose kind no document fixes: AMB.KINDS), and
// REMOTE_ABORTED with the initiator flag raised (AMB.TRYABORT B).
constexpr uint32_t kProgress = 1u << 0;
constexpr uint32_t kNothing = 1u << 1;
constexpr uint32_t kSoft = 1u << 2;
constexpr uint32_t kPoisonDesc = 1u << 3;
constexpr uint32_t kPoisonLocal = 1u << 4;
constexpr uint32_t kRemoteAbort = 1u << 5;

template <uint64_t MI>
class L2Stream {
 public:
  // The shared hostile peer applies its edits through the private hooks below.
  template <class Harness>
  friend void spsq_fuzz::run_hostile_edit(Harness& h, uint8_t which, FuzzReader& in);

  using Endpoint = SPSQ_CERT_ENDPOINT<FuzzView, MI>;
  using Api = spsq_conf::EndpointAccess<Endpoint>;
  using Handle = typename Api::Handle;
  using Reservation = typename Api::Reservation;
  using Binding = typename Api::Binding;
  using Clock = typename Api::Clock;

  explicit L2Stream(const Config& c)
      : cfg_(c),
        region_(c.depth, c.in, c.out),
        lay_(region_.layout()),
        ep_(binding(region_, c.binding_fault), FuzzView(&region_, &init_view()), clock()) {
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
    Endpoint ep;
    Handle h{};
    bool have = false;
    bool tried_h = false;  // its first input was set up and peeked
    Reservation r{};
    bool have_r = false, tried_r = false;
    Foreign(const Config& c)
        : mem(c.depth, c.in, c.out),
          ep(binding(mem, -1), FuzzView(&mem, &vs), Api::clock(&FuzzTime::now_ns)) {}
  };

  FuzzViewState& init_view() {
    vs_.role = FuzzRole::L2;
    vs_.half_waits = cfg_.half_waits;
    if (cfg_.binding_fault == 7) {  // the mapping was already gone
      spsq_conf::fail_view(&vs_.failed, &vs_.error, "view failed before use");
    }
    return vs_;
  }

  // Fault 6: L2 code forgot the clock.
  Clock clock() const { return Api::clock(cfg_.binding_fault == 6 ? nullptr : &FuzzTime::now_ns); }

  // The binding L3 hands over, decoded by the endpoint's own decoder, then
  // (faults 0-5) one field broken through the names the spec lists.
  static Binding binding(const FuzzMemory& m, int fault) {
    const auto s = wire::binding_scalars(
        wire::binding_for(m.layout(), m.payload_base(), m.counter_base(), kSession, kTxn));
    Binding b{};
    SPSQ_FUZZ_CLAUSE_CHECK("S1.BIND.ORDER,W.BIND.1", Api::decode(s.data(), s.size(), &b),
                           "decode_endpoint_binding rejected a valid binding");
    switch (fault) {
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

  SPSQ_FUZZ_NO_COVERAGE ErrorSnap snap() const {
    ErrorSnap s;
    s.kind = Api::kind(ep_);
    s.op = Api::op(ep_);
    s.session = Api::session(ep_);
    s.txn = Api::transaction(ep_);
    const size_t cap = Api::message_capacity(ep_);
    const size_t n = strnlen(Api::message(ep_), cap < sizeof(s.message) ? cap : sizeof(s.message));
    std::memcpy(s.message, Api::message(ep_), n < sizeof(s.message) ? n : sizeof(s.message) - 1);
    return s;
  }
  uint32_t kind() const { return Api::kind(ep_); }
  const char* message() const { return Api::message(ep_); }

  // ------------------------------------------------------------ construction

  SPSQ_FUZZ_NO_COVERAGE void check_construction() {
    SPSQ_FUZZ_CLAUSE_CHECK("S1.WIN.8,S1.WIN.9,W.FLAG.1", vs_.own_flag_writes == 0,
                           "construction raised the abort flag");
    const bool bad_binding = cfg_.binding_fault >= 0;
    const bool bad_window = MI > cfg_.depth;
    const ErrorSnap e = snap();
    if (!bad_binding && !bad_window) {
      SPSQ_FUZZ_CLAUSE_CHECK("S1.L2DECODE.5,S1.WIN.7,S2.BINDSIZE.1",
                             ep_.live() && e.kind == wire::kKindNone,
                             "valid construction failed: %s", e.message);
      const spsq_conf::LayoutFields l = Api::layout(ep_);
      SPSQ_FUZZ_CLAUSE_CHECK(
          "S2.LAYOUT.2,W.LAYOUT.1",
          l.depth == lay_.depth && l.input_ring == lay_.input_ring &&
              l.output_ring == lay_.output_ring && l.input_arena == lay_.input_arena &&
              l.input_arena_bytes == lay_.input_arena_bytes &&
              l.output_arena == lay_.output_arena &&
              l.output_arena_bytes == lay_.output_arena_bytes &&
              l.payload_bytes == lay_.payload_bytes && l.counter_bytes == wire::kCounterBytes,
          "layout() differs from the contract");
      live_ok_ = true;
      return;
    }
    SPSQ_FUZZ_CLAUSE_CHECK(bad_binding ? "S2.BINDSIZE.1,S2.BINDSIZE.2,W.BIND.1" : "S1.WIN.7",
                           !ep_.live(), "construction with a bad %s is live",
                           bad_binding ? "binding" : "MaxInflight");
    SPSQ_FUZZ_CLAUSE_CHECK("W.ENUM.3,W.ERR.1", e.op == wire::kOpInit, "construction error op %u",
                           e.op);
    // A window wider than depth is BAD_ARGUMENT (S1.WIN.8). No document fixes
    // the kind of a broken binding, clock or view, beyond a construction
    // error: any of the three construction kinds is accepted there.
    if (!bad_binding) {
      SPSQ_FUZZ_CLAUSE_CHECK("S1.WIN.8", e.kind == wire::kBadArgument,
                             "MaxInflight %" PRIu64 " > depth %" PRIu64 " gave kind %u: %s", MI,
                             cfg_.depth, e.kind, e.message);
    } else {
      SPSQ_FUZZ_CLAUSE_CHECK("W.ERR.1,W.ENUM.2",
                             e.kind == wire::kBadBinding || e.kind == wire::kBadArgument ||
                                 e.kind == wire::kEndpointError,
                             "construction fault %d (window %d) gave kind %u: %s",
                             cfg_.binding_fault, bad_window, e.kind, e.message);
    }
    // Identity only once magic and transaction id were accepted; after that
    // an endpoint may report it or not.
    const bool rejected = cfg_.binding_fault == 1 || cfg_.binding_fault == 2;
    const bool none = e.session == 0 && e.txn == 0;
    const bool ours = e.session == kSession && e.txn == kTxn;
    SPSQ_FUZZ_CLAUSE_CHECK("W.ERR.2,S1.DIAG.1", rejected ? none : (none || ours),
                           "identity (%" PRIx64 ", %" PRIu64 ") on construction fault %d",
                           e.session, e.txn, cfg_.binding_fault);
    SPSQ_FUZZ_CLAUSE_CHECK("W.ERR.1", e.message[0] != '\0', "construction error without a message");
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
    if (!wire::reconstruct(l3_head_, region_.counter(wire::kInputHead), lay_.depth, &head) ||
        head > l3_pub_) {
      SPSQ_FUZZ_CLAUSE_CHECK("S3.CTR.1,S4.L2IN.5,W.CTR.1", input_counters_tampered_,
                             "L2's input head %d is impossible (known %" PRIu64
                             ", published %" PRIu64 ")",
                             region_.counter(wire::kInputHead), l3_head_, l3_pub_);
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
    const int32_t word = region_.counter(wire::kOutputTail);
    SPSQ_FUZZ_CLAUSE_CHECK(
        "S3.CTR.1,W.CTR.1", wire::reconstruct(l3_out_tail_, word, lay_.depth, &tail),
        "L2's output tail %d is impossible (known %" PRIu64 ")", word, l3_out_tail_);
    SPSQ_FUZZ_CLAUSE_CHECK("S2.CAP.1,S4.NOPROG.1", tail - l3_consumed_ <= lay_.depth,
                           "L2 published %" PRIu64 " outputs past L3's head %" PRIu64
                           " (depth %" PRIu64 ")",
                           tail, l3_consumed_, lay_.depth);
    l3_out_tail_ = tail;
    if (tail == l3_consumed_) return;
    const uint64_t k = l3_consumed_;
    if (!output_area_tampered_) check_output_message(k);
    ++l3_consumed_;
    region_.set_counter(wire::kOutputHead, wire::low32(l3_consumed_));
  }

  SPSQ_FUZZ_NO_COVERAGE void check_output_message(uint64_t k) {
    SPSQ_FUZZ_CLAUSE_CHECK("S3.PUB.1", k < out_sent_.size(),
                           "output %" PRIu64 " appeared without a publish", k);
    const wire::Descriptor d = region_.desc_at(lay_.output_slot(k));
    const Sent& s = out_sent_[k];
    uint64_t next = 0;
    SPSQ_FUZZ_CLAUSE_CHECK("W.SEQ.1,W.DESC.1,W.ARENA.1,W.DIR.1,S2.ZERO.1",
                           desc_valid(output_of(lay_), d, k, l3_out_cursor_, &next),
                           "L2 published an invalid descriptor at output %" PRIu64 ": seq %" PRIu64
                           " op %" PRIu64 " off %" PRIu64 " n %" PRIu64,
                           k, d.seq, d.opcode, d.offset, d.nbytes);
    SPSQ_FUZZ_CLAUSE_CHECK("S0.PURPOSE.1,S4.L2OUT.2",
                           d.opcode == s.opcode && d.offset == s.offset && d.nbytes == s.nbytes,
                           "output %" PRIu64 " is not the message L2 published", k);
    for (uint64_t i = 0; i < d.nbytes; ++i) {
      SPSQ_FUZZ_CLAUSE_CHECK(
          "S0.PURPOSE.1,S3.PUB.2",
          region_.payload()[d.offset + i] == pattern_byte(cfg_.salt ^ 0xa5, k + 1, i),
          "output %" PRIu64 " byte %" PRIu64 " differs from what L2 wrote", k, i);
    }
    l3_out_cursor_ = next;
  }

  // ------------------------------------------------------------ L2 input

  bool input_predictable() const {
    return live_before_ && !input_counters_tampered_ && !vs_.failed && vs_.fault_in == 0;
  }

  // Every DATA handle the window allows is held: peeking now is the misuse
  // AMB.WINDOW grades (no extra DATA handle; A, B or C).
  bool window_held_full() const { return held_data_ >= MI; }

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
      const bool phys_full = data_out_ >= MI;
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

  // The clauses the next input descriptor breaks, in desc_valid's order (an
  // endpoint that takes it, or that does not poison, breaks them too).
  SPSQ_FUZZ_NO_COVERAGE const char* next_desc_clauses() const {
    if (stop_acquired_) return "S4.STOP.7,S4.STOP.11";
    if (acquired_ == l3_pub_) return "S4.NOPROG.1,W.CTR.2";
    const wire::Descriptor d = region_.desc_at(lay_.input_slot(acquired_));
    if (d.seq != acquired_ + 1) return "W.SEQ.1,S4.POISON.1";
    if (!input_of(lay_).carries(d.opcode)) return "W.DIR.1,S4.POISON.2";
    if (d.nbytes == 0) return d.offset == 0 ? "S4.L2IN.2,S4.L2IN.4,S1.WIN.1,S1.WIN.2" : "S2.ZERO.2";
    if (d.opcode == wire::kStop) return "W.STOP.1,S4.STOP.1";
    if (d.nbytes > lay_.input_arena_bytes) return "S2.FIT.1,S4.POISON.6";
    uint64_t next = 0;
    if (!desc_valid(input_of(lay_), d, acquired_, consumer_cursor_, &next)) {
      return "W.ARENA.3,S4.POISON.6";
    }
    return "S4.L2IN.2,S4.L2IN.4,S1.WIN.1,S1.WIN.2";
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
    Handle h{};
    if (blocking && timeout == 0) {
      const uint64_t t0 = FuzzTime::now();
      const bool ok = ep_.input().peek(0, h);
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
    const bool ok = blocking ? ep_.input().peek(timeout, h) : ep_.input().try_peek(h);
    vs_.wait_hook = nullptr;
    if (held_full && live_before_ && !ep_.live()) honesty_.misuse = true;
    check_dead_refuses(ok, blocking ? "peek" : "try_peek");
    if (ok) {
      SPSQ_FUZZ_CLAUSE_CHECK(next_desc_clauses(), !predict || (want & kProgress),
                             "try_peek acquired, the model allows answers %#x", want);
      on_acquired(h);
      return;
    }
    if (predict) check_refusal(want, "try_peek");
    if (blocking && ep_.live() && !held_full && kind() == wire::kKindNone) {
      check_expired(t0, timeout, input_predictable() && predict_peek() == kProgress, cut0,
                    "S3.TO.4,S3.TO.8");
    }
  }

  // A refusal (false) of a predicted call is one of the legal answers.
  SPSQ_FUZZ_NO_COVERAGE void check_refusal(uint32_t want, const char* call) {
    SPSQ_FUZZ_CLAUSE_CHECK("S4.NOPROG.1,S3.TO.4,LIVE.2", want != kProgress,
                           "%s refused message %" PRIu64 " the model says is available: %s", call,
                           acquired_ + 1, message());
    const uint32_t k = kind();
    if (ep_.live()) {
      if (k == wire::kKindNone) {
        SPSQ_FUZZ_CLAUSE_CHECK(next_desc_clauses(), want & kNothing,
                               "%s: a bad descriptor did not poison (answers %#x)", call, want);
      } else {
        SPSQ_FUZZ_CLAUSE_CHECK("S3.TO.5", want & kSoft, "%s stayed live with error kind %u: %s",
                               call, k, message());
      }
      return;
    }
    bool legal = false;
    if (k == wire::kInvalidDescriptor)
      legal = want & (kPoisonDesc | kPoisonLocal);
    else if (k == wire::kRemoteAborted)
      legal = want & kRemoteAbort;
    else
      legal = want & kPoisonLocal;
    SPSQ_FUZZ_CLAUSE_CHECK((want & kPoisonDesc) ? "S4.POISON.1,S4.STOP.11,W.SEQ.1,W.ARENA.3"
                                                : "S4.NOPROG.1,AMB.EMPTYIN,S3.TO.6",
                           legal, "%s poisoned with kind %u (answers %#x): %s", call, k, want,
                           message());
  }

  // A dead endpoint rejects every normal operation (S4.POISON.14).
  SPSQ_FUZZ_NO_COVERAGE void check_dead_refuses(bool ok, const char* call) {
    SPSQ_FUZZ_CLAUSE_CHECK("S4.POISON.14", live_before_ || !ok,
                           "%s succeeded on a poisoned endpoint", call);
  }

  // timeout 0 on a blocking call: a live no-attempt.
  SPSQ_FUZZ_NO_COVERAGE void check_no_attempt(bool ok, uint64_t t0) {
    SPSQ_FUZZ_CLAUSE_CHECK("S3.TO.1,S3.TO.2", !ok, "a zero timeout made progress");
    SPSQ_FUZZ_CLAUSE_CHECK("S3.TO.1,S3.TO.3", vs_.calls == calls_before_,
                           "a zero timeout touched shared memory");
    SPSQ_FUZZ_CLAUSE_CHECK("S3.TO.1", FuzzTime::now() == t0, "a zero timeout waited");
    SPSQ_FUZZ_CLAUSE_CHECK("S3.TO.1,S3.TO.2", ep_.live(), "a zero timeout poisoned: %s", message());
  }

  // A blocking call that returned false on a live endpoint: nothing to do,
  // the deadline passed (wait_expired, with AMB.WAITFALSE's readings) and the
  // peer's abort flag is down.
  SPSQ_FUZZ_NO_COVERAGE void check_expired(uint64_t t0, uint64_t timeout, bool available,
                                           uint64_t cut_before, const char* clauses) {
    SPSQ_FUZZ_CLAUSE_CHECK(clauses, !available, "blocking call gave up with work available");
    WaitExpiry w;
    w.t0 = t0;
    w.now = FuzzTime::now();
    w.timeout = timeout;
    w.cut = vs_.cut_short != cut_before;
    w.last_cut = vs_.last_cut_short;
    SPSQ_FUZZ_REPORT(wait_expired(w));
    SPSQ_FUZZ_CLAUSE_CHECK("S3.TO.7", !abort_raised(),
                           "timeout expired with the initiator abort flag at %d and no "
                           "REMOTE_ABORTED",
                           region_.counter(wire::kInitiatorFlag));
  }

  // Payload offset of a span the endpoint lent (0 for an empty one).
  uint64_t offset_of(const uint8_t* p, uint64_t n) const {
    if (n == 0) return 0;
    return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p) - region_.payload_base());
  }

  SPSQ_FUZZ_NO_COVERAGE void check_handle(const Handle& h, uint64_t* next_cursor) {
    const uint64_t seq = Api::seq(h), opcode = Api::opcode(h), n = Api::nbytes(h);
    const uint64_t off = offset_of(Api::payload(h), n);
    SPSQ_FUZZ_CLAUSE_CHECK("S4.STOP.7,S4.STOP.11", !stop_acquired_,
                           "acquired seq %" PRIu64 " after STOP", seq);
    SPSQ_FUZZ_CLAUSE_CHECK("W.SEQ.1,S0.PURPOSE.1,S2.SEQ.1", seq == acquired_ + 1,
                           "acquired seq %" PRIu64 ", want %" PRIu64, seq, acquired_ + 1);
    SPSQ_FUZZ_CLAUSE_CHECK("W.DIR.1,S2.OPC.1,S4.POISON.2",
                           opcode == wire::kData || opcode == wire::kStop || opcode == wire::kError,
                           "acquired opcode %" PRIu64, opcode);
    SPSQ_FUZZ_CLAUSE_CHECK(
        "S4.L2IN.2,S4.L2IN.4,S1.WIN.1,S1.WIN.2", opcode == wire::kStop || !window_held_full(),
        "acquired a message with %" PRIu64 " DATA handles held (window %" PRIu64 ")", held_data_,
        MI);
    // The handle obeys the arena rule and stays inside the input arena (an
    // input ERROR is judged as the DATA it is delivered like: OPEN.ERRIN A).
    wire::Descriptor d{seq, opcode == wire::kError ? wire::kData : opcode, off, n};
    SPSQ_FUZZ_CLAUSE_CHECK("W.ARENA.1,W.ARENA.3,S2.ZERO.1,W.STOP.1,S4.STOP.1,S2.OFF.1",
                           desc_valid(input_of(lay_), d, acquired_, consumer_cursor_, next_cursor),
                           "handle seq %" PRIu64 " breaks the contract: op %" PRIu64 " [%" PRIu64
                           ", +%" PRIu64 ")",
                           seq, opcode, off, n);
    // What L3 sent, byte-exact, when nothing tampered with it (a forged head
    // counter makes the harness's L3 overwrite slots L2 has not consumed).
    const uint64_t k = acquired_;
    if (k < sent_.size() && !sent_[k].crafted && !input_desc_tampered_ &&
        !input_counters_tampered_) {
      const Sent& s = sent_[k];
      SPSQ_FUZZ_CLAUSE_CHECK("S0.PURPOSE.1,S3.PUB.5",
                             opcode == s.opcode && off == s.offset && n == s.nbytes,
                             "handle seq %" PRIu64 " is not the message L3 sent", seq);
      if (!payload_tampered_) {
        const uint8_t* p = Api::payload(h);
        for (uint64_t i = 0; i < n; ++i) {
          SPSQ_FUZZ_CLAUSE_CHECK(
              "S0.PURPOSE.1,S3.PUB.5", p[i] == pattern_byte(cfg_.salt, seq, i),
              "handle seq %" PRIu64 " byte %" PRIu64 " differs from what L3 sent", seq, i);
        }
      }
    }
  }

  void on_acquired(const Handle& h) {
    uint64_t next = 0;
    check_handle(h, &next);
    const bool stop = Api::opcode(h) == wire::kStop;
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
    const bool ok = ep_.input().release(held_[i].h);
    check_dead_refuses(ok, "release");
    if (!live_before_) return;
    if (!ok) {
      SPSQ_FUZZ_CLAUSE_CHECK("S4.L2IN.5,S4.OWN.1", vs_.failed,
                             "release of held seq %" PRIu64 " failed: %s", Api::seq(held_[i].h),
                             message());
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
    Reservation r{};
    if (blocking && timeout == 0) {
      const uint64_t t0 = FuzzTime::now();
      const bool ok = ep_.output().reserve(n, 0, r);
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
    const bool ok = blocking ? ep_.output().reserve(n, timeout, r) : ep_.output().try_reserve(n, r);
    vs_.wait_hook = nullptr;
    check_dead_refuses(ok, blocking ? "reserve" : "try_reserve");
    if (predict) check_reserve_answer(n, ok, room);
    if (ok) {
      on_reserved(r, n);
      return;
    }
    if (blocking && ep_.live() && n <= lay_.output_arena_bytes && kind() == wire::kKindNone) {
      check_expired(t0, timeout, output_predictable() && output_room(n), cut0,
                    refusal_clauses(n));
    }
  }

  SPSQ_FUZZ_NO_COVERAGE void check_reserve_answer(uint64_t n, bool ok, bool room) {
    if (ok) {
      const bool ring_full = out_pub_ - l3_consumed_ >= lay_.depth;
      SPSQ_FUZZ_CLAUSE_CHECK(ring_full ? "S2.CAP.1,S4.NOPROG.1" : "W.ARENA.2,S4.NOPROG.2", room,
                             "try_reserve(%" PRIu64 ") succeeded without room", n);
      return;
    }
    SPSQ_FUZZ_CLAUSE_CHECK(refusal_clauses(n), !room,
                           "try_reserve(%" PRIu64 ") refused, the model has room: %s", n,
                           message());
    if (!ep_.live()) {
      SPSQ_FUZZ_CLAUSE_CHECK("S4.NOPROG.1,S4.NOPROG.2,S3.TO.6",
                             kind() == wire::kRemoteAborted && abort_raised(),
                             "try_reserve(%" PRIu64 ") poisoned: %s", n, message());
    } else {
      SPSQ_FUZZ_CLAUSE_CHECK("S3.TO.5,S4.NOPROG.2", kind() == wire::kKindNone,
                             "try_reserve(%" PRIu64 ") refused with error kind %u: %s", n, kind(),
                             message());
    }
  }

  // What refusing a reservation the model has room for breaks: on an idle
  // arena, where only the literal room bound refuses it (AMB.ROOM B), the
  // liveness clauses; one short of depth, capacity; else the room rule.
  const char* refusal_clauses(uint64_t n) const {
    const Placement p = place(out_cursor_, n, lay_.output_arena, lay_.output_arena_bytes);
    const uint64_t released = released_out_cursor();
    if (n != 0 && p.next - released > lay_.output_arena_bytes) return "LIVE.1,W.LIVE.1,W.LIVE.3";
    if (out_pub_ - l3_consumed_ == lay_.depth - 1) return "S2.CAP.1";
    return "W.ARENA.2,LIVE.1";
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
    SPSQ_FUZZ_CLAUSE_CHECK("S2.FIT.1,W.ARENA.2", n <= lay_.output_arena_bytes,
                           "reserved %" PRIu64 " bytes of a %" PRIu64 "-byte arena", n,
                           lay_.output_arena_bytes);
    const Placement p = place(out_cursor_, n, lay_.output_arena, lay_.output_arena_bytes);
    const uint64_t rn = Api::nbytes(r), off = offset_of(Api::payload(r), rn);
    SPSQ_FUZZ_CLAUSE_CHECK("W.ARENA.1,W.ARENA.4,S2.WRAP.1,S2.ZERO.1", rn == n && off == p.offset,
                           "reservation [%" PRIu64 ", +%" PRIu64 "), the arena rule says [%" PRIu64
                           ", +%" PRIu64 ")",
                           off, rn, p.offset, n);
    active_ = true;
    r_ = r;
    r_next_cursor_ = p.next;
  }

  void l2_publish(uint64_t opcode) {
    if (!active_) return;
    calling();
    const uint64_t seq = out_pub_ + 1;
    const uint64_t n = Api::nbytes(r_);
    uint8_t* dst = Api::payload(r_);
    for (uint64_t i = 0; i < n; ++i) dst[i] = pattern_byte(cfg_.salt ^ 0xa5, seq, i);
    call_op_ = wire::kOpOutputPublish;
    const bool ok = ep_.output().publish(r_, Api::opcode_value(opcode));
    active_ = false;  // consumed either way
    last_published_ = r_;
    have_published_ = true;
    check_dead_refuses(ok, "publish");
    if (!live_before_) return;
    if (!ok) {
      SPSQ_FUZZ_CLAUSE_CHECK("S4.L2OUT.2", vs_.failed,
                             "publish of the active reservation failed: %s", message());
      return;
    }
    const uint64_t off = offset_of(dst, n);
    check_publish(opcode, seq, off, n);
    out_sent_.push_back(Sent{opcode, off, n, false});
    out_cursor_after_.push_back(r_next_cursor_);
    out_cursor_ = r_next_cursor_;
    ++out_pub_;
  }

  // Payload, then descriptor bytes 8..31, then seq, then the tail counter.
  SPSQ_FUZZ_NO_COVERAGE void check_publish(uint64_t opcode, uint64_t seq, uint64_t off,
                                           uint64_t n) {
    const uint64_t slot = lay_.output_slot(out_pub_);
    const wire::Descriptor d = region_.desc_at(slot);
    SPSQ_FUZZ_CLAUSE_CHECK("S4.L2OUT.2,W.DESC.1,S2.DESC.1,W.SEQ.1",
                           d.seq == seq && d.opcode == opcode && d.offset == off && d.nbytes == n,
                           "published descriptor differs from the reservation");
    for (uint64_t i = 0; i < n; ++i) {
      SPSQ_FUZZ_CLAUSE_CHECK("S3.PUB.2,S0.PURPOSE.1",
                             region_.payload()[off + i] == pattern_byte(cfg_.salt ^ 0xa5, seq, i),
                             "published payload byte %" PRIu64 " differs", i);
    }
    if (vs_.logged > FuzzViewState::kLogCapacity) return;  // too long to judge the order
    int last_payload = -1, first_desc = vs_.logged, last_body = -1, first_seq = vs_.logged,
        last_seq = -1, tail = -1, last_write = -1;
    for (int i = 0; i < vs_.logged; ++i) {
      const Access& a = vs_.log[i];
      if (a.kind == AccessKind::NOTIFY && a.offset == wire::kOutputTail) tail = i;
      if (a.kind != AccessKind::WRITE) continue;
      last_write = i;
      const uint64_t lo = a.offset, hi = a.offset + a.nbytes;
      const bool touches_seq = lo < slot + 8 && hi > slot;
      const bool touches_body = lo < slot + 32 && hi > slot + 8;
      if (touches_seq || touches_body) {
        SPSQ_FUZZ_CLAUSE_CHECK("W.ORDER.1,S3.PUB.1", !(touches_seq && touches_body),
                               "seq written together with the body");
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
    SPSQ_FUZZ_CLAUSE_CHECK("S3.PUB.1,S3.PUB.2,S3.PUB.3", last_payload < first_desc,
                           "payload written after the descriptor");
    SPSQ_FUZZ_CLAUSE_CHECK("W.ORDER.1,S3.PUB.1", last_seq >= 0 && last_body < first_seq,
                           "seq not written after bytes 8..31");
    SPSQ_FUZZ_CLAUSE_CHECK("W.ORDER.1,S3.PUB.1", tail > last_seq && tail > last_write,
                           "tail not published last, after seq");
  }

  // ------------------------------------------------------------ misuse

  // Another queue like this one, built on first use; null if it is not live.
  Foreign* foreign() {
    if (!foreign_) foreign_.reset(new Foreign(cfg_));
    return foreign_->ep.live() ? foreign_.get() : nullptr;
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
      foreign_->have = foreign_->ep.input().try_peek(foreign_->h);
      SPSQ_FUZZ_CLAUSE_CHECK("S3.PUB.5,S4.NOPROG.1", foreign_->have,
                             "a second queue did not deliver its first input");
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
      f->have_r = f->ep.output().try_reserve(n % (cfg_.out + 1), f->r);
      SPSQ_FUZZ_CLAUSE_CHECK("S4.L2OUT.1,S4.NOPROG.2", f->have_r,
                             "an idle second queue refused a reservation that fits: %s",
                             Api::message(f->ep));
    }
    if (!f->have_r) return false;
    *out = f->r;
    return true;
  }

  void l2_misuse(uint8_t variant, uint8_t arg) {
    bool ok = false;
    const char* clauses = "S4.POISON.9";
    switch (variant) {
      case kReleaseStale:
        if (!have_released_) return;
        calling();
        call_op_ = wire::kOpInputRelease;
        ok = ep_.input().release(last_released_);
        clauses = "S4.POISON.9";
        break;
      case kReleaseBadSeq: {
        if (held_.empty()) return;
        Handle h = held_[arg % held_.size()].h;
        const uint64_t forged = Api::seq(h) + 1 + arg % 3;
        Api::forge_seq(h, forged);
        calling();
        // A forged handle equal, in every field the contract shows, to one L2
        // holds may be taken for that handle; any other must poison.
        for (size_t i = 0; i < held_.size(); ++i) {
          const Handle& g = held_[i].h;
          if (Api::seq(g) != forged || Api::opcode(g) != Api::opcode(h) ||
              Api::nbytes(g) != Api::nbytes(h) || Api::payload(g) != Api::payload(h)) {
            continue;
          }
          call_op_ = wire::kOpInputRelease;
          const bool legit = ep_.input().release(h);
          check_dead_refuses(legit, "release");
          if (!live_before_) return;
          if (legit) {
            on_released(i);
          } else {
            misuse_step_ = honesty_.misuse = true;
            SPSQ_FUZZ_CLAUSE_CHECK("S4.POISON.9", !ep_.live() || vs_.failed,
                                   "a refused release did not poison");
          }
          return;
        }
        call_op_ = wire::kOpInputRelease;
        ok = ep_.input().release(h);
        break;
      }
      case kReleaseBadOwner: {
        if (held_.empty()) return;
        Handle h{};
        if (!foreign_handle(&h)) return;
        calling();
        call_op_ = wire::kOpInputRelease;
        ok = ep_.input().release(h);
        clauses = "S4.POISON.9,S4.OWN.1";
        break;
      }
      case kReserveTwice: {
        if (!active_) return;
        calling();
        Reservation r{};
        ok = ep_.output().try_reserve(arg, r);
        misuse_step_ = true;
        if (!live_before_) {
          check_dead_refuses(ok, "try_reserve");
          return;
        }
        if (!ep_.live()) honesty_.misuse = true;
        // AMB.RESERVE: refused and live (A), poison (B), or the active
        // reservation again (C); a second, distinct one is FAIL.
        if (ok) {
          SPSQ_FUZZ_CLAUSE_CHECK("S4.L2OUT.1,S4.L2OUT.7",
                                 Api::nbytes(r) == Api::nbytes(r_) &&
                                     Api::payload(r) == Api::payload(r_) && ep_.live(),
                                 "a second reserve gave a second reservation");
        }
        if (ep_.live()) soft_ok_ = true;
        return;
      }
      case kPublishStale:
        if (!have_published_) return;
        calling();
        call_op_ = wire::kOpOutputPublish;
        ok = ep_.output().publish(last_published_, Api::opcode_value(wire::kData));
        clauses = "S4.L2OUT.3,S4.L2OUT.4,S4.L2OUT.5";
        break;
      case kPublishBadOp: {
        if (!active_) return;
        calling();
        static constexpr uint64_t kBad[3] = {wire::kStop, wire::kInvalid, 7};
        call_op_ = wire::kOpOutputPublish;
        ok = ep_.output().publish(r_, Api::opcode_value(kBad[arg % 3]));
        active_ = false;
        clauses = arg % 3 == 0 ? "S2.STOP.1,S4.POISON.3,W.DIR.1" : "S4.POISON.2,W.ENUM.1,W.DIR.1";
        break;
      }
      // The variants below leave the model's active reservation alone: none of
      // them names it, so a refusal (failed view) leaves it with the endpoint.
      case kPublishNever: {
        calling();
        Reservation never{};
        call_op_ = wire::kOpOutputPublish;
        ok = ep_.output().publish(never, Api::opcode_value(wire::kData));
        clauses = "S4.L2OUT.3";
        break;
      }
      case kPublishForgedSize: {
        if (!active_) return;
        const uint64_t n = Api::nbytes(r_), d = 1 + (arg & 63);
        Reservation forged = r_;
        Api::forge_nbytes(forged, (arg & 0x80) && n >= d ? n - d : n + d);
        calling();
        call_op_ = wire::kOpOutputPublish;
        ok = ep_.output().publish(forged, Api::opcode_value(wire::kData));
        clauses = "S4.L2OUT.3";
        break;
      }
      case kPublishForeign: {
        Reservation theirs{};
        if (!foreign_reservation(arg, &theirs)) return;
        calling();
        call_op_ = wire::kOpOutputPublish;
        ok = ep_.output().publish(theirs, Api::opcode_value(wire::kData));
        clauses = "S4.L2OUT.6";
        break;
      }
      case kReleaseSeqZero: {
        if (held_.empty()) return;
        Handle h = held_[arg % held_.size()].h;
        Api::forge_seq(h, 0);  // seq is 1-based: no handle L2 holds has seq 0
        calling();
        call_op_ = wire::kOpInputRelease;
        ok = ep_.input().release(h);
        clauses = "S4.POISON.9";
        break;
      }
    }
    misuse_step_ = true;
    check_dead_refuses(ok, "misuse");
    if (!live_before_) return;
    honesty_.misuse = true;
    SPSQ_FUZZ_CLAUSE_CHECK(clauses, !ok, "misuse %u succeeded", variant);
    SPSQ_FUZZ_CLAUSE_CHECK(clauses, !ep_.live() || vs_.failed, "misuse %u did not poison", variant);
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
    return Api::kind(ep_) == b.kind && Api::op(ep_) == b.op && Api::session(ep_) == b.session &&
           Api::transaction(ep_) == b.txn &&
           std::strncmp(Api::message(ep_), b.message, sizeof(b.message) - 1) == 0;
  }

  SPSQ_FUZZ_NO_COVERAGE void end_step(uint8_t kind) {
    // Only a new error, or a live endpoint's kind, needs the whole error.
    ErrorSnap& e = err_now_;  // the other fields are read only where it was taken
    e.kind = Api::kind(ep_);
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
      SPSQ_FUZZ_REPORT(l2_drained(ep_.input().drained(), stop_acquired_ && phys_head_ > stop_k_));
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
  FuzzViewState vs_;
  FuzzMemory region_;
  ModelLayout lay_;
  Endpoint ep_;
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
  Handle last_released_{};
  bool have_released_ = false;

  // L2's output, as the model tracks it.
  uint64_t out_pub_ = 0, out_cursor_ = 0;
  std::vector<Sent> out_sent_;
  std::vector<uint64_t> out_cursor_after_;
  bool active_ = false;
  Reservation r_{};
  uint64_t r_next_cursor_ = 0;
  Reservation last_published_{};
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
  if (cfg.max_inflight == 4) {
    L2Stream<4> s(cfg);
    s.run(in);
  } else {
    L2Stream<1> s(cfg);
    s.run(in);
  }
  return 0;
}
