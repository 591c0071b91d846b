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
// Input: fuzz/l3_stream_input.h. After every step, each check naming the
// clauses it judges (SPSQ_FUZZ_CLAUSE_CHECK):
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
// The checks after every step are the oracles of fuzz/l3_stream_oracles.h and
// fuzz/stream_oracles.h, reported with SPSQ_FUZZ_REPORT; the step loop is
// fuzz/stream_skeleton.h's.
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

const char* name(L3Status s) { return spsq_conf::l3_status_name(s); }

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

// Why a descriptor is invalid at logical index k with the consumer at `cursor`.
enum class Bad { kNone, kSeq, kOpcode, kZeroOffset, kStopBytes, kOversize, kOffset };

SPSQ_FUZZ_NO_COVERAGE Bad desc_fault(const ModelDirection& dir, const wire::Descriptor& d,
                                     uint64_t k, uint64_t cursor, uint64_t* next) {
  if (d.seq != wire::seq_of(k)) return Bad::kSeq;
  if (!dir.carries(d.opcode)) return Bad::kOpcode;
  if (d.nbytes == 0) {
    *next = cursor;
    return d.offset == 0 ? Bad::kNone : Bad::kZeroOffset;
  }
  if (d.opcode == wire::kStop) return Bad::kStopBytes;
  wire::Placement p;
  if (!wire::place(cursor, d.nbytes, dir.arena, dir.arena_bytes, &p)) return Bad::kOversize;
  if (d.offset != p.offset) return Bad::kOffset;
  *next = p.next;
  return Bad::kNone;
}

// The clauses a consumer breaks by accepting a descriptor with this defect,
// and whether a document fixes the poison's kind (INVALID_DESCRIPTOR) or it
// is AMB.KINDS's to record.
const char* bad_clauses(Bad b) {
  switch (b) {
    case Bad::kSeq:
      return "S4.POISON.1,W.SEQ.1";
    case Bad::kOpcode:
      return "S4.POISON.2,S4.POISON.3,S2.STOP.1,W.DIR.1";
    case Bad::kZeroOffset:
      return "S2.ZERO.2,W.STOP.1";
    case Bad::kStopBytes:
      return "S4.STOP.1,W.STOP.1";
    case Bad::kOversize:
      return "S4.POISON.4,S2.FIT.2";
    case Bad::kOffset:
      return "S4.POISON.4,S4.POISON.6,W.ARENA.3";
    case Bad::kNone:
      break;
  }
  return "S4.POISON.10";
}
bool kind_fixed(Bad b) { return b == Bad::kSeq || b == Bad::kOffset; }

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

