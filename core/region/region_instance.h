// A RegionInstance: one allocation of PAYLOAD and COUNTER memory for one chip
// worker, identified by (worker, session bits, transaction id). Whoever may
// still touch the memory holds a shared_ptr to it: the L3 handle until free(),
// every L2 task submitted while it was alive until that task returned. The
// last reference unmaps it, so physical cleanup follows the L2 drain.
#ifndef SPSQ_REGION_REGION_INSTANCE_H_
#define SPSQ_REGION_REGION_INSTANCE_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>

#include "aicpu/region_view_types.h"
#include "region/shared_mapping.h"

namespace spsq_runtime {

// Counter memory starts on a 64-byte boundary so each 64-byte-strided signal
// owns its own cache line.
inline constexpr uint64_t kRegionCounterAlign = 64;

// How an exec'd process reaches a RegionInstance: the memfd backing it and
// where each part lies in that file (offsets from the start of the memfd).
struct RegionInstanceShare {
  int fd = -1;  // owned by the instance; close-on-exec
  uint64_t payload_offset = 0;
  uint64_t payload_bytes = 0;
  uint64_t counter_offset = 0;
  uint64_t counter_bytes = 0;
};

struct RegionInstanceId {
  uint32_t worker_id = 0;
  uint64_t session_instance_id_bits = 0;
  uint64_t transaction_id = 0;
};

// Books materialized and reclaimed instances so tests (and leak checks) can
// see exactly when physical memory goes away. Thread safe: the last reference
// may drop on a chip worker thread.
class RegionLedger {
 public:
  uint64_t live() const;
  uint64_t materialized() const;
  uint64_t reclaimed() const;
  bool is_live(uint32_t worker_id, uint64_t transaction_id) const;

 private:
  friend class RegionInstance;
  void on_materialized(const RegionInstanceId& id);
  void on_reclaimed(const RegionInstanceId& id);

  mutable std::mutex mu_;
  std::set<std::pair<uint32_t, uint64_t>> live_;
  uint64_t materialized_ = 0;
  uint64_t reclaimed_ = 0;
};

class RegionInstance {
 public:
  // Maps payload_bytes (> 0) followed, at the next 64-byte boundary, by
  // counter_bytes (> 0) of zeroed shared memory. Returns nullptr and says why
  // in *error on failure; nothing is booked then.
  static std::shared_ptr<RegionInstance> materialize(const RegionInstanceId& id,
                                                     uint64_t payload_bytes,
                                                     uint64_t counter_bytes,
                                                     std::shared_ptr<RegionLedger> ledger,
                                                     std::string* error);

  // An instance over memory its caller owns and keeps mapped for the
  // instance's whole life: nothing is mapped, booked or unmapped here (a test
  // harness's memory, say, that a queue with a projected region runs on). It
  // has no memfd to share().
  static std::shared_ptr<RegionInstance> adopt(const RegionInstanceId& id,
                                               RegionPartLocalSpan payload,
                                               RegionPartLocalSpan counter);

  RegionInstance(const RegionInstance&) = delete;
  RegionInstance& operator=(const RegionInstance&) = delete;
  ~RegionInstance();  // reclaims the physical memory

  const RegionInstanceId& id() const { return id_; }
  // Local spans of the two parts (addresses valid in this process and in any
  // child forked after materialize(); an exec'd child maps share() itself).
  // The payload is L3's: the shared mapping, or L3's cached copy once
  // use_payload_caches() attached one.
  RegionPartLocalSpan payload() const { return payload_; }
  // The payload part of the shared mapping itself (the DRAM behind the
  // caches); equal to payload() when the instance is not cached.
  RegionPartLocalSpan shared_payload() const { return shared_payload_; }
  bool payload_cached() const { return payload_.base != shared_payload_.base; }

  // Puts L3 on its cached copy of the payload when the process installed
  // PayloadCaches (region/payload_caches.h); a no-op otherwise. Call before
  // anything reads payload(): a queue's coordinator does, right after
  // materialize().
  void use_payload_caches();
  // The base L2 code in this process uses for the payload: its cached copy
  // (attached on first use) or the shared mapping.
  uint64_t l2_payload_base() const;
  RegionPartLocalSpan counter() const { return counter_; }

  // The memfd and part offsets, for handing the instance to an exec'd child.
  RegionInstanceShare share() const;

 private:
  RegionInstance() = default;

  RegionInstanceId id_;
  SharedMapping mapping_;
  RegionPartLocalSpan payload_;
  RegionPartLocalSpan shared_payload_;
  RegionPartLocalSpan counter_;
  std::shared_ptr<RegionLedger> ledger_;
};

}  // namespace spsq_runtime

#endif  // SPSQ_REGION_REGION_INSTANCE_H_
