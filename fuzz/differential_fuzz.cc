// Harness 6: differential. One operation stream (the l2_stream encoding) is
// driven through two L2 endpoints, each in its own world (shared memory, view,
// virtual clock, and a copy of the harness's honest-or-hostile L3), and after
// every step the two are compared.
//
// Input: one mode byte, then exactly an l2_stream input (fuzz/l2_stream_input.h).
//   mode bit 0 clear: both endpoints at the header's MaxInflight, any stream.
//   mode bit 0 set:   first at MaxInflight 1, second at 4, depth >= 4, and the
//                     stream never peeks while a DATA handle is held, where the
//                     two windows must behave the same.
// The first endpoint is the reference; the second is whatever the label flag
// //fuzz:second_endpoint links in (default: the reference in a second build
// configuration), or in a certification the endpoint under test.
//
// What a divergence means. Where the spec and the wire contract leave a choice
// open (AMB.*, OPEN.*: error kinds, when the abort flag is sampled, whether a
// second reserve poisons, the window reading, ...), two correct endpoints
// answer differently, and from then on their worlds differ. So each step is
// compared in two tiers:
//   - the step's outcome: return value, liveness, error kind and operation,
//     drained(), view failure, abort-flag writes, time spent blocking, and
//     whether the harness's L3 acted while the endpoint waited (it acts from
//     inside a wait, so an endpoint that ends the call before waiting, say on
//     an impossible counter, never lets it write). A
//     difference here may be a legal choice: it is printed once per process as
//       spsq-divergence: <what> at <when>: <first> / <second>
//     (the certification lists these in the stage row, never as FAIL; the
//     suite and l2_stream judge each reading) and the comparison of this
//     input ends there.
//   - given the same outcome, what it produced: the fields of the handle or
//     reservation both returned (seq, opcode, size, offset, and the payload
//     position when it has bytes) and every byte of shared memory. These the
//     contract fixes (descriptor contents, the arena rule, the counter values,
//     the flag value): a difference is a finding of the clauses named.
// View faults are not injected here: they count accesses, which
// implementations may legitimately spend differently.
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "fuzz/diff_target.h"
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

constexpr int kMaxOps = 1024;
constexpr uint64_t kSession = 0xd1ff000000000001ull;
constexpr uint64_t kTxn = 99;

bool tracing() {
  static const bool on = std::getenv("SPSQ_FUZZ_TRACE") != nullptr;
  return on;
}

// What one step showed of one endpoint.
struct Observed {
  bool ok = false;
  uint64_t seq = 0, opcode = 0, offset = 0, nbytes = 0;
  int64_t payload_at = -1;  // payload pointer minus the payload base; -1 for null
  bool live = false, drained = false, view_failed = false;
  uint32_t kind = 0, op = 0;
  uint64_t elapsed = 0, flag_writes = 0;
  uint64_t peer_steps = 0;  // the harness's L3 steps run from inside a wait, so far
};

// One side: memory, view state, clock, endpoint, and the harness's L3 for it.
struct World {
  World(uint64_t depth, uint64_t in, uint64_t out) : region(depth, in, out), lay(region.layout()) {}

  FuzzRegion region;
  ModelLayout lay;
  FuzzViewState vs;
  uint64_t now = 1'000'000;
  std::unique_ptr<DiffTarget> t;

  // The harness's L3 (input producer, output consumer).
  uint64_t l3_pub = 0, l3_head = 0, l3_cursor = 0;
  bool stop_sent = false;
  std::vector<uint64_t> cursor_after;
  uint64_t l3_consumed = 0, l3_out_tail = 0;
  uint64_t hook_size = 0, salt = 0;
  uint64_t peer_steps = 0;  // wait hooks run: the L3 acted while L2 waited

  // L2's bookkeeping.
  std::vector<DiffHandle> held;
  bool have_released = false;
  DiffHandle last_released{};
  bool active = false, have_published = false;
  DiffReservation r{};
  uint64_t last_published = 0;
  uint64_t data_held = 0, publishes = 0;

  int64_t at(const uint8_t* p) const { return p ? p - region.payload() : -1; }

