// Harness 5: the L3 output stream, the mirror image of harness 4. The fuzzer
// plays the L2 side of one queue against an L3 queue under test, reached only
// through its spsq_conf::L3Adapter (make_l3_adapter(), linked in by
// spsq_l3_stream_harness): an honest L2 that consumes inputs and publishes
// outputs, the same L2 turned hostile (counters, descriptor bytes, crafted
// output descriptors, payload scribbles, the peer abort flag), and the L3
// code calling the queue (enqueue, STOP, peek, read_into, release, dequeue,
// usage errors, misuse, free, timeouts on the virtual clock).
//
// The queue runs on guarded RegionMemory through the recording, fault-injecting
// HarnessView and measures time with VirtualClock; the harness speaks the wire
// through the conformance wire model. Nothing here names an implementation.
//
// Input: fuzz/l3_stream_input.h. Each call's answer and every step are judged:
//   - no access outside the spans or outside L3's regions and signals;
//   - poison is terminal and first-error-wins; a dead or freed queue touches nothing;
//   - a rejected call never poisons and never touches shared memory;
//   - the initiator abort flag is raised once, and only for a local poison;
//   - every new error is one the step can explain;
//   - an output handle obeys the arena rule and stays the same until released;
//   - the input tail moves by one per published message, in the contract's
//     publish order; the output head by one per release;
//   - where the harness's L2 was honest about the counters involved, try_enqueue
//     and try_peek do what the model allows;
//   - while everyone is honest nothing fails, and every message arrives
//     byte-exact, in order, in both directions.
// The judgments are the oracles of fuzz/l3_stream_oracles.h and
// fuzz/stream_oracles.h, each naming the clauses it charges; the harness
// drives the steps, keeps the model (what the queue may answer), fills each
// oracle's observation and reports its verdict with SPSQ_FUZZ_REPORT. The
// step loop is fuzz/stream_skeleton.h's.
// Where the contract leaves a choice open, every legal answer passes:
// AMB.ROOM (an idle arena may refuse), OPEN.ABORTSAMPLE / AMB.TRYABORT (a call
// may report a raised peer flag early), AMB.KINDS (the kind of a poison whose
// kind no document fixes), and whether a valid-looking but corrupt binding
// the L3 side is not required to check is refused.
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "testkit/access_log.h"
#include "testkit/fault_plan.h"
#include "testkit/harness_view.h"
#include "testkit/layout_fields.h"
#include "testkit/region_memory.h"
#include "testkit/virtual_clock.h"
#include "conformance/l3/l3_adapter.h"
#include "model/view_parts.h"
#include "model/wire_model.h"
#include "fuzz/fuzz_bytes.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/hostile_peer.h"
#include "fuzz/l3_stream_input.h"
#include "fuzz/l3_stream_oracles.h"
#include "fuzz/oracle_verdict.h"
#include "fuzz/stream_oracles.h"
#include "fuzz/stream_skeleton.h"
#include "fuzz/wire_model.h"

namespace spsq_fuzz {
namespace {

using spsq_conf::Access;
using spsq_conf::AccessKind;
using spsq_conf::AccessLog;
using spsq_conf::FaultPlan;
using spsq_conf::HarnessView;
using spsq_conf::L3Adapter;
using spsq_conf::L3ErrorInfo;
using spsq_conf::L3Message;
using spsq_conf::L3Status;
using spsq_conf::RegionMemory;
using spsq_conf::ViewState;
using spsq_conf::VirtualClock;

constexpr uint64_t kSession = 0x1330000000000001ull;
constexpr uint64_t kTxn = 11;
constexpr uint64_t kMaxArena = 512;

struct Config {
  uint64_t depth, in, out, salt;
  bool half_waits;
  int binding_fault;
};

Config parse_config(FuzzReader& in) {
  Config c;
  const uint8_t a = in.u8(), b = in.u8();
  c.depth = uint64_t{1} << (a & 3);
  c.half_waits = (a >> 2) & 1;
  c.salt = a >> 4;
  const StreamArenas arenas = read_arenas(b, in, 6);
  c.in = arenas.in;
  c.out = arenas.out;
  c.binding_fault = arenas.binding_fault;
  return c;
}

// Region memory is mapped once per payload size and zeroed for every input:
// mapping guard pages per run would cost more than the run.
RegionMemory& memory_for(const wire::Layout& l) {
  static std::map<uint64_t, std::unique_ptr<RegionMemory>> cache;
  std::unique_ptr<RegionMemory>& m = cache[l.payload_bytes];
  if (!m) {
    m.reset(new RegionMemory(l.payload_bytes, wire::kCounterBytes));
  } else {
    std::memset(m->payload(), 0, l.payload_bytes);
    std::memset(m->counter(), 0, wire::kCounterBytes);
  }
  return *m;
}

// One access log for every input: cleared per step, it keeps its capacity.
AccessLog& shared_log() {
  static AccessLog log;
  return log;
}

struct Msg {
  uint64_t opcode, offset, nbytes;
};

// The public fields of a message handle, as a descriptor.
wire::Descriptor public_of(const L3Message& m) {
  return wire::Descriptor{m.seq, m.opcode, m.payload_offset, m.payload_nbytes};
}

class L3Stream {
 public:
  // The shared hostile peer applies its edits through the private hooks below.
  template <class Harness>
  friend void spsq_fuzz::run_hostile_edit(Harness& h, uint8_t which, FuzzReader& in);

