// NonCoherentPayload: the PAYLOAD part of a queue region as two sides with
// private, non-coherent caches see it (the L2 AICPU and the L3 host).
//
// The spec's producer sequence has a step "make those bytes visible to the
// peer" between writing the payload and publishing the tail. On the device a
// payload store stays in the writer's cache until it is written back
// (flushed), and the reader keeps serving a stale line until it invalidates
// it. RegionMemory is one coherent array, so an endpoint that skips the flush
// passes there. This model keeps three copies of the part:
//
//   memory            what is really in DRAM
//   copy(side)        what that side's loads and stores hit: side_base(side)
//   snapshot(side)    the side's lines as last fetched or written back
//
// A line is kLineBytes of the part, counted from its start (the last line of
// a part whose size is not a multiple of 64 is shorter). A side's line is
// DIRTY when its copy differs from its snapshot (byte compare: exact, no
// bookkeeping of stores the model cannot see) and STALE when its copy differs
// from memory. Data moves a whole line at a time, and only through:
//   flush()          writes back the dirty lines overlapping a range;
//   invalidate()     drops the lines overlapping a range: copy and snapshot
//                    are refetched from memory, so dirty bytes are LOST (an
//                    invalidate without a clean discards them on hardware);
//   cache_may_act()  the policy's own write-backs and drops (never the drop
//                    of a dirty line);
//   apply()          one such move chosen by an external scheduler.
// Raw loads and stores through side_base() are invisible to the model, which
// is the point: a side that neither flushes nor invalidates works on its own
// copy, and a line nobody invalidated is what its loads see.
//
// Every line starts cached by both sides, all three copies equal: zero for a
// part the model owns, DRAM's bytes at construction for an external one. A
// real cache may hold a line from a prefetch, so keeping it is always legal.
//
// DRAM is either the model's own buffer or an external one (the harness's
// RegionMemory payload): then the scripted peer, the region decoder, dumps
// and the shadow check keep working on the real memory, and a peer store
// into it is, to the model, a store another agent made visible.
//
// Only the payload is modelled. The COUNTER part (head/tail/abort signals,
// reached through notify/test/wait) is coherent and stays in RegionMemory:
// those calls are the synchronisation points, where the harness view calls
// cache_may_act().
//
// Out-of-range use is a harness bug and aborts, naming the call, the side and
// the range. Single-threaded, like the rest of the harness. The non-coherent
// policies keep two copies and two snapshots beside memory (5 x bytes) and
// scan a side's whole copy in cache_may_act() and pending_moves(): a model
// for test-sized parts, not for a depth-2^30 layout.
#ifndef SPSQ_CONFORMANCE_COHERENCE_COHERENT_MEMORY_H_
#define SPSQ_CONFORMANCE_COHERENCE_COHERENT_MEMORY_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "testkit/region_memory.h"
#include "testkit/side.h"

namespace spsq_conf {

enum class CachePolicy : int {
  // Coherent: one shared memory, both sides' bases are the DRAM copy, every
  // store is visible to the peer at once; flush/invalidate are no-ops.
  kNone = 0,
  // Seeded (splitmix64): at each cache_may_act(side), every dirty line of the
  // side is written back with probability 1/2 and every clean stale line is
  // dropped with probability 1/2, one draw per such line in line order. The
  // same seed and calls give the same moves (replay).
  kRandom = 1,
  // Never moves a line on its own: write-backs as late as possible (flush),
  // stale lines kept as long as possible (invalidate). The verdict policy: an
  // endpoint that omits a flush or an invalidate is caught every time.
  kAdversarial = 2,
};

const char* cache_policy_name(CachePolicy policy);

// Parses a policy as SPSQ_COHERENCE spells it: "none", "adversarial",
// "random" (seed 0) or "random:<seed>" (decimal, fits 64 bits). False for
// anything else; *policy and *seed are then unchanged.
bool parse_cache_policy(const std::string& text, CachePolicy* policy, uint64_t* seed);
// The accepted forms, for messages.
inline constexpr const char* kCachePolicyForms =
    "none, adversarial, random or random:<decimal seed>";

// The variable that picks the policy of a run (suites, runtime simulation).
inline constexpr const char* kCachePolicyVar = "SPSQ_COHERENCE";
// The environment's policy: SPSQ_COHERENCE unset or empty is kNone. A value
// parse_cache_policy() refuses aborts, naming `who`, the variable, the value
// and the accepted forms.
void cache_policy_from_environment(const char* who, CachePolicy* policy, uint64_t* seed);

class NonCoherentPayload {
 public:
  static constexpr uint64_t kLineBytes = 64;
  static constexpr size_t kDefaultLogLimit = 4096;