  // ---------------------------------------------------------------- L3 peer
  bool refresh_head() {
    uint64_t head = 0;
    if (!wire::reconstruct(l3_head, region.counter(wire::kInputHead), lay.depth, &head) ||
        head > l3_pub) {
      return false;
    }
    l3_head = head;
    return true;
  }
  void publish_input(const wire::Descriptor& d) {
    publish_descriptor(region.payload() + lay.input_slot(l3_pub), d);
    ++l3_pub;
    region.set_counter(wire::kInputTail, wire::low32(l3_pub));
  }
  void send(uint64_t n, uint64_t opcode) {
    if (stop_sent || !refresh_head()) return;
    const uint64_t released_cursor = l3_head == 0 ? 0 : cursor_after[l3_head - 1];
    const Placement p = place(l3_cursor, n, lay.input_arena, lay.input_arena_bytes);
    if (!has_room(l3_pub, l3_head, lay.depth, l3_cursor, released_cursor, p, n,
                  lay.input_arena_bytes)) {
      return;
    }
    for (uint64_t i = 0; i < n; ++i)
      region.payload()[p.offset + i] = pattern_byte(salt, l3_pub + 1, i);
    publish_input(wire::Descriptor{l3_pub + 1, opcode, p.offset, n});
    cursor_after.push_back(p.next);
    l3_cursor = p.next;
    if (opcode == wire::kStop) stop_sent = true;
  }
  void consume() {
    uint64_t tail = 0;
    if (!wire::reconstruct(l3_out_tail, region.counter(wire::kOutputTail), lay.depth, &tail))
      return;
    l3_out_tail = tail;
    if (tail == l3_consumed || tail - l3_consumed > lay.depth) return;
    ++l3_consumed;
    region.set_counter(wire::kOutputHead, wire::low32(l3_consumed));
  }
  void craft(uint8_t op, uint8_t off_mode, uint16_t n, uint8_t seq_mode) {
    if (!refresh_head() || l3_pub - l3_head >= lay.depth) return;
    const wire::Descriptor d =
        hostile_next_descriptor(input_of(lay), l3_pub, &l3_cursor, op, off_mode, n, seq_mode);
    publish_input(d);
    cursor_after.push_back(l3_cursor);
    if (d.opcode == wire::kStop) stop_sent = true;
  }
  void hostile_counter(uint64_t off, uint8_t mode, uint32_t v) {
    spsq_fuzz::hostile_counter(region, off, mode, v);
  }
  void hostile_desc(uint8_t slot, uint8_t field, uint8_t mode, uint64_t v) {
    hostile_descriptor(region.payload(), lay, slot, field, mode, v);
  }

  static void hook_send(void* self) {
    auto* w = static_cast<World*>(self);
    ++w->peer_steps;
    w->send(w->hook_size, wire::kData);
  }
  static void hook_consume(void* self) {
    auto* w = static_cast<World*>(self);
    ++w->peer_steps;
    w->consume();
  }
};

class Differential {
 public:
  Differential(FuzzReader& in) {
    const uint8_t mode = in.u8();
    window_ = mode & 1;
    const uint8_t a = in.u8(), b = in.u8();
    uint64_t mi = (a & 1) ? 4 : 1;
    static constexpr uint64_t kDepth1[4] = {1, 2, 4, 8}, kDepth4[4] = {4, 8, 16, 2},
                              kDepthWindow[4] = {4, 8, 16, 16};
    const uint64_t depth = (window_ ? kDepthWindow : mi == 1 ? kDepth1 : kDepth4)[(a >> 1) & 3];
    const uint64_t in_arena = 64 * (1 + (b & 7)), out_arena = 64 * (1 + ((b >> 3) & 7));
    const int fault = (b >> 6) == 3 ? in.u8() % 6 : -1;
    for (int i = 0; i < 2; ++i) {
      w_[i] = std::make_unique<World>(depth, in_arena, out_arena);
      World& w = *w_[i];
      w.salt = a >> 4;
      w.vs.role = FuzzRole::L2;
      w.vs.half_waits = (a >> 3) & 1;
      DiffWorld dw{&w.region, &w.vs, {}, &FuzzClock::now()};
      scalars(w, fault, dw.scalars);
      const uint64_t target_mi = window_ ? (i == 0 ? 1 : 4) : mi;
      FuzzClock::now() = w.now;
      w.t = i == 0 ? make_first_target(dw, target_mi) : make_second_target(dw, target_mi);
      w.now = FuzzClock::now();
    }
    Observed o[2];
    for (int i = 0; i < 2; ++i) o[i] = observe(*w_[i], false);
    diverged_ = !compare(o, "construction");
  }

