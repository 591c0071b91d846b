// Harness 5: the L3 output stream, the mirror image of harness 4. The fuzzer
// plays the L2 side of one queue against the reference L3 queue
// (BasicWorkerChipQueue<FuzzView>): an honest L2 that consumes inputs and
// publishes outputs, the same L2 turned hostile (counters, descriptor bytes,
// crafted output descriptors, payload scribbles, the peer abort flag), and the
// L3 code calling the queue (enqueue, STOP, peek, read_into, release,
// dequeue, usage errors, misuse, free, timeouts on a virtual clock).
//
// Input: fuzz/l3_stream_input.h. After every step:
//   - the view saw no access outside the spans or outside L3's regions;
//   - FAILED is sticky and first-error-wins; a dead or freed queue touches nothing;
//   - REJECTED (usage error) never poisons and never touches shared memory;
//   - the initiator abort flag is raised exactly once, and only for local poison;
//   - every new error is one the step can explain;
//   - an output handle obeys the arena rule and stays the same until released;
//   - the input tail moves by one per published message, in the contract's
//     publish order; the output head by one per release;
//   - where the harness's L2 was honest about the counters involved, try_enqueue
//     and try_peek do exactly what the model predicts;
//   - while everyone is honest nothing fails, and every message arrives
//     byte-exact, in order, in both directions.
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "fuzz/fuzz_bytes.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/fuzz_clock.h"
#include "fuzz/fuzz_region.h"
#include "fuzz/fuzz_view.h"
#include "fuzz/hostile_peer.h"
#include "fuzz/l3_stream_input.h"
#include "fuzz/wire_model.h"
#include "l3/worker_chip_queue.h"

namespace spsq_fuzz {
namespace {

using spsc_queue::SpscQueueError;
using spsc_queue::SpscQueueErrorKind;
using spsc_queue::WorkerChipMessage;
using Status = spsc_queue::WorkerChipQueueStatus;
using Queue = spsc_queue::BasicWorkerChipQueue<FuzzView>;
using std::chrono::nanoseconds;

constexpr int kMaxOps = 2048;
constexpr uint64_t kSession = 0x1330000000000001ull;
constexpr uint64_t kTxn = 11;
constexpr uint64_t kMaxArena = 512;

bool tracing() {
  static const bool on = std::getenv("SPSQ_FUZZ_TRACE") != nullptr;
  return on;
}

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
  c.in = 64 * (1 + (b & 7));
  c.out = 64 * (1 + ((b >> 3) & 7));
  c.binding_fault = (b >> 6) == 3 ? in.u8() % 6 : -1;
  return c;
}

bool local_poison(SpscQueueErrorKind k) {
  return k == SpscQueueErrorKind::INVALID_DESCRIPTOR || k == SpscQueueErrorKind::OWNERSHIP ||
         k == SpscQueueErrorKind::ENDPOINT_ERROR || k == SpscQueueErrorKind::BAD_ARGUMENT;
}

SPSQ_FUZZ_NO_COVERAGE bool same_error(const SpscQueueError& a, const SpscQueueError& b) {
  return a.kind == b.kind && a.op == b.op && std::strcmp(a.message, b.message) == 0;
}

struct Msg {
  uint64_t opcode, offset, nbytes;
};

class L3Stream {
 public:
  // The shared hostile peer applies its edits through the private hooks below.
  template <class Harness>
  friend void spsq_fuzz::run_hostile_edit(Harness& h, uint8_t which, FuzzReader& in);

  explicit L3Stream(const Config& c)
      : cfg_(c),
        region_(c.depth, c.in, c.out),
        lay_(region_.layout()),
        q_(binding(), FuzzView(&region_, &init_view()), FuzzClock::clock(), nullptr) {
    check_construction();
  }

  void run(FuzzReader& in) {
    for (int n = 0; n < kMaxOps && !in.empty(); ++n) {
      const uint8_t kind = in.u8() % kL3OpCount;
      begin_step();
      step(kind, in);
      if (tracing()) trace(kind);
      end_step(kind);
    }
  }