  enum class MoveKind : int { kWriteBack = 0, kDrop = 1 };
  // kSpontaneous covers both the policy's moves and apply()'s: either way
  // the cache acted on its own, not because the side asked.
  enum class Cause : int { kFlush = 0, kInvalidate = 1, kSpontaneous = 2 };

  // A move a side's cache could make now (pending_moves) or is told to make
  // (apply).
  struct Move {
    Side side = Side::kL2;
    uint64_t line = 0;
    MoveKind kind = MoveKind::kWriteBack;
    bool operator==(const Move& o) const {
      return side == o.side && line == o.line && kind == o.kind;
    }
  };

  // One entry of the movement log.
  struct Movement {
    uint64_t step = 0;  // the flush/invalidate/cache_may_act/apply call (1-based)
    Side side = Side::kL2;
    uint64_t line = 0;
    MoveKind kind = MoveKind::kWriteBack;
    Cause cause = Cause::kFlush;
    // A drop that discarded bytes the side had stored and never written
    // back (only an invalidate can do that).
    bool lost_dirty = false;
    bool operator==(const Movement& o) const {
      return step == o.step && side == o.side && line == o.line && kind == o.kind &&
             cause == o.cause && lost_dirty == o.lost_dirty;
    }
  };

  // A zero-filled part of `bytes` bytes. `seed` matters only under kRandom.
  NonCoherentPayload(uint64_t bytes, CachePolicy policy, uint64_t seed = 0);
  // The same over external DRAM: `dram` (not owned, must outlive the model)
  // holds the part's `bytes` bytes. Both side copies start equal to it.
  NonCoherentPayload(uint8_t* dram, uint64_t bytes, CachePolicy policy, uint64_t seed = 0);
  ~NonCoherentPayload();
  NonCoherentPayload(const NonCoherentPayload&) = delete;
  NonCoherentPayload& operator=(const NonCoherentPayload&) = delete;

  uint64_t bytes() const { return bytes_; }
  uint64_t lines() const { return (bytes_ + kLineBytes - 1) / kLineBytes; }
  CachePolicy policy() const { return policy_; }

  // The base a side's view hands out (local_addr of a read, the base an
  // endpoint computes from). A PROT_NONE page follows the last byte.
  uint8_t* side_base(Side side) const;
  // DRAM, for checks ("what would a correct peer read after invalidating").
  const uint8_t* memory() const { return dram_; }
  bool external_memory() const { return owned_memory_ == nullptr; }

  // Called with [offset, nbytes) of DRAM after every write-back (a flush, the
  // policy's or apply()'s), before the movement is logged: the harness keeps
  // its shadow copy of DRAM in step, since the cache, not a stray store,
  // changed those bytes. Empty: nothing is called.
  using WriteBackHook = std::function<void(uint64_t offset, uint64_t nbytes)>;
  void set_write_back_hook(WriteBackHook hook) { write_back_hook_ = std::move(hook); }

  // What a write-back carries. kLine (the default) is the whole line, bytes
  // the side never stored included, as caches that write back whole lines
  // do. kStoredBytes carries only the bytes that differ from the side's
  // snapshot (byte-masked write-back): the runtime's concurrent simulation
  // uses it, because at depth 1 both descriptor rings share line 0 and a
  // whole-line write-back by one side would undo the other's descriptor
  // whatever the endpoints do (README.md, "A finding").
  enum class WriteBack : int { kLine = 0, kStoredBytes = 1 };
  void set_write_back(WriteBack mode) { write_back_mode_ = mode; }
  WriteBack write_back_mode() const { return write_back_mode_; }