bool same_public(const L3Message& a, const L3Message& b) {
  return a.seq == b.seq && a.opcode == b.opcode && a.payload_offset == b.payload_offset &&
         a.payload_nbytes == b.payload_nbytes;
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
      const bool live = opened && q_->live();
      // An output arena that is no 64-byte multiple is invalid on either side.
      // The other faults break checks the spec gives L2's decoder; an L3 queue
      // may refuse them or not, and a queue bound on such a binding is not
      // judged further.
      if (cfg_.binding_fault == 5) {
        SPSQ_FUZZ_CLAUSE_CHECK("S2.ARENA.3", !live, "output arena %" PRIu64 " accepted",
                               lay_.output_arena_bytes + 32);
      }
      if (live) return;
      SPSQ_FUZZ_CLAUSE_CHECK("S2.ARENA.3,S2.DEPTH.2", shared_accesses() == 0,
                             "refusing binding fault %d made %zu shared accesses",
                             cfg_.binding_fault, shared_accesses());
      SPSQ_FUZZ_CLAUSE_CHECK("S4.POISON.11,W.FLAG.1", mem_->load_counter(wire::kInitiatorFlag) == 0,
                             "refusing a binding raised the initiator flag");
      opened_ = opened;  // a queue that opened dead must reject everything
      if (opened) note_death();
      log_.clear();
      return;
    }
    SPSQ_FUZZ_CLAUSE_CHECK("S0.BIND.1", opened && q_->live(), "valid binding refused: %s",
                           opened ? q_->error().message.c_str() : "open() returned false");
    opened_ = true;
    uint64_t back[wire::kScalarCount] = {};
    SPSQ_FUZZ_CLAUSE_CHECK("S1.BIND.ORDER",
                           q_->chip_task_arg_scalars(back, wire::kScalarCount) &&
                               std::memcmp(back, scalars.data(), sizeof(back)) == 0,
                           "chip_task_arg_scalars() differ from the binding");
    const spsq_conf::LayoutFields f = q_->layout();
    SPSQ_FUZZ_CLAUSE_CHECK(
        "S2.LAYOUT.3,W.LAYOUT.1",
        f.depth == lay_.depth && f.input_ring == lay_.input_ring &&
            f.output_ring == lay_.output_ring && f.input_arena == lay_.input_arena &&
            f.input_arena_bytes == lay_.input_arena_bytes && f.output_arena == lay_.output_arena &&
            f.output_arena_bytes == lay_.output_arena_bytes &&
            f.payload_bytes == lay_.payload_bytes && f.counter_bytes == lay_.counter_bytes,
        "layout() differs from the wire layout of (%" PRIu64 ", %" PRIu64 ", %" PRIu64 ")",
        lay_.depth, lay_.input_arena_bytes, lay_.output_arena_bytes);
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
    const int32_t w = mem_->load_counter(wire::kInputTail);
    SPSQ_FUZZ_CLAUSE_CHECK("S3.CTR.1,W.CTR.1,S2.CAP.1",
                           wire::reconstruct(l2_in_tail_, w, lay_.depth, &tail),
                           "L3's input tail %d is impossible (known %" PRIu64 ")", w, l2_in_tail_);
    SPSQ_FUZZ_CLAUSE_CHECK("S2.CAP.1,S1.TRYENQ.1", tail - l2_taken_ <= lay_.depth,
                           "L3 published %" PRIu64 " inputs past L2's head %" PRIu64, tail,
                           l2_taken_);
    l2_in_tail_ = tail;
    if (tail == l2_taken_) return;
    const uint64_t k = l2_taken_;
    SPSQ_FUZZ_CLAUSE_CHECK("S4.STOP.2", input_area_tampered_ || !l2_saw_stop_,
                           "L3 published input %" PRIu64 " after STOP", k + 1);
    const wire::Descriptor d = wire::decode_descriptor(mem_->payload() + lay_.input_slot(k));
    if (!input_area_tampered_) check_input_message(k, d);
    l2_in_cursor_ = k < enq_cursor_after_.size() ? enq_cursor_after_[k] : l2_in_cursor_;
    if (d.opcode == wire::kStop && !input_area_tampered_) l2_saw_stop_ = true;
    ++l2_taken_;
    mem_->store_counter(wire::kInputHead, wire::low32(l2_taken_));
  }

  SPSQ_FUZZ_NO_COVERAGE void check_input_message(uint64_t k, const wire::Descriptor& d) {
    uint64_t next = 0;
    const Bad bad = desc_fault(in_, d, k, l2_in_cursor_, &next);
    SPSQ_FUZZ_CLAUSE_CHECK(bad == Bad::kNone ? "" : bad_clauses(bad), bad == Bad::kNone,
                           "L3 published an invalid input descriptor %" PRIu64 ": seq %" PRIu64
                           " op %" PRIu64 " [%" PRIu64 ", +%" PRIu64 ")",
                           k, d.seq, d.opcode, d.offset, d.nbytes);
    SPSQ_FUZZ_CHECK(k < enq_sent_.size(), "input %" PRIu64 " without an enqueue", k);
    const Msg& m = enq_sent_[k];
    SPSQ_FUZZ_CLAUSE_CHECK("S0.PURPOSE.1,W.DESC.1",
                           d.opcode == m.opcode && d.offset == m.offset && d.nbytes == m.nbytes,
                           "input %" PRIu64 " is not what L3 enqueued", k);
    for (uint64_t i = 0; i < d.nbytes; ++i) {
      SPSQ_FUZZ_CLAUSE_CHECK("S0.PURPOSE.1,S3.PUB.2",
                             mem_->payload()[d.offset + i] == pattern_byte(cfg_.salt, k + 1, i),
                             "input %" PRIu64 " byte %" PRIu64 " differs from the enqueued buffer",
                             k, i);
    }
  }

  bool l2_put(uint64_t n, uint64_t opcode) {
    if (output_counters_tampered_) return false;
    uint64_t head = 0;
    const int32_t w = mem_->load_counter(wire::kOutputHead);
    SPSQ_FUZZ_CLAUSE_CHECK(
        "S3.CTR.1,W.CTR.1,S3.PUB.5",
        wire::reconstruct(l2_out_head_, w, lay_.depth, &head) && head <= out_pub_,
        "L3's output head %d is impossible (known %" PRIu64 ", published %" PRIu64 ")", w,
        l2_out_head_, out_pub_);
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

  // What every status says about the queue, whatever the call was. `usage`:
  // the call is a usage error, which a dead queue may reject instead of fail;
  // `rejected_clauses` judge that a rejection touched no shared memory.
  SPSQ_FUZZ_NO_COVERAGE void check_status(L3Status st, const char* call, bool usage,
                                          const char* rejected_clauses = "S4.STOP.2") {
    if (freed_before_) {
      SPSQ_FUZZ_CLAUSE_CHECK("S1.FREE.1", st == L3Status::kRejected || st == L3Status::kFailed,
                             "%s on a freed queue returned %s", call, name(st));
      return;
    }
    if (!live_before_) {
      SPSQ_FUZZ_CLAUSE_CHECK("S4.POISON.10,S4.POISON.14",
                             st == L3Status::kFailed || (usage && st == L3Status::kRejected),
                             "%s on a dead queue returned %s", call, name(st));
      return;
    }
    const bool live = q_->live();
    if (st == L3Status::kFailed) {
      SPSQ_FUZZ_CLAUSE_CHECK("S4.POISON.10", !live, "%s returned FAILED on a live queue", call);
      return;
    }
    SPSQ_FUZZ_CLAUSE_CHECK("S4.POISON.10", live, "%s returned %s but the queue died: %s", call,
                           name(st), q_->error().message.c_str());
    if (st == L3Status::kRejected) {
      SPSQ_FUZZ_CLAUSE_CHECK(rejected_clauses, shared_accesses() == 0,
                             "rejected %s touched shared memory", call);
    }
  }

  // A blocking C++ L3 call with timeout 0. The spec fixes timeout <= 0 only
  // for the Python calls (S3.PYTO.1, not judged on the C++ queue), so both
  // of AMB.TIMEOUTZERO's readings pass: REJECTED (A) or ordinary no-progress
  // at once (B). Anything else attempted the call or died, which neither
  // reading allows and the harness cannot follow (a deviation, stated on the
  // ambiguity).
  SPSQ_FUZZ_NO_COVERAGE void check_zero_timeout(L3Status st, const char* call) {
    if (st == L3Status::kRejected) {
      SPSQ_FUZZ_READING("AMB.TIMEOUTZERO", "A", "%s with timeout 0 returned REJECTED", call);
      return;
    }
    SPSQ_FUZZ_CLAUSE_CHECK("AMB.TIMEOUTZERO",
                           st == L3Status::kNoProgress || st == L3Status::kTimedOut,
                           "%s with timeout 0 returned %s", call, name(st));
    SPSQ_FUZZ_READING("AMB.TIMEOUTZERO", "B", "%s with timeout 0 returned %s", call, name(st));
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
                 stop_before ? "S4.STOP.2" : "AMB.TIMEOUTZERO");
    if (!live_before_ || freed_before_) return;
    if (stop_before) {
      SPSQ_FUZZ_CLAUSE_CHECK("S4.STOP.2", st == L3Status::kRejected,
                             "enqueue after STOP returned %s, want REJECTED", name(st));
      return;
    }
    if (usage) {
      check_zero_timeout(st, stop ? "request_stop" : "enqueue");
      return;
    }
    if (predict) {
      // OPEN.ABORTSAMPLE / AMB.TRYABORT: a raised peer flag may be reported at once.
      const bool early_abort =
          st == L3Status::kFailed && peer_flag_up() && q_->error().kind == wire::kRemoteAborted;
      const bool ok = st == (room ? L3Status::kOk : L3Status::kNoProgress) ||
                      (room && !literal_room && st == L3Status::kNoProgress) || early_abort;
      SPSQ_FUZZ_CLAUSE_CHECK("S1.TRYENQ.1,S1.TRYENQ.2,S1.TRYENQ.3,S2.CAP.1,W.ARENA.2,AMB.ROOM", ok,
                             "try_%s(%" PRIu64 ") returned %s, the model says room %d",
                             stop ? "request_stop" : "enqueue", n, name(st), room);
    }
    if (st == L3Status::kTimedOut) {
      SPSQ_FUZZ_CLAUSE_CHECK("S3.TO.8,S4.NOPROG.1,S4.NOPROG.2",
                             !(input_predictable() && input_room(n, false)),
                             "enqueue timed out with room");
      check_expired(t0, timeout, cut0);
    }
    if (st != L3Status::kOk) return;
    check_enqueued(seq, opcode, n);
  }

  // A timed-out call waited its whole timeout (wait_expired, with
  // AMB.WAITFALSE's readings) and the peer's abort flag is down.
  SPSQ_FUZZ_NO_COVERAGE void check_expired(uint64_t t0, uint64_t timeout, uint64_t cut_before) {
    WaitExpiry w;
    w.t0 = t0;
    w.now = VirtualClock::peek();
    w.timeout = timeout;
    w.cut = vs_.cut_short != cut_before;
    w.last_cut = vs_.last_cut_short;
    w.exact = true;
    SPSQ_FUZZ_REPORT(wait_expired(w));
    SPSQ_FUZZ_CLAUSE_CHECK("S3.TO.7,S4.POISON.12", !peer_flag_up(),
                           "timed out with the peer abort flag at %d and no REMOTE_ABORTED",
                           mem_->load_counter(wire::kPeerFlag));
  }

  // The descriptor, the payload and the publish order of one enqueue.
  SPSQ_FUZZ_NO_COVERAGE void check_enqueued(uint64_t seq, uint64_t opcode, uint64_t n) {
    wire::Placement p;
    wire::place(enq_cursor_, n, in_.arena, in_.arena_bytes, &p);
    const uint64_t slot = lay_.input_slot(enq_pub_);
    const wire::Descriptor d = wire::decode_descriptor(mem_->payload() + slot);
    SPSQ_FUZZ_CLAUSE_CHECK(
        "W.DESC.1,W.SEQ.1,W.ARENA.1,W.ARENA.4,S2.ZERO.1,W.STOP.1",
        d.seq == seq && d.opcode == opcode && d.offset == p.offset && d.nbytes == n,
        "enqueued descriptor seq %" PRIu64 " op %" PRIu64 " [%" PRIu64 ", +%" PRIu64
        "), want seq %" PRIu64 " [%" PRIu64 ", +%" PRIu64 ")",
        d.seq, d.opcode, d.offset, d.nbytes, seq, p.offset, n);
    for (uint64_t i = 0; i < n; ++i) {
      SPSQ_FUZZ_CLAUSE_CHECK("S0.PURPOSE.1,S2.FIT.1", mem_->payload()[p.offset + i] == src_[i],
                             "enqueued byte %" PRIu64 " differs from the buffer", i);
    }
    if (uses_view_) check_publish_order(slot, p.offset, n);
    enq_sent_.push_back(Msg{opcode, p.offset, n});
    enq_cursor_after_.push_back(p.next);
    enq_cursor_ = p.next;
    ++enq_pub_;
    if (opcode == wire::kStop) stop_published_ = true;
  }

  // The order of one publication's writes in this step's log: the payload
  // span, then bytes 8..31, then seq (bytes 0..7), then the tail. One pass;
  // a span may be written in several writes.
  SPSQ_FUZZ_NO_COVERAGE void check_publish_order(uint64_t slot, uint64_t off, uint64_t n) {
    auto overlaps = [](const Access& a, uint64_t lo, uint64_t len) {
      return a.kind == AccessKind::kWrite && a.ok && len != 0 && a.offset < lo + len &&
             lo < a.offset + a.nbytes;
    };
    uint64_t payload = 0, body = 0, seq = 0;  // bytes covered so far (writes do not overlap)
    bool stray = false, payload_late = false, seq_early = false, seq_with_body = false;
    bool tail = false, tail_early = false;
    for (const Access& a : log_.entries()) {
      const bool in_payload = overlaps(a, off, n);
      const bool in_body = overlaps(a, slot + 8, 24);
      const bool in_seq = overlaps(a, slot, 8);
      if (overlaps(a, in_.arena, in_.arena_bytes) &&
          (n == 0 || a.offset < off || a.offset + a.nbytes > off + n)) {
        stray = true;
      }
      if (in_payload) {
        payload_late = payload_late || body != 0 || seq != 0 || tail;
        payload += a.nbytes;
      }
      if (in_body) {
        seq_with_body = seq_with_body || in_seq;
        seq_early = seq_early || seq != 0;
        body += a.nbytes;
      }
      if (in_seq && !in_body) {
        seq_early = seq_early || body < 24;
        seq += a.nbytes;
      }
      if (a.kind == AccessKind::kNotify && a.ok && a.offset == wire::kInputTail && !tail) {
        tail = true;
        tail_early = seq < 8;
      }
    }
    SPSQ_FUZZ_CLAUSE_CHECK("S3.PUB.1,S3.PUB.2", !payload_late && payload >= n,
                           "payload written after the descriptor (or not at all)");
    SPSQ_FUZZ_CLAUSE_CHECK("S2.FIT.1", !stray, "arena write outside the message");
    SPSQ_FUZZ_CLAUSE_CHECK("W.ORDER.1,S3.PUB.1", !seq_with_body && !seq_early && seq >= 8,
                           "seq not written after bytes 8..31");
    SPSQ_FUZZ_CLAUSE_CHECK("W.ORDER.1,S3.PUB.1,S3.PUB.2", tail && !tail_early,
                           "tail not published after the seq");
  }

  // ------------------------------------------------------------ L3 output

  enum class Expect { NOTHING, ACQUIRE, POISON };

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
    check_status(st, "peek", blocking && timeout == 0, "AMB.TIMEOUTZERO");
    if (!live_before_ || freed_before_) return;
    if (blocking && timeout == 0) {
      check_zero_timeout(st, "peek");
      return;
    }
    if (predict) check_predicted_peek(st, want, why);
    if (st == L3Status::kTimedOut) {
      Bad now = Bad::kNone;
      SPSQ_FUZZ_CLAUSE_CHECK("S3.TO.8",
                             !(output_predictable() && predict_peek(&now) != Expect::NOTHING),
                             "peek timed out with a message available");
      check_expired(t0, timeout, cut0);
    }
    if (st == L3Status::kOk) on_peeked(m);
  }

  SPSQ_FUZZ_NO_COVERAGE void check_predicted_peek(L3Status st, Expect want, Bad why) {
    const L3ErrorInfo e = st == L3Status::kFailed ? q_->error() : L3ErrorInfo{};
    // OPEN.ABORTSAMPLE / AMB.TRYABORT: a raised peer flag may be reported at once.
    if (st == L3Status::kFailed && e.kind == wire::kRemoteAborted && peer_flag_up()) return;
    if (want == Expect::POISON) {
      SPSQ_FUZZ_CLAUSE_CHECK(bad_clauses(why), st == L3Status::kFailed,
                             "try_peek of an invalid output descriptor returned %s", name(st));
      // AMB.KINDS: only seq and offset defects have a kind a document fixes.
      SPSQ_FUZZ_CLAUSE_CHECK(
          bad_clauses(why), !kind_fixed(why) || e.kind == wire::kInvalidDescriptor,
          "invalid output descriptor gave kind %s: %s", wire::kind_name(e.kind), e.message.c_str());
      return;
    }
    const L3Status expect = want == Expect::ACQUIRE ? L3Status::kOk : L3Status::kNoProgress;
    SPSQ_FUZZ_CLAUSE_CHECK(
        want == Expect::ACQUIRE ? "S0.PURPOSE.1,S4.L3OUT.2,W.LIVE.2" : "S1.TRYPEEK.1,S4.NOPROG.3",
        st == expect, "try_peek returned %s, the model says %s: %s", name(st), name(expect),
        e.message.c_str());
  }

  SPSQ_FUZZ_NO_COVERAGE void on_peeked(const L3Message& m) {
    if (has_active_) {
      SPSQ_FUZZ_CLAUSE_CHECK("S4.L3OUT.1,S4.L3OUT.2", same_public(m, active_),
                             "peek with seq %" PRIu64 " active returned seq %" PRIu64, active_.seq,
                             m.seq);
      return;
    }
    const uint64_t k = out_taken_;
    uint64_t next = 0;
    const wire::Descriptor d{m.seq, m.opcode, m.payload_offset, m.payload_nbytes};
    const Bad bad = desc_fault(out_, d, k, l3_out_cursor_, &next);
    SPSQ_FUZZ_CLAUSE_CHECK(bad == Bad::kNone ? "" : bad_clauses(bad), bad == Bad::kNone,
                           "message seq %" PRIu64 " (want %" PRIu64
                           ") breaks the contract: op %" PRIu64 " [%" PRIu64 ", +%" PRIu64 ")",
                           m.seq, k + 1, m.opcode, m.payload_offset, m.payload_nbytes);
    if (k < out_sent_.size() && !out_desc_tampered_ && !output_counters_tampered_) {
      const Msg& s = out_sent_[k];
      SPSQ_FUZZ_CLAUSE_CHECK(
          "S0.PURPOSE.1",
          m.opcode == s.opcode && m.payload_offset == s.offset && m.payload_nbytes == s.nbytes,
          "message seq %" PRIu64 " is not what L2 published", m.seq);
    }
    active_ = m;
    has_active_ = true;
    active_next_cursor_ = next;
  }

  bool payload_exact(uint64_t k) const {
    return k < out_sent_.size() && !out_desc_tampered_ && !output_counters_tampered_ &&
           !payload_tampered_;
  }

  // A failed call on a live queue is explained by a view failure or a raised
  // peer flag (OPEN.ABORTSAMPLE / AMB.TRYABORT).
  bool failure_explained() const { return view_failed() || peer_flag_up(); }

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
    if (too_small) {
      // The spec answers a too-small buffer only in its host-language API
      // (AMB.SHORTBUF): a usage error (A) or poison (B), never a partial copy.
      SPSQ_FUZZ_CLAUSE_CHECK("S1.DEQ.1", st != L3Status::kOk,
                             "read_into of %" PRIu64 " bytes into %" PRIu64 " returned OK", n, cap);
      if (st == L3Status::kRejected) {
        SPSQ_FUZZ_READING("AMB.SHORTBUF", "A", "read_into of %" PRIu64 " bytes into %" PRIu64
                          " returned REJECTED", n, cap);
        return;
      }
      SPSQ_FUZZ_CLAUSE_CHECK("AMB.SHORTBUF", st == L3Status::kFailed,
                             "read_into a too-small buffer returned %s", name(st));
      misuse_step_ = honesty_.misuse = true;
      if (!view_failed()) {
        SPSQ_FUZZ_READING("AMB.SHORTBUF", "B", "read_into a too-small buffer poisoned: %s",
                          q_->error().message.c_str());
      }
      return;
    }
    if (st != L3Status::kOk) {
      SPSQ_FUZZ_CLAUSE_CHECK("S4.L3OUT.1", failure_explained(),
                             "read_into of the active message returned %s: %s", name(st),
                             q_->error().message.c_str());
      return;
    }
    check_read(n, cap);
  }

  SPSQ_FUZZ_NO_COVERAGE void check_read(uint64_t n, uint64_t cap) {
    if (payload_exact(out_taken_)) {
      for (uint64_t i = 0; i < n; ++i) {
        SPSQ_FUZZ_CLAUSE_CHECK("S0.PURPOSE.1,S3.PUB.5",
                               dst_[i] == pattern_byte(cfg_.salt ^ 0x5a, active_.seq, i),
                               "read byte %" PRIu64 " of seq %" PRIu64 " differs", i, active_.seq);
      }
    }
    for (uint64_t i = n; i < cap && i < sizeof(dst_); ++i) {
      SPSQ_FUZZ_CLAUSE_CHECK("S1.DEQ.1", dst_[i] == 0xcd, "read_into wrote past the message");
    }
  }

  void l3_release() {
    if (!has_active_) return;
    const L3Status st = q_->release(active_);
    check_status(st, "release", false);
    if (!live_before_ || freed_before_) return;
    if (st != L3Status::kOk) {
      SPSQ_FUZZ_CLAUSE_CHECK("S4.L3OUT.1", failure_explained(),
                             "release of the active message returned %s: %s", name(st),
                             q_->error().message.c_str());
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
    bool poisons = true;
    const char* ids = "S4.L3OUT.3,S4.POISON.9";
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
        // Answered only in the host-language API (AMB.NULLBUF): graded below.
        poisons = false;
        ids = "AMB.NULLBUF";
        st = q_->try_enqueue(nullptr, 1 + arg % cfg_.in);
        break;
      case kL3TooBig:
        poisons = false;
        ids = "S2.FIT.2";
        st = q_->try_enqueue(src_, cfg_.in + 1 + arg);
        break;
      case kL3BadTimeout:
        // The adapter's timeouts are unsigned: every timeout <= 0 is 0 here,
        // and what C++ does with 0 is open (AMB.TIMEOUTZERO).
        poisons = false;
        ids = "AMB.TIMEOUTZERO";
        if (arg & 1) {
          L3Message m;
          st = q_->peek(0, &m);
        } else {
          st = q_->enqueue(src_, 8, 0);
        }
        break;
    }
    check_status(st, "misuse", !poisons, ids);
    if (!live_before_ || freed_before_) return;
    if (variant == kL3BadTimeout) {
      check_zero_timeout(st, (arg & 1) ? "peek" : "enqueue");
      return;
    }
    if (variant == kL3NullBuffer) {
      // A usage error (A) or poison (B); an input published from no buffer
      // is the end-of-step checks' (the tail moves only on an enqueue).
      if (st == L3Status::kRejected) {
        // After STOP the input is closed: that usage error answers first
        // (S4.STOP.*), so the refusal states no reading of the null buffer.
        if (!stop_published_) {
          SPSQ_FUZZ_READING("AMB.NULLBUF", "A", "try_enqueue(nullptr, n) returned REJECTED");
        }
        return;
      }
      SPSQ_FUZZ_CLAUSE_CHECK("AMB.NULLBUF", st == L3Status::kFailed,
                             "try_enqueue(nullptr, n) returned %s", name(st));
      misuse_step_ = honesty_.misuse = true;
      if (!view_failed()) {
        SPSQ_FUZZ_READING("AMB.NULLBUF", "B", "try_enqueue(nullptr, n) poisoned: %s",
                          q_->error().message.c_str());
      }
      return;
    }
    if (!poisons) {
      SPSQ_FUZZ_CLAUSE_CHECK(ids, st == L3Status::kRejected, "usage error %u returned %s", variant,
                             name(st));
      return;
    }
    misuse_step_ = honesty_.misuse = true;
    // AMB.KINDS: any kind but NONE (reading A: OWNERSHIP).
    SPSQ_FUZZ_CLAUSE_CHECK(ids, st == L3Status::kFailed && q_->error().kind != wire::kKindNone,
                           "misuse %u returned %s with kind %s", variant, name(st),
                           wire::kind_name(q_->error().kind));
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
