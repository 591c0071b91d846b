#include "region/region_instance.h"

#include <cinttypes>
#include <cstdio>

#include "region/payload_caches.h"

namespace spsq_runtime {

uint64_t RegionLedger::live() const {
  std::lock_guard<std::mutex> lock(mu_);
  return live_.size();
}

uint64_t RegionLedger::materialized() const {
  std::lock_guard<std::mutex> lock(mu_);
  return materialized_;
}

uint64_t RegionLedger::reclaimed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return reclaimed_;
}

bool RegionLedger::is_live(uint32_t worker_id, uint64_t transaction_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return live_.count({worker_id, transaction_id}) != 0;
}

void RegionLedger::on_materialized(const RegionInstanceId& id) {
  std::lock_guard<std::mutex> lock(mu_);
  live_.insert({id.worker_id, id.transaction_id});
  ++materialized_;
}

void RegionLedger::on_reclaimed(const RegionInstanceId& id) {
  std::lock_guard<std::mutex> lock(mu_);
  live_.erase({id.worker_id, id.transaction_id});
  ++reclaimed_;
}

std::shared_ptr<RegionInstance> RegionInstance::materialize(
    const RegionInstanceId& id, uint64_t payload_bytes, uint64_t counter_bytes,
    std::shared_ptr<RegionLedger> ledger, std::string* error) {
  char buf[200];
  if (payload_bytes == 0 || counter_bytes == 0) {
    std::snprintf(buf, sizeof(buf),
                  "RegionInstance needs nonzero parts (payload %" PRIu64 ", counter %" PRIu64 ")",
                  payload_bytes, counter_bytes);
    *error = buf;
    return nullptr;
  }
  uint64_t counter_offset, total;
  if (__builtin_add_overflow(payload_bytes, kRegionCounterAlign - 1, &counter_offset) ||
      __builtin_add_overflow(counter_offset & ~(kRegionCounterAlign - 1), counter_bytes,
                             &total)) {
    *error = "RegionInstance size overflows 64 bits";
    return nullptr;
  }
  counter_offset &= ~(kRegionCounterAlign - 1);
  SharedMapping mapping;
  if (!SharedMapping::create(total, &mapping, error)) return nullptr;

  std::shared_ptr<RegionInstance> instance(new RegionInstance());
  const uint64_t base = reinterpret_cast<uintptr_t>(mapping.data());
  instance->id_ = id;
  instance->payload_ = RegionPartLocalSpan{base, payload_bytes};
  instance->shared_payload_ = instance->payload_;
  instance->counter_ = RegionPartLocalSpan{base + counter_offset, counter_bytes};
  instance->mapping_ = std::move(mapping);
  instance->ledger_ = std::move(ledger);
  if (instance->ledger_) instance->ledger_->on_materialized(id);
  return instance;
}

std::shared_ptr<RegionInstance> RegionInstance::adopt(const RegionInstanceId& id,
                                                      RegionPartLocalSpan payload,
                                                      RegionPartLocalSpan counter) {
  std::shared_ptr<RegionInstance> instance(new RegionInstance());
  instance->id_ = id;
  instance->payload_ = payload;
  instance->shared_payload_ = payload;
  instance->counter_ = counter;
  return instance;
}

RegionInstanceShare RegionInstance::share() const {
  const uint64_t base = reinterpret_cast<uintptr_t>(mapping_.data());
  RegionInstanceShare s;
  s.fd = mapping_.fd();
  s.payload_offset = shared_payload_.base - base;
  s.payload_bytes = shared_payload_.logical_bytes;
  s.counter_offset = counter_.base - base;
  s.counter_bytes = counter_.logical_bytes;
  return s;
}

void RegionInstance::use_payload_caches() {
  const PayloadCaches& caches = payload_caches();
  if (caches.attach == nullptr || payload_cached()) return;
  const uint64_t local = caches.attach(PayloadSide::kL3, shared_payload_.base,
                                       shared_payload_.logical_bytes);
  if (local != 0) payload_.base = local;
}

uint64_t RegionInstance::l2_payload_base() const {
  const PayloadCaches& caches = payload_caches();
  if (!payload_cached() || caches.attach == nullptr) return shared_payload_.base;
  const uint64_t local =
      caches.attach(PayloadSide::kL2, shared_payload_.base, shared_payload_.logical_bytes);
  return local != 0 ? local : shared_payload_.base;
}

RegionInstance::~RegionInstance() {
  const PayloadCaches& caches = payload_caches();
  if (payload_cached() && caches.detach != nullptr) caches.detach(shared_payload_.base);
  mapping_.reset();
  if (ledger_) ledger_->on_reclaimed(id_);
}

}  // namespace spsq_runtime