  explicit L3Stream(const Config& c) : cfg_(c) {
    SPSQ_FUZZ_CHECK(wire::compute_layout(c.depth, c.in, c.out, &lay_), "bad fuzz layout");
    mem_ = &memory_for(lay_);
    in_ = ModelDirection{lay_.input_ring, lay_.input_arena, lay_.input_arena_bytes, true};
    out_ = ModelDirection{lay_.output_ring, lay_.output_arena, lay_.output_arena_bytes, false};
    vs_.memory = mem_;
    vs_.payload_span = lay_.payload_bytes;
    vs_.counter_span = wire::kCounterBytes;
    log_.clear();
    vs_.log = &log_;
    vs_.faults = &faults_;
    vs_.short_waits = c.half_waits;
    q_ = spsq_conf::make_l3_adapter();
    construct();
  }

  void run(FuzzReader& in) {
    if (!opened_) return;
    run_stream(*this, in);
    if (dead_ && !freed_) check_first_error();
  }

 private:
  // The shared step loop calls read_kind, begin_step, step, trace and end_step.
  template <class Harness>
  friend void spsq_fuzz::run_stream(Harness& h, FuzzReader& in);

  uint8_t read_kind(FuzzReader& in) { return in.u8() % kL3OpCount; }

  // ------------------------------------------------------------ construction

  wire::BindingFields binding() const {
    wire::BindingFields b = wire::binding_for(lay_, reinterpret_cast<uint64_t>(mem_->payload()),
                                              reinterpret_cast<uint64_t>(mem_->counter()),
                                              kSession, kTxn);
    switch (cfg_.binding_fault) {
      case 0:
        b.payload_bytes += 64;
        break;
      case 1:
        b.transaction_id = 0;
        break;
      case 2:
        b.magic_version ^= uint64_t{1} << 16;
        break;
      case 3:
        b.depth *= 2;
        break;
      case 4:
        b.counter_base += 64;
        break;
      case 5:
        b.output_arena_bytes += 32;
        break;
      default:
        break;
    }
    return b;
  }

  SPSQ_FUZZ_NO_COVERAGE void construct() {
    const auto scalars = wire::binding_scalars(binding());
    const bool opened =
        q_->open(scalars.data(), scalars.size(), HarnessView(&vs_), &VirtualClock::now_ns);
    uses_view_ = q_->uses_view();
    if (cfg_.binding_fault >= 0) {
      L3BindingFault o;
      o.fault = cfg_.binding_fault;
      o.live = opened && q_->live();
      o.accesses = shared_accesses();
      o.initiator_flag = mem_->load_counter(wire::kInitiatorFlag);
      o.output_arena_bytes = lay_.output_arena_bytes + 32;
      SPSQ_FUZZ_REPORT(l3_binding_fault(o));
      if (o.live) return;  // not judged further
      opened_ = opened;  // a queue that opened dead must reject everything
      if (opened) note_death();
      log_.clear();
      return;
    }
    const L3ErrorInfo e = opened ? q_->error() : L3ErrorInfo{};
    SPSQ_FUZZ_REPORT(
        l3_opened(opened && q_->live(), opened ? e.message.c_str() : "open() returned false"));
    opened_ = true;
    uint64_t back[wire::kScalarCount] = {};
    const bool returned = q_->chip_task_arg_scalars(back, wire::kScalarCount);
    SPSQ_FUZZ_REPORT(l3_scalars_back(returned, back, scalars.data(), wire::kScalarCount));
    SPSQ_FUZZ_REPORT(l3_layout(q_->layout(),
                               spsq_conf::LayoutFields{lay_.depth, lay_.input_ring,
                                                       lay_.output_ring, lay_.input_arena,
                                                       lay_.input_arena_bytes, lay_.output_arena,
                                                       lay_.output_arena_bytes,
                                                       lay_.payload_bytes, lay_.counter_bytes}));
    count_flag_attempts();
    ok_ = true;
    log_.clear();
  }

  // ------------------------------------------------------------ steps

  void begin_step() {
    log_.clear();
    live_before_ = !dead_ && !freed_;
    freed_before_ = freed_;
    misuse_step_ = false;
  }

  void step(uint8_t kind, FuzzReader& in) {
    switch (kind) {
      case kL2Take:
        l2_take();
        break;
      case kL2Put: {
        const uint64_t n = in.u16() % (cfg_.out + 1);
        l2_put(n, (in.u8() & 1) ? wire::kError : wire::kData);
        break;
      }
      case kL3TryEnqueue:
        l3_enqueue(in.u16() % (cfg_.in + 1), wire::kData, 0, false, false);
        break;
      case kL3Enqueue: {
        const uint64_t n = in.u16() % (cfg_.in + 1);
        const uint64_t t = in.u8() * 997ull;
        l3_enqueue(n, wire::kData, t, in.u8() & 1, true);
        break;
      }
      case kL3TryStop:
        l3_enqueue(0, wire::kStop, 0, false, false);
        break;
      case kL3Stop: {
        const uint64_t t = in.u8() * 997ull;
        l3_enqueue(0, wire::kStop, t, in.u8() & 1, true);
        break;
      }
      case kL3TryPeek:
        l3_peek(0, false, 0, false);
        break;
      case kL3Peek: {
        const uint64_t t = in.u8() * 997ull;
        const bool hook = in.u8() & 1;
        l3_peek(t, hook, in.u16() % (cfg_.out + 1), true);
        break;
      }
      case kL3Read:
        l3_read(in.u8() % 4);
        break;
      case kL3Release:
        l3_release();
        break;
      case kL3Dequeue:
        l3_dequeue();
        break;
      case kL3Misuse: {
        const uint8_t v = in.u8() % kL3MisuseCount;
        l3_misuse(v, in.u8());
        break;
      }
      case kL3HostileCounter:
      case kL3HostileDesc:
      case kL3HostileCraft:
        run_hostile_edit(*this, static_cast<uint8_t>(kind - kL3HostileCounter), in);
        break;
      case kL3HostileScribble: {
        const uint16_t off = in.u16();
        honesty_.hostile = true;
        payload_tampered_ = true;
        mem_->payload()[lay_.output_arena + off % lay_.output_arena_bytes] = in.u8();
        break;
      }
      case kL3HostileAbort:
        honesty_.hostile = true;
        mem_->store_counter(wire::kPeerFlag, static_cast<int32_t>(in.u32()));
        break;
      case kL3ClockAdvance:
        VirtualClock::advance_by(in.u16() * 1000ull);
        break;
      case kL3ViewFault:
        faults_.arm_any(1 + in.u8() % 8);
        honesty_.fault = true;
        break;
      case kL3Free:
        q_->free();
        freed_ = true;
        break;
    }
  }