 private:
  FuzzViewState& init_view() {
    vs_.role = FuzzRole::L3;
    vs_.half_waits = cfg_.half_waits;
    return vs_;
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

  SPSQ_FUZZ_NO_COVERAGE void check_construction() {
    const SpscQueueError& e = q_.error();
    SPSQ_FUZZ_CHECK(vs_.calls == 0, "construction made %" PRIu64 " shared accesses", vs_.calls);
    SPSQ_FUZZ_CHECK(vs_.own_flag_writes == 0, "construction raised the abort flag");
    if (cfg_.binding_fault < 0) {
      SPSQ_FUZZ_CHECK(q_.live(), "valid construction failed: %s", e.message);
      ok_ = true;
      return;
    }
    SPSQ_FUZZ_CHECK(!q_.live() && e.kind == SpscQueueErrorKind::BAD_BINDING,
                    "bad binding %d: live %d kind %u", cfg_.binding_fault, q_.live(),
                    static_cast<unsigned>(e.kind));
    SPSQ_FUZZ_CHECK(e.message[0] != '\0', "construction error without a message");
  }

  // ------------------------------------------------------------ steps

  void begin_step() {
    vs_.begin_step();
    live_before_ = q_.live();
    freed_before_ = q_.freed();
    err_before_ = q_.error();
    calls_before_ = vs_.calls;
    misuse_step_ = false;
  }

  void step(uint8_t kind, FuzzReader& in) {
    switch (kind) {
      case kL2Take:
        l2_take();
        break;
      case kL2Put: {
        const uint64_t n = in.u16() % (cfg_.out + 1);
        l2_put(n, (in.u8() & 1) ? kOpError : kOpData);
        break;
      }
      case kL3TryEnqueue:
        l3_enqueue(in.u16() % (cfg_.in + 1), kOpData, 0, false, false);
        break;
      case kL3Enqueue: {
        const uint64_t n = in.u16() % (cfg_.in + 1);
        const uint64_t t = in.u8() * 997ull;
        l3_enqueue(n, kOpData, t, in.u8() & 1, true);
        break;
      }
      case kL3TryStop:
        l3_enqueue(0, kOpStop, 0, false, false);
        break;
      case kL3Stop: {
        const uint64_t t = in.u8() * 997ull;
        l3_enqueue(0, kOpStop, t, in.u8() & 1, true);
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
        hostile_ = true;
        payload_tampered_ = true;
        region_.payload()[lay_.output_arena + off % lay_.output_arena_bytes] = in.u8();
        break;
      }
      case kL3HostileAbort:
        hostile_ = true;
        region_.set_counter(kPeerAbort, static_cast<int32_t>(in.u32()));
        break;
      case kL3ClockAdvance:
        FuzzClock::advance(in.u16() * 1000ull);
        break;
      case kL3ViewFault:
        vs_.fault_in = 1 + in.u8() % 8;
        fault_ = true;
        break;
      case kL3Free:
        q_.free();
        SPSQ_FUZZ_CHECK(q_.freed() && !q_.live(), "free() left the queue usable");
        break;
    }
  }

  void trace(uint8_t kind) const {
    std::fprintf(stderr,
                 "op %2u live %d | L3 enq %" PRIu64 " cursor %" PRIu64 " | out taken %" PRIu64
                 " active %d | L2 taken %" PRIu64 " put %" PRIu64 " | %s / %s\n",
                 kind, q_.live(), enq_pub_, enq_cursor_, out_taken_, has_active_, l2_taken_,
                 out_pub_, q_.error().message, q_.last_error().message);
  }

  // ------------------------------------------------------------ honest L2

  void l2_take() {
    if (input_counters_tampered_) return;
    uint64_t tail = 0;
    const int32_t w = region_.counter(kInputTail);
    SPSQ_FUZZ_CHECK(reconstruct(l2_in_tail_, w, lay_.depth, &tail),
                    "L3's input tail %d is impossible (known %" PRIu64 ")", w, l2_in_tail_);
    SPSQ_FUZZ_CHECK(tail - l2_taken_ <= lay_.depth,
                    "L3 published %" PRIu64 " inputs past L2's head %" PRIu64, tail, l2_taken_);
    l2_in_tail_ = tail;
    if (tail == l2_taken_) return;
    const uint64_t k = l2_taken_;
    SPSQ_FUZZ_CHECK(input_area_tampered_ || !l2_saw_stop_,
                    "L3 published input %" PRIu64 " after STOP", k + 1);
    const ModelDesc d = region_.desc_at(lay_.input_slot(k));
    if (!input_area_tampered_) check_input_message(k, d);
    l2_in_cursor_ = k < enq_cursor_after_.size() ? enq_cursor_after_[k] : l2_in_cursor_;
    if (d.opcode == kOpStop && !input_area_tampered_) l2_saw_stop_ = true;
    ++l2_taken_;
    region_.set_counter(kInputHead, low32(l2_taken_));
  }

  SPSQ_FUZZ_NO_COVERAGE void check_input_message(uint64_t k, const ModelDesc& d) {
    uint64_t next = 0;
    SPSQ_FUZZ_CHECK(desc_valid(input_of(lay_), d, k, l2_in_cursor_, &next),
                    "L3 published an invalid input descriptor %" PRIu64 ": seq %" PRIu64
                    " op %" PRIu64 " [%" PRIu64 ", +%" PRIu64 ")",
                    k, d.seq, d.opcode, d.offset, d.nbytes);
    SPSQ_FUZZ_CHECK(k < enq_sent_.size(), "input %" PRIu64 " without an enqueue", k);
    const Msg& m = enq_sent_[k];
    SPSQ_FUZZ_CHECK(d.opcode == m.opcode && d.offset == m.offset && d.nbytes == m.nbytes,
                    "input %" PRIu64 " is not what L3 enqueued", k);
    if (payload_in_tampered_) return;
    for (uint64_t i = 0; i < d.nbytes; ++i) {
      SPSQ_FUZZ_CHECK(region_.payload()[d.offset + i] == pattern_byte(cfg_.salt, k + 1, i),
                      "input %" PRIu64 " byte %" PRIu64 " differs from the enqueued buffer", k, i);
    }
  }

  bool l2_put(uint64_t n, uint64_t opcode) {
    if (output_counters_tampered_) return false;
    uint64_t head = 0;
    const int32_t w = region_.counter(kOutputHead);
    SPSQ_FUZZ_CHECK(reconstruct(l2_out_head_, w, lay_.depth, &head) && head <= out_pub_,
                    "L3's output head %d is impossible (known %" PRIu64 ", published %" PRIu64 ")",
                    w, l2_out_head_, out_pub_);
    l2_out_head_ = head;
    const uint64_t released_cursor = head == 0 ? 0 : out_cursor_after_[head - 1];
    const Placement p = place(out_cursor_, n, lay_.output_arena, lay_.output_arena_bytes);
    if (!has_room(out_pub_, head, lay_.depth, out_cursor_, released_cursor, p, n,
                  lay_.output_arena_bytes)) {
      return false;
    }
    const uint64_t seq = out_pub_ + 1;
    for (uint64_t i = 0; i < n; ++i) {
      region_.payload()[p.offset + i] = pattern_byte(cfg_.salt ^ 0x5a, seq, i);
    }
    publish_output(ModelDesc{seq, opcode, p.offset, n});
    out_sent_.push_back(Msg{opcode, p.offset, n});
    out_cursor_after_.push_back(p.next);
    out_cursor_ = p.next;
    return true;
  }

  void publish_output(const ModelDesc& d) {
    uint8_t* slot = region_.payload() + lay_.output_slot(out_pub_);
    put64(slot + 8, d.opcode);
    put64(slot + 16, d.offset);
    put64(slot + 24, d.nbytes);
    put64(slot, d.seq);
    ++out_pub_;
    region_.set_counter(kOutputTail, low32(out_pub_));
  }

  // ------------------------------------------------------------ status rules

  // What every status says about the queue, whatever the call was.
  SPSQ_FUZZ_NO_COVERAGE void check_status(Status st, const char* call) {
    if (freed_before_) {
      SPSQ_FUZZ_CHECK(st == Status::REJECTED, "%s on a freed queue returned %s", call,
                      spsc_queue::worker_chip_queue_status_name(st));
      return;
    }
    if (!live_before_) {
      SPSQ_FUZZ_CHECK(st == Status::FAILED, "%s on a dead queue returned %s", call,
                      spsc_queue::worker_chip_queue_status_name(st));
      return;
    }
    if (st == Status::FAILED) {
      SPSQ_FUZZ_CHECK(!q_.live(), "%s returned FAILED on a live queue", call);
      return;
    }
    SPSQ_FUZZ_CHECK(q_.live(), "%s returned %s but the queue died: %s", call,
                    spsc_queue::worker_chip_queue_status_name(st), q_.error().message);
    if (st == Status::REJECTED) {
      SPSQ_FUZZ_CHECK(vs_.calls == calls_before_, "rejected %s touched shared memory", call);
      SPSQ_FUZZ_CHECK(q_.last_error().kind == SpscQueueErrorKind::BAD_ARGUMENT &&
                          q_.last_error().message[0] != '\0',
                      "rejected %s without a BAD_ARGUMENT explanation", call);
    }
  }

  bool input_predictable() const {
    return live_before_ && !input_counters_tampered_ && !input_area_tampered_ && !vs_.failed &&
           vs_.fault_in == 0;
  }
  bool output_predictable() const {
    return live_before_ && !output_counters_tampered_ && !vs_.failed && vs_.fault_in == 0;
  }

  // ------------------------------------------------------------ L3 input

  static void hook_take(void* self) { static_cast<L3Stream*>(self)->l2_take(); }

  SPSQ_FUZZ_NO_COVERAGE bool input_room(uint64_t n) const {
    const uint64_t released_cursor = l2_taken_ == 0 ? 0 : enq_cursor_after_[l2_taken_ - 1];
    const Placement p = place(enq_cursor_, n, lay_.input_arena, lay_.input_arena_bytes);
    return has_room(enq_pub_, l2_taken_, lay_.depth, enq_cursor_, released_cursor, p, n,
                    lay_.input_arena_bytes);
  }

  void l3_enqueue(uint64_t n, uint64_t opcode, uint64_t timeout, bool hook, bool blocking) {
    const uint64_t seq = enq_pub_ + 1;
    for (uint64_t i = 0; i < n; ++i) src_[i] = pattern_byte(cfg_.salt, seq, i);
    const bool stop_before = stop_published_;
    const bool predict = !blocking && input_predictable() && !stop_before;
    const bool room = predict && input_room(n);
    if (hook) {
      vs_.wait_hook = &hook_take;
      vs_.wait_hook_arg = this;
    }
    const uint64_t t0 = FuzzClock::now();
    Status st;
    const bool stop = opcode == kOpStop;
    if (blocking) {
      st = stop ? q_.input().request_stop(nanoseconds(timeout))
                : q_.input().enqueue(n ? src_ : nullptr, n, nanoseconds(timeout));
    } else {
      st = stop ? q_.input().try_request_stop() : q_.input().try_enqueue(n ? src_ : nullptr, n);
    }
    vs_.wait_hook = nullptr;
    check_status(st, stop ? "request_stop" : "enqueue");
    if (!live_before_ || freed_before_) return;
    if (stop_before || (blocking && timeout == 0)) {
      SPSQ_FUZZ_CHECK(st == Status::REJECTED, "%s returned %s, want REJECTED",
                      stop_before ? "enqueue after STOP" : "zero timeout",
                      spsc_queue::worker_chip_queue_status_name(st));
      return;
    }
    if (predict) {
      SPSQ_FUZZ_CHECK(st == (room ? Status::OK : Status::WOULD_BLOCK),
                      "try_%s(%" PRIu64 ") returned %s, the model says room %d: %s",
                      stop ? "request_stop" : "enqueue", n,
                      spsc_queue::worker_chip_queue_status_name(st), room, q_.last_error().message);
    }
    if (st == Status::TIMED_OUT) {
      SPSQ_FUZZ_CHECK(!(input_predictable() && input_room(n)), "enqueue timed out with room");
      check_expired(t0, timeout);
    }
    if (st != Status::OK) return;
    check_enqueued(seq, opcode, n);
  }

  SPSQ_FUZZ_NO_COVERAGE void check_expired(uint64_t t0, uint64_t timeout) {
    SPSQ_FUZZ_CHECK(FuzzClock::now() - t0 >= timeout,
                    "timed out after %" PRIu64 " of %" PRIu64 " ns", FuzzClock::now() - t0,
                    timeout);
    SPSQ_FUZZ_CHECK(region_.counter(kPeerAbort) < 1,
                    "timed out with the peer abort flag at %d and no REMOTE_ABORTED",
                    region_.counter(kPeerAbort));
  }

  // The descriptor, the payload and the publish order of one enqueue.
  SPSQ_FUZZ_NO_COVERAGE void check_enqueued(uint64_t seq, uint64_t opcode, uint64_t n) {
    const Placement p = place(enq_cursor_, n, lay_.input_arena, lay_.input_arena_bytes);
    const uint64_t slot = lay_.input_slot(enq_pub_);
    const ModelDesc d = region_.desc_at(slot);
    SPSQ_FUZZ_CHECK(d.seq == seq && d.opcode == opcode && d.offset == p.offset && d.nbytes == n,
                    "enqueued descriptor seq %" PRIu64 " op %" PRIu64 " [%" PRIu64 ", +%" PRIu64
                    "), want seq %" PRIu64 " [%" PRIu64 ", +%" PRIu64 ")",
                    d.seq, d.opcode, d.offset, d.nbytes, seq, p.offset, n);
    for (uint64_t i = 0; i < n; ++i) {
      SPSQ_FUZZ_CHECK(region_.payload()[p.offset + i] == src_[i],
                      "enqueued byte %" PRIu64 " differs from the buffer", i);
    }
    if (vs_.logged <= FuzzViewState::kLogCapacity) {
      int last_payload = -1, first_desc = vs_.logged, last_body = -1, first_seq = vs_.logged,
          tail = -1;
      for (int i = 0; i < vs_.logged; ++i) {
        const Access& a = vs_.log[i];
        if (a.kind == AccessKind::NOTIFY && a.offset == kInputTail) tail = i;
        if (a.kind != AccessKind::WRITE) continue;
        const bool touches_seq = a.offset < slot + 8 && a.offset + a.nbytes > slot;
        const bool touches_body = a.offset < slot + 32 && a.offset + a.nbytes > slot + 8;
        if (!touches_seq && !touches_body) {
          last_payload = i;
          continue;
        }
        SPSQ_FUZZ_CHECK(!(touches_seq && touches_body), "seq written together with the body");
        if (first_desc == vs_.logged) first_desc = i;
        if (touches_body) last_body = i;
        if (touches_seq && first_seq == vs_.logged) first_seq = i;
      }
      SPSQ_FUZZ_CHECK(last_payload < first_desc, "payload written after the descriptor");
      SPSQ_FUZZ_CHECK(last_body < first_seq && first_seq < vs_.logged,
                      "seq not written after bytes 8..31");
      SPSQ_FUZZ_CHECK(tail == vs_.logged - 1 && tail > first_seq, "tail not published last");
    }
    enq_sent_.push_back(Msg{opcode, p.offset, n});
    enq_cursor_after_.push_back(p.next);
    enq_cursor_ = p.next;
    ++enq_pub_;
    if (opcode == kOpStop) stop_published_ = true;
    SPSQ_FUZZ_CHECK(q_.input().stop_published() == stop_published_, "stop_published() is wrong");
  }

  // ------------------------------------------------------------ L3 output

  static void hook_put(void* self) {
    auto* s = static_cast<L3Stream*>(self);
    s->l2_put(s->hook_size_, kOpData);
  }

  enum class Expect { NOTHING, ACQUIRE, POISON };

  SPSQ_FUZZ_NO_COVERAGE Expect predict_peek() const {
    if (has_active_) return Expect::ACQUIRE;
    if (out_taken_ == out_pub_) return Expect::NOTHING;
    uint64_t next = 0;
    const ModelDesc d = region_.desc_at(lay_.output_slot(out_taken_));
    return desc_valid(output_of(lay_), d, out_taken_, l3_out_cursor_, &next) ? Expect::ACQUIRE
                                                                             : Expect::POISON;
  }

  void l3_peek(uint64_t timeout, bool hook, uint64_t hook_size, bool blocking) {
    const bool predict = !blocking && output_predictable();
    const Expect want = predict ? predict_peek() : Expect::NOTHING;
    if (hook) {
      hook_size_ = hook_size;
      vs_.wait_hook = &hook_put;
      vs_.wait_hook_arg = this;
    }
    const uint64_t t0 = FuzzClock::now();
    WorkerChipMessage m{};
    const Status st =
        blocking ? q_.output().peek(nanoseconds(timeout), &m) : q_.output().try_peek(&m);
    vs_.wait_hook = nullptr;
    check_status(st, "peek");
    if (!live_before_ || freed_before_) return;
    if (blocking && timeout == 0) {
      SPSQ_FUZZ_CHECK(st == Status::REJECTED, "peek with a zero timeout was not rejected");
      return;
    }
    if (predict) {
      const Status expect = want == Expect::ACQUIRE   ? Status::OK
                            : want == Expect::NOTHING ? Status::WOULD_BLOCK
                                                      : Status::FAILED;
      SPSQ_FUZZ_CHECK(st == expect, "try_peek returned %s, the model says %s: %s",
                      spsc_queue::worker_chip_queue_status_name(st),
                      spsc_queue::worker_chip_queue_status_name(expect), q_.error().message);
      if (want == Expect::POISON) {
        SPSQ_FUZZ_CHECK(q_.error().kind == SpscQueueErrorKind::INVALID_DESCRIPTOR,
                        "invalid output descriptor gave kind %u",
                        static_cast<unsigned>(q_.error().kind));
      }
    }
    if (st == Status::TIMED_OUT) {
      SPSQ_FUZZ_CHECK(!(output_predictable() && predict_peek() == Expect::ACQUIRE),
                      "peek timed out with a message available");
      check_expired(t0, timeout);
    }
    if (st == Status::OK) on_peeked(m);
  }

  SPSQ_FUZZ_NO_COVERAGE void on_peeked(const WorkerChipMessage& m) {
    if (has_active_) {
      SPSQ_FUZZ_CHECK(m.seq == active_.seq && m.opcode == active_.opcode &&
                          m.payload_offset == active_.payload_offset &&
                          m.payload_nbytes == active_.payload_nbytes &&
                          m.owner_cookie == active_.owner_cookie &&
                          spsc_queue::payload_data(m) == spsc_queue::payload_data(active_),
                      "peek with seq %" PRIu64 " active returned another message", active_.seq);
      return;
    }
    const uint64_t k = out_taken_;
    SPSQ_FUZZ_CHECK(m.seq == k + 1, "peeked seq %" PRIu64 ", want %" PRIu64, m.seq, k + 1);
    uint64_t next = 0;
    const ModelDesc d{m.seq, static_cast<uint64_t>(m.opcode), m.payload_offset, m.payload_nbytes};
    SPSQ_FUZZ_CHECK(desc_valid(output_of(lay_), d, k, l3_out_cursor_, &next),
                    "message seq %" PRIu64 " breaks the contract: op %" PRIu64 " [%" PRIu64
                    ", +%" PRIu64 ")",
                    m.seq, static_cast<uint64_t>(m.opcode), m.payload_offset, m.payload_nbytes);
    const uint8_t* want = m.payload_nbytes == 0 ? nullptr : region_.payload() + m.payload_offset;
    SPSQ_FUZZ_CHECK(spsc_queue::payload_data(m) == want,
                    "message payload pointer is not its offset");
    if (k < out_sent_.size() && !out_desc_tampered_ && !output_counters_tampered_) {
      const Msg& s = out_sent_[k];
      SPSQ_FUZZ_CHECK(
          static_cast<uint64_t>(m.opcode) == s.opcode && m.payload_offset == s.offset &&
              m.payload_nbytes == s.nbytes,
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
    const Status st = q_.output().read_into(active_, buf, cap);
    check_status(st, "read_into");
    if (!live_before_ || freed_before_) return;
    const bool too_small = cap < n || (buf == nullptr && n > 0);
    if (too_small) {
      SPSQ_FUZZ_CHECK(st == Status::REJECTED, "read_into a too-small buffer returned %s",
                      spsc_queue::worker_chip_queue_status_name(st));
      SPSQ_FUZZ_CHECK(q_.output().has_active(), "a rejected read dropped the active message");
      return;
    }
    if (st != Status::OK) {
      SPSQ_FUZZ_CHECK(vs_.failed, "read_into of the active message failed: %s", q_.error().message);
      return;
    }
    check_read(n, cap);
  }

  SPSQ_FUZZ_NO_COVERAGE void check_read(uint64_t n, uint64_t cap) {
    if (payload_exact(out_taken_)) {
      for (uint64_t i = 0; i < n; ++i) {
        SPSQ_FUZZ_CHECK(dst_[i] == pattern_byte(cfg_.salt ^ 0x5a, active_.seq, i),
                        "read byte %" PRIu64 " of seq %" PRIu64 " differs", i, active_.seq);
      }
    }
    for (uint64_t i = n; i < cap && i < sizeof(dst_); ++i) {
      SPSQ_FUZZ_CHECK(dst_[i] == 0xcd, "read_into wrote past the message");
    }
  }

  void l3_release() {
    if (!has_active_) return;
    const Status st = q_.output().release(active_);
    check_status(st, "release");
    if (!live_before_ || freed_before_) return;
    if (st != Status::OK) {
      SPSQ_FUZZ_CHECK(vs_.failed, "release of the active message failed: %s", q_.error().message);
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
    const bool predict = output_predictable() && !has_active_;
    const Expect want = predict ? predict_peek() : Expect::NOTHING;
    std::memset(dst_, 0xcd, sizeof(dst_));
    WorkerChipMessage m{};
    const Status st = q_.output().try_dequeue_into(dst_, sizeof(dst_), &m);
    check_status(st, "try_dequeue_into");
    if (!live_before_ || freed_before_) return;
    if (predict) {
      SPSQ_FUZZ_CHECK((st == Status::OK) == (want == Expect::ACQUIRE),
                      "try_dequeue_into returned %s against the model",
                      spsc_queue::worker_chip_queue_status_name(st));
    }
    if (st != Status::OK) return;
    SPSQ_FUZZ_CHECK(spsc_queue::payload_data(m) == nullptr,
                    "dequeued message keeps a payload pointer");
    if (!has_active_) {
      WorkerChipMessage peeked = m;
      peeked.payload.local_addr =
          m.payload_nbytes ? reinterpret_cast<uintptr_t>(region_.payload() + m.payload_offset) : 0;
      on_peeked(peeked);
    }
    active_.payload = spsc_queue::SpscQueuePayloadView{};
    check_read(active_.payload_nbytes, active_.payload_nbytes);
    on_released();
  }

  // ------------------------------------------------------------ misuse

  void l3_misuse(uint8_t variant, uint8_t arg) {
    Status st = Status::OK;
    bool poisons = true;
    switch (variant) {
      case kL3ReleaseStale:
        if (!have_released_) return;
        st = q_.output().release(last_released_);
        break;
      case kL3ReadStale:
        if (!have_released_) return;
        st = q_.output().read_into(last_released_, dst_, sizeof(dst_));
        break;
      case kL3ReleaseBadSeq: {
        if (!has_active_) return;
        WorkerChipMessage m = active_;
        m.seq += 1 + arg % 3;
        st = q_.output().release(m);
        break;
      }
      case kL3NullBuffer:
        poisons = false;
        st = q_.input().try_enqueue(nullptr, 1 + arg % cfg_.in);
        break;
      case kL3TooBig:
        poisons = false;
        st = q_.input().try_enqueue(src_, cfg_.in + 1 + arg);
        break;
      case kL3BadTimeout:
        poisons = false;
        if (arg & 1) {
          WorkerChipMessage m{};
          st = q_.output().peek(nanoseconds(-static_cast<int64_t>(arg >> 1)), &m);
        } else {
          st = q_.input().enqueue(src_, 8, nanoseconds(-static_cast<int64_t>(arg >> 1)));
        }
        break;
    }
    check_status(st, "misuse");
    if (!live_before_ || freed_before_) return;
    if (!poisons) {
      SPSQ_FUZZ_CHECK(st == Status::REJECTED, "usage error %u returned %s", variant,
                      spsc_queue::worker_chip_queue_status_name(st));
      return;
    }
    misuse_step_ = misuse_ = true;
    SPSQ_FUZZ_CHECK(st == Status::FAILED && q_.error().kind == SpscQueueErrorKind::OWNERSHIP,
                    "misuse %u returned %s with kind %u", variant,
                    spsc_queue::worker_chip_queue_status_name(st),
                    static_cast<unsigned>(q_.error().kind));
  }

  // ------------------------------------------------------------ hostile L2

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
    if (touched & kTouchedInputRing) input_area_tampered_ = true;
    if (touched & kTouchedOutputRing) out_desc_tampered_ = true;
  }

  void hostile_craft(uint8_t op, uint8_t off_mode, uint16_t n, uint8_t seq_mode) {
    if (output_counters_tampered_) return;
    uint64_t head = 0;
    if (!reconstruct(l2_out_head_, region_.counter(kOutputHead), lay_.depth, &head) ||
        head > out_pub_) {
      return;
    }
    l2_out_head_ = head;
    if (out_pub_ - head >= lay_.depth) return;  // even a hostile L2 keeps the ring sane here
    hostile_ = true;
    out_desc_tampered_ = true;
    const ModelDesc d = hostile_next_descriptor(output_of(lay_), out_pub_, &out_cursor_, op,
                                                off_mode, n, seq_mode);
    publish_output(d);
    out_sent_.push_back(Msg{d.opcode, d.offset, d.nbytes});
    out_cursor_after_.push_back(out_cursor_);
  }

  // ------------------------------------------------------------ after every step

  SPSQ_FUZZ_NO_COVERAGE void end_step(uint8_t kind) {
    const SpscQueueError& e = q_.error();
    if (!live_before_ || freed_before_) {
      SPSQ_FUZZ_CHECK(!q_.live(), "a dead or freed queue came back");
      SPSQ_FUZZ_CHECK(same_error(e, err_before_), "first error replaced: '%s' -> '%s'",
                      err_before_.message, e.message);
      SPSQ_FUZZ_CHECK(vs_.calls == calls_before_,
                      "dead or freed queue made %" PRIu64 " shared accesses in step %u",
                      vs_.calls - calls_before_, kind);
    }
    if (!ok_) return;
    check_counter_writes();
    if (live_before_ && !freed_before_ && !q_.live() && !q_.freed()) {
      SPSQ_FUZZ_CHECK(
          e.has_identity() && e.session_instance_id_bits == kSession && e.transaction_id == kTxn,
          "poison without the RegionInstance identity");
      SPSQ_FUZZ_CHECK(e.message[0] != '\0', "poison without a message");
      switch (e.kind) {
        case SpscQueueErrorKind::ENDPOINT_ERROR:
          SPSQ_FUZZ_CHECK(vs_.failed, "ENDPOINT_ERROR with a healthy view: %s", e.message);
          break;
        case SpscQueueErrorKind::REMOTE_ABORTED:
          SPSQ_FUZZ_CHECK(region_.counter(kPeerAbort) >= 1, "REMOTE_ABORTED with the flag at %d",
                          region_.counter(kPeerAbort));
          break;
        case SpscQueueErrorKind::OWNERSHIP:
          SPSQ_FUZZ_CHECK(misuse_step_, "OWNERSHIP without misuse: %s", e.message);
          break;
        case SpscQueueErrorKind::INVALID_DESCRIPTOR:
          SPSQ_FUZZ_CHECK(hostile_, "INVALID_DESCRIPTOR from an honest L2: %s", e.message);
          break;
        default:
          SPSQ_FUZZ_CHECK(false, "poison of kind %u: %s", static_cast<unsigned>(e.kind), e.message);
      }
    }
    const uint64_t want_flag = local_poison(e.kind) ? 1 : 0;
    SPSQ_FUZZ_CHECK(vs_.own_flag_writes == want_flag,
                    "initiator abort flag written %" PRIu64 " times with error kind %u",
                    vs_.own_flag_writes, static_cast<unsigned>(e.kind));
    if (!hostile_ && !misuse_ && !fault_ && !q_.freed()) {
      SPSQ_FUZZ_CHECK(q_.live(), "honest run failed: %s", e.message);
    }
  }

  SPSQ_FUZZ_NO_COVERAGE void check_counter_writes() {
    for (int i = 0; i < vs_.noted; ++i) {
      const Access& a = vs_.notes[i];
      if (a.offset == kInputTail) {
        SPSQ_FUZZ_CHECK(a.value == low32(tail_written_ + 1), "input tail written %d after %" PRIu64,
                        a.value, tail_written_);
        ++tail_written_;
        SPSQ_FUZZ_CHECK(input_counters_tampered_ || tail_written_ <= l2_taken_ + lay_.depth,
                        "input tail %" PRIu64 " passed L2's head %" PRIu64 " + depth",
                        tail_written_, l2_taken_);
      } else if (a.offset == kOutputHead) {
        SPSQ_FUZZ_CHECK(a.value == low32(head_written_ + 1),
                        "output head written %d after %" PRIu64, a.value, head_written_);
        ++head_written_;
      }
    }
    if (q_.live()) {
      SPSQ_FUZZ_CHECK(tail_written_ == enq_pub_, "input tail %" PRIu64 ", %" PRIu64 " enqueued",
                      tail_written_, enq_pub_);
      SPSQ_FUZZ_CHECK(head_written_ == out_taken_, "output head %" PRIu64 ", %" PRIu64 " released",
                      head_written_, out_taken_);
    }
  }

  // ------------------------------------------------------------ state

  Config cfg_;
  FuzzViewState vs_;
  FuzzRegion region_;
  ModelLayout lay_;
  Queue q_;

  bool ok_ = false;
  bool live_before_ = false, freed_before_ = false, misuse_step_ = false;
  SpscQueueError err_before_{};
  uint64_t calls_before_ = 0;
  uint64_t tail_written_ = 0, head_written_ = 0;

  bool hostile_ = false, misuse_ = false, fault_ = false;
  bool input_counters_tampered_ = false, output_counters_tampered_ = false;
  bool input_area_tampered_ = false, out_desc_tampered_ = false, payload_tampered_ = false;
  bool payload_in_tampered_ = false;

  // L3's input, as the model tracks it.
  uint64_t enq_pub_ = 0, enq_cursor_ = 0;
  bool stop_published_ = false;
  std::vector<Msg> enq_sent_;
  std::vector<uint64_t> enq_cursor_after_;
  uint8_t src_[kMaxArena + 512] = {};

  // L3's output, as the model tracks it.
  uint64_t out_taken_ = 0, l3_out_cursor_ = 0, active_next_cursor_ = 0;
  WorkerChipMessage active_{}, last_released_{};
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
  FuzzClock::reset();
  L3Stream s(cfg);
  s.run(in);
  return 0;
}
