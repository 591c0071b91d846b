// A RegionView (wire-contract.md, "The RegionView contract") over plain host
// memory that hands control to the scheduler before every shared access, so
// the explorer can interleave the peer between any two of them. Written from
// the contract only: the endpoint under test brings its own RegionNotifyOp,
// RegionWaitCmp, sample and span types, which the members accept generically.
//
// Visibility mode: the region's payload is a NonCoherentPayload
// (testkit/coherence) under kAdversarial, so nothing moves on its own;
// each view is one side's (the endpoint's L2, the peer's L3) and behaves as
// the contract says a correct view does: read() invalidates the range before
// lending it from the side's copy, write() copies into the side's copy and
// flushes the range. Counters stay coherent. The cache's own write-backs and
// drops are the scheduler's to choose (pending_moves / apply_move).
#ifndef SPSQ_SANITIZERS_INTERLEAVE_SCHED_VIEW_H_
#define SPSQ_SANITIZERS_INTERLEAVE_SCHED_VIEW_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "testkit/coherence/coherent_memory.h"
#include "testkit/side.h"
#include "model/view_parts.h"
#include "sanitizers/interleave/scheduler.h"

namespace spsq_sched {

using spsq_conf::Side;

// The memory of one region, owned by the scenario.
struct SchedRegion {
  using Cache = spsq_conf::NonCoherentPayload;

  std::vector<uint64_t> payload;  // uint64_t keeps it 8-byte aligned (coherent mode)
  std::vector<uint64_t> counter;
  uint64_t payload_bytes = 0;
  uint64_t counter_bytes = 0;
  Run* run = nullptr;
  // Visibility mode only: the payload as DRAM and two private copies.
  std::unique_ptr<Cache> cache;
  // Names the layout parts of [offset, offset + n) in move descriptions
  // (optional).
  std::function<std::string(uint64_t offset, uint64_t n)> part_name;

  SchedRegion(uint64_t payload_size, uint64_t counter_size, bool noncoherent = false)
      : payload(noncoherent ? 0 : (payload_size + 7) / 8), counter((counter_size + 7) / 8),
        payload_bytes(payload_size), counter_bytes(counter_size) {
    if (noncoherent) {
      cache = std::make_unique<Cache>(payload_size, spsq_conf::CachePolicy::kAdversarial);
    }
  }
  // What `side`'s loads and stores hit (the same memory for both when coherent).
  uint8_t* payload_base(Side side = Side::kL2) {
    return cache ? cache->side_base(side) : reinterpret_cast<uint8_t*>(payload.data());
  }
  uint8_t* counter_base() { return reinterpret_cast<uint8_t*>(counter.data()); }