  void trace(uint8_t kind) {
    std::fprintf(stderr,
                 "op %2u live %d | L3 enq %" PRIu64 " cursor %" PRIu64 " | out taken %" PRIu64
                 " active %d | L2 taken %" PRIu64 " put %" PRIu64 " | %s\n",
                 kind, !dead_ && !freed_, enq_pub_, enq_cursor_, out_taken_, has_active_, l2_taken_,
                 out_pub_, q_->error().message.c_str());
  }

  // ------------------------------------------------------------ the view's record

  // Shared accesses (and attempts the view failed or refused) in this step.
  size_t shared_accesses() const {
    size_t n = 0;
    for (const Access& a : log_.entries()) {
      n += a.is_shared_access() || a.kind == AccessKind::kInjectedFault ||
           a.kind == AccessKind::kViolation;
    }
    return n;
  }

  // An attempt to Set the initiator flag, a failed one included.
  static bool flag_attempt(const Access& a) {
    if (a.offset != wire::kInitiatorFlag) return false;
    return a.kind == AccessKind::kNotify ||
           (a.kind == AccessKind::kInjectedFault && a.part == RegionMemory::kCounter &&
            a.note.find("notify") != std::string::npos);
  }
  void count_flag_attempts() {
    for (const Access& a : log_.entries()) flag_attempts_ += flag_attempt(a);
  }

  bool view_failed() const { return vs_.failed; }
  bool fault_pending() const { return faults_.armed(); }
  bool peer_flag_up() const { return mem_->load_counter(wire::kPeerFlag) >= 1; }

  // ------------------------------------------------------------ honest L2

  void l2_take() {
    if (input_counters_tampered_) return;
    uint64_t tail = 0;
    L3TailRead o;
    o.word = mem_->load_counter(wire::kInputTail);
    o.known = l2_in_tail_;
    o.possible = wire::reconstruct(l2_in_tail_, o.word, lay_.depth, &tail);
    o.tail = tail;
    o.taken = l2_taken_;
    o.depth = lay_.depth;
    SPSQ_FUZZ_REPORT(l3_input_tail_read(o));
    l2_in_tail_ = tail;
    if (tail == l2_taken_) return;
    const uint64_t k = l2_taken_;
    SPSQ_FUZZ_REPORT(l3_input_after_stop(input_area_tampered_, l2_saw_stop_, k));
    const wire::Descriptor d = wire::decode_descriptor(mem_->payload() + lay_.input_slot(k));
    if (!input_area_tampered_) check_input_message(k, d);
    l2_in_cursor_ = k < enq_cursor_after_.size() ? enq_cursor_after_[k] : l2_in_cursor_;
    if (d.opcode == wire::kStop && !input_area_tampered_) l2_saw_stop_ = true;
    ++l2_taken_;
    mem_->store_counter(wire::kInputHead, wire::low32(l2_taken_));
  }

  SPSQ_FUZZ_NO_COVERAGE void check_input_message(uint64_t k, const wire::Descriptor& d) {
    SPSQ_FUZZ_REPORT(l3_input_descriptor(in_, d, k, l2_in_cursor_));
    SPSQ_FUZZ_CHECK(k < enq_sent_.size(), "input %" PRIu64 " without an enqueue", k);
    const Msg& m = enq_sent_[k];
    L3InputMessage o;
    o.k = k;
    o.d = d;
    o.opcode = m.opcode;
    o.offset = m.offset;
    o.nbytes = m.nbytes;
    o.payload = mem_->payload();
    o.salt = cfg_.salt;
    SPSQ_FUZZ_REPORT(l3_input_message(o));
  }

