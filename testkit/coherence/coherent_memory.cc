#include "testkit/coherence/coherent_memory.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace spsq_conf {
namespace {

using ull = unsigned long long;

[[noreturn]] void die_range(const char* call, Side side, uint64_t offset, uint64_t nbytes,
                            uint64_t size) {
  std::fprintf(stderr,
               "NonCoherentPayload: harness bug: %s by %s of [%llu, +%llu) outside a "
               "%llu-byte part\n",
               call, side_name(side), static_cast<ull>(offset), static_cast<ull>(nbytes),
               static_cast<ull>(size));
  std::abort();
}

[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "NonCoherentPayload: harness bug: %s\n", what);
  std::abort();
}

}  // namespace

const char* cache_policy_name(CachePolicy policy) {
  switch (policy) {
    case CachePolicy::kNone: return "none";
    case CachePolicy::kRandom: return "random";
    case CachePolicy::kAdversarial: return "adversarial";
  }
  return "?";
}

void cache_policy_from_environment(const char* who, CachePolicy* policy, uint64_t* seed) {
  *policy = CachePolicy::kNone;
  *seed = 0;
  const char* v = std::getenv(kCachePolicyVar);
  if (v == nullptr || *v == '\0') return;
  if (parse_cache_policy(v, policy, seed)) return;
  std::fprintf(stderr, "%s: %s=\"%s\" is not a cache policy: accepted are %s\n", who,
               kCachePolicyVar, v, kCachePolicyForms);
  std::abort();
}

bool parse_cache_policy(const std::string& text, CachePolicy* policy, uint64_t* seed) {
  if (text == "none" || text == "adversarial" || text == "random") {
    *policy = text == "none"          ? CachePolicy::kNone
              : text == "adversarial" ? CachePolicy::kAdversarial
                                      : CachePolicy::kRandom;
    *seed = 0;
    return true;
  }
  static const std::string kRandomSeed = "random:";
  if (text.compare(0, kRandomSeed.size(), kRandomSeed) != 0) return false;
  const std::string digits = text.substr(kRandomSeed.size());
  if (digits.empty() || digits.size() > 20) return false;
  uint64_t value = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (value > (UINT64_MAX - d) / 10) return false;  // more than 64 bits
    value = value * 10 + d;
  }
  *policy = CachePolicy::kRandom;
  *seed = value;
  return true;
}

const char* move_kind_name(NonCoherentPayload::MoveKind kind) {
  switch (kind) {
    case NonCoherentPayload::MoveKind::kWriteBack: return "written back";
    case NonCoherentPayload::MoveKind::kDrop: return "dropped";
  }
  return "?";
}

const char* move_cause_name(NonCoherentPayload::Cause cause) {
  switch (cause) {
    case NonCoherentPayload::Cause::kFlush: return "flush";
    case NonCoherentPayload::Cause::kInvalidate: return "invalidate";
    case NonCoherentPayload::Cause::kSpontaneous: return "the cache on its own";
  }
  return "?";
}

std::string describe_movement(const NonCoherentPayload::Movement& m) {
  char text[160];
  std::snprintf(text, sizeof(text), "step %llu: %s line %llu (offset %llu) %s by %s%s",
                static_cast<ull>(m.step), side_name(m.side), static_cast<ull>(m.line),
                static_cast<ull>(m.line * NonCoherentPayload::kLineBytes),
                move_kind_name(m.kind), move_cause_name(m.cause),
                m.lost_dirty ? ", losing stores never written back" : "");
  return text;
}

NonCoherentPayload::NonCoherentPayload(uint64_t bytes, CachePolicy policy, uint64_t seed)
    : bytes_(bytes), policy_(policy), rng_(seed) {
  // Each buffer is a part of its own RegionMemory (no counter part), so each
  // sits flush against a faulting guard page: an overrun of a side's copy
  // faults exactly as an overrun of the coherent region does.
  owned_memory_ = std::make_unique<RegionMemory>(bytes, 0);
  dram_ = owned_memory_->payload();
  make_copies();
}

NonCoherentPayload::NonCoherentPayload(uint8_t* dram, uint64_t bytes, CachePolicy policy,
                                       uint64_t seed)
    : bytes_(bytes), policy_(policy), rng_(seed), dram_(dram) {
  if (dram == nullptr && bytes != 0) die("construction over a null external memory");
  make_copies();
}

void NonCoherentPayload::make_copies() {
  if (policy_ != CachePolicy::kNone && policy_ != CachePolicy::kRandom &&
      policy_ != CachePolicy::kAdversarial) {
    die("construction with an unknown cache policy");
  }
  if (policy_ == CachePolicy::kNone) return;
  for (int s = 0; s < 2; ++s) {
    copies_[s] = std::make_unique<RegionMemory>(bytes_, 0);
    // Copies and snapshots start as DRAM is now: every line clean and fresh.
    if (bytes_ != 0) std::memcpy(copies_[s]->payload(), dram_, bytes_);
    snapshots_[s].assign(dram_, dram_ + bytes_);
  }
}