  // The moves either side's cache could make now, L2's then L3's, in line
  // order, less the ones not worth offering at this point; apply_move(k)
  // makes the k-th of the list last counted.
  //
  // A move is offered again only once its line changed since it was last
  // offered at an earlier point (a view access to the line, a move of it, a
  // store into the side's copy): made later, across accesses that do not
  // touch the line, it leaves the same state, and nothing could see the
  // difference but a raw load of a stale line, which the schedule without the
  // move shows already. Several moves at one point go in line order (moves of
  // different lines commute).
  size_t count_moves(uint64_t point) {
    if (line_epoch_.empty()) {
      line_epoch_.assign(cache->lines(), 0);
      for (auto& side : offered_) side.assign(cache->lines(), Offer{});
    }
    current_point_ = point;
    const uint64_t first_line = last_move_point_ == point ? last_move_line_ : 0;
    pending_.clear();
    for (Side side : {Side::kL2, Side::kL3}) {
      for (const Cache::Move& m : cache->pending_moves(side)) {
        if (m.line < first_line) continue;
        Offer now;
        now.point = point;
        now.epoch = line_epoch_[m.line];
        now.kind = m.kind;
        const uint64_t at = m.line * Cache::kLineBytes;
        std::memcpy(now.bytes, payload_base(side) + at, line_bytes(m.line));
        Offer& last = offered_[static_cast<int>(side)][m.line];
        const bool earlier = last.point != 0 && last.point != point;
        if (earlier && last.same_line_state(now, line_bytes(m.line))) continue;
        last = now;
        pending_.push_back(m);
      }
    }
    return pending_.size();
  }
  std::string apply_move(size_t k) {
    const Cache::Move m = pending_.at(k);
    cache->apply(m);
    ++line_epoch_[m.line];
    last_move_point_ = current_point_;
    last_move_line_ = m.line;
    return describe_line(m.side, m.line) + (m.kind == Cache::MoveKind::kWriteBack
                                                ? " written back by the cache on its own"
                                                : " dropped by the cache on its own");
  }
  // A view access to [off, off + n): the lines it touches changed.
  void touched(uint64_t off, uint64_t n) {
    if (line_epoch_.empty() || n == 0) return;
    for (uint64_t line = off / Cache::kLineBytes; line <= (off + n - 1) / Cache::kLineBytes;
         ++line) {
      ++line_epoch_[line];
    }
  }
  // "L2 line 3 (offset 192, output arena)".
  std::string describe_line(Side side, uint64_t line) const {
    const uint64_t at = line * Cache::kLineBytes;
    const uint64_t n = line_bytes(line);
    std::string text = std::string(spsq_conf::side_name(side)) + " line " +
                       std::to_string(line) + " (offset " + std::to_string(at);
    if (part_name) text += ", " + part_name(at, n);
    return text + ")";
  }
  // The lines each side holds dirty (stores not written back) or stale, and
  // the latest movements: appended to a failure in visibility mode.
  std::string explain(size_t last_movements = 8) const {
    std::string text;
    for (Side side : {Side::kL2, Side::kL3}) {
      for (const bool dirty : {true, false}) {
        const std::vector<uint64_t> lines = dirty ? cache->dirty_lines(side, 0, payload_bytes)
                                                  : cache->stale_lines(side, 0, payload_bytes);
        if (lines.empty()) continue;
        text += std::string("\n  ") + (dirty ? "dirty (never written back): " : "stale: ");
        for (size_t i = 0; i < lines.size(); ++i) {
          text += (i ? ", " : "") + describe_line(side, lines[i]);
        }
      }
    }
    const auto& log = cache->movements();
    const size_t from = log.size() > last_movements ? log.size() - last_movements : 0;
    if (from < log.size()) text += "\n  latest cache movements:";
    for (size_t i = from; i < log.size(); ++i) {
      text += "\n    " + spsq_conf::describe_movement(log[i]);
    }
    return text;
  }

 private:
  // A move as last offered: where, and the state of its line then.
  struct Offer {
    uint64_t point = 0;  // 0: never (points count from 1)
    uint64_t epoch = 0;
    Cache::MoveKind kind = Cache::MoveKind::kWriteBack;
    uint8_t bytes[Cache::kLineBytes] = {};  // the side's copy of the line
    bool same_line_state(const Offer& o, uint64_t n) const {
      return epoch == o.epoch && kind == o.kind && std::memcmp(bytes, o.bytes, n) == 0;
    }
  };
  uint64_t line_bytes(uint64_t line) const {
    return std::min<uint64_t>(Cache::kLineBytes, payload_bytes - line * Cache::kLineBytes);
  }

  std::vector<Cache::Move> pending_;
  std::vector<uint64_t> line_epoch_;   // bumped by every view access and move of a line
  std::vector<Offer> offered_[2];      // per side, per line
  uint64_t current_point_ = 0;
  uint64_t last_move_point_ = 0;
  uint64_t last_move_line_ = 0;
};

// {base, logical_bytes} that converts to the endpoint's own span struct
// (RegionPartLocalSpan or any struct with those members), so SchedView names
// none of the endpoint's types.
using SchedSpan = spsq_conf::ViewSpan;

// Span is SchedSpan for an endpoint (or anything with base and
// logical_bytes).
template <class Span>
class SchedView {
 public:
  // `side` matters in visibility mode only: whose cache the view goes through.
  explicit SchedView(SchedRegion* region, Side side = Side::kL2)
      : region_(region), side_(side) {}