  bool l2_put(uint64_t n, uint64_t opcode) {
    if (output_counters_tampered_) return false;
    uint64_t head = 0;
    const int32_t w = mem_->load_counter(wire::kOutputHead);
    const bool reconstructed = wire::reconstruct(l2_out_head_, w, lay_.depth, &head);
    SPSQ_FUZZ_REPORT(l3_output_head_read(reconstructed, w, l2_out_head_, head, out_pub_));
    l2_out_head_ = head;
    if (out_pub_ - head >= lay_.depth) return false;
    const uint64_t released_cursor = head == 0 ? 0 : out_cursor_after_[head - 1];
    wire::Placement p;
    if (!wire::place(out_cursor_, n, out_.arena, out_.arena_bytes, &p)) return false;
    // The harness's L2 takes AMB.ROOM reading A; the queue must accept it (W.LIVE.2).
    if (!wire::has_room(released_cursor, out_cursor_, p, out_.arena_bytes, true)) return false;
    const uint64_t seq = out_pub_ + 1;
    for (uint64_t i = 0; i < n; ++i)
      mem_->payload()[p.offset + i] = pattern_byte(cfg_.salt ^ 0x5a, seq, i);
    publish_output(wire::Descriptor{seq, opcode, p.offset, n});
    out_sent_.push_back(Msg{opcode, p.offset, n});
    out_cursor_after_.push_back(p.next);
    out_cursor_ = p.next;
    return true;
  }

  // Bytes 8..31, then seq, then the tail.
  void publish_output(const wire::Descriptor& d) {
    publish_descriptor(mem_->payload() + lay_.output_slot(out_pub_), d);
    ++out_pub_;
    mem_->store_counter(wire::kOutputTail, wire::low32(out_pub_));
  }

  // ------------------------------------------------------------ status rules

  // What every status says about the queue, whatever the call was (l3_status).
  // `usage`: the call is a usage error, which a dead queue may reject instead
  // of fail; `rejected` and `variant` say what a rejection that touched shared
  // memory breaks.
  SPSQ_FUZZ_NO_COVERAGE void check_status(L3Status st, const char* call, bool usage,
                                          L3Rejected rejected = L3Rejected::kStop,
                                          uint8_t variant = 0) {
    L3StatusSeen o;
    o.st = st;
    o.call = call;
    o.usage = usage;
    o.rejected = rejected;
    o.variant = variant;
    o.freed_before = freed_before_;
    o.live_before = live_before_;
    if (!freed_before_ && live_before_) {  // a freed or dead queue is not asked
      o.live = q_->live();
      if (st == L3Status::kRejected) o.accesses = shared_accesses();
      if (!o.live) {  // the error, fetched only for a queue that died
        const L3ErrorInfo e = q_->error();
        o.message = e.message.c_str();
        SPSQ_FUZZ_REPORT(l3_status(o));
        return;
      }
    }
    SPSQ_FUZZ_REPORT(l3_status(o));
  }

  bool input_predictable() const {
    return live_before_ && !input_counters_tampered_ && !input_area_tampered_ && !view_failed() &&
           !fault_pending();
  }
  bool output_predictable() const {
    return live_before_ && !output_counters_tampered_ && !view_failed() && !fault_pending();
  }

  // ------------------------------------------------------------ wait hooks

  // Runs `fn` as L2 "during" the next wait of the queue that does not hold at
  // once: an action scheduled now on the virtual clock, which a harness view
  // wait runs before its deadline.
  void arm_hook(void (*fn)(L3Stream*)) {
    hook_armed_ = true;
    VirtualClock::at(VirtualClock::peek(), [this, fn] {
      if (!hook_armed_) return;
      hook_armed_ = false;
      fn(this);
    });
  }
  void disarm_hook() {
    hook_armed_ = false;
    if (VirtualClock::pending() != 0) VirtualClock::advance_to(VirtualClock::peek());
  }

  // ------------------------------------------------------------ L3 input

  // Room for n bytes by the model: with AMB.ROOM's idle exception (reading A)
  // or the literal bound (reading B).
  SPSQ_FUZZ_NO_COVERAGE bool input_room(uint64_t n, bool idle_exception) const {
    if (n > in_.arena_bytes) return false;
    if (enq_pub_ - l2_taken_ >= lay_.depth) return false;
    const uint64_t released_cursor = l2_taken_ == 0 ? 0 : enq_cursor_after_[l2_taken_ - 1];
    wire::Placement p;
    wire::place(enq_cursor_, n, in_.arena, in_.arena_bytes, &p);
    return wire::has_room(released_cursor, enq_cursor_, p, in_.arena_bytes, idle_exception);
  }

  void l3_enqueue(uint64_t n, uint64_t opcode, uint64_t timeout, bool hook, bool blocking) {
    const uint64_t seq = enq_pub_ + 1;
    for (uint64_t i = 0; i < n; ++i) src_[i] = pattern_byte(cfg_.salt, seq, i);
    const bool stop_before = stop_published_;
    const bool predict = !blocking && input_predictable() && !stop_before;
    const bool room = predict && input_room(n, true);
    const bool literal_room = predict && input_room(n, false);
    if (hook) arm_hook([](L3Stream* s) { s->l2_take(); });
    const uint64_t t0 = VirtualClock::peek();
    const uint64_t cut0 = vs_.cut_short;
    const bool stop = opcode == wire::kStop;
    const void* data = n ? src_ : nullptr;
    L3Status st;
    if (blocking) {
      st = stop ? q_->request_stop(timeout) : q_->enqueue(data, n, timeout);
    } else {
      st = stop ? q_->try_request_stop() : q_->try_enqueue(data, n);
    }
    disarm_hook();
    const bool usage = stop_before || (blocking && timeout == 0);
    check_status(st, stop ? "request_stop" : "enqueue", usage,
                 stop_before ? L3Rejected::kStop : L3Rejected::kZeroTimeout);
    if (!live_before_ || freed_before_) return;
    if (stop_before) {
      SPSQ_FUZZ_REPORT(l3_enqueue_after_stop(st));
      return;
    }
    if (usage) {
      SPSQ_FUZZ_REPORT(l3_zero_timeout(st, stop ? "request_stop" : "enqueue"));
      return;
    }
    if (predict) {
      L3TryEnqueue o;
      o.st = st;
      o.stop = stop;
      o.n = n;
      o.room = room;
      o.literal_room = literal_room;
      o.peer_flag_up = peer_flag_up();
      o.kind = st == L3Status::kFailed ? q_->error().kind : wire::kKindNone;
      SPSQ_FUZZ_REPORT(l3_try_enqueue(o));
    }
    if (st == L3Status::kTimedOut) {
      check_timed_out(false, input_predictable() && input_room(n, false), t0, timeout, cut0);
    }
    if (st != L3Status::kOk) return;
    check_enqueued(seq, opcode, n);
  }

