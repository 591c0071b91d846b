// One queue instance as the harness builds it for an endpoint under test: the
// layout, guarded memory, the binding L3 would hand over, and the state behind
// the recording / fault-injecting view the endpoint gets. Shared by the L2
// suite (peer: ScriptedL3) and the L3 suite (peer: ScriptedL2).
#ifndef SPSQ_CONFORMANCE_HARNESS_QUEUE_REGION_H_
#define SPSQ_CONFORMANCE_HARNESS_QUEUE_REGION_H_

#include <array>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "conformance/harness/access_log.h"
#include "conformance/harness/fault_plan.h"
#include "conformance/harness/harness_view.h"
#include "conformance/harness/region_memory.h"
#include "conformance/model/wire_model.h"

namespace spsq_conf {

struct QueueParams {
  uint64_t depth = 4;
  uint64_t input_arena = 256;
  uint64_t output_arena = 256;
  uint64_t session = 0x5E551D0000000042ull;
  uint64_t transaction = 0x7A11000000000009ull;
  bool shadow = true;  // track stores that bypass the view (small regions only)
};

// Which side the endpoint under test plays: decides which signals it may
// write and which ring/arena is its own.
enum class Side { kL2, kL3 };

class QueueRegion {
 public:
  explicit QueueRegion(QueueParams p);

  const QueueParams& params() const { return params_; }
  const wire::Layout& layout() const { return layout_; }
  RegionMemory& memory() { return *memory_; }
  AccessLog& log() { return log_; }
  FaultPlan& faults() { return faults_; }
  ViewState& view_state() { return view_state_; }
  HarnessView view() { return HarnessView(&view_state_); }

  wire::BindingFields fields() const;
  std::array<uint64_t, wire::kScalarCount> scalars() const {
    return wire::binding_scalars(fields());
  }

  // As L2 code: store into a lent output span (recorded, not a view call).
  // False (with a gtest failure) when the span is not inside the output arena.
  bool l2_store(uint8_t* dst, const void* src, uint64_t n);

  // The invariants any endpoint of `side` keeps whatever a test did: no
  // access outside the spans, no store that bypassed the view, writes only to
  // its own signals, ring and arena. Adds gtest failures; broken clause IDs go
  // to *violated. `peer_violations` are what the scripted peer saw.
  void check_invariants(Side side, const char* who,
                        const std::vector<std::string>& peer_violations,
                        std::set<std::string>* violated);

  // `spsq inspect`-style text of the region plus the tail of the log.
  std::string describe() const;
  // Writes <dir>/<name>.region and .region.args when the region is small.
  void dump_to(const std::string& dir, const std::string& name) const;

 private:
  QueueParams params_;
  wire::Layout layout_;
  std::unique_ptr<RegionMemory> memory_;
  AccessLog log_;
  FaultPlan faults_;
  ViewState view_state_;
};

// Records the invariant clause IDs and any broken ones for the running test.
void record_invariants_of(Side side, const std::set<std::string>& violated);

}  // namespace spsq_conf

#endif  // SPSQ_CONFORMANCE_HARNESS_QUEUE_REGION_H_
