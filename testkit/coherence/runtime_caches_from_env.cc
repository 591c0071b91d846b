// Linked into a test binary, puts the runtime simulation on the non-coherent
// model when SPSQ_COHERENCE names a policy (runtime_caches.h), before main
// and so before any queue exists. At exit it says what the caches did, and
// fails the run if a queue was left coherent for its size: such a run would
// pass without having been judged as it claims. (Forked L2 children leave
// through _exit and say nothing.)
#include <cinttypes>
#include <cstdio>
#include <cstdlib>

#include "testkit/coherence/runtime_caches.h"

namespace {

void report_at_exit() {
  const spsq_conf::RuntimeCacheStats s = spsq_conf::runtime_cache_stats();
  std::fprintf(stderr,
               "runtime caches: %" PRIu64 " queue payloads non-coherent, %" PRIu64
               " flushes, %" PRIu64 " invalidates\n",
               s.payloads, s.flushes, s.invalidates);
  if (s.too_large != 0) {
    std::fprintf(stderr,
                 "runtime caches: %" PRIu64 " queue payloads over %" PRIu64
                 " bytes stayed coherent under %s: the run is not what it claims\n",
                 s.too_large, spsq_conf::kRuntimeCacheLimit, spsq_conf::kCachePolicyVar);
    std::fflush(stderr);
    std::_Exit(3);
  }
}

const bool kInstalled = [] {
  if (spsq_conf::install_runtime_caches_from_env() != spsq_conf::CachePolicy::kNone) {
    std::atexit(&report_at_exit);
  }
  return true;
}();

}  // namespace