  // A call that timed out (l3_timed_out): whether the model has work for it,
  // the wait of [t0, now) and the peer's flag.
  SPSQ_FUZZ_NO_COVERAGE void check_timed_out(bool peek, bool available, uint64_t t0,
                                             uint64_t timeout, uint64_t cut_before) {
    L3TimedOut o;
    o.peek = peek;
    o.available = available;
    o.wait.t0 = t0;
    o.wait.now = VirtualClock::peek();
    o.wait.timeout = timeout;
    o.wait.cut = vs_.cut_short != cut_before;
    o.wait.last_cut = vs_.last_cut_short;
    o.wait.exact = true;
    o.peer_flag = mem_->load_counter(wire::kPeerFlag);
    SPSQ_FUZZ_REPORT(l3_timed_out(o));
  }

  // The descriptor, the payload and the publish order of one enqueue.
  SPSQ_FUZZ_NO_COVERAGE void check_enqueued(uint64_t seq, uint64_t opcode, uint64_t n) {
    wire::Placement p;
    wire::place(enq_cursor_, n, in_.arena, in_.arena_bytes, &p);
    const uint64_t slot = lay_.input_slot(enq_pub_);
    L3Enqueued o;
    o.d = wire::decode_descriptor(mem_->payload() + slot);
    o.seq = seq;
    o.opcode = opcode;
    o.nbytes = n;
    o.offset = p.offset;
    o.payload = mem_->payload();
    o.src = src_;
    SPSQ_FUZZ_REPORT(l3_enqueued(o));
    if (uses_view_) check_publish_order(slot, p.offset, n);
    enq_sent_.push_back(Msg{opcode, p.offset, n});
    enq_cursor_after_.push_back(p.next);
    enq_cursor_ = p.next;
    ++enq_pub_;
    if (opcode == wire::kStop) stop_published_ = true;
  }

  // The step's log, fed to l3_publish_order: successful writes and the
  // input tail's successful notifies.
  SPSQ_FUZZ_NO_COVERAGE void check_publish_order(uint64_t slot, uint64_t off, uint64_t n) {
    L3PublishOrder o;
    o.slot = slot;
    o.off = off;
    o.n = n;
    o.arena = in_.arena;
    o.arena_bytes = in_.arena_bytes;
    for (const Access& a : log_.entries()) {
      if (!a.ok) continue;
      if (a.kind == AccessKind::kWrite) {
        o.write(a.offset, a.nbytes);
      } else if (a.kind == AccessKind::kNotify && a.offset == wire::kInputTail) {
        o.tail_notify();
      }
    }
    SPSQ_FUZZ_REPORT(l3_publish_order(o));
  }

  // ------------------------------------------------------------ L3 output

  using Expect = L3Expect;  // what the model says the next try_peek must do

  SPSQ_FUZZ_NO_COVERAGE Expect predict_peek(Bad* why) const {
    *why = Bad::kNone;
    if (has_active_) return Expect::ACQUIRE;
    if (out_taken_ == out_pub_) return Expect::NOTHING;
    uint64_t next = 0;
    const wire::Descriptor d =
        wire::decode_descriptor(mem_->payload() + lay_.output_slot(out_taken_));
    *why = desc_fault(out_, d, out_taken_, l3_out_cursor_, &next);
    return *why == Bad::kNone ? Expect::ACQUIRE : Expect::POISON;
  }

  void l3_peek(uint64_t timeout, bool hook, uint64_t hook_size, bool blocking) {
    const bool predict = !blocking && output_predictable();
    Bad why = Bad::kNone;
    const Expect want = predict ? predict_peek(&why) : Expect::NOTHING;
    if (hook) {
      hook_size_ = hook_size;
      arm_hook([](L3Stream* s) { s->l2_put(s->hook_size_, wire::kData); });
    }
    const uint64_t t0 = VirtualClock::peek();
    const uint64_t cut0 = vs_.cut_short;
    L3Message m;
    const L3Status st = blocking ? q_->peek(timeout, &m) : q_->try_peek(&m);
    disarm_hook();
    check_status(st, "peek", blocking && timeout == 0, L3Rejected::kZeroTimeout);
    if (!live_before_ || freed_before_) return;
    if (blocking && timeout == 0) {
      SPSQ_FUZZ_REPORT(l3_zero_timeout(st, "peek"));
      return;
    }
    if (predict) check_predicted_peek(st, want, why);
    if (st == L3Status::kTimedOut) {
      Bad now = Bad::kNone;
      check_timed_out(true, output_predictable() && predict_peek(&now) != Expect::NOTHING, t0,
                      timeout, cut0);
    }
    if (st == L3Status::kOk) on_peeked(m);
  }

