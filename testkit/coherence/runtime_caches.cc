#include "testkit/coherence/runtime_caches.h"

#include <pthread.h>

#include <cinttypes>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "aicpu/region_instance_view.h"
#include "region/payload_caches.h"

namespace spsq_conf {
namespace {

struct Cached {
  uint64_t dram = 0;
  uint64_t bytes = 0;
  std::unique_ptr<NonCoherentPayload> model;
};

// Never destroyed: hooks may run from threads and forked children until the
// process ends.
struct Registry {
  std::mutex mu;
  CachePolicy policy = CachePolicy::kNone;
  uint64_t seed = 0;
  std::vector<Cached> cached;
  RuntimeCacheStats stats;
};

Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

Side side_of(spsq_runtime::PayloadSide side) {
  return side == spsq_runtime::PayloadSide::kL2 ? Side::kL2 : Side::kL3;
}

// The model and side whose copy holds [addr, addr + n), or nullptr.
NonCoherentPayload* find_copy(Registry& r, const void* addr, uint64_t n, Side* side,
                              uint64_t* offset) {
  const uint64_t a = reinterpret_cast<uintptr_t>(addr);
  for (Cached& c : r.cached) {
    for (Side s : {Side::kL2, Side::kL3}) {
      const uint64_t base = reinterpret_cast<uintptr_t>(c.model->side_base(s));
      if (a >= base && a - base <= c.bytes && n <= c.bytes - (a - base)) {
        *side = s;
        *offset = a - base;
        return c.model.get();
      }
    }
  }
  return nullptr;
}

uint64_t attach(spsq_runtime::PayloadSide which, uint64_t dram, uint64_t bytes) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (Cached& c : r.cached) {
    if (c.dram == dram) return reinterpret_cast<uintptr_t>(c.model->side_base(side_of(which)));
  }
  if (bytes > kRuntimeCacheLimit) {
    if (r.stats.too_large++ == 0) {
      std::fprintf(stderr, "runtime caches: queue payloads over %" PRIu64 " bytes stay coherent\n",
                   kRuntimeCacheLimit);
    }
    return 0;
  }
  Cached c;
  c.dram = dram;
  c.bytes = bytes;
  c.model.reset(new NonCoherentPayload(reinterpret_cast<uint8_t*>(dram), bytes, r.policy,
                                       r.seed + r.stats.payloads));
  c.model->set_write_back(NonCoherentPayload::WriteBack::kStoredBytes);
  c.model->set_log_limit(0);
  const uint64_t local = reinterpret_cast<uintptr_t>(c.model->side_base(side_of(which)));
  r.cached.push_back(std::move(c));
  ++r.stats.payloads;
  ++r.stats.live;
  return local;
}

void detach(uint64_t dram) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (size_t i = 0; i < r.cached.size(); ++i) {
    if (r.cached[i].dram != dram) continue;
    r.cached.erase(r.cached.begin() + static_cast<std::ptrdiff_t>(i));
    --r.stats.live;
    return;
  }
}

// One hook call on [addr, addr + nbytes): under the mutex, on the copy that
// holds it; a range in no cached copy (a primitive region) is only counted.
template <class Move>
void on_copy(const void* addr, uint64_t nbytes, uint64_t RuntimeCacheStats::*count, Move move) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  Side side;
  uint64_t offset;
  NonCoherentPayload* m = find_copy(r, addr, nbytes, &side, &offset);
  if (m == nullptr) {
    ++r.stats.uncached;
    return;
  }
  ++(r.stats.*count);
  move(*m, side, offset);
}

void invalidate_hook(const void* addr, uint64_t nbytes) {
  on_copy(addr, nbytes, &RuntimeCacheStats::invalidates,
          [nbytes](NonCoherentPayload& m, Side side, uint64_t offset) {
            m.cache_may_act(side);
            m.invalidate(side, offset, nbytes);
          });
}

void flush_hook(const void* addr, uint64_t nbytes) {
  on_copy(addr, nbytes, &RuntimeCacheStats::flushes,
          [nbytes](NonCoherentPayload& m, Side side, uint64_t offset) {
            m.flush(side, offset, nbytes);
            m.cache_may_act(side);
          });
}

// A fork while another thread holds the mutex would leave the child's copy
// locked forever.
void lock_before_fork() { registry().mu.lock(); }
void unlock_after_fork() { registry().mu.unlock(); }

}  // namespace

void install_runtime_caches(CachePolicy policy, uint64_t seed) {
  if (policy == CachePolicy::kNone) return;
  Registry& r = registry();
  {
    std::lock_guard<std::mutex> lock(r.mu);
    r.policy = policy;
    r.seed = seed;
  }
  static std::once_flag atfork;
  std::call_once(atfork,
                 [] { pthread_atfork(&lock_before_fork, &unlock_after_fork, &unlock_after_fork); });
  spsq_runtime::PayloadCaches caches;
  caches.attach = &attach;
  caches.detach = &detach;
  spsq_runtime::set_payload_caches(caches);
  RegionCacheHooks hooks;
  hooks.invalidate = &invalidate_hook;
  hooks.flush = &flush_hook;
  set_region_default_cache_hooks(hooks);
}

CachePolicy install_runtime_caches_from_env() {
  CachePolicy policy;
  uint64_t seed;
  cache_policy_from_environment("runtime caches", &policy, &seed);
  if (policy != CachePolicy::kNone) {
    std::fprintf(stderr, "runtime caches: queue payloads are non-coherent (%s=%s%s)\n",
                 kCachePolicyVar, cache_policy_name(policy),
                 policy == CachePolicy::kRandom ? (":" + std::to_string(seed)).c_str() : "");
  }
  install_runtime_caches(policy, seed);
  return policy;
}

RuntimeCacheStats runtime_cache_stats() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.stats;
}

}  // namespace spsq_conf
