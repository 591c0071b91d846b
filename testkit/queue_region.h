// One queue instance as the harness builds it for an endpoint under test: the
// layout, guarded memory, the binding L3 would hand over, and the state behind
// the recording / fault-injecting view the endpoint gets. Shared by the L2
// suite (peer: ScriptedL3) and the L3 suite (peer: ScriptedL2).
//
// The payload may be non-coherent (testkit/coherence): memory() is then
// DRAM, which the scripted peer, the decoder, dumps and the shadow check use,
// and the endpoint's view works on its side's private copy. The policy comes
// from QueueParams or, when they say none, from SPSQ_COHERENCE.
#ifndef SPSQ_CONFORMANCE_HARNESS_QUEUE_REGION_H_
#define SPSQ_CONFORMANCE_HARNESS_QUEUE_REGION_H_

#include <array>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "testkit/coherence/coherent_memory.h"
#include "testkit/access_log.h"
#include "testkit/fault_plan.h"
#include "testkit/harness_view.h"
#include "testkit/region_memory.h"
#include "testkit/side.h"
#include "model/wire_model.h"

namespace spsq_conf {

struct QueueParams {
  uint64_t depth = 4;
  uint64_t input_arena = 256;
  uint64_t output_arena = 256;
  uint64_t session = 0x5E551D0000000042ull;
  uint64_t transaction = 0x7A11000000000009ull;
  bool shadow = true;  // track stores that bypass the view (small regions only)
  // The payload's cache model. kNone lets SPSQ_COHERENCE choose (when
  // coherence_from_env), so a whole suite runs under a policy unchanged.
  CachePolicy coherence = CachePolicy::kNone;
  uint64_t coherence_seed = 0;  // kRandom only
  // False keeps the region coherent whatever the environment says: for the
  // counter-wrap runs (2^33 calls, each a sync point scanning the copy under
  // kRandom; their messages carry no payload).
  bool coherence_from_env = true;
  // The memory is MAP_SHARED, so a process forked after construction (a peer
  // or an endpoint in a child) works on the same bytes.
  bool shared_for_fork = false;
};

class QueueRegion {
 public:
  // Regions this large stay coherent: the model keeps four more copies of
  // the payload and scans them (the depth-2^30 layout maps 64 GiB lazily).
  static constexpr uint64_t kCoherenceLimit = uint64_t{1} << 20;

  // The endpoint's side unknown: the region stays coherent unless `p` asks
  // otherwise (which needs the side: a harness bug). The L3 suite builds its
  // regions this way, and its interop test runs a reference L2 on a second
  // thread through the binding's raw addresses, which a private L3 copy (and
  // the single-threaded model) would break.
  explicit QueueRegion(QueueParams p);
  // The endpoint plays `endpoint` (side.h): when the region is non-coherent,
  // its view is that side's copy. The L2 suite's Queue passes Side::kL2.
  // (Which signals, ring and arena are its own is check_invariants' side.)
  QueueRegion(QueueParams p, Side endpoint);

  const QueueParams& params() const { return params_; }
  const wire::Layout& layout() const { return layout_; }
  RegionMemory& memory() { return *memory_; }
  AccessLog& log() { return log_; }
  FaultPlan& faults() { return faults_; }
  ViewState& view_state() { return view_state_; }
  HarnessView view() { return HarnessView(&view_state_); }

  // The model, or null when the payload is coherent.
  NonCoherentPayload* coherence() { return coherence_.get(); }
  const NonCoherentPayload* coherence() const { return coherence_.get(); }
  CachePolicy coherence_policy() const {
    return coherence_ ? coherence_->policy() : CachePolicy::kNone;
  }
  // The payload base the endpoint's view hands out (span().base, local_addr
  // of reads): its side's copy when non-coherent, memory().payload() else.
  uint8_t* endpoint_payload() const { return view_state_.payload_base(); }

  // Whether the suite's L2 code flushes the output it stores (l2_store), as
  // L2 code must under OPEN.FLUSH reading B and may under A: yes unless
  // SPSQ_OPEN_FLUSH=A declares that the endpoint's publish flushes, which the
  // suite then checks (a publish that does not leaves the peer stale bytes).
  // Only a non-coherent region cares.
  bool l2_code_flushes() const { return l2_code_flushes_; }

  wire::BindingFields fields() const;
  std::array<uint64_t, wire::kScalarCount> scalars() const {
    return wire::binding_scalars(fields());
  }

  // As L2 code: store into a lent output span (recorded, not a view call).
  // False (with a gtest failure) when the span is not inside the output arena
  // as the endpoint sees it (endpoint_payload()). Non-coherent, the bytes
  // land in L2's copy only; they reach DRAM when something flushes them: the
  // endpoint's publish (OPEN.FLUSH A), or this call itself when
  // l2_code_flushes(), as L2 code's own flush (the model's, no view call).
  bool l2_store(uint8_t* dst, const void* src, uint64_t n);

  // The invariants any endpoint of `side` keeps whatever a test did: no
  // access outside the spans, no store that bypassed the view, writes only to
  // its own signals, ring and arena. Adds gtest failures; broken clause IDs go
  // to *violated. `peer_violations` are what the scripted peer saw.
  void check_invariants(Side side, const char* who,
                        const std::vector<std::string>& peer_violations,
                        std::set<std::string>* violated);

  // `spsq inspect`-style text of the region (DRAM: what the peer sees) plus
  // the tail of the log; when non-coherent, the policy, the stale and dirty
  // lines of the endpoint's side and the latest line movements.
  std::string describe() const;
  // Writes <dir>/<name>.region and .region.args when the region is small.
  void dump_to(const std::string& dir, const std::string& name) const;

 private:
  void build(bool side_known, Side endpoint);

  QueueParams params_;
  wire::Layout layout_;
  std::unique_ptr<RegionMemory> memory_;
  std::unique_ptr<NonCoherentPayload> coherence_;
  uint64_t coherence_seed_ = 0;
  bool l2_code_flushes_ = false;
  AccessLog log_;
  FaultPlan faults_;
  ViewState view_state_;
};

// Records the invariant clause IDs and any broken ones for the running test.
void record_invariants_of(Side side, const std::set<std::string>& violated);

}  // namespace spsq_conf

#endif  // SPSQ_CONFORMANCE_HARNESS_QUEUE_REGION_H_