  SPSQ_FUZZ_NO_COVERAGE void check_predicted_peek(L3Status st, Expect want, Bad why) {
    const L3ErrorInfo e = st == L3Status::kFailed ? q_->error() : L3ErrorInfo{};
    L3PredictedPeek o;
    o.st = st;
    o.want = want;
    o.why = why;
    o.kind = e.kind;
    o.message = e.message.c_str();
    o.peer_flag_up = peer_flag_up();
    SPSQ_FUZZ_REPORT(l3_predicted_peek(o));
  }

  SPSQ_FUZZ_NO_COVERAGE void on_peeked(const L3Message& m) {
    L3Peeked o;
    o.m = public_of(m);
    o.has_active = has_active_;
    o.active = public_of(active_);
    o.k = out_taken_;
    o.dir = out_;
    o.cursor = l3_out_cursor_;
    const uint64_t k = out_taken_;
    if (k < out_sent_.size() && !out_desc_tampered_ && !output_counters_tampered_) {
      o.sent_known = true;
      o.sent_opcode = out_sent_[k].opcode;
      o.sent_offset = out_sent_[k].offset;
      o.sent_nbytes = out_sent_[k].nbytes;
    }
    uint64_t next = 0;
    SPSQ_FUZZ_REPORT(l3_peeked(o, &next));
    if (has_active_) return;  // the active message again
    active_ = m;
    has_active_ = true;
    active_next_cursor_ = next;
  }

  bool payload_exact(uint64_t k) const {
    return k < out_sent_.size() && !out_desc_tampered_ && !output_counters_tampered_ &&
           !payload_tampered_;
  }

  void l3_read(uint8_t mode) {
    if (!has_active_) return;
    const uint64_t n = active_.payload_nbytes;
    uint64_t cap = n;
    uint8_t* buf = dst_;
    if (mode == 1) cap = n + 17;
    if (mode == 2 && n > 0) cap = n - 1;
    if (mode == 3) {
      buf = nullptr;
      cap = 0;
    }
    std::memset(dst_, 0xcd, sizeof(dst_));
    const bool too_small = cap < n || (buf == nullptr && n > 0);
    const L3Status st = q_->read_into(active_, buf, cap);
    check_status(st, "read_into", too_small);
    if (!live_before_ || freed_before_) return;
    L3ReadAnswer o;
    o.st = st;
    o.n = n;
    o.cap = cap;
    o.too_small = too_small;
    o.view_failed = view_failed();
    o.peer_flag_up = peer_flag_up();
    if (st != L3Status::kOk) {  // the error, fetched only when there may be one
      const L3ErrorInfo e = q_->error();
      o.message = e.message.c_str();
      SPSQ_FUZZ_REPORT(l3_read_answer(o));
    } else {
      SPSQ_FUZZ_REPORT(l3_read_answer(o));
    }
    if (too_small) {
      if (st == L3Status::kFailed) misuse_step_ = honesty_.misuse = true;  // AMB.SHORTBUF B
      return;
    }
    if (st != L3Status::kOk) return;
    check_read(n, cap);
  }

  SPSQ_FUZZ_NO_COVERAGE void check_read(uint64_t n, uint64_t cap) {
    L3ReadBytes o;
    o.buf = dst_;
    o.size = sizeof(dst_);
    o.n = n;
    o.cap = cap;
    o.exact = payload_exact(out_taken_);
    o.salt = cfg_.salt ^ 0x5a;
    o.seq = active_.seq;
    SPSQ_FUZZ_REPORT(l3_read_bytes(o));
  }

  void l3_release() {
    if (!has_active_) return;
    const L3Status st = q_->release(active_);
    check_status(st, "release", false);
    if (!live_before_ || freed_before_) return;
    if (st != L3Status::kOk) {
      SPSQ_FUZZ_REPORT(l3_active_call_failed("release", st, view_failed(), peer_flag_up(),
                                             q_->error().message.c_str()));
      return;
    }
    on_released();
  }

  void on_released() {
    last_released_ = active_;
    have_released_ = true;
    has_active_ = false;
    l3_out_cursor_ = active_next_cursor_;
    ++out_taken_;
  }

  void l3_dequeue() {
    const bool predict = output_predictable();
    Bad why = Bad::kNone;
    const Expect want = predict ? predict_peek(&why) : Expect::NOTHING;
    std::memset(dst_, 0xcd, sizeof(dst_));
    L3Message m;
    const L3Status st = q_->try_dequeue_into(dst_, sizeof(dst_), &m);
    check_status(st, "try_dequeue_into", false);
    if (!live_before_ || freed_before_) return;
    if (predict) check_predicted_peek(st, want, why);
    if (st != L3Status::kOk) return;
    on_peeked(m);
    check_read(active_.payload_nbytes, active_.payload_nbytes);
    on_released();
  }

  // ------------------------------------------------------------ misuse

