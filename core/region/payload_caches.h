// PayloadCaches: how each side sees a queue's PAYLOAD part.
//
// On the host both sides' loads and stores hit the one shared mapping, so the
// simulation is coherent and a forgotten flush or invalidate goes unseen. On
// the device the AICPU (L2) and the host (L3) keep private, non-coherent
// cached copies. A simulation of that installs PayloadCaches before any queue
// exists: each side then works on a copy at its own local address and only
// RegionInstanceView's cache hooks move bytes between that copy and the
// shared mapping (the DRAM). The L3 view and the binding carry L3's address;
// the chip worker rebases an L2 task's scalars onto L2's copy before any L2
// code decodes them, as the exec ABI rebases onto a child's own mapping.
//
// Only queue instances (materialize_bind_project) are cached; primitive
// regions stay on the shared mapping. With nothing installed every call here
// returns the shared mapping and the runtime behaves as before.
#ifndef SPSQ_REGION_PAYLOAD_CACHES_H_
#define SPSQ_REGION_PAYLOAD_CACHES_H_

#include <cstdint>

namespace spsq_runtime {

enum class PayloadSide : int { kL2 = 0, kL3 = 1 };

struct PayloadCaches {
  // The local base of `side`'s copy of the part [dram, dram + bytes), or 0
  // to keep that side on the shared mapping. Called in the process that runs
  // the side's code, before that code touches the part: for L3 when the
  // queue is materialized, for L2 before each task (again per task: the same
  // copy comes back while the part lives). Thread safe.
  uint64_t (*attach)(PayloadSide side, uint64_t dram, uint64_t bytes) = nullptr;
  // The part at `dram` is about to be unmapped: forget its copies.
  void (*detach)(uint64_t dram) = nullptr;
};

// Installs the caches for the whole process (and its forked children). Call
// before the first queue is created; an empty struct uninstalls.
void set_payload_caches(const PayloadCaches& caches);
const PayloadCaches& payload_caches();

}  // namespace spsq_runtime

#endif  // SPSQ_REGION_PAYLOAD_CACHES_H_
