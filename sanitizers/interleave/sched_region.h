// The memory of one region the interleaving explorer runs an endpoint and
// its peer over, and, in visibility mode (the payload a NonCoherentPayload of
// testkit/coherence under kAdversarial, so nothing moves on its own), the
// cache moves the scheduler may make at each point. The views over it are
// sched_view.h's.
#ifndef SPSQ_SANITIZERS_INTERLEAVE_SCHED_REGION_H_
#define SPSQ_SANITIZERS_INTERLEAVE_SCHED_REGION_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "testkit/coherence/coherent_memory.h"
#include "testkit/side.h"
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

}  // namespace spsq_sched

#endif  // SPSQ_SANITIZERS_INTERLEAVE_SCHED_REGION_H_