  void l3_misuse(uint8_t variant, uint8_t arg) {
    L3Status st = L3Status::kOk;
    switch (variant) {
      case kL3ReleaseStale:
        if (!have_released_) return;
        st = q_->release(last_released_);
        break;
      case kL3ReadStale:
        if (!have_released_) return;
        st = q_->read_into(last_released_, dst_, sizeof(dst_));
        break;
      case kL3ReleaseBadSeq: {
        if (!has_active_) return;
        L3Message m = active_;
        m.seq += 1 + arg % 3;
        st = q_->release(m);
        break;
      }
      case kL3NullBuffer:
        // Answered only in the host-language API (AMB.NULLBUF): graded there.
        st = q_->try_enqueue(nullptr, 1 + arg % cfg_.in);
        break;
      case kL3TooBig:
        st = q_->try_enqueue(src_, cfg_.in + 1 + arg);
        break;
      case kL3BadTimeout:
        if (arg & 1) {
          L3Message m;
          st = q_->peek(0, &m);
        } else {
          st = q_->enqueue(src_, 8, 0);
        }
        break;
    }
    const bool poisons = l3_misuse_poisons(variant);
    check_status(st, "misuse", !poisons, L3Rejected::kMisuse, variant);
    if (!live_before_ || freed_before_) return;
    const L3ErrorInfo e = st == L3Status::kFailed ? q_->error() : L3ErrorInfo{};
    L3MisuseAnswer o;
    o.variant = variant;
    o.arg = arg;
    o.st = st;
    o.stop_published = stop_published_;
    o.view_failed = view_failed();
    o.kind = e.kind;
    o.message = e.message.c_str();
    SPSQ_FUZZ_REPORT(l3_misuse_answer(o));
    // A poison the misuse explains (the null buffer's: AMB.NULLBUF B).
    if (variant != kL3BadTimeout && st == L3Status::kFailed &&
        (poisons || variant == kL3NullBuffer)) {
      misuse_step_ = honesty_.misuse = true;
    }
  }

  // ------------------------------------------------------------ hostile L2

  // The shared hostile peer's edits (fuzz/hostile_peer.h), folded into what
  // this harness can still predict.
  void hostile_counter(uint64_t off, uint8_t mode, uint32_t v) {
    honesty_.hostile = true;
    mem_->store_counter(off, hostile_counter_value(mem_->load_counter(off), mode, v));
    const uint32_t touched = counter_touch(off);
    if (touched & kTouchedInputCounters) input_counters_tampered_ = true;
    if (touched & kTouchedOutputCounters) output_counters_tampered_ = true;
    if (off == wire::kInitiatorFlag) initiator_flag_tampered_ = true;
  }

  void hostile_desc(uint8_t slot, uint8_t field, uint8_t mode, uint64_t v) {
    honesty_.hostile = true;
    if (hostile_descriptor(mem_->payload(), lay_, slot, field, mode, v) & kTouchedInputRing) {
      input_area_tampered_ = true;
    } else {
      out_desc_tampered_ = true;
    }
  }

  // The next output descriptor with chosen fields (honest tail bump).
  void hostile_craft(uint8_t op, uint8_t off_mode, uint16_t n, uint8_t seq_mode) {
    if (output_counters_tampered_) return;
    uint64_t head = 0;
    if (!wire::reconstruct(l2_out_head_, mem_->load_counter(wire::kOutputHead), lay_.depth,
                           &head) ||
        head > out_pub_) {
      return;
    }
    l2_out_head_ = head;
    if (out_pub_ - head >= lay_.depth) return;  // even a hostile L2 keeps the ring sane here
    honesty_.hostile = true;
    out_desc_tampered_ = true;
    const wire::Descriptor d =
        hostile_next_descriptor(out_, out_pub_, &out_cursor_, op, off_mode, n, seq_mode);
    publish_output(d);
    out_sent_.push_back(Msg{d.opcode, d.offset, d.nbytes});
    out_cursor_after_.push_back(out_cursor_);
  }

  // ------------------------------------------------------------ after every step

  // Once per run (the error is a string to fetch): the first error stays.
  SPSQ_FUZZ_NO_COVERAGE void check_first_error() {
    const L3ErrorInfo e = q_->error();
    SPSQ_FUZZ_REPORT(l3_first_error_kept(dead_error_.kind, dead_error_.message.c_str(), e.kind,
                                         e.message.c_str()));
  }

  void note_death() {
    dead_ = true;
    dead_error_ = q_->error();
  }

  SPSQ_FUZZ_NO_COVERAGE void end_step(uint8_t kind) {
    if (freed_before_ || !live_before_) {
      L3QuietStep o;
      o.freed = freed_before_;
      o.live = !freed_before_ && q_->live();  // a freed queue is not asked
      o.accesses = shared_accesses();
      o.step = kind;
      SPSQ_FUZZ_REPORT(l3_quiet_step(o));
    }
    check_view_record();
    if (!ok_ || freed_) return;
    const bool live = !dead_ && q_->live();
    check_counter_writes(live);
    if (live_before_ && !live) {
      note_death();
      explain_poison(dead_error_);
    }
    if (uses_view_ || !initiator_flag_tampered_) {
      L3AbortFlag f;
      f.dead = dead_;
      f.kind = dead_ ? dead_error_.kind : wire::kKindNone;
      f.view_failed = view_failed();
      f.counted = uses_view_;
      f.attempts = flag_attempts_;
      f.flag = uses_view_ ? 0 : mem_->load_counter(wire::kInitiatorFlag);
      SPSQ_FUZZ_REPORT(l3_abort_flag(f));
    }
    if (honesty_.honest()) SPSQ_FUZZ_REPORT(l3_honest_run(dead_, dead_error_.message.c_str()));
  }

