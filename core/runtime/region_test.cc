// RegionInstance memory, its ledger, the primitive region projector and the
// Region Template coordinator's failure rule.
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <string>

#include "common/spsq_error.h"
#include "gtest/gtest.h"
#include "runtime/region_instance.h"
#include "runtime/region_template_coordinator.h"
#include "runtime/shared_mapping.h"
#include "runtime/worker_chip_region.h"

namespace spsq_runtime {
namespace {

using spsc_queue::SpscQueueError;
using spsc_queue::SpscQueueErrorKind;

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

// A template whose steps can be told to fail, to check the coordinator.
struct FakeTemplate {
  using Binding = uint64_t;
  struct Handle {
    std::shared_ptr<RegionInstance> instance;
    uint64_t binding;
  };
  using Projection = std::unique_ptr<Handle>;

  bool fail_bind = false;
  bool fail_project = false;
  mutable int bind_calls = 0;
  mutable int project_calls = 0;

  uint64_t payload_bytes() const { return 192; }
  uint64_t counter_bytes() const { return 384; }
  bool bind(const RegionInstance& inst, Binding* out, SpscQueueError* error) const {
    ++bind_calls;
    if (fail_bind) {
      *error = spsc_queue::make_error(SpscQueueErrorKind::BAD_BINDING,
                                      spsc_queue::SpscQueueOp::INIT, "bind says no");
      return false;
    }
    *out = inst.id().transaction_id * 100;
    return true;
  }
  Projection project(std::shared_ptr<RegionInstance> inst, const Binding& b,
                     SpscQueueError* error) const {
    ++project_calls;
    // Even a projection that grabbed the instance must let it go on failure.
    Projection p(new Handle{std::move(inst), b});
    if (fail_project) {
      *error = spsc_queue::make_error(SpscQueueErrorKind::ENDPOINT_ERROR,
                                      spsc_queue::SpscQueueOp::INIT, "project says no");
      return nullptr;
    }
    return p;
  }
};

TEST(RegionTemplateCoordinator, MaterializesBindsAndProjects) {
  auto ledger = std::make_shared<RegionLedger>();
  FakeTemplate t;
  SpscQueueError e;
  auto h = materialize_bind_project(t, RegionInstanceId{0, 0x55, 4}, ledger, &e);
  ASSERT_TRUE(h);
  EXPECT_TRUE(e.ok());
  EXPECT_EQ(h->binding, 400u);
  EXPECT_EQ(h->instance->payload().logical_bytes, 192u);
  EXPECT_EQ(h->instance->counter().logical_bytes, 384u);
  EXPECT_EQ(ledger->live(), 1u);
  h.reset();
  EXPECT_EQ(ledger->live(), 0u);
}

TEST(RegionTemplateCoordinator, BindFailureClosesInstanceAndReportsFirstError) {
  auto ledger = std::make_shared<RegionLedger>();
  FakeTemplate t;
  t.fail_bind = true;
  SpscQueueError e;
  EXPECT_FALSE(materialize_bind_project(t, RegionInstanceId{1, 0x66, 8}, ledger, &e));
  EXPECT_EQ(t.project_calls, 0);
  EXPECT_EQ(e.kind, SpscQueueErrorKind::BAD_BINDING);
  EXPECT_STREQ(e.message, "bind says no [session 0x0000000000000066, transaction 8]");
  EXPECT_TRUE(e.has_identity());
  EXPECT_EQ(e.session_instance_id_bits, 0x66u);
  EXPECT_EQ(e.transaction_id, 8u);
  EXPECT_EQ(ledger->materialized(), 1u);
  EXPECT_EQ(ledger->live(), 0u);  // closed again
}

TEST(RegionTemplateCoordinator, ProjectFailureClosesInstanceAndReportsFirstError) {
  auto ledger = std::make_shared<RegionLedger>();
  FakeTemplate t;
  t.fail_project = true;
  SpscQueueError e;
  EXPECT_FALSE(materialize_bind_project(t, RegionInstanceId{0, 0, 2}, ledger, &e));
  EXPECT_EQ(t.bind_calls, 1);
  EXPECT_EQ(t.project_calls, 1);
  EXPECT_EQ(e.kind, SpscQueueErrorKind::ENDPOINT_ERROR);
  EXPECT_STREQ(e.message, "project says no [session 0x0000000000000000, transaction 2]");
  EXPECT_EQ(e.transaction_id, 2u);
  EXPECT_EQ(e.session_instance_id_bits, 0u);  // session bits may be zero
  EXPECT_EQ(ledger->live(), 0u);
  EXPECT_EQ(ledger->reclaimed(), 1u);
}

}  // namespace
}  // namespace spsq_runtime