  void run(FuzzReader& in) {
    for (int n = 0; n < kMaxOps && !in.empty() && !diverged_; ++n) {
      const uint8_t kind = in.u8() % kL2OpCount;
      Args args;
      read_args(kind, in, &args);
      Observed o[2];
      for (int i = 0; i < 2; ++i) {
        World& w = *w_[i];
        FuzzClock::now() = w.now;
        w.vs.begin_step();
        const uint64_t t0 = FuzzClock::now();
        const bool ok = step(w, kind, args, &o[i]);
        o[i] = observe(w, ok, &o[i]);
        o[i].elapsed = FuzzClock::now() - t0;
        w.now = FuzzClock::now();
      }
      if (tracing()) {
        std::fprintf(stderr, "op %2u: ok %d/%d live %d/%d kind %u/%u | %s | %s\n", kind, o[0].ok,
                     o[1].ok, o[0].live, o[1].live, o[0].kind, o[1].kind, w_[0]->t->error_message(),
                     w_[1]->t->error_message());
      }
      diverged_ = !compare(o, "step");
    }
  }

 private:
  struct Args {
    uint64_t a = 0, b = 0, c = 0, d = 0, e = 0;
  };

  static void scalars(const World& w, int fault, uint64_t* s) {
    const RegionPartLocalSpan p = w.region.payload_span(), c = w.region.counter_span();
    const uint64_t v[10] = {wire::kMagicVersion,
                            kSession,
                            kTxn,
                            p.base,
                            p.logical_bytes,
                            c.base,
                            c.logical_bytes,
                            w.lay.depth,
                            w.lay.input_arena_bytes,
                            w.lay.output_arena_bytes};
    std::memcpy(s, v, sizeof(v));
    if (fault == 0) s[4] += 64;
    if (fault == 1) s[2] = 0;
    if (fault == 2) s[0] += 1;
    if (fault == 3) s[7] *= 2;
    if (fault == 4) s[6] = 320;
    if (fault == 5) s[8] += 1;
  }

  // Arguments are read once and replayed into both worlds.
  static void read_args(uint8_t kind, FuzzReader& in, Args* x) {
    switch (kind) {
      case kL3Send:
        x->a = in.u16();
        break;
      case kL2Peek:
        x->a = in.u8();
        x->b = in.u8();
        x->c = in.u16();
        break;
      case kL2Release:
        x->a = in.u8();
        break;
      case kL2TryReserve:
        x->a = in.u16();
        break;
      case kL2Reserve:
        x->a = in.u16();
        x->b = in.u8();
        x->c = in.u8();
        break;
      case kL2Publish:
        x->a = in.u8();
        break;
      case kL2Misuse:
        x->a = in.u8();
        x->b = in.u8();
        break;
      case kHostileCounter:
        x->a = in.u8();
        x->b = in.u8();
        x->c = in.u32();
        break;
      case kHostileDesc:
        x->a = in.u8();
        x->b = in.u8();
        x->c = in.u8();
        x->d = in.u64();
        break;
      case kHostileCraft:
        x->a = in.u8();
        x->b = in.u8();
        x->c = in.u16();
        x->d = in.u8();
        break;
      case kHostileScribble:
        x->a = in.u16();
        x->b = in.u8();
        break;
      case kHostileAbort:
        x->a = in.u32();
        break;
      case kClockAdvance:
        x->a = in.u16();
        break;
      case kViewFault:
        x->a = in.u8();
        break;  // read and ignored (see the header comment)
      default:
        break;
    }
  }

  bool peek_allowed(const World& w) const { return !window_ || w.data_held == 0; }

  void take(World& w, const DiffHandle& h, Observed* o) {
    w.held.push_back(h);
    if (h.opcode == wire::kData) ++w.data_held;
    o->seq = h.seq;
    o->opcode = h.opcode;
    o->offset = h.offset;
    o->nbytes = h.nbytes;
    o->payload_at = w.at(h.payload);
  }

  void reserved(World& w, const DiffReservation& r, Observed* o) {
    w.active = true;
    w.r = r;
    o->offset = r.offset;
    o->nbytes = r.nbytes;
    o->payload_at = w.at(r.payload);
  }