  // What the queue may write and touch (the view's violations, each access).
  SPSQ_FUZZ_NO_COVERAGE void check_view_record() {
    SPSQ_FUZZ_REPORT(l3_view_violations(
        vs_.violations.empty(), vs_.violations.empty() ? "" : vs_.violations.front().c_str()));
    L3Regions r;
    r.input_ring = lay_.input_ring;
    r.ring_bytes = lay_.ring_bytes;
    r.input_arena = lay_.input_arena;
    r.input_arena_bytes = lay_.input_arena_bytes;
    r.output_arena = lay_.output_arena;
    r.output_arena_bytes = lay_.output_arena_bytes;
    for (const Access& a : log_.entries()) {
      flag_attempts_ += flag_attempt(a);
      L3Access o;
      o.kind = a.kind == AccessKind::kWrite    ? L3Access::kWrite
               : a.kind == AccessKind::kRead   ? L3Access::kRead
               : a.kind == AccessKind::kNotify ? L3Access::kNotify
                                               : L3Access::kOther;
      o.offset = a.offset;
      o.nbytes = a.nbytes;
      o.op = a.op;
      o.value = a.value;
      SPSQ_FUZZ_REPORT(l3_view_access(o, r));
    }
    vs_.violations.clear();
  }

  SPSQ_FUZZ_NO_COVERAGE void explain_poison(const L3ErrorInfo& e) {
    L3Poison o;
    o.kind = e.kind;
    o.session = e.session_instance_id_bits;
    o.txn = e.transaction_id;
    o.want_session = kSession;
    o.want_txn = kTxn;
    o.message = e.message.c_str();
    o.peer_flag = mem_->load_counter(wire::kPeerFlag);
    o.hostile = honesty_.hostile;
    o.misuse_step = misuse_step_;
    o.view_failed = view_failed();
    SPSQ_FUZZ_REPORT(l3_new_poison(o));
  }

  SPSQ_FUZZ_NO_COVERAGE void check_counter_writes(bool live) {
    if (!uses_view_) {
      // No record of the writes: judge the slots while L2 left them alone.
      L3CounterSlots o;
      o.dead = dead_;
      o.input_tampered = input_counters_tampered_;
      o.output_tampered = output_counters_tampered_;
      o.input_tail = mem_->load_counter(wire::kInputTail);
      o.output_head = mem_->load_counter(wire::kOutputHead);
      o.enqueued = enq_pub_;
      o.released = out_taken_;
      SPSQ_FUZZ_REPORT(l3_counter_slots(o));
      return;
    }
    for (const Access& a : log_.entries()) {
      if (a.kind != AccessKind::kNotify || !a.ok) continue;
      if (a.offset == wire::kInputTail) {
        L3TailWrite w;
        w.written = tail_written_;
        w.value = a.value;
        w.tampered = input_counters_tampered_;
        w.l2_taken = l2_taken_;
        w.depth = lay_.depth;
        SPSQ_FUZZ_REPORT(l3_input_tail_write(w));
        ++tail_written_;
      } else if (a.offset == wire::kOutputHead) {
        SPSQ_FUZZ_REPORT(l3_output_head_write(head_written_, a.value));
        ++head_written_;
      }
    }
    if (live) {
      L3Counters c;
      c.tail_written = tail_written_;
      c.enqueued = enq_pub_;
      c.head_written = head_written_;
      c.released = out_taken_;
      SPSQ_FUZZ_REPORT(l3_counters_settled(c));
    }
  }

  // ------------------------------------------------------------ state

  Config cfg_;
  wire::Layout lay_;
  RegionMemory* mem_ = nullptr;
  ModelDirection in_{}, out_{};
  AccessLog& log_ = shared_log();
  FaultPlan faults_;
  ViewState vs_;
  std::unique_ptr<L3Adapter> q_;
  bool opened_ = false, uses_view_ = true;

  bool ok_ = false;
  bool live_before_ = false, freed_before_ = false, misuse_step_ = false;
  bool dead_ = false, freed_ = false;
  L3ErrorInfo dead_error_;
  uint64_t flag_attempts_ = 0;
  uint64_t tail_written_ = 0, head_written_ = 0;
  bool hook_armed_ = false;

  Honesty honesty_;
  bool input_counters_tampered_ = false, output_counters_tampered_ = false;
  bool input_area_tampered_ = false, out_desc_tampered_ = false, payload_tampered_ = false;
  bool initiator_flag_tampered_ = false;

  // L3's input, as the model tracks it.
  uint64_t enq_pub_ = 0, enq_cursor_ = 0;
  bool stop_published_ = false;
  std::vector<Msg> enq_sent_;
  std::vector<uint64_t> enq_cursor_after_;
  uint8_t src_[kMaxArena + 512] = {};

  // L3's output, as the model tracks it.
  uint64_t out_taken_ = 0, l3_out_cursor_ = 0, active_next_cursor_ = 0;
  L3Message active_{}, last_released_{};
  bool has_active_ = false, have_released_ = false;
  uint8_t dst_[kMaxArena + 64] = {};
  uint64_t hook_size_ = 0;

  // The harness's L2.
  uint64_t l2_in_tail_ = 0, l2_taken_ = 0, l2_in_cursor_ = 0;
  bool l2_saw_stop_ = false;
  uint64_t out_pub_ = 0, out_cursor_ = 0, l2_out_head_ = 0;
  std::vector<Msg> out_sent_;
  std::vector<uint64_t> out_cursor_after_;
};

}  // namespace
}  // namespace spsq_fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace spsq_fuzz;
  FuzzReader in(data, size);
  const Config cfg = parse_config(in);
  VirtualClock::reset();
  L3Stream s(cfg);
  s.run(in);
  return 0;
}
