// RegionInstance memory (shared mapping, parts, reclaim) and the primitive
// region projector, WorkerChipOrchRegion.
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "region/payload_caches.h"
#include "region/region_instance.h"
#include "region/shared_mapping.h"
#include "region/worker_chip_region.h"

namespace spsq_runtime {
namespace {

bool page_mapped(const void* addr) {
  const long page = sysconf(_SC_PAGESIZE);
  unsigned char vec = 0;
  void* aligned = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(addr) &
                                          ~static_cast<uintptr_t>(page - 1));
  return mincore(aligned, static_cast<size_t>(page), &vec) == 0;
}

TEST(SharedMapping, RefusesZeroBytesWithAReason) {
  SharedMapping m;
  std::string why;
  EXPECT_FALSE(SharedMapping::create(0, &m, &why));
  EXPECT_FALSE(m.mapped());
  EXPECT_NE(why.find("0 bytes"), std::string::npos) << why;
}

TEST(SharedMapping, ZeroFilledAndUnmappedOnReset) {
  SharedMapping m;
  std::string why;
  ASSERT_TRUE(SharedMapping::create(10000, &m, &why)) << why;
  ASSERT_EQ(m.size(), 10000u);
  for (uint64_t i = 0; i < m.size(); i += 997) EXPECT_EQ(m.data()[i], 0) << i;
  uint8_t* p = m.data();
  EXPECT_TRUE(page_mapped(p));
  SharedMapping moved(std::move(m));
  EXPECT_FALSE(m.mapped());
  EXPECT_EQ(moved.data(), p);
  moved.reset();
  EXPECT_FALSE(page_mapped(p));
}

TEST(RegionInstance, PartsAreSizedAndCounterIs64ByteAligned) {
  auto ledger = std::make_shared<RegionLedger>();
  std::string why;
  auto inst = RegionInstance::materialize({2, 0xabcdull, 9}, 100, 384, ledger, &why);
  ASSERT_TRUE(inst) << why;
  EXPECT_EQ(inst->id().worker_id, 2u);
  EXPECT_EQ(inst->id().session_instance_id_bits, 0xabcdull);
  EXPECT_EQ(inst->id().transaction_id, 9u);
  EXPECT_EQ(inst->payload().logical_bytes, 100u);
  EXPECT_EQ(inst->counter().logical_bytes, 384u);
  EXPECT_EQ(inst->counter().base % 64, 0u);
  EXPECT_EQ(inst->payload().base % 64, 0u);
  // Counter follows the payload at the next 64-byte boundary: parts never overlap.
  EXPECT_EQ(inst->counter().base, inst->payload().base + 128);
  const auto* counters = reinterpret_cast<const uint8_t*>(inst->counter().base);
  for (int i = 0; i < 384; ++i) EXPECT_EQ(counters[i], 0) << i;
}

TEST(RegionInstance, RefusesEmptyParts) {
  auto ledger = std::make_shared<RegionLedger>();
  std::string why;
  EXPECT_FALSE(RegionInstance::materialize({0, 0, 1}, 0, 384, ledger, &why));
  EXPECT_NE(why.find("payload 0"), std::string::npos) << why;
  EXPECT_FALSE(RegionInstance::materialize({0, 0, 1}, 64, 0, ledger, &why));
  EXPECT_NE(why.find("counter 0"), std::string::npos) << why;
  EXPECT_FALSE(RegionInstance::materialize({0, 0, 1}, ~uint64_t{0} - 10, 384, ledger, &why));
  EXPECT_NE(why.find("overflow"), std::string::npos) << why;
  EXPECT_EQ(ledger->materialized(), 0u);
}

TEST(RegionInstance, LastReferenceReclaimsPhysicalMemory) {
  auto ledger = std::make_shared<RegionLedger>();
  std::string why;
  auto inst = RegionInstance::materialize({1, 5, 3}, 4096, 384, ledger, &why);
  ASSERT_TRUE(inst);
  const void* payload = reinterpret_cast<const void*>(inst->payload().base);
  EXPECT_EQ(ledger->live(), 1u);
  EXPECT_TRUE(ledger->is_live(1, 3));
  auto second = inst;
  inst.reset();
  EXPECT_TRUE(ledger->is_live(1, 3));
  EXPECT_TRUE(page_mapped(payload));
  second.reset();
  EXPECT_FALSE(ledger->is_live(1, 3));
  EXPECT_EQ(ledger->live(), 0u);
  EXPECT_EQ(ledger->materialized(), 1u);
  EXPECT_EQ(ledger->reclaimed(), 1u);
  EXPECT_FALSE(page_mapped(payload));
}

// A stand-in for a simulation's caches: each side's copy is a buffer of its
// own (no bytes move here; testkit/coherence tests the real model).
struct FakeCaches {
  static inline std::vector<uint8_t> l2, l3;
  static inline uint64_t attached_dram = 0, detached_dram = 0;
  static inline int attaches = 0;
  static uint64_t attach(PayloadSide side, uint64_t dram, uint64_t bytes) {
    ++attaches;
    attached_dram = dram;
    std::vector<uint8_t>& copy = side == PayloadSide::kL2 ? l2 : l3;
    if (copy.size() != bytes) copy.assign(bytes, 0);
    return reinterpret_cast<uintptr_t>(copy.data());
  }
  static void detach(uint64_t dram) { detached_dram = dram; }
};

TEST(RegionInstance, AnAdoptedInstanceProjectsTheCallersMemoryAndLeavesIt) {
  std::vector<uint8_t> memory(1024, 0x5A);
  const uint64_t base = reinterpret_cast<uintptr_t>(memory.data());
  auto instance = RegionInstance::adopt(RegionInstanceId{3, 0, 9},
                                        RegionPartLocalSpan{base, 576},
                                        RegionPartLocalSpan{base + 640, 384});
  ASSERT_NE(instance, nullptr);
  EXPECT_EQ(instance->id().transaction_id, 9u);
  EXPECT_EQ(instance->payload().base, base);
  EXPECT_EQ(instance->payload().logical_bytes, 576u);
  EXPECT_EQ(instance->shared_payload().base, base);
  EXPECT_FALSE(instance->payload_cached());
  EXPECT_EQ(instance->counter().base, base + 640);
  EXPECT_EQ(instance->counter().logical_bytes, 384u);
  WorkerChipOrchRegion region(instance);
  instance.reset();
  EXPECT_EQ(region.payload().base, base);
  region.free();
  EXPECT_TRUE(region.released());
  // The last reference went; the caller's memory is untouched and still its own.
  EXPECT_EQ(memory[0], 0x5A);
  EXPECT_EQ(memory[1023], 0x5A);
}

TEST(RegionInstance, PayloadCachesPutL3OnItsCopyAndTheShareOnTheMapping) {
  std::string why;
  auto plain = RegionInstance::materialize({0, 0, 1}, 200, 64, nullptr, &why);
  ASSERT_TRUE(plain) << why;
  plain->use_payload_caches();  // nothing installed: stays on the mapping
  EXPECT_FALSE(plain->payload_cached());
  EXPECT_EQ(plain->l2_payload_base(), plain->payload().base);

  PayloadCaches caches;
  caches.attach = &FakeCaches::attach;
  caches.detach = &FakeCaches::detach;
  set_payload_caches(caches);
  auto instance = RegionInstance::materialize({0, 0, 2}, 200, 64, nullptr, &why);
  ASSERT_TRUE(instance) << why;
  const RegionPartLocalSpan dram = instance->shared_payload();
  EXPECT_FALSE(instance->payload_cached()) << "only use_payload_caches() attaches";
  instance->use_payload_caches();
  instance->use_payload_caches();  // once
  EXPECT_EQ(FakeCaches::attaches, 1);
  EXPECT_TRUE(instance->payload_cached());
  EXPECT_EQ(FakeCaches::attached_dram, dram.base);
  EXPECT_EQ(instance->payload().base, reinterpret_cast<uintptr_t>(FakeCaches::l3.data()));
  EXPECT_EQ(instance->payload().logical_bytes, 200u);
  EXPECT_EQ(instance->shared_payload().base, dram.base);
  const uint64_t l2_base = instance->l2_payload_base();  // attaches L2's copy
  EXPECT_EQ(l2_base, reinterpret_cast<uintptr_t>(FakeCaches::l2.data()));
  // An exec'd child maps the DRAM: the share still names the mapping's part.
  const RegionInstanceShare share = instance->share();
  EXPECT_EQ(share.payload_bytes, 200u);
  EXPECT_EQ(share.counter_offset - share.payload_offset, instance->counter().base - dram.base);
  instance.reset();
  EXPECT_EQ(FakeCaches::detached_dram, dram.base);
  set_payload_caches(PayloadCaches{});
}

TEST(WorkerChipOrchRegion, FreeIsLogicalAndIdempotent) {
  auto ledger = std::make_shared<RegionLedger>();
  std::string why;
  auto inst = RegionInstance::materialize({0, 7, 1}, 256, 64, ledger, &why);
  const RegionPartLocalSpan p = inst->payload(), c = inst->counter();
  WorkerChipOrchRegion region(inst);
  EXPECT_FALSE(region.released());
  const auto s = region.chip_task_arg_scalars();
  EXPECT_EQ(s[0], p.base);
  EXPECT_EQ(s[1], 256u);
  EXPECT_EQ(s[2], c.base);
  EXPECT_EQ(s[3], 64u);
  region.free();
  EXPECT_TRUE(region.released());
  EXPECT_EQ(region.payload().base, 0u);
  EXPECT_EQ(region.counter().logical_bytes, 0u);
  EXPECT_EQ(region.id().transaction_id, 1u);
  // Another holder (a submitted task) still keeps the memory.
  EXPECT_TRUE(ledger->is_live(0, 1));
  region.free();
  inst.reset();
  EXPECT_FALSE(ledger->is_live(0, 1));
}

}  // namespace
}  // namespace spsq_runtime