  // Runs one op in one world; returns the endpoint call's result (false when
  // the op did not call the endpoint).
  bool step(World& w, uint8_t kind, const Args& x, Observed* o) {
    const ModelLayout& l = w.lay;
    switch (kind) {
      case kL3Send:
        w.send(x.a % (l.input_arena_bytes + 1), wire::kData);
        return false;
      case kL3Stop:
        w.send(0, wire::kStop);
        return false;
      case kL3Consume:
        w.consume();
        return false;
      case kL2TryPeek: {
        if (!peek_allowed(w)) return false;
        DiffHandle h;
        if (!w.t->try_peek(&h)) return false;
        take(w, h, o);
        return true;
      }
      case kL2Peek: {
        if (!peek_allowed(w)) return false;
        if (x.b & 1) {
          w.hook_size = x.c % (l.input_arena_bytes + 1);
          w.vs.wait_hook = &World::hook_send;
          w.vs.wait_hook_arg = &w;
        }
        DiffHandle h;
        const bool ok = w.t->peek(x.a * 997, &h);
        w.vs.wait_hook = nullptr;
        if (ok) take(w, h, o);
        return ok;
      }
      case kL2Release: {
        if (w.held.empty()) return false;
        const size_t i = x.a % w.held.size();
        const DiffHandle h = w.held[i];
        const bool ok = w.t->release(h.id, 0);
        if (ok) {
          w.held.erase(w.held.begin() + static_cast<std::ptrdiff_t>(i));
          if (h.opcode == wire::kData) --w.data_held;
          w.last_released = h;
          w.have_released = true;
        }
        return ok;
      }
      case kL2TryReserve: {
        if (w.active) return false;
        DiffReservation r;
        if (!w.t->try_reserve(x.a % (l.output_arena_bytes + 65), &r)) return false;
        reserved(w, r, o);
        return true;
      }
      case kL2Reserve: {
        if (w.active) return false;
        if (x.c & 1) {
          w.vs.wait_hook = &World::hook_consume;
          w.vs.wait_hook_arg = &w;
        }
        DiffReservation r;
        const bool ok = w.t->reserve(x.a % (l.output_arena_bytes + 65), x.b * 997, &r);
        w.vs.wait_hook = nullptr;
        if (ok) reserved(w, r, o);
        return ok;
      }
      case kL2Publish: {
        if (!w.active) return false;
        ++w.publishes;
        for (uint64_t i = 0; i < w.r.nbytes; ++i) {
          w.r.payload[i] = pattern_byte(w.salt ^ 0xa5, w.publishes, i);
        }
        w.active = false;
        w.have_published = true;
        w.last_published = w.r.id;
        return w.t->publish(w.r.id, (x.a & 1) ? wire::kError : wire::kData);
      }
      case kL2Misuse:
        return misuse(w, x.a % kL2MisuseCount, static_cast<uint8_t>(x.b));
      case kHostileCounter:
        w.hostile_counter((x.a % 6) * 64, x.b, x.c);
        return false;
      case kHostileDesc:
        w.hostile_desc(x.a, x.b % 4, x.c, x.d);
        return false;
      case kHostileCraft:
        w.craft(x.a, x.b, x.c, x.d);
        return false;
      case kHostileScribble:
        w.region.payload()[l.input_arena + x.a % l.input_arena_bytes] = static_cast<uint8_t>(x.b);
        return false;
      case kHostileAbort:
        w.region.set_counter(wire::kInitiatorFlag, static_cast<int32_t>(x.a));
        return false;
      case kClockAdvance:
        FuzzClock::advance(x.a * 1000);
        return false;
      default:
        return false;
    }
  }

  bool misuse(World& w, uint64_t variant, uint8_t arg) {
    switch (variant) {
      case kReleaseStale:
        return w.have_released && w.t->release(w.last_released.id, 0);
      case kReleaseBadSeq:
        return !w.held.empty() && w.t->release(w.held[arg % w.held.size()].id, 1 + arg % 3);
      case kReserveTwice: {
        DiffReservation r;
        return w.active && w.t->try_reserve(arg, &r);
      }
      case kPublishStale:
        return w.have_published && w.t->publish(w.last_published, wire::kData);
      case kPublishBadOp: {
        if (!w.active) return false;
        static constexpr uint64_t kBad[3] = {wire::kStop, wire::kInvalid, 7};
        w.active = false;
        return w.t->publish(w.r.id, kBad[arg % 3]);
      }
      default:
        return false;  // a foreign owner token has no portable form
    }
  }

  static Observed observe(World& w, bool ok, const Observed* partial = nullptr) {
    Observed o = partial ? *partial : Observed{};
    o.ok = ok;
    o.live = w.t->live();
    o.kind = w.t->error_kind();
    o.op = w.t->error_op();
    o.drained = w.t->drained();
    o.view_failed = w.vs.failed;
    o.flag_writes = w.vs.own_flag_writes;
    o.peer_steps = w.peer_steps;
    return o;
  }

