// The Region Template coordinator's failure rule: a failed bind or projection
// closes the instance it materialized and reports the first error.
#include <cstdint>
#include <memory>

#include "common/spsq_error.h"
#include "gtest/gtest.h"
#include "region/region_instance.h"
#include "runtime/region_template_coordinator.h"

namespace spsq_runtime {
namespace {

using spsc_queue::SpscQueueError;
using spsc_queue::SpscQueueErrorKind;

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
