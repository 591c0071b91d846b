// Runtime caches: the runtime simulation (core/runtime) over the non-coherent
// model, so the runtime's own tests, the interop tests and the shipped
// example see what a device without a coherent cache would show them.
//
// install_runtime_caches() makes the model the process's PayloadCaches
// (region/payload_caches.h) and RegionInstanceView's default cache hooks.
// From then on every queue the runtime materializes gets one
// NonCoherentPayload over its shared mapping (the DRAM): L3's view and the
// binding use the model's L3 copy, the chip worker rebases each L2 task's
// scalars onto the L2 copy, and the views' hooks are the only way bytes move:
// a payload read (invalidate) refetches, a payload write (flush) writes back,
// each after a sync point where the policy may move lines on its own.
// Counters stay on the shared mapping, coherent.
//
// Both sides run at once here (a chip worker thread, or a forked child), so:
//   - one mutex guards every model; a fork keeps the models (the child's
//     copies are its own from then on; DRAM stays shared);
//   - write-backs are byte-masked (NonCoherentPayload::WriteBack::
//     kStoredBytes): at depth 1 both descriptor rings share line 0;
//   - a queue whose payload is over kRuntimeCacheLimit stays on the shared
//     mapping (said once on stderr; runtime_caches_from_env then fails the
//     run at exit, since it did not run as it claims).
// Exec'd L2 binaries map the DRAM themselves and stay coherent; the L3 side
// of their queues is still cached.
#ifndef SPSQ_CONFORMANCE_COHERENCE_RUNTIME_CACHES_H_
#define SPSQ_CONFORMANCE_COHERENCE_RUNTIME_CACHES_H_

#include <cstdint>

#include "testkit/coherence/coherent_memory.h"

namespace spsq_conf {

// Each cached payload costs four more copies of it; the random policy scans
// a side's copy at every hook call.
inline constexpr uint64_t kRuntimeCacheLimit = uint64_t{64} << 20;

// Installs the caches under `policy` for the whole process; kNone installs
// nothing. Call before the first queue is created, once.
void install_runtime_caches(CachePolicy policy, uint64_t seed);
// The same from SPSQ_COHERENCE (cache_policy_from_environment); returns the
// policy. Says on stderr which policy the runtime runs under.
CachePolicy install_runtime_caches_from_env();

// What the caches did in this process, for tests.
struct RuntimeCacheStats {
  uint64_t payloads = 0;     // queue payloads given a model
  uint64_t live = 0;         // of which not yet detached
  uint64_t too_large = 0;    // left on the shared mapping
  uint64_t flushes = 0;      // hook calls on a cached copy
  uint64_t invalidates = 0;
  uint64_t uncached = 0;     // hook calls elsewhere (primitive regions...)
};
RuntimeCacheStats runtime_cache_stats();

}  // namespace spsq_conf

#endif  // SPSQ_CONFORMANCE_COHERENCE_RUNTIME_CACHES_H_