  // Prints a divergence on an open point, once per process and observable.
  SPSQ_FUZZ_NO_COVERAGE void diverge(const char* what, const char* when, const std::string& a,
                                     const std::string& b) {
    static std::set<std::string> seen;
    if (!seen.insert(what).second) return;
    std::fprintf(stderr, "spsq-divergence: %s at %s: %s %s ('%s') / %s %s ('%s')\n", what, when,
                 w_[0]->t->name(), a.c_str(), w_[0]->t->error_message(), w_[1]->t->name(),
                 b.c_str(), w_[1]->t->error_message());
  }

  // False when the outcomes diverge (the input's comparison ends); aborts
  // with a finding when the same outcome produced different results.
  SPSQ_FUZZ_NO_COVERAGE bool compare(const Observed* o, const char* when) {
    const char* n0 = w_[0]->t->name();
    const char* n1 = w_[1]->t->name();
#define SPSQ_DIFF_OUTCOME(field)                                                 \
  if (o[0].field != o[1].field) {                                                \
    diverge(#field, when, std::to_string(o[0].field), std::to_string(o[1].field)); \
    return false;                                                                \
  }
    SPSQ_DIFF_OUTCOME(ok);
    SPSQ_DIFF_OUTCOME(live);
    SPSQ_DIFF_OUTCOME(kind);
    SPSQ_DIFF_OUTCOME(op);
    SPSQ_DIFF_OUTCOME(drained);
    SPSQ_DIFF_OUTCOME(view_failed);
    SPSQ_DIFF_OUTCOME(flag_writes);
    SPSQ_DIFF_OUTCOME(elapsed);
    SPSQ_DIFF_OUTCOME(peer_steps);
#undef SPSQ_DIFF_OUTCOME
#define SPSQ_DIFF(clauses, field, fmt)                                                    \
  SPSQ_FUZZ_CLAUSE_CHECK(clauses, o[0].field == o[1].field,                               \
                         "%s: " #field " differs: %s " fmt ", %s " fmt " ('%s' / '%s')", when, \
                         n0, o[0].field, n1, o[1].field, w_[0]->t->error_message(),        \
                         w_[1]->t->error_message())
    // A handle carries its descriptor; a reservation sits where the arena
    // rule puts it. The pointer of a zero-byte message is left open.
    SPSQ_DIFF("W.SEQ.1,S2.SEQ.1", seq, "%" PRIu64);
    SPSQ_DIFF("S2.DESC.1,S2.OPC.1", opcode, "%" PRIu64);
    SPSQ_DIFF("S2.DESC.1,W.ARENA.1", nbytes, "%" PRIu64);
    if (o[0].nbytes != 0) {
      SPSQ_DIFF("S2.OFF.1,W.ARENA.1,W.ARENA.4", offset, "%" PRIu64);
      SPSQ_DIFF("S2.OFF.1,W.ARENA.1", payload_at, "%" PRId64);
    }
#undef SPSQ_DIFF
    const FuzzRegion& a = w_[0]->region;
    const FuzzRegion& b = w_[1]->region;
    const ModelLayout& l = w_[0]->lay;
    const uint8_t* pa = a.payload();
    const uint8_t* pb = b.payload();
    if (std::memcmp(pa, pb, l.payload_bytes) != 0) {
      uint64_t i = 0;
      while (pa[i] == pb[i]) ++i;
      // Which clauses fix the byte depends on the part it lies in.
      const char* clauses = i >= l.output_arena  ? "S3.PUB.1,S3.PUB.2,W.ARENA.1"
                            : i >= l.input_arena ? "S2.ARENA.1"
                            : i >= l.output_ring ? "W.DESC.1,S3.PUB.1"
                                                 : "S2.ARENA.1,W.DESC.1";
      SPSQ_FUZZ_CLAUSE_CHECK(clauses, false,
                             "%s: shared payload differs first at byte %" PRIu64 " (%u vs %u)",
                             when, i, pa[i], pb[i]);
    }
    for (uint64_t off = 0; off < wire::kCounterBytes; off += 64) {
      const bool flag = off == wire::kInitiatorFlag || off == wire::kPeerFlag;
      SPSQ_FUZZ_CLAUSE_CHECK(flag ? "W.FLAG.1" : "W.CTR.1,S3.CTR.1",
                             a.counter(off) == b.counter(off),
                             "%s: counter %" PRIu64 " differs: %d vs %d", when, off,
                             a.counter(off), b.counter(off));
    }
    return true;
  }

  bool window_ = false;
  bool diverged_ = false;
  std::unique_ptr<World> w_[2];
};

}  // namespace
}  // namespace spsq_fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  spsq_fuzz::FuzzReader in(data, size);
  spsq_fuzz::Differential d(in);
  d.run(in);
  return 0;
}