NonCoherentPayload::~NonCoherentPayload() = default;

uint64_t NonCoherentPayload::line_length(uint64_t line) const {
  const uint64_t rest = bytes_ - line_offset(line);
  return rest < kLineBytes ? rest : kLineBytes;
}

void NonCoherentPayload::check_side(const char* call, Side side) const {
  if (side == Side::kL2 || side == Side::kL3) return;
  std::fprintf(stderr, "NonCoherentPayload: harness bug: %s with side %d (neither L2 nor L3)\n",
               call, static_cast<int>(side));
  std::abort();
}

void NonCoherentPayload::check_range(const char* call, Side side, uint64_t offset,
                                     uint64_t nbytes) const {
  check_side(call, side);
  // Overflow-safe: offset + nbytes is never formed.
  if (offset > bytes_ || nbytes > bytes_ - offset) die_range(call, side, offset, nbytes, bytes_);
}

uint8_t* NonCoherentPayload::copy(Side side) const {
  return copies_[static_cast<int>(side)]->payload();
}

uint8_t* NonCoherentPayload::snapshot(Side side) const {
  // const_cast: the snapshots are the model's own bookkeeping; const members
  // only compare them.
  return const_cast<uint8_t*>(snapshots_[static_cast<int>(side)].data());
}

uint8_t* NonCoherentPayload::side_base(Side side) const {
  check_side("side_base", side);
  return policy_ == CachePolicy::kNone ? dram_ : copy(side);
}

bool NonCoherentPayload::dirty(Side side, uint64_t line) const {
  const uint64_t at = line_offset(line);
  return std::memcmp(copy(side) + at, snapshot(side) + at, line_length(line)) != 0;
}

bool NonCoherentPayload::stale(Side side, uint64_t line) const {
  const uint64_t at = line_offset(line);
  return std::memcmp(copy(side) + at, dram_ + at, line_length(line)) != 0;
}

void NonCoherentPayload::write_back(Side side, uint64_t line, Cause cause) {
  // The whole line goes, bytes the side never stored included: a write-back
  // overwrites whatever the peer flushed into the same line meanwhile.
  const uint64_t at = line_offset(line);
  const uint64_t n = line_length(line);
  if (write_back_mode_ == WriteBack::kStoredBytes) {
    const uint8_t* c = copy(side) + at;
    const uint8_t* snap = snapshot(side) + at;
    for (uint64_t i = 0; i < n; ++i) {
      if (c[i] != snap[i]) dram_[at + i] = c[i];
    }
  } else {
    std::memcpy(dram_ + at, copy(side) + at, n);
  }
  std::memcpy(snapshot(side) + at, copy(side) + at, n);
  if (write_back_hook_) write_back_hook_(at, n);
  record(side, line, MoveKind::kWriteBack, cause, false);
}

void NonCoherentPayload::drop(Side side, uint64_t line, Cause cause, bool lost_dirty) {
  const uint64_t at = line_offset(line);
  const uint64_t n = line_length(line);
  // One read of memory fills both: the peer may be another process, storing
  // into the line meanwhile, and two reads could leave the copy differing
  // from its snapshot: a line that looks dirty with bytes the side never
  // stored, which a later write-back would put over the peer's.
  uint8_t fill[kLineBytes];
  std::memcpy(fill, dram_ + at, n);
  std::memcpy(copy(side) + at, fill, n);
  std::memcpy(snapshot(side) + at, fill, n);
  record(side, line, MoveKind::kDrop, cause, lost_dirty);
}

void NonCoherentPayload::record(Side side, uint64_t line, MoveKind kind, Cause cause,
                                bool lost_dirty) {
  ++moves_total_;
  if (log_limit_ == 0) return;
  if (log_.size() == log_limit_) log_.pop_front();  // keep the latest
  Movement m;
  m.step = steps_;
  m.side = side;
  m.line = line;
  m.kind = kind;
  m.cause = cause;
  m.lost_dirty = lost_dirty;
  log_.push_back(m);
}

void NonCoherentPayload::set_log_limit(size_t limit) {
  log_limit_ = limit;
  while (log_.size() > log_limit_) log_.pop_front();
}