  class Payload {
   public:
    Span span() const {
      return Span{reinterpret_cast<uint64_t>(v_->region_->payload_base(v_->side_)),
                  v_->region_->payload_bytes};
    }
    template <class Out>
    bool read(uint64_t off, uint64_t n, Out& out) {
      if (!v_->enter(off, n, v_->region_->payload_bytes, "payload read")) return false;
      SchedRegion& region = *v_->region_;
      if (region.cache) {
        region.cache->invalidate(v_->side_, off, n);
        region.touched(off, n);
      }
      using Addr = decltype(out.local_addr);
      out.local_addr = reinterpret_cast<Addr>(region.payload_base(v_->side_) + off);
      out.nbytes = n;
      return true;
    }
    bool write(uint64_t off, const void* src, uint64_t n) {
      if (!v_->enter(off, n, v_->region_->payload_bytes, "payload write")) return false;
      SchedRegion& region = *v_->region_;
      uint8_t* dst = region.payload_base(v_->side_) + off;
      if (n != 0 && dst != src) std::memmove(dst, src, n);
      if (region.cache) {
        region.cache->flush(v_->side_, off, n);
        region.touched(off, n);
      }
      return true;
    }
    explicit Payload(SchedView* v) : v_(v) {}

   private:
    SchedView* v_;
  };

  class Counter {
   public:
    Span span() const { return Span{reinterpret_cast<uint64_t>(v_->region_->counter_base()),
                                    v_->region_->counter_bytes}; }
    template <class Op>
    bool notify(uint64_t off, int32_t value, Op op) {
      int32_t* p = v_->slot(off, "counter notify");
      if (p == nullptr) return false;
      if (static_cast<int>(op) == 0) {
        *p = value;
      } else if (static_cast<int>(op) == 1) {
        *p = static_cast<int32_t>(static_cast<uint32_t>(*p) + static_cast<uint32_t>(value));
      } else {
        return v_->fail("counter notify with unknown op");
      }
      return true;
    }
    template <class Cmp, class Sample>
    bool test(uint64_t off, int32_t cmp_value, Cmp cmp, Sample& sample) {
      int32_t* p = v_->slot(off, "counter test");
      if (p == nullptr) return false;
      sample.observed = *p;
      sample.matched = holds(*p, cmp, cmp_value);
      return true;
    }
    // Under lockstep scheduling a wait cannot block: it checks once and, if
    // the comparison does not hold, lets the other thread run.
    template <class Cmp>
    bool wait(uint64_t off, int32_t cmp_value, Cmp cmp, uint64_t, int32_t& observed) {
      int32_t* p = v_->slot(off, "counter wait");
      if (p == nullptr) return false;
      observed = *p;
      if (holds(*p, cmp, cmp_value)) return true;
      v_->region_->run->blocked();
      return false;
    }
    explicit Counter(SchedView* v) : v_(v) {}

   private:
    // An unknown compare number holds never (the explorer judges outcomes).
    template <class Cmp>
    static bool holds(int32_t observed, Cmp cmp, int32_t value) {
      bool known = false;
      return spsq_conf::wait_cmp_holds(observed, static_cast<uint32_t>(cmp), value, &known);
    }
    SchedView* v_;
  };

  bool failed() const { return failed_; }
  const spsq_conf::ViewError& error() const { return error_; }
  Payload payload() { return Payload(this); }
  Counter counter() { return Counter(this); }

 private:
  bool fail(const char* what) { return spsq_conf::fail_view(&failed_, &error_, what); }
  // A choice point, then the bounds check every access gets. An access
  // outside the spans fails the whole run: the endpoint broke its contract.
  bool enter(uint64_t off, uint64_t n, uint64_t limit, const char* what) {
    region_->run->point(what, off, n);
    if (failed_) return false;
    if (!spsq_conf::in_span(off, n, limit)) {
      region_->run->fail(spsq_conf::outside_span(what, off, n, limit).text);
    }
    return true;
  }
  int32_t* slot(uint64_t off, const char* what) {
    if (!enter(off, 4, region_->counter_bytes, what)) return nullptr;
    if (off % 4 != 0) region_->run->fail(std::string(what) + " misaligned");
    return reinterpret_cast<int32_t*>(region_->counter_base() + off);
  }

  SchedRegion* region_;
  Side side_;
  bool failed_ = false;
  spsq_conf::ViewError error_;
};

}  // namespace spsq_sched

#endif  // SPSQ_SANITIZERS_INTERLEAVE_SCHED_VIEW_H_