  // The side's cache traffic. A zero-byte range is a no-op.
  void flush(Side side, uint64_t offset, uint64_t nbytes);
  void invalidate(Side side, uint64_t offset, uint64_t nbytes);
  // A point where the side's cache may act on its own (see CachePolicy).
  void cache_may_act(Side side);

  // Harness-side accessors for a correct scripted peer. store/load touch
  // only the side's copy, like raw CPU accesses.
  void store(Side side, uint64_t offset, const void* src, uint64_t nbytes);
  void load(Side side, uint64_t offset, void* dst, uint64_t nbytes) const;
  void publish_bytes(Side side, uint64_t offset, const void* src, uint64_t nbytes) {
    store(side, offset, src, nbytes);
    flush(side, offset, nbytes);
  }
  void fresh_bytes(Side side, uint64_t offset, void* dst, uint64_t nbytes) {
    invalidate(side, offset, nbytes);
    load(side, offset, dst, nbytes);
  }

  // Diagnostics: lines overlapping the range whose copy differs from memory
  // ("L2 read payload [..] through a stale line"), resp. from its snapshot
  // (stores not yet written back). Empty under kNone.
  std::vector<uint64_t> stale_lines(Side side, uint64_t offset, uint64_t nbytes) const;
  std::vector<uint64_t> dirty_lines(Side side, uint64_t offset, uint64_t nbytes) const;

  // The choice hook for a schedule explorer: every move the side's cache
  // could legally make now (write back a dirty line, drop a clean stale
  // one), in line order, whatever the policy would pick (an explorer runs
  // under kAdversarial and makes the choices itself). Empty under kNone.
  std::vector<Move> pending_moves(Side side) const;
  // Makes one move; true when it changed anything (a write-back of a line
  // that is clean by now does nothing). Dropping a dirty line, a line out of
  // range or any move under kNone is a harness bug and aborts.
  bool apply(const Move& move);

  // The movement log: the latest log_limit() moves (0 keeps none).
  const std::deque<Movement>& movements() const { return log_; }
  uint64_t movements_total() const { return moves_total_; }
  size_t log_limit() const { return log_limit_; }
  void set_log_limit(size_t limit);
  // Calls counted in Movement::step so far.
  uint64_t steps() const { return steps_; }

 private:
  uint64_t line_offset(uint64_t line) const { return line * kLineBytes; }
  uint64_t line_length(uint64_t line) const;
  void check_side(const char* call, Side side) const;
  void check_range(const char* call, Side side, uint64_t offset, uint64_t nbytes) const;
  uint8_t* copy(Side side) const;
  uint8_t* snapshot(Side side) const;
  bool dirty(Side side, uint64_t line) const;
  bool stale(Side side, uint64_t line) const;
  void write_back(Side side, uint64_t line, Cause cause);
  void drop(Side side, uint64_t line, Cause cause, bool lost_dirty);
  void record(Side side, uint64_t line, MoveKind kind, Cause cause, bool lost_dirty);
  uint64_t next_random();
  void make_copies();

  uint64_t bytes_;
  CachePolicy policy_;
  uint64_t rng_;
  // Absent over external DRAM.
  std::unique_ptr<RegionMemory> owned_memory_;
  uint8_t* dram_ = nullptr;
  // Absent under kNone: both sides use memory_.
  std::unique_ptr<RegionMemory> copies_[2];
  std::vector<uint8_t> snapshots_[2];
  std::deque<Movement> log_;
  size_t log_limit_ = kDefaultLogLimit;
  uint64_t moves_total_ = 0;
  uint64_t steps_ = 0;
  WriteBackHook write_back_hook_;
  WriteBack write_back_mode_ = WriteBack::kLine;
};

const char* move_kind_name(NonCoherentPayload::MoveKind kind);
const char* move_cause_name(NonCoherentPayload::Cause cause);
// "step 7: L2 line 3 (offset 192) written back by flush", for failure
// messages.
std::string describe_movement(const NonCoherentPayload::Movement& m);

}  // namespace spsq_conf

#endif  // SPSQ_CONFORMANCE_COHERENCE_COHERENT_MEMORY_H_