uint64_t NonCoherentPayload::next_random() {
  // splitmix64: one add and two multiply-xorshift rounds per draw; every
  // seed, zero included, gives a full-period stream.
  uint64_t z = (rng_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

void NonCoherentPayload::flush(Side side, uint64_t offset, uint64_t nbytes) {
  check_range("flush", side, offset, nbytes);
  ++steps_;
  if (policy_ == CachePolicy::kNone || nbytes == 0) return;
  const uint64_t last = (offset + nbytes - 1) / kLineBytes;
  for (uint64_t line = offset / kLineBytes; line <= last; ++line) {
    if (dirty(side, line)) write_back(side, line, Cause::kFlush);
  }
}

void NonCoherentPayload::invalidate(Side side, uint64_t offset, uint64_t nbytes) {
  check_range("invalidate", side, offset, nbytes);
  ++steps_;
  if (policy_ == CachePolicy::kNone || nbytes == 0) return;
  const uint64_t last = (offset + nbytes - 1) / kLineBytes;
  for (uint64_t line = offset / kLineBytes; line <= last; ++line) {
    const bool is_dirty = dirty(side, line);
    const bool is_stale = stale(side, line);
    // A line equal to memory and its snapshot is dropped and refetched
    // unchanged: nothing moved, nothing logged.
    if (is_dirty || is_stale) drop(side, line, Cause::kInvalidate, is_dirty && is_stale);
  }
}

void NonCoherentPayload::cache_may_act(Side side) {
  check_side("cache_may_act", side);
  ++steps_;
  if (policy_ != CachePolicy::kRandom) return;
  for (uint64_t line = 0; line < lines(); ++line) {
    // One draw per line that can move, so the stream depends only on the
    // state and the calls: a replay with the same seed makes the same moves.
    if (dirty(side, line)) {
      if (next_random() >> 63) write_back(side, line, Cause::kSpontaneous);
    } else if (stale(side, line)) {
      if (next_random() >> 63) drop(side, line, Cause::kSpontaneous, false);
    }
  }
}

void NonCoherentPayload::store(Side side, uint64_t offset, const void* src, uint64_t nbytes) {
  check_range("store", side, offset, nbytes);
  if (nbytes == 0) return;
  if (src == nullptr) die_range("store from a null source", side, offset, nbytes, bytes_);
  std::memmove(side_base(side) + offset, src, nbytes);
}

void NonCoherentPayload::load(Side side, uint64_t offset, void* dst, uint64_t nbytes) const {
  check_range("load", side, offset, nbytes);
  if (nbytes == 0) return;
  if (dst == nullptr) die_range("load into a null destination", side, offset, nbytes, bytes_);
  std::memmove(dst, side_base(side) + offset, nbytes);
}

namespace {

// The lines overlapping [offset, offset + nbytes) for which `pred` holds.
template <class Pred>
std::vector<uint64_t> lines_where(uint64_t offset, uint64_t nbytes, Pred pred) {
  std::vector<uint64_t> out;
  if (nbytes == 0) return out;
  const uint64_t last = (offset + nbytes - 1) / NonCoherentPayload::kLineBytes;
  for (uint64_t line = offset / NonCoherentPayload::kLineBytes; line <= last; ++line) {
    if (pred(line)) out.push_back(line);
  }
  return out;
}

}  // namespace

std::vector<uint64_t> NonCoherentPayload::stale_lines(Side side, uint64_t offset,
                                                      uint64_t nbytes) const {
  check_range("stale_lines", side, offset, nbytes);
  if (policy_ == CachePolicy::kNone) return {};
  return lines_where(offset, nbytes, [&](uint64_t line) { return stale(side, line); });
}

std::vector<uint64_t> NonCoherentPayload::dirty_lines(Side side, uint64_t offset,
                                                      uint64_t nbytes) const {
  check_range("dirty_lines", side, offset, nbytes);
  if (policy_ == CachePolicy::kNone) return {};
  return lines_where(offset, nbytes, [&](uint64_t line) { return dirty(side, line); });
}

std::vector<NonCoherentPayload::Move> NonCoherentPayload::pending_moves(Side side) const {
  check_side("pending_moves", side);
  std::vector<Move> out;
  if (policy_ == CachePolicy::kNone) return out;
  for (uint64_t line = 0; line < lines(); ++line) {
    if (dirty(side, line)) {
      out.push_back(Move{side, line, MoveKind::kWriteBack});
    } else if (stale(side, line)) {
      out.push_back(Move{side, line, MoveKind::kDrop});
    }
  }
  return out;
}

bool NonCoherentPayload::apply(const Move& move) {
  check_side("apply", move.side);
  if (policy_ == CachePolicy::kNone) die("apply under the coherent policy (no cache to move)");
  if (move.line >= lines()) {
    std::fprintf(stderr,
                 "NonCoherentPayload: harness bug: apply by %s of line %llu, past the last "
                 "line of a %llu-byte part\n",
                 side_name(move.side), static_cast<ull>(move.line), static_cast<ull>(bytes_));
    std::abort();
  }
  ++steps_;
  switch (move.kind) {
    case MoveKind::kWriteBack:
      if (!dirty(move.side, move.line)) return false;
      write_back(move.side, move.line, Cause::kSpontaneous);
      return true;
    case MoveKind::kDrop:
      if (dirty(move.side, move.line)) {
        // A cache never discards a dirty line on its own; a scheduler that
        // asks for it holds a move list from before a store.
        std::fprintf(stderr,
                     "NonCoherentPayload: harness bug: apply would drop dirty line %llu of "
                     "%s (its stores would be lost)\n",
                     static_cast<ull>(move.line), side_name(move.side));
        std::abort();
      }
      if (!stale(move.side, move.line)) return false;
      drop(move.side, move.line, Cause::kSpontaneous, false);
      return true;
  }
  die("apply with an unknown move kind");
}

}  // namespace spsq_conf
