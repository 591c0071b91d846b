// WorkerChipOrchRegion: the L3 handle of one RegionInstance's PAYLOAD and
// COUNTER local views. Orchestrator::create_worker_chip_region() hands one out
// for primitive L3-L2 communication; a WorkerChipQueue projects one over its
// own instance as a compatibility escape hatch. free() is logical: it drops
// this handle's reference, and the memory goes once no submitted L2 task
// needs it either.
#ifndef SPSQ_REGION_WORKER_CHIP_REGION_H_
#define SPSQ_REGION_WORKER_CHIP_REGION_H_

#include <array>
#include <cstdint>
#include <memory>

#include "aicpu/region_view_types.h"
#include "region/region_instance.h"

namespace spsq_runtime {

// Scalar convention of a primitive region handed to L2 (this simulation's
// choice; the queue uses the ten-scalar binding instead).
inline constexpr size_t kWorkerChipRegionScalarCount = 4;

class WorkerChipOrchRegion {
 public:
  explicit WorkerChipOrchRegion(std::shared_ptr<RegionInstance> instance)
      : instance_(std::move(instance)) {
    if (instance_) id_ = instance_->id();
  }

  // Identity survives free() so diagnostics can still name the instance.
  const RegionInstanceId& id() const { return id_; }
  bool released() const { return instance_ == nullptr; }

  // Local spans; {0, 0} once released.
  RegionPartLocalSpan payload() const {
    return instance_ ? instance_->payload() : RegionPartLocalSpan{};
  }
  RegionPartLocalSpan counter() const {
    return instance_ ? instance_->counter() : RegionPartLocalSpan{};
  }

  // payload_base, payload_bytes, counter_base, counter_bytes (zeros once released).
  std::array<uint64_t, kWorkerChipRegionScalarCount> chip_task_arg_scalars() const {
    const RegionPartLocalSpan p = payload(), c = counter();
    return {p.base, p.logical_bytes, c.base, c.logical_bytes};
  }

  // The instance while not released (the orchestrator tracks it for pins).
  std::shared_ptr<RegionInstance> instance() const { return instance_; }

  // Logical release; idempotent.
  void free() { instance_.reset(); }

 private:
  std::shared_ptr<RegionInstance> instance_;
  RegionInstanceId id_;
};

}  // namespace spsq_runtime

#endif  // SPSQ_REGION_WORKER_CHIP_REGION_H_
