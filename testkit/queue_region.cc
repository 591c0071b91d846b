#include "testkit/queue_region.h"

#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "testkit/clauses.h"
#include "model/region_decoder.h"
#include "testkit/virtual_clock.h"
#include "gtest/gtest.h"

namespace spsq_conf {
namespace {

// Bounds on what a failure writes: the text of a region (decoded slots and
// the log's tail), one dump, and all dumps of one process.
constexpr size_t kDescribeBytes = size_t{256} << 10;
constexpr uint64_t kDumpRegionBytes = uint64_t{64} << 20;
constexpr uint64_t kDumpBudget = uint64_t{256} << 20;

// Shadow tracking doubles memory and costs a scan per view call: keep it for
// the small regions nearly every test uses.
constexpr uint64_t kShadowLimit = 1 << 20;

bool overlaps(uint64_t a, uint64_t an, uint64_t b, uint64_t bn) {
  return an != 0 && bn != 0 && a < b + bn && b < a + an;
}

constexpr const char* kOpenFlushVar = "SPSQ_OPEN_FLUSH";

// SPSQ_OPEN_FLUSH: unset or empty, the suite's L2 code flushes what it
// stores, which is right under either reading (the spec's example must work on
// both); "B" says the same of an endpoint that leaves the flush to L2 code;
// "A" declares that the endpoint's publish flushes, so L2 code does not, and a
// publish that does not flush leaves stale bytes for the peer.
bool l2_code_flushes_from_environment() {
  const char* v = std::getenv(kOpenFlushVar);
  if (v == nullptr || *v == '\0' || std::strcmp(v, "B") == 0) return true;
  if (std::strcmp(v, "A") == 0) return false;
  std::fprintf(stderr,
               "QueueRegion: %s=\"%s\" is not an OPEN.FLUSH reading: accepted are A (publish "
               "flushes the output payload), B (L2 code flushes it) or unset (L2 code flushes "
               "it, right under either reading)\n",
               kOpenFlushVar, v);
  std::abort();
}

void append_lines(std::string* s, const char* what, const std::vector<uint64_t>& lines) {
  *s += what;
  if (lines.empty()) *s += " none";
  for (uint64_t line : lines) {
    char text[48];
    std::snprintf(text, sizeof(text), " %" PRIu64 "@%" PRIu64, line,
                  line * NonCoherentPayload::kLineBytes);
    *s += text;
  }
  *s += "\n";
}

}  // namespace

QueueRegion::QueueRegion(QueueParams p) : params_(p) { build(false, Side::kL2); }

QueueRegion::QueueRegion(QueueParams p, Side endpoint) : params_(p) { build(true, endpoint); }

void QueueRegion::build(bool side_known, Side endpoint) {
  const QueueParams& p = params_;
  if (!wire::compute_layout(p.depth, p.input_arena, p.output_arena, &layout_)) {
    std::fprintf(stderr, "QueueRegion: harness bug: no layout for depth %" PRIu64 "\n", p.depth);
    std::abort();
  }
  memory_.reset(new RegionMemory(layout_.payload_bytes, wire::kCounterBytes,
                                 p.shared_for_fork ? RegionMemory::Sharing::kSharedForFork
                                                   : RegionMemory::Sharing::kPrivate));
  if (p.shadow && layout_.payload_bytes <= kShadowLimit) memory_->enable_shadow();
  view_state_.memory = memory_.get();
  view_state_.payload_span = layout_.payload_bytes;
  view_state_.counter_span = wire::kCounterBytes;
  view_state_.log = &log_;
  view_state_.faults = &faults_;

  CachePolicy policy = p.coherence;
  uint64_t seed = p.coherence_seed;
  if (policy != CachePolicy::kNone) {
    // Asked for by the test itself: anything that prevents it is a bug.
    if (!side_known || layout_.payload_bytes > kCoherenceLimit) {
      std::fprintf(stderr,
                   "QueueRegion: harness bug: a %s payload needs %s\n",
                   cache_policy_name(policy),
                   side_known ? "a region of at most 1 MiB"
                              : "the side the endpoint plays (QueueRegion(params, side))");
      std::abort();
    }
  } else if (p.coherence_from_env) {
    cache_policy_from_environment("QueueRegion", &policy, &seed);  // validated even where unused
    if (policy != CachePolicy::kNone && (!side_known || layout_.payload_bytes > kCoherenceLimit)) {
      // Said once per process, so a run under a policy is not misread.
      static bool said[2] = {false, false};
      bool& once = said[side_known ? 1 : 0];
      if (!once) {
        once = true;
        std::fprintf(stderr, "QueueRegion: %s: %s stay coherent\n", kCachePolicyVar,
                     side_known ? "regions over 1 MiB"
                                : "regions built without the endpoint's side (the L3 suite's)");
      }
      policy = CachePolicy::kNone;
    }
  }
  if (policy == CachePolicy::kNone) return;
  coherence_.reset(new NonCoherentPayload(memory_->payload(), layout_.payload_bytes, policy, seed));
  coherence_seed_ = seed;
  // Write-backs change DRAM on the cache's behalf: the shadow accounts them.
  RegionMemory* memory = memory_.get();
  coherence_->set_write_back_hook([memory](uint64_t offset, uint64_t nbytes) {
    memory->sync_shadow(RegionMemory::kPayload, offset, nbytes);
  });
  view_state_.coherence = coherence_.get();
  view_state_.side = endpoint;
  l2_code_flushes_ = endpoint == Side::kL2 && l2_code_flushes_from_environment();
}

wire::BindingFields QueueRegion::fields() const {
  // The payload base as the endpoint sees it: a binding carries the address
  // its receiver maps the region at.
  return wire::binding_for(layout_, reinterpret_cast<uint64_t>(endpoint_payload()),
                           reinterpret_cast<uint64_t>(memory_->counter()), params_.session,
                           params_.transaction);
}

bool QueueRegion::l2_store(uint8_t* dst, const void* src, uint64_t n) {
  if (n == 0) return true;
  const uint8_t* base = endpoint_payload();
  const uint64_t lo = layout_.output_arena;
  const uint64_t hi = lo + layout_.output_arena_bytes;
  if (dst == nullptr || dst < base + lo || dst > base + hi ||
      n > static_cast<uint64_t>(base + hi - dst)) {
    ADD_FAILURE() << "S2.FIT.1: the reservation's writable span (" << static_cast<void*>(dst)
                  << ", " << n << " bytes) is not inside the output arena";
    return false;
  }
  std::memcpy(dst, src, n);
  const uint64_t off = static_cast<uint64_t>(dst - base);
  // Coherent, the store is in shared memory at once (a known writer's);
  // non-coherent, it is in L2's copy, and DRAM changes only by a write-back.
  if (!coherence_) memory_->sync_shadow(RegionMemory::kPayload, off, n);
  Access a;
  a.kind = AccessKind::kL2CodeStore;
  a.offset = off;
  a.nbytes = n;
  a.time_ns = VirtualClock::peek();
  log_.add(a);
  // L2 code's own cache maintenance, not a view call: nothing is logged and
  // no injected fault can hit it, so the endpoint's calls are judged alone.
  if (coherence_ && l2_code_flushes_) coherence_->flush(Side::kL2, off, n);
  return true;
}

void QueueRegion::check_invariants(Side side, const char* who,
                                   const std::vector<std::string>& peer_violations,
                                   std::set<std::string>* violated) {
  const char* me = side_name(side);
  // A budget the endpoint ran out of, or a log it overflowed: outside every
  // judging block, so they FAIL what the test judges, with the reason.
  if (!view_state_.exhausted.empty()) {
    ADD_FAILURE() << who << ": " << view_state_.exhausted;
  }
  if (log_.dropped() != 0) {
    ADD_FAILURE() << who << ": the endpoint made more view calls than the access log keeps ("
                  << log_.capacity() << " entries; " << log_.dropped()
                  << " more not kept): it does not stop calling its view";
  }
  for (const std::string& v : view_state_.violations) {
    ADD_FAILURE() << who << ": W.VIEW.1/S0.REGION.1: contract misuse through the view: " << v;
    violated->insert("W.VIEW.1");
    violated->insert("S0.REGION.1");
  }
  std::string why;
  if (!memory_->guards_intact(&why)) {
    ADD_FAILURE() << who << ": S0.REGION.1: a store landed outside the region: " << why;
    violated->insert("S0.REGION.1");
  }
  if (memory_->shadow_enabled()) {
    for (const RegionMemory::Change& c : memory_->take_unaccounted_changes()) {
      Access a;
      a.kind = AccessKind::kUnaccountedStore;
      a.part = c.part;
      a.offset = c.offset;
      a.nbytes = c.nbytes;
      log_.add(a);
    }
  }
  const wire::Layout& l = layout_;
  const uint64_t own[3] = {side == Side::kL2 ? wire::kInputHead : wire::kInputTail,
                           side == Side::kL2 ? wire::kOutputTail : wire::kOutputHead,
                           side == Side::kL2 ? wire::kPeerFlag : wire::kInitiatorFlag};
  // The peer's direction: L2 must not write the input ring/arena, L3 the output.
  const uint64_t other_ring = side == Side::kL2 ? l.input_ring : l.output_ring;
  const uint64_t other_arena = side == Side::kL2 ? l.input_arena : l.output_arena;
  const uint64_t other_arena_bytes =
      side == Side::kL2 ? l.input_arena_bytes : l.output_arena_bytes;
  for (size_t i = 0; i < log_.size(); ++i) {
    const Access& a = log_[i];
    if (a.kind == AccessKind::kUnaccountedStore) {
      ADD_FAILURE() << who << ": W.VIEW.1: shared memory changed without a view write "
                    << "(nothing flushed it): " << a.describe();
      violated->insert("W.VIEW.1");
    } else if (a.kind == AccessKind::kNotify && a.ok) {
      if (a.offset != own[0] && a.offset != own[1] && a.offset != own[2]) {
        ADD_FAILURE() << who << ": W.FLAG.3/S3.SIG.1: " << me << " wrote counter offset "
                      << a.offset << ", whose writer is the peer: " << a.describe();
        violated->insert("W.FLAG.3");
        violated->insert("S3.SIG.1");
      } else if (a.op != 0) {
        ADD_FAILURE() << who << ": W.CTR.1: " << me << " updated counter offset " << a.offset
                      << " with op " << a.op << ", not a plain Set";
        violated->insert("W.CTR.1");
      }
    } else if (a.kind == AccessKind::kWrite && a.ok) {
      if (overlaps(a.offset, a.nbytes, other_ring, l.ring_bytes) ||
          overlaps(a.offset, a.nbytes, other_arena, other_arena_bytes)) {
        ADD_FAILURE() << who << ": S2.ARENA.1/S2.ARENA.2: " << me
                      << " wrote memory of the direction it consumes: " << a.describe();
        violated->insert(side == Side::kL2 ? "S2.ARENA.1" : "S2.ARENA.2");
      }
    }
  }
  for (const std::string& v : peer_violations) {
    ADD_FAILURE() << who << ": the scripted peer saw: " << v;
    violated->insert(v.substr(0, v.find(':')));  // each starts with its clause ID
  }
}

std::string QueueRegion::describe() const {
  const DecodedRegion r = decode_region(memory_->payload(), memory_->payload_bytes(),
                                        memory_->counter(), memory_->counter_bytes(),
                                        params_.depth, params_.input_arena, params_.output_arena);
  std::string s = region_to_text(r);
  if (coherence_) {
    const NonCoherentPayload& m = *coherence_;
    const Side side = view_state_.side;
    char head[200];
    std::string policy = cache_policy_name(m.policy());
    if (m.policy() == CachePolicy::kRandom) policy += ":" + std::to_string(coherence_seed_);
    std::snprintf(head, sizeof(head),
                  "non-coherent payload (%s): the region above is DRAM; the %s endpoint's view "
                  "works on its own copy\n",
                  policy.c_str(), side_name(side));
    s += head;
    append_lines(&s, "  stale lines of the endpoint's copy (line@offset):",
                 m.stale_lines(side, 0, m.bytes()));
    append_lines(&s, "  dirty lines (stored, never written back):",
                 m.dirty_lines(side, 0, m.bytes()));
    const std::deque<NonCoherentPayload::Movement>& moves = m.movements();
    const size_t from = moves.size() > 20 ? moves.size() - 20 : 0;
    std::snprintf(head, sizeof(head), "  line movements (last %zu of %" PRIu64 "):\n",
                  moves.size() - from, m.movements_total());
    s += head;
    for (size_t i = from; i < moves.size(); ++i) s += "    " + describe_movement(moves[i]) + "\n";
  }
  const size_t n = log_.size();
  const size_t from = n > 40 ? n - 40 : 0;
  char head[96];
  std::snprintf(head, sizeof(head), "view log (last %zu of %zu):\n", n - from, n);
  s += head;
  s += log_.dump(from);
  if (s.size() > kDescribeBytes) {
    s.resize(kDescribeBytes);
    s += "\n... (cut at " + std::to_string(kDescribeBytes) + " bytes)\n";
  }
  return s;
}

void QueueRegion::dump_to(const std::string& dir, const std::string& name) const {
  // One process writes at most kDumpBudget bytes of dumps: a defect that
  // fails every test must not fill the disk (giant lazy regions are never
  // dumped; the text of describe() still shows where they stand).
  static uint64_t dumped = 0;
  const uint64_t bytes = memory_->payload_bytes() + memory_->counter_bytes();
  if (memory_->payload_bytes() > kDumpRegionBytes || dumped + bytes > kDumpBudget) {
    std::printf("(no region dump for %s: %" PRIu64 " bytes, %" PRIu64
                " of this process's %" PRIu64 "-byte budget used)\n",
                name.c_str(), bytes, dumped, kDumpBudget);
    return;
  }
  dumped += bytes;
  const std::string base = dir + "/" + name;
  std::ofstream(base + ".region", std::ios::binary) << memory_->dump();
  std::ofstream(base + ".region.args")
      << "--depth " << params_.depth << " --input-arena " << params_.input_arena
      << " --output-arena " << params_.output_arena << "\n";
}

void record_invariants_of(Side side, const std::set<std::string>& violated) {
  if (side == Side::kL2) {
    SPSQ_INVARIANTS("W.VIEW.1", "S0.REGION.1", "S2.ARENA.1", "W.FLAG.3", "W.CTR.1", "S3.SIG.1");
  } else {
    SPSQ_INVARIANTS("W.VIEW.1", "S0.REGION.1", "S2.ARENA.2", "W.FLAG.3", "W.CTR.1", "S3.SIG.1");
  }
  std::string broken;
  for (const std::string& id : violated) broken += (broken.empty() ? "" : ",") + id;
  if (!broken.empty()) ::testing::Test::RecordProperty("invariant_violations", broken);
}

}  // namespace spsq_conf
